#!/bin/bash
# capture/testbed/guest-init.sh - PID 1 of the test bed's guest (run.sh
# boots the kernel with init= this file).
#
# The root is the host's / through hostfs, read-only.  This mounts the
# guest's own /proc, /sys, /dev, tracefs, debugfs and cgroup v2, tmpfs on
# /run, /tmp, /var/tmp and /dev/shm, and the job folder (the host
# directory named by the kernel parameter vmreplay_job=) read-write at
# /run/vmreplay-job; sets lru_gen and swap as JOB/setup says; runs the
# command of JOB/argv (NUL-separated) with the serial lines ttyS0 and
# ttyS1 (the host's stdout and stderr) as its stdout and stderr; writes
# "exit STATUS" (or "fatal WHY") to JOB/status; and powers off.
#
# Ctrl-Alt-Del (run.sh sends it through the mconsole on Ctrl-C) is
# delivered to this process as SIGINT and forwarded to the command as
# SIGTERM.
set -u
# One block, read whole before it runs (see run.sh).
{
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# HOME is the guest's (the host's /root stays visible, read-only).
export HOME=/run/home LANG=C.UTF-8 TERM=dumb
J=/run/vmreplay-job
host_job=${vmreplay_job:-}
unset vmreplay_job

off() {
    sync
    # systemctl's double --force is the reboot(2) call itself, no systemd.
    poweroff -f -f >/dev/null 2>&1
    echo o >/proc/sysrq-trigger
    sleep 5
}
fatal() {
    echo "vmreplay testbed guest: $*" >&2
    [ -d $J ] && mountpoint -q $J && echo "fatal $*" >$J/status
    off
}
m() {  # FSTYPE DIR [OPTIONS]: mount, or give up
    mkdir -p "$2" 2>/dev/null
    mount -t "$1" ${3:+-o "$3"} "$1" "$2" || fatal "cannot mount $1 on $2"
}

m proc /proc
m sysfs /sys
mountpoint -q /dev || m devtmpfs /dev
m tmpfs /run mode=0755
[ -n "$host_job" ] || fatal "no vmreplay_job= on the kernel command line"
mkdir -p $J
mount -t hostfs -o "$host_job" none $J || fatal "cannot mount the job folder $host_job"
exec 2>/dev/ttyS1
for d in /tmp /var/tmp; do m tmpfs $d mode=1777; done
mkdir -m 0700 $HOME
m tmpfs /dev/shm mode=1777
m devpts /dev/pts
m tracefs /sys/kernel/tracing
m debugfs /sys/kernel/debug
m cgroup2 /sys/fs/cgroup
ln -sf /proc/self/fd /dev/fd 2>/dev/null
echo vmreplay-testbed >/proc/sys/kernel/hostname
ctrlaltdel soft >/dev/null 2>&1 || fatal "ctrlaltdel soft failed"

declare -A setup
while IFS='=' read -r k v; do setup[$k]=$v; done <$J/setup || fatal "no $J/setup"
mapfile -d '' argv <$J/argv || fatal "no $J/argv"
# The host's trees below /tmp and /var/tmp that the command needs (run.sh
# names them), read-only at their own paths over the guest's tmpfs.
for d in ${setup[reveal]}; do
    mkdir -p "$d" && mount -t hostfs -r -o "$d" none "$d" || fatal "cannot mount the host's $d"
done
[ ${#argv[@]} -gt 0 ] || fatal "$J/argv is empty"

if [ -n "${setup[lru_gen]}" ]; then
    [ -e /sys/kernel/mm/lru_gen/enabled ] || fatal "--lru-gen: this kernel has no MGLRU (CONFIG_LRU_GEN)"
    echo "${setup[lru_gen]}" >/sys/kernel/mm/lru_gen/enabled ||
        fatal "cannot write '${setup[lru_gen]}' to /sys/kernel/mm/lru_gen/enabled"
fi

case ${setup[swap]} in
none) ;;
ubd|delay)
    dev=/dev/ubda
    [ -b $dev ] || fatal "no $dev (the UBD swap file)"
    if [ "${setup[swap]}" = delay ]; then
        sectors=$(blockdev --getsz $dev) || fatal "blockdev --getsz $dev failed"
        ms=${setup[swap_ms]}
        DM_DISABLE_UDEV=1 dmsetup create vmreplay-slow \
            --table "0 $sectors delay $dev 0 $ms $dev 0 $ms" >/dev/null ||
            fatal "dmsetup create (dm-delay over $dev, $ms ms) failed"
        dev=/dev/mapper/vmreplay-slow
        [ -b $dev ] || fatal "dmsetup made no $dev"
    fi
    mkswap $dev >/dev/null || fatal "mkswap $dev failed"
    swapon $dev || fatal "swapon $dev failed"
    ;;
*) fatal "$J/setup: swap=${setup[swap]} is not none, ubd or delay" ;;
esac

# The command's output: the serial lines, through a pipe where the host's
# side is not a terminal (so that isatty() answers as it would there).
stty -F /dev/ttyS0 raw -echo 2>/dev/null
stty -F /dev/ttyS1 raw -echo 2>/dev/null
if [ "${setup[out_tty]}" = 1 ]; then exec 5>/dev/ttyS0; else exec 5> >(exec cat >/dev/ttyS0); fi
catout=$!
if [ "${setup[err_tty]}" = 1 ]; then exec 6>/dev/ttyS1; else exec 6> >(exec cat >/dev/ttyS1); fi
caterr=$!

[ -n "${setup[build_info]}" ] && export VMREPLAY_TESTBED_BUILD=${setup[build_info]}
export VMREPLAY_TESTBED_JOB=$J
cd "${setup[cwd]}" 2>/dev/null || cd /
"${argv[@]}" </dev/null >&5 2>&6 &
cmd=$!
trap 'kill -TERM $cmd 2>/dev/null' INT TERM
while :; do
    wait $cmd
    st=$?
    kill -0 $cmd 2>/dev/null || break
done
trap - INT TERM
exec 5>&- 6>&-
[ "${setup[out_tty]}" = 1 ] || wait $catout 2>/dev/null
[ "${setup[err_tty]}" = 1 ] || wait $caterr 2>/dev/null
echo "exit $st" >$J/status
off
}
