#!/bin/bash
# traces/sessions.sh [options] [WORKLOAD...]
#
# Captures the real reclaim sessions of traces/sessions/: every WORKLOAD
# (default: all) at swappiness 1, 100 and 200, REPS captures each (the
# replicates of the fidelity scoreboard, `vmreplay validate`), on this
# machine's kernel or in the test bed's User-Mode Linux guest; each
# capture's CTF is kept as ctf.tar.xz beside a README.md saying how it was
# made.  Needs root (see `vmreplay capture --help`).  On this machine's
# kernel each capture first drops the machine's page cache and its shadow
# entries (`vmreplay capture --drop-caches`), except compile's, whose
# command runs once after the drop so that its compilers are cached
# (warm_of, below); the test bed's guest boots with an empty one.
#
#   --reps N        captures per workload and swappiness (default 3)
#   --kernel K      capture in the test bed (capture/testbed/): 6.12, 6.1, a
#                   tree or a UML binary; --lru-gen y|n there (default y)
#   --lru-gen V     y (MGLRU) or n (classic) in the guest
#   --out DIR       where the sessions go (default traces/sessions/KERNEL,
#                   KERNEL being e.g. 6.18-classic or 6.12-mglru)
#   --build DIR     the build directory (default build)
#   --capture-opt O an option more for every `vmreplay capture` (repeatable;
#                   e.g. --capture-opt --young-ms=100)
#
# Workloads (none is one of the instrumented workloads of capture/workloads;
# their demand comes from the kernel's page faults and page-cache events):
#   compile   gcc -O2 of four translation units of this repository, two at
#             a time (peak 30 MiB), limit 20 MiB (16 MiB ran out of
#             memory uncaptured)
#   kbuild    a Linux build subset: `make -j2 mm/vmscan.o mm/memory.o
#             kernel/fork.o` in Debian's linux-source-6.12 after defconfig
#             and `make prepare` (peak about 200 MiB), limit 96 MiB (at
#             68 MiB the memcg OOM killer ended cc1)
#   reader    a file reader and re-reader: cat of four 16 MiB files, then
#             the first two again (cold cache), limit 24 MiB
#   mix       python3 writing 96 MiB of anonymous memory, reading a
#             16 MiB file twice, writing the memory again (peak 98 MiB),
#             limit 24 MiB
#   churn     python3 building and dropping dicts and lists of about
#             35 MiB three times (peak 40 MiB), limit 32 MiB (at 24 MiB
#             the kernel's memcg OOM killer ended it)
#   mt-anon   stress-ng --vm 2 workers over 64 MiB of anonymous memory, a
#             fixed number of passes (peak about 66 MiB), limit 40 MiB (at
#             28 MiB the memcg OOM killer ended workers)
#
# In the test bed (--kernel) the workloads are smaller, so that a capture
# (every fault of the test bed's tracepoint is an event) stays a few
# hundred KiB compressed, and its files are held open: hostfs, the
# guest's root, evicts a file's page cache when its last reference goes
# (hostfs_sbops.drop_inode = generic_delete_inode; measured: every page a
# closed file added was deleted again, no file reclaim at all).  Default
# there: compile reader mix mt-anon, sessions in traces/sessions/uml-K-LRU.
#   compile   gcc -O2 of two translation units, both at once, limit 40 MiB
#   reader    cat of four 6 MiB files, then the first two again, the files
#             held open throughout, limit 16 MiB
#   mix       python3 writing 32 MiB of anonymous memory, reading three
#             6 MiB files (held open) twice, writing the memory again,
#             limit 24 MiB
#   mt-anon   stress-ng --vm 2 workers over 32 MiB, 2000 operations,
#             limit 16 MiB
set -eu
reps=3 kernel="" lru_gen=y out="" build=build copt=()
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --kernel) kernel=$2; shift 2 ;;
    --lru-gen) lru_gen=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --capture-opt) copt+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*) echo "sessions.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
vmr=$root/$build/vmreplay
[ -x "$vmr" ] || { echo "sessions.sh: build first: make" >&2; exit 1; }
[ "$(id -u)" = 0 ] || [ -n "$kernel" ] || { echo "sessions.sh: needs root" >&2; exit 1; }
if [ -n "$kernel" ]; then
    workloads=${*:-compile reader mix mt-anon}
else
    workloads=${*:-compile kbuild reader mix churn mt-anon}
fi
# kbuild writes its objects into the kernel tree, which the guest sees
# read-only (and a copy in the guest's tmpfs would be charged to it).
if [ -n "$kernel" ]; then
    case " $workloads " in *" kbuild "*)
        echo "sessions.sh: kbuild cannot run in the test bed (its tree is read-only there)" >&2; exit 2 ;;
    esac
fi
# The workloads: their inputs, limits and commands (traces/workloads.sh).
commit=$(git rev-parse --short HEAD)
# shellcheck source=traces/workloads.sh
. "$root/traces/workloads.sh"
workload_inputs "$workloads"

