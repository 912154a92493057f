#!/bin/bash
# Tables and figures of a fixed small sweep (tests/data/stats-fixture):
# the tables match the expected text exactly; `vmreplay plot` runs every
# gnuplot script and writes non-empty PDF (fonts embedded), SVG, PNG and
# LaTeX variants with the data beside each, listed in index.html and
# README.md.
. "$(dirname "$0")/tap.sh"
build=${1:-build}
vmr=$PWD/$build/vmreplay
fix=tests/data/stats-fixture
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. Tables, byte for byte: of seed replicates (stats-fixture) and of a
# trace set's captures (stats-captures); the headline metrics by default,
# every metric with --holm all (the lru table by memory, and the line
# naming the metrics left out as constant).
caps=tests/data/stats-captures
expect() {   # expect NAME FIXTURE ARGS...
    local name=$1 dir=$2; shift 2
    "$vmr" stats "$@" -o "$tmp/$name" "$dir"
    check "stats $* ($dir): exit 0" test $? -eq 0
    if cmp -s "$tmp/$name" "$dir/expected/$name"; then
        ok "$dir: $name matches the expected text"
    else
        nok "$dir: $name matches the expected text"
        diff "$dir/expected/$name" "$tmp/$name" | head -20 | sed 's/^/# /'
    fi
}
for f in text:txt markdown:md latex:tex; do expect "tables.${f##*:}" "$fix" -f "${f%%:*}"; done
expect tables-all.txt "$fix" -f text --holm all
for f in text:txt latex:tex; do expect "tables.${f##*:}" "$caps" -f "${f%%:*}"; done
expect tables-all.txt "$caps" -f text --holm all
"$vmr" stats -f text -m miss_ratio "$fix" >"$tmp/one.txt"
check "stats -m: only that metric's tables" \
    test "$(grep -c '^miss_ratio, ' "$tmp/one.txt")" -eq 1 -a "$(head -1 "$tmp/one.txt")" = "miss_ratio, toy: one run"
# Filters: a policy brings its baseline; a trace set by its name or a capture's.
"$vmr" stats -p classic+x "$caps" >"$tmp/p.tsv"
check "stats -p classic+x: classic+x and its baseline only" \
    test "$(cut -f6 "$tmp/p.tsv" | sed 1d | sort -u | tr '\n' ' ')" = "classic classic+x "
"$vmr" stats -t toy-3 -m pgsteal_file "$caps" >"$tmp/t.tsv"
check "stats -t CAPTURE: that capture's runs alone (seed replicates, n = 2)" \
    awk -F'\t' 'NR > 1 { if ($9 != "seeds" || $10 != 2 || $8 != "pgsteal_file") bad = 1; n++ } END { exit bad || n != 3 }' "$tmp/t.tsv"
for o in "-t nosuch" "-p nosuch" "--holm some"; do
    "$vmr" stats $o "$caps" >/dev/null 2>"$tmp/err"; rc=$?
    check "stats $o: usage error (exit 2) naming it" test $rc -eq 2 -a "$(grep -c "'${o#* }'" "$tmp/err")" -eq 1
done
"$vmr" stats -O "$tmp/all" "$fix"
check "stats -O writes every form" bash -c "cd '$tmp/all' && test -s stats.tsv -a -s stats.json -a -s tables.txt -a -s tables.md -a -s tables.tex"
if command -v python3 >/dev/null 2>&1; then
    check "stats.json is valid JSON with one row per TSV row" python3 -c "
import json, sys
d = json.load(open('$tmp/all/stats.json'))
rows = sum(1 for _ in open('$tmp/all/stats.tsv')) - 1
sys.exit(0 if len(d['rows']) == rows and d['tests'] == 8 and d['tested'] == 12 else 1)"
else
    skip "stats.json is valid JSON" "python3 not installed"
fi
check "stats.tsv: significant rows are those of the family with p_holm < 0.05" \
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { s = $c["significant"]; p = $c["p_holm"]; if ((p != "-" && p < 0.05) != (s == 1)) exit 1 }' "$tmp/all/stats.tsv"

# 2. Figures.
if ! command -v gnuplot >/dev/null 2>&1; then
    skip "vmreplay plot draws the figures" "gnuplot not installed (make deps)"
    exit 0
