#!/bin/bash
# Plain LTTng (lttng-modules) sessions, recorded without vmreplay capture:
#  - the README's recipe enables exactly the kernel events and contexts
#    that vmreplay capture enables in its kernel channel (cmd_capture.c),
#    so the documented recipe cannot drift from the tested capture;
#  - a real lttng-modules trace recorded elsewhere (tests/data/external,
#    LTTng 2.5, Linux 3.10): ingest and analyze read it (no reclaim in
#    it), and compare given the limit after `--` says in one line, exit 1,
#    that there is nothing to replay.
# This machine has no lttng-modules: no session is recorded here.  A real
# recording of reclaim, written as a kernel-domain CTF trace and analyzed
# and compared with the limit after --, is in t_tracecmd.sh.
. "$(dirname "$0")/tap.sh"
tap_scratch "${1:-build}"

# The recipe's kernel events and contexts, and the capture's.
sed -n 's/^lttng enable-event --kernel --channel=kvmr //p' README.md | tr ',' '\n' | sort >"$tmp/readme.ev"
sed -n '/static const char \*const kev\[\] = {/,/};/p' capture/cmd_capture.c |
    grep -o '"[a-z0-9_]*"' | tr -d '"' | sort >"$tmp/capture.ev"
check "README recipe: the capture's kernel events ($(wc -l <"$tmp/capture.ev"))" \
    sh -c "test -s '$tmp/capture.ev' && cmp -s '$tmp/readme.ev' '$tmp/capture.ev'"
ctx_readme=$(sed -n 's/^lttng add-context --kernel --channel=kvmr //p' README.md)
check "README recipe: the capture's contexts ($ctx_readme)" \
    grep -q "\"add-context\", \"--kernel\", sess, \"--channel=kvmr\", \"-t\", \"pid\"," capture/cmd_capture.c
check "README recipe: pid, tid and procname" test "$ctx_readme" = "-t pid -t tid -t procname"
for f in README.md doc/man/vmreplay-ingest.1.scd; do
    check "$f: the recipe's compare gives the limit after --" grep -q -- '-- --memory-limit' "$f"
done

# A real lttng-modules trace.
ext=tests/data/external/bug446190
"$vmr" analyze "$ext" >"$tmp/an.txt" 2>"$tmp/err"
check "analyze of an lttng-modules trace: exit 0 ($(head -c 200 "$tmp/err"))" test $? = 0
check "analyze: read as the LTTng kernel domain" grep -q '^source: kernel events (LTTng kernel domain)' "$tmp/an.txt"
check "analyze: no reclaim in it (as its README says)" \
    sh -c "grep -q '^Direct reclaims: *0\$' '$tmp/an.txt' && grep -q '^Memcg reclaims: *0\$' '$tmp/an.txt'"
"$vmr" compare -p classic "$ext" -- --memory-limit 16M >"$tmp/out" 2>"$tmp/err"
rc=$?
check "compare -- --memory-limit 16M on it: exit 1, one line: nothing to replay (rc $rc: $(head -c 200 "$tmp/err"))" \
    sh -c "test $rc = 1 && test \$(wc -l <'$tmp/err') = 1 && grep -q 'nothing to replay: no memory accesses' '$tmp/err'"
check "compare: nothing half-written on stdout" test ! -s "$tmp/out"
echo "1..$tap_n"
