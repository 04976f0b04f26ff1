#!/usr/bin/env bash
# Runs one command inside a QEMU guest with real kernel RDMA: Soft-RoCE (rdma_rxe) on rxe0.
# The guest sees the host's / read-only (writes land in a tmpfs overlay), the project root and
# every --share DIR read-write at their own paths, and starts the command in the caller's
# current directory. Its stdout/stderr stream to ours; its exit status becomes ours.
#
# Usage: tools/softroce/softroce.sh [options] -- <command> [args...]
#   --cpus N         vCPUs (default 2)
#   --mem SIZE       guest memory, QEMU syntax (default 2G)
#   --timeout SECS   kill the guest after SECS seconds, exit 124 (default 600)
#   --share DIR      also mount host DIR read-write at the same path (repeatable)
#   --tcg MODE       multi (default: vCPUs run in parallel) or single (one host thread)
#   --build-only     build or check the cached image and exit
#
# Inside: rxe0 is ACTIVE, ISTHMUS_RDMA_DEVICE=rxe0 ISTHMUS_RDMA_GID_INDEX=1
# ISTHMUS_RDMA_IP=169.254.77.1 ISTHMUS_SOFTROCE=1 ISTHMUS_SOFTROCE_CPUS=N ISTHMUS_SOFTROCE_TCG=MODE.
# Under --tcg multi, pin every JVM to one vCPU (taskset -c 0 java ..., the peer taskset -c 1):
# QEMU 7.2 multi-threaded TCG crashes freshly JIT-compiled code that migrates between vCPUs.
#
# Exit status: the command's; 124 on timeout; 125 when the harness or rxe0 failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project_root=$(cd "$here/../.." && pwd)

cpus=2
mem=2G
timeout_s=600
tcg=multi
build_only=
shares=("$project_root")

die() { echo "softroce: $*" >&2; exit 125; }

while [ $# -gt 0 ]; do
    case "$1" in
        --cpus) cpus=${2:?--cpus needs a value}; shift 2 ;;
        --mem) mem=${2:?--mem needs a value}; shift 2 ;;
        --timeout) timeout_s=${2:?--timeout needs a value}; shift 2 ;;
        --share) shares+=("$(cd "${2:?--share needs a directory}" && pwd)") || die "no such directory: $2"; shift 2 ;;
        --tcg) tcg=${2:?--tcg needs multi or single}; shift 2 ;;
        --build-only) build_only=1; shift ;;
        --) shift; break ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown option $1 (the command goes after --)" ;;
    esac
