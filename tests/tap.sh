# TAP helpers for the shell tests (sourced by tests/t_*.sh).
# Shell tests print one TAP line per check; tests/run.sh counts them.
tap_n=0
ok()   { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
nok()  { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
# check NAME CMD... : ok when CMD exits 0
check() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }
# run_err NAME RC PATTERN CMD... : CMD ends within 60 s with exit code RC
# and one stderr line matching PATTERN; a usage error (RC 2) has a second
# line, "Try 'vmreplay SUBCMD --help'." (CMD's output: $tmp/out, $tmp/err)
run_err() {
    local name=$1 want=$2 pat=$3; shift 3
    timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    local lines; lines=$(wc -l <"$tmp/err")
    local usage=1
    if [ "$want" -eq 2 ]; then
        [ "$lines" -eq 2 ] && sed -n 2p "$tmp/err" | grep -q "^Try 'vmreplay \([a-z]* \)\?--help'\.$" || usage=0
        lines=$((lines - 1))
    fi
    if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] && [ $usage = 1 ] && head -1 "$tmp/err" | grep -q -- "$pat"; then
        ok "$name"
    else
        nok "$name (rc=$rc, want $want; $(wc -l <"$tmp/err") stderr lines: $(head -c 300 "$tmp/err"))"
    fi
}
# hold_lock LOCK "$@": re-runs this test script under flock LOCK
# (/run/vmreplay-capture.lock for captures on this machine's kernel,
# /run/vmreplay-testbed.lock for the test bed), so that its captures never
# run beside another's — two captures in one kernel share its reclaim and
# its CPUs, and each then measures the other.  flock -o: the lock is held
# by flock itself, not by the script's descendants (a capture may leave
# lttng-sessiond running, which must not keep the lock).  A caller that
# already holds LOCK sets VMREPLAY_LOCKED=LOCK; 30 minutes without the
# lock fail the test rather than hang it.
hold_lock() {
    local lock=$1; shift
    case " ${VMREPLAY_LOCKED:-} " in *" $lock "*) return 0 ;; esac
    export VMREPLAY_LOCKED="${VMREPLAY_LOCKED:-} $lock"
    flock -o -w 1800 -E 75 "$lock" bash "$0" "$@"
    local rc=$?
    [ $rc -eq 75 ] && nok "$lock: still held by another capture after 30 minutes"
    exit $rc
}
# mount_tracefs: as root, mount tracefs at /sys/kernel/tracing where it is
# not (a freshly booted machine), as `vmreplay capture` does for its
# session; left mounted: other tests and captures may be using it.
mount_tracefs() {
    [ -d /sys/kernel/tracing/events ] && return 0
    [ "$(id -u)" = 0 ] && grep -qw tracefs /proc/filesystems &&
        mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
    return 0
}
# capture_unmet BUILD: why a real capture on this machine cannot run
# here (root, tracefs, a memory cgroup controller, LTTng, babeltrace2, the
# agent), or nothing when it can.
capture_unmet() {
    [ "$(id -u)" = 0 ] || { echo "needs root (memory cgroup, swap, tracefs)"; return; }
    grep -qw tracefs /proc/filesystems || { echo "no tracefs in this kernel"; return; }
    if [ ! -e /sys/fs/cgroup/memory/memory.limit_in_bytes ] &&
       ! grep -qw memory /sys/fs/cgroup/cgroup.controllers /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null; then
        echo "no memory cgroup controller (v1 or v2)"; return
    fi
    local c
    for c in lttng lttng-sessiond babeltrace2; do
        command -v $c >/dev/null 2>&1 || { echo "$c not installed"; return; }
    done
    [ -x "$1/vmreplay-capture-agent" ] || echo "$1/vmreplay-capture-agent not built"
}
# tap_scratch BUILD [TEMPLATE]: the common start of a test of the built
# vmreplay — build (BUILD), vmr (its vmreplay), tmp (a scratch folder, from
# mktemp's TEMPLATE where given, removed on exit) and a trace cache of the
# test's own inside it (VMREPLAY_CACHE), so that tests running side by
# side never share ingested traces.
tap_scratch() {
    build=$1
    vmr=$PWD/$build/vmreplay
    tmp=$(mktemp -d ${2:+"$2"})
    trap 'rm -rf "$tmp"' EXIT
    export VMREPLAY_CACHE=$tmp/cache
}
# tsv_col FILE NAME: the value of column NAME in a one-row TSV (vmreplay
# run -f tsv)
tsv_col() {
    awk -F'\t' -v n="$2" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == n) c = i} NR == 2 {print $c}' "$1"
}
