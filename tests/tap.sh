# TAP helpers for the shell tests (sourced by tests/t_*.sh).
# Shell tests print one TAP line per check; tests/run.sh counts them.
tap_n=0
ok()   { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
nok()  { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
# check NAME CMD... : ok when CMD exits 0
check() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }
