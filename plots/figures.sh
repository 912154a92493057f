#!/bin/bash
# figures.sh BUILD OUT — the main job (`make figures`).
#
# Ingests every bundled trace (traces/*/ctf) once, replays it against the
# reference LRU at memory sizes from 5% to 110% of the trace's footprint,
# gathers one TSV, and draws miss ratio versus memory size with gnuplot.
# Runs go to all cores; every output is written whole or not at all.
set -euo pipefail
build=${1:-build}
out=${2:-out}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
vmr=$root/$build/vmreplay
export VMREPLAY_CACHE=${VMREPLAY_CACHE:-$root/$build/cache}
jobs=$(nproc)
mkdir -p "$out"
work=$(mktemp -d "$out/.figures.XXXXXX")
trap 'rm -rf "$work"' EXIT

say() { echo "figures: $*" >&2; }

traces=()
for d in traces/*/ctf; do [ -d "$d" ] && traces+=("$d"); done
[ ${#traces[@]} -gt 0 ] || { say "no bundled traces under traces/*/ctf"; exit 1; }

# Percent of each trace's distinct pages given to the LRU.
fractions="5 10 15 20 30 40 50 60 70 80 90 100 110"
: >"$work/runs"
for t in "${traces[@]}"; do
    name=$(basename "$(dirname "$t")")
    "$vmr" ingest -q -f json "$t" >"$work/$name.json"
    pages=$(sed -n 's/.*"pages": \([0-9]*\).*/\1/p' "$work/$name.json")
    accesses=$(sed -n 's/.*"accesses": \([0-9]*\).*/\1/p' "$work/$name.json")
    say "$name: $accesses accesses over $pages distinct pages"
    for f in $fractions; do
        echo "$name $t $(( (pages * f + 99) / 100 ))" >>"$work/runs"
    done
done

# One run per line: NAME TRACE PAGES → $work/NAME.PAGES.tsv
total=$(wc -l <"$work/runs")
say "$total replays on $jobs cores"
export vmr work
xargs -P "$jobs" -L 1 sh -c '"$vmr" run -q -p lru -n "$3" -f tsv -o "$work/$1.$3.tsv" "$2"' _ <"$work/runs"

# Gather: the replay's columns, with the trace's short name.
tsv=$work/missratio.tsv
printf 'trace\tmemory_pages\tmemory_mib\taccesses\thits\tmisses\tevictions\tmiss_ratio\n' >"$tsv"
while read -r name trace pages; do
    awk -F'\t' -v OFS='\t' -v n="$name" -v p="$pages" \
        'NR == 2 {print n, p, $5 / 1048576, $10, $11, $12, $14, $16}' \
        "$work/$name.$pages.tsv" >>"$tsv"
done <"$work/runs"

gnuplot -e "datafile='$tsv'; outprefix='$work/missratio'" plots/missratio.gp
for ext in tsv pdf svg png; do
    mv -f "$work/missratio.$ext" "$out/missratio.$ext"
done
say "wrote $out/missratio.{pdf,svg,png} and the data beside them, $out/missratio.tsv"
