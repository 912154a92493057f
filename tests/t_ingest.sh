#!/bin/bash
# Ingest and run from the command line: bundled traces decode to exact
# counts, bad input of every kind gets one line naming file, event and
# field and exit 1 (never a hang), usage errors exit 2.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"


json_field() {  # FILE KEY: a number from the one-line JSON report
    sed -n "s/.*\"$2\": \\([0-9]*\\).*/\\1/p" "$1"
}

# --- the bundled traces: exact counts (their READMEs) and the same event
# total as babeltrace2's own counter sink --------------------------------
# name events tasks accesses pages
while read -r name events tasks accesses pages; do
    dir=traces/$name/ctf
    if [ ! -d "$dir" ]; then nok "bundled trace $name exists"; continue; fi
    "$vmr" ingest -q -f json "$dir" >"$tmp/$name.json" 2>"$tmp/err"
    got="$(json_field "$tmp/$name.json" events) $(json_field "$tmp/$name.json" tasks) $(json_field "$tmp/$name.json" accesses) $(json_field "$tmp/$name.json" pages)"
    check "ingest $name: events tasks accesses pages = $events $tasks $accesses $pages (got $got)" \
        test "$got" = "$events $tasks $accesses $pages"
    bt=$(babeltrace2 "$dir" -c sink.utils.counter 2>/dev/null | awk '$2 == "Event" {n = $1} END {print n}')
    check "ingest $name agrees with babeltrace2's counter ($bt)" test "$(json_field "$tmp/$name.json" events)" = "$bt"
    check "ingest $name: 0 discarded" test "$(json_field "$tmp/$name.json" discarded_events)" = 0
done <<'LIST'
anon-storm-small 65559 9 262144 16167
build-like-small 4141 5 58208 16458
LIST

# --- a trace made by others (lttng-modules kernel domain, 2014) ---------
ext=tests/data/external/bug446190   # its origin: tests/data/external/README.md
before=$(ls "$VMREPLAY_CACHE" 2>/dev/null | wc -l)
run_err "external trace: nothing to replay, refused, by provider" 1 \
    "bug446190: nothing to replay: no memory accesses and no reclaim events in its 31556 events (kernel=31556); --allow-empty keeps it" \
    "$vmr" ingest -q "$ext"
check "external trace: nothing refused is cached" test "$(ls "$VMREPLAY_CACHE" 2>/dev/null | wc -l)" = "$before"
"$vmr" ingest -q --allow-empty "$ext" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "external trace: ingest --allow-empty succeeds" test $rc -eq 0
check "external trace: 31556 events decoded" grep -q '^events *31556 decoded, 0 discarded' "$tmp/out"
check "external trace: keeps 504 page allocations and 351 frees" \
    grep -q '^kept *504 page allocations, 351 page frees' "$tmp/out"
check "external trace: reports skipped events by name and count" \
    grep -q 'skipped .*rcu_utilization=[0-9]' "$tmp/out"
check "external trace: says there is nothing to replay" \
    grep -q 'no memory-access stream to replay and no reclaim events' "$tmp/out"
run_err "external trace: run refuses, nothing to replay" 1 "no memory accesses" \
    "$vmr" run -q -p lru -n 100 "$ext"
run_err "external trace: ingest without --allow-empty refuses its cached .vmr too" 1 \
    "nothing to replay" "$vmr" ingest -q "$ext"

# --- empty, foreign and several traces ------------------------------------
fresh() { rm -rf "$tmp/t"; cp -r "${T_INGEST_BASE:-traces/anon-storm-small/ctf}" "$tmp/t"; }
fresh; for s in "$tmp"/t/vmreplay_*; do : >"$s"; done
run_err "zero-length streams: nothing to replay" 1 "t: nothing to replay" "$vmr" ingest -q --no-cache "$tmp/t"
fresh; s0=$(ls "$tmp"/t/vmreplay_* | head -1); rm "$s0"
run_err "a deleted stream its index names: refused" 1 \
    "index/$(basename "$s0").idx: indexes the stream $(basename "$s0"), which is missing" "$vmr" ingest -q --no-cache "$tmp/t"
fresh; s0=$(ls "$tmp"/t/vmreplay_* | head -1); rm "$s0"; mkfifo "$s0"
run_err "a FIFO stream: refused at once" 1 "$(basename "$s0"): a stream that is not a regular file" \
    "$vmr" ingest -q --no-cache "$tmp/t"
fresh; mkdir -p "$tmp/two/a" "$tmp/two/b"; cp -r "$tmp/t" "$tmp/two/a/ctf"; cp -r "$tmp/t" "$tmp/two/b/ctf"
run_err "a folder of two sessions: refused, naming both" 1 \
    "two: 2 sessions here ($tmp/two/a/ctf, $tmp/two/b/ctf); ingest one of them" "$vmr" ingest -q "$tmp/two"