done
[[ "$cpus" =~ ^[1-9][0-9]*$ ]] || die "--cpus must be a positive integer"
[[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive integer"
[[ "$tcg" = multi || "$tcg" = single ]] || die "--tcg must be multi or single"
[ -n "$build_only" ] || [ $# -gt 0 ] || die "no command given (usage: softroce.sh [options] -- command [args...])"

# --- host packages ------------------------------------------------------------------------------
# Other engineers' apt runs hold the dpkg lock for a few seconds at a time: wait them out.
ensure_packages() {
    local _ err
    for _ in $(seq 1 30); do
        if err=$("$project_root/tools/ensure-packages.sh" "$@" 2>&1); then
            [ -z "$err" ] || echo "$err" >&2
            return 0
        fi
        case "$err" in *"Could not get lock"*|*"is another process using it"*) sleep 2 ;; *) echo "$err" >&2; return 1 ;; esac
    done
    echo "$err" >&2
    return 1
}
ensure_packages qemu-system-x86 busybox-static cpio kmod xz-utils iproute2 \
    libibverbs1 librdmacm1 ibverbs-providers ibverbs-utils rdmacm-utils perftest \
    || die "cannot install the host packages"

# --- kernel + initramfs image, cached per kernel package version and recipe ----------------------
kernel_pkg() {
    apt-cache depends linux-image-amd64 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-/ {print $2; exit}'
}
kpkg=$(kernel_pkg)
if [ -z "$kpkg" ]; then
    # Images without apt lists (a pruned container) need one refresh to know the kernel.
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || true
    kpkg=$(kernel_pkg)
fi
[ -n "$kpkg" ] || die "apt knows no linux-image-amd64 (is this Debian bookworm with main enabled?)"
kver_pkg=$(apt-cache policy "$kpkg" | awk '$1 == "Candidate:" {print $2; exit}')
if [ -z "$kver_pkg" ] || [ "$kver_pkg" = "(none)" ]; then
    die "apt has no candidate version of $kpkg"
fi
kmods=(virtio_pci virtio_console 9pnet_virtio 9p overlay dummy crc32_generic rdma_rxe ib_uverbs rdma_ucm)
recipe=$( { cat "$here/initramfs-init.sh"; echo "${kmods[*]}"; dpkg-query -W -f='${Version}' busybox-static; } | sha256sum | cut -c1-12)
cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/isthmus/softroce
image=$cache_root/${kpkg}_${kver_pkg}_$recipe

build_image() {
    local tmp kroot kver moddir line path args name off
    # A failed build leaves build.* behind; the next successful build sweeps it.
    tmp=$(mktemp -d "$cache_root/build.XXXXXX")
    (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$kpkg=$kver_pkg" >/dev/null) \
        || die "apt-get download $kpkg=$kver_pkg failed"
    kroot=$tmp/kernel
    dpkg-deb -x "$tmp"/*.deb "$kroot"
    rm -f "$tmp"/*.deb
    kver=$(basename "$(ls -d "$kroot"/lib/modules/*)")
    # The package's modules.dep is made by its postinst, which never runs here.
    depmod -b "$kroot" "$kver"

    mkdir -p "$tmp/initramfs"/{bin,dev,proc,sys,lib/modules}
    cp /bin/busybox "$tmp/initramfs/bin/busybox"
    cp "$here/initramfs-init.sh" "$tmp/initramfs/init"
    chmod 0755 "$tmp/initramfs/init"
    moddir=$tmp/initramfs/lib/modules
    : >"$moddir/load.list"
    # modprobe resolves the dependency order (and built-ins) once here; the guest just insmods.
    while read -r line; do
        case "$line" in
            insmod\ *)
                line=${line#insmod }
                path=${line%% *}
                args=
                [ "$path" = "$line" ] || args=${line#* }
                name=$(basename "$path")
                grep -q "^$name\( \|$\)" "$moddir/load.list" && continue
                cp "$path" "$moddir/$name"
                echo "$name $args" >>"$moddir/load.list"
                ;;
            builtin\ *) ;;
            *) die "unexpected modprobe output: $line" ;;
        esac
    done < <(for m in "${kmods[@]}"; do modprobe -d "$kroot" -S "$kver" --show-depends "$m" || echo "missing module $m"; done)
    # Uncompressed: unpacking gzip under full emulation costs more than copying the bytes.
    (cd "$tmp/initramfs" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$tmp/initramfs.cpio"

    # An ELF vmlinux boots through QEMU's PVH entry and skips the in-guest decompression of the
    # bzImage (~3.5 s under TCG). Fall back to the bzImage if the payload is not xz.
    off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$kroot/boot/vmlinuz-$kver" | head -n 1 | cut -d: -f1 || true)
    # (xz stops at the end of its stream, so tail may die of SIGPIPE: keep it out of pipefail.)
    if [ -n "$off" ] && xz -dc --single-stream < <(tail -c +$((off + 1)) "$kroot/boot/vmlinuz-$kver") >"$tmp/vmlinux" 2>/dev/null \
        && [ "$(head -c 4 "$tmp/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ]; then
        :
    else
        cp "$kroot/boot/vmlinuz-$kver" "$tmp/vmlinux"
    fi
    mkdir -p "$tmp/image"
    mv "$tmp/vmlinux" "$tmp/initramfs.cpio" "$tmp/image/"
    echo "$kpkg $kver_pkg ($kver), recipe $recipe" >"$tmp/image/VERSION"
    mv "$tmp/image" "$image"
    rm -rf "$tmp"
}

if [ ! -f "$image/VERSION" ]; then
    mkdir -p "$cache_root"
    # Two first runs at once must not both build (or see a half-built image).
    exec 9>"$cache_root/.lock"
    flock 9
    if [ ! -f "$image/VERSION" ]; then
        echo "softroce: building the guest image for $kpkg $kver_pkg in $image" >&2
        start=$(date +%s.%N)
        build_image
        echo "softroce: image built in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}') s" >&2
        # Older versions and recipes are dead weight (~60 MB each).
        find "$cache_root" -mindepth 1 -maxdepth 1 -type d \( -name 'linux-image-*' -o -name 'build.*' \) \
            ! -path "$image" -exec rm -rf {} +
    fi
    flock -u 9
    exec 9>&-
fi
[ -z "$build_only" ] || { cat "$image/VERSION"; exit 0; }

# --- one run ----------------------------------------------------------------------------------------
hostdir=$(mktemp -d "${TMPDIR:-/tmp}/softroce.XXXXXX")
run=$hostdir/guest
mkdir "$run"
qemu_pid=
reader_pids=()
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
    for p in "${reader_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$hostdir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
case "$run" in *[[:space:],]*) die "the temporary directory path must not contain spaces or commas: $run" ;; esac

cwd=$(pwd)
{
    printf 'cd -- %q || exit 125\n' "$cwd"
    printf 'exec'
    printf ' %q' "$@"
    printf '\n'
} >"$run/cmd"
cp "$here/guest-stage2.sh" "$run/stage2.sh"
printf 'export ISTHMUS_SOFTROCE_CPUS=%q ISTHMUS_SOFTROCE_TCG=%q\n' "$cpus" "$tcg" >"$run/env"

# QEMU option values escape a comma by doubling it.
qarg() { printf '%s' "${1//,/,,}"; }
# shellcheck disable=SC2054  # the commas belong to QEMU's option syntax
fsdevs=(-fsdev "local,id=srroot,path=/,security_model=none,readonly=on,multidevs=remap"
        -device "virtio-9p-pci,fsdev=srroot,mount_tag=srroot"
        -fsdev "local,id=srrun,path=$(qarg "$run"),security_model=none,multidevs=remap"
        -device "virtio-9p-pci,fsdev=srrun,mount_tag=srrun")
# Parents before children, so a nested share is not hidden by its parent's mount.
mapfile -t sorted < <(printf '%s\n' "${shares[@]}" | awk '!seen[$0]++' | awk '{print length($0) "\t" $0}' | sort -n | cut -f2-)
: >"$run/shares"
i=0
for dir in "${sorted[@]}"; do
    [ "$dir" != / ] || die "sharing / read-write is not supported"
    fsdevs+=(-fsdev "local,id=srs$i,path=$(qarg "$dir"),security_model=none,multidevs=remap"
             -device "virtio-9p-pci,fsdev=srs$i,mount_tag=srs$i")
    printf 'srs%s %s\n' "$i" "$dir" >>"$run/shares"
    i=$((i + 1))
done

# Guest stdout/stderr come out of two virtio consoles into FIFOs that cat copies to our own
# stdout/stderr, whatever those are (terminal, pipe, file, socket).
mkfifo "$hostdir/out" "$hostdir/err"
cat "$hostdir/out" & reader_pids+=($!)
cat "$hostdir/err" >&2 & reader_pids+=($!)

# AVX/AVX2/FMA are emulated slowly by TCG; without them the JVM picks faster SSE code paths.
# No network device at all: nothing can leave the guest.
timeout -k 5 "$timeout_s" qemu-system-x86_64 \
    -nodefaults -no-user-config -nic none -display none -no-reboot \
    -machine pc -accel "tcg,thread=$tcg" -cpu max,avx=off,avx2=off,fma=off \
    -smp "$cpus" -m "$mem" \
    -kernel "$image/vmlinux" -initrd "$image/initramfs.cpio" \
    -append "console=ttyS0 quiet loglevel=0 panic=-1 8250.nr_uarts=1 softroce.run=$run" \
    -serial "file:$hostdir/console.log" \
    -device virtio-serial-pci \
    -chardev "file,id=out,path=$hostdir/out,append=on" -device virtconsole,chardev=out \
    -chardev "file,id=err,path=$hostdir/err,append=on" -device virtconsole,chardev=err \
    "${fsdevs[@]}" </dev/null >"$hostdir/qemu.log" 2>&1 &
qemu_pid=$!
qemu_rc=0
wait "$qemu_pid" || qemu_rc=$?
qemu_pid=
# A QEMU that died before opening the FIFOs leaves the readers blocked in open(): a read-write
# open never blocks and wakes them; closing it again gives them end-of-file.
for f in "$hostdir/out" "$hostdir/err"; do exec 3<>"$f"; exec 3>&-; done
for p in "${reader_pids[@]}"; do wait "$p" || true; done
reader_pids=()

if [ -f "$run/rc" ]; then
    exit "$(cat "$run/rc")"
fi
if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
    echo "softroce: the guest ran past --timeout $timeout_s s and was killed" >&2
    exit 124
fi
{
    echo "softroce: the guest ended without reporting an exit status (qemu exit $qemu_rc)"
    [ ! -s "$hostdir/qemu.log" ] || { echo "--- qemu:"; tail -n 20 "$hostdir/qemu.log"; }
    [ ! -s "$hostdir/console.log" ] || { echo "--- guest console:"; tail -n 40 "$hostdir/console.log"; }
} >&2
exit 125
