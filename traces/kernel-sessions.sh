#!/bin/bash
# traces/kernel-sessions.sh [BUILD] [WORKLOAD...]
#
# Captures the real reclaim sessions bundled as traces/<workload>-sw<N>/
# (N = 1, 100, 200) on this machine with `vmreplay capture`, and writes
# each one's README.md with its numbers (vmreplay analyze, and vmreplay
# compare against the classic replay when `run` has that policy).
# Needs root (see `vmreplay capture --help`).  WORKLOADs: compile, reader,
# anon-mt (default: all three).
#
#   compile   a parallel compile job: gcc -O2 on two translation units of
#             this repository at once, limit 32 MiB
#   reader    a file-cache-heavy reader: cat of four 5 MiB files once,
#             then the first two again, limit 16 MiB (files made and
#             written back before the capture, then dropped from the page
#             cache, so that every read is a real one)
#   anon-mt   a multi-threaded anonymous job: build/workloads/anon-storm,
#             4 threads storing to a 96 MiB set with a 32 MiB hot part,
#             limit 48 MiB (instrumented: the trace also holds its exact
#             access stream, which the replay then uses)
#
# (The capture's perturbation, capture against --no-trace: traces/perturbation.sh.)
set -eu
build=${1:-build}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
vmr=$root/$build/vmreplay
[ -x "$vmr" ] && [ -x "$build/vmreplay-capture-agent" ] && [ -x "$build/workloads/anon-storm" ] ||
    { echo "build first: make" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "kernel-sessions.sh: needs root" >&2; exit 1; }
workloads=${*:-compile reader anon-mt}
work=/var/tmp/vmreplay-sessions
rm -rf "$work"
mkdir -p "$work/src" "$work/data" "$work/obj"
trap 'rm -rf "$work"' EXIT
commit=$(git rev-parse --short HEAD)

# The compile job's sources, as of this commit.
git archive HEAD lib replay analysis capture | tar -x -C "$work/src"
cat >"$work/compile.sh" <<EOF
#!/bin/sh
# two compilers at once, two translation units of vmreplay ($commit);
# fails if either does (a session of failed compiles is no compile)
cd $work/src
F="-std=gnu11 -O2 -D_GNU_SOURCE -Ilib -Ireplay -Ianalysis -Icapture"
cc \$F -c replay/ingest/kevents.c -o $work/obj/1.o & a=\$!
cc \$F -c analysis/analyze.c -o $work/obj/2.o & b=\$!
wait \$a && wait \$b || exit 1
EOF
for i in 1 2 3 4; do head -c 5M /dev/urandom >"$work/data/f$i"; done
sync
cat >"$work/reader.sh" <<EOF
#!/bin/sh
# four 5 MiB files read once, then the first two again
d=$work/data
cat \$d/f1 \$d/f2 \$d/f3 \$d/f4 > /dev/null
cat \$d/f1 \$d/f2 > /dev/null
EOF
chmod +x "$work/compile.sh" "$work/reader.sh"

limit_of() { case $1 in compile) echo 32M ;; reader) echo 16M ;; anon-mt) echo 48M ;; esac; }
command_of() {
    case $1 in
    compile) echo "$work/compile.sh" ;;
    reader) echo "$work/reader.sh" ;;
    anon-mt) echo "$root/$build/workloads/anon-storm --threads 4 --wss-mb 96 --touches 6000 --hot-mb 32 --hot-pct 70 --seed 1" ;;
    esac
}
describe() {
    case $1 in
    compile) cat <<EOF
