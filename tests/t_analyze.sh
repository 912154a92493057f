#!/bin/bash
# vmreplay analyze and compare:
#  - on the replay's own records (a small TSV whose numbers are worked out
#    by hand below): every summary number, efficiency, velocity, the
#    slowest reclaims and their worst and mean;
#  - on a recorded kernel trace (traces/*-sw*/ctf, a real capture): the
#    numbers agree with an independent count of the same trace made with
#    babeltrace2 and awk;
#  - compare on the same trace: one row per counter, the kernel's values
#    from the trace, the replay's from `vmreplay run`;
#  - bad input: one line naming file, line and field, exit 1; usage exit 2.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"

# tsv_get FILE TABLE ROW METRIC: one value of analyze -f tsv
tsv_get() { awk -F'\t' -v t="$2" -v r="$3" -v m="$4" '$1==t && $2==r && $3==m {print $4}' "$1"; }
# expect NAME FILE TABLE ROW METRIC VALUE
expect() {
    local got; got=$(tsv_get "$2" "$3" "$4" "$5")
    if [ "$got" = "$6" ]; then ok "$1: $5 = $6"; else nok "$1: $5 = $6 (got '$got')"; fi
}

# --- the replay's records, by hand --------------------------------------
# task 7: two memcg reclaims, 2 ms (64 scanned, 32 reclaimed) and 0.5 ms
# (32, 32); task 8: one direct reclaim of 8 ms (200, 100); kswapd: awake
# 3 ms (1000, 900).  Extra columns are ignored.
cat >"$tmp/ev.tsv" <<'EOF'
start_ns	duration_ns	kind	task	priority	nr_scanned	nr_reclaimed	scanned_anon
1000000	2000000	memcg	7	10	64	32	0
5000000	500000	memcg	7	12	32	32	0
6000000	8000000	direct	8	8	200	100	0
7000000	3000000	kswapd	0	9	1000	900	0
EOF
"$vmr" analyze -f tsv -n 2 "$tmp/ev.tsv" >"$tmp/a.tsv"; rc=$?
check "analyze of records: exit 0" test $rc -eq 0
# Session: first start 1 ms, last end 14 ms (6 + 8): 13 ms.
expect records "$tmp/a.tsv" summary - session_ns 13000000
expect records "$tmp/a.tsv" summary - memcg_reclaims 2
expect records "$tmp/a.tsv" summary - direct_reclaims 1
expect records "$tmp/a.tsv" summary - direct_pages_scanned 296       # 64 + 32 + 200
expect records "$tmp/a.tsv" summary - direct_pages_reclaimed 164     # 32 + 32 + 100
expect records "$tmp/a.tsv" summary - stall_ns 10500000              # 2 + 0.5 + 8 ms
expect records "$tmp/a.tsv" summary - kswapd_wakeups 1
expect records "$tmp/a.tsv" summary - kswapd_awake_ns 3000000
expect records "$tmp/a.tsv" process task-7 stall_ns 2500000
expect records "$tmp/a.tsv" process task-8 pages_scanned 200
expect records "$tmp/a.tsv" efficiency records kswapd_efficiency_pct 90.0000    # 900 / 1000
expect records "$tmp/a.tsv" efficiency records direct_efficiency_pct 55.4054    # 164 / 296
expect records "$tmp/a.tsv" efficiency records kswapd_velocity 76923.0769       # 1000 / 0.013 s
expect records "$tmp/a.tsv" efficiency records direct_velocity 22769.2308       # 296 / 0.013 s
expect records "$tmp/a.tsv" efficiency records percentage_direct_scans 22.8395 # 296 / 1296
# The 2 slowest: the 8 ms direct reclaim, then kswapd's 3 ms.
expect records "$tmp/a.tsv" slowest 1 latency_ns 8000000
expect records "$tmp/a.tsv" slowest 2 nr_scanned 1000
expect records "$tmp/a.tsv" worst_mean slowest latency_ns_max 8000000
expect records "$tmp/a.tsv" worst_mean slowest nr_scanned_max 1000
expect records "$tmp/a.tsv" worst_mean slowest nr_reclaimed_mean 500.000     # (100 + 900) / 2
expect records "$tmp/a.tsv" worst_mean all latency_ns_mean 3375000.0          # 13.5 ms / 4
expect records "$tmp/a.tsv" worst_mean all nr_scanned_mean 324.000            # 1296 / 4
check "records: nothing the records cannot tell (wakeups, writes) is made up" \
    test -z "$(tsv_get "$tmp/a.tsv" summary - wakeup_kswapd)"
