#!/bin/bash
# The real sessions captured in the test bed and committed under
# traces/sessions/uml-KERNEL-LRU/ (traces/uml-sessions.sh remakes them):
#  - every set has each workload at swappiness 1, 100 and 200, every
#    capture a ctf.tar.xz under 5 MB beside a README saying how it was made,
#    the sets together within the 30 MB the repository allows them;
#  - every capture ingests on the host, and its metadata says what the
#    folder says: the guest's kernel (6.12, Debian's linux-source, the test
#    bed's fault-tracepoint patch), the LRU (mglru with lru_gen 0x0001, or
#    classic with 0x0000), the swappiness, a workload that ended with 0,
#    nothing lost, and the kernel's own demand events as the demand source
#    (faults of the test bed's tracepoint; page-cache events for the files;
#    for mt-anon, the pages its madvise populates, patch 0003's events).
#  - the DAMON session (traces/damon/uml-6.12-anon-storm) holds the exact
#    stream and DAMON's regions of one run, and its README's score of the
#    expansion rule is what build/testbed/damon-check says of its trace.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"
workloads="compile reader mix mt-anon"

meta() { sed -n "s/^$2	//p" "$1" | head -1; }

for set in traces/sessions/uml-6.12-mglru traces/sessions/uml-6.12-classic; do
    s=$(basename "$set")
    case $s in *-mglru) lru=mglru bits=0x0001 ;; *) lru=classic bits=0x0000 ;; esac
    if [ ! -d "$set" ]; then
        nok "$s: committed"
        continue
    fi
    missing=""
    for wl in $workloads; do
        for sw in 1 100 200; do
            ls -d "$set/$wl-sw$sw-"[0-9]* >/dev/null 2>&1 || missing="$missing $wl-sw$sw"
        done
    done
    n=$(find "$set" -mindepth 1 -maxdepth 1 -type d | wc -l)
    check "$s: $n captures, each workload at swappiness 1, 100, 200${missing:+ (missing:$missing)}" \
        test -z "$missing"
    big=$(find "$set" -type f -size +5M | paste -sd' ')
    check "$s: no file over 5 MB${big:+ ($big)}" test -z "$big"
    bad="" badmeta="" nodemand="" nomadv=""
    for cap in "$set"/*/; do
        cap=${cap%/}
        name=$(basename "$cap")
        if [ ! -s "$cap/ctf.tar.xz" ] || ! grep -q 'vmreplay capture .*--kernel' "$cap/README.md" 2>/dev/null; then
            bad="$bad $name"
            continue
        fi
        if ! "$vmr" ingest -q -o "$tmp/$name.vmr" "$cap" >/dev/null 2>"$tmp/err"; then
            bad="$bad $name($(head -1 "$tmp/err"))"
            continue
        fi
        strings "$tmp/$name.vmr" | grep -P '^[a-z_]+\t' >"$tmp/m"
        sw=${name#*-sw}
        sw=${sw%%-*}
        why=""
        case $(meta "$tmp/m" kernel_release) in 6.12.*) ;; *) why="$why release" ;; esac
        [ "$(meta "$tmp/m" hostname)" = vmreplay-testbed ] || why="$why hostname"
        [ "$(meta "$tmp/m" kernel_build_source)" = linux-source-6.12 ] || why="$why build_source"
        meta "$tmp/m" kernel_build_patches | grep -q '^0001-um-exceptions-page-fault-tracepoints.patch' ||
            why="$why build_patches"
        [ "$(meta "$tmp/m" lru_kind)" = $lru ] || why="$why lru_kind"
        [ "$(meta "$tmp/m" capture_lru_gen_enabled)" = $bits ] || why="$why lru_gen_enabled"
        [ "$(meta "$tmp/m" swappiness)" = "$sw" ] || why="$why swappiness"
        [ "$(meta "$tmp/m" swap_kind)" = zram ] || why="$why swap_kind"
        [ "$(meta "$tmp/m" workload_status)" = 0 ] || why="$why workload_status"
        [ "$(meta "$tmp/m" ftrace_lost_events)" = 0 ] || why="$why ftrace_lost"
        [ "$(meta "$tmp/m" discarded_events)" = 0 ] || why="$why discarded"
        [ -n "$why" ] && badmeta="$badmeta $name:$why"
        # the demand: the kernel's events, with faults of the tracepoint
        faults=$(meta "$tmp/m" demand_faults | cut -d' ' -f1)
        case $(meta "$tmp/m" demand_source) in
        kernel*) [ "${faults:-0}" -gt 0 ] || nodemand="$nodemand $name" ;;
        *) nodemand="$nodemand $name" ;;
        esac
        # stress-ng populates its buffer (GUP, no fault): the madvise
        # events of the test bed's patch 0003 carry those pages
        case $name in mt-anon-*)
            pop=$(meta "$tmp/m" demand_madvise | sed -n 's/.* \([0-9]*\) pages populated.*/\1/p')
            meta "$tmp/m" kernel_build_patches | grep -q '0003-um-madvise-syscall-tracepoints.patch' &&
                [ "${pop:-0}" -gt 0 ] || nomadv="$nomadv $name"
        esac
    done
    check "$s: every capture has its archive and README, and ingests${bad:+ (not:$bad)}" test -z "$bad"
    check "$s: metadata: 6.12 in the test bed, $lru (lru_gen $bits), the folder's swappiness, zram, status 0, nothing lost${badmeta:+ (wrong:$badmeta)}" \
        test -z "$badmeta"
    check "$s: the demand is the kernel's own events, with the test bed's fault tracepoint${nodemand:+ (not in:$nodemand)}" \
        test -z "$nodemand"
    check "$s: mt-anon's populates are in its demand, through the madvise events of patch 0003${nomadv:+ (not in:$nomadv)}" \
        test -z "$nomadv"
