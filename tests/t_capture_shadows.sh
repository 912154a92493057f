#!/bin/bash
# A second capture of the same command counts no file refault of the
# first's evictions (capture/exec_inputs.c, doc/tracing-notes.md
# "Shadows from before the session"):
#  - the command is a #! script of 24 MiB that reads itself once
#    (`cat "$0"`); the first capture runs it in a 16 MiB cgroup, which
#    evicts most of its pages: their shadow entries outlive that cgroup;
#  - the second runs it in a 64 MiB cgroup, where nothing is reclaimed:
#    every file refault it counts would be of a shadow from the first
#    (measured with the capture before the drop: 1,566 of them).  The
#    capture drops the script's page cache and those shadows before the
#    exec, so its kernel workingset_refault_file (memory.stat) is 0, and
#    capture_session.dropped_inputs names the script and its interpreter;
#    ingest keeps dropped_inputs (how many) and dropped_exec;
#  - a third captures `lttng --version`, whose executable the capture's
#    own set-up runs again after the drop (lttng list, enable-event, ...:
#    processes outside the workload's memcg that read it back into the
#    page cache and exit): the inputs are dropped again just before the
#    exec, so the workload reads its executable itself, as it does
#    uncaptured (the trace shows its page-cache insertions of the file;
#    with one drop only, none: measured 0 of its 194 pages, where the
#    second drop gives 194).
# The captures hold /run/vmreplay-capture.lock (host captures never
# overlap).  Skips where root, tracefs, a memory cgroup or LTTng are
# missing.
set -u
. tests/tap.sh
hold_lock /run/vmreplay-capture.lock "$@"
mount_tracefs
tap_scratch "${1:-build}" /var/tmp/t_capture_shadows.XXXXXX

why=$(capture_unmet "$build")
if [ -n "$why" ]; then
    skip "a second capture of the same command" "$why"
    exit 0
fi

# on disk, not tmpfs: shmem pages go to swap, not to shadow entries
{
    printf '#!/bin/sh\ncat "$0" >/dev/null\nexit 0\n'
    head -c 24M /dev/zero | tr '\0' '#'
} >"$tmp/job.sh"
chmod +x "$tmp/job.sh"
# written back and out of the page cache: the first capture reads it
sync "$tmp/job.sh"
dd if="$tmp/job.sh" iflag=nocache count=0 status=none
# the kernel's count of COUNTER in the session (compare's kernel column)
kernel() { awk -F'\t' -v c="$2" '$1 == "counter" && $2 == c { print $4 }' "$tmp/$1.cmp"; }
for s in s1:16M s2:64M; do
    lim=${s#*:} s=${s%:*}
    "$vmr" capture -o "$tmp/$s" --limit "$lim" --swappiness 100 -- "$tmp/job.sh" >"$tmp/$s.log" 2>&1
    rc=$?
    check "capture $s: exit 0" test $rc -eq 0
    [ $rc -eq 0 ] || { sed 's/^/# /' "$tmp/$s.log" | tail -5; exit 0; }
    "$vmr" compare -q --policy classic -f tsv -o "$tmp/$s.cmp" "$tmp/$s" >"$tmp/$s.clog" 2>&1
    check "compare $s: exit 0" test $? -eq 0
done
steal=$(kernel s1 pgsteal_file)
steal2=$(kernel s2 pgsteal_file)
refault=$(kernel s2 workingset_refault_file)
echo "# first capture: pgsteal_file $steal; second: pgsteal_file $steal2, workingset_refault_file $refault"
check "the first capture evicted the script's pages (pgsteal_file $steal >= 1024)" \
    test "${steal:-0}" -ge 1024
check "the second reclaims no file page (pgsteal_file $steal2)" test "${steal2:-1}" -eq 0
check "the second refaults none of the first's (workingset_refault_file $refault)" \
    test "${refault:-1}" -eq 0
babeltrace2 "$tmp/s2" 2>/dev/null | grep -m1 'capture_session: ' >"$tmp/session.txt"
check "capture_session.dropped_inputs names the script and its interpreter" \
    grep -q "dropped_inputs = \"$tmp/job.sh /[^ ]*sh" "$tmp/session.txt"
"$vmr" ingest -q -o "$tmp/s2.vmr" "$tmp/s2" >"$tmp/ingest.log" 2>&1
check "ingest: exit 0" test $? -eq 0
meta() { strings "$tmp/s2.vmr" | sed -n "s/^$1\t//p" | head -1; }
check "ingest: dropped_exec $(meta dropped_exec), dropped_inputs $(meta dropped_inputs) (>= 2)" \
    sh -c "[ '$(meta dropped_exec)' = '$tmp/job.sh' ] && [ '$(meta dropped_inputs)' -ge 2 ]"

# the third: an executable the capture's set-up itself runs
lt=$(command -v lttng)
"$vmr" capture -o "$tmp/s3" --limit 64M --swappiness 100 -- lttng --version >"$tmp/s3.log" 2>&1
check "capture s3 (lttng --version): exit 0" test $? -eq 0
ino=$(stat -L -c %i "$lt")
pages=$(( ($(stat -L -c %s "$lt") + 4095) / 4096 ))
ins=$(babeltrace2 "$tmp/s3" 2>/dev/null | grep -c "mm_filemap_add_to_page_cache.*i_ino = $ino,")
check "the workload reads its executable in itself: $ins page-cache insertions of $lt ($pages pages; >= $((pages / 4)))" \
    test "$ins" -ge $((pages / 4))
