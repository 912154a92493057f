#!/bin/bash
# vmreplay capture, end to end on this machine (root, tracefs, a memory
# cgroup, swap, LTTng-UST):
#  - a small workload under a 32 MiB limit: one LTTng session (UST trace
#    and, at the kernel's time, the bridged events' kernel trace) with the
#    kernel's memcg reclaims, faults, page-cache and process events, the
#    session's setup, vmstat / memory.stat / maps snapshots; 0 discarded;
#    ingest keeps the ground truth, analyze reads it;
#  - every setting is back as it was after: a normal end, the workload
#    killed with SIGKILL, Ctrl-C (SIGINT to the capture's process group),
#    and the capture itself killed with SIGKILL (then undone by
#    `vmreplay capture --cleanup`);
#  - without root it refuses with a clear message; usage errors exit 2.
# Skips, saying why, where root, tracefs, a memory cgroup, swap or LTTng
# are missing.
set -u
. tests/tap.sh
hold_lock /run/vmreplay-capture.lock "$@"
tap_scratch "${1:-build}" /tmp/t_capture_kernel.XXXXXX
wl=$PWD/$build/workloads

why=$(capture_unmet "$build")
if [ -z "$why" ] && [ ! -e /proc/swaps ]; then why="no swap support in this kernel"; fi
if [ -n "$why" ]; then
    skip "vmreplay capture of a kernel session" "$why"
    exit 0
fi


# Everything the captures of this test may change, as one text to compare.
# Names carry the capture's pid, so captures of other runs (a concurrent
# make check) are left out.
mine=0
state() {
    local re="($(echo $mine | tr ' ' '|'))"
    echo "swappiness $(cat /proc/sys/vm/swappiness)"
    echo "swaps $(tail -n +2 /proc/swaps | awk '{print $1}' | grep -E "vmreplay-swap-$re\$" | tr '\n' ' ')"
    echo "cgroups $(ls -d /sys/fs/cgroup/memory/vmreplay-capture-* /sys/fs/cgroup/vmreplay-capture-* \
        /sys/fs/cgroup/unified/vmreplay-capture-* 2>/dev/null | grep -E "vmreplay-capture-$re\$" | tr '\n' ' ')"
    echo "instances $(ls /sys/kernel/tracing/instances 2>/dev/null | grep -E "^vmreplay-$re-" | tr '\n' ' ')"
    echo "sessions $(lttng list 2>/dev/null | grep -oE "vmreplay-capture-$re-[^ ]*" | tr '\n' ' ')"
    echo "journals $(ls /run/vmreplay 2>/dev/null | grep -E "^capture-$re\$" | tr '\n' ' ')"
    echo "swapfiles $(ls /var/tmp 2>/dev/null | grep -E "^vmreplay-swap-$re\$" | tr '\n' ' ')"
    local d=/sys/kernel/mm/damon/admin/kdamonds
    [ -d $d ] && echo "damon $(cat $d/nr_kdamonds) $(cat $d/*/state 2>/dev/null | tr '\n' ' ')"
}
before=$(state)
restored() {  # LABEL
    local now; now=$(state)
    if [ "$now" = "$before" ]; then ok "$1: every setting is back"
    else nok "$1: every setting is back"; diff <(echo "$before") <(echo "$now") | sed 's/^/# /'; fi
}
# the workload: 2 threads storing to 48 MiB under a 32 MiB limit (memcg
# reclaim and swap-out), then reading back a 24 MiB file from the disk
# (written, synced, dropped from the page cache)
# (ASAN_OPTIONS: under check-asan, liblttng-ust's own allocations would
# make the instrumented workload fail at exit)
noleak="env ASAN_OPTIONS=detect_leaks=0"
cat >"$tmp/job.sh" <<EOF
#!/bin/sh
$noleak $wl/anon-storm -t 2 -m 48 -n 3000 || exit 1
head -c 24M /dev/zero > $tmp/data && sync $tmp/data && dd if=$tmp/data iflag=nocache count=0 status=none &&
    cat $tmp/data > /dev/null && rm $tmp/data
EOF
chmod +x "$tmp/job.sh"

