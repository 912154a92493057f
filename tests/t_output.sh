#!/bin/bash
# One CLI's outputs (issue 15, item 5):
#  - progress lines end in ESC [ K (erase to the end of the line), so a
#    shorter line never leaves the tail of a longer one, and only on a
#    terminal;
#  - a replay that saw no reclaim says so on stderr, with the trace's
#    footprint and the memory it had (not under -q, not when it reclaimed);
#  - JSON is valid UTF-8 whatever the bytes of a task's name;
#  - compare spells a missing value "-" (text and TSV) and null (JSON).
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"
tr=traces/anon-storm-small/ctf

# progress, on a terminal (script(1) gives one) and not elsewhere
if command -v script >/dev/null; then
    script -qec "'$vmr' ingest --no-cache $tr >/dev/null" /dev/null >"$tmp/tty" 2>&1
    check "progress on a terminal: each line ends in ESC [ K" grep -q $'ingest: [0-9]* events.*\e\[K' "$tmp/tty"
    check "progress on a terminal: no line padded with spaces" sh -c "! grep -q '   '$'\r' '$tmp/tty'"
else
    skip "progress on a terminal" "script(1) not installed"
fi
"$vmr" ingest --no-cache "$tr" >/dev/null 2>"$tmp/err"
check "no progress when stderr is not a terminal" test ! -s "$tmp/err"

# the no-reclaim warning (footprint: 16167 pages = 63.2 MiB)
"$vmr" run -p classic --memory-limit 1G "$tr" >/dev/null 2>"$tmp/err"
check "no reclaim under a 1 GiB limit: a warning with footprint and limit" grep -q \
    "^vmreplay run: warning: the replay saw no reclaim: the trace's footprint, 63.2 MiB (16167 pages), fits in its 1024.0 MiB memory cgroup limit" "$tmp/err"
"$vmr" run -p classic --memory-limit 0 --node-memory 4G "$tr" >/dev/null 2>"$tmp/err"
check "no reclaim without a limit: the node's memory named" grep -q \
    "fits in the node's 4096.0 MiB (no memory cgroup limit)" "$tmp/err"
"$vmr" run -q -p classic --memory-limit 1G "$tr" >/dev/null 2>"$tmp/err"
check "no warning under -q (sweeps)" test ! -s "$tmp/err"
"$vmr" run -p classic --memory-limit 16M "$tr" >/dev/null 2>"$tmp/err"
check "no warning when the replay reclaimed" test ! -s "$tmp/err"

# text output: one unit for sizes
"$vmr" run -p classic --memory-limit 16M --node-memory 48M "$tr" >"$tmp/run.txt" 2>/dev/null
check "run text: node and memcg limit both in MiB" grep -q '^memory       node 48.0 MiB, memcg limit 16.0 MiB, swap ' "$tmp/run.txt"
check "run text: no size in bytes" sh -c "! grep -q '16777216\|50331648' '$tmp/run.txt'"

# JSON of a non-UTF-8 task name (a comm is 16 bytes, any of them)
printf 'start_ns\tduration_ns\tkind\ttask\tpriority\tnr_scanned\tnr_reclaimed\tcomm\n%s\n%s\n' \
    $'1000\t2000\tmemcg\t7\t10\t64\t32\tx\xff\xfe"\\y' $'5000\t100\tmemcg\t8\t10\t4\t2\t\xe2\x82\xacok\xed\xa0\x80' >"$tmp/ev.tsv"
"$vmr" analyze -f json "$tmp/ev.tsv" >"$tmp/a.json" 2>"$tmp/err"
check "analyze -f json of non-UTF-8 names: exit 0 ($(head -c 100 "$tmp/err"))" test $? = 0
check "... valid UTF-8 JSON: bad bytes as U+FFFD, quotes and backslashes escaped, good UTF-8 kept" python3 -c "
import json; d = json.loads(open('$tmp/a.json', 'rb').read().decode('utf-8', 'strict'))
names = sorted(p['name'] for p in d['processes'])
assert names == ['x\ufffd\ufffd\"\\\\y-7', '\u20acok\ufffd\ufffd\ufffd-8'], names"

# compare: one spelling of a missing value per format
"$vmr" compare -p classic "$tr" -- --memory-limit 16M >"$tmp/c.txt" 2>"$tmp/err"
check "compare: exit 0 ($(head -c 100 "$tmp/err"))" test $? = 0
check "compare text: no 'absent', 'inf' or 'nan'" sh -c "! grep -qiwE 'absent|inf|nan' '$tmp/c.txt'"
"$vmr" compare -p classic -f tsv "$tr" -- --memory-limit 16M >"$tmp/c.tsv" 2>/dev/null
check "compare TSV: every row has every field (no empty cell)" \
    awk -F'\t' 'NR == 1 {n = NF} NF != n || /\t\t|\t$/ {bad = 1} END {exit bad}' "$tmp/c.tsv"
"$vmr" compare -p classic -f json "$tr" -- --memory-limit 16M >"$tmp/c.json" 2>/dev/null
check "compare JSON: valid, missing values null" python3 -c "
import json; d = json.load(open('$tmp/c.json'))
assert all(c['kernel'] is None or isinstance(c['kernel'], (int, float)) for c in d['counters'])"
echo "1..$tap_n"
