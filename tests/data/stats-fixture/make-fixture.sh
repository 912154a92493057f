#!/bin/bash
# make-fixture.sh — regenerates this fixed sweep directory (committed as
# it is; tests never run this).  The kernel-policy numbers are the data
# set of the R script in tests/test_stats.c; the lru rows, events and
# timelines are small made-up values that exercise every table and figure.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf plan.tsv results events timeline
mkdir -p results events timeline
hash=0123456789abcdef0123456789abcdef
tab=$'\t'
printf 'id\ttrace\ttrace_hash\tpages\tpage_size\tpolicy\tkernel\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tevents\ttimeline\n' >plan.tsv
n=0
while read -r policy sw seed scan steal; do
    n=$((n + 1)); id=$(printf '%016x' $n)
    ev=0; tl=0
    if [ "$sw" = 60 ]; then ev=1; tl=1; fi
    printf '%s\ttoy\t%s\t4096\t4096\t%s\t1\t%s\t16777216\t-\t-\t%s\t%s\t%s\n' \
        "$id" "$hash" "$policy" "$sw" "$seed" "$ev" "$tl" >>plan.tsv
    {
        printf 'trace\ttrace_hash\tpolicy\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tversion\tpgscan_anon\tpgsteal_anon\n'
        printf 'traces/toy.vmr\t%s\t%s\t%s\t16777216\t1073741824\tzram\t%s\t0.1.0\t%s\t%s\n' \
            "$hash" "$policy" "$sw" "$seed" "$scan" "$steal"
    } >"results/$id.tsv"
    if [ $ev = 1 ]; then
        # Eight reclaim invocations whose cost grows with the policy's scan count.
        awk -v s="$scan" -v seed="$seed" 'BEGIN {
            OFS = "\t"; print "start_ns", "duration_ns", "kind", "task", "priority", "nr_scanned", "nr_reclaimed"
            for (i = 1; i <= 8; i++)
                print i * 1000000, int(s / 10 * i + seed * 37), (i % 2 ? "direct" : "kswapd"), 100 + i % 3, 12 - i % 4, int(s / 400 * i) + seed, int(s / 1000 * i) }' \
            >"events/$id.tsv"
        awk -v s="$scan" -v seed="$seed" 'BEGIN {
            OFS = "\t"; print "time_ns", "nr_isolated_anon", "nr_isolated_file", "throttled_total"
            for (i = 0; i < 20; i++)
                print i * 500000, int((s / 500 + seed) * (i % 5)), i % 3, int(i * s / 40000) }' \
            >"timeline/$id.tsv"
    fi
done <<'DATA'
classic 60 1 10923 4256
classic 60 2 10932 4132
classic 60 3 10720 4148
classic 60 4 11333 4243
classic 120 1 12311 4397
classic 120 2 12118 4387
classic 120 3 11500 4488
classic 120 4 12151 4434
classic+x 60 1 9392 3818
classic+x 60 2 9633 4009
classic+x 60 3 9991 4073
classic+x 60 4 10056 3983
classic+x 120 1 10892 4319
classic+x 120 2 10601 4517
classic+x 120 3 10966 4439
classic+x 120 4 10613 4149
mglru 60 1 11996 4564
mglru 60 2 12289 4617
mglru 60 3 11965 4436
mglru 60 4 11943 4763
mglru 120 1 12957 4796
mglru 120 2 13327 4536
mglru 120 3 13214 4955
mglru 120 4 12595 4711
DATA
# The reference LRU at two sizes: deterministic, one run each.
for mem in 4194304:0.625 8388608:0.25; do
    n=$((n + 1)); id=$(printf '%016x' $n)
    printf '%s\ttoy\t%s\t4096\t4096\tlru\t0\t-\t%s\t-\t-\t-\t0\t0\n' "$id" "$hash" "${mem%%:*}" >>plan.tsv
    {
        printf 'trace\ttrace_hash\tpolicy\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tversion\taccesses\tmisses\tmiss_ratio\n'
        printf 'traces/toy.vmr\t%s\tlru\t-\t%s\t-\t-\t-\t0.1.0\t10000\t%s\t%s\n' "$hash" "${mem%%:*}" \
            "$(awk -v r="${mem##*:}" 'BEGIN { print r * 10000 }')" "${mem##*:}"
    } >"results/$id.tsv"
done
