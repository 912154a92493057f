#!/bin/bash
# analysis/RESULTS.md defines every column and metric the tool writes: the
# run result of lru and of the kernel policies, --events/--timeline/--tasks,
# a sweep's plan, stats (with the derived metrics), analyze -f tsv and
# compare -f tsv, all taken from real output here.
. "$(dirname "$0")/tap.sh"
build=${1:-build}
vmr=$PWD/$build/vmreplay
doc=analysis/RESULTS.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export VMREPLAY_CACHE=$tmp/cache

# defined NAME... : those of the names not written as `NAME` in the doc.
undefined() {
    local n out=""
    for n in "$@"; do
        grep -qF -- "\`$n\`" "$doc" || out="$out $n"
    done
    echo "$out"
}
header() { head -1 "$1" | tr '\t' '\n'; }
# check_names WHAT FILE-OF-NAMES
check_names() {
    local missing
    missing=$(undefined $(sort -u "$2"))
    check "RESULTS.md defines every $1 ($(sort -u "$2" | wc -l))${missing:+ (not:$missing)}" \
        test -s "$2" -a -z "$missing"
}

t=traces/build-like-small/ctf
"$vmr" run -q -p lru -m 16M -f tsv "$t" >"$tmp/lru.tsv"
header "$tmp/lru.tsv" >"$tmp/n"
check_names "column of an lru result" "$tmp/n"

: >"$tmp/n"
for p in classic mglru; do
    "$vmr" run -q -p $p --memory-limit 16M -f tsv --events "$tmp/ev.tsv" \
        --timeline "$tmp/tl.tsv" --tasks "$tmp/tasks.tsv" "$t" >"$tmp/k.tsv"
    header "$tmp/k.tsv" >>"$tmp/n"
done
check_names "column of a kernel policy's result" "$tmp/n"
header "$tmp/ev.tsv" >"$tmp/n"; check_names "column of --events" "$tmp/n"
header "$tmp/tl.tsv" >"$tmp/n"; check_names "column of --timeline" "$tmp/n"
header "$tmp/tasks.tsv" >"$tmp/n"; check_names "column of --tasks" "$tmp/n"

# A small sweep: its plan, and stats with every derived metric.
cat >"$tmp/s.sweep" <<EOF
trace        $PWD/$t
policy       lru classic
swappiness   60
memory-limit 50%
seed         1 2
EOF
"$vmr" sweep -q -j2 "$tmp/s.sweep" >/dev/null 2>"$tmp/err"
check "the sweep runs" test $? -eq 0
header "$tmp/s.results/plan.tsv" >"$tmp/n"; check_names "column of plan.tsv" "$tmp/n"
"$vmr" stats "$tmp/s.results" >"$tmp/stats.tsv"
header "$tmp/stats.tsv" >"$tmp/n"; check_names "column of stats" "$tmp/n"
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "metric") m = i; next } { print $m }' \
    "$tmp/stats.tsv" >"$tmp/n"
check_names "metric of stats, derived ones included" "$tmp/n"
for d in steal_scan_ratio refaults_per_steal reclaim_work; do
    check "stats has the derived metric $d" grep -qx "$d" "$tmp/n"
done

# analyze: of a captured session (every metric), and of the replay's records.
"$vmr" analyze -q -f tsv traces/reader-sw100 >"$tmp/an.tsv"
"$vmr" analyze -q -f tsv "$tmp/ev.tsv" >>"$tmp/an.tsv"
{ cut -f1 "$tmp/an.tsv"; cut -f3 "$tmp/an.tsv"; } | grep -vx 'table\|metric' >"$tmp/n"
check_names "table and metric of analyze -f tsv" "$tmp/n"

"$vmr" compare -q -p classic -f tsv traces/reader-sw100 >"$tmp/cmp.tsv"
{ header "$tmp/cmp.tsv"; sed 1d "$tmp/cmp.tsv" | cut -f1; sed 1d "$tmp/cmp.tsv" | cut -f3 | grep -vx -- -; } >"$tmp/n"
check_names "column, section and statistic of compare -f tsv" "$tmp/n"
sed 1d "$tmp/cmp.tsv" | awk -F'\t' '$1 == "counter" { print $2 }' >"$tmp/n"
check_names "counter of compare" "$tmp/n"
