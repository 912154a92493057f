#!/bin/bash
# Capture with LTTng-UST (capture/ust-capture.sh + the instrumented workloads):
#  - each workload, run tiny, leaves a trace that babeltrace2 decodes;
#  - the trace's event classes have exactly the fields of capture/EVENTS.md,
#    in order, with their types;
#  - the trace holds exactly the events the workload says it emitted (its
#    "summary" line), ranges are whole pages, every task_begin has a task_end;
#  - nothing is discarded, and no LTTng session is left behind: after a
#    normal run, a failing workload, SIGINT to the script alone, and SIGINT
#    to the whole process group (Ctrl-C);
#  - a capture records only its own workload, not other instrumented
#    processes running at the same time.
# Usage: tests/t_capture_ust.sh BUILD   (from the repository root)
set -u
. tests/tap.sh
build=${1:-build}
wl=$build/workloads
cap=capture/ust-capture.sh

if [ "$(id -u)" != 0 ]; then
    skip "LTTng-UST capture" "needs root (a session daemon and per-uid buffers of root)"
    exit 0
fi
for c in lttng lttng-sessiond babeltrace2; do
    if ! command -v "$c" >/dev/null 2>&1; then
        skip "LTTng-UST capture" "$c not installed"
        exit 0
    fi
done
if [ ! -x "$wl/build-like" ] || [ ! -x "$wl/anon-storm" ]; then
    nok "workloads are built in $wl"
    exit 0
fi

tmp=$(mktemp -d /tmp/t_capture_ust.XXXXXX)
# (A session daemon started by ust-capture.sh is left running: other
# captures, including concurrent runs of this test, may be using it.)
trap 'rm -rf "$tmp"' EXIT

# The contract of capture/EVENTS.md: event, then field:type in order.
expected_schema() {
    cat <<'EOF'
vmreplay:anon_access pid:u32 tid:u32 addr:u64 len:u64 write:u8
vmreplay:anon_free pid:u32 tid:u32 addr:u64 len:u64
vmreplay:cgroup pid:u32 tid:u32 path:string limit:u64 swappiness:s32
vmreplay:file_access pid:u32 tid:u32 dev:u64 ino:u64 offset:u64 len:u64 op:u8
vmreplay:file_drop pid:u32 tid:u32 dev:u64 ino:u64
vmreplay:session workload:string argv:string memory_limit:u64 swappiness:s32 page_size:u32 kernel_release:string hostname:string nr_cpus:u32 mem_total:u64 lru_kind:string
vmreplay:task_begin pid:u32 tid:u32 ppid:u32 comm:string
vmreplay:task_end pid:u32 tid:u32 status:s32
vmreplay:vmstat pgscan_kswapd:u64 pgscan_direct:u64 pgscan_anon:u64 pgscan_file:u64 pgsteal_kswapd:u64 pgsteal_direct:u64 pgsteal_anon:u64 pgsteal_file:u64 pgrefill:u64 pgactivate:u64 pgdeactivate:u64 workingset_refault_anon:u64 workingset_refault_file:u64 workingset_activate_anon:u64 workingset_activate_file:u64 workingset_restore_anon:u64 workingset_restore_file:u64 pswpin:u64 pswpout:u64 allocstall:u64 pgscan_direct_throttle:u64 oom_kill:u64 pgfault:u64 pgmajfault:u64 nr_free_pages:u64 nr_isolated_anon:u64 nr_isolated_file:u64
EOF
}

# The event classes of trace $1, in the same form, from its TSDL metadata.
trace_schema() {
    babeltrace2 -o ctf-metadata "$1" | awk '
        /^event \{/                { ev = ""; inf = 0 }
        /^\tname = "/              { ev = $3; gsub(/[";]/, "", ev) }
        /^\tfields := struct \{/   { inf = 1; line = ev; next }
        inf && /^\t\};/            { print line; inf = 0; next }
        inf {
            name = $NF; gsub(/[;]/, "", name); sub(/^_/, "", name)
            if ($1 == "string") t = "string"
            else {
                size = $0; sub(/.*size = /, "", size); sub(/;.*/, "", size)
                t = ($0 ~ /signed = 1/ ? "s" : "u") size
            }
            line = line " " name ":" t
        }' | sort
}

names="session vmstat task_begin task_end cgroup anon_access anon_free file_access file_drop"

# Per-event counts of trace $1, one "name=N" per line, zeros included.
trace_counts() {
    babeltrace2 "$1" | awk -v names="$names" '
        { for (i = 1; i <= NF; i++) if ($i ~ /^vmreplay:/) {
              n = $i; sub(/^vmreplay:/, "", n); sub(/:$/, "", n); c[n]++; break } }
        END { k = split(names, a, " "); for (i = 1; i <= k; i++) print a[i] "=" c[a[i]] + 0 }'
}

