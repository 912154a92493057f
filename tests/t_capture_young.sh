#!/bin/bash
# The accessed-bit sampler (capture/pte_young.bpf.c): a real capture on
# this machine of a program that faults in 2,048 pages of anonymous
# memory (A) once, then writes 192 MiB (B) in a 48 MiB memory cgroup,
# re-reading every 4th page of A (S, 512 pages) after each MiB of B.
# Reclaim scans A while B pushes it out and clears the accessed bits it
# finds (folio_referenced); each re-read of S after that sets its bit
# again without a fault, which a poll sees.  x86's ptep_clear_flush_young
# leaves the TLB alone, and a page the TLB still maps does not set its bit
# again (the kernel would not see that access either): so before each
# re-read the program flushes its TLB, by an mprotect of 1 MiB
# (flush_tlb_mm_range: above tlb_single_page_flush_ceiling, 33 pages, it
# flushes the whole mm).  Hand-counted expectation:
# the pages of A the program never touches again (1,536) are never
# observed; the re-read ones are (at least half of S: reclaim reaches
# them while B runs).  Skips where BPF cannot run the sampler.
set -u
. tests/tap.sh
hold_lock /run/vmreplay-capture.lock "$@"
mount_tracefs
tap_scratch "${1:-build}" /tmp/t_capture_young.XXXXXX
why=""
[ "$(id -u)" = 0 ] || why="needs root (memory cgroup, swap, tracefs, BPF)"
[ -z "$why" ] && [ "$(uname -m)" != x86_64 ] && why="the sampler walks x86-64 page tables"
[ -z "$why" ] && [ ! -r /sys/kernel/btf/vmlinux ] && why="the kernel has no BTF (/sys/kernel/btf/vmlinux)"
[ -z "$why" ] && ! command -v lttng >/dev/null 2>&1 && why="lttng not installed"
if [ -n "$why" ]; then
    skip "capture of re-referenced resident pages" "$why"
    exit 0
fi
cat >"$tmp/retouch.py" <<'PY'
import ctypes, mmap, os, sys, time
P, n = 4096, 2048
a = mmap.mmap(-1, n * P)
for i in range(n):
    a[i * P] = 1
with open(sys.argv[1], 'w') as f:
    f.write("%d %x\n" % (os.getpid(), ctypes.addressof(ctypes.c_char.from_buffer(a))))
b = mmap.mmap(-1, 192 << 20)
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
f = mmap.mmap(-1, 1 << 20)
for j in range(256):                   # every PTE changes: a flush of 256 pages
    f[j * P] = 1
fa = ctypes.addressof(ctypes.c_char.from_buffer(f))
s = 0
for c in range(192):
    for j in range(256):
        b[(c << 20) + j * P] = 1
    libc.mprotect(fa, 1 << 20, 1)      # PROT_READ
    libc.mprotect(fa, 1 << 20, 3)      # PROT_READ | PROT_WRITE
    for i in range(0, n, 4):
        s += a[i * P]
    time.sleep(0.005)
PY
"$vmr" capture --young-ms 100 -o "$tmp/s" --limit 48M --swappiness 100 -- python3 "$tmp/retouch.py" "$tmp/a" >"$tmp/log" 2>&1
rc=$?
check "capture: exit 0" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/log" | tail -20
babeltrace2 "$tmp/s/ust" >"$tmp/s.txt" 2>/dev/null
summary=$(grep -m1 'pte_young_sampler:' "$tmp/s.txt")
if [[ $summary != *'note = "on:'* ]]; then
    skip "re-referenced pages observed" "the sampler is off: ${summary##*note = }"
    exit 0
fi
check "the sampler polled and lost nothing" \
    bash -c '[[ "$1" == *"lost = 0,"* && "$1" != *"polls = 0,"* ]]' _ "$summary"
read -r pid base <"$tmp/a"
counts=$(python3 - "$tmp/s.txt" "$pid" "$base" <<'PY'
import re, sys
pid, base = int(sys.argv[2]), int(sys.argv[3], 16)
s, o, dirty, nodirty = set(), set(), 0, 0
for l in open(sys.argv[1]):
    m = re.search(r'pte_young: .*pid = (\d+), addr = 0x([0-9A-F]+), len = \d+(, dirty = (\d+))?', l)
    if m and int(m.group(1)) == pid and base <= int(m.group(2), 16) < base + 2048 * 4096:
        i = (int(m.group(2), 16) - base) // 4096
        (s if i % 4 == 0 else o).add(i)
        if m.group(4) is None:
            nodirty += 1
        elif m.group(4) == "1":
            dirty += 1
print(len(s), len(o), dirty, nodirty)
PY
)
read -r seen_s seen_other seen_dirty no_dirty <<<"$counts"
check "no page of A left alone is observed ($seen_other of 1536)" test "$seen_other" -eq 0
check "the re-read pages of A are ($seen_s of 512)" test "$seen_s" -ge 256
# A's pages were written at their first touch, so a PTE still mapping
# that first fault's frame is dirty (a read fault's after a swap-in is not)
check "every observation has its dirty bit ($no_dirty without)" test "$no_dirty" -eq 0
check "observations of pages written at their fault are dirty ($seen_dirty)" test "$seen_dirty" -ge 1
