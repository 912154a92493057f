#!/bin/bash
# trace-cmd input, on a real recording made here: a dd + cat under a
# 16 MiB memory cgroup (v1 or v2), recorded with the README's
# `trace-cmd record` line where this kernel lets trace-cmd record, else
# (function tracing locked, as on the project's machine: trace-cmd record
# dies writing set_ftrace_filter) with the same events in a tracefs
# instance read out by `trace-cmd extract`.  Then:
#  - ingest reads trace.dat: memcg reclaims, faults, page-cache events
#    and the tasks' names (dd, cat) as in an LTTng kernel-domain trace;
#  - the side file trace.dat.session gives the session's setup (run
#    picks its memory limit); compare -- --memory-limit works without it;
#  - the cache key is the content (a copy elsewhere: the same hash);
#  - a bad side file or a truncated recording: one line, exit 1.
# Recording is wrapped in flock /run/vmreplay-capture.lock.
set -u
. tests/tap.sh
mount_tracefs
build=${1:-build}
vmr=$PWD/$build/vmreplay
T=/sys/kernel/tracing

why=""
[ "$(id -u)" = 0 ] || why="needs root (tracefs, a memory cgroup)"
[ -z "$why" ] && [ ! -d $T/events/vmscan ] && why="no tracefs with vmscan events at $T"
[ -z "$why" ] && ! command -v trace-cmd >/dev/null && why="trace-cmd not installed"
cgroot=""
if [ -e /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then cgroot=/sys/fs/cgroup/memory
elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then cgroot=/sys/fs/cgroup; fi
[ -z "$why" ] && [ -z "$cgroot" ] && why="no memory cgroup controller"
if [ -n "$why" ]; then
    skip "trace-cmd input" "$why"
    exit 0
fi

tmp=$(mktemp -d /var/tmp/t_tracecmd.XXXXXX)
name=vmreplay-tracecmd-$$
cg=$cgroot/$name
cleanup() {
    [ -d $T/instances/$name ] && { echo 0 > $T/instances/$name/tracing_on; rmdir $T/instances/$name; }
    [ -d "$cg" ] && rmdir "$cg"
    rm -rf "$tmp"
}
trap cleanup EXIT
export VMREPLAY_CACHE=$tmp/cache

# The workload: join the memory cgroup, then write and read back 48 MiB
# (memcg reclaim of page cache; no swap needed).
workload="echo \$\$ > $cg/cgroup.procs && \
exec sh -c 'dd if=/dev/zero of=$tmp/f bs=1M count=48 2>/dev/null && cat $tmp/f >/dev/null && rm -f $tmp/f'"
events="vmscan exceptions:page_fault_user filemap:mm_filemap_add_to_page_cache
 filemap:mm_filemap_delete_from_page_cache filemap:mm_filemap_get_pages
 sched:sched_process_fork sched:sched_process_exec sched:sched_process_exit task:task_newtask"

record() {
    mkdir "$cg"
    if [ $cgroot = /sys/fs/cgroup/memory ]; then echo 16M > "$cg/memory.limit_in_bytes"
    else echo 16M > "$cg/memory.max"; fi
    local top; top=$(cat $T/tracing_on)
    if cat $T/set_ftrace_filter >/dev/null 2>&1 && [ -w /proc/sys/kernel/ftrace_enabled ]; then
        # the README's line
        trace-cmd record -q -C mono $(printf -- '-e %s ' $events) -F -c -o "$tmp/trace.dat" \
            sh -c "$workload" >/dev/null 2>"$tmp/rec.err"
        local rc=$?
        echo record
    else
        # the same events in an instance of our own, then trace-cmd extract
        local I=$T/instances/$name
        mkdir $I && echo mono > $I/trace_clock && echo 8192 > $I/buffer_size_kb &&
            echo 1 > $I/options/event-fork || return 1
        for e in $events; do echo 1 > "$I/events/${e/://}/enable" || return 1; done
        sh -c "echo \$\$ > $I/set_event_pid && echo 1 > $I/tracing_on && $workload"
        local rc=$?
        echo 0 > $I/tracing_on
        [ $rc = 0 ] && trace-cmd extract -B $name -o "$tmp/trace.dat" >/dev/null 2>"$tmp/rec.err"
        rc=$((rc + $?))
        [ -d $I ] && rmdir $I
        echo extract
    fi
    echo "$top" > $T/tracing_on       # trace-cmd turns the top buffer off
    rmdir "$cg"
    return $rc
}
how=$(flock /run/vmreplay-capture.lock bash -c "$(declare -p T cg cgroot name tmp workload events); \
    $(declare -f record); record")
rc=$?
[ $rc = 0 ] || how="$how: $(head -c 200 "$tmp/rec.err" 2>/dev/null)"
check "a real recording ($how, rc $rc)" \
    test $rc = 0 -a -s "$tmp/trace.dat"
[ "$how" = extract ] && skip "the README's trace-cmd record line" \
    "this kernel refuses trace-cmd record (set_ftrace_filter or ftrace_enabled not writable)"

dat=$tmp/trace.dat
"$vmr" ingest -q -f json -o "$tmp/a.vmr" "$dat" >"$tmp/ing.json" 2>"$tmp/err"
check "ingest trace.dat: exit 0 ($(head -c 200 "$tmp/err"))" test $? = 0
"$vmr" ingest -q --no-cache -o "$tmp/a2.vmr" "$dat" >/dev/null 2>&1
check "ingest is deterministic: the same recording, byte-identical .vmr" cmp -s "$tmp/a.vmr" "$tmp/a2.vmr"
ev=$(sed -n 's/.*"events": \([0-9]*\).*/\1/p' "$tmp/ing.json")
check "ingest trace.dat: events decoded ($ev)" test "${ev:-0}" -gt 1000
bt=$(trace-cmd report -i "$dat" 2>/dev/null | grep -c ': [a-z_]*: ')
skipped=$(sed -n 's/.*"skipped": "\([^"]*\)".*/\1/p' "$tmp/ing.json")
check "ingest counts every record trace-cmd report shows ($ev = $bt)" test "$ev" = "$bt"
"$vmr" analyze "$tmp/a.vmr" >"$tmp/an.txt" 2>&1
memcg=$(awk '/^Memcg reclaims:/ {print $3}' "$tmp/an.txt")
want=$(trace-cmd report -i "$dat" 2>/dev/null | grep -c 'mm_vmscan_memcg_reclaim_begin:')
check "analyze: the recording's memcg reclaims ($memcg = $want)" test "${memcg:-x}" = "$want" -a "$want" -gt 0
check "analyze: tasks named as in the recording (dd, cat)" \
    sh -c "grep -q '^dd-[0-9]' '$tmp/an.txt' && grep -q '^cat-[0-9]' '$tmp/an.txt'"
check "analyze: the source is trace-cmd, without a side file too" grep -q '^source: kernel events (trace-cmd)' "$tmp/an.txt"

# compare with the limit on the command line (no side file)
"$vmr" compare -p classic "$dat" -- --memory-limit 16M >"$tmp/cmp.txt" 2>"$tmp/err"
check "compare trace.dat -- --memory-limit 16M: exit 0 ($(head -c 200 "$tmp/err"))" test $? = 0
ends=$(trace-cmd report -i "$dat" 2>/dev/null | grep -c 'mm_vmscan_memcg_reclaim_end:')
check "compare: the kernel's complete memcg reclaims ($ends) beside the simulation's" \
    grep -q "^memcg latency_ns *$ends " "$tmp/cmp.txt"

# The same recording as a plain LTTng kernel-domain session (item 7): the
# CTF trace sink.ctf.fs writes of it (tests/tools/tracedat2ctf: the names,
# fields and tid/pid/procname contexts lttng-modules gives the events),
# read through source.ctf.fs like any CTF trace.  analyze and compare
# -- --memory-limit must say what they say of the trace.dat, line for line
# but the input and source lines.
ctf=$tmp/ctf
if "$PWD/$build/tests/tools/tracedat2ctf" "$dat" "$ctf" >/dev/null 2>"$tmp/err"; then
    "$vmr" analyze "$ctf" >"$tmp/an_ctf.txt" 2>&1
    check "kernel-domain CTF of the recording: analyze reads it as the LTTng kernel domain" \
        grep -q '^source: kernel events (LTTng kernel domain)' "$tmp/an_ctf.txt"
    check "kernel-domain CTF: analyze agrees with the trace.dat's ($memcg memcg reclaims)" \
        cmp -s <(sed 1,2d "$tmp/an_ctf.txt") <(sed 1,2d "$tmp/an.txt")
    "$vmr" compare -p classic "$ctf" -- --memory-limit 16M >"$tmp/cmp_ctf.txt" 2>"$tmp/err"
    check "kernel-domain CTF: compare -- --memory-limit 16M agrees with the trace.dat's ($(head -c 100 "$tmp/err"))" \
        cmp -s <(sed 1,2d "$tmp/cmp_ctf.txt") <(sed 1,2d "$tmp/cmp.txt")
else
    nok "tracedat2ctf writes the recording as CTF ($(head -c 200 "$tmp/err"))"
fi

# the side file
printf '# how trace.dat was recorded\nmemory_limit 16M   # its limit\nswappiness 100\nworkload dd-cat\ncgroup_version %s\n' \
    "$([ $cgroot = /sys/fs/cgroup/memory ] && echo 1 || echo 2)" >"$dat.session"
"$vmr" analyze "$dat" >"$tmp/an2.txt" 2>&1
check "side file: analyze names trace-cmd as the source" grep -q '^source: kernel events (trace-cmd)' "$tmp/an2.txt"
"$vmr" run -p classic -f json "$dat" >"$tmp/run.json" 2>"$tmp/err"
check "side file: run takes its memory limit and swappiness" \
    sh -c "grep -q '\"memory_limit\": 16777216' '$tmp/run.json' && grep -q '\"swappiness\": 100' '$tmp/run.json'"
h1=$("$vmr" ingest -q -f json "$dat" | sed -n 's/.*"trace_hash": "\([0-9a-f]*\)".*/\1/p')
mkdir "$tmp/copy" && cp "$dat" "$tmp/copy/other.dat" && cp "$dat.session" "$tmp/copy/other.dat.session"
h2=$("$vmr" ingest -q -f json "$tmp/copy/other.dat" | sed -n 's/.*"trace_hash": "\([0-9a-f]*\)".*/\1/p')
check "cache key from the content: a renamed copy has the same hash ($h1)" test -n "$h1" -a "$h1" = "$h2"
rm "$tmp/copy/other.dat.session"
h3=$("$vmr" ingest -q -f json "$tmp/copy/other.dat" | sed -n 's/.*"trace_hash": "\([0-9a-f]*\)".*/\1/p')
check "the side file is part of the key" test -n "$h3" -a "$h3" != "$h1"

# bad input: one line naming the file, exit 1
run_err() {
    local what=$1 pat=$2; shift 2
    timeout 60 "$@" >/dev/null 2>"$tmp/err"; local rc=$?
    if [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "$pat" "$tmp/err"; then ok "$what"
    else nok "$what (rc $rc: $(head -c 300 "$tmp/err"))"; fi
}
cp "$dat" "$tmp/bad.dat"
printf 'memory_limit 16M\nswapiness 60\n' >"$tmp/bad.dat.session"
run_err "side file: an unknown key names file and line" "bad.dat.session: line 2: unknown key 'swapiness'" \
    "$vmr" ingest -o "$tmp/b.vmr" "$tmp/bad.dat"
printf 'memory_limit 16M\n' >"$tmp/bad.dat.session"
run_err "side file: without swappiness refused" "needs memory_limit and swappiness" \
    "$vmr" ingest -o "$tmp/b.vmr" "$tmp/bad.dat"
printf 'memory_limit lots\nswappiness 60\n' >"$tmp/bad.dat.session"
run_err "side file: a bad size refused" "line 1: memory_limit: 'lots' is not a size" \
    "$vmr" ingest -o "$tmp/b.vmr" "$tmp/bad.dat"
rm "$tmp/bad.dat.session"
head -c 5000 "$dat" >"$tmp/bad.dat"
run_err "a truncated recording: one line, exit 1" "bad.dat" "$vmr" ingest -o "$tmp/b.vmr" "$tmp/bad.dat"
check "no output left by a failed ingest" test ! -e "$tmp/b.vmr"
# 16 bytes overwritten at 5 %, 10 %, ... 95 % of the file: exit 0, or exit 1
# with one line; never a crash (libtracecmd 3.1.6 itself dies on some of
# these: ingest reads the file in a child first) nor a multi-line message.
sz=$(stat -c %s "$dat") bad=""
for pct in $(seq 5 5 95); do
    cp "$dat" "$tmp/bad.dat"
    printf '\377\377\377\377\0\0\0\0\377\377\377\377\022\064\126\170' |
        dd of="$tmp/bad.dat" bs=1 seek=$((sz * pct / 100)) conv=notrunc 2>/dev/null
    timeout 60 "$vmr" ingest --no-cache -q -o "$tmp/b.vmr" "$tmp/bad.dat" >/dev/null 2>"$tmp/err"; rc=$?
    if ! { [ $rc = 0 ] && [ ! -s "$tmp/err" ]; } && ! { [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ]; }; then
        bad="$bad $pct%:rc=$rc:$(head -c 80 "$tmp/err" | tr '\n' ' ')"
    fi
    rm -f "$tmp/b.vmr"
done
check "a damaged recording: exit 0 or one line and exit 1, never a crash${bad:+ (not:$bad)}" test -z "$bad"
echo "1..$tap_n"