# The same from the workload's summary line in log $1.
summary_counts() {
    grep -m1 ': summary ' "$1" | tr ' ' '\n' | awk -F= -v names="$names" '
        NF == 2 { c[$1] = $2 }
        END { k = split(names, a, " "); for (i = 1; i <= k; i++) print a[i] "=" c[a[i]] + 0 }'
}

# Every anon/file range is page-aligned and a whole number of pages.
ranges_are_pages() {
    babeltrace2 "$1" | awk '
        /vmreplay:anon_(access|free):/ {
            a = $0; sub(/.* addr = /, "", a); sub(/,.*/, "", a)
            l = $0; sub(/.* len = /, "", l); sub(/[, ].*/, "", l)
            if (a % 4096 || l % 4096 || l == 0) bad++ }
        /vmreplay:file_access:/ {
            o = $0; sub(/.* offset = /, "", o); sub(/,.*/, "", o)
            l = $0; sub(/.* len = /, "", l); sub(/[, ].*/, "", l)
            if (o % 4096 || l % 4096 || l == 0) bad++ }
        END { exit bad > 0 }'
}

session_of() { sed -n 's/^ust-capture: session //p' "$1" | head -n1; }
session_gone() { [ -n "$1" ] && ! lttng list 2>/dev/null | grep -qF "$1"; }
trace_dir() { echo "$1/ust/uid/0/64-bit"; }

# Checks a finished capture: $1 label, $2 outdir, $3 log.
check_capture() {
    local label=$1 dir log=$3 want got
    dir=$(trace_dir "$2")
    if babeltrace2 "$dir" >"$tmp/decoded" 2>"$tmp/bt.err" && [ -s "$tmp/decoded" ]; then
        ok "$label: babeltrace2 decodes the trace"
    else
        nok "$label: babeltrace2 decodes the trace"; sed 's/^/# /' "$tmp/bt.err"
        return
    fi
    if [ "$(head -n1 "$tmp/decoded" | grep -o 'vmreplay:[a-z_]*')" = vmreplay:session ]; then
        ok "$label: vmreplay:session is the first event"
    else
        nok "$label: vmreplay:session is the first event"
    fi
    if got=$(diff <(expected_schema | sort) <(trace_schema "$dir")); then
        ok "$label: event fields, order and types are those of EVENTS.md"
    else
        nok "$label: event fields, order and types are those of EVENTS.md"
        echo "$got" | sed 's/^/# /'
    fi
    want=$(summary_counts "$log")
    got=$(trace_counts "$dir")
    if [ -n "$want" ] && [ "$want" = "$got" ] && grep -q ': summary ' "$log"; then
        ok "$label: event counts match the workload's summary"
    else
        nok "$label: event counts match the workload's summary"
        diff <(echo "$want") <(echo "$got") | sed 's/^/# /'
    fi
    if [ "$(echo "$got" | sed -n 's/^task_begin=//p')" = "$(echo "$got" | sed -n 's/^task_end=//p')" ]; then
        ok "$label: every task_begin has its task_end"
    else
        nok "$label: every task_begin has its task_end"
    fi
    check "$label: ranges are whole pages" ranges_are_pages "$dir"
    if grep -q '^ust-capture: discarded events: 0$' "$log" && ! grep -qi discarded "$tmp/bt.err"; then
        ok "$label: no event discarded"
    else
        nok "$label: no event discarded"; grep -i discarded "$log" "$tmp/bt.err" | sed 's/^/# /'
    fi
}

# 1-2. Each workload, tiny.
bash "$cap" "$tmp/bl" -- "$wl/build-like" --workers 2 --units 2 --heap-mb 2 \
    --headers 4 --header-kb 8 --source-kb 12 --object-kb 20 --chunk-kb 16 \
    --vmstat-ms 10 --seed 7 >"$tmp/bl.log" 2>&1
rc=$?
check "build-like: capture exits 0" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/bl.log"
check "build-like: session destroyed" session_gone "$(session_of "$tmp/bl.log")"
check_capture build-like "$tmp/bl" "$tmp/bl.log"
if grep -q 'vmreplay:file_access:.* op = 0 ' "$tmp/decoded" &&
   grep -q 'vmreplay:file_access:.* op = 1 ' "$tmp/decoded" &&
   grep -q 'vmreplay:anon_access:.* write = 0 ' "$tmp/decoded" &&
   [ "$(grep -c 'vmreplay:task_begin:' "$tmp/decoded")" = 3 ] &&
   [ "$(grep -o 'vmreplay:task_begin: .* pid = [0-9]*' "$tmp/decoded" | sort -u | wc -l)" = 3 ]; then
    ok "build-like: 3 processes, reads, writes and heap loads are all there"
