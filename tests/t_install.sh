#!/bin/bash
# make install DESTDIR=… PREFIX=/usr from a fresh build directory, then
# the installed binary alone (run from elsewhere, no VMREPLAY_* paths):
# run gives the in-tree binary's result, plot draws with the installed
# gnuplot scripts, capture records with the installed agent; the tree
# still works when moved as a whole; make uninstall removes every file.
# Also: the build honours CFLAGS/CPPFLAGS/LDFLAGS and WERROR.
. "$(dirname "$0")/tap.sh"
build=${1:-build}
src=$PWD
tmp=$(mktemp -d /tmp/vmreplay-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset VMREPLAY_PLOTS VMREPLAY_AGENT
# Not the flags and variables of a make that runs this test.
unset MAKEFLAGS MFLAGS MAKELEVEL
export VMREPLAY_CACHE=$tmp/cache

# --- flags ----------------------------------------------------------------
# -B -n prints every command without running one.
flags=$(make -s -B -n BUILD="$tmp/n" CFLAGS="-O1 -g3" CPPFLAGS=-DVMR_T_CPP LDFLAGS=-Wl,-O1 programs 2>&1)
check "CFLAGS and CPPFLAGS from the command line reach the compiler, after -Werror" \
    grep -q -- '-DVMR_T_CPP .*-Werror -O1 -g3' <<<"$flags"
check "LDFLAGS reaches the linker" grep -q -- '-Wl,-O1 .*-o '"$tmp/n/vmreplay"'$' <<<"$flags"
flags=$(CFLAGS="-O0 -g" make -s -B -n BUILD="$tmp/n" WERROR= programs 2>&1)
check "CFLAGS from the environment is honoured" grep -q -- ' -O0 -g ' <<<"$flags"
check "WERROR= drops -Werror" bash -c '! grep -q -- -Werror <<<"$1"' _ "$flags"
flags=$(make -s -n BUILD="$tmp/n" install 2>&1)
check "the default prefix is /usr/local" grep -q "/usr/local/bin/vmreplay" <<<"$flags"

# --- install --------------------------------------------------------------
root=$tmp/root
if ! make -s -j"$(nproc)" BUILD="$tmp/build" PREFIX=/usr DESTDIR="$root" install >"$tmp/make.log" 2>&1; then
    nok "make install DESTDIR=… PREFIX=/usr"
    sed 's/^/# /' "$tmp/make.log" | tail -20
    exit 0
fi
ok "make install DESTDIR=… PREFIX=/usr"
missing=""
for f in bin/vmreplay libexec/vmreplay/vmreplay-capture-agent libexec/vmreplay/ust-capture \
         $(cd capture/workloads && ls *.c | grep -v '^wl_' | sed 's,^,libexec/vmreplay/,; s,\.c$,,') \
         $(cd plots && ls *.gp | sed 's,^,share/vmreplay/plots/,') \
         $(cd doc/man && ls *.scd | sed -E 's,^(.*)\.([0-9])\.scd$,share/man/man\2/\1.\2,') \
         share/bash-completion/completions/vmreplay \
         share/doc/vmreplay/README.md share/doc/vmreplay/replay/vmr/FORMAT.md share/doc/vmreplay/analysis/RESULTS.md; do
    [ -f "$root/usr/$f" ] || missing="$missing $f"
done
check "every file in its place under DESTDIR/usr${missing:+ (missing:$missing)}" test -z "$missing"
check "programs executable, data not" bash -c "test -x '$root/usr/bin/vmreplay' -a -x '$root/usr/libexec/vmreplay/vmreplay-capture-agent' -a ! -x '$root/usr/share/vmreplay/plots/swappiness.gp'"

if command -v man >/dev/null 2>&1; then
    check "installed: man finds vmreplay-run(1) and vmreplay-vmr(5) by name" \
        bash -c "MANPATH='$root/usr/share/man' man -w vmreplay-run | grep -q 'man1/vmreplay-run.1' &&
                 MANPATH='$root/usr/share/man' man -w 5 vmreplay-vmr | grep -q 'man5/vmreplay-vmr.5'"
fi

vmr=$root/usr/bin/vmreplay
cd "$tmp" || exit 1
check "installed: -V prints the version" bash -c "'$vmr' -V | grep -q '^vmreplay [0-9]'"

# run: the same result as the in-tree binary's, but for the trace column.
trace=$src/traces/anon-storm-small/ctf
"$vmr" run -q -p classic --memory-limit 16M -f tsv "$trace" >"$tmp/inst.tsv" 2>"$tmp/err"
check "installed: run exits 0" test $? -eq 0
"$src/$build/vmreplay" run -q -p classic --memory-limit 16M -f tsv "$trace" >"$tmp/tree.tsv" 2>/dev/null
check "installed: run gives the in-tree binary's result" cmp -s "$tmp/inst.tsv" "$tmp/tree.tsv"
check "installed: run reclaimed something (pgsteal_anon > 0)" \
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { exit !($c["pgsteal_anon"] > 0) }' "$tmp/inst.tsv"

# plot: only the installed scripts are reachable from here.
"$vmr" plot -o "$tmp/fig" "$src/tests/data/stats-fixture" >"$tmp/plot.log" 2>&1
check "installed: plot exits 0" test $? -eq 0 || sed 's/^/# /' "$tmp/plot.log"
check "installed: plot drew the figures" test "$(head -c 4 "$tmp/fig/missratio.pdf" 2>/dev/null)" = "%PDF"

check "installed: capture --help" bash -c "'$vmr' capture --help | grep -q '^usage: vmreplay capture'"
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing -o -d /sys/kernel/debug/tracing ]; then
    "$vmr" capture -q -o "$tmp/cap" --limit 32M -- /bin/true >"$tmp/cap.log" 2>&1
    rc=$?
    check "installed: capture runs its installed agent (rc $rc)" \
        bash -c "test $rc -eq 0 && grep -q 'kernel events bridged' '$tmp/cap.log'" || sed 's/^/# /' "$tmp/cap.log"
else
    skip "installed: capture runs its installed agent" "needs root and tracefs"
fi

# Moved as a whole, the tree still finds its files; the binary alone does
# not (unless vmreplay is installed system-wide, the compiled-in prefix).
mv "$root" "$tmp/moved"
"$tmp/moved/usr/bin/vmreplay" plot -o "$tmp/fig2" "$src/tests/data/stats-fixture" >/dev/null 2>&1
check "moved tree: plot still finds the scripts" test -s "$tmp/fig2/missratio.pdf"
cp "$tmp/moved/usr/bin/vmreplay" "$tmp/alone"
if [ -e /usr/share/vmreplay/plots/swappiness.gp ]; then
    skip "a lone binary: plot names what it cannot find" "vmreplay is installed in /usr"
else
    "$tmp/alone" plot -o "$tmp/fig3" "$src/tests/data/stats-fixture" >/dev/null 2>"$tmp/err"
    rc=$?
    check "a lone binary: plot exits 1 naming the gnuplot scripts" \
        bash -c "test $rc -eq 1 && grep -q 'cannot find the gnuplot scripts' '$tmp/err'"
fi
mv "$tmp/moved" "$root"

# --- uninstall ------------------------------------------------------------
cd "$src" || exit 1
make -s BUILD="$tmp/build" PREFIX=/usr DESTDIR="$root" uninstall >"$tmp/make.log" 2>&1
check "make uninstall exits 0" test $? -eq 0
left=$(find "$root" -type f | sed "s,^$root,," | tr '\n' ' ')
check "make uninstall leaves no file${left:+ (left: $left)}" test -z "$left"
