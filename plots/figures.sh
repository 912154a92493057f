#!/bin/bash
# figures.sh BUILD OUT — the main job (`make figures`).
#
# Sweeps every bundled trace (traces/*/ctf) against every policy that
# `vmreplay run --list-policies` names — a policy added there appears here
# with no change to this script — then writes statistics, tables and
# figures into OUT:
#
#   reference policies (no swappiness: lru)  13 memory sizes, 5% to 110% of
#       each trace's distinct pages → the miss-ratio curve
#   kernel policies (swappiness: classic, …)  the seven swappiness values
#       and the one each trace was captured at x 5 seeds at a memory limit
#       of half the trace's pages, recording per-reclaim events (every
#       seed: the CDFs pool them) and isolation timelines (first seed: the
#       time series shows one run) → metric-vs-swappiness figures, CDFs,
#       time series; replicates are seeds (the simulator's noise)
#   the real sessions captured more than once (traces/WORKLOAD-swN, one
#       capture per swappiness N): one trace set per workload, its
#       captures the replicates (3 seeds each), at the limit they were
#       captured under, so the kernel's own counters are drawn beside the
#       replays and the tests pair the captures
#   the same with no memory limit on a machine with 40% of the trace's
#       pages as RAM: node pressure, kswapd and direct reclaim, the case
#       the over-reclaim RFC (classic+early-exit) changes; memcg limit
#       reclaim never shows it (3 seeds)
#
# The sweeps live in BUILD/figures/ and are resumable: a second `make
# figures` with the same vmreplay binary redoes no run, an interrupted
# one only the missing runs; another binary replays them all.
set -euo pipefail
build=${1:-build}
out=${2:-out}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
vmr=$root/$build/vmreplay
export VMREPLAY_CACHE=${VMREPLAY_CACHE:-$root/$build/cache}
say() { echo "figures: $*" >&2; }
start=$(date +%s)

traces=()
for d in traces/*/ctf; do [ -d "$d" ] && traces+=("$d"); done
[ ${#traces[@]} -gt 0 ] || { say "no bundled traces under traces/*/ctf"; exit 1; }
# Workloads captured more than once (WORKLOAD-swN): their trace sets.
sets=$(for d in "${traces[@]}"; do n=${d%/ctf}; n=${n##*/}; [[ $n =~ -sw[0-9]+$ ]] && echo "${n%-sw*}"; done |
       sort | uniq -d | tr '\n' ' ')
single=()
for d in "${traces[@]}"; do
    n=${d%/ctf}; n=${n##*/}
    [[ $n =~ -sw[0-9]+$ ]] && [[ " $sets " == *" ${n%-sw*} "* ]] || single+=("$d")
done

policies=$("$vmr" run --list-policies)
reference=$(awk -F'\t' '$2 == "no" { printf "%s ", $1 }' <<<"$policies")
kernel=$(awk -F'\t' '$2 == "yes" { printf "%s ", $1 }' <<<"$policies")
say "policies: reference: ${reference:-none}; kernel: ${kernel:-none}"

sweeps=$root/$build/figures
# A run's id names vmreplay's version, which a change to the model does
# not change: the results of another binary (the SHA-256 stamp beside
# them) are replayed again, so that no figure mixes models.
sum=$(sha256sum "$vmr" | cut -d' ' -f1)
if [ -d "$sweeps" ] && [ "$(cat "$sweeps/.binary" 2>/dev/null)" != "$sum" ]; then
    say "the sweeps in $sweeps are of another vmreplay binary: replaying again"
    rm -rf "$sweeps"
fi
mkdir -p "$sweeps" "$out"
echo "$sum" >"$sweeps/.binary"
dirs=()

# write_sweep FILE POLICIES MEMORY-LIMITS [extra lines...]: over the
# traces in sweep_traces (default: all).
write_sweep() {
    local file=$1 pols=$2 limits=$3; shift 3
    {
        echo "# written by plots/figures.sh"
        for t in "${sweep_traces[@]}"; do echo "trace $root/$t"; done
        for w in ${sweep_sets:-}; do echo "trace-set $w $(printf "%s " "$root"/traces/"$w"-sw*)"; done
        echo "policy $pols"
        echo "memory-limit $limits"
        for line in "$@"; do echo "$line"; done
    } >"$file.tmp"
    mv -f "$file.tmp" "$file"
}

sweep_traces=("${traces[@]}")
if [ -n "$reference" ]; then
    write_sweep "$sweeps/reference.sweep" "$reference" \
        "5% 10% 15% 20% 30% 40% 50% 60% 70% 80% 90% 100% 110%"
    "$vmr" sweep -d "$sweeps/reference" "$sweeps/reference.sweep"
    dirs+=("$sweeps/reference")
fi
if [ -n "$kernel" ]; then
    # One limit, half of each trace's footprint: steady reclaim in every
    # trace, and a job that stays within minutes on two cores as traces
    # and policies are added (more limits: a sweep file of your own).
    sweep_traces=("${single[@]}")
    write_sweep "$sweeps/kernel.sweep" "$kernel" "50%" \
        "seed 1-5" "events yes" "timeline first-seed"
    "$vmr" sweep -d "$sweeps/kernel" "$sweeps/kernel.sweep"
    dirs+=("$sweeps/kernel")
    if [ -n "$sets" ]; then
        sweep_traces=() sweep_sets=$sets
        write_sweep "$sweeps/captures.sweep" "$kernel" "captured" \
            "seed 1-3" "events yes" "timeline first-seed"
        "$vmr" sweep -d "$sweeps/captures" "$sweeps/captures.sweep"
        dirs+=("$sweeps/captures")
        sweep_sets=
    fi
    # The machine's RAM must be at least 16 MiB (vmreplay run
    # --node-memory): the traces whose 40% is that much.
    sweep_traces=()
    for t in "${traces[@]}"; do
        p=$("$vmr" ingest -q -f json "$t" | sed -n 's/.*"pages": \([0-9]*\).*/\1/p')
        if [ "$(( p * 4096 * 40 / 100 ))" -ge $(( 16 << 20 )) ]; then sweep_traces+=("$t"); fi
    done
    say "node pressure: ${#sweep_traces[@]} traces large enough for 40% to be 16 MiB of RAM"
    write_sweep "$sweeps/node.sweep" "$kernel" "none" "node-memory 40%" \
        "seed 1-3" "events yes" "timeline first-seed"
    "$vmr" sweep -d "$sweeps/node" "$sweeps/node.sweep"
    dirs+=("$sweeps/node")
fi

"$vmr" stats -O "$out" "${dirs[@]}"
"$vmr" plot -o "$out" "${dirs[@]}"
# The three linux-mm experiments' tables on the bundled traces (about
# 30 s; `make experiments` captures their real workloads instead).
for e in swappiness throttle early-exit; do
    "$root/analysis/experiments/$e.sh" --bundled "$build" "$out/experiments"
done
say "wrote $out/: $(grep -c '<figure>' "$out/index.html") figures (index.html, README.md;" \
    "$(grep -c '^\* .*: ' <(sed -n '/^## No figure/,/^## Figures/p' "$out/README.md")) metric-conditions" \
    "0 in every run, named there), tables.{txt,md,tex}, stats.{tsv,json}, experiments/ in $(( $(date +%s) - start )) s"
