#!/bin/bash
# traces/kbuild-long.sh [options] [SWAPPINESS[xREPS]...]
#
# The swappiness experiment's kernel build at realistic scale ("mm:
# mglru: fix swappiness behavior" built a kernel, -j20, in a 1 GB memcg
# with zram): `make -j2 TARGETS` of Debian's linux-source-6.12 after
# defconfig and `make prepare` (traces/workloads.sh's kbuild tree), a
# build of minutes over many translation units and headers, captured on
# this machine's kernel in a memcg of about a third of its peak, with
# zram swap, once per SWAPPINESS (default: 100x2 1 200 176 36 71 106
# 141, the real kernel's rows at every point of the paper; NxR captures
# R times; about 3 min each).  Each
# capture goes to OUT/kbuild-long-swN-R (kernel/ and ust/, not
# compressed: too large for git, remade by this script) beside a
# README.md saying how it was made; analysis/experiments/swappiness.sh
# replays them when OUT has them.  Needs root.
#
#   --out DIR       where the captures go (default $VMREPLAY_EXPERIMENTS/
#                   kbuild-long, $VMREPLAY_EXPERIMENTS being
#                   /var/cache/vmreplay/experiments by default)
#   --build DIR     the build directory (default build)
#   --limit SIZE    the memcg limit (default: a third of OUT/peak)
#   --peak          measure the build's peak first (the largest
#                   memory.max_usage_in_bytes of an unlimited memcg, cold
#                   cache) into OUT/peak, then capture
#   --peak-only     only that
#
# Before each run the build's objects are removed and the tree's files
# leave the page cache (posix_fadvise DONTNEED), so that every header
# the compilers read is a real read charged to the memcg, as on a
# machine that did not just build it.  Every run (the peak's too) is
# under /run/vmreplay-capture.lock: do not run this script under it.
set -euo pipefail
targets="mm/ fs/ext4/"
out=${VMREPLAY_EXPERIMENTS:-/var/cache/vmreplay/experiments}/kbuild-long
build=build limit="" peak=0 only=0
while [ $# -gt 0 ]; do
    case $1 in
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --peak) peak=1; shift ;;
    --peak-only) peak=1 only=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --*) echo "kbuild-long.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
points=${*:-100x2 1 200 176 36 71 106 141}
root=$(cd "$(dirname "$0")/.." && pwd)
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

if [ "$peak" = 1 ]; then
    # memcg v1, as the captures: the peak of an unlimited memcg
    cg=/sys/fs/cgroup/memory/vmreplay-kbuild-peak-$$
    run_peak() {
        prepare
        mkdir "$cg"
        local t0 t1 rc=0
        t0=$(date +%s.%N)
        sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2"' _ "$cg" "$cmd" >"$out/peak.log" 2>&1 || rc=$?
        t1=$(date +%s.%N)
        local p; p=$(cat "$cg/memory.max_usage_in_bytes")
        echo 1 >"$cg/memory.force_empty" 2>/dev/null || true
        rmdir "$cg"
        [ "$rc" = 0 ] || { echo "kbuild-long.sh: the build failed (status $rc, $out/peak.log)" >&2; exit 1; }
        printf '%s\t%.1f\n' "$p" "$(echo "$t1 - $t0" | bc)"
    }
    r=$(flock /run/vmreplay-capture.lock bash -c "$(declare -f prepare run_peak); $(declare -p kb targets cmd cg out); run_peak")
    printf 'peak_bytes\t%s\nwall_s\t%s\ntargets\t%s\n' "${r%%	*}" "${r##*	}" "$targets" >"$out/peak.tmp"
    mv -f "$out/peak.tmp" "$out/peak"
    echo "kbuild-long.sh: peak $((${r%%	*} >> 20)) MiB, ${r##*	} s unlimited" >&2
    [ "$only" = 0 ] || exit 0
fi
if [ -z "$limit" ]; then
    [ -f "$out/peak" ] || { echo "kbuild-long.sh: no $out/peak: --peak or --limit" >&2; exit 1; }
    limit=$(( $(sed -n 's/^peak_bytes\t//p' "$out/peak") / 3 / 1048576 ))M
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
            echo "what it is), $(sed -n 's/^peak_bytes\t//p' "$out/peak" 2>/dev/null || echo '?') bytes peak unlimited, limit $limit:"
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
