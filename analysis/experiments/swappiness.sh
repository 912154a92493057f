#!/bin/bash
# swappiness.sh [--bundled] BUILD OUT — `make experiment-swappiness`.
#
# "mm: mglru: fix swappiness behavior" (RFC v4) measured a kernel build in
# a memcg with zram at swappiness 1, 36, 71, 106, 141, 176 and 200 and
# posted one table per counter: Swappiness | LRU | MGLRU | MGLRU+Patch,
# for pgsteal, pgscan and workingset_refault, anon and file.  This
# replays real kernel-build captures of this machine's kernel (classic
# LRU) under classic, mglru and mglru+swappiness at those values (and the
# captured ones), the captures as the replicates (`trace-set`, at the
# limit they ran under, 3 seeds each), and writes those tables, plus the
# simulated stall time and makespan, into OUT/swappiness.{txt,md,tex,tsv}
# with the kernel's own counters of each capture as the rows "N (kernel)"
# beside: the real kernel at the swappiness it was captured at.  The last
# table is the issue's acceptance checks, computed from the same means.
#
# The captures: traces/sessions.sh's kbuild (a Linux build subset from
# Debian's linux-source in a memcg of about a third of its peak), taken
# from $VMREPLAY_EXPERIMENTS/kbuild (default /var/cache/vmreplay/
# experiments/kbuild), else from /var/cache/vmreplay/kbuild when its
# READY file says a capture run finished, else made there by calling
# sessions.sh (root; under /run/vmreplay-capture.lock, one capture at a
# time).  --bundled replays the committed compile-sw* sessions instead
# (make figures; no capture).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# cells STATS.tsv KERNEL.tsv: the tables in table.sh's line format, from
# the sweep's stats and the kernel's counters (--cells runs only this:
# tests/t_experiments.sh gives it fixtures).
cells() {
    exp_means "$1" | awk -F'\t' -v w="${workload:-}" -v kfile="$2" '
BEGIN {
    while ((getline l < kfile) > 0) { split(l, a, "\t"); k[a[1], a[2]] = a[3]; ksw[a[1]] = 1 }
    np = split("classic mglru mglru+swappiness", pol, " ")
    nm = split("pgsteal_anon pgsteal_file pgscan_anon pgscan_file workingset_refault_anon workingset_refault_file stall_ns makespan_ns", met, " ")
}
w == "" { w = $1 }   # --cells: the one trace set of the stats
$1 == w { m[$2, $3, $4] = $5; s[$2, $3, $4] = $6; sw[$3] = 1; have[$4] = 1 }
END {
    n = 0; for (x in sw) list[++n] = x + 0
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
    nk = 0; for (x in ksw) klist[++nk] = x + 0
    for (i = 1; i <= nk; i++) for (j = i + 1; j <= nk; j++) if (klist[j] < klist[i]) { t = klist[i]; klist[i] = klist[j]; klist[j] = t }
    for (q = 1; q <= nm; q++) {
        id = met[q]; unit = id ~ /_ns$/ ? "s" : "pages"
        if (!(id in have)) continue   # not in these stats
        if (unit == "s") printf "title\t%s\t%s (%s), %s: replay means of the captures (3 seeds each)\n", id, id, unit, w
        else printf "title\t%s\t%s (%s), %s: replay means of the captures (3 seeds each); N (kernel): the capture at swappiness N, its kernel counters\n", id, id, unit, w
        printf "head\t%s\tSwappiness\tLRU\tMGLRU\tMGLRU+Patch\n", id
        for (i = 1; i <= n; i++) {
            printf "row\t%s\t%d", id, list[i]
            for (p = 1; p <= np; p++) {
                v = ((pol[p], list[i], id) in m) ? m[pol[p], list[i], id] : "-"
                if (unit == "s" && v != "-") v = sprintf("%.4g", v / 1e9)   # ns → s
                printf "\t%s%s", v, s[pol[p], list[i], id] == 1 ? "*" : ""
            }
            printf "\n"
        }
        if (unit == "pages") for (i = 1; i <= nk; i++)
            printf "row\t%s\t%d (kernel)\t%s\t-\t-\n", id, klist[i], ((klist[i], id) in k) ? k[klist[i], id] : "-"
        printf "note\t%s\tLRU = classic, MGLRU = mglru, MGLRU+Patch = mglru+swappiness; * differs from its baseline (MGLRU vs LRU, MGLRU+Patch vs MGLRU), Holm-adjusted p < 0.05.\n", id
        if (unit == "pages") printf "note\t%s\tThe kernel rows are this machine'\''s classic LRU (no MGLRU kernel ran this workload: the test bed sees the build tree read-only).\n", id
    }
    # the acceptance checks of issue 12
    printf "title\tchecks\tAcceptance checks (issue 12), %s\n", w
    printf "head\tchecks\tcheck\treplay\tkernel\trequired\n"
    r = ratio(m["classic", 1, "pgsteal_file"], m["classic", 176, "pgsteal_file"])
    printf "row\tchecks\tLRU pgsteal_file(1) / pgsteal_file(176)\t%s\t-\t>= 10\n", r
    r = ratio(m["classic", 200, "pgsteal_anon"], m["classic", 176, "pgsteal_anon"])
    printf "row\tchecks\tLRU pgsteal_anon(200) / pgsteal_anon(176)\t%s\t-\t>= 2\n", r
    for (t = 1; t <= 2; t++) {
        ty = t == 1 ? "anon" : "file"; lo = ""; hi = ""
        for (i = 1; i <= n; i++) { v = m["mglru", list[i], "pgsteal_" ty]; if (lo == "" || v < lo) lo = v; if (hi == "" || v > hi) hi = v }
        printf "row\tchecks\tMGLRU pgsteal_%s max / min over swappiness\t%s\t-\t<= 3\n", ty, ratio(hi, lo)
    }
    r = ratio(m["mglru+swappiness", 200, "pgsteal_file"], m["mglru+swappiness", 1, "pgsteal_file"])
    printf "row\tchecks\tMGLRU+Patch pgsteal_file(200) / pgsteal_file(1)\t%s\t-\t<= 0.05\n", r
    if ((1, "pgsteal_file") in k && (200, "pgsteal_file") in k)
        printf "row\tchecks\tLRU pgsteal_file(1) / pgsteal_file(200), kernel beside replay\t%s\t%s\t-\n", \
            ratio(m["classic", 1, "pgsteal_file"], m["classic", 200, "pgsteal_file"]), ratio(k[1, "pgsteal_file"], k[200, "pgsteal_file"])
    if ((1, "pgsteal_file") in k && (100, "pgsteal_file") in k)
        printf "row\tchecks\tLRU pgsteal_file(1) / pgsteal_file(100), kernel beside replay\t%s\t%s\t-\n", \
            ratio(m["classic", 1, "pgsteal_file"], m["classic", 100, "pgsteal_file"]), ratio(k[1, "pgsteal_file"], k[100, "pgsteal_file"])
    if ((100, "pgsteal_anon") in k && (200, "pgsteal_anon") in k)
        printf "row\tchecks\tLRU pgsteal_anon(200) / pgsteal_anon(100), kernel beside replay\t%s\t%s\t-\n", \
            ratio(m["classic", 200, "pgsteal_anon"], m["classic", 100, "pgsteal_anon"]), ratio(k[200, "pgsteal_anon"], k[100, "pgsteal_anon"])
    printf "note\tchecks\tA ratio is - where its denominator is 0 or the cell was not measured.\n"
}
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.4g", a / b) }'
}
exp_main swappiness "$@"

