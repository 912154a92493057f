#!/bin/bash
# The User-Mode Linux test bed (capture/testbed/), end to end:
#  - its kernel is built once and cached (make check builds it first when
#    the cache is empty: 11-20 min the first time, like make deps);
#  - run.sh boots it, runs a command as root, passes its output and exit
#    status back; a dm-delay swap device over a UBD file works inside;
#  - `vmreplay capture --kernel` records a real MGLRU session in the guest:
#    its metadata (lru_kind mglru, lru_gen bits, the guest's release, how
#    the kernel was built) and its events (the fault tracepoint of the
#    test bed's patch, memcg reclaim, lru_isolate/shrink_inactive, vmstat);
#    ingest and analyze read it on the host;
#  - madvise populates (patch 0003): the guest's syscalls:sys_enter/
#    sys_exit_madvise have the host's fields, and a capture's calls become
#    the hand-counted pages of ingest's demand_madvise;
#  - with --lru-gen n the same kernel reports lru_kind classic;
#  - a SIGTERM to the capture stops the workload in the guest and still
#    writes the trace; usage errors exit 2.
# Needs UML's build tools and root for the first build (the cache is
# /var/cache/vmreplay/testbed unless VMREPLAY_TESTBED_CACHE says).
set -u
. tests/tap.sh
hold_lock /run/vmreplay-testbed.lock "$@"
mount_tracefs
build=${1:-build}
vmr=$PWD/$build/vmreplay
tb=capture/testbed

# Under AddressSanitizer only the host's side is the sanitized binary: ASan
# cannot start in the guest (UML maps its processes inside ASan's shadow
# range), so the capture in the guest runs build/vmreplay
# (VMREPLAY_GUEST_BIN), built here if absent.
guest_env=()
case $build in
build) ;;
*)  make --no-print-directory -s BUILD=build all >/dev/null 2>&1 ||
        { nok "make BUILD=build (the guest's binaries)"; exit 0; }
    guest_env=(VMREPLAY_GUEST_BIN=$PWD/build/vmreplay) ;;
esac