# --- a whole session ------------------------------------------------------
"$vmr" capture -o "$tmp/s1" --limit 32M --swappiness 100 -- "$tmp/job.sh" >"$tmp/s1.log" 2>&1 &
cap=$!
mine="$mine $cap"
wait $cap; rc=$?
check "capture: exit status is the workload's (0)" test $rc -eq 0
restored "after a normal end"
check "capture: reports 0 discarded events (LTTng and ftrace)" \
    grep -q 'discarded events: 0 (LTTng), 0 (ftrace)' "$tmp/s1.log"
check "capture: every record read from the ring buffers was bridged" \
    sh -c "! grep -q 'records read from the ring buffers' '$tmp/s1.log'"
# the session: the UST trace and the bridged kernel events' kernel trace
if babeltrace2 --clock-cycles "$tmp/s1" >"$tmp/s1.txt" 2>"$tmp/bt.err"; then ok "babeltrace2 decodes the trace"
else nok "babeltrace2 decodes the trace"; sed 's/^/# /' "$tmp/bt.err"; fi
n() { grep -c "$1" "$tmp/s1.txt"; }
check "the session's setup: limit, swappiness, swap, cgroup, LRU kind" \
    grep -q 'capture_session: .*memory_limit = 33554432, swappiness = 100, swap_kind = "[a-z]*".*lru_kind = "classic"' "$tmp/s1.txt"
check "memcg reclaim begin/end pairs were recorded" test "$(n 'mm_vmscan_memcg_reclaim_begin:')" -ge 1
check "lru_isolate and lru_shrink_inactive were recorded" \
    test "$(n 'mm_vmscan_lru_isolate:')" -ge 1 -a "$(n 'mm_vmscan_lru_shrink_inactive:')" -ge 1
check "user page faults of the workload were recorded" test "$(n 'x86_exceptions_page_fault_user:')" -ge 1000
check "page-cache add and get_pages were recorded" \
    test "$(n 'mm_filemap_add_to_page_cache:')" -ge 1 -a "$(n 'mm_filemap_get_pages:')" -ge 1
check "the process tree: fork, exec, exit" \
    test "$(n 'sched_process_fork:')" -ge 2 -a "$(n 'sched_process_exec:')" -ge 2 -a "$(n 'sched_process_exit:')" -ge 2
check "vmstat and memory.stat snapshots at start, end and in between" \
    test "$(n 'vmreplay:vmstat:')" -ge 2 -a "$(n 'memcg_stat:')" -ge 2
check "memory maps of the workload's processes" test "$(n 'proc_maps:')" -ge 2
check "the bridged events moved into DIR/kernel (kernel domain), none left in the UST trace" \
    sh -c "grep -q 'kernel: [1-9][0-9]* kernel events on' '$tmp/s1.log' &&
           babeltrace2 -o ctf-metadata '$tmp/s1/kernel' | grep -q 'domain = \"kernel\";' &&
           ! grep -q 'vmreplay_kernel:' '$tmp/s1.txt'"
check "kernel and UST events in timestamp order" \
    awk '{ t = substr($1, 2, length($1) - 2) + 0; if (t < p) exit 1; p = t }' "$tmp/s1.txt"
check "only the workload's tasks (and kswapd) in the task instance" \
    test -z "$(grep ' x86_exceptions_page_fault_user: ' "$tmp/s1.txt" | grep -o '{ pid = [0-9]*' | sort -u |
        while read -r _ _ _ p; do grep -q "child_pid = $p\b\|root_pid = $p," "$tmp/s1.txt" || echo "$p"; done)"
"$vmr" ingest -q -f json "$tmp/s1" >"$tmp/s1.json" 2>"$tmp/err"; rc=$?
check "ingest: exit 0" test $rc -eq 0
"$vmr" ingest -q -o "$tmp/s1.vmr" "$tmp/s1" >/dev/null 2>&1
check "ingest: the capture's facts are in the metadata" \
    sh -c "strings '$tmp/s1.vmr' | grep -q '^kernel_source	tracefs-bridge' && strings '$tmp/s1.vmr' | grep -q '^ground_truth_events	[1-9]'"
