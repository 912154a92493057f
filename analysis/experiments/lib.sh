# lib.sh — what the experiment scripts share (sourced, not run).
#
# exp_init NAME BUILD OUT sets: root (the clone), vmr (the binary),
# out (OUT, made), work (where the sweep and its results go: the cache
# for real captures, BUILD/experiments/ for bundled ones), cache (the
# captures' cache, $VMREPLAY_EXPERIMENTS, default
# /var/cache/vmreplay/experiments: too large for git, remade by the
# targets) and exports VMREPLAY_CACHE (ingested .vmr files).

exp_say() { echo "experiment-$exp_name: $*" >&2; }
exp_die() { exp_say "$*"; exit 1; }

# exp_main NAME ARGS...: a script's command line.  --cells STATS KERNEL
# prints the script's tables (its cells function) and exits; else
# [--bundled] BUILD OUT, then exp_init.
exp_main() {
    local script=$1; shift   # not "name": cells sees exp_main's locals
    if [ "${1:-}" = --cells ]; then
        [ $# = 3 ] || { echo "usage: $script.sh --cells STATS.tsv KERNEL.tsv" >&2; exit 2; }
        cells "$2" "$3"
        exit
    fi
    bundled=0
    [ "${1:-}" = --bundled ] && { bundled=1; shift; }
    [ $# = 2 ] || { echo "usage: $script.sh [--bundled] BUILD OUT" >&2; exit 2; }
    build=$1
    exp_init "$script" "$1" "$2" "$bundled"
}

# exp_to FILE CMD [ARGS...]: CMD's output into FILE, whole or absent.
exp_to() {
    local f=$1; shift
    "$@" >"$f.tmp" || { rm -f "$f.tmp"; exp_die "$1 failed: no $f"; }
    mv -f "$f.tmp" "$f"
}

# exp_init NAME BUILD OUT BUNDLED(0|1)
exp_init() {
    exp_name=$1
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    vmr=$root/$2/vmreplay
    [ -x "$vmr" ] || exp_die "build first: make ($vmr is missing)"
    out=$3
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    cache=${VMREPLAY_EXPERIMENTS:-/var/cache/vmreplay/experiments}
    if [ "$4" = 1 ]; then work=$root/$2/experiments/$exp_name; else work=$cache/$exp_name; fi
    mkdir -p "$work"
    export VMREPLAY_CACHE=${VMREPLAY_CACHE:-$root/$2/cache}
}

# exp_sweep FILE METRIC...: runs it into FILE's results dir, then the
# stats (TSV) of the METRICs, the tables' (so Holm's family is theirs),
# into FILE.stats.tsv.  Resumable: a second call with the same vmreplay
# binary redoes nothing.  A run's id names vmreplay's version, which a
# change to the model does not change, so the results of another binary
# (a stamp of its SHA-256 beside them) are removed first: a table never
# mixes models.
exp_sweep() {
    local f=$1 m=() d=${1%.sweep} sum; shift
    for x in "$@"; do m+=(-m "$x"); done
    sum=$(sha256sum "$vmr" | cut -d' ' -f1)
    if [ -d "$d" ] && [ "$(cat "$d/.binary" 2>/dev/null)" != "$sum" ]; then
        exp_say "results in $d are of another vmreplay binary: replaying again"
        rm -rf "$d"
    fi
    mkdir -p "$d"
    echo "$sum" >"$d/.binary"
    "$vmr" sweep -q -d "$d" "$f" >&2
    "$vmr" stats "${m[@]}" -o "${f%.sweep}.stats.tsv" "$d"
}

# exp_sweeps KIND...: per KIND the sweep the script's sweep_file KIND
# writes ($work/KIND.sweep), run, with the stats of the script's metrics
# (the array "metrics"); then one stats table of them all, $work/stats.tsv
# (the header once).
exp_sweeps() {
    local k stats=()
    for k in "$@"; do
        exp_to "$work/$k.sweep" sweep_file "$k"
        exp_sweep "$work/$k.sweep" "${metrics[@]}"
        stats+=("$work/$k.stats.tsv")
    done
    exp_to "$work/stats.tsv" awk 'FNR > 1 || NR == 1' "${stats[@]}"
}

# exp_means STATS.tsv: "trace policy swappiness metric mean significant"
# per cell, the means of the replicates as `vmreplay stats` computed them.
exp_means() {
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { print $c["trace"] "\t" $c["policy"] "\t" $c["swappiness"] "\t" $c["metric"] "\t" \
                $c["mean"] "\t" $c["significant"] }' "$1"
}

# exp_kernel POLICY SESSION: "metric value" per counter the kernel
# measured in a captured session (vmreplay compare's kernel column),
# plus mm_vmscan_throttled (analyze's throttled events) and accesses
# (the session's recorded demand).
exp_kernel() {
    "$vmr" compare -f tsv --policy "$1" "$2" |
        awk -F'\t' '$1 == "counter" && $4 != "" { print $2 "\t" $4 }'
    "$vmr" analyze -f tsv "$2" |
        awk -F'\t' '$1 == "summary" && $3 == "throttled" { print "mm_vmscan_throttled\t" $4 }'
    "$vmr" ingest -q -f json "$2" | sed -n 's/.*"accesses": \([0-9]*\).*/accesses\t\1/p'
}

# exp_publish CELLS: CELLS (table.sh's line format) → out/NAME.{tsv,txt,
# md,tex}, each whole or absent (written beside, then renamed).
exp_publish() {
    local f ext
    for ext in txt md tex; do
        case $ext in txt) f=text ;; md) f=markdown ;; tex) f=latex ;; esac
        "$root/analysis/experiments/table.sh" -f "$f" "$1" >"$out/.$exp_name.$ext.tmp"
        [ -s "$out/.$exp_name.$ext.tmp" ] || { rm -f "$out/.$exp_name".*.tmp; exp_die "no $f tables from $1"; }
    done
    cp "$1" "$out/.$exp_name.tsv.tmp"
    for ext in tsv txt md tex; do mv -f "$out/.$exp_name.$ext.tmp" "$out/$exp_name.$ext"; done
    exp_say "wrote $out/$exp_name.{txt,md,tex,tsv}"
}

