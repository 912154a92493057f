#!/bin/bash
# Runs every test and prints one closing line: "N passed, N failed, N skipped".
#   C tests:     BUILD/tests/test_*   (cmocka, TAP output)
#   shell tests: tests/t_*.sh         (TAP output; get BUILD as $1)
# A test that cannot run here (no root, no tracefs, …) reports "ok … # SKIP why".
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export CMOCKA_MESSAGE_OUTPUT=TAP
export VMREPLAY_BUILD="$root/$build"
passed=0 failed=0 skipped=0
log=$(mktemp); trap 'rm -f "$log"' EXIT

tally() {  # $1 = name; reads TAP on stdin, echoes it, counts it
    local name=$1 line ran=0
    while IFS= read -r line; do
        case $line in
        "not ok"*) failed=$((failed + 1)); ran=1; echo "FAIL $name: $line" ;;
        "ok "*"# SKIP"*|"ok "*"# skip"*) skipped=$((skipped + 1)); ran=1; echo "SKIP $name: ${line#*# }" ;;
        "ok "*) passed=$((passed + 1)); ran=1 ;;
        "#"*|""|[0-9]*..[0-9]*) ;;
        *) echo "     $name: $line" ;;
        esac
    done
    return 0
}

for t in "$build"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    "$t" >"$log" 2>&1; rc=$?
    tally "$name" <"$log"
    if [ $rc -ne 0 ] && ! grep -q '^not ok' "$log"; then
        failed=$((failed + 1)); echo "FAIL $name: exited $rc"; cat "$log"
    fi
done
for t in tests/t_*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    bash "$t" "$build" >"$log" 2>&1; rc=$?
    tally "$name" <"$log"
    if [ $rc -ne 0 ] && ! grep -q '^not ok' "$log"; then
        failed=$((failed + 1)); echo "FAIL $name: exited $rc"; cat "$log"
    fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