# Captures never overlap: a host capture swaps on and off and makes
# memcgs; the test bed boots one guest at a time.  The lock is taken here
# per capture: do not run this script under it yourself.
if [ -n "$kernel" ]; then
    kopt=(--kernel "$kernel" --lru-gen "$lru_gen" --swap zram)
    lock=/run/vmreplay-testbed.lock
    bi=$(capture/testbed/build.sh -q -k "$kernel")/build-info
    guest_kernel="$(sed -n 's/^release=//p' "$bi") ($(sed -n 's/^source=//p' "$bi"), build $(sed -n 's/^key=//p' "$bi"),
patches $(sed -n 's/^patches=//p' "$bi")), lru_gen $lru_gen"
else
    # A host session starts as cold as the test bed's freshly booted
    # guest: the machine's page cache and its shadow entries are dropped
    # first, so that no refault the kernel counts is of the replicate
    # before's evictions (doc/tracing-notes.md §8).
    kopt=(--drop-caches)
    lock=/run/vmreplay-capture.lock
fi
# compile's compilers stay cached, as on a machine that builds: cold, the
# 8,141 pages (32 MiB) of cc1 a compile reads go into its 20 MiB memcg
# and thrash (2026-12-03, on a quiet machine: compile-sw1-1 ran for over
# 2.5 min, 77,447 major faults and counting, where warm it takes 2-4 s).
# So before each of its captures the page cache and its shadow entries
# are dropped here and the command runs once outside any memcg (its files
# cached in the root memcg, where the session's reclaim never goes), and
# the capture itself drops nothing more than its exec's inputs.
warm_of() { case $1 in compile) echo 1 ;; esac; }
# Sessions of one kernel go together: validate never groups different
# kernels, and the folder says which one (6.18-classic, uml-6.12-mglru).
if [ -z "$out" ]; then
    if [ -n "$kernel" ]; then
        [ "$lru_gen" = n ] && lru=classic || lru=mglru
        out=traces/sessions/uml-$(basename "$kernel")-$lru
    else
        [ -e /sys/kernel/mm/lru_gen/enabled ] && [ "$(cat /sys/kernel/mm/lru_gen/enabled)" != 0x0000 ] &&
            lru=mglru || lru=classic
        out=traces/sessions/$(uname -r | cut -d. -f1-2)-$lru
    fi
fi
tmp=$(mktemp -d /var/tmp/vmreplay-sessions.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for wl in $workloads; do
    for sw in 1 100 200; do
        for r in $(seq "$reps"); do
            name=$wl-sw$sw-$r
            cap=$tmp/$name
            echo "== $name" >&2
            wopt=("${kopt[@]}") warm=""
            if [ -z "$kernel" ] && [ -n "$(warm_of "$wl")" ]; then
                wopt=() warm=$(command_of "$wl")
            fi
            wopt+=(${copt[@]+"${copt[@]}"})
            # shellcheck disable=SC2046
            flock "$lock" bash -c '. "$1/traces/workloads.sh" && drop_inputs &&
                { [ -z "$2" ] || { sync && echo 1 >/proc/sys/vm/drop_caches && $2 >/dev/null 2>&1; }; } &&
                shift 2 && exec "$@"' \
                _ "$root" "$warm" "$vmr" capture ${wopt[@]+"${wopt[@]}"} -o "$cap" --limit "$(limit_of "$wl")" --swappiness "$sw" -- \
                $(command_of "$wl") >"$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log" >&2; exit 1; }
            grep -q 'discarded events: 0 (LTTng), 0 (ftrace)' "$tmp/$name.log" ||
                { cat "$tmp/$name.log" >&2; echo "$name: events were discarded" >&2; exit 1; }
            grep -q 'workload ended after .* (status 0)' "$tmp/$name.log" ||
                { cat "$tmp/$name.log" >&2; echo "$name: the workload failed" >&2; exit 1; }
            # the session: ust/ and the bridged events' kernel/ trace
            ctf=$cap
            dest=$out/$name
            rm -rf "$dest"
            mkdir -p "$dest"
            tar -C "$ctf" -cf - $(cd "$ctf" && ls -d kernel ust 2>/dev/null) | xz -9 -T2 >"$dest/ctf.tar.xz"
            {
                echo "# $name"
                echo
                echo "Workload \`$wl\` at swappiness $sw, capture $r of $reps (traces/sessions.sh;"
                echo "its header says what each workload is and why its limit)."
                echo
                [ -z "$warm" ] || echo "After the page cache and its shadows were dropped and the command ran once outside any memcg (warm_of):"
                echo "    build/vmreplay capture ${wopt[*]} -o OUT --limit $(limit_of "$wl") --swappiness $sw -- \\"
                echo "        $(command_of "$wl")"
                echo
                [ -z "$kernel" ] || echo "In the test bed's User-Mode Linux guest: $guest_kernel."
                echo "made $(date -u '+%Y-%m-%d %H:%M UTC') from vmreplay $commit; ctf.tar.xz is"
                echo "OUT/kernel and OUT/ust ($(du -sh "$ctf" | cut -f1) unpacked). Capture output:"
                echo
                sed 's/^/    /' "$tmp/$name.log" | sed "s|$tmp|/var/tmp/vmreplay-sessions|g"
            } >"$dest/README.md"
            rm -rf "$cap"
        done
    done
done
echo "sessions in $out; the scoreboard: build/vmreplay validate $out" >&2