# swapin_readahead's inputs as this machine has them: page-cluster,
# vma_ra_enabled, and whether the capture's swap area (its file's device,
# or a partition's disk) is rotational
meta() { strings "$tmp/s1.vmr" | sed -n "s/^$1\t//p" | head -1; }
sw_dev=$(meta swap_device)
rot=-
d=
if [ -b "$sw_dev" ]; then d=$(stat -L -c '%Hr:%Lr' "$sw_dev")
elif [ -n "$sw_dev" ] && [ -d "$(dirname "$sw_dev")" ]; then d=$(stat -c '%Hd:%Ld' "$(dirname "$sw_dev")")  # the file is gone
fi
[ -z "$d" ] || rot=$(cat "/sys/dev/block/$d/queue/rotational" 2>/dev/null ||
                     cat "/sys/dev/block/$d/../queue/rotational" 2>/dev/null || echo -)
vra=$(sed 's/true/1/; s/false/0/' /sys/kernel/mm/swap/vma_ra_enabled)
check "ingest: page_cluster $(cat /proc/sys/vm/page-cluster), vma_ra_enabled $vra, swap_rotational $rot (the swap area's device)" \
    sh -c "[ '$(meta page_cluster)' = '$(cat /proc/sys/vm/page-cluster)' ] && [ '$(meta vma_ra_enabled)' = '$vra' ] &&
           { [ '$rot' = - ] || [ '$(meta swap_rotational)' = '$rot' ]; }"
# The device latencies (capture/blk_latency.h): the median block request
# of the swap area and of the file system the workload read, against a
# direct measurement of the same disk after the capture (fio's median
# completion latency of O_DIRECT 4 KiB random reads and writes, and of
# 4 MiB reads, the largest request of a read-ahead here), inside a
# factor of 10 either way: the capture's requests are of many sizes, and
# the disk is shared.
disk_of() {  # DIR: MAJ:MIN of the blk-mq disk DIR is on, or nothing
    local d; d=$(stat -c '%Hd:%Ld' "$1")
    [ -e "/sys/dev/block/$d/partition" ] && d=$(cat "/sys/dev/block/$d/../dev")
    [ -d "/sys/dev/block/$d/mq" ] && echo "$d"
}
fio_median() {  # FILE RW BS: fio's median completion latency in ns
    fio --name=probe --filename="$1" --size=16M --rw="$2" --bs="$3" --direct=1 --iodepth=1 \
        --ioengine=psync --runtime=1 --time_based --output-format=json 2>/dev/null |
        python3 -c 'import json, sys
j = json.load(sys.stdin)["jobs"][0]
d = j["read"] if j["read"]["total_ios"] else j["write"]
print(int(d["clat_ns"]["percentile"]["50.000000"]))'
}
near() {  # X LO HI: LO/10 <= X <= 10 HI
    [ -n "$1" ] && [ "$1" -gt 0 ] && [ $(($1 * 10)) -ge "$2" ] && [ "$1" -le $(($3 * 10)) ]
}
if ! command -v fio >/dev/null || ! command -v python3 >/dev/null; then
    skip "the device latencies" "fio or python3 not installed"
