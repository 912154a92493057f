#!/bin/bash
# make-fixture.sh — regenerates this fixed sweep directory (committed as
# it is; tests never run this): a trace set, "toy", of five captures
# (toy-1 … toy-5), each replayed with two seeds under classic, classic+x
# and mglru at swappiness 60.  The numbers are the data set of the R
# script in tests/test_stats.c: a capture's value is the mean of its two
# seeds, and the captures differ more than the seeds do, as repeated
# runs of a real workload do.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf plan.tsv results
mkdir -p results
printf 'id\ttrace\ttrace_hash\tpages\tpage_size\tpolicy\tkernel\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tevents\ttimeline\tset\n' >plan.tsv
n=0
while read -r policy cap seed steal_file steal_anon work; do
    n=$((n + 1)); id=$(printf '%016x' $n)
    hash=$(printf '%032x' "$cap")
    printf '%s\ttoy-%s\t%s\t4096\t4096\t%s\t1\t60\t16777216\t-\t-\t%s\t0\t0\ttoy\n' \
        "$id" "$cap" "$hash" "$policy" "$seed" >>plan.tsv
    {
        printf 'trace\ttrace_hash\tpolicy\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tversion\tpgsteal_file\tpgsteal_anon\twork_done\tpgrotated\n'
        printf 'traces/toy-%s.vmr\t%s\t%s\t60\t16777216\t1073741824\tzram\t%s\t0.1.0\t%s\t%s\t%s\t0\n' \
            "$cap" "$hash" "$policy" "$seed" "$steal_file" "$steal_anon" "$work"
    } >"results/$id.tsv"
done <<'DATA'
classic 1 1 10800 3400 90000
classic 1 2 10840 3420 90010
classic 2 1 9650 3610 88400
classic 2 2 9700 3590 88420
classic 3 1 11920 3300 91800
classic 3 2 11880 3310 91790
classic 4 1 10310 3700 89900
classic 4 2 10290 3720 89920
classic 5 1 12500 3150 92500
classic 5 2 12560 3130 92470
classic+x 1 1 9100 3500 90300
classic+x 1 2 9140 3480 90310
classic+x 2 1 8950 3700 88800
classic+x 2 2 8990 3660 88790
classic+x 3 1 9480 3420 92100
classic+x 3 2 9520 3440 92080
classic+x 4 1 9330 3800 90200
classic+x 4 2 9310 3790 90230
classic+x 5 1 10010 3260 92650
classic+x 5 2 9990 3240 92700
mglru 1 1 7610 3000 90100
mglru 1 2 7590 3040 90090
mglru 2 1 7720 3350 88300
mglru 2 2 7700 3330 88350
mglru 3 1 7180 2990 91900
mglru 3 2 7200 3010 91850
mglru 4 1 7630 3290 89800
mglru 4 2 7650 3310 89870
mglru 5 1 7020 2900 92600
mglru 5 2 7060 2880 92550
DATA
