#!/bin/bash
# The command line of every subcommand: usage errors are one line with the
# prefix "vmreplay SUBCMD: " and "Try 'vmreplay SUBCMD --help'." (exit 2);
# output that cannot be written (/dev/full, a closed stdout) is one line
# and exit 1, --help included.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"

subcmds="capture ingest run sweep stats plot analyze compare validate"

for s in $subcmds; do
    run_err "$s --frobnicate: names the option" 2 "^vmreplay $s: unknown option '--frobnicate'$" \
        "$vmr" "$s" --frobnicate x
    run_err "$s -Z: names the option" 2 "^vmreplay $s: unknown option '-Z'$" "$vmr" "$s" -Z x
    run_err "$s without arguments: says what is missing" 2 "^vmreplay $s: .*\(required\|given\)" "$vmr" "$s"
    "$vmr" "$s" --help >/dev/full 2>"$tmp/err"; rc=$?
    check "$s --help >/dev/full: exit 1, one line" \
        bash -c "[ '$rc $(wc -l <"$tmp/err")' = '1 1' ] && grep -q '^vmreplay $s: write error on standard output: No space left' '$tmp/err'"
    "$vmr" "$s" --help >&- 2>"$tmp/err"; rc=$?
    check "$s --help with stdout closed: exit 1, one line" \
        bash -c "[ '$rc $(wc -l <"$tmp/err")' = '1 1' ] && grep -q 'standard output: it is closed' '$tmp/err'"
done
run_err "run -p without its value" 2 "^vmreplay run: option '-p' needs a value$" "$vmr" run -p
run_err "run --policy without its value" 2 "^vmreplay run: option '--policy' needs a value$" "$vmr" run --policy
run_err "run --quiet=1: takes no value" 2 "^vmreplay run: option '--quiet' takes no value$" "$vmr" run --quiet=1 x
run_err "run with two inputs" 2 "^vmreplay run: 'b': one input only$" "$vmr" run -p lru -n 1 a b
run_err "ingest with two traces" 2 "^vmreplay ingest: 'b': one trace only$" "$vmr" ingest a b
run_err "an unknown subcommand" 2 "^vmreplay: 'frobnicate' is not a subcommand$" "$vmr" frobnicate

for args in "--help" "--version" "run --list-policies"; do
    $vmr $args >/dev/full 2>"$tmp/err"; rc=$?
    check "vmreplay $args >/dev/full: exit 1, one line" test "$rc $(wc -l <"$tmp/err")" = "1 1"
done
"$vmr" ingest -q traces/anon-storm-small/ctf >/dev/null 2>&1
"$vmr" ingest traces/anon-storm-small/ctf >/dev/full 2>"$tmp/err"; rc=$?
check "ingest's report >/dev/full: exit 1, one line" test "$rc $(wc -l <"$tmp/err")" = "1 1"
"$vmr" ingest -q -o /dev/full traces/anon-storm-small/ctf 2>"$tmp/err"; rc=$?
check "ingest -o /dev/full: exit 1, naming /dev/full" \
    bash -c "[ '$rc $(wc -l <"$tmp/err")' = '1 1' ] && grep -q '^vmreplay ingest: /dev/full: ' '$tmp/err'"
"$vmr" run -q -p lru -n 100 traces/anon-storm-small/ctf >/dev/full 2>"$tmp/err"; rc=$?
check "run's result >/dev/full: exit 1, one line" test "$rc $(wc -l <"$tmp/err")" = "1 1"
"$vmr" sweep --help >/dev/null 2>&1
check "--help to a good stdout: exit 0" test $? -eq 0

# --- file inputs: only regular files, within the budget -------------------
mkfifo "$tmp/fifo"
for s in "run -p lru -n 10" "analyze" "sweep" "compare -p classic"; do
    run_err "$s on a FIFO with no writer: refused at once" 1 "fifo: not a regular file" $vmr $s "$tmp/fifo"
    run_err "$s on /dev/zero: refused at once" 1 "/dev/zero: not a regular file" $vmr $s /dev/zero
done
printf 'start_ns\tduration_ns\tkind\ttask\tpriority\tnr_scanned\tnr_reclaimed\n' >"$tmp/ev.tsv"
for i in $(seq 1 50); do printf '%d\t10\tdirect\t1\t12\t32\t32\n' $((i * 100)) >>"$tmp/ev.tsv"; done
run_err "an input over VMREPLAY_INPUT_MAX: refused, naming the budget" 1 \
    "ev.tsv: [0-9]* bytes is more than the input budget of 1024 bytes (VMREPLAY_INPUT_MAX)" \
    env VMREPLAY_INPUT_MAX=1K "$vmr" analyze "$tmp/ev.tsv"
