#!/bin/bash
# bench.sh BUILD — speed targets (`make bench`).  Benchmarks, not tests:
# they print measured figures and say which targets were met; the exit
# status is 1 when a target is missed.
#
#   ingest:  vmreplay ingest takes at most 1.5x `babeltrace2 -c
#            sink.utils.dummy` on the same trace
#   lru:     the reference replay runs at least 30 M accesses/s on one core,
#            on a trace of at least 20 M accesses
#   mglru:   on the largest bundled trace (traces/*/ctf, by accesses) under
#            heavy pressure (a memcg limit of a third of its footprint),
#            replays at least half as many accesses/s as lru does on the
#            same trace with a third of its pages; classic is measured
#            beside it.  Rates come from --repeat (replays repeated in one
#            process): accesses x (N - 1) / (t(N) - t(1)), best of 3, so
#            process start and the trace's open and verification are out.
#
# The benchmark trace is captured once (anon-storm, about 20 M page
# accesses, ~50 MB of CTF) into BUILD/bench/ and reused.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
vmr=$root/$build/vmreplay
bench=$root/$build/bench
export VMREPLAY_CACHE=$bench/cache
mkdir -p "$bench"
missed=0
target() {  # NAME OK(1/0) TEXT
    if [ "$2" = 1 ]; then echo "bench: $1: target met ($3)"; else echo "bench: $1: TARGET MISSED ($3)"; missed=1; fi
}

# rate_of N ARGS...: accesses/s of one replay of $big with `run ARGS`,
# from the best of 3 of --repeat N against --repeat 1 (taskset: one core).
rate_of() {
    local n=$1 t1="" tn="" t0 t dt; shift
    for r in 1 "$n"; do
        local best=""
        for _ in 1 2 3; do
            t0=$(date +%s.%N)
            taskset -c 0 "$vmr" run -q "$@" --repeat "$r" -f tsv -o /dev/null "$big" >/dev/null 2>&1
            t=$(date +%s.%N); dt=$(echo "$t - $t0" | bc -l)
            if [ -z "$best" ] || [ "$(echo "$dt < $best" | bc -l)" = 1 ]; then best=$dt; fi
        done
        if [ "$r" = 1 ]; then t1=$best; else tn=$best; fi
    done
    echo "$big_accesses * ($n - 1) / ($tn - $t1)" | bc -l
}

# The largest bundled trace, ingested once.
big="" big_accesses=0 big_pages=0
for d in traces/*/ctf; do
    [ -d "$d" ] || continue
    j=$("$vmr" ingest -q -f json -o "$bench/bundled.vmr.tmp" "$d")
    a=$(sed -n 's/.*"accesses": \([0-9]*\).*/\1/p' <<<"$j")
    if [ "$a" -gt "$big_accesses" ]; then
        big_accesses=$a
        big_pages=$(sed -n 's/.*"pages": \([0-9]*\).*/\1/p' <<<"$j")
        big_name=$d
        mv -f "$bench/bundled.vmr.tmp" "$bench/bundled.vmr"
    fi
done
rm -f "$bench/bundled.vmr.tmp"
if [ "$big_accesses" -gt 0 ]; then
    big=$bench/bundled.vmr
    third=$(( big_pages / 3 ))
    limit="$(( big_pages * 4 / 3 ))K"
    echo "bench: largest bundled trace: $big_name, $big_accesses accesses, $big_pages pages; memcg limit $limit, lru $third pages"
    r_lru=$(rate_of 201 -p lru -n "$third")
    r_classic=$(rate_of 6 -p classic --memory-limit "$limit")
    r_mglru=$(rate_of 6 -p mglru --memory-limit "$limit")
    r_mglru_sw=$(rate_of 6 -p mglru+swappiness+iso-throttle --memory-limit "$limit")
    # For reference (no target): the engine with no limit, so no reclaim.
    r_classic_free=$(rate_of 21 -p classic --memory-limit 0)
    r_mglru_free=$(rate_of 21 -p mglru --memory-limit 0)
    for x in "lru:$r_lru" "classic:$r_classic" "mglru:$r_mglru" "mglru+swappiness+iso-throttle:$r_mglru_sw" \
             "classic, no limit (no reclaim):$r_classic_free" "mglru, no limit (no reclaim):$r_mglru_free"; do
        printf 'bench: %-32s %8.2f M accesses/s  (%.3f of lru)\n' "${x%%:*}" \
            "$(echo "${x#*:} / 1000000" | bc -l)" "$(echo "${x#*:} / $r_lru" | bc -l)"
    done
    target "classic >= 0.5x lru on the largest bundled trace under pressure" \
        "$(echo "$r_classic >= 0.5 * $r_lru" | bc -l)" "$(printf '%.3fx' "$(echo "$r_classic / $r_lru" | bc -l)")"
    target "mglru >= 0.5x lru on the largest bundled trace under pressure" \
        "$(echo "$r_mglru >= 0.5 * $r_lru" | bc -l)" "$(printf '%.3fx' "$(echo "$r_mglru / $r_lru" | bc -l)")"
fi

trace=$bench/storm/ust/uid/0/64-bit
if [ ! -f "$bench/storm.done" ]; then
    rm -rf "$bench/storm"
    echo "bench: capturing the benchmark trace (anon-storm, 2 threads, 1 GiB, 20 M page accesses)"
    capture/ust-capture.sh "$bench/storm" -- "$build/workloads/anon-storm" \
        --threads 2 --wss-mb 1024 --run-pages 16 --touches 625000 --seed 7 --vmstat-ms 0 \
        2>"$bench/capture.log" || { cat "$bench/capture.log"; exit 1; }
    touch "$bench/storm.done"
fi

# best_of N CMD...: the minimum wall time of N runs, in seconds.
best_of() {
    local n=$1 best="" t0 t1 dt; shift
    for _ in $(seq "$n"); do
        t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
        dt=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$dt < $best" | bc -l)" = 1 ]; then best=$dt; fi
    done
    echo "$best"
}