caps=()
if [ "$bundled" = 1 ]; then
    workload=compile
    for d in "$root"/traces/compile-sw*/; do caps+=("${d%/}"); done
else
    workload=kbuild
    find_caps() { for f in "$1"/kbuild-sw*/ctf.tar.xz; do [ -f "$f" ] && caps+=("${f%/ctf.tar.xz}"); done; true; }
    find_caps "$cache/kbuild"
    if [ ${#caps[@]} = 0 ] && [ -f /var/cache/vmreplay/kbuild/READY ]; then
        find_caps /var/cache/vmreplay/kbuild
    fi
    if [ ${#caps[@]} = 0 ]; then
        exp_say "capturing kbuild at swappiness 1, 100, 200 into $cache/kbuild (minutes each)"
        # A capture the memcg OOM killer ends is refused by sessions.sh
        # (so the series stops there): what it captured before is used.
        flock /run/vmreplay-capture.lock "$root/traces/sessions.sh" --reps 1 \
            --build "$build" --out "$cache/kbuild" kbuild ||
            exp_say "sessions.sh stopped (status $?): using the captures it made"
        find_caps "$cache/kbuild"
    fi
fi
[ ${#caps[@]} -gt 0 ] || exp_die "no $workload captures"
exp_say "${#caps[@]} $workload captures: ${caps[*]}"

sweep=$work/swappiness.sweep
sweep_file() {
    echo "# written by analysis/experiments/swappiness.sh"
    echo "trace-set $workload ${caps[*]}"
    echo "policy classic mglru mglru+swappiness"
    # swappiness: the default, 1 36 71 106 141 176 200 and the captured ones
    echo "memory-limit captured"
    echo "seed 1-3"
}
exp_to "$sweep" sweep_file
exp_sweep "$sweep" pgsteal_anon pgsteal_file pgscan_anon pgscan_file workingset_refault_anon workingset_refault_file stall_ns makespan_ns

# The kernel's counters of each capture, at the swappiness it ran at.
kern=$work/kernel.tsv
for c in "${caps[@]}"; do
    sw=$("$vmr" ingest -q -f json "$c" >/dev/null && "$vmr" run -f json --policy classic --deadline 1 "$c" |
         sed -n 's/.*"swappiness": \([0-9]*\).*/\1/p')
    exp_kernel classic "$c" | sed "s/^/$sw\t/"
done >"$kern.tmp"
mv -f "$kern.tmp" "$kern"

cells=$work/cells.tsv
exp_to "$cells" cells "${sweep%.sweep}.stats.tsv" "$kern"
exp_publish "$cells"
