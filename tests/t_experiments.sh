#!/bin/bash
# make experiments (analysis/experiments/): the table writer and each
# experiment's tables on fixtures, exact text (tests/data/experiments/:
# hand-made stats and kernel counters with round ratios — 1200/100 = 12,
# 2500/1000 = 2.5, 50/2000 = 0.025, two kernel captures at swappiness 1
# averaged: (1300+1100)/2 = 1200 — and the formats vmreplay stats
# uses: 10800000 whole in text, 10.8M in LaTeX, 0.123456 as 0.1235);
# bad input; then the three targets end to end on the bundled traces
# (--bundled, as make figures runs them), whose LaTeX compiles \input
# into an article.
. "$(dirname "$0")/tap.sh"
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
x=analysis/experiments
d=tests/data/experiments

for f in text:txt markdown:md latex:tex; do
    "$x/table.sh" -f "${f%:*}" "$d/cells.tsv" >"$tmp/cells.${f#*:}" 2>"$tmp/err"
    check "table.sh -f ${f%:*}: the fixture's exact text" cmp -s "$tmp/cells.${f#*:}" "$d/cells.${f#*:}"
done
"$x/swappiness.sh" --cells "$d/swappiness-stats.tsv" "$d/swappiness-kernel.tsv" | "$x/table.sh" >"$tmp/s.txt"
check "swappiness: the LRU/MGLRU/MGLRU+Patch tables, kernel rows and checks, exact" cmp -s "$tmp/s.txt" "$d/swappiness.txt"
check "swappiness: classic pgsteal_file(1)/(176) = 1200/100" grep -q '^LRU pgsteal_file(1) / pgsteal_file(176)  *12 ' "$tmp/s.txt"
"$x/throttle.sh" --cells "$d/throttle-stats.tsv" "$d/throttle-kernel.tsv" | "$x/table.sh" >"$tmp/t.txt"
check "throttle: unpatched | patched | scan-balance rows and the real kernel's, exact" cmp -s "$tmp/t.txt" "$d/throttle.txt"
check "throttle: the real row's efficiency is (2000+500)/(90000+10000)" \
    grep -q '^real 6.12  *51  *800  *0.025  *7  *-  *100000  *320$' "$tmp/t.txt"
"$x/throttle.sh" --cells "$d/throttle-stats.tsv" "$d/throttle-kernel.tsv" | "$x/table.sh" -f latex >"$tmp/t.tex"
check "throttle: LaTeX of 8 columns, a column name's words one a line (nested tabular), exact" cmp -s "$tmp/t.tex" "$d/throttle.tex"
# The build pod's tables (pod_cells): per limit (bytes, shown in MiB),
# the stats' means with their stars, the objects compiled by the span
# from the kernel file, the real row at its limit: makespan 150000000000
# ns = 150 s, efficiency (200000+50000)/(750000+250000) = 0.25.
"$x/throttle.sh" --cells "$d/pod-stats.tsv" "$d/pod-kernel.tsv" | "$x/table.sh" >"$tmp/p.txt"
check "throttle: the build pod's tables per limit, exact" cmp -s "$tmp/p.txt" "$d/pod.txt"
check "throttle: the build pod's patched row at 200 MiB: objects, makespan s with its star, pgscan_direct" \
    grep -q '^patched  *0  *152  *120\*  *0.5  *35  *64  *770000\*$' "$tmp/p.txt"
check "throttle: the build pod's real row at its own limit only: (200000+50000)/(750000+250000)" \
    test "$(grep -c '^real 6.18  *0  *137  *159.5  *0.25  *57  *-  *1000000$' "$tmp/p.txt")" = 1
check "throttle: the storm fixture has no build pod table" test "$(grep -c build-pod "$tmp/t.txt")" = 0
"$x/early-exit.sh" --cells "$d/early-exit-stats.tsv" "$d/early-exit-kernel.tsv" | "$x/table.sh" >"$tmp/e.txt"
check "early-exit: before/after rows over the 20 slowest reclaims, the real kernel's beside, exact" cmp -s "$tmp/e.txt" "$d/early-exit.txt"
# The kernel's 20 slowest direct reclaims from analyze's records: 22
# complete direct ones of latency i, 10i pages scanned, i reclaimed, an
# incomplete direct and a kswapd run slower than all (left out): the
# slowest 20 are i = 3..22, so max 220 / 22, mean 125 / 12.5; 23 direct.
(. "$x/lib.sh"; exp_slow20 x <"$d/analyze-slow20.tsv") >"$tmp/slow20"
printf 'x\tdirect_reclaims\t23\nx\tslow20_scanned_max\t220\nx\tslow20_reclaimed_max\t22\nx\tslow20_scanned_mean\t125\nx\tslow20_reclaimed_mean\t12.5\n' >"$tmp/slow20.want"
check "exp_slow20: the 20 slowest complete direct reclaims, hand-computed" cmp -s "$tmp/slow20" "$tmp/slow20.want"

