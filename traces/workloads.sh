# traces/workloads.sh — sourced by traces/sessions.sh and
# traces/perturbation.sh: the real sessions' workloads (sessions.sh's
# header says what each is), their inputs, limits and commands.
#
#   workload_inputs "WORKLOAD..."  makes the inputs once, outside captures
#   limit_of WORKLOAD              the cgroup limit it runs in
#   command_of WORKLOAD            its command line
#   drop_inputs                    its input files out of the page cache
#
# Needs $root (the repository); $kernel set (sessions.sh --kernel) picks
# the test bed's smaller workloads, whose files stay open (hostfs drops a
# closed file's page cache).

# The inputs live where both the host and the test bed's guest can read
# them (the guest sees the host's / read-only and has its own /tmp,
# /var/tmp and /run), in a folder of their own: the test bed's sessions
# script wrote other scripts under the same names into
# /var/cache/vmreplay/w while these sessions were captured.
w=/var/cache/vmreplay/w-sessions
# kbuild writes its objects into the tree, so it is a copy of its own;
# linux-source-6.12 is Debian's (bookworm-backports), the test bed's too.
kb=/var/tmp/vmreplay-kbuild/linux-source-6.12
# What compile compiles: this repository's sources at the commit the
# committed sessions compiled.
src_commit=727440c

workload_inputs() {
    command -v stress-ng >/dev/null || apt-get install -y -qq stress-ng >/dev/null
    mkdir -p "$w"
    for i in 1 2 3 4; do [ -s "$w/r$i" ] || head -c 16M /dev/urandom >"$w/r$i"; done
    for i in 1 2 3 4; do [ -s "$w/t$i" ] || head -c 6M /dev/urandom >"$w/t$i"; done
    if [ ! -d "$w/src" ]; then
        mkdir -p "$w/src" && git -C "$root" archive "$src_commit" lib replay analysis capture | tar -x -C "$w/src"
    fi
    case " $1 " in *" kbuild "*)
        if [ ! -f "$kb/include/generated/autoconf.h" ]; then
            mkdir -p "$(dirname "$kb")"
            [ -f /usr/src/linux-source-6.12.tar.xz ] || apt-get install -y -qq linux-source-6.12 >/dev/null
            [ -f /usr/include/gelf.h ] || apt-get install -y -qq libelf-dev >/dev/null  # objtool
            tar -C "$(dirname "$kb")" -xf /usr/src/linux-source-6.12.tar.xz
            make -C "$kb" defconfig >/dev/null
            make -C "$kb" -j2 prepare >/dev/null 2>&1
        fi ;;
    esac
    cat >"$w/mix.py" <<'PY'
import sys
a = bytearray(96 << 20)
for i in range(0, len(a), 4096): a[i] = 1
for _ in range(2):
    with open(sys.argv[1], 'rb') as f:
        while f.read(1 << 20): pass
for i in range(0, len(a), 4096): a[i] = 2
PY
    cat >"$w/churn.py" <<'PY'
keep = []
for r in range(3):
    d = {i: [i] * 8 for i in range(100000)}
    s = [str(i) * 4 for i in range(80000)]
    keep.append(s[::7])
    del d, s
print(len(keep))
PY
    cat >"$w/compile.sh" <<SH
#!/bin/sh
# four translation units of vmreplay $src_commit, two compilers at a time
cd $w/src && printf '%s\n' replay/mm/vmscan.c replay/ingest/kevents.c analysis/analyze.c \\
    replay/mm/lru_gen/eviction.c | xargs -P2 -I{} cc -std=gnu11 -O2 -D_GNU_SOURCE -Ilib -Ireplay \\
    -Ianalysis -Icapture -c {} -o /dev/null
SH
    cat >"$w/kbuild.sh" <<SH
#!/bin/sh
cd $kb && rm -f mm/vmscan.o mm/memory.o kernel/fork.o && exec make -j2 mm/vmscan.o mm/memory.o kernel/fork.o
SH
    cat >"$w/reader.sh" <<SH
#!/bin/sh
cat $w/r1 $w/r2 $w/r3 $w/r4 >/dev/null && cat $w/r1 $w/r2 >/dev/null
SH
    # the test bed's workloads (sessions.sh's header)
    cat >"$w/tb-compile.sh" <<SH
#!/bin/sh
# two translation units of vmreplay $src_commit, both compilers at once
cd $w/src && printf '%s\n' replay/mm/vmscan.c replay/mm/lru_gen/eviction.c | xargs -P2 -I{} \\
    cc -std=gnu11 -O2 -D_GNU_SOURCE -Ilib -Ireplay -Ianalysis -Icapture -c {} -o /dev/null
SH
    cat >"$w/tb-reader.sh" <<SH
#!/bin/sh
# held open: hostfs drops a file's pages when its last reference goes
exec 3<$w/t1 4<$w/t2 5<$w/t3 6<$w/t4
cat $w/t1 $w/t2 $w/t3 $w/t4 >/dev/null && cat $w/t1 $w/t2 >/dev/null
SH
    cat >"$w/tb-mix.py" <<'PY'
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
PY
    chmod +x "$w"/*.sh
}

limit_of() {
    [ -z "${kernel:-}" ] || case $1 in
    compile) echo 40M; return ;; reader|mt-anon) echo 16M; return ;; mix) echo 24M; return ;;
    esac
    case $1 in compile) echo 20M ;; kbuild) echo 96M ;; reader) echo 24M ;; mix) echo 24M ;;
    churn) echo 32M ;; mt-anon) echo 40M ;; esac
}

command_of() {
    # (stress-ng's temporary files in the guest's /tmp: its cwd is read-only)
    [ -z "${kernel:-}" ] || case $1 in
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
    mix) echo "python3 $w/mix.py $w/r1" ;;
    churn) echo "python3 $w/churn.py" ;;
    mt-anon) echo "stress-ng --vm 2 --vm-bytes 64M --vm-method flip --vm-ops 3000 --timeout 60s -q" ;;
    esac
}

# Before each capture, the workload's files leave the page cache, so that
# every read is a real one (the reader's files, the mix's file).
drop_inputs() {
    for f in "$w"/r[1-4]; do dd if="$f" iflag=nocache count=0 status=none; done
}
