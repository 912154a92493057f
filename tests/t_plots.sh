#!/bin/bash
# plots/missratio.gp: draws PDF, SVG and PNG from a replay TSV, and refuses a
# TSV that lacks a column it needs. Run from the repository root; $1 = build
# dir (unused: the script needs nothing built).
set -u
. tests/tap.sh

script=plots/missratio.gp
if ! command -v gnuplot >/dev/null 2>&1; then
    skip "missratio.gp draws the figures" "gnuplot not installed (make deps)"
    exit 0
fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Two traces whose names contain "_", which gnuplot's enhanced text would
# turn into a subscript; rows deliberately not sorted by memory size.
tab=$'\t'
{
    echo "trace${tab}memory_pages${tab}memory_mib${tab}accesses${tab}hits${tab}misses${tab}evictions${tab}miss_ratio"
    echo "kernel_build${tab}1024${tab}4${tab}1000${tab}300${tab}700${tab}676${tab}0.7"
    echo "kernel_build${tab}256${tab}1${tab}1000${tab}100${tab}900${tab}644${tab}0.9"
    echo "kernel_build${tab}16384${tab}64${tab}1000${tab}900${tab}100${tab}0${tab}0.1"
    echo "seq_scan${tab}256${tab}1${tab}1000${tab}0${tab}1000${tab}744${tab}1"
    echo "seq_scan${tab}1024${tab}4${tab}1000${tab}0${tab}1000${tab}0${tab}1"
    echo "seq_scan${tab}16384${tab}64${tab}1000${tab}950${tab}50${tab}0${tab}0.05"
} >"$tmp/ok.tsv"

# 1. The good file: three figures with the right magic numbers.
gnuplot -e "datafile='$tmp/ok.tsv'; outprefix='$tmp/out/missratio'" "$script" \
    >"$tmp/ok.log" 2>&1
check "gnuplot exits 0 on a well-formed TSV" test $? -eq 0
for ext in pdf svg png; do
    check "missratio.$ext exists and is non-empty" test -s "$tmp/out/missratio.$ext"
done
check "missratio.pdf starts with %PDF" \
    test "$(head -c 4 "$tmp/out/missratio.pdf" 2>/dev/null)" = "%PDF"
check "missratio.svg contains <svg" grep -q '<svg' "$tmp/out/missratio.svg"
check "missratio.png starts with the PNG signature" \
    test "$(head -c 8 "$tmp/out/missratio.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a"
# The legend names come from the data, verbatim (no subscripts from "_").
check "svg legend names both traces" \
    bash -c "grep -q '>kernel_build<' '$tmp/out/missratio.svg' && grep -q '>seq_scan<' '$tmp/out/missratio.svg'"
check "gnuplot printed no warnings" test ! -s "$tmp/ok.log"

# 2. A TSV without the miss_ratio column: non-zero exit, a message that
# names the column, and no figures (an empty plot would pass unnoticed).
cut -f1-7 "$tmp/ok.tsv" >"$tmp/nocol.tsv"
gnuplot -e "datafile='$tmp/nocol.tsv'; outprefix='$tmp/bad/missratio'" "$script" \
    >"$tmp/nocol.log" 2>&1
rc=$?
check "missing column: gnuplot exits non-zero" test $rc -ne 0
check "missing column: the message names miss_ratio" grep -q "lacks column 'miss_ratio'" "$tmp/nocol.log"
check "missing column: no figure written" \
    test ! -e "$tmp/bad/missratio.pdf" -a ! -e "$tmp/bad/missratio.svg" -a ! -e "$tmp/bad/missratio.png"

# 3. A header and no rows, and no datafile at all: both refused.
head -n 1 "$tmp/ok.tsv" >"$tmp/empty.tsv"
gnuplot -e "datafile='$tmp/empty.tsv'; outprefix='$tmp/empty/missratio'" "$script" >/dev/null 2>&1
check "header-only TSV: gnuplot exits non-zero" test $? -ne 0
gnuplot "$script" >/dev/null 2>&1
check "no datafile given: gnuplot exits non-zero" test $? -ne 0
exit 0