else
    nok "build-like: 3 processes, reads, writes and heap loads are all there"
fi

bash "$cap" "$tmp/as" -- "$wl/anon-storm" --threads 3 --wss-mb 4 --run-pages 2 \
    --touches 500 --hot-mb 1 --hot-pct 50 --vmstat-ms 10 >"$tmp/as.log" 2>&1
rc=$?
check "anon-storm: capture exits 0" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/as.log"
check "anon-storm: session destroyed" session_gone "$(session_of "$tmp/as.log")"
check_capture anon-storm "$tmp/as" "$tmp/as.log"
check "anon-storm: 3 x 500 touches of 2 pages" grep -q ' anon_access=1500 anon_free=1 .* anon_pages=3000 ' "$tmp/as.log"

# 3. A failing workload: its exit status comes through, the session goes.
bash "$cap" "$tmp/bad" -- "$wl/build-like" --workers 0 >"$tmp/bad.log" 2>&1
rc=$?
check "failing workload: capture exits with its status (2)" [ "$rc" = 2 ]; [ "$rc" = 2 ] || sed "s/^/# /" "$tmp/bad.log"
check "failing workload: session destroyed" session_gone "$(session_of "$tmp/bad.log")"

# 4. A non-empty output directory is refused before any session exists.
mkdir -p "$tmp/full" && touch "$tmp/full/x"
bash "$cap" "$tmp/full" -- "$wl/anon-storm" >"$tmp/full.log" 2>&1
rc=$?
check "non-empty OUTDIR: refused with status 2 and no session" \
    [ "$rc" = 2 -a -z "$(session_of "$tmp/full.log")" ]

# Waits (up to 10 s) until the workload of capture log $1 has emitted.
wait_started() {
    local i
    for i in $(seq 100); do
        [ -n "$(session_of "$1")" ] && [ -d "$2" ] &&
            [ -n "$(find "$2" -name metadata 2>/dev/null)" ] && { sleep 0.5; return 0; }
        sleep 0.1
    done
    return 1
}

# A background job of a non-interactive shell ignores SIGINT, and a shell
# cannot trap a signal it started with ignored: give the script its default.
if ! env --default-signal=INT true 2>/dev/null; then
    skip "SIGINT checks" "env --default-signal unsupported (coreutils < 8.31)"
    exit 0
fi

# 5. SIGINT to the script alone (kill): it stops the workload, which winds
#    down and ends its tasks; the trace is whole and the session is gone.
env --default-signal=INT bash "$cap" "$tmp/int" -- "$wl/anon-storm" --threads 2 \
    --wss-mb 8 --run-pages 1024 --touches 0 --duration 60 >"$tmp/int.log" 2>&1 &
pid=$!
if wait_started "$tmp/int.log" "$tmp/int"; then
    # Meanwhile an instrumented process outside the capture: not recorded.
    "$wl/build-like" --workers 1 --units 1 --headers 1 --vmstat-ms 0 2>"$tmp/outside.log"
    kill -INT "$pid"
    wait "$pid"
    rc=$?
    check "SIGINT to the script: exits with the workload's status (1)" [ "$rc" = 1 ]
    check "SIGINT to the script: session destroyed" session_gone "$(session_of "$tmp/int.log")"
    check_capture "anon-storm interrupted" "$tmp/int" "$tmp/int.log"
    check "isolation: a concurrent workload outside the capture is not in the trace" \
        [ "$(grep -c 'vmreplay:session:' "$tmp/decoded")" = 1 -a \
          "$(grep -c 'comm = "build-like"' "$tmp/decoded")" = 0 ]
else
    kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    nok "SIGINT to the script: the capture started"; sed 's/^/# /' "$tmp/int.log"
fi

# 6. Ctrl-C: SIGINT to the whole process group (script, workload, workers).
setsid env --default-signal=INT bash "$cap" "$tmp/cc" -- "$wl/build-like" \
    --workers 2 --units 100000 --heap-mb 8 --headers 2 --vmstat-ms 0 >"$tmp/cc.log" 2>&1 &
pid=$!
if wait_started "$tmp/cc.log" "$tmp/cc"; then
    kill -INT -- -"$pid"
    wait "$pid"
    rc=$?
    check "Ctrl-C: exits with the workload's status (1)" [ "$rc" = 1 ]
    check "Ctrl-C: session destroyed" session_gone "$(session_of "$tmp/cc.log")"
    check_capture "build-like interrupted" "$tmp/cc" "$tmp/cc.log"
else
    kill -KILL -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    nok "Ctrl-C: the capture started"; sed 's/^/# /' "$tmp/cc.log"
fi
exit 0