mkdir -p "$tmp/one"; cp -r "$tmp/t" "$tmp/one/ctf"; echo notes >"$tmp/one/README.md"
h1=$("$vmr" ingest -q -f json "$tmp/one" | sed -n 's/.*"trace_hash": "\([0-9a-f]*\)".*/\1/p')
h2=$("$vmr" ingest -q -f json "$tmp/one/ctf" | sed -n 's/.*"trace_hash": "\([0-9a-f]*\)".*/\1/p')
check "a trace and the folder holding it (and its README) hash the same ($h1)" test -n "$h1" -a "$h1" = "$h2"

# --- corrupt copies of a bundled trace ----------------------------------
base=${T_INGEST_BASE:-traces/anon-storm-small/ctf}
fresh() { rm -rf "$tmp/t"; cp -r "$base" "$tmp/t"; meta=$(find "$tmp/t" -name metadata | head -1); mdir=$(dirname "$meta"); }
# Text metadata that babeltrace2 decodes the same way as the original.
textmeta() {
    babeltrace2 query src.ctf.fs metadata-info -p "path=\"$mdir\"" | sed '1d; 2s/^text: //' >"$tmp/meta.txt"
    sed "$1" "$tmp/meta.txt" >"$meta"
}

fresh; truncate -s 500 "$meta"
run_err "truncated metadata: one line naming the metadata file, no hang" 1 "$meta: metadata truncated" \
    env VMREPLAY_WATCHDOG=20 "$vmr" ingest -q "$tmp/t"

fresh; stream=$(find "$mdir" -maxdepth 1 -type f ! -name metadata | sort | head -1)
truncate -s $(( $(stat -c %s "$stream") / 2 + 13 )) "$stream"
run_err "truncated stream: one-line error, exit 1" 1 "cannot decode the trace" \
    env VMREPLAY_WATCHDOG=20 "$vmr" ingest -q "$tmp/t"

fresh; textmeta 's/ _len;/ _lenx;/'
run_err "missing field: names file, event and field" 1 "$tmp/t: event vmreplay:anon_access: field len: missing" \
    "$vmr" ingest -q "$tmp/t"

fresh; textmeta '/name = "vmreplay:anon_access"/,/};/ s/integer { size = 64; align = 8; signed = 0; encoding = none; base = 10; } _addr;/floating_point { exp_dig = 11; mant_dig = 53; align = 8; } _addr;/'
run_err "mistyped field: names file, event and field" 1 "event vmreplay:anon_access: field addr: wrong type (expected an integer)" \
    "$vmr" ingest -q "$tmp/t"

fresh; textmeta 's/"vmreplay:anon_access"/"acme:anon_access"/'
run_err "unknown provider: refused by name" 1 "event acme:anon_access: unknown provider 'acme'" \
    "$vmr" ingest -q "$tmp/t"

fresh; textmeta 's/"vmreplay:anon_access"/"vmreplay:anon_peek"/'
run_err "unknown event of our provider: refused by name" 1 "event vmreplay:anon_peek: unknown event" \
    "$vmr" ingest -q "$tmp/t"

mkdir -p "$tmp/empty" "$tmp/nometa/sub"; echo x >"$tmp/nometa/sub/channel0_0"
run_err "a directory without CTF metadata: says so" 1 "no CTF trace here" "$vmr" ingest -q "$tmp/nometa"
run_err "empty directory: says so" 1 "no CTF trace here" "$vmr" ingest -q "$tmp/empty"

# A stream that is not CTF: the library's reason, without its object
# addresses ("msg-it-addr=0x55…").
mkdir -p "$tmp/magic"
printf '/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; packet.header := struct { integer { size = 32; } magic; }; };\n' \
    >"$tmp/magic/metadata"
printf 'not a CTF packet header, 32 bytes' >"$tmp/magic/s_0"
run_err "a stream with a bad magic: the library's reason, no addresses" 1 \
    "magic: cannot decode the trace: Invalid CTF magic number: magic=" "$vmr" ingest -q --no-cache "$tmp/magic"
check "  ... and no 'addr=0x' in it" sh -c "! grep -q 'addr=0x' '$tmp/err'"

# --- the .vmr: written whole, cached, never trusted when damaged ---------
fresh
rm -rf "$VMREPLAY_CACHE/verified"
"$vmr" ingest -q -o "$tmp/a.vmr" "$tmp/t" >/dev/null 2>&1
check "ingest -o writes the .vmr" test -s "$tmp/a.vmr"
check "ingest -o records the .vmr's contents (and its cache copy's) as verified: one record" \
    test "$(ls "$VMREPLAY_CACHE/verified" 2>/dev/null | grep -c '^c[0-9]*-[0-9a-f]\{32\}$')" = 1
check "no temporary files are left beside it" test -z "$(ls "$tmp" | grep '\.tmp$')"
"$vmr" ingest -q "$tmp/t" >"$tmp/out" 2>&1
check "second ingest comes from the cache" grep -q '(cached)' "$tmp/out"
"$vmr" ingest -q --no-cache -o "$tmp/b.vmr" "$tmp/t" >/dev/null 2>&1
check "decoding twice gives a bit-identical .vmr" cmp -s "$tmp/a.vmr" "$tmp/b.vmr"
# Its tasks' streams (over 20,000 records each) went through the spill
# file in 8192-record chunks (spill.h), which leaves nothing behind; an
# output written over an old one is the same file.
"$vmr" ingest -q --no-cache -o "$tmp/b.vmr" "$tmp/t" >/dev/null 2>&1
check "ingest over an existing .vmr: the same bytes, nothing left beside it" \
    sh -c "cmp -s '$tmp/a.vmr' '$tmp/b.vmr' && test -z \"\$(ls -A '$tmp' | grep -e spill -e '\\.tmp\$')\""
