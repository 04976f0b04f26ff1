#!/usr/bin/env bash
# Installs the named Debian packages that are not installed yet; prints nothing when all are.
# Usage: tools/ensure-packages.sh pkg [pkg ...]
set -euo pipefail
missing=()
for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "isthmus: missing Debian packages: ${missing[*]} (run: sudo apt-get install ${missing[*]})" >&2
    exit 1
fi
echo "isthmus: installing ${missing[*]}" >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The package lists on a fresh machine are empty or stale; refresh them at most once an hour.
stamp=/var/lib/apt/periodic/isthmus-update-stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +60 2>/dev/null)" ]; then
    if ! DEBIAN_FRONTEND=noninteractive apt-get update -q > "$log" 2>&1; then
        cat "$log" >&2
        echo "isthmus: apt-get update failed" >&2
        exit 1
    fi
    mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" > "$log" 2>&1; then
    cat "$log" >&2
    echo "isthmus: installing ${missing[*]} failed" >&2
    exit 1
fi
