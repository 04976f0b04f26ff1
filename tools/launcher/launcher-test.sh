#!/usr/bin/env bash
# Tests of the ./isthmus launcher itself: JDK discovery, dispatch, the incremental-build decision and
# the parsing of test reports. Runs in a few seconds and needs neither Maven nor a JDK.
# Prints one line per test and ends with "N passed, N failed, 0 skipped".
set -uo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
check() {
    local name=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok - $name"
    else
        failed=$((failed + 1))
        echo "not ok - $name"
    fi
}

# A directory that looks like a JDK of the given feature release to the launcher.
fake_jdk() {
    local home=$1 version=$2
    mkdir -p "$home/bin"
    printf '#!/bin/sh\necho "openjdk version \\"%s\\""\n' "$version" > "$home/bin/java"
    cp "$home/bin/java" "$home/bin/javac"
    chmod +x "$home/bin/java" "$home/bin/javac"
    echo "JAVA_VERSION=\"$version.0.1\"" > "$home/release"
}

fake_jdk "$work/jvm/jdk-17" 17
fake_jdk "$work/jvm/jdk-23" 23
fake_jdk "$work/jvm/jdk-25" 25
mkdir -p "$work/only17" "$work/empty"
fake_jdk "$work/only17/jdk-17" 17
mkdir -p "$work/jvm/not-a-jdk/bin"

fails_with_one_line_about_jdk() {
    local output status
    output=$(env "$@" "$root/isthmus" test 2>&1)
    status=$?
    [ "$status" -ne 0 ] && [ "$(echo "$output" | wc -l)" -eq 1 ] && [[ "$output" == *"needs a JDK 22 or newer"* ]] \
        && [[ "$output" != *Exception* ]]
}
check "no JDK at all: test fails with one sentence" fails_with_one_line_about_jdk JAVA_HOME= ISTHMUS_JVM_DIR="$work/empty"
check "only JDK 17: test fails with one sentence" fails_with_one_line_about_jdk JAVA_HOME="$work/only17/jdk-17" ISTHMUS_JVM_DIR="$work/only17"

chosen_jdk() {
    env "$@" "$root/isthmus" env 2>&1 | sed -n 's/^JAVA_HOME=\([^ ]*\).*/\1/p'
}
check "JAVA_HOME unset: the newest JDK in the JVM directory is chosen" \
    test "$(chosen_jdk JAVA_HOME= ISTHMUS_JVM_DIR="$work/jvm")" = "$work/jvm/jdk-25"
check "a suitable JAVA_HOME wins over a newer JDK" \
    test "$(chosen_jdk JAVA_HOME="$work/jvm/jdk-23" ISTHMUS_JVM_DIR="$work/jvm")" = "$work/jvm/jdk-23"
check "an unsuitable JAVA_HOME falls back to the JVM directory" \
    test "$(chosen_jdk JAVA_HOME="$work/jvm/jdk-17" ISTHMUS_JVM_DIR="$work/jvm")" = "$work/jvm/jdk-25"

unknown_command_is_refused() {
    local output
    output=$("$root/isthmus" no-such-command 2>&1)
    [ $? -eq 2 ] && [[ "$output" == *"unknown command 'no-such-command'"* ]]
}
check "an unknown command exits 2 and names it" unknown_command_is_refused

help_lists_every_command() {
    local output name
    output=$("$root/isthmus" help)
    for name in demo test produce consume topics broker cluster bench softroce env help; do
        echo "$output" | grep -q "^  $name " || return 1
    done
}
check "help lists every command" help_lists_every_command

softroce_without_command_shows_usage() {
    local output
    output=$("$root/isthmus" softroce -- 2>&1)
    [ $? -eq 2 ] && [[ "$output" == *"usage: ./isthmus softroce -- <command>"* ]]
}
check "softroce without a command shows its usage" softroce_without_command_shows_usage

# The incremental-build decision, on a scratch tree.
build_decision() {
    (
        ISTHMUS_HOME="$work/tree"
        # shellcheck source=tools/launcher/build.sh
        source "$root/tools/launcher/build.sh"
        if sources_changed; then echo rebuild; else echo up-to-date; fi
    )
}
mkdir -p "$work/tree/mod/src/main/java" "$work/tree/target" "$work/tree/mod/target/classes"
echo '<project/>' > "$work/tree/pom.xml"
echo 'class A {}' > "$work/tree/mod/src/main/java/A.java"
check "no build stamp: rebuild" test "$(build_decision)" = rebuild
touch -d '1 minute ago' "$work/tree/pom.xml" "$work/tree/mod/src/main/java/A.java"
touch "$work/tree/target/isthmus-build.stamp"
check "nothing changed since the stamp: no rebuild" test "$(build_decision)" = up-to-date
touch "$work/tree/mod/target/classes/A.class"
check "build outputs newer than the stamp do not trigger a rebuild" test "$(build_decision)" = up-to-date
touch "$work/tree/mod/src/main/java/A.java"
check "a changed source file triggers a rebuild" test "$(build_decision)" = rebuild

# JVMs inside the Soft-RoCE guest under multi-threaded TCG run on one vCPU (see jvm_pinning).
jvm_pinning_with() {
    env "$@" ISTHMUS_HOME="$root" bash -c "source '$root/tools/launcher/build.sh'; jvm_pinning"
}
check "inside the guest under multi-threaded TCG a JVM is pinned to one vCPU" \
    test "$(jvm_pinning_with ISTHMUS_SOFTROCE_TCG=multi)" = "taskset -c 0"
check "under single-threaded TCG and outside the guest a JVM is not pinned" \
    test "$(jvm_pinning_with ISTHMUS_SOFTROCE_TCG=single)$(jvm_pinning_with ISTHMUS_SOFTROCE_TCG=)" = ""

# Report parsing, on a surefire-shaped report.
mkdir -p "$work/reports"
cat > "$work/reports/TEST-a.B.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="3.0.2" name="a.B" time="0.1" tests="7" errors="1" skipped="2" failures="1">
  <testcase name="x" classname="a.B" time="0.0"/>
  <testcase name="failing" classname="a.B" time="0.1">
    <failure message="expected: &lt;3&gt; but was: &lt;2&gt; &amp; more" type="org.opentest4j.AssertionFailedError"><![CDATA[trace]]></failure>
  </testcase>
  <testcase name="erring" classname="a.B" time="0.1">
    <error type="java.lang.IllegalStateException"><![CDATA[trace]]></error>
  </testcase>
</testsuite>
XML
cat > "$work/reports/TEST-a.C.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="a.C" time="0.1" tests="3" errors="0" skipped="0" failures="0">
</testsuite>
XML
report_counts() {
    (
        ISTHMUS_HOME=$root
        source "$root/tools/launcher/build.sh"
        source "$root/tools/launcher/test.sh"
        junit_xml_counts "$work/reports"
    )
}
check "surefire reports are summed: tests failures errors skipped" test "$(report_counts)" = "10 1 1 2"

failed_tests() {
    (
        ISTHMUS_HOME=$root
        source "$root/tools/launcher/build.sh"
        source "$root/tools/launcher/test.sh"
        junit_xml_failures "$work/reports"
    )
}
check "a failed and an erring test are named with their message" test "$(failed_tests)" = \
    "$(printf '  a.B#failing: expected: <3> but was: <2> & more\n  a.B#erring: ')"

echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
