# shellcheck shell=bash
# `./isthmus test`: every suite, one summary line per suite, then the plain total as the last line.
#
# Suites: one per Maven module (its surefire reports), `launcher` (this launcher's own behaviour)
# and `rdma` (tests tagged "rdma", run on real Soft-RoCE inside a QEMU guest).

# Debian packages the test suites need on the host: rdma-core headers and a C compiler for the
# struct-layout test, the verbs runtime for availability checks, kcat as a non-Java Kafka client.
readonly TEST_PACKAGES=(gcc libibverbs-dev librdmacm-dev libibverbs1 librdmacm1 ibverbs-providers kcat)

TOTAL_PASSED=0
TOTAL_FAILED=0
TOTAL_SKIPPED=0

record_suite() {
    local suite=$1 passed=$2 failed=$3 skipped=$4 note=${5:-}
    TOTAL_PASSED=$((TOTAL_PASSED + passed))
    TOTAL_FAILED=$((TOTAL_FAILED + failed))
    TOTAL_SKIPPED=$((TOTAL_SKIPPED + skipped))
    echo "$suite: $passed passed, $failed failed, $skipped skipped${note:+ ($note)}"
}

# Prints "tests failures errors skipped" summed over the JUnit XML reports in directory $1.
junit_xml_counts() {
    local dir=$1 report header tests=0 failures=0 errors=0 skipped=0
    for report in "$dir"/TEST-*.xml; do
        [ -f "$report" ] || continue
        header=$(head -c 4096 "$report" | tr '\n' ' ' | grep -o '<testsuite [^>]*>' | head -n 1)
        tests=$((tests + $(xml_attribute "$header" tests)))
        failures=$((failures + $(xml_attribute "$header" failures)))
        errors=$((errors + $(xml_attribute "$header" errors)))
        skipped=$((skipped + $(xml_attribute "$header" skipped)))
    done
    echo "$tests $failures $errors $skipped"
}

