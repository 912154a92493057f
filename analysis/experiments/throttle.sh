#!/bin/bash
# throttle.sh [--bundled] BUILD OUT — `make experiment-throttle`.
#
# "throttle MGLRU eviction when isolated folios pile up" (v7) ran threads
# write-touching a 48 MB anonymous working set in a 16 MB memcg with swap
# on dm-delay 50 ms, at 64 and 192 threads, and compared OOM kills, work
# done, scan efficiency and mm_vmscan_throttled with and without the
# patch; the review proposed scan balance instead.  This captures that
# storm (build/workloads/anon-storm) on a real MGLRU kernel, Debian's 6.12
# in the test bed (capture/testbed/; under /run/vmreplay-testbed.lock),
# with its swap on dm-delay 50 ms, replays each capture under mglru
# (unpatched), mglru+iso-throttle (patched) and mglru+scan-balance, and
# mglru+k6.12 (the model read as 6.12 reclaims, the kernel that ran it),
# at the limit, swappiness and swap it ran with, 5 seeds, and writes one
# table per thread count into OUT/throttle.{txt,md,tex,tsv}, the real
# 6.12 kernel's row beside.  The captures are kept in
# $VMREPLAY_EXPERIMENTS/storm (default /var/cache/vmreplay/experiments),
# made when missing.  --bundled replays the committed demand-only storms
# (traces/anon-storm-{64,192}t) in a 16 MiB memcg on the dm-delay-50ms
# preset instead (make figures; no capture, no kernel row).
#
# The regime: the storm runs VMREPLAY_STORM_SECONDS (default 10; the paper 60) so
# that swap writes complete while the memcg is still being filled (the
# bundled storm fills 16 MiB in 33 ms, before the first 50 ms write).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
policies="mglru mglru+iso-throttle mglru+scan-balance mglru+k6.12"
# cells STATS.tsv KERNEL.tsv: the tables in table.sh's line format, from
# the sweep's stats and the kernel's counters (--cells runs only this:
# tests/t_experiments.sh gives it fixtures).
cells() {
    exp_means "$1" | awk -F'\t' -v kfile="$2" -v pols="$policies" '
BEGIN {
    while ((getline l < kfile) > 0) { split(l, a, "\t"); k[a[1], a[2]] = a[3]; kt[a[1]] = 1 }
    np = split(pols, pol, " ")
    split("unpatched|patched|scan-balance|k6.12 reading", lab, "|")
}
{ m[$1, $2, $4] = $5; s[$1, $2, $4] = $6 == 1 ? "*" : "" }
function v(t, p, x) { return ((t, p, x) in m) ? m[t, p, x] s[t, p, x] : "-" }
function kv(t, x) { return ((t, x) in k) ? k[t, x] : "-" }
END {
    for (n = 1; n <= 2; n++) {
        t = n == 1 ? "storm-64t" : "storm-192t"
        printf "title\t%s\t%s: 48 MiB written by %s threads in a 16 MiB memcg, swap on dm-delay 50 ms: replay means of 5 seeds\n", t, t, n == 1 ? 64 : 192
        printf "head\t%s\tpolicy\tOOM kills\twork done\tscan efficiency\tmm_vmscan_throttled\tnr_isolated peak\tpgscan_direct\tworkingset_refault\n", t
        for (p = 1; p <= np; p++)
            printf "row\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t, lab[p], v(t, pol[p], "oom_kill"), v(t, pol[p], "work_done"), \
                v(t, pol[p], "steal_scan_ratio"), v(t, pol[p], "mm_vmscan_throttled"), v(t, pol[p], "nr_isolated_peak"), \
                v(t, pol[p], "pgscan_direct"), v(t, pol[p], "workingset_refault")
        if (t in kt) {
            sc = kv(t, "pgscan_anon") + kv(t, "pgscan_file")
            eff = sc > 0 ? sprintf("%.4g", (kv(t, "pgsteal_anon") + kv(t, "pgsteal_file")) / sc) : "-"
            printf "row\t%s\treal 6.12\t%s\t%s\t%s\t%s\t-\t%s\t%s\n", t, kv(t, "oom_kill"), kv(t, "accesses"), eff, \
                kv(t, "mm_vmscan_throttled"), kv(t, "pgscan_direct"), kv(t, "workingset_refault_anon") + kv(t, "workingset_refault_file")
        }
        printf "note\t%s\tunpatched = mglru, patched = mglru+iso-throttle, scan-balance = mglru+scan-balance, k6.12 reading = mglru+k6.12 (the model read as 6.12 reclaims); real 6.12: the unpatched kernel that ran the storm; * differs from its baseline (Holm-adjusted p < 0.05; seeds: the simulator'\''s noise).\n", t
        printf "note\t%s\twork done: pages touched by the trace'\''s span (real: every touch the storm recorded); scan efficiency: pgsteal / pgscan; workingset_refault: anon + file.\n", t
        if (t in kt) printf "note\t%s\tThe real row: the capture'\''s own counters (memory.stat, vmstat, its mm_vmscan_throttled events); the kernel'\''s nr_isolated peak is not recorded; its pgscan_direct is the memcg'\''s (memory.stat), which 6.12 counts and its /proc/vmstat does not (the k6.12 reading reports the global counter: 0 for memcg reclaim).\n", t
    }
}'
}
exp_main throttle "$@"
seconds=${VMREPLAY_STORM_SECONDS:-10}

