#!/bin/bash
# traces/kbuild-long.sh [options] [SWAPPINESS[xREPS]...]
#
# The swappiness experiment's kernel build at realistic scale ("mm:
# mglru: fix swappiness behavior" built a kernel, -j20, in a 1 GB memcg
# with zram): `make -j2 TARGETS` of Debian's linux-source-6.12 after
# defconfig and `make prepare` (traces/workloads.sh's kbuild tree), a
# build of minutes over many translation units and headers, captured on
# this machine's kernel in a memcg of a third of its peak, but never
# smaller than its largest compiler (the limit rule below), with zram
# swap, once per SWAPPINESS (default: 100x2 1 200 176 36 71 106 141, the
# real kernel's rows at every point of the paper; NxR captures R times;
# about 3 min each).  Each capture goes to OUT/kbuild-long-swN-R
# (kernel/ and ust/, not compressed: too large for git, remade by this
# script) beside a README.md saying how it was made;
# analysis/experiments/swappiness.sh replays them when OUT has them.
# Needs root.
#
#   --out DIR       where the captures go (default $VMREPLAY_EXPERIMENTS/
#                   kbuild-long, $VMREPLAY_EXPERIMENTS being
#                   /var/cache/vmreplay/experiments by default)
#   --build DIR     the build directory (default build)
#   --limit SIZE    the memcg limit (default: the limit rule on OUT/peak)
#   --peak          measure the build's peaks first (unlimited memcg, cold
#                   cache) into OUT/peak, then capture
#   --peak-only     only that
#   --print-limit   print the limit the rule gives for OUT/peak and exit
#                   (no root needed)
#
# The peaks (OUT/peak): peak_bytes, the memcg's memory.max_usage_in_bytes
# (anon, page cache and kernel memory together), and job_anon_peak_bytes,
# the largest anonymous RSS of one process of the build (RssAnon of
# /proc/PID/status, sampled every 100 ms; job_anon_peak names it).
# The limit rule: the larger of a third of peak_bytes and
# job_anon_peak_bytes, in whole MiB (the third rounded down, the job
# rounded up).  Why the floor: peak_bytes is the sum of whichever two
# compilers make runs together and the page cache at that moment, so it
# is not one number: four runs on this machine measured 592, 326, 481
# and 498 MiB, a third of which is 197M, 108M, 160M and 166M.  One
# compiler's memory depends on its source, not on what runs beside it:
# the largest, cc1 of fs/ext4/super.c, had 205.6 and 204.9 MiB of anon
# in two of those runs (cc1 of fs/ext4/balloc.c: 105.8 MiB), so the rule
# gave 206M and 205M.  In a memcg smaller than one compiler,
# that compiler's own anon fills it, the page cache is reclaimed to
# nothing and swappiness has no choice left to make, and the kernel's
# memcg reclaim can find nothing at all to scan: at 108M cc1 of balloc.c
# was OOM-killed with 88.5 of 432 MiB of zram used (memory.stat: cache 0,
# active_anon 105.3 MiB, inactive_anon 0.7 MiB; 18 memcg reclaims in a
# row reclaimed 0 pages and scanned none, while the statistics, last
# flushed 1.2 s before, still said the inactive anon list was larger than
# the active one: inactive_is_low() false, no deactivation; mm/vmscan.c
# shrink_lruvec, try_charge_memcg's MAX_RECLAIM_RETRIES).  The paper's
# 1 GB held any one of its compilers; so does the floor.  It does not
# rule the OOM out: the file LRU still empties while two large compilers
# overlap, less often (under 4 MiB of file pages in 9 of 97 memory.stat
# snapshots of the two captures in 197M, in 58 of 136 of two in 108M).
#
# Before each run the build's objects are removed and the tree's files
# leave the page cache (posix_fadvise DONTNEED), so that every header
# the compilers read is a real read charged to the memcg, as on a
# machine that did not just build it.  Every run (the peak's too) is
# under /run/vmreplay-capture.lock: do not run this script under it.
set -euo pipefail
targets="mm/ fs/ext4/"
out=${VMREPLAY_EXPERIMENTS:-/var/cache/vmreplay/experiments}/kbuild-long
build=build limit="" peak=0 only=0 print_limit=0
while [ $# -gt 0 ]; do
    case $1 in
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --peak) peak=1; shift ;;
    --peak-only) peak=1 only=1; shift ;;
    --print-limit) print_limit=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*) echo "kbuild-long.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