# Prints "class#test: message" for each failed or erring test case in the JUnit XML reports in
# directory $1, so that a failed run names what failed without its reports at hand.
junit_xml_failures() {
    local report
    for report in "$1"/TEST-*.xml; do
        [ -f "$report" ] || continue
        awk '
            /^[[:space:]]*<testcase / {
                name = $0; sub(/.* name="/, "", name); sub(/".*/, "", name)
                class = $0; sub(/.* classname="/, "", class); sub(/".*/, "", class)
            }
            /^[[:space:]]*<(failure|error)[ >]/ {
                message = ""
                if ($0 ~ / message="/) { message = $0; sub(/.* message="/, "", message); sub(/".*/, "", message) }
                gsub(/&lt;/, "<", message); gsub(/&gt;/, ">", message); gsub(/&quot;/, "\"", message)
                gsub(/&#10;/, " ", message); gsub(/&amp;/, "\\&", message)
                print "  " class "#" name ": " substr(message, 1, 400)
            }' "$report"
    done
}

xml_attribute() {
    local value
    value=$(echo "$1" | sed -n "s/.* $2=\"\([0-9]*\)\".*/\1/p")
    echo "${value:-0}"
}

run_maven_suites() {
    local module_dirs=() dir
    while read -r dir; do module_dirs+=("$dir"); done < <(maven_module_dirs)
    for dir in "${module_dirs[@]}"; do rm -rf "$ISTHMUS_HOME/$dir/target/surefire-reports"; done

    # Failures are counted from the reports, so Maven goes on through every module; a compile
    # error or a failed format check still fails the build and is reported as such.
    local maven_status=0
    maven_with_progress "testing" install -Dmaven.test.failure.ignore=true || maven_status=$?

    for dir in "${module_dirs[@]}"; do
        # A module without tests of its own (benchmarks) is no suite.
        [ -d "$ISTHMUS_HOME/$dir/src/test" ] || [ "$dir" = src/test ] || continue
        local tests failures errors skipped
        read -r tests failures errors skipped < <(junit_xml_counts "$ISTHMUS_HOME/$dir/target/surefire-reports")
        record_suite "$(module_suite_name "$dir")" $((tests - failures - errors - skipped)) $((failures + errors)) "$skipped"
        [ $((failures + errors)) -eq 0 ] || junit_xml_failures "$ISTHMUS_HOME/$dir/target/surefire-reports"
    done
    if [ "$maven_status" -ne 0 ]; then
        record_suite build 0 1 0 "maven exited $maven_status, see $BUILD_LOG"
    else
        touch "$BUILD_STAMP"
    fi
}

# A module's suite name: its artifactId without the "isthmus-" prefix (src/test is isthmus-e2e: "e2e").
module_suite_name() {
    local artifact
    artifact=$(grep -m 1 '^    <artifactId>' "$ISTHMUS_HOME/$1/pom.xml" | sed 's/.*<artifactId>\(.*\)<\/artifactId>.*/\1/')
    echo "${artifact#isthmus-}"
}

# Module directories in reactor order, read from the root pom (and nested aggregator poms).
maven_module_dirs() {
    local pom=${1:-pom.xml} prefix=${2:-} module
    for module in $(sed -n 's/.*<module>\(.*\)<\/module>.*/\1/p' "$ISTHMUS_HOME/$pom"); do
        if grep -q '<modules>' "$ISTHMUS_HOME/$prefix$module/pom.xml"; then
            maven_module_dirs "$prefix$module/pom.xml" "$prefix$module/"
        else
            echo "$prefix$module"
        fi
    done
}

run_launcher_suite() {
    local output
    output=$("$ISTHMUS_HOME/tools/launcher/launcher-test.sh" 2>&1) || true
    local line
    line=$(echo "$output" | tail -n 1)
    if [[ "$line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
        [ "${BASH_REMATCH[2]}" -eq 0 ] || echo "$output" | grep -v "passed, .* failed" >&2
        record_suite launcher "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}"
    else
        echo "$output" >&2
        record_suite launcher 0 1 0 "the launcher self-test did not report"
    fi
}

# The class path of the tests and main classes of every module with RDMA tests, for the in-guest
# JUnit launcher. Only those: the Flink and Spark connectors' class paths clash (Kryo, slf4j), and
# they may share one JVM only while one of them has no RDMA test.
all_test_classpath() {
    local dir cp=""
    while read -r dir; do
        local target="$ISTHMUS_HOME/$dir/target"
        [ -d "$target/test-classes" ] || continue
        grep -rqs --include='*.java' --exclude-dir=target '@Tag("rdma' "$ISTHMUS_HOME/$dir" || continue
        cp="$cp:$target/test-classes:$target/classes:$(cat "$target/test.classpath")"
    done < <(maven_module_dirs)
    echo "${cp#:}"
}

run_rdma_suite() {
    if [ -n "${ISTHMUS_SKIP_RDMA:-}" ]; then
        echo "rdma: not run: ISTHMUS_SKIP_RDMA is set"
        return 0
    fi
    local reports="$ISTHMUS_HOME/target/rdma-reports" output status=0
    rm -rf "$reports"
    # ISTHMUS_RDMA_TAGS widens the suite, e.g. 'rdma | rdma-cluster' adds the failover test of three broker processes
    # in the guest, which takes about half an hour under emulation: a vCPU for each JVM, 4 GiB and a longer guest timeout.
    local tags=${ISTHMUS_RDMA_TAGS:-rdma} vm=(--timeout 900)
    [ "$tags" = rdma ] || vm=(--cpus 4 --mem 4G --timeout 5400)
    echo "isthmus: testing $tags in the Soft-RoCE guest (QEMU under TCG: a few minutes)" >&2
    output=$("$ISTHMUS_HOME/tools/softroce/rdma-suite.sh" --select-tag "$tags" "${vm[@]}" --reports "$reports" --classpath "$(all_test_classpath)" 2>&1) || status=$?
    local line
    line=$(echo "$output" | grep -E '^rdma: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' | tail -n 1)
    if [[ "$line" =~ ^rdma:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]]; then
        local passed=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]} skipped=${BASH_REMATCH[3]}
        if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
            echo "$output" | tail -n 80 >&2
        fi
        if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
            # The guest failed, or the suite ran no test although the VM was available.
            failed=1
        fi
        record_suite rdma "$passed" "$failed" "$skipped"
    else
        echo "$output" | tail -n 80 >&2
        record_suite rdma 0 1 0 "the Soft-RoCE suite did not report (exit $status)"
    fi
}

cmd_test() {
    "$ISTHMUS_HOME/tools/ensure-packages.sh" "${TEST_PACKAGES[@]}" || return 1
    run_maven_suites
    run_launcher_suite
    run_rdma_suite
    echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed, $TOTAL_SKIPPED skipped"
    [ "$TOTAL_FAILED" -eq 0 ]
}
