#!/bin/bash
# capture/testbed/damon-session.sh [--kernel K] [--out DIR] [--build DIR]
#
# The DAMON-monitored session of the test bed: an instrumented workload
# (build/workloads/anon-storm: two threads storing to a 32 MiB set whose
# first 4 MiB get 90% of the touches) captured in the guest with DAMON
# vaddr on its process, in a cgroup it never fills (no reclaim: every page
# the workload touched stays resident, so the page references the DAMON
# expansion rule makes are comparable with the workload's own).  The trace
# holds both: the exact LTTng-UST stream (vmreplay:anon_access) and DAMON's
# damon_aggregated regions.  build/testbed/damon-check (damon_check.c)
# scores the rule of replay/ingest/damon.c against the stream.  Writes DIR (default
# traces/damon/uml-6.12-anon-storm) whole: ctf.tar.xz and README.md with
# the score.  Takes the test bed's lock for the guest's boot.
set -eu
kernel=6.12 out="" build=build
while [ $# -gt 0 ]; do
    case $1 in
    --kernel) kernel=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "damon-session.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${out:-traces/damon/uml-$(basename "$kernel")-anon-storm}
vmr=$root/$build/vmreplay
[ -x "$vmr" ] && [ -x "$build/workloads/anon-storm" ] && [ -x "$build/testbed/damon-check" ] || { echo "damon-session.sh: build first: make" >&2; exit 1; }
# DAMON's defaults in vmreplay capture (sample, aggregation in us) and the
# rule's passes (damon.h: DAMON_DEFAULT_*)
sample=5000 aggr=100000 max_passes=4 hot_mb=4
wl=("$build/workloads/anon-storm" -t 2 -m 32 -r 4 --hot-mb $hot_mb --hot-pct 90 -n 0 -d 8)
tmp=$(mktemp -d /var/tmp/vmreplay-damon.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
flock /run/vmreplay-testbed.lock "$vmr" capture --kernel "$kernel" --swap zram -o "$tmp/cap" --limit 256M -s 100 \
    --damon-intervals $sample,$aggr,1000000 -- "${wl[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
grep -q 'discarded events: 0 (LTTng), 0 (ftrace)' "$tmp/log" || { cat "$tmp/log" >&2; echo "damon-session.sh: events were discarded" >&2; exit 1; }
ctf=$tmp/cap/ust/uid/0/64-bit
babeltrace2 --clock-cycles "$ctf" >"$tmp/text"
"$build/testbed/damon-check" "$tmp/text" $sample $aggr $max_passes $hot_mb >"$tmp/score"
stage=$tmp/out
mkdir -p "$stage"
tar -C "$ctf" -cf - . | xz -9 -T2 >"$stage/ctf.tar.xz"
{
    echo "# The DAMON expansion rule against an exact stream (test bed, $kernel)"
    echo
    echo "capture/testbed/damon-session.sh made this session: an instrumented workload"
    echo "in the test bed's guest, DAMON vaddr on its process, no reclaim (256 MiB"
    echo "limit), so the trace holds the workload's exact access stream and DAMON's"
    echo "regions of the same run:"
    echo
    echo "    build/vmreplay capture --kernel $kernel --swap zram -o OUT --limit 256M -s 100 \\"
    echo "        --damon-intervals $sample,$aggr,1000000 -- ${wl[*]}"
    echo
    echo "build/testbed/damon-check (capture/testbed/damon_check.c) scores, per DAMON"
    echo "aggregation interval, the page references that replay/ingest/damon.c's rule"
    echo "makes of the regions (k = min($max_passes, ceil(a * $max_passes / N)) passes, each over the"
    echo "resident pages of a window of ceil(S * a / N) of the region's S pages,"
    echo "damon_window) and those the previous rule made (the same passes, each over"
    echo "every resident page of the region) against those the stream made in the"
    echo "interval (hot part: the set's first $hot_mb MiB):"
    echo
    sed 's/^/    /' "$tmp/score"
    echo
    echo "made $(date -u '+%Y-%m-%d %H:%M UTC') from vmreplay $(git rev-parse --short HEAD). Capture output:"
    echo
    sed 's/^/    /' "$tmp/log" | sed "s|$tmp|/var/tmp/vmreplay-damon|g"
} >"$stage/README.md"
rm -rf "$out.new"
mkdir -p "$(dirname "$out")"
mv "$stage" "$out.new"
rm -rf "$out"
mv "$out.new" "$out"
echo "damon-session.sh: $out" >&2
cat "$tmp/score"
