#!/bin/bash
# The classic policy from the command line: determinism, the swappiness
# scenario on a bundled trace, side outputs, option errors.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"
bl=traces/build-like-small/ctf
as=traces/anon-storm-small/ctf

# Same trace, policy, parameters and seed: bit-identical outputs.
for i in 1 2; do
    "$vmr" run -q -p classic -s 60 --memory-limit 24M --seed 7 -f tsv -o "$tmp/d$i.tsv" \
        --events "$tmp/e$i.tsv" --tasks "$tmp/t$i.tsv" --timeline "$tmp/l$i.tsv" "$as"
done
check "same seed: bit-identical results" cmp -s "$tmp/d1.tsv" "$tmp/d2.tsv"
check "same seed: bit-identical reclaim records" cmp -s "$tmp/e1.tsv" "$tmp/e2.tsv"
check "same seed: bit-identical task completion" cmp -s "$tmp/t1.tsv" "$tmp/t2.tsv"
check "same seed: bit-identical isolation timeline" cmp -s "$tmp/l1.tsv" "$tmp/l2.tsv"
"$vmr" run -q -p classic -s 60 --memory-limit 24M --seed 8 --swap ssd -f tsv -o "$tmp/d3.tsv" "$as"
"$vmr" run -q -p classic -s 60 --memory-limit 24M --seed 9 --swap ssd -f tsv -o "$tmp/d4.tsv" "$as"
check "another seed jitters the I/O: makespans differ" \
    test "$(tsv_col "$tmp/d3.tsv" makespan_ns)" != "$(tsv_col "$tmp/d4.tsv" makespan_ns)"

check "result rows follow RESULTS.md: identity columns first" \
    test "$(head -1 "$tmp/d1.tsv" | cut -f1-9)" = "$(printf 'trace\ttrace_hash\tpolicy\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tversion')"
check "every reclaim record has 12 columns (the last its task's name)" awk -F'\t' 'NF != 12 || $12 == "" {exit 1}' "$tmp/e1.tsv"
check "memcg reclaim records are there" grep -q $'\tmemcg\t' "$tmp/e1.tsv"
check "the task file lists every task" test "$(($(wc -l <"$tmp/t1.tsv") - 1))" = 9
check "a 24M limit over this storm ends with no OOM kill" \
    test "$(tsv_col "$tmp/d1.tsv" oom_kill)" = 0

# With swap, raising swappiness from 1 to 200 raises pgscan_anon and
# lowers pgscan_file (build-like: anon heaps and shared headers).
for sw in 1 200; do
    "$vmr" run -q -p classic -s $sw --memory-limit 24M --swap zram -f tsv -o "$tmp/s$sw.tsv" "$bl"
done
a1=$(tsv_col "$tmp/s1.tsv" pgscan_anon); a200=$(tsv_col "$tmp/s200.tsv" pgscan_anon)
f1=$(tsv_col "$tmp/s1.tsv" pgscan_file); f200=$(tsv_col "$tmp/s200.tsv" pgscan_file)
check "swappiness 1 -> 200 raises pgscan_anon ($a1 -> $a200)" test "$a200" -gt "$a1"
check "swappiness 1 -> 200 lowers pgscan_file ($f1 -> $f200)" test "$f200" -lt "$f1"

# Without swap, anon is never scanned for reclaim.
"$vmr" run -q -p classic -s 200 --memory-limit 24M --swap none -f tsv -o "$tmp/n.tsv" "$bl"
check "no swap: pgscan_anon is 0 and pswpout is 0" \
    test "$(tsv_col "$tmp/n.tsv" pgscan_anon) $(tsv_col "$tmp/n.tsv" pswpout)" = "0 0"

# Global pressure (no memcg limit, a small node): kswapd and direct reclaim.
"$vmr" run -q -p classic -s 60 --memory-limit 0 --node-memory 48M -f tsv -o "$tmp/g.tsv" "$as"
check "a small node wakes kswapd" test "$(tsv_col "$tmp/g.tsv" pgscan_kswapd)" -gt 0
check "and tasks enter direct reclaim (allocstall)" test "$(tsv_col "$tmp/g.tsv" allocstall)" -gt 0

"$vmr" run --help >"$tmp/help"
for p in $("$vmr" run --list-policies | cut -f1); do
    check "run --help lists $p" grep -q "^  $p " "$tmp/help"
done

run_usage() {  # NAME PATTERN ARGS...
    local name=$1 pat=$2; shift 2
    run_err "$name" 2 "$pat" "$vmr" run -q "$@" "$bl"
}
run_usage "swappiness 300 is refused" "--swappiness: '300'" -p classic -s 300
run_usage "an unknown swap preset is refused" "--swap: 'floppy'" -p classic --swap floppy
run_usage "a bad device parameter is refused" "depth: '0'" -p classic --swap ssd,depth=0
run_usage "a tiny node is refused" "--node-memory: '1M'" -p classic --node-memory 1M
run_usage "lru does not take swappiness" "the lru policy takes only" -p lru -n 10 -s 60
run_usage "kernel policies do not take --pages" "kernel policies take" -p classic -n 10
