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
# experiments/kbuild) and from /var/cache/vmreplay/kbuild when its
# READY file says a capture run finished there, else made by calling
# sessions.sh (root; under /run/vmreplay-capture.lock, one capture at a
# time), and one more at swappiness 176 (the paper's check) by the same
# command.  --bundled replays the committed compile-sw* sessions instead
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
    check("LRU pgsteal_file(1) / pgsteal_file(176)", "classic", "pgsteal_file", 1, 176, ">= 10")
    check("LRU pgsteal_anon(200) / pgsteal_anon(176)", "classic", "pgsteal_anon", 200, 176, ">= 2")
    for (t = 1; t <= 2; t++) {
        ty = t == 1 ? "anon" : "file"; lo = ""; hi = ""
        for (i = 1; i <= n; i++) { v = m["mglru", list[i], "pgsteal_" ty]; if (lo == "" || v < lo) lo = v; if (hi == "" || v > hi) hi = v }
        printf "row\tchecks\tMGLRU pgsteal_%s max / min over swappiness\t%s\t-\t<= 3\n", ty, ratio(hi, lo)
    }
    check("MGLRU+Patch pgsteal_file(200) / pgsteal_file(1)", "mglru+swappiness", "pgsteal_file", 200, 1, "<= 0.05")
    # the same ratios between the swappiness values the kernel ran at
    for (i = 1; i <= nk; i++) if (klist[i] != 1 && klist[i] != 176)
        check(sprintf("LRU pgsteal_file(1) / pgsteal_file(%d)", klist[i]), "classic", "pgsteal_file", 1, klist[i], "-", 1)
    for (i = 1; i <= nk; i++) for (j = 1; j <= nk; j++) if (klist[j] > klist[i] && klist[i] != 1 && !(klist[j] == 200 && klist[i] == 176))
        check(sprintf("LRU pgsteal_anon(%d) / pgsteal_anon(%d)", klist[j], klist[i]), "classic", "pgsteal_anon", klist[j], klist[i], "-", 1)
    printf "note\tchecks\tkernel: the same ratio of the captures'\'' own counters (LRU: this machine'\''s classic kernel). A ratio is - where its denominator is 0 or the cell was not measured.\n"
}
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.4g", a / b) }
# check(LABEL, POLICY, METRIC, A, B, REQUIRED[, ONLY_KERNEL]): the replay'\''s
# and the kernel'\''s METRIC(A) / METRIC(B); a row of a kernel pair only
# where the kernel measured both.
function check(label, p, x, a, b, req, only,   kr) {
    kr = ((a, x) in k && (b, x) in k) ? ratio(k[a, x], k[b, x]) : "-"
    if (only && kr == "-") return
    printf "row\tchecks\t%s\t%s\t%s\t%s\n", label, ratio(m[p, a, x], m[p, b, x]), p == "classic" ? kr : "-", req
}'
}
exp_main swappiness "$@"

caps=()
if [ "$bundled" = 1 ]; then
    workload=compile
    for d in "$root"/traces/compile-sw*/; do caps+=("${d%/}"); done
else
    workload=kbuild names=()
    # find_caps DIR: its kbuild-swN-R captures (a folder with ctf.tar.xz,
    # as sessions.sh keeps them, or a capture's own kernel/ and ust/),
    # those of a name not found already.
    find_caps() {
        local d n
        for d in "$1"/kbuild-sw*/; do
            d=${d%/} n=${d##*/}
            [ -f "$d/ctf.tar.xz" ] || [ -d "$d/kernel" ] || continue
            [[ " ${names[*]:-} " == *" $n "* ]] && continue
            caps+=("$d") names+=("$n")
        done
    }
    find_caps "$cache/kbuild"
    [ -f /var/cache/vmreplay/kbuild/READY ] && find_caps /var/cache/vmreplay/kbuild
    if [ ${#caps[@]} = 0 ]; then
        exp_say "capturing kbuild at swappiness 1, 100, 200 into $cache/kbuild (minutes each)"
        # A capture the memcg OOM killer ends is refused by sessions.sh
        # (so the series stops there): what it captured before is used.
        flock /run/vmreplay-capture.lock "$root/traces/sessions.sh" --reps 1 \
            --build "$build" --out "$cache/kbuild" kbuild ||
            exp_say "sessions.sh stopped (status $?): using the captures it made"
        find_caps "$cache/kbuild"
    fi
    # The paper's classic check compares swappiness 1 with 176, where
    # sessions.sh captures none: the kernel's own row at 176 says whether
    # a ratio the replay lacks is the model's or the workload's.  The same
    # command (sessions.sh's kbuild.sh) at the limit of the first capture.
    if [ ${#caps[@]} -gt 0 ] && [[ " ${names[*]} " != *" kbuild-sw176-"* ]]; then
        limit=$("$vmr" run -f json --policy classic "${caps[0]}" | sed -n 's/.*"memory_limit": \([0-9]*\).*/\1/p')
        exp_say "capturing kbuild at swappiness 176 into $cache/kbuild (limit $limit bytes)"
        mkdir -p "$cache/kbuild"
        rm -rf "$cache/kbuild/kbuild-sw176-1"
        if flock /run/vmreplay-capture.lock "$vmr" capture -o "$cache/kbuild/kbuild-sw176-1" \
            --limit "$limit" --swappiness 176 -- /var/cache/vmreplay/w/kbuild.sh \
            >"$cache/kbuild/kbuild-sw176-1.log" 2>&1; then
            find_caps "$cache/kbuild"
        else
            exp_say "the capture at 176 failed (status $?; $cache/kbuild/kbuild-sw176-1.log): without it"
            rm -rf "$cache/kbuild/kbuild-sw176-1"
        fi
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
