#!/bin/bash
# The MGLRU policies from the command line: determinism, the policy list and
# compositions, counters on the bundled traces, and the isolation throttle
# against the many-thread anon storm.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"
bl=traces/build-like-small/ctf
as=traces/anon-storm-small/ctf
as64=traces/anon-storm-64t/ctf

# Same trace, policy, parameters and seed: bit-identical outputs, for the
# base and each variant (the memcg LRU's random bins come from the seed).
for p in mglru mglru+swappiness+iso-throttle mglru+scan-balance; do
    for i in 1 2; do
        "$vmr" run -q -p $p -s 60 --memory-limit 24M --swap ssd --seed 7 -f tsv -o "$tmp/d$i.tsv" \
            --events "$tmp/e$i.tsv" --tasks "$tmp/t$i.tsv" --timeline "$tmp/l$i.tsv" "$as"
    done
    check "$p: same seed, bit-identical results" cmp -s "$tmp/d1.tsv" "$tmp/d2.tsv"
    check "$p: same seed, bit-identical reclaim records" cmp -s "$tmp/e1.tsv" "$tmp/e2.tsv"
    check "$p: same seed, bit-identical task completion" cmp -s "$tmp/t1.tsv" "$tmp/t2.tsv"
    check "$p: same seed, bit-identical isolation timeline" cmp -s "$tmp/l1.tsv" "$tmp/l2.tsv"
done
# Global reclaim walks the memcg LRU (random bins): still deterministic.
for i in 1 2; do
    "$vmr" run -q -p mglru --memory-limit 0 --node-memory 32M --seed 3 -f tsv -o "$tmp/g$i.tsv" \
        --events "$tmp/ge$i.tsv" "$bl"
done
check "global reclaim: same seed, bit-identical results" cmp -s "$tmp/g1.tsv" "$tmp/g2.tsv"
check "global reclaim: same seed, bit-identical records" cmp -s "$tmp/ge1.tsv" "$tmp/ge2.tsv"
check "global reclaim: kswapd reclaims (pgsteal_kswapd > 0)" test "$(tsv_col "$tmp/g1.tsv" pgsteal_kswapd)" -gt 0
"$vmr" run -q -p mglru -s 60 --memory-limit 24M --swap ssd --seed 8 -f tsv -o "$tmp/s8.tsv" "$as"
"$vmr" run -q -p mglru -s 60 --memory-limit 24M --swap ssd --seed 9 -f tsv -o "$tmp/s9.tsv" "$as"
check "another seed jitters the I/O: makespans differ" \
    test "$(tsv_col "$tmp/s8.tsv" makespan_ns)" != "$(tsv_col "$tmp/s9.tsv" makespan_ns)"

# Compositions: any order, one canonical name, the same replay.
"$vmr" run -q -p mglru+iso-throttle+swappiness -s 60 --memory-limit 24M --swap ssd --seed 7 \
    -f tsv -o "$tmp/c1.tsv" "$as"
"$vmr" run -q -p mglru+swappiness+iso-throttle -s 60 --memory-limit 24M --swap ssd --seed 7 \
    -f tsv -o "$tmp/c2.tsv" "$as"
check "a composition in another order is the same run" cmp -s "$tmp/c1.tsv" "$tmp/c2.tsv"
check "its name is canonical" test "$(tsv_col "$tmp/c1.tsv" policy)" = mglru+swappiness+iso-throttle
"$vmr" run -q -p mglru+scan-balance+sw-boost+iso-throttle --memory-limit 24M -f tsv -o "$tmp/c3.tsv" "$bl"
check "sub-rules compose: mglru+sw-boost+iso-throttle+scan-balance" \
    test "$(tsv_col "$tmp/c3.tsv" policy)" = mglru+sw-boost+iso-throttle+scan-balance

"$vmr" run --list-policies >"$tmp/list"
"$vmr" run --help >"$tmp/help"
for p in mglru mglru+swappiness mglru+iso-throttle mglru+scan-balance mglru+swappiness+iso-throttle; do
    check "--list-policies names $p (kernel, stochastic)" grep -qx "$p"$'\tyes\tyes' "$tmp/list"
    check "run --help lists $p" grep -q "^  $p " "$tmp/help"
done
check "run --help explains compositions" grep -q '^  mglru+SWITCH\[+SWITCH...\]' "$tmp/help"

run_usage() {  # NAME PATTERN ARGS...
    local name=$1 pat=$2; shift 2
    run_err "$name" 2 "$pat" "$vmr" run -q "$@" "$bl"
}
run_usage "an unknown switch is refused" "unknown policy 'mglru+turbo'" -p mglru+turbo
run_usage "a switch named twice is refused" "unknown policy 'mglru+swappiness+swappiness'" \
    -p mglru+swappiness+swappiness

