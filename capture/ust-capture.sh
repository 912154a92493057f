#!/bin/bash
# ust-capture.sh OUTDIR -- WORKLOAD [ARGS...]
#
# Runs an instrumented workload (build/workloads/*) under an LTTng-UST
# session that records the vmreplay:* events, and leaves the CTF trace in
#   OUTDIR/ust/uid/<uid>/64-bit/
#
# * Starts `lttng-sessiond --daemonize --no-kernel` if no session daemon
#   answers (and leaves it running: starting one costs a second or two, and
#   other sessions may use it).
# * The channel blocks instead of discarding (--blocking-timeout=inf, which
#   works only when the application sets LTTNG_UST_ALLOW_BLOCKING=1, done
#   here): a replay of a trace with holes would be silently wrong.
# * The session is destroyed on every exit path: normal end, failing
#   workload, Ctrl-C, SIGTERM. On a signal the workload gets SIGTERM and is
#   waited for, so that its last events are still recorded.
# * Prints the number of discarded events (must be 0) and the trace path on
#   stderr.
#
# Exit status: the workload's; 2 for a usage error of this script, 1 when
# LTTng cannot be set up.
#
# Environment: VMREPLAY_SUBBUF_SIZE (default 4M) and VMREPLAY_NUM_SUBBUF
# (default 8) size the per-CPU buffers. LTTNG_UST_REGISTER_TIMEOUT is passed
# through; its default (3000 ms) makes the workload wait for the session
# daemon before its first event, so keep it (or use -1), never 0.
#
# Isolation: LTTng-UST buffers are per user, so a session records the
# vmreplay:* events of every process of this user - another capture running
# at the same time, a test suite, a replay with UST output. As root, the
# script therefore re-executes itself in a new IPC namespace (nothing the
# workloads use lives there) and records only events whose process is in
# that namespace (filter on $ctx.ipc_ns), which the workload and all its
# children inherit. Without root or unshare(1) it warns and records all.
set -u

if [ -z "${_VMREPLAY_CAPTURE_NS:-}" ] && [ "$(id -u)" = 0 ] &&
   unshare --ipc true 2>/dev/null; then
    export _VMREPLAY_CAPTURE_NS=1
    exec unshare --ipc -- "$BASH" "$0" "$@"
fi
isolated=${_VMREPLAY_CAPTURE_NS:-0}
unset _VMREPLAY_CAPTURE_NS

prog=ust-capture

usage() {
    echo "usage: $prog OUTDIR -- WORKLOAD [ARGS...]" >&2
    exit 2
}
fail() {    # LTTng or environment problem
    echo "$prog: $*" >&2
    exit 1
}

[ $# -ge 3 ] && [ "$2" = "--" ] || usage
outdir=$1
shift 2
[ -n "$outdir" ] || usage

command -v lttng >/dev/null 2>&1 ||
    fail "lttng not found (apt-get install lttng-tools)"

# Never mix two captures in one directory.
if [ -e "$outdir" ]; then
    [ -d "$outdir" ] || { echo "$prog: $outdir exists and is not a directory" >&2; exit 2; }
    if [ -n "$(ls -A "$outdir")" ]; then
        echo "$prog: $outdir exists and is not empty" >&2
        exit 2
    fi
fi
mkdir -p "$outdir" || fail "cannot create $outdir"
outdir=$(cd "$outdir" && pwd) || fail "cannot enter $outdir"

session=""          # set once the session exists: cleanup destroys it
wl_pid=""           # set while the workload runs
rc=""               # the workload's exit status, once known
cleaned=0

# Runs an lttng command quietly; shows its output only when it fails.
lt() {
    local out
    if ! out=$(lttng "$@" 2>&1); then
        echo "$prog: lttng $*:" >&2
        echo "$out" | sed 's/^/    /' >&2
        return 1
    fi
}

# Ends the workload (if still running) and the session; runs once.
cleanup() {
    local i discarded
    [ "$cleaned" = 1 ] && return
    cleaned=1
    if [ -n "$wl_pid" ]; then
        if kill -0 "$wl_pid" 2>/dev/null; then
            kill -TERM "$wl_pid" 2>/dev/null
            # Give it time to end its tasks; then stop waiting for it.
            for i in $(seq 100); do
                kill -0 "$wl_pid" 2>/dev/null || break
                sleep 0.1
            done
            if kill -0 "$wl_pid" 2>/dev/null; then
                echo "$prog: workload did not stop on SIGTERM; killing it" >&2
                kill -KILL "$wl_pid" 2>/dev/null
            fi
        fi
        wait "$wl_pid" 2>/dev/null
        rc=${rc:-$?}
        wl_pid=""
    fi
    if [ -n "$session" ]; then
        # stop waits until the consumer has written every buffer.
        lttng stop "$session" >/dev/null 2>&1
        discarded=$(lttng list "$session" 2>/dev/null |
            awk '/Discarded events:|Lost packets:/ { n += $NF } END { print n + 0 }')
        echo "$prog: discarded events: $discarded" >&2
        [ "$discarded" = 0 ] || echo "$prog: WARNING: the trace has holes; enlarge the buffers" >&2
        lt destroy "$session" || echo "$prog: WARNING: session $session not destroyed" >&2
        session=""
        if [ -f "$outdir/ust/uid/$(id -u)/64-bit/metadata" ]; then
            echo "$prog: trace: $outdir/ust/uid/$(id -u)/64-bit" >&2
        else
            echo "$prog: no trace was written (no instrumented process ran)" >&2
        fi
    fi
}

on_signal() {   # $1 = signal number
    echo "$prog: signal $1: stopping the workload" >&2
    cleanup
    exit "${rc:-$((128 + $1))}"
}

trap cleanup EXIT
trap 'on_signal 1' HUP
trap 'on_signal 2' INT
trap 'on_signal 15' TERM

if ! lttng list >/dev/null 2>&1; then
    lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1 ||
        fail "cannot start lttng-sessiond"
fi

name="vmreplay-$(date +%Y%m%d-%H%M%S)-$$"
session=$name      # before create: a signal during create still destroys it
lt create "$session" --output="$outdir" || { session=""; fail "cannot create session $name"; }
echo "$prog: session $session" >&2
lt enable-channel --userspace --session="$session" \
    --subbuf-size="${VMREPLAY_SUBBUF_SIZE:-4M}" \
    --num-subbuf="${VMREPLAY_NUM_SUBBUF:-8}" \
    --blocking-timeout=inf vmreplay || fail "cannot create the channel"
if [ "$isolated" = 1 ]; then
    ipc_ns=$(readlink /proc/self/ns/ipc | tr -dc 0-9)
    echo "$prog: recording only processes of ipc namespace $ipc_ns" >&2
    lt enable-event --userspace --session="$session" --channel=vmreplay \
        --filter="\$ctx.ipc_ns == $ipc_ns" 'vmreplay:*' ||
        fail "cannot enable vmreplay:*"
else
    echo "$prog: not isolated (needs root and unshare): vmreplay:* events of" \
         "every process of uid $(id -u) are recorded" >&2
    lt enable-event --userspace --session="$session" --channel=vmreplay 'vmreplay:*' ||
        fail "cannot enable vmreplay:*"
fi
lt start "$session" || fail "cannot start session $session"

# In the background so that a signal reaches our trap at once; the explicit
# <&0 keeps our stdin (bash gives background jobs /dev/null otherwise).
LTTNG_UST_ALLOW_BLOCKING=1 "$@" <&0 &
wl_pid=$!
wait "$wl_pid"
rc=$?
wl_pid=""
cleanup
exit "$rc"
