#!/bin/bash
# vmreplay sweep: a sweep killed with SIGKILL (or interrupted with SIGINT)
# and restarted gives results identical to an uninterrupted one, redoing
# only the missing runs; no half-written result is ever visible or read;
# bad sweep files and command lines get one-line errors and exit 1 / 2.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"


# Every file in DIR/results is one whole result: two lines, a final newline.
all_whole() {
    local f
    for f in "$1"/results/*; do
        [ -e "$f" ] || continue
        case $f in *.tsv) ;; *) echo "stray file $f"; return 1 ;; esac
        [ "$(wc -l <"$f")" -eq 2 ] || { echo "not 2 lines: $f"; return 1; }
        [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] || { echo "no final newline: $f"; return 1; }
    done
}

count() { find "$1/results" -name '*.tsv' 2>/dev/null | wc -l; }

# A kernel policy if there is one (its runs take long enough to be caught
# mid-way), and lru; the sweep needs nothing else.
kernel=$("$vmr" run --list-policies | awk -F'\t' '$2 == "yes" { print $1; exit }')
cat >"$tmp/s.sweep" <<SWEEP
trace $PWD/traces/anon-storm-small/ctf
trace $PWD/traces/build-like-small/ctf
policy lru $kernel
memory-limit 10% 20% 30% 40% 50% 60% 70% 80%
swappiness 1 100 200
seed 1-3
SWEEP
total=$("$vmr" sweep -n -q -d "$tmp/plan" "$tmp/s.sweep" | tail -n +2 | wc -l)
check "the sweep expands to runs ($total)" test "$total" -gt 16

# 1. Uninterrupted.
"$vmr" sweep -q -d "$tmp/ref" "$tmp/s.sweep"
check "uninterrupted sweep: exit 0" test $? -eq 0
check "uninterrupted sweep: one result per run" test "$(count "$tmp/ref")" -eq "$total"
check "each trace ingested once into the sweep directory" \
    test "$(ls "$tmp/ref/traces" | sort | tr '\n' ' ')" = "anon-storm-small.vmr build-like-small.vmr "
check "uninterrupted sweep: every result whole" all_whole "$tmp/ref"

# 2. SIGKILL mid-way, one run at a time so that it is caught in the middle.
"$vmr" sweep -q -j 1 -d "$tmp/kill" "$tmp/s.sweep" &
pid=$!
for _ in $(seq 1 600); do
    [ "$(count "$tmp/kill")" -ge 4 ] && break
    sleep 0.01
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
done_at_kill=$(count "$tmp/kill")
check "killed mid-way ($done_at_kill of $total runs done)" test "$done_at_kill" -ge 1 -a "$done_at_kill" -lt "$total"
sleep 0.3
# Runs work in the sweep directory: none may outlive the sweep.
left_in() {
    local p
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/cwd" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
    done
}
check "its runs died with it (no process left in the sweep directory)" test -z "$(left_in "$tmp/kill")"
check "after SIGKILL: every visible result is whole" all_whole "$tmp/kill"
"$vmr" stats --partial -f tsv "$tmp/kill" >/dev/null 2>"$tmp/err"
check "after SIGKILL: stats --partial reads every result there (exit 0)" test $? -eq 0
run_err "after SIGKILL: stats without --partial names a missing result" 1 "missing: run" \
    "$vmr" stats "$tmp/kill"

"$vmr" sweep -j 2 -d "$tmp/kill" "$tmp/s.sweep" 2>"$tmp/resume.log"
check "restart: exit 0" test $? -eq 0
check "restart: redid only the missing runs ($((total - done_at_kill)))" \
    grep -q "($((done_at_kill)) done before, $((total - done_at_kill)) now" "$tmp/resume.log"
check "restart: no staging leftovers" test -z "$(ls -A "$tmp/kill/staging")"
check "killed and restarted: results identical to the uninterrupted sweep" \
    diff -r "$tmp/ref/results" "$tmp/kill/results"
"$vmr" sweep -d "$tmp/kill" "$tmp/s.sweep" 2>"$tmp/again.log"
check "a third run does nothing" grep -q "all $total runs have their results" "$tmp/again.log"

# 3. SIGINT (Ctrl-C): exit 130, the same promise.
"$vmr" sweep -q -j 1 -d "$tmp/int" "$tmp/s.sweep" 2>"$tmp/int.log" &
pid=$!
for _ in $(seq 1 600); do
    [ "$(count "$tmp/int")" -ge 3 ] && break
    sleep 0.01
done
kill -INT $pid
wait $pid; rc=$?
check "SIGINT: exit 130 (rc $rc)" test $rc -eq 130
check "SIGINT: says how to go on" grep -q "run the same command again" "$tmp/int.log"
"$vmr" sweep -q -d "$tmp/int" "$tmp/s.sweep"
check "interrupted and restarted: identical results" diff -r "$tmp/ref/results" "$tmp/int/results"

# 4. A result damaged outside vmreplay is never read as one: stats refuses
# it by name, the next sweep sets it aside and runs it again.
victim=$(ls "$tmp/int/results" | head -1)
head -c 40 "$tmp/ref/results/$victim" >"$tmp/int/results/$victim"
run_err "a truncated result: stats refuses it, naming the file" 1 "$victim: not a header line and one data line" \
    "$vmr" stats "$tmp/int"
"$vmr" sweep -d "$tmp/int" "$tmp/s.sweep" 2>"$tmp/redo.log"
check "the sweep runs a damaged result again" grep -q "running it again" "$tmp/redo.log"
check "and ends identical" diff -r -x '*.invalid' "$tmp/ref/results" "$tmp/int/results"

# 5. Node pressure: no memcg limit, RAM a share of the trace's pages.
# Every result says "-" for the limit and the node memory of its share
# (40% of the trace's pages, rounded up to whole pages).
pages=$("$vmr" ingest -q -f json "$PWD/traces/anon-storm-small/ctf" | sed -n 's/.*"pages": \([0-9]*\).*/\1/p')
printf 'trace %s\npolicy %s\nmemory-limit none\nnode-memory 40%%\nswappiness 60\n' \
    "$PWD/traces/anon-storm-small/ctf" "$kernel" >"$tmp/node.sweep"
"$vmr" sweep -d "$tmp/node" "$tmp/node.sweep" 2>"$tmp/node.log"; rc=$?
check "memory-limit none: the sweep runs (rc $rc)" test "$rc" -eq 0
want_node=$(( (pages * 40 + 99) / 100 * 4096 ))
got=$(for f in "$tmp"/node/results/*.tsv; do sed -n 2p "$f" | cut -f5,6; done | sort -u)
check "memory-limit none: limit '-', node memory $want_node (got '$got')" test "$got" = "-	$want_node"
"$vmr" stats -O "$tmp/nodeout" "$tmp/node" >/dev/null 2>&1
check "memory-limit none: tables say 'memory limit none'" grep -q "memory limit none" "$tmp/nodeout/tables.txt"

# 5b. A swap device with knobs: each run's result names the spec the sweep
# gave (not only its preset), so the sweep recognises it as that run's:
# every run succeeds, and a restart finds nothing to redo.
printf 'trace %s\npolicy %s\nmemory-limit 40%%\nswappiness 60\nswap ssd,size=64M ssd\n' \
    "$PWD/traces/anon-storm-small/ctf" "$kernel" >"$tmp/swap.sweep"
"$vmr" sweep -q -d "$tmp/swap" "$tmp/swap.sweep" 2>"$tmp/swap.log"; rc=$?
check "swap ssd,size=64M: the sweep's runs succeed (rc $rc; $(head -c 200 "$tmp/swap.log"))" test "$rc" -eq 0
got=$(for f in "$tmp"/swap/results/*.tsv; do sed -n 2p "$f" | cut -f7; done | sort | tr '\n' ' ')
check "swap ssd,size=64M: results name their specs (got '$got')" test "$got" = "ssd ssd,size=64M "
"$vmr" sweep -d "$tmp/swap" "$tmp/swap.sweep" 2>"$tmp/swap2.log"
check "swap ssd,size=64M: a restart redoes nothing" grep -q "all 2 runs have their results" "$tmp/swap2.log"

# 6. Bad input: one line naming file, line and field.
printf 'trace %s\nmemory-limit 10%%\nswappiness 1 999\n' "$PWD/traces/anon-storm-small/ctf" >"$tmp/bad.sweep"
run_err "bad swappiness: file, line, key" 1 "bad.sweep:3: swappiness: '999' is not a swappiness" \
    "$vmr" sweep -d "$tmp/bad" "$tmp/bad.sweep"
printf 'trace %s\nmemory-limit 10%%\npolicy nosuch\n' "$PWD/traces/anon-storm-small/ctf" >"$tmp/bad2.sweep"
run_err "unknown policy: file, line, key" 1 "bad2.sweep:3: policy: unknown policy 'nosuch'" \
    "$vmr" sweep -d "$tmp/bad2" "$tmp/bad2.sweep"
printf 'trace %s/nowhere\nmemory-limit 10%%\n' "$tmp" >"$tmp/bad3.sweep"
run_err "missing trace: file, line, key" 1 "bad3.sweep:1: trace: .*nowhere: No such file" \
    "$vmr" sweep -d "$tmp/bad3" "$tmp/bad3.sweep"
run_err "no sweep file: says so, exit 2" 2 "^vmreplay sweep: a sweep file is required" "$vmr" sweep
run_err "--jobs 0: usage" 2 "jobs: '0'" "$vmr" sweep -j 0 "$tmp/s.sweep"
run_err "--wait without --slurm: usage" 2 "go with --slurm" "$vmr" sweep --wait "$tmp/s.sweep"
run_err "a nonexistent sweep file" 1 "nope.sweep: No such file" "$vmr" sweep "$tmp/nope.sweep"
exit 0