"$vmr" analyze -f json "$tmp/ev.tsv" >"$tmp/a.json"
check "analyze -f json: valid JSON, wakeup_kswapd null" python3 -c "
import json,sys; d=json.load(open('$tmp/a.json'))
assert d['summary']['wakeup_kswapd'] is None and d['summary']['memcg_reclaims'] == 2
assert d['worst_mean']['slowest']['n'] == 4 and len(d['reclaims']) == 4"
"$vmr" analyze "$tmp/ev.tsv" >"$tmp/a.txt"
check "analyze text: the perl script's summary lines" grep -q '^Time stalled direct+memcg reclaim: *0.010500 seconds' "$tmp/a.txt"
check "analyze text: a record's latency alone (its order is not known), never -1-LATENCY" \
    sh -c "grep -q '^task-7  *2.000 0.500\$' '$tmp/a.txt' && ! grep -q -- '-1-' '$tmp/a.txt'"
# The records of a run name their tasks (comm) and give kswapd's task as -.
printf 'start_ns\tduration_ns\tkind\ttask\tpriority\tnr_scanned\tnr_reclaimed\tcomm\n%s\n%s\n' \
    "1000000	2000000	memcg	7	10	64	32	cc1" "7000000	3000000	kswapd	-	9	1000	900	kswapd0" >"$tmp/ev2.tsv"
"$vmr" analyze "$tmp/ev2.tsv" >"$tmp/a2.txt" 2>"$tmp/err"
check "analyze of records with comm: exit 0 ($(head -c 200 "$tmp/err"))" test $? = 0
check "analyze of records: tasks named comm-tid, kswapd as kswapd0" \
    sh -c "grep -q '^cc1-7 ' '$tmp/a2.txt' && grep -q '^kswapd0 ' '$tmp/a2.txt'"
# Kswapd efficiency: 900/1000 = 90 %; of nothing scanned there is none.
printf 'start_ns\tduration_ns\tkind\ttask\tpriority\tnr_scanned\tnr_reclaimed\n1\t2\tmemcg\t7\t10\t4\t2\n' >"$tmp/ev3.tsv"
check "analyze: kswapd efficiency 900/1000 = 90.00%" grep -q '^Kswapd efficiency % *90.00%' "$tmp/a.txt"
check "analyze: kswapd efficiency of nothing scanned is -, not 100.00% (text)" \
    sh -c "'$vmr' analyze '$tmp/ev3.tsv' | grep -q '^Kswapd efficiency % *- '"
check "analyze: kswapd efficiency of nothing scanned is - (TSV)" \
    sh -c "'$vmr' analyze -f tsv '$tmp/ev3.tsv' | grep -q '^efficiency	records	kswapd_efficiency_pct	-\$'"
check "analyze: kswapd efficiency of nothing scanned is null (JSON)" \
    sh -c "'$vmr' analyze -f json '$tmp/ev3.tsv' | grep -q '\"kswapd_efficiency_pct\": null'"

