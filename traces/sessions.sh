#!/bin/bash
# traces/sessions.sh [options] [WORKLOAD...]
#
# Captures the real reclaim sessions of traces/sessions/: every WORKLOAD
# (default: all) at swappiness 1, 100 and 200, REPS captures each (the
# replicates of the fidelity scoreboard, `vmreplay validate`), on this
# machine's kernel or in the test bed's User-Mode Linux guest; each
# capture's CTF is kept as ctf.tar.xz beside a README.md saying how it was
# made.  Needs root (see `vmreplay capture --help`).
#
#   --reps N        captures per workload and swappiness (default 3)
#   --kernel K      capture in the test bed (capture/testbed/): 6.12, 6.1, a
#                   tree or a UML binary; --lru-gen y|n there (default y)
#   --lru-gen V     y (MGLRU) or n (classic) in the guest
#   --out DIR       where the sessions go (default traces/sessions/KERNEL,
#                   KERNEL being e.g. 6.18-classic or uml-6.12-mglru)
#   --build DIR     the build directory (default build)
#
# Workloads (none is one of the instrumented workloads of capture/workloads;
# their demand comes from the kernel's page faults and page-cache events):
#   compile   gcc -O2 of four translation units of this repository, two at
#             a time (peak 30 MiB), limit 16 MiB
#   kbuild    a Linux build subset: `make -j2 mm/vmscan.o mm/memory.o
#             kernel/fork.o` in Debian's linux-source-6.1 after defconfig
#             and `make prepare` (peak about 200 MiB), limit 68 MiB
#   reader    a file reader and re-reader: cat of four 16 MiB files, then
#             the first two again (cold cache), limit 24 MiB
#   mix       python3 writing 96 MiB of anonymous memory, reading a 64 MiB
#             file twice, writing the memory again (peak 104 MiB), limit
#             48 MiB
#   churn     python3 building and dropping dicts and lists of about
#             100 MiB six times (peak 149 MiB), limit 56 MiB
#   mt-anon   stress-ng --vm 2 workers over 96 MiB of anonymous memory, a
#             fixed number of passes (peak about 100 MiB), limit 40 MiB
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
reps=3 kernel="" lru_gen=y out="" build=build
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --kernel) kernel=$2; shift 2 ;;
    --lru-gen) lru_gen=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
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
command -v stress-ng >/dev/null || apt-get install -y -qq stress-ng >/dev/null

# The workloads' inputs, made once, outside the captures.  The guest sees
# the host's / read-only and has its own /tmp, /var/tmp and /run, so they
# live where both can read them.
w=/var/cache/vmreplay/w
mkdir -p "$w"
[ -s "$w/f64" ] || head -c 64M /dev/urandom >"$w/f64"
for i in 1 2 3 4; do [ -s "$w/r$i" ] || head -c 16M /dev/urandom >"$w/r$i"; done
for i in 1 2 3 4; do [ -s "$w/t$i" ] || head -c 6M /dev/urandom >"$w/t$i"; done
commit=$(git rev-parse --short HEAD)
if [ ! -d "$w/src" ]; then
    mkdir -p "$w/src" && git archive HEAD lib replay analysis capture | tar -x -C "$w/src"
fi
kb=/var/tmp/vmreplay-kbuild/linux-source-6.1
case " $workloads " in *" kbuild "*)
    if [ ! -f "$kb/include/generated/autoconf.h" ]; then
        mkdir -p "$(dirname "$kb")"
        [ -f /usr/src/linux-source-6.1.tar.xz ] || apt-get install -y -qq linux-source-6.1 >/dev/null
        tar -C "$(dirname "$kb")" -xf /usr/src/linux-source-6.1.tar.xz
        make -C "$kb" defconfig >/dev/null
        make -C "$kb" -j2 prepare >/dev/null 2>&1
    fi ;;
esac
cat >"$w/mix.py" <<'EOF'
import sys
a = bytearray(96 << 20)
for i in range(0, len(a), 4096): a[i] = 1
for _ in range(2):
    with open(sys.argv[1], 'rb') as f:
        while f.read(1 << 20): pass
for i in range(0, len(a), 4096): a[i] = 2
EOF
cat >"$w/churn.py" <<'EOF'
keep = []
for r in range(6):
    d = {i: [i] * 8 for i in range(400000)}
    s = [str(i) * 4 for i in range(300000)]
    keep.append(s[::7])
    del d, s
print(len(keep))
EOF
cat >"$w/compile.sh" <<EOF
#!/bin/sh
# four translation units of vmreplay $commit, two compilers at a time
cd $w/src && printf '%s\n' replay/mm/vmscan.c replay/ingest/kevents.c analysis/analyze.c \\
    replay/mm/lru_gen/eviction.c | xargs -P2 -I{} cc -std=gnu11 -O2 -D_GNU_SOURCE -Ilib -Ireplay \\
    -Ianalysis -Icapture -c {} -o /dev/null