fi
"$vmr" plot -o "$tmp/fig" "$fix" 2>"$tmp/plot.log"
rc=$?
check "plot: exit 0 (rc $rc)" test $rc -eq 0 || sed 's/^/# /' "$tmp/plot.log"
d=toy/limit-16384K
figs="missratio $d/pgsteal_anon $d/pgscan_anon $d/overview $d/cdf_scanned $d/cdf_latency $d/timeline"
for f in $figs; do
    check "$f.pdf is a PDF" test "$(head -c 4 "$tmp/fig/$f.pdf" 2>/dev/null)" = "%PDF"
    check "$f.svg is an SVG" grep -q '<svg' "$tmp/fig/$f.svg"
    check "$f.png is a PNG" \
        test "$(head -c 8 "$tmp/fig/$f.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a"
done
for f in pgsteal_anon pgscan_anon overview cdf_scanned cdf_latency timeline; do
    check "$f: LaTeX variant (cairolatex .tex + .pdf)" \
        bash -c "grep -q 'includegraphics' '$tmp/fig/$d/latex/$f.tex' && test -s '$tmp/fig/$d/latex/$f.pdf'"
done
for f in missratio $d/pgsteal_anon $d/pgscan_anon $d/cdf_scanned $d/cdf_latency $d/timeline; do
    check "$f: its data file is beside it" test -s "$tmp/fig/$f.tsv"
done
if command -v pdffonts >/dev/null 2>&1; then
    check "every PDF embeds its fonts" bash -c "
        for p in \$(find '$tmp/fig' -name '*.pdf' ! -path '*/latex/*'); do
            pdffonts \"\$p\" | awk 'NR > 2 && \$(NF-4) != \"yes\" { bad = 1 } END { exit bad }' || exit 1
        done"
    check "SVGs carry their text as glyph outlines (no font needed)" \
        bash -c "grep -q '<symbol' '$tmp/fig/$d/pgsteal_anon.svg' && ! grep -q 'font-family' '$tmp/fig/$d/pgsteal_anon.svg'"
else
    skip "every PDF embeds its fonts" "pdffonts (poppler-utils) not installed"
fi
n=$(echo $figs | wc -w)
check "index.html lists every figure ($n) with its caption" \
    test "$(grep -c '<figcaption>' "$tmp/fig/index.html")" -eq "$n"
check "README.md lists every figure" test "$(grep -c '^\* \*\*' "$tmp/fig/README.md")" -eq "$n"
check "a significant mean is marked in the data (mglru at 60)" \
    awk -F'\t' '$9 == "mglru" && $1 == 60 && $7 == 1 { f = 1 } END { exit !f }' "$tmp/fig/$d/pgscan_anon.tsv"
check "no gnuplot log left behind (they go only on failure)" test -z "$(find "$tmp/fig" -name '*.log')"

# 2b. A one-swappiness sweep (every curve one point: gnuplot 5.4.4
# crashed on those and left 0-byte PDFs) and a partial one (runs
# missing, a policy at one swappiness only), and the trace set's
# fixture: each plots without error, every output whole.
mkdir -p "$tmp/one" "$tmp/part"
cp -r "$fix/results" "$fix/events" "$fix/timeline" "$tmp/one/"
awk -F'\t' 'NR == 1 || $8 == 60 || $8 == "-"' "$fix/plan.tsv" >"$tmp/one/plan.tsv"
"$vmr" plot -o "$tmp/fig1" "$tmp/one" 2>"$tmp/plot1.log"; rc=$?
check "one-swappiness sweep: plot exits 0 (rc $rc)" test $rc -eq 0 || sed 's/^/# /' "$tmp/plot1.log"
check "one-swappiness sweep: its figures are there" \
    test -s "$tmp/fig1/$d/pgscan_anon.pdf" -a -s "$tmp/fig1/$d/overview.pdf" -a -s "$tmp/fig1/$d/latex/pgscan_anon.pdf"
check "one-swappiness sweep: the curves are points (npoints=1)" \
    grep -q "^60	" "$tmp/fig1/$d/pgscan_anon.tsv"
cp -r "$fix/results" "$fix/events" "$fix/timeline" "$fix/plan.tsv" "$tmp/part/"
ids=$(awk -F'\t' '($6 == "classic+x" && $8 == 120) || ($6 == "mglru" && $12 >= 3) { print $1 }' "$fix/plan.tsv")
for id in $ids; do rm "$tmp/part/results/$id.tsv"; done
"$vmr" plot --partial -o "$tmp/fig2" "$tmp/part" 2>"$tmp/plot2.log"; rc=$?
check "partial sweep ($(echo $ids | wc -w) runs missing): plot --partial exits 0 (rc $rc)" test $rc -eq 0 ||
    sed 's/^/# /' "$tmp/plot2.log"
