#!/bin/busybox sh
# shellcheck shell=dash
# PID 1 of the Soft-RoCE guest's initramfs (busybox, baked into the cached image by softroce.sh).
# It only loads modules and assembles the root: the host's / read-only over virtio-9p under a
# tmpfs overlay, the shared host directories read-write at their own paths, then hands PID 1 to
# the run's stage2.sh in the host's own userland. Everything RDMA happens in stage2.
/bin/busybox --install -s /bin
export PATH=/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

# Messages go to the serial console, which the host keeps in a log file and prints on failure.
fail() {
    echo "softroce-init: $*" >/dev/console
    dmesg | tail -n 30 >/dev/console
    # With -no-reboot and panic=-1 a reboot ends QEMU; the missing status file tells the host.
    reboot -f
    sleep 60
}

while read -r mod args; do
    # shellcheck disable=SC2086  # module parameters are separate words by design
    insmod "/lib/modules/$mod" $args || fail "insmod $mod failed"
done </lib/modules/load.list

run=
read -r cmdline </proc/cmdline
for word in $cmdline; do
    case "$word" in softroce.run=*) run=${word#softroce.run=} ;; esac
done
[ -n "$run" ] || fail "no softroce.run= on the kernel command line"

# cache=loose is safe for the read-only root: the guest lives for one command, and it makes the
# JDK's many small metadata lookups cheap under emulation.
opts_ro=trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro
# cache=mmap keeps writes write-through (the host sees them at once) yet allows shared mmap,
# which a log broker's segment files need.
opts_rw=trans=virtio,version=9p2000.L,msize=262144,cache=mmap

mkdir -p /lower /rw /newroot
mount -t 9p -o "$opts_ro" srroot /lower || fail "cannot mount the host root over 9p"
mount -t tmpfs -o mode=0755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot \
    || fail "cannot mount the overlay root"

# The host's /proc, /sys, /dev and /run show through 9p; cover them with the guest's own.
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount --move /dev /newroot/dev
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /newroot/run

# The run directory first (it lists the shares), then the shares in order (parents before
# children), then the run directory again on top in case a share covered its path.
mkdir -p /srrun
mount -t 9p -o "$opts_rw" srrun /srrun || fail "cannot mount the run directory"
while read -r tag path; do
    mkdir -p "/newroot$path"
    mount -t 9p -o "$opts_rw" "$tag" "/newroot$path" || fail "cannot mount share $path"
done </srrun/shares
mkdir -p "/newroot$run"
mount --move /srrun "/newroot$run"

umount /proc /sys 2>/dev/null
exec switch_root /newroot /bin/bash "$run/stage2.sh"