points=${*:-100x2 1 200 176 36 71 106 141}
root=$(cd "$(dirname "$0")/.." && pwd)

# The limit rule (the header): the larger of a third of peak_bytes and
# job_anon_peak_bytes of peak file $1, in MiB, as "NM"; a missing or bad
# field is one line naming the file and the field, status 1.
limit_of() {
    local f=$1 p j
    [ -f "$f" ] || { echo "kbuild-long.sh: no $f: --peak or --limit" >&2; return 1; }
    p=$(sed -n 's/^peak_bytes\t//p' "$f")
    j=$(sed -n 's/^job_anon_peak_bytes\t//p' "$f")
    [[ $p =~ ^[0-9]+$ ]] || { echo "kbuild-long.sh: $f: peak_bytes: not a number of bytes: '$p'" >&2; return 1; }
    [[ $j =~ ^[0-9]+$ ]] || { echo "kbuild-long.sh: $f: job_anon_peak_bytes: not a number of bytes: '$j' (a peak measured before it was kept: --peak again, or --limit)" >&2; return 1; }
    local third=$((p / 3 / 1048576)) job=$(((j + 1048575) / 1048576))
    echo "$((third > job ? third : job))M"
}
if [ "$print_limit" = 1 ]; then
    limit_of "$out/peak"
    exit
fi
vmr=$root/$build/vmreplay
[ -x "$vmr" ] || { echo "kbuild-long.sh: build first: make" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "kbuild-long.sh: needs root" >&2; exit 1; }
# shellcheck source=traces/workloads.sh
. "$root/traces/workloads.sh"
workload_inputs kbuild
mkdir -p "$out"

