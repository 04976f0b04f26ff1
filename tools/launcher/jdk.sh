# shellcheck shell=bash
# Finds a JDK able to build and run isthmus (22+: the final FFM API).
# Order: JAVA_HOME when it is suitable, then the newest JDK under ISTHMUS_JVM_DIR (default /usr/lib/jvm).

readonly ISTHMUS_MIN_JAVA=22

# Prints the feature release (17, 25, ...) of the JDK at $1, or nothing if it is not a JDK.
jdk_feature_version() {
    local home=$1 version=""
    [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || return 0
    if [ -f "$home/release" ]; then
        version=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$home/release")
    fi
    if [ -z "$version" ]; then
        # 'openjdk version "25.0.1" ...' or the pre-9 form '"1.8.0_x"'; only the former can qualify.
        version=$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\).*/\1/p' | head -n 1)
    fi
    echo "$version"
}

# Sets JAVA_HOME to a suitable JDK, or prints one sentence on what to install and returns 1.
find_jdk() {
    local candidate version best="" best_version=0 seen=""
    if [ -n "${JAVA_HOME:-}" ]; then
        version=$(jdk_feature_version "$JAVA_HOME")
        if [ -n "$version" ] && [ "$version" -ge "$ISTHMUS_MIN_JAVA" ]; then
            export JAVA_HOME
            return 0
        fi
        seen="JAVA_HOME=$JAVA_HOME (${version:-not a JDK})"
    fi
    local jvm_dir=${ISTHMUS_JVM_DIR:-/usr/lib/jvm}
    for candidate in "$jvm_dir"/*; do
        [ -d "$candidate" ] || continue
        version=$(jdk_feature_version "$candidate")
        [ -n "$version" ] || continue
        seen="${seen:+$seen, }$(basename "$candidate") ($version)"
        if [ "$version" -ge "$ISTHMUS_MIN_JAVA" ] && [ "$version" -gt "$best_version" ]; then
            best=$candidate
            best_version=$version
        fi
    done
    if [ -z "$best" ]; then
        echo "isthmus: needs a JDK $ISTHMUS_MIN_JAVA or newer, and JAVA_HOME and $jvm_dir hold ${seen:+only }${seen:-none}; install one (for example Eclipse Temurin 25 under $jvm_dir) or point JAVA_HOME at it." >&2
        return 1
    fi
    export JAVA_HOME=$best
}