check "partial sweep: its figures are there" test -s "$tmp/fig2/$d/pgscan_anon.png" -a -s "$tmp/fig2/$d/overview.png"
"$vmr" plot --relative -o "$tmp/fig3" "$caps" 2>"$tmp/plot3.log"; rc=$?
check "the trace set's fixture plots, --relative (rc $rc)" test $rc -eq 0 || sed 's/^/# /' "$tmp/plot3.log"
check "--relative: the change from the baseline in %, paired (the data file's columns 11-13)" \
    awk -F'\t' '$9 == "mglru" && $1 == 60 { f = $11 < -32 && $11 > -33 } END { exit !f }' "$tmp/fig3/toy/limit-16384K/pgsteal_file.tsv"
"$vmr" plot -m pgrotated -m pgsteal_file -o "$tmp/fig4" "$caps" 2>/dev/null
check "a metric 0 in every run gets no figure, and the index names it beside its condition" \
    bash -c "grep -q 'No figure (0 in every run): pgrotated' '$tmp/fig4/index.html' && test -s '$tmp/fig4/toy/limit-16384K/pgsteal_file.pdf' && test ! -e '$tmp/fig4/toy/limit-16384K/pgrotated.pdf'"
check "index.html: a table of contents per trace, PNG thumbnails, no inline SVG" \
    bash -c "grep -q 'href=\"#t-toy\"' '$tmp/fig/index.html' && grep -q 'loading=\"lazy\"' '$tmp/fig/index.html' && ! grep -q '<svg\|\.svg\" alt' '$tmp/fig/index.html'"
check "no empty file in any output" \
    test -z "$(find "$tmp/fig" "$tmp/fig1" "$tmp/fig2" "$tmp/fig3" "$tmp/fig4" -type f -empty)"
check "figure data: one spelling of a missing value (-), no NaN/nan/inf, at most 10 significant digits" \
    awk -F'\t' '/^#/ {next} {for (i = 1; i <= NF; i++) {v = $i; if (v ~ /^(-?nan|NaN|-?inf|Inf)$/) bad = 1
        if (v ~ /^-?[0-9.]+(e[-+][0-9]+)?$/) {m = v; sub(/e.*/, "", m); gsub(/[-.]/, "", m); sub(/^0+/, "", m); if (length(m) > 10) bad = 1}}}
        END {exit bad}' $(find "$tmp/fig" "$tmp/fig3" -name '*.tsv')
check "no staging folder left" test -z "$(find "$tmp/fig" "$tmp/fig1" "$tmp/fig2" "$tmp/fig3" -name .stage)"

# 3. Refusals.
"$vmr" plot -o "$tmp/x" "$tmp/nowhere" >/dev/null 2>"$tmp/err"; rc=$?
check "plot of a missing sweep: exit 1, one line naming plan.tsv" \
    bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q 'nowhere/plan.tsv' '$tmp/err'"
"$vmr" plot -m bogus_metric -o "$tmp/x1" "$fix" >/dev/null 2>"$tmp/err"; rc=$?
check "plot -m bogus_metric: exit 2, one line naming it and the sweep's metrics, then Try, no figures" \
    bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 2 ] && tail -1 '$tmp/err' | grep -qx \"Try 'vmreplay plot --help'.\" && grep -q \"no metric 'bogus_metric' (it has: .*pgsteal_anon\" '$tmp/err' && [ ! -e '$tmp/x1' ]"
sws=$(awk -F'\t' 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "swappiness") c = i; next} $c ~ /^[0-9]+$/ {print $c}' "$fix/plan.tsv" | sort -un | paste -sd, | sed 's/,/, /g')
"$vmr" plot --at 7 -o "$tmp/x2" "$fix" >/dev/null 2>"$tmp/err"; rc=$?
check "plot --at 7 (not swept): exit 2, one line naming the swept values ($sws), then Try, no figures" \
    bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 2 ] && tail -1 '$tmp/err' | grep -qx \"Try 'vmreplay plot --help'.\" && grep -q 'no swappiness 7 (it has: $sws)' '$tmp/err' && [ ! -e '$tmp/x2' ]"
"$vmr" stats -f csv "$fix" >/dev/null 2>"$tmp/err"; rc=$?
check "stats -f csv: usage error (exit 2)" test $rc -eq 2
"$vmr" stats -m nosuch "$fix" >/dev/null 2>"$tmp/err"; rc=$?
check "stats -m nosuch: exit 2 naming the metric" bash -c "[ $rc -eq 2 ] && grep -q \"'nosuch'\" '$tmp/err'"
exit 0
