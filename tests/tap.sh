# TAP helpers for the shell tests (sourced by tests/t_*.sh).
# Shell tests print one TAP line per check; tests/run.sh counts them.
tap_n=0
ok()   { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
nok()  { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
# check NAME CMD... : ok when CMD exits 0
check() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }
# run_err NAME RC PATTERN CMD... : CMD ends within 60 s with exit code RC
# and one stderr line matching PATTERN; a usage error (RC 2) has a second
# line, "Try 'vmreplay SUBCMD --help'." (CMD's output: $tmp/out, $tmp/err)
run_err() {
    local name=$1 want=$2 pat=$3; shift 3
    timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    local lines; lines=$(wc -l <"$tmp/err")
    local usage=1
    if [ "$want" -eq 2 ]; then
        [ "$lines" -eq 2 ] && sed -n 2p "$tmp/err" | grep -q "^Try 'vmreplay \([a-z]* \)\?--help'\.$" || usage=0
        lines=$((lines - 1))
    fi
    if [ "$rc" -eq "$want" ] && [ "$lines" -eq 1 ] && [ $usage = 1 ] && head -1 "$tmp/err" | grep -q -- "$pat"; then
        ok "$name"
    else
        nok "$name (rc=$rc, want $want; $(wc -l <"$tmp/err") stderr lines: $(head -c 300 "$tmp/err"))"
    fi
}
