#!/bin/bash
# Repeated captures as replicates, end to end: a sweep file's trace-set
# of two real sessions of one workload (traces/reader-sw1, -sw100) at the
# limit they were captured under; the plan keeps each run's capture and
# its set; the captured swappiness values join the default ones; stats
# takes the captures as the replicates (each the mean of its seeds) and
# tests the variant against its baseline paired, capture by capture; the
# figures draw the kernel's own counters at the swappiness each capture
# ran at, the very numbers `vmreplay compare` reports for the kernel.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"

mkdir -p "$tmp/caps"
ln -s "$PWD/traces/reader-sw1" "$tmp/caps/reader-sw1"
ln -s "$PWD/traces/reader-sw100" "$tmp/caps/reader-sw100"
cat >"$tmp/r.sweep" <<EOF2
trace-set    reader caps          # a directory of captures
policy       classic classic+early-exit
memory-limit captured
seed         1 2
EOF2
"$vmr" sweep -q -j2 "$tmp/r.sweep" 2>"$tmp/err"
check "the trace-set sweep runs" test $? -eq 0 || sed 's/^/# /' "$tmp/err"
plan=$tmp/r.results/plan.tsv
check "plan.tsv: each capture a trace named for the set, in set reader" \
    test "$(awk -F'\t' 'NR > 1 { print $2 "/" $15 }' "$plan" | sort -u | tr '\n' ' ')" = "reader-sw1/reader reader-sw100/reader "
check "the default swappiness values and the captured ones (1, 100)" \
    test "$(awk -F'\t' 'NR > 1 { print $8 }' "$plan" | sort -nu | tr '\n' ' ')" = "1 36 71 100 106 141 176 200 "
check "memory-limit captured: the 16 MiB the sessions ran under" \
    test "$(awk -F'\t' 'NR > 1 { print $9 }' "$plan" | sort -u)" = 16777216
check "2 captures x 2 policies x 8 swappiness x 2 seeds runs" test "$(sed 1d "$plan" | wc -l)" -eq 64

"$vmr" stats "$tmp/r.results" >"$tmp/s.tsv"
col() { awk -F'\t' -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == want) c = i; next } { print $c }' "$2"; }
check "stats: one trace, the set" test "$(col trace "$tmp/s.tsv" | sort -u)" = reader
check "stats: the replicates are the 2 captures, of 2 seeds each" \
    test "$(paste <(col replicates "$tmp/s.tsv") <(col n "$tmp/s.tsv") <(col runs "$tmp/s.tsv") | sort -u | tr '\t\n' ', ')" = "captures,2,4 "
check "stats: classic+early-exit is tested paired on the 2 captures" \
    test "$(paste <(col policy "$tmp/s.tsv") <(col method "$tmp/s.tsv") <(col pairs "$tmp/s.tsv") | grep -v '^classic	' | sort -u | tr '\t\n' ', ')" = "classic+early-exit,paired,2 "
"$vmr" stats -f text "$tmp/r.results" >"$tmp/t.txt"
check "the tables say the means are of captures" grep -q 'mean of 2 captures (each the mean of 2 seeds)' "$tmp/t.txt"

"$vmr" plot -o "$tmp/fig" "$tmp/r.results" 2>"$tmp/err"
check "plot of the set: exit 0" test $? -eq 0 || sed 's/^/# /' "$tmp/err"
d=$tmp/fig/reader/limit-16384K
check "the kernel's points: one per capture, at its swappiness" \
    test "$(sed '/^#/d' "$d/pgsteal_file.kernel.tsv" | cut -f1,3 | tr '\t\n' ', ')" = "1,reader-sw1 100,reader-sw100 "
for s in 1 100; do
    want=$("$vmr" compare -q -p classic -f tsv "traces/reader-sw$s" |
           awk -F'\t' '$1 == "counter" && $2 == "pgsteal_file" { print $4 }')
    got=$(awk -F'\t' -v s=$s '$1 == s { print $2 }' "$d/pgsteal_file.kernel.tsv")
    check "kernel point at swappiness $s is what compare says the kernel did ($want)" \
        test -n "$want" -a "$got" = "$want"
done
check "the figure names the captured kernel in its caption" \
    grep -q "captured kernel's own counter" "$tmp/fig/index.html"
check "no empty output anywhere" test -z "$(find "$tmp/fig" -type f -empty)"
exit 0