elif [ "$(meta swap_kind)" = file ] && sd=$(disk_of "$(dirname "$sw_dev")") && [ -n "$sd" ]; then
    probe=$(dirname "$sw_dev")/vmreplay-t_capture_kernel-probe.$$
    lr=$(fio_median "$probe" randread 4k)
    lw=$(fio_median "$probe" randwrite 4k)
    l4m=$(fio_median "$probe" read 4M)
    rm -f "$probe"
    echo "# direct (fio): 4 KiB read ${lr} ns, write ${lw} ns, 4 MiB read ${l4m} ns; capture: swap read" \
        "$(meta swap_read_ns) ns ($(meta swap_read_requests)), write $(meta swap_write_ns) ns" \
        "($(meta swap_write_requests)); file read $(meta file_read_ns) ns ($(meta file_read_requests))"
    check "ingest: the swap area's disk ($sd) and its write latency (the swap-out)" \
        sh -c "[ '$(meta swap_disk)' = '$sd' ] && [ '$(meta swap_write_requests)' -ge 1 ]"
    check "the swap writes' median request ($(meta swap_write_ns) ns) is between a direct 4 KiB write ($lw ns) and 4 MiB read" \
        near "$(meta swap_write_ns)" "$lw" "$l4m"
    if [ -n "$(meta swap_read_requests)" ]; then
        check "the swap reads' median request ($(meta swap_read_ns) ns) is near a direct 4 KiB read ($lr ns)" \
            near "$(meta swap_read_ns)" "$lr" "$lr"
    else
        skip "the swap reads' median request" "the session read nothing back from swap"
    fi
    if [ "$(disk_of "$tmp")" = "$sd" ]; then
        file_ok() {
            [ "$(meta file_disk)" = "$sd" ] && [ "$(meta file_read_requests)" -ge 1 ] &&
                near "$(meta file_read_ns)" "$lr" "$l4m"
        }
        check "the file reads' median request ($(meta file_read_ns) ns) is between a direct 4 KiB and 4 MiB read" \
            file_ok
    else
        skip "the file reads' median request" "$tmp is not on the swap file's disk"
    fi
    # run sets the capture's devices up with them (run_setup, compare's report)
    "$vmr" compare -q --policy classic "$tmp/s1.vmr" >"$tmp/cmp.txt" 2>&1
    check "compare replays with the measured swap latencies" \
        grep -q "ssd,size=[0-9]*M,read=$(meta swap_read_ns),write=$(meta swap_write_ns)" "$tmp/cmp.txt"
else
    skip "the device latencies" "the swap area is no file on a blk-mq disk ($(meta swap_kind) $sw_dev)"
fi
"$vmr" analyze -q -f tsv "$tmp/s1" >"$tmp/s1.an"; rc=$?
mc=$(awk -F'\t' '$1=="summary" && $3=="memcg_reclaims" {print $4}' "$tmp/s1.an")
check "analyze: as many memcg reclaims as begin events ($mc)" test "$mc" = "$(n 'mm_vmscan_memcg_reclaim_begin:')" -a $rc -eq 0

# --- the records kept past the agent's budget --------------------------------
# While the workload runs the agent keeps the task and kswapd instances'
# sub-buffers and bridges them after it, up to a budget; past it it
# bridges what it kept and goes on live. With a budget of 16 sub-buffers
# spent early: every record once, none lost, in time order.
VMREPLAY_AGENT_DEFER_BYTES=65536 "$vmr" capture -o "$tmp/s9" --limit 32M --swappiness 100 -- "$tmp/job.sh" \
    >"$tmp/s9.log" 2>&1 &
cap=$!
mine="$mine $cap"
wait $cap; rc=$?
check "a spent budget: exit 0, 0 discarded, every record read bridged" \
    sh -c "[ $rc -eq 0 ] && grep -q 'discarded events: 0 (LTTng), 0 (ftrace)' '$tmp/s9.log' &&
           ! grep -q 'records read from the ring buffers' '$tmp/s9.log'"
babeltrace2 "$tmp/s9/kernel" >"$tmp/s9.txt" 2>/dev/null
nb=$(sed -n 's/.*; \([0-9]*\) kernel events bridged.*/\1/p' "$tmp/s9.log")
check "a spent budget: the kernel trace holds every bridged record ($nb)" test "$(wc -l <"$tmp/s9.txt")" = "$nb"
check "a spent budget: no record twice" test -z "$(sed 's/ (+[^)]*)//' "$tmp/s9.txt" | sort | uniq -d | head -1)"
f1=$(grep -c 'x86_exceptions_page_fault_user:' "$tmp/s1.txt"); f9=$(grep -c 'x86_exceptions_page_fault_user:' "$tmp/s9.txt")
check "a spent budget: the same job's faults as the first capture's, within 20 % ($f9, $f1)" \
    test $((f9 * 10)) -ge $((f1 * 8)) -a $((f9 * 10)) -le $((f1 * 12))
restored "after a capture past the agent's budget"