run_err "no room for the spill file: exit 1, one line naming where" 1 \
    "^vmreplay ingest: /nonexistent: cannot make the records' spill file: No such file" \
    env TMPDIR=/nonexistent "$vmr" ingest -q --no-cache -o /dev/full "$tmp/t"
size=$(stat -c %s "$tmp/a.vmr")
printf '\x5a' | dd of="$tmp/a.vmr" bs=1 seek=$((size / 2)) conv=notrunc status=none
run_err "a flipped byte in a .vmr ingest verified is caught by its block's checksum at the next run" 1 \
    "^vmreplay run: $tmp/a.vmr: checksum mismatch in block [0-9]* (bytes [0-9]*-[0-9]*): corrupt file$" \
    "$vmr" run -q -p lru -n 100 "$tmp/a.vmr"
cached=$("$vmr" ingest -q -f json "$tmp/t" | sed -n 's/.*"vmr": "\([^"]*\)".*/\1/p')
printf '\x5a' | dd of="$cached" bs=1 seek=300 conv=notrunc status=none
"$vmr" ingest -q "$tmp/t" >"$tmp/out" 2>&1
check "a damaged cache entry is decoded again, not used" sh -c "! grep -q '(cached)' '$tmp/out'"
run_err "an output in a missing directory: exit 1, nothing written" 1 "cannot create a temporary file" \
    "$vmr" run -q -p lru -n 100 -f tsv -o "$tmp/nodir/x.tsv" "$tmp/b.vmr"

# A device is written in place, never renamed over (that would replace it).
if [ -c /dev/null ] && [ -w /dev/null ]; then
    "$vmr" run -q -p lru -n 100 -f tsv -o /dev/null "$tmp/b.vmr"
    check "-o /dev/null: exit 0 and /dev/null is still a device" test $? -eq 0 -a -c /dev/null
    "$vmr" ingest -q --no-cache -o /dev/null "$tmp/t" >/dev/null
    check "ingest -o /dev/null: exit 0, nothing read back or removed, /dev/null still a device" \
        test $? -eq 0 -a -c /dev/null
fi

# --- run: exact LRU numbers and output formats ---------------------------
"$vmr" run -q -p lru -n 100 -f tsv -o "$tmp/r.tsv" "$tmp/b.vmr"
check "run -f tsv: a header and one row of 16 columns" \
    test "$(awk -F'\t' 'NR==2{print NF}' "$tmp/r.tsv") $(wc -l <"$tmp/r.tsv")" = "16 2"
"$vmr" run -q -p lru -n 100 -f json "$tmp/b.vmr" >"$tmp/r.json"
check "run -f json: one object with the same misses" \
    test "$(json_field "$tmp/r.json" misses)" = "$(awk -F'\t' 'NR==2{print $12}' "$tmp/r.tsv")"
"$vmr" run -q -p lru -n 100 -f tsv "$tmp/t" >"$tmp/r2.tsv"
check "run on the trace directory equals run on its .vmr (but the input name)" \
    test "$(cut -f2- "$tmp/r.tsv")" = "$(cut -f2- "$tmp/r2.tsv")"
"$vmr" run -q -p lru --memory 1G -f tsv "$tmp/b.vmr" >"$tmp/r3.tsv"
check "with room for every page, misses = cold misses and no evictions" \
    awk -F'\t' 'NR==2 && $12==$13 && $14==0 {f=1} END{exit !f}' "$tmp/r3.tsv"

# --- usage errors exit 2 -------------------------------------------------
run_err "run without --policy" 2 "policy is required" "$vmr" run "$tmp/b.vmr"
run_err "run with an unknown policy" 2 "unknown policy 'nope'" "$vmr" run -p nope -n 1 "$tmp/b.vmr"
run_err "run with an absurd page count" 2 "--pages: '-5'" "$vmr" run -p lru -n -5 "$tmp/b.vmr"
run_err "run with an absurd memory size" 2 "--memory: '12Q'" "$vmr" run -p lru -m 12Q "$tmp/b.vmr"
run_err "run with a bad format" 2 "--format: 'xml'" "$vmr" run -p lru -n 1 -f xml "$tmp/b.vmr"
run_err "an unknown subcommand" 2 "'frobnicate' is not a subcommand" "$vmr" frobnicate
# Subcommands the overview marks as not built yet refuse to run.
for sub in $("$vmr" --help | awk '/not built yet/ {print $1}'); do
    run_err "$sub is not built yet and says so" 2 "not built yet" "$vmr" "$sub"
done
"$vmr" run --help >"$tmp/out"; check "run --help lists the lru policy" grep -q '^  lru ' "$tmp/out"
"$vmr" ingest --help >"$tmp/out"; check "ingest --help exits 0" test $? -eq 0