EOF
cat >"$w/kbuild.sh" <<EOF
#!/bin/sh
cd $kb && rm -f mm/vmscan.o mm/memory.o kernel/fork.o && exec make -j2 mm/vmscan.o mm/memory.o kernel/fork.o
EOF
cat >"$w/reader.sh" <<EOF
#!/bin/sh
cat $w/r1 $w/r2 $w/r3 $w/r4 >/dev/null && cat $w/r1 $w/r2 >/dev/null
EOF
# the test bed's workloads (see the header)
cat >"$w/tb-compile.sh" <<EOF
#!/bin/sh
# two translation units of vmreplay $commit, both compilers at once
cd $w/src && printf '%s\n' replay/mm/vmscan.c replay/mm/lru_gen/eviction.c | xargs -P2 -I{} \\
    cc -std=gnu11 -O2 -D_GNU_SOURCE -Ilib -Ireplay -Ianalysis -Icapture -c {} -o /dev/null
EOF
cat >"$w/tb-reader.sh" <<EOF
#!/bin/sh
# held open: hostfs drops a file's pages when its last reference goes
exec 3<$w/t1 4<$w/t2 5<$w/t3 6<$w/t4
cat $w/t1 $w/t2 $w/t3 $w/t4 >/dev/null && cat $w/t1 $w/t2 >/dev/null
EOF
cat >"$w/tb-mix.py" <<'EOF'
import sys
n = int(sys.argv[1]) << 20
# held open: hostfs drops a file's pages when its last reference goes
files = [open(p, 'rb') for p in sys.argv[2:]]
a = bytearray(n)
for i in range(0, n, 4096): a[i] = 1
for _ in range(2):
    for f in files:
        f.seek(0)
        while f.read(1 << 20): pass
for i in range(0, n, 4096): a[i] = 2
EOF
chmod +x "$w"/*.sh

limit_of() {
    [ -z "$kernel" ] || case $1 in
    compile) echo 40M; return ;; reader|mt-anon) echo 16M; return ;; mix) echo 24M; return ;;
    esac
    case $1 in compile) echo 16M ;; kbuild) echo 68M ;; reader) echo 24M ;; mix) echo 48M ;;
    churn) echo 56M ;; mt-anon) echo 40M ;; esac
}
command_of() {
    # (stress-ng's temporary files in the guest's /tmp: its cwd is read-only)
    [ -z "$kernel" ] || case $1 in
    compile) echo "$w/tb-compile.sh"; return ;;
    reader) echo "$w/tb-reader.sh"; return ;;
    mix) echo "python3 $w/tb-mix.py 32 $w/t1 $w/t2 $w/t3"; return ;;
    mt-anon) echo "stress-ng --temp-path /tmp --vm 2 --vm-bytes 32M --vm-method flip --vm-ops 2000 --timeout 60s -q"
        return ;;
    esac
    case $1 in
    compile) echo "$w/compile.sh" ;;
    kbuild) echo "$w/kbuild.sh" ;;
    reader) echo "$w/reader.sh" ;;
    mix) echo "python3 $w/mix.py $w/f64" ;;
    churn) echo "python3 $w/churn.py" ;;
    mt-anon) echo "stress-ng --vm 2 --vm-bytes 96M --vm-method flip --vm-ops 6000 --timeout 60s -q" ;;
    esac
}
# Before each capture, the workload's files leave the page cache, so that
# every read is a real one (the reader's files, the mix's file).
drop_inputs() {
    for f in "$w"/f64 "$w"/r[1-4]; do dd if="$f" iflag=nocache count=0 status=none; done
}

# A guest's boot waits for the other guests' (the test bed's lock, taken
# here per capture: do not run this script under that lock yourself).
if [ -n "$kernel" ]; then
    kopt=(--kernel "$kernel" --lru-gen "$lru_gen" --swap zram)
    guest_lock=(flock /run/vmreplay-testbed.lock)
    bi=$(capture/testbed/build.sh -q -k "$kernel")/build-info
    guest_kernel="$(sed -n 's/^release=//p' "$bi") ($(sed -n 's/^source=//p' "$bi"), build $(sed -n 's/^key=//p' "$bi"),
patches $(sed -n 's/^patches=//p' "$bi")), lru_gen $lru_gen"
else
    kopt=()
    guest_lock=()
fi
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
            drop_inputs
            # shellcheck disable=SC2046
            "${guest_lock[@]}" "$vmr" capture "${kopt[@]}" -o "$cap" --limit "$(limit_of "$wl")" --swappiness "$sw" -- \
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
                echo "    build/vmreplay capture ${kopt[*]} -o OUT --limit $(limit_of "$wl") --swappiness $sw -- \\"
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
