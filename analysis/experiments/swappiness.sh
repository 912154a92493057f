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
# The captures: traces/kbuild-long.sh's (`make -j2 mm/ fs/ext4/` of
# Debian's linux-source-6.12, minutes, in a third of its peak but at least its largest compiler, zram; at
# swappiness 100 twice and once at 1, 36, 71, 106, 141, 176, 200) from $VMREPLAY_EXPERIMENTS/
# kbuild-long where that script made them (it is not run from here: its
# nine captures take half an hour).  Else traces/sessions.sh's
# kbuild (a Linux build subset from
# Debian's linux-source in a memcg of about a third of its peak), taken
# from $VMREPLAY_EXPERIMENTS/kbuild (default /var/cache/vmreplay/
# experiments/kbuild) and from /var/cache/vmreplay/kbuild when its
# READY file says a capture run finished there, else made by calling
# sessions.sh (root; under /run/vmreplay-capture.lock, one capture at a
# time), and one more at swappiness 176 (the paper's check) by the same
# command.  --bundled replays the committed compile-sw* sessions instead
# (make figures; no capture).  Both add, where the tree has them
# (traces/sessions/uml-6.12-{classic,mglru}/compile-*, or under
# $VMREPLAY_SESSIONS), the compile workload captured on Linux 6.12 in the
# test bed with MGLRU on and off: a set whose kernel rows have both
# columns, LRU and MGLRU, from the same kernel (the MGLRU captures are
# replayed; the classic ones give their counters).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# cells STATS.tsv KERNEL.tsv: the tables in table.sh's line format, from
# the sweep's stats and the kernel's counters (SET, LRU or MGLRU, the
# swappiness, the counter and its value: a line per capture and counter),
# a group of tables per trace set.  --cells runs only this (tests/
# t_experiments.sh gives it fixtures).
cells() {
    exp_means "$1" | awk -F'\t' -v kfile="$2" -v seeds="${seeds:-3}" '
BEGIN {
    while ((getline l < kfile) > 0) {
        split(l, a, "\t")
        if (a[4] == "kernel") { kd[a[1], a[2]] = a[5]; continue }   # which kernel the column'\''s rows are
        ks[a[1], a[2], a[3], a[4]] += a[5]; kn[a[1], a[2], a[3], a[4]]++; ksw[a[1], a[3]] = 1
    }
    np = split("classic mglru mglru+swappiness", pol, " ")
    nm = split("pgsteal_anon pgsteal_file pgscan_anon pgscan_file workingset_refault_anon workingset_refault_file stall_ns makespan_ns", met, " ")
}
!($1 in seen) { seen[$1] = 1; sets[++nset] = $1 }
{ m[$1, $2, $3, $4] = $5; s[$1, $2, $3, $4] = $6; sw[$1, $3] = 1; have[$1, $4] = 1 }
# the kernel'\''s mean over the captures of SET in column C at swappiness N
function kv(w, c, n, x) { return ((w, c, n, x) in kn) ? ks[w, c, n, x] / kn[w, c, n, x] : "-" }
function sorted(w, from, out,   n, x, y, i, j, t) {
    n = 0; for (x in from) { split(x, y, SUBSEP); if (y[1] == w) out[++n] = y[2] + 0 }
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (out[j] < out[i]) { t = out[i]; out[i] = out[j]; out[j] = t }
    return n
}
END {
    for (e = 1; e <= nset; e++) {
        w = sets[e]; delete list; delete klist
        n = sorted(w, sw, list); nk = sorted(w, ksw, klist)
        for (q = 1; q <= nm; q++) {
            x = met[q]; id = w ":" x; unit = x ~ /_ns$/ ? "s" : "pages"
            if (!((w, x) in have)) continue   # not in these stats
            printf "title\t%s\t%s (%s), %s: replay means of the captures (%d seed%s each)%s\n", id, x, unit, w, seeds, seeds == 1 ? "" : "s", \
                unit == "s" || !nk ? "" : "; N (kernel): the captures at swappiness N, the mean of their kernel counters"
            printf "head\t%s\tSwappiness\tLRU\tMGLRU\tMGLRU+Patch\n", id
            for (i = 1; i <= n; i++) {
                printf "row\t%s\t%d", id, list[i]
                for (p = 1; p <= np; p++) {
                    v = ((w, pol[p], list[i], x) in m) ? m[w, pol[p], list[i], x] : "-"
                    if (unit == "s" && v != "-") v = sprintf("%.4g", v / 1e9)   # ns → s
                    printf "\t%s%s", v, s[w, pol[p], list[i], x] == 1 ? "*" : ""
                }
                printf "\n"
            }
            if (unit == "pages") for (i = 1; i <= nk; i++)
                printf "row\t%s\t%d (kernel)\t%s\t%s\t-\n", id, klist[i], kv(w, "LRU", klist[i], x), kv(w, "MGLRU", klist[i], x)
            printf "note\t%s\tLRU = classic, MGLRU = mglru, MGLRU+Patch = mglru+swappiness; * differs from its baseline (MGLRU vs LRU, MGLRU+Patch vs MGLRU), Holm-adjusted p < 0.05.\n", id
            if (unit == "pages" && nk) printf "note\t%s\tThe kernel rows: LRU %s; MGLRU %s.\n", id, \
                ((w, "LRU") in kd) ? kd[w, "LRU"] : "none", ((w, "MGLRU") in kd) ? kd[w, "MGLRU"] : "none"
        }
        # the acceptance checks of issue 12
        id = w ":checks"
        printf "title\t%s\tAcceptance checks (issue 12), %s\n", id, w
        printf "head\t%s\tcheck\treplay\tkernel\trequired\n", id
        check("LRU pgsteal_file(1) / pgsteal_file(176)", "classic", "LRU", "pgsteal_file", 1, 176, ">= 10")
        check("LRU pgsteal_anon(200) / pgsteal_anon(176)", "classic", "LRU", "pgsteal_anon", 200, 176, ">= 2")
        for (t = 1; t <= 2; t++) {
            x = "pgsteal_" (t == 1 ? "anon" : "file"); lo = ""; hi = ""; klo = ""; khi = ""
            for (i = 1; i <= n; i++) { v = m[w, "mglru", list[i], x]; if (lo == "" || v < lo) lo = v; if (hi == "" || v > hi) hi = v }
            for (i = 1; i <= nk; i++) { v = kv(w, "MGLRU", klist[i], x); if (v == "-") continue
                                        if (klo == "" || v < klo) klo = v; if (khi == "" || v > khi) khi = v }
            printf "row\t%s\tMGLRU %s max / min over swappiness\t%s\t%s\t<= 3\n", id, x, ratio(hi, lo), ratio(khi, klo)
        }
        check("MGLRU+Patch pgsteal_file(200) / pgsteal_file(1)", "mglru+swappiness", "-", "pgsteal_file", 200, 1, "<= 0.05")
        # the same ratios between the swappiness values the kernel ran at
        for (i = 1; i <= nk; i++) if (klist[i] != 1 && klist[i] != 176)
            check(sprintf("LRU pgsteal_file(1) / pgsteal_file(%d)", klist[i]), "classic", "LRU", "pgsteal_file", 1, klist[i], "-", 1)
        for (i = 1; i <= nk; i++) for (j = 1; j <= nk; j++) if (klist[j] > klist[i] && klist[i] != 1 && !(klist[j] == 200 && klist[i] == 176))
            check(sprintf("LRU pgsteal_anon(%d) / pgsteal_anon(%d)", klist[j], klist[i]), "classic", "LRU", "pgsteal_anon", klist[j], klist[i], "-", 1)
        printf "note\t%s\tkernel: the same ratio of the captures'\'' own counters (the means at each swappiness; over the swappiness values they ran at). A ratio is - where its denominator is 0 or the cell was not measured.\n", id
    }
}
function ratio(a, b) { return (a == "" || a == "-" || b == "" || b == "-" || b + 0 == 0) ? "-" : sprintf("%.4g", a / b) }
# check(LABEL, POLICY, COLUMN, METRIC, A, B, REQUIRED[, ONLY_KERNEL]): the
# replay'\''s and the kernel'\''s (its COLUMN) METRIC(A) / METRIC(B); a row of a
# kernel pair only where the kernel measured both.
function check(label, p, c, x, a, b, req, only,   kr) {
    kr = ratio(kv(w, c, a, x), kv(w, c, b, x))
    if (only && kr == "-") return
    printf "row\t%s\t%s\t%s\t%s\t%s\n", id, label, ratio(m[w, p, a, x], m[w, p, b, x]), kr, req
}'
}
exp_main swappiness "$@"

