#!/bin/bash
# The memcg statistics' flushes, recorded by `vmreplay capture` on this
# machine's kernel and replayed at their times (capture/EVENTS.md
# memcg_flush_stats / cgroup_rstat_locked, FORMAT.md KEVENTS stats_flush):
#  - a 2.6 s session that writes 16 MiB into the page cache, with
#    memory.stat read every 200 ms: capture_session names the flush
#    tracepoint (memcg:memcg_flush_stats where the kernel has it, as 6.18,
#    else cgroup:cgroup_rstat_locked, as 6.12), and the trace holds the periodic flusher's flushes of
#    the root (every 2 s: at least one in 2.6 s), each bridged flush of
#    the session's cgroup or an ancestor;
#  - ingest keeps the flushes no task of the workload made (META
#    stats_flush_event, stats_flushes, KEVENTS stats_flush), the replay
#    runs with them.
# The capture holds /run/vmreplay-capture.lock (host captures never
# overlap).  Skips where root, tracefs, a memory cgroup, LTTng or the
# flush tracepoints are missing.
set -u
. tests/tap.sh
hold_lock /run/vmreplay-capture.lock "$@"
mount_tracefs
tap_scratch "${1:-build}" /tmp/t_capture_flush.XXXXXX

why=$(capture_unmet "$build")
if [ -z "$why" ]; then
    # the formats, wherever tracefs is mounted now or can be, privately
    has=$(unshare -m sh -c 'd=/sys/kernel/tracing; [ -d $d/events ] || mount -t tracefs nodev $d 2>/dev/null
        for e in memcg/memcg_flush_stats cgroup/cgroup_rstat_locked; do [ -d $d/events/$e ] && echo $e; done')
    [ -n "$has" ] || why="the kernel has neither memcg:memcg_flush_stats nor cgroup:cgroup_rstat_locked (6.10+)"
fi
if [ -n "$why" ]; then
    skip "the statistics' flushes of a captured session" "$why"
    exit 0
fi
event=memcg:memcg_flush_stats
echo "$has" | grep -q memcg_flush_stats || event=cgroup:cgroup_rstat_locked

cat >"$tmp/job.sh" <<EOF
#!/bin/sh
head -c 16M /dev/zero > $tmp/data && sleep 2.6 && rm $tmp/data
EOF
chmod +x "$tmp/job.sh"
"$vmr" capture -o "$tmp/s" --limit 64M --stat-period 200 -- "$tmp/job.sh" \
    >"$tmp/s.log" 2>&1
rc=$?
check "capture: exit 0" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/s.log" | tail -5
babeltrace2 "$tmp/s" >"$tmp/s.txt" 2>"$tmp/bt.err" || sed 's/^/# /' "$tmp/bt.err"
check "capture_session names the flush tracepoint ($event)" \
    grep -q "capture_session: .*stats_flush = \"$event\"" "$tmp/s.txt"
name=${event#*:}
grep " $name: " "$tmp/s.txt" >"$tmp/flush.txt"
echo "# $(wc -l <"$tmp/flush.txt") $name events"
if [ "$event" = memcg:memcg_flush_stats ]; then
    check "every bridged flush flushed (force or needs_flush)" \
        test -z "$(grep -v 'force = 1\|needs_flush = 1' "$tmp/flush.txt")"
    check "the periodic flusher's flush of the root (force, memcg id 1) at least once in 2.6 s" \
        grep -q 'id = 1, stats_updates = [0-9-]*, force = 1' "$tmp/flush.txt"
else
    check "every bridged rstat lock begins a flush (cpu -1)" test -z "$(grep -v 'cpu = -1' "$tmp/flush.txt")"
    check "a flush of the root (level 0) at least once in 2.6 s" grep -q 'level = 0, ' "$tmp/flush.txt"
fi
# the ids are the cgroups' directories' inode numbers: the ancestors'
# (still there), and the session's own (removed with the session)
cg=$(sed -n 's/.*capture_session: .*cgroup = "\([^"]*\)".*/\1/p' "$tmp/s.txt" | head -1)
ids=" "
d=$(dirname "$cg")
while [ -d "$d" ] && [ "$(stat -c %d "$d")" = "$(stat -c %d "$(dirname "$cg")")" ]; do
    ids="$ids$(stat -c %i "$d") "
    d=$(dirname "$d")
done
others=$(grep -o ' id = [0-9]*' "$tmp/flush.txt" | awk '{print $3}' | sort -u | while read -r i; do
    case "$ids" in *" $i "*) ;; *) echo "$i" ;; esac; done)
check "only flushes of the session's cgroup or its ancestors (ancestors:$ids; else: $(echo $others))" \
    test "$(echo "$others" | grep -c .)" -le 1
"$vmr" ingest -q -o "$tmp/s.vmr" "$tmp/s" >"$tmp/ingest.log" 2>&1
check "ingest: exit 0" test $? -eq 0
meta() { strings "$tmp/s.vmr" | sed -n "s/^$1\t//p" | head -1; }
check "ingest: stats_flush_event $(meta stats_flush_event), stats_flushes $(meta stats_flushes) (>= 1)" \
    sh -c "[ '$(meta stats_flush_event)' = '$event' ] && [ '$(meta stats_flushes)' -ge 1 ]"
"$vmr" run -q --policy classic "$tmp/s.vmr" >"$tmp/run.txt" 2>&1
check "run: the replay with the recorded flushes ends" test $? -eq 0
