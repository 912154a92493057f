#!/bin/bash
# tests/fidelity.sh [BUILD] — `make fidelity`: the scoreboard of every
# committed real session (vmreplay validate traces/sessions: the
# captures traces/sessions.sh made, three per workload and swappiness),
# written to
# traces/FIDELITY.md, and the cells it passes to tests/data/fidelity-pass.tsv
# (tests/t_fidelity.sh fails when a cell passing there stops passing).
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
vmr=$root/$build/vmreplay
export VMREPLAY_CACHE=${VMREPLAY_CACHE:-$root/$build/cache}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$vmr" validate -q -f markdown -o "$tmp/board.md" traces/sessions/*/
"$vmr" validate -q -f tsv -o "$tmp/board.tsv" traces/sessions/*/
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
    echo "# Fidelity: the replay against the kernel it models"
    echo
    echo "\`vmreplay validate traces/sessions/*/\` on the real sessions committed in"
    echo "traces/sessions/ (traces/README.md: how each was made)"
    echo "(each replayed as captured: its limit, swappiness, RAM, swap device and"
    echo "the latencies the capture measured), at commit $commit; \`make fidelity\`"
    echo "writes this page. A cell is a workload at one swappiness; its captures"
    echo "are the replicates. It passes when the replay median is within 25% of"
    echo "the kernel median (kernel CV below 0.25) or inside the kernel's min-max;"
    echo "a trend is right when the replay moves the way the kernel clearly does"
    echo "between neighbouring swappiness values (vmreplay-validate(1))."
    echo
    tail -1 "$tmp/board.md"
    echo
    sed '$d' "$tmp/board.md" | sed '$d'
} >"$tmp/FIDELITY.md"
mv "$tmp/FIDELITY.md" traces/FIDELITY.md
awk -F'\t' 'NR > 1 && $12 == "yes" {print $1 "\t" $2 "\t" $3 "\t" $4}' "$tmp/board.tsv" >tests/data/fidelity-pass.tsv
echo "fidelity: $(tail -1 "$tmp/board.md")"
