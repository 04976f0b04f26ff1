#!/usr/bin/env bash
# Runs the JUnit 5 tests tagged "rdma" inside the Soft-RoCE guest (softroce.sh) with plain java
# and the JUnit Platform console launcher, on a class path compiled on the host, then prints
#   rdma: N passed, N failed, N skipped
# Maven never runs in the guest: under full emulation it would take minutes.
#
# Usage: tools/softroce/rdma-suite.sh --reports DIR --classpath CP [options] [-- extra junit args]
#   --reports DIR      where the launcher writes its XML reports (emptied of old TEST-*.xml first)
#   --classpath CP     test class path (':'-separated); its test-classes directories are scanned,
#                      or all its directories when none is named test-classes
#   --select-tag TAG   tag expression to run (default rdma)
#   --jvm-arg ARG      extra JVM option for the guest JVM (repeatable)
#   --timeout SECS     guest timeout, passed to softroce.sh (default 900)
#   --cpus N / --mem SIZE   passed to softroce.sh
#
# Exit status: 0 when the guest run succeeded and no test failed; 1 when tests failed; 3 when the
# suite ran no test at all (the VM works, so CI must not pass silently); otherwise the guest's.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project_root=$(cd "$here/../.." && pwd)
java_home=/usr/lib/jvm/temurin-25-jdk-amd64
console_version=1.13.4
console_name=junit-platform-console-standalone-$console_version.jar

reports=
classpath=
tag=rdma
jvm_args=()
vm_args=(--timeout 900)

die() { echo "rdma-suite: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --reports) reports=${2:?--reports needs a directory}; shift 2 ;;
        --classpath|--class-path) classpath=${2:?--classpath needs a value}; shift 2 ;;
        --select-tag) tag=${2:?--select-tag needs a tag}; shift 2 ;;
        --jvm-arg) jvm_args+=("${2:?--jvm-arg needs a value}"); shift 2 ;;
        --timeout|--cpus|--mem) vm_args+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown option $1" ;;
    esac
done
[ -n "$reports" ] || die "--reports DIR is required"
[ -n "$classpath" ] || die "--classpath CP is required"
[ -x "$java_home/bin/java" ] || die "no JDK 25 at $java_home"

# The console launcher: the local Maven repository has it on a developer machine; elsewhere Maven
# copies it once into our cache (outside the repository).
maven_repo=${ISTHMUS_MAVEN_REPO:-$HOME/.m2/repository}
console_jar=$maven_repo/org/junit/platform/junit-platform-console-standalone/$console_version/$console_name
if [ ! -f "$console_jar" ]; then
    cache=${XDG_CACHE_HOME:-$HOME/.cache}/isthmus/softroce/junit
    console_jar=$cache/$console_name
    if [ ! -f "$console_jar" ]; then
        mkdir -p "$cache"
        (cd "$project_root" && ./mvnw -q -B -ntp -Dmaven.repo.local="$maven_repo" dependency:copy \
            -Dartifact=org.junit.platform:junit-platform-console-standalone:$console_version \
            -DoutputDirectory="$cache") >&2 || die "cannot fetch $console_name with Maven"
    fi
fi

# Absolute paths: the guest starts in our cwd too, but reports must land in a shared directory.
mkdir -p "$reports"
reports=$(cd "$reports" && pwd)
rm -f "$reports"/TEST-*.xml

scan=()
all_dirs=()
IFS=: read -r -a cp_entries <<<"$classpath"
abs_cp=()
for entry in "${cp_entries[@]}"; do
    [ -n "$entry" ] || continue
    [ -e "$entry" ] || { echo "rdma-suite: class path entry does not exist: $entry" >&2; continue; }
    case "$entry" in /*) ;; *) entry=$(cd "$(dirname "$entry")" && pwd)/$(basename "$entry") ;; esac
    abs_cp+=("$entry")
    if [ -d "$entry" ]; then
        all_dirs+=("$entry")
        case "${entry%/}" in */test-classes) scan+=("$entry") ;; esac
    fi
done
[ ${#scan[@]} -gt 0 ] || scan=("${all_dirs[@]}")
[ ${#scan[@]} -gt 0 ] || die "no directory on the class path to scan for tests"
join() { local IFS=:; echo "$*"; }

# Measured in the guest (MTTCG, 2 vCPUs): C1 only and the serial GC start the launcher markedly
# faster than the default tiered/G1 JVM; the JDK's CDS archive halves startup (-Xshare:auto is
# the default, kept explicit so nobody turns it off by accident).
# The test class path is the JVM's own class path, not the launcher's --class-path: code that
# resolves classes through the application class loader (a Flink MiniCluster deserialising its job
# graph) must see the tests and their dependencies.
java_cmd=(taskset -c 0 "$java_home/bin/java"
    --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto
    "${jvm_args[@]}"
    -cp "$console_jar:$(join "${abs_cp[@]}")"
    org.junit.platform.console.ConsoleLauncher execute
    --scan-class-path "$(join "${scan[@]}")"
    --include-tag "$tag"
    --reports-dir "$reports"
    --details=tree --disable-banner --disable-ansi-colors
    "$@")

guest_rc=0
"$here/softroce.sh" "${vm_args[@]}" --share "$reports" -- "${java_cmd[@]}" || guest_rc=$?

reports_found=("$reports"/TEST-*.xml)
if [ ! -f "${reports_found[0]}" ]; then
    echo "rdma-suite: no JUnit XML report in $reports (guest exit $guest_rc)" >&2
    [ "$guest_rc" -ne 0 ] || guest_rc=1
    exit "$guest_rc"
fi

# Sums tests/failures/errors/skipped over the <testsuite> elements of the legacy XML reports.
read -r tests failures errors skipped < <(
    cat "${reports_found[@]}" | tr '\n' ' ' | grep -o '<testsuite [^>]*>' | awk '
        function attr(s, name,   m) {
            return match(s, " " name "=\"[0-9]+\"") ? substr(s, RSTART + length(name) + 3, RLENGTH - length(name) - 4) + 0 : 0
        }
        { t += attr($0, "tests"); f += attr($0, "failures"); e += attr($0, "errors"); s += attr($0, "skipped") }
        END { print t + 0, f + 0, e + 0, s + 0 }')
passed=$((tests - failures - errors - skipped))
failed=$((failures + errors))
echo "rdma: $passed passed, $failed failed, $skipped skipped"

if [ "$tests" -eq 0 ]; then
    echo "rdma-suite: RDMA suite ran no tests" >&2
    exit 3
fi
[ "$failed" -eq 0 ] || exit 1
exit "$guest_rc"