# Bad input: one line naming the file and line, exit 1; bad usage: 2.
printf 'title\ta\tT\nrow\ta\tx\t1\n' >"$tmp/bad.tsv"
"$x/table.sh" "$tmp/bad.tsv" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "table.sh: a row before its head is exit 1, one line with file and line" \
    test $rc = 1 -a "$(wc -l <"$tmp/err")" = 1 -a ! -s "$tmp/out"
check "... naming them" grep -q "^table.sh: $tmp/bad.tsv line 2: row before head of a" "$tmp/err"
"$x/table.sh" -f html "$d/cells.tsv" >/dev/null 2>&1
check "table.sh -f html: usage error, exit 2" test $? = 2
"$x/throttle.sh" one-argument >/dev/null 2>&1
check "throttle.sh with one argument: usage error, exit 2" test $? = 2

# End to end on the bundled traces (no capture): every form, whole.
for e in swappiness throttle early-exit; do
    "$x/$e.sh" --bundled "$build" "$tmp/out-$e" >"$tmp/$e.log" 2>&1
    check "$e --bundled: exit 0" test $? = 0 || cat "$tmp/$e.log" >&2
    for ext in txt md tex tsv; do
        check "$e --bundled: $e.$ext written" test -s "$tmp/out-$e/$e.$ext"
    done
    check "$e --bundled: no temporary file left" test -z "$(find "$tmp/out-$e" -name '.*.tmp')"
done
check "swappiness --bundled: a table per headline counter at the 7 + captured swappiness values" \
    test "$(grep -c '^200 ' "$tmp/out-swappiness/swappiness.txt")" -ge 6
check "swappiness --bundled: the compile captures' kernel rows" grep -q '^100 (kernel) ' "$tmp/out-swappiness/swappiness.txt"
check "throttle --bundled: the real row of a committed capture" grep -q "^real 6.12  *0 " "$tmp/out-throttle/throttle.txt"
check "throttle --bundled: skips the build pod and says so" grep -q 'the build pod: skipped with --bundled' "$tmp/throttle.log"
check "throttle --bundled: no build pod table" test "$(grep -c build-pod "$tmp/out-throttle/throttle.txt")" = 0
check "throttle --bundled: the committed 6.12 storms and redis, the demand-only storms" test "$(grep -c '^unpatched  *[0-9]' "$tmp/out-throttle/throttle.txt")" = 5
check "early-exit --bundled: phone-small's and the 6.12 capture's before rows" test "$(grep -c '^before  *[0-9]' "$tmp/out-early-exit/early-exit.txt")" = 2
check "early-exit --bundled: the committed 6.12 capture's real row" grep -q '^real 6.12  *[0-9]' "$tmp/out-early-exit/early-exit.txt"
if command -v pdflatex >/dev/null 2>&1; then
    mkdir -p "$tmp/tex"
    printf '\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n' >"$tmp/tex/a.tex"
    for e in swappiness throttle early-exit; do
        cp "$tmp/out-$e/$e.tex" "$tmp/tex/"; printf '\\input{%s}\n\\clearpage\n' "$e" >>"$tmp/tex/a.tex"
    done
    printf '\\end{document}\n' >>"$tmp/tex/a.tex"
    (cd "$tmp/tex" && pdflatex -interaction=nonstopmode -halt-on-error a.tex >/dev/null 2>&1)
    check "the experiments' LaTeX tables compile \\input into an article" test -s "$tmp/tex/a.pdf"
    check "... and fit \\textwidth (no overfull box)" test "$(grep -c '^Overfull' "$tmp/tex/a.log" 2>/dev/null)" = 0
else
    nok "pdflatex is installed (make deps)"
fi