# The trace sets: NAME, and per capture its folder, the column its
# kernel's counters go to (LRU: a classic kernel, MGLRU: an MGLRU one),
# which kernel that was, and 1 for a capture whose counters only are used
# (not replayed).
set_names=() caps=() cols=() sets=() descs=() konly=()
add_set() { set_names+=("$1"); }
add_cap() { caps+=("$2") cols+=("$3") sets+=("$1") descs+=("$4") konly+=("${5:-0}"); }

caps_host=()
if [ "$bundled" = 1 ]; then
    add_set compile
    for d in "$root"/traces/compile-sw*/; do add_cap compile "${d%/}" LRU "this machine's classic LRU (traces/compile-sw*)"; done
else
    names=()
    # find_caps DIR: its kbuild-swN-R captures (a folder with ctf.tar.xz,
    # as sessions.sh keeps them, or a capture's own kernel/ and ust/),
    # those of a name not found already.
    find_caps() {
        local d n
        for d in "$1"/kbuild-sw*/; do
            d=${d%/} n=${d##*/}
            [ -f "$d/ctf.tar.xz" ] || [ -d "$d/kernel" ] || continue
            [[ " ${names[*]:-} " == *" $n "* ]] && continue
            caps_host+=("$d") names+=("$n")
        done
    }
    # sw176_readme LIMIT CMD: how the capture at 176 was made (the form
    # sessions.sh gives its captures' READMEs).
    sw176_readme() {
        echo "# kbuild-sw176-1"
        echo
        echo "Workload \`kbuild\` at swappiness 176 (analysis/experiments/swappiness.sh), the command"
        echo "and limit of ${caps_host[0]##*/}:"
        echo
        echo "    build/vmreplay capture -o OUT --limit $1 --swappiness 176 -- \\"
        echo "        $2"
        echo
        echo "made $(date -u '+%Y-%m-%d %H:%M UTC') from vmreplay $(git -C "$root" rev-parse --short HEAD). Capture output:"
        echo
        sed 's/^/    /' "$cache/kbuild/kbuild-sw176-1.log"
    }
    # The build at realistic scale (traces/kbuild-long.sh: minutes, in a
    # third of its peak, at least its largest compiler, zram) where its captures are: they replace the
    # short subset, whose three compilers are anon-bound.
    for d in "$cache/kbuild-long"/kbuild-long-sw*/; do
        [ -d "$d/kernel" ] && caps_host+=("${d%/}")
    done
    long=0
    if [ ${#caps_host[@]} -gt 0 ]; then
        long=1
    else
        find_caps "$cache/kbuild"
        [ -f /var/cache/vmreplay/kbuild/READY ] && find_caps /var/cache/vmreplay/kbuild
    fi
    if [ ${#caps_host[@]} = 0 ]; then
        exp_say "capturing kbuild at swappiness 1, 100, 200 into $cache/kbuild (minutes each)"
        # A capture the memcg OOM killer ends is refused by sessions.sh
        # (so the series stops there): what it captured before is used.
        # One host capture at a time: under the capture lock, unless
        # sessions.sh takes it per capture itself (a second flock of the
        # same file from its child would wait for ever).
        lock=(flock /run/vmreplay-capture.lock)
        grep -q 'vmreplay-capture\.lock' "$root/traces/sessions.sh" && lock=()
        "${lock[@]}" "$root/traces/sessions.sh" --reps 1 --build "$build" --out "$cache/kbuild" kbuild ||
            exp_say "sessions.sh stopped (status $?): using the captures it made"
        find_caps "$cache/kbuild"
    fi
    # The paper's classic check compares swappiness 1 with 176, where
    # sessions.sh captures none: the kernel's own row at 176 says whether
    # a ratio the replay lacks is the model's or the workload's.  The
    # command the first capture ran (its README, as sessions.sh writes
    # it: the line after "vmreplay capture ... -- \"), at its limit.
    cmd=$(awk '/vmreplay capture .* -- \\$/ { getline; sub(/^ +/, ""); print; exit }' "${caps_host[0]:-/dev/null}/README.md" 2>/dev/null || true)
    if [ "$long" = 0 ] && [ -n "$cmd" ] && [[ " ${names[*]} " != *" kbuild-sw176-"* ]]; then
        limit=$("$vmr" run -f json --policy classic "${caps_host[0]}" | sed -n 's/.*"memory_limit": \([0-9]*\).*/\1/p')
        exp_say "capturing kbuild at swappiness 176 into $cache/kbuild (limit $limit bytes): $cmd"
        mkdir -p "$cache/kbuild"
        rm -rf "$cache/kbuild/kbuild-sw176-1"
        # shellcheck disable=SC2086
        if flock /run/vmreplay-capture.lock "$vmr" capture -o "$cache/kbuild/kbuild-sw176-1" \
            --limit "$limit" --swappiness 176 -- $cmd \
            >"$cache/kbuild/kbuild-sw176-1.log" 2>&1; then
            sw176_readme "$limit" "$cmd" >"$cache/kbuild/kbuild-sw176-1/README.md"
            find_caps "$cache/kbuild"
        else
            exp_say "the capture at 176 failed (status $?; $cache/kbuild/kbuild-sw176-1.log): without it"
            rm -rf "$cache/kbuild/kbuild-sw176-1"
        fi
    fi
    [ ${#caps_host[@]} -gt 0 ] || exp_die "no kbuild captures"
    [ "$long" = 1 ] && kset=kbuild-long || kset=kbuild
    add_set $kset
    for c in "${caps_host[@]}"; do add_cap $kset "$c" LRU "this machine's classic LRU, Linux $(uname -r)"; done
fi
# The same workload (compile) on Linux 6.12 in the test bed, MGLRU on and
# off (traces/sessions/uml-6.12-*, traces/uml-sessions.sh): both kernels'
# rows beside the replay, where no kbuild capture can give MGLRU's (the
# test bed sees the kernel tree read-only).
sessions=${VMREPLAY_SESSIONS:-$root/traces/sessions}
uml=()
for lru in classic:LRU mglru:MGLRU; do
    for d in "$sessions/uml-6.12-${lru%:*}"/compile-sw*/; do
        [ -f "$d/ctf.tar.xz" ] && uml+=("${d%/}:${lru#*:}")
    done
done
if [ ${#uml[@]} -gt 0 ]; then
    add_set compile-6.12
    # The replay's demand: the MGLRU kernel's captures (the classic ones,
    # of the same names, give their counters only).
    for u in "${uml[@]}"; do
        [ "${u##*:}" = LRU ] && k="Linux 6.12 in the test bed, lru_gen off" || k="Linux 6.12 in the test bed, MGLRU"
        add_cap compile-6.12 "${u%:*}" "${u##*:}" "$k" "$([ "${u##*:}" = LRU ] && echo 1 || echo 0)"
    done
fi
exp_say "${#caps[@]} captures in ${#set_names[@]} sets: ${set_names[*]}"

# Seeds per capture (they only jitter the devices' latencies; the
# captures are the replicates): 3, or VMREPLAY_SWAPPINESS_SEEDS.
seeds=${VMREPLAY_SWAPPINESS_SEEDS:-3}
sweep=$work/swappiness.sweep
sweep_file() {
    local n i list
    echo "# written by analysis/experiments/swappiness.sh"
    for n in "${set_names[@]}"; do
        list=""
        for i in "${!caps[@]}"; do [ "${sets[$i]}" = "$n" ] && [ "${konly[$i]}" = 0 ] && list+=" ${caps[$i]}"; done
        echo "trace-set $n$list"
    done
    echo "policy classic mglru mglru+swappiness"
    # swappiness: the default, 1 36 71 106 141 176 200 and the captured ones
    echo "memory-limit captured"
    [ "$seeds" = 1 ] && echo "seed 1" || echo "seed 1-$seeds"
}
exp_to "$sweep" sweep_file
exp_sweep "$sweep" pgsteal_anon pgsteal_file pgscan_anon pgscan_file workingset_refault_anon workingset_refault_file stall_ns makespan_ns

# The kernel's counters of each capture, at the swappiness it ran at.
kernel_file() {
    local i sw p
    for i in "${!caps[@]}"; do
        [ "${cols[$i]}" = LRU ] && p=classic || p=mglru
        sw=$("$vmr" run -f json --policy "$p" --deadline 1 "${caps[$i]}" |
             sed -n 's/.*"swappiness": \([0-9]*\).*/\1/p')
        exp_kernel "$p" "${caps[$i]}" | sed "s/^/${sets[$i]}\t${cols[$i]}\t$sw\t/"
        printf '%s\t%s\t-\tkernel\t%s\n' "${sets[$i]}" "${cols[$i]}" "${descs[$i]}"
    done
}
kern=$work/kernel.tsv
exp_to "$kern" kernel_file

cells=$work/cells.tsv
exp_to "$cells" cells "${sweep%.sweep}.stats.tsv" "$kern"
exp_publish "$cells"
