#!/bin/bash
# Demand no user-mode fault shows: a real capture on this machine of a
# program that faults in 8 MiB of anonymous memory with
# madvise(MADV_POPULATE_WRITE) (GUP: faultin_page, no exception), loads it
# again with MADV_POPULATE_READ, drops 4 MiB of it with MADV_DONTNEED,
# then read()s a 4 MiB file into 4 MiB of memory it never touched (each
# page faults in kernel mode, in copy_to_user).  The capture records
# syscalls:sys_enter/sys_exit_madvise and exceptions:page_fault_kernel;
# ingest makes the populated pages accesses, the dropped ones frees
# (FORMAT.md, "madvise") and the kernel-mode faults accesses.
# Hand-counted: 2,048 + 2,048 pages populated, 1,024 dropped, in 3 calls;
# 1,024 kernel-mode faults at least (python's start-up reads add some).  Skips where the kernel has no syscall
# tracepoints.
set -u
. tests/tap.sh
hold_lock /run/vmreplay-capture.lock "$@"
mount_tracefs
tap_scratch "${1:-build}" /tmp/t_capture_demand.XXXXXX
why=""
[ "$(id -u)" = 0 ] || why="needs root (memory cgroup, swap, tracefs)"
[ -z "$why" ] && [ ! -d /sys/kernel/tracing/events/syscalls/sys_enter_madvise ] &&
    why="this kernel has no syscalls:sys_enter_madvise tracepoint"
[ -z "$why" ] && ! command -v lttng >/dev/null 2>&1 && why="lttng not installed"
if [ -n "$why" ]; then
    skip "capture of demand no user-mode fault shows" "$why"
    exit 0
fi
cat >"$tmp/populate.py" <<'PY'
import ctypes, mmap, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
n = 8 << 20
m = mmap.mmap(-1, n)                      # anonymous, never touched
addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
for advice, length in ((23, n), (22, n), (4, n // 2)):   # POPULATE_WRITE, _READ, DONTNEED
    if libc.madvise(addr, length, advice) != 0:
        raise SystemExit("madvise %d: errno %d" % (advice, ctypes.get_errno()))
b = mmap.mmap(-1, 4 << 20)                # never touched: read() faults it in
with open(sys.argv[1], 'rb', buffering=0) as f:
    if f.readinto(b) != 4 << 20:
        raise SystemExit("short read")
PY
head -c 4M /dev/urandom >"$tmp/data"
"$vmr" capture -o "$tmp/s" --limit 64M --swappiness 100 -- python3 "$tmp/populate.py" "$tmp/data" >"$tmp/log" 2>&1
rc=$?
check "capture: exit 0" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/log" | tail -20
check "capture: 0 discarded events" grep -q 'discarded events: 0 (LTTng), 0 (ftrace)' "$tmp/log"
babeltrace2 "$tmp/s" >"$tmp/s.txt" 2>/dev/null
check "the three madvise calls and their exits were recorded" \
    test "$(grep -c 'syscall_entry_madvise:' "$tmp/s.txt")" -eq 3 -a "$(grep -c 'syscall_exit_madvise:' "$tmp/s.txt")" -ge 3
"$vmr" ingest -q -o "$tmp/s.vmr" "$tmp/s" >/dev/null 2>"$tmp/err"; rc=$?
check "ingest: exit 0" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/err" | tail -20
meta() { strings "$tmp/s.vmr" | sed -n "s/^$1\t//p" | head -1; }
check "ingest: 3 calls, 4096 pages populated, 1024 dropped ($(meta demand_madvise))" \
    test "$(meta demand_madvise)" = "3 calls (0 failed), 4096 pages populated, 1024 pages dropped (DONTNEED), 0 HUGEPAGE, 0 NOHUGEPAGE"
# (python's own start-up adds some: its reads into fresh buffers)
check "ingest: at least the read()'s 1024 kernel-mode faults ($(meta demand_faults_kernel_mode))" \
    test "$(meta demand_faults_kernel_mode | cut -d' ' -f1)" -ge 1024
