#!/bin/bash
# traces/uml-sessions.sh [--reps N] [--build DIR] [WORKLOAD...]
#
# Remakes the test bed's real sessions: traces/sessions/uml-6.12-mglru
# (Debian's 6.12 under User-Mode Linux, MGLRU on) and
# traces/sessions/uml-6.12-classic (the same kernel, lru_gen off), every
# WORKLOAD (default compile reader mix mt-anon) at swappiness 1, 100 and
# 200, N captures each (default 3), with traces/sessions.sh --kernel 6.12
# (its header says what each workload is; it boots one guest per capture,
# under the test bed's lock).  The kernel is built first if it is not
# cached (make testbed).  About 40 s a capture on this machine.
set -eu
cd "$(dirname "$0")/.."
for lru in y n; do
    traces/sessions.sh --kernel 6.12 --lru-gen "$lru" "$@"
done