# The guest sees the host's files but /tmp, /var/tmp, /run and /dev/shm
# (its own tmpfs): the scratch directory is in the build directory.
tmp=$(mktemp -d "$PWD/$build/t_testbed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export VMREPLAY_CACHE=$tmp/cache

t0=$(date +%s)
dir=$($tb/build.sh -q 2>"$tmp/build.err"); rc=$?
if [ $rc -ne 0 ] || [ ! -x "$dir/linux" ]; then
    nok "the test bed's kernel builds (capture/testbed/build.sh)"
    sed 's/^/# /' "$tmp/build.err"
    exit 0
fi
ok "the test bed's kernel is built and cached ($dir, $(( $(date +%s) - t0 )) s)"
release=$(sed -n 's/^release=//p' "$dir/build-info")
key=$(basename "$dir")
check "build-info: source, version, config hash, the fault-tracepoint and madvise-tracepoint patches" \
    sh -c "grep -q '^source=linux-source-6.12\$' '$dir/build-info' && grep -q '^version=6\.12\.' '$dir/build-info' &&
           grep -q '^config_sha256=[0-9a-f]\{16\}\$' '$dir/build-info' &&
           grep -q '^patches=0001-um-exceptions-page-fault-tracepoints.patch,.*0003-um-madvise-syscall-tracepoints.patch' '$dir/build-info'"
check "a second build.sh finds the cache at once" \
    test "$(timeout 20 $tb/build.sh -q)" = "$dir"

# --- run.sh: a command inside, its output and status back -------------------
out=$($tb/run.sh -q -k "$dir" -- sh -c 'uname -r; cat /sys/kernel/mm/lru_gen/enabled; echo err >&2; exit 7' \
      2>"$tmp/run.err"); rc=$?
check "run.sh: the command's exit status comes back (7, got $rc)" test $rc -eq 7
check "run.sh: its stdout (the guest's release $release, MGLRU on: 0x0001)" \
    test "$out" = "$release
0x0001"
check "run.sh: its stderr" grep -qx err "$tmp/run.err"
out=$($tb/run.sh -q -k "$dir" --swap delay:64M:2 -- \
      sh -c 'tail -n +2 /proc/swaps | cut -d" " -f1; dmsetup table' 2>&1); rc=$?
check "run.sh --swap delay: swap on dm-delay over a UBD file" \
    sh -c "[ $rc = 0 ] && echo '$out' | grep -q '^/dev/mapper/vmreplay-slow' &&
           echo '$out' | grep -q 'delay 98:0 0 2 98:0 0 2'"

$tb/run.sh -q -k "$dir" -t 2 -- sleep 60 2>"$tmp/to.err"; rc=$?
check "run.sh --timeout: the command is stopped, exit 124 (got $rc)" \
    sh -c "[ $rc = 124 ] && grep -q 'timeout 2: stopping' '$tmp/to.err'"

# --- a capture in the guest, MGLRU on -------------------------------------
# an uninstrumented job (faults through the test bed's tracepoint) that
# reclaims in 32 MiB: tail holds 40 MiB of anonymous memory, then a
# 16 MiB file is read twice, held open (hostfs drops a closed file's pages)
cat >"$tmp/job.sh" <<EOF
#!/bin/sh
exec 3<$tmp/data
head -c 40M /dev/zero | tail -c 40M >/dev/null || exit 1
cat $tmp/data $tmp/data >/dev/null
for i in 1 2 3 4 5 6; do sh -c 'head -c 2M /dev/zero | cat >/dev/null; sleep 0.2'; done
EOF
chmod +x "$tmp/job.sh"
head -c 16M /dev/urandom >"$tmp/data"
t1=$(date +%s)
env "${guest_env[@]}" "$vmr" capture -q --kernel "$dir" -o "$tmp/on" --limit 32M -s 100 --swap zram \
    -- "$tmp/job.sh" >"$tmp/on.log" 2>&1; rc=$?
check "capture --kernel: the workload's status (0, got $rc; $(( $(date +%s) - t1 )) s)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/on.log"
check "capture --kernel: the trace is on the host, with the guest's console log" \
    test -s "$tmp/on/ust/uid/0/64-bit/metadata" -a -s "$tmp/on/guest-console.log"
check "capture --kernel: no job folder left beside it" test -z "$(ls -A "$tmp" | grep testbed)"
check "capture --kernel: the guest moved the bridged events into DIR/kernel, at the kernel's time" \
    sh -c "grep -q 'kernel: [1-9][0-9]* kernel events on 1 CPU at' '$tmp/on.log' &&
           babeltrace2 -o ctf-metadata '$tmp/on/kernel' | grep -q 'domain = \"kernel\";'"
babeltrace2 "$tmp/on" >"$tmp/on.txt" 2>"$tmp/bt.err" || sed 's/^/# /' "$tmp/bt.err"
n() { grep -c "$1" "$tmp/on.txt"; }
check "metadata: lru_kind mglru, lru_gen_enabled 1, swappiness 100, zram" \
    grep -q 'capture_session: .*swappiness = 100, swap_kind = "zram".*lru_kind = "mglru".*lru_gen_enabled = 1, lru_gen_min_ttl_ms = 0,' "$tmp/on.txt"
check "metadata: the guest's release ($release) and hostname" \
    grep -q "vmreplay:session: .*kernel_release = \"$release\", hostname = \"vmreplay-testbed\"" "$tmp/on.txt"
check "metadata: how the kernel was built (source, version, config, patches, key)" \
    grep -q "build_source = \"linux-source-6.12\", build_version = \"6\.12\.[^\"]*\", build_tree = \"\", build_config = \"[0-9a-f]\{16\}\", build_patches = \"0001-um-exceptions-page-fault-tracepoints.patch,[^\"]*\", build_key = \"$key\"" "$tmp/on.txt"
# the agent runs at nice 0 on the guest's one CPU (capture --agent-nice):
# niced, a CPU-bound process starved it of the maps snapshots of the
# short-lived processes whose file faults they resolve; every process
# that ran for 0.3 s or more has one
missing=$(awk '
function sec(s) { split(substr(s, 2, length(s) - 2), a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
/sched_process_exec: / { if (match($0, /tid = [0-9]+, old_tid/)) { p = substr($0, RSTART + 6, RLENGTH - 15); t0[p] = sec($1) } }
/sched_process_exit: / { if (match($0, /tid = [0-9]+, prio/)) { p = substr($0, RSTART + 6, RLENGTH - 12); t1[p] = sec($1) } }
/proc_maps: / { if (match($0, /pid = [0-9]+,/)) maps[substr($0, RSTART + 6, RLENGTH - 7)] = 1 }
END { for (p in t0) if ((p in t1) && t1[p] - t0[p] >= 0.3 && !(p in maps)) printf "%s ", p }' "$tmp/on.txt")
check "maps: a snapshot of every process that ran 0.3 s or more (missing: ${missing:-none})" test -z "$missing"
check "events: user page faults through the test bed's tracepoint (>= 10000: $(n 'x86_exceptions_page_fault_user:'))" \
    test "$(n 'x86_exceptions_page_fault_user:')" -ge 10000
check "events: write faults carry x86's error bits (USER|WRITE = 0x6)" \
    grep -q 'x86_exceptions_page_fault_user: .*error_code = 0x6 ' "$tmp/on.txt"
check "events: memcg reclaim ($(n 'mm_vmscan_memcg_reclaim_begin:') begins) with MGLRU's lru_isolate and shrink_inactive" \
    test "$(n 'mm_vmscan_memcg_reclaim_begin:')" -ge 1 -a "$(n 'mm_vmscan_lru_isolate:')" -ge 1 \
         -a "$(n 'mm_vmscan_lru_shrink_inactive:')" -ge 1
# DAMON follows the cgroup's processes: kdamond stops by itself once none
# of its targets lives (the short-lived ones at the end), and the agent
# starts it again on the next list instead of a refused commit
check "DAMON: the target list follows the processes ($(n 'damon_target:') damon_target events), no commit refused" \
    sh -c "[ $(n 'damon_target:') -ge 6 ] && ! grep -q 'DAMON: commit failed' '$tmp/on.log'"
check "events: the page cache (add_to_page_cache, get_pages)" \
    test "$(n 'mm_filemap_add_to_page_cache:')" -ge 1 -a "$(n 'mm_filemap_get_pages:')" -ge 1
last=$(grep 'vmreplay:vmstat:' "$tmp/on.txt" | tail -1)
scan=$(echo "$last" | grep -o 'pgscan_anon = [0-9]*' | grep -o '[0-9]*$')
check "counters: anon pages scanned by the end (pgscan_anon $scan)" test "${scan:-0}" -gt 0
fscan=$(echo "$last" | grep -o 'pgscan_file = [0-9]*' | grep -o '[0-9]*$')
check "counters: file pages scanned by the end (pgscan_file $fscan)" test "${fscan:-0}" -gt 0
check "capture_end: 0 ftrace records lost" grep -q 'capture_end: .*ftrace_lost = 0,' "$tmp/on.txt"
"$vmr" ingest -q -o "$tmp/on.vmr" "$tmp/on" >/dev/null 2>"$tmp/err"; rc=$?
check "ingest on the host: exit 0" test $rc -eq 0
check "ingest: the test bed's facts in the metadata" \
    sh -c "strings '$tmp/on.vmr' | grep -q '^capture_lru_kind	mglru' &&
           strings '$tmp/on.vmr' | grep -q '^capture_lru_gen_enabled	0x0001' &&
           strings '$tmp/on.vmr' | grep -q '^kernel_build_key	$key' &&
           strings '$tmp/on.vmr' | grep -q '^ground_truth_events	[1-9]'"
"$vmr" analyze -q -f tsv "$tmp/on" >"$tmp/on.an" 2>"$tmp/err"; rc=$?
mc=$(awk -F'\t' '$1=="summary" && $3=="memcg_reclaims" {print $4}' "$tmp/on.an")
check "analyze on the host: as many memcg reclaims as begin events ($mc)" \
    test $rc -eq 0 -a "$mc" = "$(n 'mm_vmscan_memcg_reclaim_begin:')"
# validate replays it as its kernel ran: k6.12 up to 6.12.117, k6.12.118
# from 6.12.118 (should_abort_scan stops memcg reclaim at its goal), no
# page-table walk (lru_gen 0x0001)
case $release in
6.12.*) sub=${release#6.12.}; sub=${sub%%[!0-9]*}
        if [ "${sub:-0}" -ge 118 ]; then want=mglru+k6.12.118+no-mm-walk; else want=mglru+k6.12+no-mm-walk; fi ;;
[1-5].*|6.[0-9]|6.[0-9][.-]*|6.1[01]*) want=mglru+k6.12+no-mm-walk ;;
*) want=mglru+no-mm-walk ;;
esac
"$vmr" validate -q -f tsv "$tmp/on" >"$tmp/on.val" 2>"$tmp/err"; rc=$?
check "validate on the host: replayed as its kernel ($release) ran, $want" \
    test $rc -eq 0 -a "$(awk -F'\t' 'NR == 2 {print $16}' "$tmp/on.val")" = "$want"

# --- madvise populates: demand no fault shows (patch 0003) ---------------
# MADV_POPULATE_READ/WRITE fault pages in through GUP (faultin_page), which
# raises no exception; the test bed's syscalls:sys_enter/sys_exit_madvise
# record them, with the generic syscall events' fields (UML has none).
# Hand-counted: 8 MiB never touched, POPULATE_WRITE of all of it (2,048
# pages stored), DONTNEED of its first 2 MiB (512 freed), POPULATE_READ of
# all of it (the 1,536 pages the task still has; the freed part maps the
# zero page) and a POPULATE_READ of the unmapped page 0 (ENOMEM): 4 calls,
# 1 failed, 3,584 pages populated, 512 dropped.
cat >"$tmp/madv.py" <<'PY'
import ctypes, mmap, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
buf = mmap.mmap(-1, 8 << 20)
at = ctypes.addressof(ctypes.c_char.from_buffer(buf))
rets = [libc.madvise(a, n, advice) for a, n, advice in
        ((at, 8 << 20, 23), (at, 2 << 20, 4), (at, 8 << 20, 22), (0, 4096, 22))]
sys.exit(0 if rets == [0, 0, 0, -1] else 1)
PY
fmt=/sys/kernel/tracing/events/syscalls
$tb/run.sh -q -k "$dir" -- cat $fmt/sys_enter_madvise/format $fmt/sys_exit_madvise/format \
    >"$tmp/madv.fmt" 2>&1; rc=$?
# every field line but its C type: names, offsets, sizes, signedness
fields() { sed -n 's/^\tfield:.* \([^ ;]*\);\t/\1\t/p' "$@"; }
fields "$tmp/madv.fmt" >"$tmp/madv.guest"
if [ -d $fmt/sys_enter_madvise ]; then
    fields $fmt/sys_enter_madvise/format $fmt/sys_exit_madvise/format >"$tmp/madv.host"
    check "syscalls:sys_enter/sys_exit_madvise in the guest: the host's fields, offsets and sizes" \
        sh -c "[ $rc = 0 ] && [ -s '$tmp/madv.host' ] && cmp -s '$tmp/madv.guest' '$tmp/madv.host'"
else    # (a host without syscall tracepoints: the layout the capture reads)
    check "syscalls:sys_enter/sys_exit_madvise in the guest: behavior at offset 32, 8 bytes" \
        sh -c "[ $rc = 0 ] && grep -q '^behavior	offset:32;	size:8;	signed:0;' '$tmp/madv.guest'"
fi
[ -s "$tmp/madv.guest" ] || sed 's/^/# /' "$tmp/madv.fmt"
env "${guest_env[@]}" "$vmr" capture -q --kernel "$dir" -o "$tmp/madv" --limit 32M -s 100 --swap zram \
    -- python3 "$tmp/madv.py" >"$tmp/madv.log" 2>&1; rc=$?
check "capture --kernel of madvise populates: the four calls returned as expected (0, got $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/madv.log"
babeltrace2 "$tmp/madv" >"$tmp/madv.txt" 2>/dev/null
check "events: the four madvise calls ($(grep -c 'syscall_entry_madvise:' "$tmp/madv.txt")) and their exits" \
    test "$(grep -c 'syscall_entry_madvise:' "$tmp/madv.txt")" -eq 4 -a \
         "$(grep -c 'syscall_exit_madvise:' "$tmp/madv.txt")" -ge 4
"$vmr" ingest -q -o "$tmp/madv.vmr" "$tmp/madv" >/dev/null 2>"$tmp/err"; rc=$?
madv=$(strings "$tmp/madv.vmr" 2>/dev/null | sed -n 's/^demand_madvise\t//p' | head -1)
check "ingest: 4 calls (1 failed), 3584 pages populated, 512 dropped ($madv)" \
    test $rc -eq 0 -a "$madv" = "4 calls (1 failed), 3584 pages populated, 512 pages dropped (DONTNEED), 0 HUGEPAGE, 0 NOHUGEPAGE"

# --- MGLRU off: the classic LRU of the same kernel --------------------------
env "${guest_env[@]}" "$vmr" capture -q --kernel "$dir" --lru-gen n -o "$tmp/off" --limit 32M -- \
    sh -c 'exit 0' >"$tmp/off.log" 2>&1; rc=$?
check "capture --kernel --lru-gen n: exit 0" test $rc -eq 0
check "metadata: lru_kind classic, lru_gen_enabled 0" \
    sh -c "babeltrace2 '$tmp/off' | grep -q 'capture_session: .*lru_kind = \"classic\".*lru_gen_enabled = 0,'"

# --- stopping: SIGTERM to the capture on the host --------------------------
# (the workload says it runs through the job folder, which the host sees)
env "${guest_env[@]}" "$vmr" capture -q --kernel "$dir" -o "$tmp/stop" --limit 32M -- \
    sh -c 'touch "$VMREPLAY_TESTBED_JOB/started" && exec sleep 60' >"$tmp/stop.log" 2>&1 &
cap=$!
for i in $(seq 300); do
    ls "$tmp"/.stop.testbed-*/started >/dev/null 2>&1 && break
    sleep 0.1
done
kill -TERM $cap
wait $cap; rc=$?
check "SIGTERM: the workload in the guest is stopped (status 143, got $rc)" test $rc -eq 143
check "SIGTERM: the trace is written whole" \
    sh -c "babeltrace2 '$tmp/stop' | grep -q 'capture_end: .*workload_status = 143,'"

# --- usage ------------------------------------------------------------------
"$vmr" capture --lru-gen n -o "$tmp/u" --limit 32M -- true >/dev/null 2>&1
check "--lru-gen without --kernel: usage error (2)" test $? -eq 2
"$vmr" capture --swap ubd:64M -o "$tmp/u" --limit 32M -- true >/dev/null 2>&1
check "--swap ubd without --kernel: usage error (2)" test $? -eq 2
"$vmr" capture --kernel "$dir" --lru-gen maybe -o "$tmp/u" --limit 32M -- true >/dev/null 2>&1
check "--lru-gen maybe: usage error (2)" test $? -eq 2
$tb/run.sh --mem 1T -- true >/dev/null 2>&1
check "run.sh --mem 1T: usage error (2)" test $? -eq 2
check "no output directory is left by the refused commands" test ! -e "$tmp/u"