"$vmr" ingest -q --no-cache -f json -o "$bench/storm.vmr" "$trace" >"$bench/ingest.json"
events=$(sed -n 's/.*"events": \([0-9]*\).*/\1/p' "$bench/ingest.json")
accesses=$(sed -n 's/.*"accesses": \([0-9]*\).*/\1/p' "$bench/ingest.json")
pages=$(sed -n 's/.*"pages": \([0-9]*\).*/\1/p' "$bench/ingest.json")
size=$(du -sm "$trace" | cut -f1)
echo "bench: trace: $events events, $accesses accesses, $pages pages, $size MB of CTF"

t_dummy=$(best_of 5 babeltrace2 "$trace" -c sink.utils.dummy)
t_ingest=$(best_of 5 "$vmr" ingest -q --no-cache -o "$bench/storm.vmr" "$trace")
ratio=$(echo "$t_ingest / $t_dummy" | bc -l)
printf 'bench: ingest %.3f s (%.2f M events/s); babeltrace2 dummy sink %.3f s (%.2f M events/s); ratio %.2f\n' \
    "$t_ingest" "$(echo "$events / $t_ingest / 1000000" | bc -l)" "$t_dummy" \
    "$(echo "$events / $t_dummy / 1000000" | bc -l)" "$ratio"
target "ingest <= 1.5x dummy sink" "$(echo "$ratio <= 1.5" | bc -l)" "$(printf '%.2fx' "$ratio")"

half=$(( pages / 2 ))
t_lru=$(best_of 5 taskset -c 0 "$vmr" run -q -p lru -n "$half" -f tsv "$bench/storm.vmr")
rate=$(echo "$accesses / $t_lru / 1000000" | bc -l)
printf 'bench: lru replay, %d pages (half the footprint): %.3f s for %d accesses = %.1f M accesses/s (one core, open + verify included)\n' \
    "$half" "$t_lru" "$accesses" "$rate"
target "lru >= 30 M accesses/s on >= 20 M accesses" \
    "$(echo "$rate >= 30 && $accesses >= 20000000" | bc -l)" "$(printf '%.1f M/s' "$rate")"

# Memory per simulated page: the replay's peak RSS, less the mapped .vmr
# and less the binary's own footprint (the RSS of a run that stops at its
# usage error), over the trace's pages.  On the 20 M-access trace.
rss_kb() { { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null || true; } | tail -1; }
base_kb=$(rss_kb "$vmr" run -p classic --swappiness 999 "$bench/storm.vmr")
run_kb=$(rss_kb "$vmr" run -q -p classic --memory-limit 340M -f tsv "$bench/storm.vmr")
vmr_bytes=$(stat -c %s "$bench/storm.vmr")
per_page=$(echo "($run_kb - $base_kb) * 1024 - $vmr_bytes" | bc)
per_page=$(echo "$per_page / $pages" | bc -l)
printf 'bench: classic peak memory: %d KB RSS, %d KB baseline, %d KB mapped trace: %.1f bytes per simulated page\n' \
    "$run_kb" "$base_kb" "$((vmr_bytes / 1024))" "$per_page"
target "classic <= 64 bytes per simulated page plus the mapped trace" \
    "$(echo "$per_page <= 64" | bc -l)" "$(printf '%.1f B/page' "$per_page")"
exit $missed