# --- a recorded trace against an independent count ----------------------
trace=""
for d in traces/reader-sw100/ctf traces/*-sw100/ctf; do [ -d "$d" ] && { trace=$d; break; }; done
if [ -z "$trace" ]; then
    skip "analyze on a recorded trace" "no traces/*-sw100 kernel capture in this checkout"
else
    "$vmr" analyze -q -f tsv "$trace" >"$tmp/k.tsv"; rc=$?
    check "analyze $trace: exit 0" test $rc -eq 0
    # The workload's tasks only (capture_session names the first one; the
    # bridge recorded only its tree and kswapd): count with babeltrace2.
    babeltrace2 "$trace" >"$tmp/k.txt"
    count() { grep -c "vmreplay_kernel:$1:" "$tmp/k.txt"; }
    sumf() {  # EVENT FIELD [kswapd 0|1]: sum of FIELD
        grep "vmreplay_kernel:$1:" "$tmp/k.txt" | sed -n "s/.* $2 = \([0-9]*\).*/\1/p" | awk '{s+=$1} END {print s+0}'
    }
    expect trace "$tmp/k.tsv" summary - memcg_reclaims "$(count mm_vmscan_memcg_reclaim_begin)"
    expect trace "$tmp/k.tsv" summary - direct_reclaims "$(count mm_vmscan_direct_reclaim_begin)"
    ks=$(count mm_vmscan_kswapd_wake)
    expect trace "$tmp/k.tsv" summary - kswapd_wakeups "$ks"
    # every lru_shrink_inactive of the trace: direct + kswapd reclaimed
    tot=$(sumf mm_vmscan_lru_shrink_inactive nr_reclaimed)
    got=$(( $(tsv_get "$tmp/k.tsv" summary - direct_pages_reclaimed) + $(tsv_get "$tmp/k.tsv" summary - kswapd_pages_reclaimed) ))
    check "trace: pages reclaimed = sum of lru_shrink_inactive.nr_reclaimed ($tot, got $got)" test "$tot" = "$got"
    wf=$(count mm_vmscan_write_folio)
    got=$(( $(tsv_get "$tmp/k.tsv" summary - direct_write_anon_async) + $(tsv_get "$tmp/k.tsv" summary - direct_write_file_async) + $(tsv_get "$tmp/k.tsv" summary - kswapd_write_anon_async) + $(tsv_get "$tmp/k.tsv" summary - kswapd_write_file_async) ))
    check "trace: async write I/O = write_folio events ($wf, got $got)" test "$wf" = "$got"
    # stall: sum over begin/end pairs per task, in kts order
    stall=$(grep -E 'vmreplay_kernel:mm_vmscan_(memcg|direct)_reclaim_(begin|end):' "$tmp/k.txt" |
        sed -n 's/.*kts = \([0-9]*\), kcpu = [0-9]*, ktid = \([0-9]*\).*/\1 \2/p;' |
        paste -d' ' - <(grep -E 'vmreplay_kernel:mm_vmscan_(memcg|direct)_reclaim_(begin|end):' "$tmp/k.txt" | grep -o 'reclaim_[a-z]*' ) |
        sort -n -k1,1 | awk '$3=="reclaim_begin" {b[$2]=$1} $3=="reclaim_end" && ($2 in b) {s+=$1-b[$2]; delete b[$2]} END {print s+0}')
    expect trace "$tmp/k.tsv" summary - stall_ns "$stall"
    "$vmr" compare -q -p classic -f tsv "$trace" >"$tmp/c.tsv"; rc=$?
    check "compare --policy classic: exit 0" test $rc -eq 0
    check "compare: one row per counter, pgscan_file among them" \
        awk -F'\t' '$1=="counter" && $2=="pgscan_file" && $4!="" && $5!="" {f=1} END {exit !f}' "$tmp/c.tsv"
    ks=$(awk -F'\t' '$1=="counter" && $2=="pgsteal_file" {print $4}' "$tmp/c.tsv")
    ev=$(grep 'vmreplay_kernel:mm_vmscan_lru_shrink_inactive:' "$tmp/k.txt" | grep 'reclaim_flags = 0xA' |
        sed -n 's/.* nr_reclaimed = \([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s+0}')
    check "compare: kernel pgsteal_file = file lru_shrink_inactive reclaimed ($ev, got $ks)" test "$ev" = "$ks"
    check "compare: distributions side by side" grep -q '^distribution	memcg_latency_ns	p50' "$tmp/c.tsv"
fi

# --- bad input and usage --------------------------------------------------
printf 'start_ns\tduration_ns\tkind\ttask\tpriority\tnr_scanned\n' >"$tmp/bad1.tsv"
run_err "a TSV without nr_reclaimed: names the file, line and field" 1 "bad1.tsv: line 1: field nr_reclaimed: missing" \
    "$vmr" analyze "$tmp/bad1.tsv"
sed 's/^5000000\t500000\tmemcg/5000000\t500000\tglobal/' "$tmp/ev.tsv" >"$tmp/bad2.tsv"
run_err "an unknown kind: names line and field" 1 "bad2.tsv: line 3: field kind: 'global' is not direct, memcg or kswapd" \
    "$vmr" analyze "$tmp/bad2.tsv"
sed 's/^6000000\t8000000\tdirect\t8\t8/6000000\tx\tdirect\t8\t8/' "$tmp/ev.tsv" >"$tmp/bad3.tsv"
run_err "a non-number: names line and field" 1 "bad3.tsv: line 4: field duration_ns: 'x' is not a whole number" \
    "$vmr" analyze "$tmp/bad3.tsv"
head -c 60 "$tmp/ev.tsv" >"$tmp/bad4.tsv"
run_err "a cut file: says so" 1 "bad4.tsv: line 1: the file ends in the middle of a line" \
    "$vmr" analyze "$tmp/bad4.tsv"
run_err "a missing input" 1 "nope.tsv: No such file" "$vmr" analyze "$tmp/nope.tsv"
run_err "analyze without input: says what is missing, exit 2" 2 "^vmreplay analyze: a trace, .vmr or events file is required" \
    "$vmr" analyze
run_err "analyze with a bad format" 2 "--format: 'xml'" "$vmr" analyze -f xml "$tmp/ev.tsv"
run_err "compare without --policy" 2 "--policy is required" "$vmr" compare "$tmp/ev.tsv"
run_err "compare with an unknown policy" 2 "unknown policy 'nope'" "$vmr" compare -p nope "$tmp/ev.tsv"
"$vmr" analyze -o "$tmp/nodir/x.txt" "$tmp/ev.tsv" 2>/dev/null
check "an output in a missing directory: nothing written" test ! -e "$tmp/nodir/x.txt"
