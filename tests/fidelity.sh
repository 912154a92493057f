#!/bin/bash
# tests/fidelity.sh [BUILD] — `make fidelity`: the scoreboard of every
# committed real session (vmreplay validate traces/sessions/*: the
# captures traces/sessions.sh made on this machine's kernel and in the
# test bed's User-Mode Linux guest, three per workload and swappiness;
# MGLRU sessions replayed under mglru, the others under classic), written to
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
# each set of traces/sessions/ (validate looks one level down); the
# older single captures in traces/*-swN share workload names with them and
# stay out of the scoreboard
mapfile -t sets < <(find traces/sessions -mindepth 1 -maxdepth 1 -type d | sort)
"$vmr" validate -q -f markdown -o "$tmp/board.md" "${sets[@]}"
"$vmr" validate -q -f tsv -o "$tmp/board.tsv" "${sets[@]}"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
    echo "# Fidelity: the replay against the kernel it models"
    echo
    echo "\`vmreplay validate ${sets[*]}\` on the real sessions committed"
    echo "there (traces/README.md: how each was made; those of traces/sessions/uml-*"
    echo "captured in the test bed's User-Mode Linux guest, capture/testbed/README.md;"
    echo "MGLRU sessions replayed under mglru, the others under classic; each set's"
    echo "README.md says which demand source serves which cells), each replayed as"
    echo "captured (its limit, swappiness, RAM, swap device and the latencies the"
    echo "capture measured), at commit $commit; \`make fidelity\`"
    echo "writes this page. A cell is a workload at one swappiness; its captures"
    echo "are the replicates. It passes when the replay median is within 25% of"
    echo "the kernel median (kernel CV below 0.25) or inside the kernel's min-max;"
    echo "a trend is right when the replay moves the way the kernel clearly does"
    echo "between neighbouring swappiness values (vmreplay-validate(1))."
    echo
    tail -1 "$tmp/board.md"
    echo
    for set in "${sets[@]}"; do
        echo "* \`$set\`: $("$vmr" validate -q -f markdown "$set" | tail -1)"
    done
    echo
    sed '$d' "$tmp/board.md" | sed '$d'
} >"$tmp/FIDELITY.md"
mv "$tmp/FIDELITY.md" traces/FIDELITY.md
awk -F'\t' 'NR > 1 && $12 == "yes" {print $1 "\t" $2 "\t" $3 "\t" $4}' "$tmp/board.tsv" >tests/data/fidelity-pass.tsv
echo "fidelity: $(tail -1 "$tmp/board.md")"
