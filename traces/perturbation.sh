#!/bin/bash
# traces/perturbation.sh [--reps N] [--swappiness N] [--out FILE] [--build DIR]
#                        [--capture-opt OPT]... [WORKLOAD...]
#
# How much `vmreplay capture` changes the session it records: every
# WORKLOAD of traces/sessions.sh (default: compile reader mix churn
# mt-anon) runs REPS times captured and REPS times with --no-trace, the
# two interleaved (so that a drift of the machine hits both alike), with
# the limit and command sessions.sh gives it.  Per run: the workload's
# run time (the capture's own "workload ended after" line) and the
# reclaim counters' change in /proc/vmstat over the run (this machine's
# 24 GiB never reclaim but for the capture's cgroup).  Writes one TSV row
# per run to FILE (default perturbation.tsv) and prints, per workload,
# the median run time of each mode, the workload's user and system CPU
# time in each (what the machine's other load does not change: tracing in
# the workload's context shows in its system time), the agent's own CPU
# time while the workload ran, and the captured counters' medians against
# the --no-trace min-max.  Needs root; each run holds
# /run/vmreplay-capture.lock.
#
#   --reps N           runs per mode (default 3)
#   --swappiness N     (default 100)
#   --capture-opt OPT  passed to every run of both modes (e.g. --period=1000)
set -eu
reps=3 sw=100 out=perturbation.tsv build=build copts=()
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --swappiness) sw=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --capture-opt) copts+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*) echo "perturbation.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
vmr=$root/$build/vmreplay
[ -x "$vmr" ] || { echo "perturbation.sh: build first: make" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "perturbation.sh: needs root" >&2; exit 1; }
workloads=${*:-compile reader mix churn mt-anon}
# shellcheck source=traces/workloads.sh
. "$root/traces/workloads.sh"
workload_inputs "$workloads"
counters="pgscan_anon pgscan_file pgsteal_anon pgsteal_file workingset_refault_anon workingset_refault_file pswpin pswpout"
snap_vmstat() {
    awk -v want="$counters" '{v[$1] = $2} END {n = split(want, c, " "); for (i = 1; i <= n; i++) printf "%s ", v[c[i]] + 0}' /proc/vmstat
}
# Every run holds the capture lock (host captures never overlap).
exec 9>/run/vmreplay-capture.lock
tmp=$(mktemp -d /var/tmp/vmreplay-perturb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf 'workload\tmode\trun\tseconds' >"$out.tmp"
for c in $counters; do printf '\t%s' "$c"; done >>"$out.tmp"
printf '\twl_user_s\twl_sys_s\tagent_cpu_s\n' >>"$out.tmp"
for wl in $workloads; do
    for r in $(seq "$reps"); do
        for mode in capture no-trace; do
            opt=()
            [ "$mode" = no-trace ] && opt=(--no-trace)
            rm -rf "$tmp/cap"
            drop_inputs
            # shellcheck disable=SC2046
            flock 9
            before=$(snap_vmstat)
            st=0
            "$vmr" capture "${opt[@]}" "${copts[@]}" -o "$tmp/cap" --limit "$(limit_of "$wl")" \
                --swappiness "$sw" -- $(command_of "$wl") >"$tmp/log" 2>&1 || st=$?
            after=$(snap_vmstat)
            flock -u 9
            # The memcg OOM killer may end a run, captured or not: it is
            # counted, not measured.
            if [ "$st" = 137 ] && grep -q 'workload killed after' "$tmp/log"; then
                printf '%s\t%s\t%d\tkilled\n' "$wl" "$mode" "$r" >>"$out.tmp"
                echo "== $wl $mode $r: killed (memcg OOM)" >&2
                continue
            fi
            [ "$st" = 0 ] || { cat "$tmp/log" >&2; echo "perturbation.sh: $wl ($mode) failed" >&2; exit 1; }
            secs=$(sed -n 's/.*workload ended after \([0-9.]*\) s (status 0).*/\1/p' "$tmp/log")
            [ -n "$secs" ] || { cat "$tmp/log" >&2; echo "perturbation.sh: $wl ($mode): no run time" >&2; exit 1; }
            if [ "$mode" = capture ] && ! grep -q 'discarded events: 0 (LTTng), 0 (ftrace)' "$tmp/log"; then
                cat "$tmp/log" >&2; echo "perturbation.sh: $wl: events were discarded" >&2; exit 1
            fi
            read -ra b <<<"$before"
            read -ra a <<<"$after"
            printf '%s\t%s\t%d\t%s' "$wl" "$mode" "$r" "$secs" >>"$out.tmp"
            for i in "${!a[@]}"; do printf '\t%d' $((a[i] - b[i])); done >>"$out.tmp"
            # the workload's CPU time (both modes; the machine's other load
            # leaves it alone) and the agent's (captured runs)
            usr=$(sed -n 's/.*the workload used \([0-9.]*\) s user, \([0-9.]*\) s system.*/\1/p' "$tmp/log")
            sys=$(sed -n 's/.*the workload used \([0-9.]*\) s user, \([0-9.]*\) s system.*/\2/p' "$tmp/log")
            cpu=$(sed -n 's/.*the agent used \([0-9.]*\) s of CPU.*/\1/p' "$tmp/log")
            printf '\t%s\t%s\t%s\n' "${usr:--}" "${sys:--}" "${cpu:--}" >>"$out.tmp"
            echo "== $wl $mode $r: $secs s" >&2
        done
    done
done
mv "$out.tmp" "$out"
# Per workload: run time medians and overhead; per counter the captured
# median against the uncaptured min-max.
awk -F'\t' '
NR == 1 { for (i = 4; i <= NF; i++) name[i] = $i; nf = NF - 3; next }
$4 == "killed" { killed[$1 SUBSEP $2]++; next }
{ k = $1 SUBSEP $2; n[k]++; for (i = 4; i <= NF; i++) v[k, i, n[k]] = $i; wl[$1] = 1 }
function med(k, i,   m, j, a, t, x, y) {
    m = n[k]; for (j = 1; j <= m; j++) a[j] = v[k, i, j] + 0
    for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
function ext(k, i, lo,   m, j, r) {
    m = n[k]; r = v[k, i, 1] + 0
    for (j = 2; j <= m; j++) if (lo ? v[k, i, j] + 0 < r : v[k, i, j] + 0 > r) r = v[k, i, j] + 0
    return r
}
END {
    for (w in wl) {
        c = w SUBSEP "capture"; u = w SUBSEP "no-trace"
        tc = med(c, 4); tu = med(u, 4)
        printf "%s: run time %.3f s captured, %.3f s [%.3f-%.3f] not: %+.0f%% (OOM-killed: %d captured, %d not)\n",
            w, tc, tu, ext(u, 4, 1), ext(u, 4, 0), (tu > 0 ? 100 * (tc - tu) / tu : 0), killed[c], killed[u]
        printf "    workload CPU: user %.3f s captured, %.3f s [%.3f-%.3f] not; system %.3f s captured, %.3f s [%.3f-%.3f] not; the agent %.3f s\n",
            med(c, nf + 1), med(u, nf + 1), ext(u, nf + 1, 1), ext(u, nf + 1, 0),
            med(c, nf + 2), med(u, nf + 2), ext(u, nf + 2, 1), ext(u, nf + 2, 0), med(c, nf + 3)
        for (i = 5; i <= nf; i++) {
            lo = ext(u, i, 1); hi = ext(u, i, 0); m = med(c, i)
            printf "    %-24s captured %8d [%d-%d]  not %8d [%d-%d]  %s\n", name[i], m, ext(c, i, 1),
                ext(c, i, 0), med(u, i), lo, hi, ((m >= lo && m <= hi) ? "inside" : "OUTSIDE")
        }
    }
}' "$out"
