#!/bin/bash
# PID 1 of the Soft-RoCE guest after switch_root, running in the host's own userland.
# softroce.sh copies this file into the run directory (shared read-write with the host) together
# with "cmd" (the user's command) and "env"; this script brings up rxe0, runs the command with
# stdout on /dev/hvc0 and stderr on /dev/hvc1, writes its exit status to "rc" and powers off.
# No set -e: PID 1 must reach the power-off, whatever fails on the way.
set -uo pipefail

run=$(dirname "$0")
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb

# The command's output channels must be byte-exact: no \n -> \r\n, no echo.
stty -F /dev/hvc0 raw -echo 2>/dev/null
stty -F /dev/hvc1 raw -echo 2>/dev/null

finish() {
    echo "$1" >"$run/rc.tmp" && mv "$run/rc.tmp" "$run/rc"
    sync
    # stty sets attributes with TCSADRAIN: it returns once both consoles have flushed.
    stty -F /dev/hvc0 raw 2>/dev/null
    stty -F /dev/hvc1 raw 2>/dev/null
    # busybox, not the host's systemd reboot: there is no init daemon here to ask.
    exec /bin/busybox reboot -f
}

# Reports why the RDMA device is missing on the command's stderr, then ends the run.
setup_failed() {
    {
        echo "softroce: $*"
        rdma link show 2>&1
        ip -br addr 2>&1
        dmesg | grep -iE 'rxe|rdma|infiniband|ib_' | tail -n 20
    } >/dev/hvc1 2>&1
    finish 125
}

mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
hostname softroce 2>/dev/null || echo softroce >/proc/sys/kernel/hostname
# Programs that resolve their own host name (Flink's MiniCluster does) need it in /etc/hosts; the
# guest's / is an overlay over the host's, so this never touches the host's file.
grep -qw softroce /etc/hosts 2>/dev/null || echo "127.0.1.1 softroce" >>/etc/hosts
ip link set lo up

# rxe on lo serves raw verbs but breaks rdma_cm route resolution; a dummy netdev with a
# link-local address serves both and keeps everything inside the guest.
netdev=srdummy0
ip link add "$netdev" type dummy || setup_failed "cannot create the dummy netdev"
ip addr add 169.254.77.1/24 dev "$netdev" || setup_failed "cannot address $netdev"
ip link set "$netdev" up || setup_failed "cannot bring $netdev up"
rdma link add rxe0 type rxe netdev "$netdev" || setup_failed "rdma link add rxe0 failed"

# GID 1 is the IPv4-mapped RoCE v2 GID of 169.254.77.1; it appears a moment after the port.
port=/sys/class/infiniband/rxe0/ports/1
want_gid=0000:0000:0000:0000:0000:ffff:a9fe:4d01
ready=
for _ in $(seq 1 100); do
    if grep -q ACTIVE "$port/state" 2>/dev/null && [ "$(cat "$port/gids/1" 2>/dev/null)" = "$want_gid" ]; then
        ready=1
        break
    fi
    sleep 0.1
done
[ -n "$ready" ] || setup_failed "rxe0 port 1 did not become ACTIVE with GID 1 = $want_gid (state: $(cat "$port/state" 2>/dev/null || echo none))"
[ -c /dev/infiniband/uverbs0 ] || setup_failed "/dev/infiniband/uverbs0 is missing"
[ -c /dev/infiniband/rdma_cm ] || setup_failed "/dev/infiniband/rdma_cm is missing"

# Registered memory is pinned memory; root has CAP_IPC_LOCK, but child tools check the limit.
ulimit -l unlimited
ulimit -n 65536

export ISTHMUS_RDMA_DEVICE=rxe0 ISTHMUS_RDMA_GID_INDEX=1 ISTHMUS_RDMA_IP=169.254.77.1 ISTHMUS_SOFTROCE=1
# shellcheck source=/dev/null  # written by softroce.sh: ISTHMUS_SOFTROCE_CPUS, ISTHMUS_SOFTROCE_TCG
. "$run/env"

bash "$run/cmd" </dev/null >/dev/hvc0 2>/dev/hvc1
finish $?
