# shellcheck shell=bash
# Incremental build: runs Maven only when a pom or a source file changed since the last good build.

readonly BUILD_STAMP="$ISTHMUS_HOME/target/isthmus-build.stamp"
readonly BUILD_LOG="$ISTHMUS_HOME/target/isthmus-build.log"

# JDK 23+ warns about Maven's own use of sun.misc.Unsafe; JDK 22 refuses the flag that silences it.
maven_opts() {
    local version
    version=$(jdk_feature_version "$JAVA_HOME")
    if [ "$version" -ge 23 ]; then
        echo "--sun-misc-unsafe-memory-access=allow ${MAVEN_OPTS:-}"
    else
        echo "${MAVEN_OPTS:-}"
    fi
}

# The local Maven repository follows $HOME, as users expect. Maven itself would take the JVM's
# user.home, which comes from the password database and ignores $HOME.
maven_repository() {
    echo "${ISTHMUS_MAVEN_REPO:-$HOME/.m2/repository}"
}

# Runs the Maven wrapper with the chosen JDK; every argument is passed on.
mvnw() {
    local pinning
    read -r -a pinning <<<"$(jvm_pinning)"
    MAVEN_OPTS=$(maven_opts) ${pinning[@]+"${pinning[@]}"} "$ISTHMUS_HOME/mvnw" -B -ntp -Dmaven.repo.local="$(maven_repository)" \
        -f "$ISTHMUS_HOME/pom.xml" "$@"
}

sources_changed() {
    [ -f "$BUILD_STAMP" ] || return 0
    local newer
    newer=$(find "$ISTHMUS_HOME" \
        \( -name target -o -name .git -o -name .cache -o -name node_modules \) -prune -o \
        \( -name pom.xml -o -path '*/src/*' -o -path '*/.mvn/*' \) -type f -newer "$BUILD_STAMP" -print -quit)
    [ -n "$newer" ]
}

# Runs Maven with the given goals, showing one progress line per module; the full log goes to $BUILD_LOG.
# On failure, prints the errors and returns Maven's status.
maven_with_progress() {
    local label=$1
    shift
    mkdir -p "$(dirname "$BUILD_LOG")"
    local status=0
    # Truncated here, not by the background redirection, so no line of the previous build is shown.
    : > "$BUILD_LOG"
    mvnw "$@" >> "$BUILD_LOG" 2>&1 &
    local pid=$!
    local shown=""
    while kill -0 "$pid" 2> /dev/null; do
        local module
        module=$(grep -o 'Building isthmus[-a-z0-9]* .*\[[0-9]*/[0-9]*\]' "$BUILD_LOG" 2> /dev/null | tail -n 1 | sed 's/ [0-9.]*-SNAPSHOT */ /; s/Building //')
        if [ -n "$module" ] && [ "$module" != "$shown" ]; then
            echo "isthmus: $label $module" >&2
            shown=$module
        fi
        sleep 1
    done
    wait "$pid" || status=$?
    if [ "$status" -ne 0 ]; then
        echo "isthmus: $label failed; the errors (full log: $BUILD_LOG):" >&2
        grep -E '^\[ERROR\]|FAIL|Tests run:.*Fail' "$BUILD_LOG" | grep -v '^\[ERROR\] *$' | head -n 60 >&2
    fi
    return "$status"
}

# Builds every module when sources changed since the last good build. Quiet when nothing changed.
ensure_built() {
    sources_changed || return 0
    # Running a program needs its main classes only: tests are neither compiled nor run here.
    maven_with_progress "building" install -Dmaven.test.skip=true -Dspotless.check.skip=true || return 1
    touch "$BUILD_STAMP"
}

# Prints the run-time class path of a module (its classes followed by its dependencies).
module_classpath() {
    local module_dir="$ISTHMUS_HOME/$1"
    echo "$module_dir/target/classes:$(cat "$module_dir/target/runtime.classpath")"
}

# The command a JVM is started under: inside the Soft-RoCE guest with multi-threaded TCG (softroce.sh
# sets ISTHMUS_SOFTROCE_TCG), pinned to one vCPU, because QEMU 7.2's multi-threaded TCG crashes freshly
# JIT-compiled code that migrates between vCPUs (the RDMA suite pins its JVM the same way); else nothing.
jvm_pinning() {
    if [ "${ISTHMUS_SOFTROCE_TCG:-}" = multi ]; then
        echo "taskset -c 0"
    fi
}

# Runs a Java main class from a module, with the flags every isthmus JVM needs.
run_java() {
    local module=$1 main_class=$2
    shift 2
    local flags=(--enable-native-access=ALL-UNNAMED)
    # Third-party libraries (Kafka's, Netty's) still touch sun.misc.Unsafe; JDK 23+ warns unless allowed,
    # and JDK 22 refuses the flag.
    [ "$(jdk_feature_version "$JAVA_HOME")" -ge 23 ] && flags+=(--sun-misc-unsafe-memory-access=allow)
    local pinning
    read -r -a pinning <<<"$(jvm_pinning)"
    # shellcheck disable=SC2086 # ISTHMUS_JAVA_OPTS is a list of JVM flags on purpose
    exec ${pinning[@]+"${pinning[@]}"} "$JAVA_HOME/bin/java" "${flags[@]}" ${ISTHMUS_JAVA_OPTS:-} \
        -cp "$(module_classpath "$module")" "$main_class" "$@"
}