"$vmr" analyze "$tmp/ev.tsv" >/dev/null 2>&1
check "the same input within the default budget is read" test $? -eq 0
fix=tests/data/stats-fixture
mkdir -p "$tmp/cut"
cp -r "$fix/results" "$fix/events" "$fix/timeline" "$fix/plan.tsv" "$tmp/cut/"
ev=$tmp/cut/events/0000000000000001.tsv
truncate -s $(( $(stat -c %s "$ev") - 3 )) "$ev"
run_err "plot of an events file cut mid-line: refused, naming file and line" 1 \
    "0000000000000001.tsv: line [0-9]*: the file ends in the middle of a line" \
    "$vmr" plot -o "$tmp/cutfig" "$tmp/cut"

# --- options: no blanks or signs where unsigned, no sub-page limits, no
# repeated or empty keys, no unknown baselines -----------------------------
tr=traces/anon-storm-small/ctf
run_err "--seed ' -5': refused (was 2^64-5)" 2 "^vmreplay run: --seed: ' -5' is not a number" \
    "$vmr" run -q -p classic --seed " -5" "$tr"
run_err "--seed +5: refused" 2 "--seed: '+5'" "$vmr" run -q -p classic --seed +5 "$tr"
run_err "--swappiness ' 60': refused" 2 "--swappiness: ' 60'" "$vmr" run -q -p classic -s " 60" "$tr"
for lim in 1 4095; do
    run_err "--memory-limit $lim: less than a page, refused (was a 0-page limit called none)" 2 \
        "^vmreplay run: --memory-limit: '$lim' is not 0 (none) or a size from one page" \
        "$vmr" run -q -p classic --memory-limit $lim "$tr"
done
run_err "--memory-limit ' 16M': refused" 2 "--memory-limit: ' 16M'" "$vmr" run -q -p classic --memory-limit " 16M" "$tr"
run_err "--swap with a key given twice" 2 "^vmreplay run: --swap: size: given twice" \
    "$vmr" run -q -p classic --swap ssd,size=1G,size=2G "$tr"
for sw in "ssd," "ssd,,depth=2" ",ssd"; do
    run_err "--swap '$sw': an empty key=value" 2 "has an empty key=value" "$vmr" run -q -p classic --swap "$sw" "$tr"
done
run_err "stats --baseline of a policy the sweep did not run" 2 \
    "^vmreplay stats: --baseline: no result of $fix has policy 'nosuch'" "$vmr" stats --baseline nosuch=classic "$fix"
run_err "stats --baseline against a policy the sweep did not run" 2 \
    "has policy 'nosuch'" "$vmr" stats --baseline mglru=nosuch "$fix"
"$vmr" stats --baseline mglru=none "$fix" >/dev/null 2>&1
check "stats --baseline mglru=none is still accepted" test $? -eq 0

# --- results: values no run can have --------------------------------------
mkdir -p "$tmp/neg"
cp -r "$fix/results" "$fix/plan.tsv" "$tmp/neg/"
r1=$tmp/neg/results/0000000000000001.tsv
awk -F'\t' -v OFS='\t' 'NR == 2 { $10 = -5 } { print }' "$fix/results/0000000000000001.tsv" >"$r1"
run_err "stats of a result with a negative counter: refused, naming file and metric" 1 \
    "0000000000000001.tsv: line 2: pgscan_anon: '-5' is negative" "$vmr" stats "$tmp/neg"
awk -F'\t' -v OFS='\t' 'NR == 2 { $10 = "99999999999999999999999" } { print }' "$fix/results/0000000000000001.tsv" >"$r1"
run_err "stats of a result with a counter of 1e23: refused" 1 "pgscan_anon: '99999999999999999999999' is beyond 2^53" \
    "$vmr" stats "$tmp/neg"

# --- found by fuzz_sweep: a trace set of a folder with no capture (qsort of
# NULL under UBSan) is one line, exit 1 --------------------------------------
mkdir -p "$tmp/noset"
printf 'trace-set x %s\npolicy classic\nmemory-limit 16M\n' "$tmp/noset" >"$tmp/noset.sweep"
run_err "a trace set of an empty folder: refused" 1 "noset.sweep:1: trace-set: .*noset: neither a capture" \
    "$vmr" sweep -n -d "$tmp/noset.d" "$tmp/noset.sweep"
mkdir -p "$tmp/fifoplan" && mkfifo "$tmp/fifoplan/plan.tsv"
run_err "stats of a sweep whose plan.tsv is a FIFO: refused at once" 1 "plan.tsv: not a regular file (a FIFO)" \
    "$vmr" stats "$tmp/fifoplan"
