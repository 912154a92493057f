#!/bin/bash
# An instrumented process outside the capture's process tree is not the
# workload: the capture's LTTng session records the vmreplay:* events of
# every instrumented process of its user, and tests/data/foreign-ust (the
# 6.18 session mix-sw100-2 of 2026-12-02) holds a test's anon-storm (pid
# 27071, 3 threads x 500 anon_access of 2 pages, 8.6 s into the session)
# beside python3's kernel events (root pid 26652).  Ingest drops that
# stream and makes the demand from the kernel's events, as for a capture
# with no foreign process.
# Usage: tests/t_ingest_foreign.sh BUILD   (from the repository root)
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"
trace=tests/data/foreign-ust

meta() { strings "$tmp/m.vmr" | sed -n "s/^$1\t//p"; }

if "$vmr" ingest -q --no-cache -f json -o "$tmp/m.vmr" "$trace" >"$tmp/ingest.json"; then
    ok "ingest $trace"
else
    nok "ingest $trace"
fi
check "the anon-storm's 3,000 page accesses are not the workload's" \
    [ "$(meta ust_accesses_not_of_the_workload)" = 3000 ]
check "demand from the kernel's events" \
    [ "$(meta demand_source)" = "kernel (faults, page-cache events, DAMON)" ]
# python3 and the shells pyenv runs: 80 tasks, none of them a storm thread
check "the workload's 80 tasks, not the storm's 4" \
    grep -q '"tasks": 80,' "$tmp/ingest.json"
"$vmr" run -p classic -q -f tsv -o "$tmp/run.tsv" "$tmp/m.vmr"
# python3 writes 96 MiB of anonymous memory twice in a 24 MiB memcg: it
# swaps (the kernel: pgsteal_anon 71,459); the storm's replay swapped
# nothing
steal=$(awk -F'\t' 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "pgsteal_anon") c = i}
                     NR == 2 {print $c}' "$tmp/run.tsv")
check "the replay swaps python3's memory (pgsteal_anon $steal > 50,000)" \
    [ "${steal:-0}" -gt 50000 ]
# a capture without a foreign process keeps its exact stream
t=traces/anon-mt-sw1/ctf
"$vmr" ingest -q --no-cache -f json -o "$tmp/a.vmr" "$t" >/dev/null
check "$t: its own anon-storm stays the exact stream" \
    sh -c "strings '$tmp/a.vmr' | grep -q '^demand_source	ust' &&
           ! strings '$tmp/a.vmr' | grep -q '^ust_accesses_not_of_the_workload'"