# The counters of a pressured memcg run (build-like: anon and file).
"$vmr" run -q -p mglru -s 100 --memory-limit 24M --swap zram -f tsv -o "$tmp/b.tsv" "$bl"
check "pgscan counts isolated pages: pgscan_anon >= pgsteal_anon > 0" \
    test "$(tsv_col "$tmp/b.tsv" pgscan_anon)" -ge "$(tsv_col "$tmp/b.tsv" pgsteal_anon)" -a "$(tsv_col "$tmp/b.tsv" pgsteal_anon)" -gt 0
check "pgscan_file >= pgsteal_file > 0" \
    test "$(tsv_col "$tmp/b.tsv" pgscan_file)" -ge "$(tsv_col "$tmp/b.tsv" pgsteal_file)" -a "$(tsv_col "$tmp/b.tsv" pgsteal_file)" -gt 0
check "memcg reclaim counts as direct: pgscan_direct = pgscan_anon + pgscan_file, no pgscan_kswapd" \
    test "$(tsv_col "$tmp/b.tsv" pgscan_kswapd)" = 0 -a "$(tsv_col "$tmp/b.tsv" pgscan_direct)" = \
    "$(( $(tsv_col "$tmp/b.tsv" pgscan_anon) + $(tsv_col "$tmp/b.tsv" pgscan_file) ))"
"$vmr" run -q -p mglru+k6.12-counters -s 100 --memory-limit 24M --swap zram -f tsv -o "$tmp/b612.tsv" "$bl"
check "mglru+k6.12 is a listed policy" sh -c "'$vmr' run --list-policies | cut -f1 | grep -qx 'mglru+k6.12'"
check "k6.12-counters: memcg reclaim leaves pgscan_kswapd/direct and pgrefill at 0" \
    test "$(tsv_col "$tmp/b612.tsv" pgscan_kswapd)$(tsv_col "$tmp/b612.tsv" pgscan_direct)$(tsv_col "$tmp/b612.tsv" pgrefill)" = 000
check "MGLRU never deactivates (pgdeactivate 0)" test "$(tsv_col "$tmp/b.tsv" pgdeactivate)" = 0
check "every MGLRU policy reports its isolation (nr_isolated_peak > 0)" \
    test "$(tsv_col "$tmp/b.tsv" nr_isolated_peak)" -gt 0
check "refaults are seen (workingset_refault_anon > 0)" test "$(tsv_col "$tmp/b.tsv" workingset_refault_anon)" -gt 0

# Swappiness 200: mglru+swappiness respects get_type_to_scan's anon, the
# base still spills into file when anon runs out of generations.
"$vmr" run -q -p mglru -s 200 --memory-limit 24M --swap zram -f tsv -o "$tmp/w1.tsv" "$bl"
"$vmr" run -q -p mglru+swappiness -s 200 --memory-limit 24M --swap zram -f tsv -o "$tmp/w2.tsv" "$bl"
check "swappiness 200: mglru scans some file ($(tsv_col "$tmp/w1.tsv" pgscan_file))" \
    test "$(tsv_col "$tmp/w1.tsv" pgscan_file)" -gt 0
check "swappiness 200: mglru+swappiness scans no file" test "$(tsv_col "$tmp/w2.tsv" pgscan_file)" = 0

# The throttle patch's case: 64 threads in a 16 MiB memcg, swap-outs queued
# on zram: the base piles isolated folios up to the memcg's size, the
# throttle keeps them near evictable / 16 and sleeps.
"$vmr" run -q -p mglru --memory-limit 16M --swap zram -f tsv -o "$tmp/i1.tsv" "$as64"
"$vmr" run -q -p mglru+iso-throttle --memory-limit 16M --swap zram -f tsv -o "$tmp/i2.tsv" "$as64"
check "mglru does not throttle on isolation" test "$(tsv_col "$tmp/i1.tsv" mm_vmscan_throttled)" = 0
check "mglru+iso-throttle throttles ($(tsv_col "$tmp/i2.tsv" mm_vmscan_throttled))" \
    test "$(tsv_col "$tmp/i2.tsv" mm_vmscan_throttled)" -gt 0
check "and keeps the isolation peak lower ($(tsv_col "$tmp/i1.tsv" nr_isolated_peak) -> $(tsv_col "$tmp/i2.tsv" nr_isolated_peak))" \
    test "$(tsv_col "$tmp/i2.tsv" nr_isolated_peak)" -lt "$(tsv_col "$tmp/i1.tsv" nr_isolated_peak)"