# The build, as its own script (a capture runs one command): clean
# objects, a cold page cache of the tree, then make.
cmd=$w/kbuild-long.sh
cat >"$cmd.tmp" <<SH
#!/bin/sh
# make -j2 $targets of linux-source-6.12 (traces/kbuild-long.sh)
cd $kb && exec make -j2 $targets
SH
chmod +x "$cmd.tmp" && mv -f "$cmd.tmp" "$cmd"
prepare() {
    (cd "$kb" && find $targets \( -name '*.o' -o -name '*.a' -o -name 'modules.order' \) -delete)
    sync
    python3 - "$kb" <<'PY'
import os, sys
for d, _, fs in os.walk(sys.argv[1]):
    for f in fs:
        try:
            fd = os.open(os.path.join(d, f), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
PY
}

# job_peak CG STOP: until file STOP exists, every 100 ms, the anonymous
# RSS of each process in memcg CG (RssAnon of /proc/PID/status: a
# process's own watermark, VmHWM, counts its file pages too); prints the
# largest, in bytes, a tab and that process's command and source file.
job_peak() {
    python3 - "$1" "$2" <<'PY'
import os, sys, time
cg, stop = sys.argv[1], sys.argv[2]
best, name = 0, "-"
while not os.path.exists(stop):
    try:
        pids = open(cg + "/cgroup.procs").read().split()
    except OSError:
        pids = []
    for pid in pids:
        try:
            st = open("/proc/%s/status" % pid).read()
            kb = int(st.split("RssAnon:", 1)[1].split()[0])
            if kb * 1024 > best:
                argv = open("/proc/%s/cmdline" % pid).read().split("\0")
                # the source file, not -dumpbase-ext's ".c"
                src = [a for a in argv if a.endswith((".c", ".S")) and len(a) > 2]
                comm = open("/proc/%s/comm" % pid).read().strip()
                best, name = kb * 1024, " ".join([comm] + src[:1])
        except (OSError, IndexError, ValueError):
            pass                # gone, or a kernel thread
    time.sleep(0.1)
print("%d\t%s" % (best, name))
PY
}

if [ "$peak" = 1 ]; then
    # memcg v1, as the captures: the peaks of an unlimited memcg
    cg=/sys/fs/cgroup/memory/vmreplay-kbuild-peak-$$
    run_peak() {
        prepare
        mkdir "$cg"
        local t0 t1 rc=0 stop=$out/.peak-stop
        rm -f "$stop" "$out/.peak-job"
        job_peak "$cg" "$stop" >"$out/.peak-job" &
        local sampler=$!
        t0=$(date +%s.%N)
        sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2"' _ "$cg" "$cmd" >"$out/peak.log" 2>&1 || rc=$?
        t1=$(date +%s.%N)
        touch "$stop"
        wait "$sampler" || true
        rm -f "$stop"
        local p; p=$(cat "$cg/memory.max_usage_in_bytes")
        echo 1 >"$cg/memory.force_empty" 2>/dev/null || true
        rmdir "$cg"
        [ "$rc" = 0 ] || { echo "kbuild-long.sh: the build failed (status $rc, $out/peak.log)" >&2; exit 1; }
        printf '%s\t%.1f\t%s\n' "$p" "$(echo "$t1 - $t0" | bc)" "$(cat "$out/.peak-job")"
        rm -f "$out/.peak-job"
    }
    r=$(flock /run/vmreplay-capture.lock bash -c "$(declare -f prepare job_peak run_peak); $(declare -p kb targets cmd cg out); run_peak")
    IFS=$'\t' read -r pb ws jb jn <<<"$r"
    [[ $jb =~ ^[1-9][0-9]*$ ]] || { echo "kbuild-long.sh: the peak's sampler saw no process in $cg" >&2; exit 1; }
    printf 'peak_bytes\t%s\njob_anon_peak_bytes\t%s\njob_anon_peak\t%s\nwall_s\t%s\ntargets\t%s\n' \
        "$pb" "$jb" "$jn" "$ws" "$targets" >"$out/peak.tmp"
    mv -f "$out/peak.tmp" "$out/peak"
    echo "kbuild-long.sh: peak $((pb >> 20)) MiB, largest job $((jb >> 20)) MiB of anon ($jn), $ws s unlimited" >&2
    [ "$only" = 0 ] || exit 0
fi
if [ -z "$limit" ]; then
    limit=$(limit_of "$out/peak") || exit 1
fi
commit=$(git -C "$root" rev-parse --short HEAD)
for pt in $points; do
    sw=${pt%x*} reps=1
    [ "$pt" = "$sw" ] || reps=${pt#*x}
    for r in $(seq "$reps"); do
        # the next free replicate number at this swappiness
        n=1; while [ -e "$out/kbuild-long-sw$sw-$n" ]; do n=$((n + 1)); done
        name=kbuild-long-sw$sw-$n dest=$out/kbuild-long-sw$sw-$n
        echo "== $name (limit $limit)" >&2
        tmp=$out/.$name
        rm -rf "$tmp" "$tmp.log"
        flock /run/vmreplay-capture.lock bash -c "$(declare -f prepare); $(declare -p kb targets); prepare && exec \"\$@\"" \
            _ "$vmr" capture -o "$tmp" --limit "$limit" --swappiness "$sw" --swap zram -- "$cmd" \
            >"$tmp.log" 2>&1 || { cat "$tmp.log" >&2; echo "kbuild-long.sh: $name failed" >&2; exit 1; }
        grep -q 'discarded events: 0 (LTTng), 0 (ftrace)' "$tmp.log" ||
            { cat "$tmp.log" >&2; echo "kbuild-long.sh: $name: events were discarded" >&2; exit 1; }
        grep -q 'workload ended after .* (status 0)' "$tmp.log" ||
            { cat "$tmp.log" >&2; echo "kbuild-long.sh: $name: the build failed" >&2; exit 1; }
        {
            echo "# $name"
            echo
            echo "Workload \`kbuild-long\` at swappiness $sw (traces/kbuild-long.sh; its header says"
            echo "what it is), $(sed -n 's/^peak_bytes\t//p' "$out/peak" 2>/dev/null || echo '?') bytes peak unlimited, its largest job"
            echo "$(sed -n 's/^job_anon_peak_bytes\t//p' "$out/peak" 2>/dev/null || echo '?') bytes of anon ($(sed -n 's/^job_anon_peak\t//p' "$out/peak" 2>/dev/null || echo '?')), limit $limit:"
            echo
            echo "    build/vmreplay capture -o OUT --limit $limit --swappiness $sw --swap zram -- \\"
            echo "        $cmd"
            echo
            echo "made $(date -u '+%Y-%m-%d %H:%M UTC') from vmreplay $commit on Linux $(uname -r). Capture output:"
            echo
            grep -v '^  [A-Z]' "$tmp.log" | sed 's/^/    /'
        } >"$tmp/README.md"
        mv -f "$tmp.log" "$tmp/capture.log"
        mv "$tmp" "$dest"
    done
done
echo "kbuild-long.sh: captures in $out" >&2