# --- the workload killed with SIGKILL ---------------------------------------
# wait_cgroup: the pid of a task of the capture's cgroup (the workload)
wait_workload() {
    local i p
    for i in $(seq 100); do
        p=$(cat /sys/fs/cgroup/memory/vmreplay-capture-"$1"/cgroup.procs /sys/fs/cgroup/vmreplay-capture-"$1"/cgroup.procs \
            /sys/fs/cgroup/unified/vmreplay-capture-"$1"/cgroup.procs 2>/dev/null | head -1)
        [ -n "$p" ] && [ "$(cat /proc/"$p"/comm 2>/dev/null)" = anon-storm ] && { echo "$p"; return; }
        sleep 0.1
    done
}
# While it runs: the kswapd instance takes the kswapd threads' events by
# pid, with no per-event filter (a filter there recorded each of the
# workload's own reclaim events once more and then discarded it); the
# filtered events of any task are in the "other" one.  Read at once: the
# workload is soon killed by the memcg's OOM killer (48 MiB in 32).
kswapds=$(for p in /proc/[0-9]*; do
    case $(cat $p/comm 2>/dev/null) in kswapd*) [ -n "$(tr -d '\0' <$p/cmdline 2>/dev/null)" ] || echo "${p##*/}" ;; esac
done | sort -n | tr '\n' ' ')
"$vmr" capture -q -o "$tmp/s2" --limit 32M --swappiness 60 -- $noleak "$wl/anon-storm" -t 2 -m 48 -n 0 -d 30 \
    >"$tmp/s2.log" 2>&1 &
