#!/bin/bash
# The libFuzzer targets (tests/fuzz/, built by make fuzz into build-fuzz): each
# runs for FUZZ_SECONDS (default 8) from seeds made of the tests' own
# inputs, or, with FUZZ_RUNS set (make fuzz-long), for that many
# executions.  A crash, a sanitizer report, a leak, a timeout or running
# out of memory fails the test and keeps the input that did it.  Prints
# each target's executions.
. "$(dirname "$0")/tap.sh"
fz=build-fuzz/tests/fuzz
targets="options vmr result events sweep kevents"
if [ ! -x "$fz/fuzz_vmr" ]; then
    for t in $targets; do skip "fuzz_$t" "not built (make fuzz; make check builds it)"; done
    exit 0
fi
tmp=$(mktemp -d)
keep=${FUZZ_KEEP:-/tmp/vmreplay-fuzz-findings}
# the targets' files: in memory when /dev/shm is there (fuzz.h), in a
# folder of this run's (a target ends at its time limit without removing
# its last input's files)
shm=$(mktemp -d /dev/shm/vmreplay-fuzz-run.XXXXXX 2>/dev/null) || shm=
trap 'rm -rf "$tmp" ${shm:+"$shm"}' EXIT
export TMPDIR=${shm:-$tmp}

# Seeds: what the tests feed the same readers.
mkdir -p "$tmp/seed"/{options,vmr,result,events,sweep,kevents}
fix=tests/data/stats-fixture
cp "$fix"/results/000000000000000[1-4].tsv "$tmp/seed/result/"
cp "$fix"/events/000000000000000[1-4].tsv "$tmp/seed/events/"
i=0
for s in 64M 4096 2G 1Ki 0 18446744073709551615 " -5" +5 "ssd,size=1G,depth=2" "zram" \
         "hdd,read=100,write=200,jitter=5,rotational=1" "apps/camera" "a/b/c/d" \
         $'page_size\t4096\nmemory_limit\t0\nswappiness\t-1\ncgroup\t21139 0 -1 apps/camera\n'; do
    printf '%s' "$s" >"$tmp/seed/options/$((i += 1))"
done
printf 'trace %s\npolicy lru classic mglru\nmemory-limit 10%% 50%% 16M\nswappiness 1 60 200\nseeds 3\n' \
    "$PWD/traces/anon-storm-small/ctf" >"$tmp/seed/sweep/1"
printf 'trace-set toy %s %s\npolicy classic mglru+swappiness\nmemory-limit captured none\nswap ssd,size=1G zram\n' \
    "$PWD/traces/anon-mt-sw1" "$PWD/traces/anon-mt-sw100" >"$tmp/seed/sweep/2"
printf '\0\1\2\3\4\5\6\7' >"$tmp/seed/vmr/1"
printf '\6\1\2\3\4\5\6\7\10\11\12\13\14\15\16\17' >"$tmp/seed/kevents/1"
# fuzz_kevents' first finding (an empty maps snapshot, then a fault: NULL
# + 0 in kev_region_at), kept as a seed: clang's UBSan flags it, gcc's not
printf '\274\1\0\0\0\0\0\0\6\n' >"$tmp/seed/kevents/2"

for t in $targets; do
    opts=(-rss_limit_mb=2048 -timeout=20 -max_len=65536 -print_final_stats=1 -artifact_prefix="$tmp/crash-$t-")
    if [ -n "${FUZZ_RUNS:-}" ]; then opts+=(-runs="$FUZZ_RUNS"); else opts+=(-max_total_time="${FUZZ_SECONDS:-8}"); fi
    mkdir -p "$tmp/corpus-$t"
    ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp "$fz/fuzz_$t" "${opts[@]}" "$tmp/corpus-$t" "$tmp/seed/$t" >"$tmp/$t.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$t.log" | tail -1)
    secs=$(sed -n 's/^stat::.*_time_in_sec: *//p; s/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$tmp/$t.log" | tail -1)
    if [ $rc -eq 0 ] && ! ls "$tmp"/crash-$t-* >/dev/null 2>&1; then
        ok "fuzz_$t: ${runs:-?} executions${secs:+ in $secs s}, no finding"
    else
        mkdir -p "$keep"
        cp "$tmp"/crash-$t-* "$tmp/$t.log" "$keep/" 2>/dev/null
        nok "fuzz_$t: rc=$rc after ${runs:-?} executions; inputs and log in $keep: $(grep -m1 -E 'ERROR|SUMMARY|runtime error|deadly signal' "$tmp/$t.log")"
    fi
done