# exp_slow20 TRACE: from `vmreplay analyze -f tsv` on stdin, the kernel's
# 20 slowest complete global direct reclaims as the replay's slow20_*
# metrics define them (the most and the mean pages scanned and reclaimed
# by one), and its direct reclaims: "TRACE metric value" lines.
exp_slow20() {
    awk -F'\t' -v t="$1" '
        $1 == "reclaim" { r[$2, $3] = $4; if ($2 + 0 > n) n = $2 + 0 }
        END {
            for (i = 1; i <= n; i++) if (r[i, "kind"] == "direct") { nd++; if (r[i, "complete"] == 1) idx[++nc] = i }
            # the 20 slowest, by selection (ties: the earlier reclaim)
            for (j = 1; j <= nc && j <= 20; j++) {
                b = j
                for (i = j + 1; i <= nc; i++) if (r[idx[i], "latency_ns"] + 0 > r[idx[b], "latency_ns"] + 0) b = i
                x = idx[j]; idx[j] = idx[b]; idx[b] = x
                sc = r[idx[j], "nr_scanned"] + 0; rc = r[idx[j], "nr_reclaimed"] + 0
                if (sc > ms) ms = sc; if (rc > mr) mr = rc; ss += sc; sr += rc; k++
            }
            printf "%s\tdirect_reclaims\t%d\n", t, nd
            if (k) printf "%s\tslow20_scanned_max\t%d\n%s\tslow20_reclaimed_max\t%d\n%s\tslow20_scanned_mean\t%.10g\n%s\tslow20_reclaimed_mean\t%.10g\n", \
                t, ms, t, mr, t, ss / k, t, sr / k
        }'
}