A parallel compile job: \`gcc -O2 -c\` of two translation units of this
repository at once (replay/ingest/kevents.c and analysis/analyze.c; sources of
commit $commit), in a 32 MiB memory cgroup. Each cc1 grows to tens of MiB of anonymous
memory, so two at a time overflow the limit: memcg reclaim swaps their
heaps out and in. Not instrumented: the demand stream is made from the
kernel's page faults and page-cache events (replay/vmr/FORMAT.md).
EOF
    ;;
    reader) cat <<EOF
A file-cache-heavy reader: \`cat\` of four 5 MiB files (20 MiB) once,
then of the first two again, to /dev/null, in a 16 MiB memory cgroup. The
files were written and synced before the capture and dropped from the
page cache (\`dd iflag=nocache count=0\`), so every pass reads them anew
and memcg reclaim evicts page cache the whole time. Not instrumented: the
demand stream is the kernel's \`mm_filemap_get_pages\` reads.

Note on this machine: at high swappiness (the sw200 session) the kernel
also reclaims swap-backed pages charged to the cgroup (pgscan_anon,
pswpout below) that the trace's demand stream does not hold (its reads
only bring page-cache pages in), so the anonymous counters cannot match
there.
EOF
    ;;
    anon-mt) cat <<EOF
A multi-threaded anonymous job: \`build/workloads/anon-storm\`, 4 threads
storing to runs of 4 pages in one shared 96 MiB working set (70 % of the
stores in its first 32 MiB), 6000 stores per thread, in a 48 MiB memory
cgroup: memcg reclaim swaps the set out and the threads fault it back in.
The workload is instrumented, so the trace holds both its exact access
stream (\`vmreplay:*\`, which the replay uses) and the kernel's events.
EOF
    ;;
    esac
}

for w in $workloads; do
    for sw in 1 100 200; do
        name=$w-sw$sw
        out=$work/cap-$name
        echo "== $name" >&2
        if [ "$w" = reader ]; then
            for f in "$work"/data/f*; do dd if="$f" iflag=nocache count=0 status=none; done
        fi
        # shellcheck disable=SC2046
        "$vmr" capture -o "$out" --limit "$(limit_of "$w")" --swappiness "$sw" -- $(command_of "$w") \
            >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
        grep -q 'discarded events: 0 (LTTng), 0 (ftrace)' "$work/$name.log" ||
            { cat "$work/$name.log" >&2; echo "$name: events were discarded" >&2; exit 1; }
        grep -q 'workload ended after .* (status 0)' "$work/$name.log" ||
            { cat "$work/$name.log" >&2; echo "$name: the workload failed" >&2; exit 1; }
        dest=traces/$name
        rm -rf "$dest"
        mkdir -p "$dest/ctf"
        # the session: ust/ and the bridged events' kernel/ trace
        cp -r "$out"/ust "$dest/ctf/"
        [ -d "$out/kernel" ] && cp -r "$out/kernel" "$dest/ctf/"
        "$vmr" analyze -q "$dest/ctf" >"$work/$name.analyze"
        have_classic=$("$vmr" run --list-policies | awk '$1 == "classic"' | wc -l)
        [ "$have_classic" = 1 ] && "$vmr" compare -q -p classic "$dest/ctf" >"$work/$name.compare"
        size=$(du -sh "$dest/ctf" | cut -f1)
        {
            echo "# $name"
            echo
            describe "$w"
            echo
            echo "Swappiness $sw (the cgroup's memory.swappiness; cgroup v1 here)."
            echo
            echo "## Command (from the repository root, as root)"
            echo
            echo "    traces/kernel-sessions.sh build $w     # all three swappiness values"
            echo
            echo "which runs"
            echo
            echo "    build/vmreplay capture -o OUT --limit $(limit_of "$w") --swappiness $sw -- \\"
            echo "        $(command_of "$w" | sed "s|$root/||; s|$work|/var/tmp/vmreplay-sessions|g")"
            echo
            echo "and copies OUT/kernel and OUT/ust into ctf/ ($size)."
            echo
            echo "Capture output:"
            echo
            sed 's/^/    /' "$work/$name.log" | sed "s|$work|/var/tmp/vmreplay-sessions|g"
            echo
            echo "## Session"
            echo
            "$vmr" ingest -q "$dest/ctf" >/dev/null
            vmrfile=$("$vmr" ingest -q -f json "$dest/ctf" | sed -n 's/.*"vmr": "\([^"]*\)".*/\1/p')
            strings "$vmrfile" | grep -E '^(kernel_release|nr_cpus|mem_total|lru_kind|thp|swap_kind|swap_size|capture_cgroup_version|capture_memory_limit|capture_swappiness|kernel_source|damon|demand_source|demand_faults|demand_page_cache|workload_elapsed_ns|ground_truth_events|kernel_events|memcg_snapshots|maps_snapshots)	' |
                sed 's/\t/: /; s/^/* /'
            echo "* captured $(date -u '+%Y-%m-%d %H:%M UTC') with lttng-tools $(lttng --version | awk '{print $3}'), babeltrace2 $(babeltrace2 --version | awk 'NR==1 {print $3}')"
            echo
            echo "## vmreplay analyze"
            echo
            sed -n '/^Summary/,$p' "$work/$name.analyze" | sed 's/^/    /'
            if [ -s "$work/$name.compare" ]; then
                echo
                echo "## vmreplay compare --policy classic"
                echo
                sed -n '2,$p' "$work/$name.compare" | sed 's/^/    /'
            fi
        } >"$dest/README.md"
        echo "$name: $size" >&2
    done
done