done

# --- the DAMON session's scorer on a hand-made run ---------------------------
# Pages p0.. from 0x10000000.  Touched: p8 at 0; p0, p1 at 50 ms; p0 at 60 ms;
# p2 at 150 ms.  DAMON at 100 ms: p0-p3 at 20 of 20 checks (4 passes); at
# 200 ms: p0-p3 at 1 (1 pass), p4-p15 at 0.  Interval 1 (0-100 ms): stream
# p0 x2, p1 -> 3 references on 2 pages; rule: 4 passes over
# ceil(4 * 20 / 20) = 4 pages (the whole region) = 4 x {p0, p1} = 8 on 2.
# Interval 2 (100-200 ms): stream p2 -> 1; rule: 1 pass over ceil(4 / 20) = 1
# page, p3 (damon_phase(0x10000, 150 ms) mod 4 = 3, tests/test_damon.c),
# never touched: nothing.  The previous rule (every page of the region per
# pass): 8 + 1 x {p0, p1, p2} = 11 on 5.  p8 is touched but its region's 0
# passes leave it alone.
acc() { echo "[$1] (+0) h vmreplay:anon_access: { cpu_id = 0 }, { pid = 1, tid = 1, addr = $2, len = $3, write = 1 }"; }
dam() { echo "[$1] (+0) h vmreplay_kernel:damon_aggregated: { cpu_id = 0 }, { kts = $1, kcpu = 0, ktid = 9, kpid = 9, target_id = 0, nr_regions = 1, start = $2, end = $3, nr_accesses = $4, age = 0 }"; }
{
    acc 0 $((0x10008000)) 4096
    acc 50000000 $((0x10000000)) 8192
    acc 60000000 $((0x10000000)) 4096
    dam 100000000 0x10000000 0x10004000 20
    acc 150000000 $((0x10002000)) 4096
    dam 200000000 0x10000000 0x10004000 1
    dam 200000100 0x10004000 0x1000F000 0
} >"$tmp/hand.txt"
"$build/testbed/damon-check" "$tmp/hand.txt" 5000 100000 4 1 >"$tmp/hand.out" 2>&1
printf '%s\n' "aggregation_intervals	2 (2 scored)" "interval_ms_median	100.0" "nr_accesses_max	20" \
    "damon_regions	3" "checks_per_interval	20 (sample 5000 us, aggregation 100000 us, max 4 passes)" \
    "stream_accesses	4" "references_exact	4" "hot_share_exact_pct	100.0" "pages_referenced_exact	3" \
    "rule	damon_window: k passes, each over ceil(S * a / N) pages of the region" \
    "rule_references	8" "rule_references_to_exact	2.000" "rule_hot_share_pct	100.0" \
    "rule_pages_referenced	2" "rule_recall_pct	66.7" "rule_precision_pct	100.0" \
    "whole_region	the previous rule: k passes, each over every page of the region" \
    "whole_region_references	11" "whole_region_references_to_exact	2.750" "whole_region_hot_share_pct	100.0" \
    "whole_region_pages_referenced	5" "whole_region_recall_pct	100.0" "whole_region_precision_pct	60.0" \
    >"$tmp/hand.want"
check "damon-check on a hand-made run: 4 references on 3 pages against the rule's 8 on 2, the whole region's 11 on 5" \
    cmp -s "$tmp/hand.out" "$tmp/hand.want"
sed 's/addr = [0-9]*/addr = x/' "$tmp/hand.txt" >"$tmp/bad.txt"
"$build/testbed/damon-check" "$tmp/bad.txt" 5000 100000 4 1 >/dev/null 2>"$tmp/bad.err"
check "damon-check on an unreadable addr: exit 1, naming the file, line, event and field" \
    sh -c "[ $? = 1 ] && grep -q 'bad.txt:1: event anon_access: field addr' '$tmp/bad.err'"

# --- the DAMON session: DAMON's regions and the exact stream of one run ---
d=traces/damon/uml-6.12-anon-storm
if [ ! -s "$d/ctf.tar.xz" ]; then
    nok "$d: committed"
else
    mkdir "$tmp/damon"
    tar -C "$tmp/damon" -xJf "$d/ctf.tar.xz"
    babeltrace2 --clock-cycles "$tmp/damon" >"$tmp/damon.txt" 2>/dev/null
    na=$(grep -c 'vmreplay:anon_access:' "$tmp/damon.txt")
    nd=$(grep -c 'vmreplay_kernel:damon_aggregated:' "$tmp/damon.txt")
    check "$d: the exact stream ($na accesses) and DAMON's regions ($nd) of one run" test "$na" -gt 0 -a "$nd" -gt 0
    "$vmr" ingest -q -o "$tmp/damon.vmr" "$d" >/dev/null 2>&1
    check "$d: ingests, the exact stream as its demand" \
        sh -c "strings '$tmp/damon.vmr' | grep -q '^demand_source	ust' &&
               strings '$tmp/damon.vmr' | grep -q '^capture_lru_gen_enabled	0x0001'"
    "$build/testbed/damon-check" "$tmp/damon.txt" 5000 100000 4 4 >"$tmp/score" 2>&1
    grep -P '^    [a-z_]+\t' "$d/README.md" | sed 's/^    //' >"$tmp/readme-score"
    check "$d: its README's score is damon-check's on its trace" cmp -s "$tmp/score" "$tmp/readme-score"
fi

kb=$(du -skc traces/sessions/uml-* traces/damon 2>/dev/null | tail -1 | cut -f1)
check "the test bed's sessions take ${kb:-0} KiB, within 30 MB" test "${kb:-0}" -le 30000