declare -A cap
for t in 64 192; do
    if [ "$bundled" = 1 ]; then
        cap[$t]=$root/traces/anon-storm-${t}t/ctf
        continue
    fi
    cap[$t]=$cache/storm/storm-${t}t
    [ -d "${cap[$t]}/kernel" ] && continue
    exp_say "capturing the storm at $t threads in the test bed (6.12, MGLRU), ${seconds} s"
    mkdir -p "$cache/storm"
    rm -rf "${cap[$t]}"
    flock /run/vmreplay-testbed.lock "$vmr" capture --kernel 6.12 --lru-gen y -o "${cap[$t]}" \
        --limit 16M --swap delay:256M:50 -- "$root/$build/workloads/anon-storm" --threads "$t" \
        --wss-mb 48 --run-pages 4 --duration "$seconds" --memory-limit 16777216 \
        >"$cache/storm/storm-${t}t.log" 2>&1 ||
        exp_say "the storm at $t threads ended with status $? (an OOM kill ends it: kept)"
    [ -d "${cap[$t]}/kernel" ] || { cat "$cache/storm/storm-${t}t.log" >&2; exp_die "no capture at $t threads"; }
done

sweep=$work/throttle.sweep
sweep_file() {
    echo "# written by analysis/experiments/throttle.sh"
    for t in 64 192; do echo "trace ${cap[$t]} storm-${t}t"; done
    echo "policy $policies"
    if [ "$bundled" = 1 ]; then
        echo "swappiness 60"
        echo "memory-limit 16M"
        echo "swap dm-delay-50ms"
    else
        echo "swappiness 60                # the storm ran at the default"
        echo "memory-limit captured"
    fi
    echo "seed 1-5"
}
exp_to "$sweep" sweep_file
exp_sweep "$sweep" oom_kill work_done steal_scan_ratio mm_vmscan_throttled nr_isolated_peak pgscan_direct workingset_refault

kern=$work/kernel.tsv
: >"$kern.tmp"
if [ "$bundled" = 0 ]; then
    for t in 64 192; do exp_kernel mglru "${cap[$t]}" | sed "s/^/storm-${t}t\t/"; done >"$kern.tmp"
fi
mv -f "$kern.tmp" "$kern"

cells=$work/cells.tsv
exp_to "$cells" cells "${sweep%.sweep}.stats.tsv" "$kern"
exp_publish "$cells"
