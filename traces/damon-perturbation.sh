#!/bin/bash
# traces/damon-perturbation.sh [--reps N] [--swappiness "N..."] [--lru-gen "y n"]
#                              [--out FILE] [--keep DIR] [--build DIR] [WORKLOAD]
#
# Does DAMON change the session it records in the test bed?  The guest
# has one CPU, which kdamond shares with the workload, and DAMON vaddr's
# sampling clears the accessed bit of the pages it samples
# (damon_ptep_mkold, mm/damon/ops-common.c: it moves the bit to the
# folio's PG_young, which folio_referenced reads, but MGLRU's page-table
# walk and look-around read only the PTE; under UML an old PTE is also
# mapped without access on the host, so the next touch faults).  WORKLOAD
# (default compile, traces/sessions.sh's test-bed workload) runs REPS
# times with DAMON (the default capture) and REPS times with --no-damon,
# interleaved, at each swappiness and lru_gen setting, every capture
# under the test bed's lock.  Per capture, one TSV row to FILE (default
# damon-perturbation.tsv): the run time, the agent's CPU time, DAMON's
# page references (ingest's metadata), and per counter the kernel's value
# and the replay's (vmreplay validate of that capture alone: classic, or
# the MGLRU it ran).  Then, per cell and counter, each arm's median
# [min-max], and "outside" when the DAMON arm's median lies outside the
# --no-damon min-max.  --keep DIR keeps the captures there.
set -eu
reps=6 sws="1 200" lrus="n y" out=damon-perturbation.tsv build=build keep=""
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --swappiness) sws=$2; shift 2 ;;
    --lru-gen) lrus=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*) echo "damon-perturbation.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
wl=${1:-compile}
root=$(cd "$(dirname "$0")/.." && pwd)
vmr=$root/$build/vmreplay
[ -x "$vmr" ] || { echo "damon-perturbation.sh: build first: make" >&2; exit 1; }
kernel=6.12
# shellcheck source=traces/workloads.sh
. "$root/traces/workloads.sh"
workload_inputs "$wl"
counters="pgscan_anon pgscan_file pgsteal_anon pgsteal_file workingset_refault_anon workingset_refault_file pgactivate pgfault pgmajfault"
margs=()
for c in $counters; do margs+=(-m "$c"); done
tmp=$(mktemp -d /var/tmp/vmreplay-damonpert.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export VMREPLAY_CACHE=$tmp/cache
printf 'lru_gen\tswappiness\tdamon\trun\tseconds\tagent_cpu_s\tdamon_refs' >"$out.tmp"
for c in $counters; do printf '\tkernel_%s\treplay_%s' "$c" "$c"; done >>"$out.tmp"
echo >>"$out.tmp"
for r in $(seq "$reps"); do
    for lg in $lrus; do
        for sw in $sws; do
            for arm in on off; do
                opt=()
                [ $arm = off ] && opt=(--no-damon)
                cap=$tmp/$wl-sw$sw-$r
                rm -rf "$cap"
                echo "== lru_gen $lg sw$sw DAMON $arm $r" >&2
                # shellcheck disable=SC2046
                flock /run/vmreplay-testbed.lock "$vmr" capture --kernel $kernel --lru-gen "$lg" --swap zram \
                    "${opt[@]}" -o "$cap" --limit "$(limit_of "$wl")" --swappiness "$sw" -- \
                    $(command_of "$wl") >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
                grep -q 'workload ended after .* (status 0)' "$tmp/log" ||
                    { cat "$tmp/log" >&2; echo "damon-perturbation.sh: the workload failed" >&2; exit 1; }
                secs=$(sed -n 's/.*workload ended after \([0-9.]*\) s.*/\1/p' "$tmp/log")
                agent=$(sed -n 's/.*the agent used \([0-9.]*\) s.*/\1/p' "$tmp/log")
                "$vmr" ingest -q -o "$tmp/v.vmr" "$cap" >/dev/null
                refs=$(strings "$tmp/v.vmr" | sed -n 's/^demand_damon\t.* \([0-9]*\) page references.*/\1/p')
                vals=$("$vmr" validate -q -f tsv "${margs[@]}" "$cap" | awk -F'\t' 'NR > 1 {printf "\t%s\t%s", $6, $10}')
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n' "$lg" "$sw" "$arm" "$r" "$secs" "$agent" "${refs:-0}" "$vals" >>"$out.tmp"
                if [ -n "$keep" ]; then
                    mkdir -p "$keep" && cp "$tmp/log" "$cap/capture.log" && mv "$cap" "$keep/$lg-sw$sw-$arm-$r"
                fi
                rm -rf "$cap" "$tmp/v.vmr"
            done
        done
    done
done
mv "$out.tmp" "$out"
# per lru_gen, swappiness and column: each arm's median [min-max]
echo "| lru_gen | swappiness | measure | DAMON on: median [min-max] | --no-damon: median [min-max] | on outside off |"
echo "|---|---|---|---|---|---|"
awk -F'\t' '
function med(s,   n, v, i, j, t) {
    n = split(s, v, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    lo = v[1]; hi = v[n]
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
NR == 1 { for (i = 5; i <= NF; i++) name[i] = $i; nf = NF; next }
{ k = $1 SUBSEP $2; cells[k] = 1; for (i = 5; i <= nf; i++) val[k, $3, i] = val[k, $3, i] " " $i }
END {
    for (k in cells) {
        split(k, p, SUBSEP)
        for (i = 5; i <= nf; i++) {
            mon = med(val[k, "on", i]); lon = lo; hon = hi
            moff = med(val[k, "off", i]); loff = lo; hoff = hi
            printf "| %s | %s | %s | %g [%g-%g] | %g [%g-%g] | %s |\n", p[1], p[2], name[i], mon, lon, hon,
                moff, loff, hoff, (mon < loff || mon > hoff) ? "**outside**" : "inside"
        }
    }
}' "$out" | sort -t'|' -k2,2 -k3,3n -s
echo "rows in $out" >&2