cap=$!
mine="$mine $cap"
w=$(wait_workload $cap)
ti=/sys/kernel/tracing/instances/vmreplay-$cap
ks_pids=$(tr ' ' '\n' <$ti-kswapd/set_event_pid 2>/dev/null | grep . | sort -n | tr '\n' ' ')
ks_filters=missing
[ -d $ti-kswapd ] && ks_filters=$(cat $ti-kswapd/events/vmscan/*/filter 2>/dev/null | grep -vc '^none$')
insts=$(ls -d $ti-task $ti-kswapd $ti-other $ti-block $ti-proc 2>/dev/null | wc -l)
proc_pct=$(cat $ti-proc/buffer_percent 2>/dev/null || echo missing)
task_pct=$(cat $ti-task/buffer_percent 2>/dev/null || echo missing)
proc_events=$(cd $ti-proc/events 2>/dev/null && grep -l 1 sched/*/enable task/*/enable 2>/dev/null | sed 's,/enable,,' | sort | tr '\n' ' ')
check "SIGKILL: the workload runs in the capture's cgroup" test -n "$w"
check "the kswapd instance follows the kswapd threads ($kswapds) by set_event_pid" \
    test -n "$kswapds" -a "$ks_pids" = "$kswapds"
check "no event of the kswapd instance has a filter" test "$ks_filters" = 0
check "the task, kswapd, other, block and proc instances exist" test "$insts" = 5
check "the proc instance wakes the agent at its first record (buffer_percent 0)" test "$proc_pct" = 0
check "the task instance wakes it a quarter full (buffer_percent 25)" test "$task_pct" = 25
check "the proc instance records forks, execs and new tasks ($proc_events)" \
    test "$proc_events" = "sched/sched_process_exec sched/sched_process_fork task/task_newtask "
sleep 0.5
[ -n "$w" ] && kill -KILL "$w"
wait $cap; rc=$?
check "SIGKILL: the capture ends with the workload's status (137, got $rc)" test $rc -eq 137
check "SIGKILL: the trace up to the kill is there" test -s "$tmp/s2/ust/uid/0/64-bit/metadata"
restored "after the workload was killed with SIGKILL"

# --- Ctrl-C: SIGINT to the capture's process group ------------------------
setsid "$vmr" capture -q -o "$tmp/s3" --limit 32M -- $noleak "$wl/anon-storm" -t 2 -m 48 -n 0 -d 30 \
    >"$tmp/s3.log" 2>&1 &
cap=$!
mine="$mine $cap"
w=$(wait_workload $cap)
sleep 0.5
kill -INT -- -"$cap"
wait $cap; rc=$?
check "Ctrl-C: the capture stops the workload and ends (status $rc)" test $rc -ne 0 -a $rc -lt 255
check "Ctrl-C: the trace is written whole" babeltrace2 "$tmp/s3" -o dummy
restored "after Ctrl-C"

# --- the capture itself killed: its supervisor undoes the journal at once,
# and the workload dies with the capture ------------------------------------
gone() {  # FILE: true once FILE is gone (10 s at most)
    local i
    for i in $(seq 100); do [ -e "$1" ] || return 0; sleep 0.1; done
    return 1
}
dead() {  # PID: true when PID is no running task (gone, or a zombie not yet reaped)
    [ -n "$1" ] && ! grep -q '^State:[[:space:]]*[RSDT]' /proc/"$1"/status 2>/dev/null
}
"$vmr" capture -q -o "$tmp/s4" --limit 32M -- $noleak "$wl/anon-storm" -t 2 -m 48 -n 0 -d 30 >"$tmp/s4.log" 2>&1 &
cap=$!
mine="$mine $cap"
w=$(wait_workload $cap)
sup=$(awk -F'\t' '$1 == "supervisor" {print $2}' /run/vmreplay/capture-$cap 2>/dev/null)
check "the capture has a supervisor ($sup)" test -n "$sup"
{ kill -KILL $cap; wait $cap; } 2>/dev/null
check "SIGKILL of the capture: its supervisor undoes the journal" gone /run/vmreplay/capture-$cap
check "SIGKILL of the capture: the workload died with it" dead "$w"
check "SIGKILL of the capture: the supervisor says so" grep -q "the capture (pid $cap) ended without restoring" "$tmp/s4.log"
restored "after the capture itself was killed (its supervisor)"

# --- the capture killed with its supervisor: the next capture recovers first
"$vmr" capture -q -o "$tmp/s7" --limit 32M -- $noleak "$wl/anon-storm" -t 2 -m 48 -n 0 -d 30 >"$tmp/s7.log" 2>&1 &
cap=$!
mine="$mine $cap"
w=$(wait_workload $cap)
sup=$(awk -F'\t' '$1 == "supervisor" {print $2}' /run/vmreplay/capture-$cap 2>/dev/null)
[ -n "$sup" ] && kill -KILL "$sup"
{ kill -KILL $cap; wait $cap; } 2>/dev/null
check "a capture killed with its supervisor leaves its journal" test -e /run/vmreplay/capture-$cap
"$vmr" capture -o "$tmp/s8" --limit 32M -- true >"$tmp/s8.log" 2>&1
check "the next capture undoes it first" grep -q "undoing what capture $cap left behind" "$tmp/s8.log"
check "  ... and its workload is gone" dead "$w"
restored "after the capture and its supervisor were killed, and the next capture"

# --- refusals ---------------------------------------------------------------
if command -v setpriv >/dev/null 2>&1; then
    setpriv --reuid=65534 --regid=65534 --clear-groups "$vmr" capture -o "$tmp/s5" --limit 32M -- true \
        >"$tmp/out" 2>"$tmp/err"; rc=$?
    check "without root: exit 1 and one clear line" \
        test $rc -eq 1 -a "$(wc -l <"$tmp/err")" -eq 1 -a -n "$(grep 'must be run as root' "$tmp/err")"
else
    skip "without root: refused" "setpriv not installed"
fi
"$vmr" capture --limit 32M -- true >/dev/null 2>"$tmp/err"; rc=$?
check "without -o: usage error, exit 2" test $rc -eq 2
"$vmr" capture -o "$tmp/s6" --limit 3Q -- true >/dev/null 2>"$tmp/err"; rc=$?
check "a bad --limit: usage error naming it" test $rc -eq 2 -a -n "$(grep -- "--limit: '3Q'" "$tmp/err")"
"$vmr" capture -o "$tmp/s1" --limit 32M -- true >/dev/null 2>"$tmp/err"; rc=$?
check "an output directory that is not empty: refused" test $rc -eq 2
restored "after the refusals"
