#!/bin/bash
# `vmreplay capture --drop-caches`: a session starts with no shadow entry
# of an earlier one, even for the files the command's children read
# (capture/drop_caches.c, doc/tracing-notes.md "Shadows from before the
# session").  The command is a /bin/sh script that runs `cat DATA`, DATA
# a 24 MiB file on disk: cat is a child, so neither it nor DATA is among
# what the capture drops for the command's own exec (exec_inputs.c).
#  - e1: the script in a 16 MiB cgroup.  DATA is 6,144 pages and the
#    cgroup holds 4,096 at most, so reclaim evicts at least 2,048 of them
#    (the kernel's pgsteal_file >= 2048); each eviction leaves a shadow
#    entry that outlives the cgroup.  The shadows left are the pages of
#    DATA whose last page-cache event in e1's trace is their deletion.
#  - s1: the script again in 64 MiB, without the option: nothing is
#    reclaimed (pgsteal_file 0: 24 MiB and the programs fit), and cat
#    reads those shadows back, which classic workingset_refault counts
#    (folio_nr_pages) before it finds their memcg gone.  Each order-0
#    folio s1 inserts over one of e1's shadows counts 1, so
#    workingset_refault_file is at least their number, and at least 100.
#    (Measured: 704-800 for the 2,345-2,528 pages s1 read back over
#    shadows, all of its 105-160 order-0 folios, all 128 of order 2, 4-8
#    of 64 of order 4, none of order 6: the large folios' shadows are
#    under-counted, for a reason not found yet.)
#  - e2: as e1, from a cold DATA again (its pages dropped with
#    POSIX_FADV_DONTNEED, s1's resident pages and all).
#  - s2: as s1 with --drop-caches: no shadow survives the drop, and the
#    session reclaims nothing, so workingset_refault_file is 0 on a quiet
#    machine (0 in 4 of 5 runs; 1 once: a page another memcg reclaimed
#    after the drop can refault) — at most 4 here, where e2 left over
#    2,048; capture_session.dropped_caches is 1 (0 in s1) and ingest
#    keeps it as dropped_caches, with start_cached_kb and
#    start_workingset_nodes.
# The captures hold /run/vmreplay-capture.lock (host captures never
# overlap); --drop-caches drops the whole machine's page cache.  Skips
# where root, tracefs, a memory cgroup or LTTng are missing.
set -u
. tests/tap.sh
hold_lock /run/vmreplay-capture.lock "$@"
mount_tracefs
tap_scratch "${1:-build}" /var/tmp/t_capture_dropcaches.XXXXXX

why=$(capture_unmet "$build")
if [ -n "$why" ]; then
    skip "a capture with --drop-caches after one that evicted its child's file" "$why"
    exit 0
fi

# on disk, not tmpfs: shmem pages go to swap, not to shadow entries
head -c 24M /dev/urandom >"$tmp/data"
printf '#!/bin/sh\ncat "%s" >/dev/null\nexit 0\n' "$tmp/data" >"$tmp/job.sh"
chmod +x "$tmp/job.sh"
sync "$tmp/data" "$tmp/job.sh"
cold() { dd if="$tmp/data" iflag=nocache count=0 status=none; }
ino=$(stat -c %i "$tmp/data")
# the kernel's count of COUNTER in the session (compare's kernel column)
kernel() { awk -F'\t' -v c="$2" '$1 == "counter" && $2 == c { print $4 }' "$tmp/$1.cmp"; }
# DATA's page-cache events of session S: "S add_to|delete_from INDEX ORDER"
events() {
    babeltrace2 "$tmp/$1/kernel" 2>/dev/null |
        sed -nE "s/.*mm_filemap_(add_to|delete_from)_page_cache: .*i_ino = $ino, index = ([0-9]+), .*order = ([0-9]+).*/$1 \1 \2 \3/p"
}
# the shadows E left in DATA (pages whose last event in E is a deletion),
# and the order-0 folios S then inserted over one of them
shadows() {
    { events "$1"; events "$2"; } | awk -v e="$1" '
        $1 == e { for (i = 0; i < 2 ^ $4; i++) last[$3 + i] = $2; next }
        $2 == "add_to" && $4 == 0 && last[$3] == "delete_from" { small++ }
        END { for (p in last) n += last[p] == "delete_from"; print n + 0, small + 0 }'
}
capture() {  # NAME LIMIT [OPTION...]
    local s=$1 lim=$2
    shift 2
    "$vmr" capture -o "$tmp/$s" --limit "$lim" --swappiness 100 "$@" -- "$tmp/job.sh" >"$tmp/$s.log" 2>&1
    local rc=$?
    check "capture $s: exit 0" test $rc -eq 0
    [ $rc -eq 0 ] || { sed 's/^/# /' "$tmp/$s.log" | tail -5; exit 0; }
    "$vmr" compare -q --policy classic -f tsv -o "$tmp/$s.cmp" "$tmp/$s" >"$tmp/$s.clog" 2>&1
    check "compare $s: exit 0" test $? -eq 0
}
cold
capture e1 16M
capture s1 64M
cold
capture e2 16M
capture s2 64M --drop-caches

for e in e1 e2; do
    steal=$(kernel $e pgsteal_file)
    check "$e evicted at least 2,048 of DATA's pages (pgsteal_file $steal)" test "${steal:-0}" -ge 2048
done
read -r left small < <(shadows e1 s1)
read -r left2 _ < <(shadows e2 s2)
echo "# e1 left $left shadow entries in DATA, s1 read $small order-0 folios back over them; e2 left $left2"
check "e1 left at least 2,048 shadows in DATA ($left)" test "${left:-0}" -ge 2048
check "e2 left at least 2,048 shadows in DATA ($left2)" test "${left2:-0}" -ge 2048
for s in s1 s2; do
    steal=$(kernel $s pgsteal_file)
    check "$s reclaims no file page (pgsteal_file $steal)" test "${steal:-1}" -eq 0
done
r1=$(kernel s1 workingset_refault_file)
r2=$(kernel s2 workingset_refault_file)
echo "# workingset_refault_file: $r1 without --drop-caches, $r2 with it"
check "without --drop-caches cat refaults e1's shadows ($r1 >= $small order-0 folios, >= 100)" \
    sh -c "[ '${r1:-0}' -ge '${small:-1}' ] && [ '${r1:-0}' -ge 100 ]"
check "with --drop-caches it refaults none of e2's ($r2 <= 4)" test "${r2:-5}" -le 4
check "the capture says it dropped the page cache" \
    grep -q "dropped the page cache, with its shadow entries" "$tmp/s2.log"
check "... and only when asked" sh -c "! grep -q 'dropped the page cache' '$tmp/s1.log'"
for s in s1 s2; do
    babeltrace2 "$tmp/$s" 2>/dev/null | grep -m1 'capture_session: ' >"$tmp/$s.session"
    "$vmr" ingest -q -o "$tmp/$s.vmr" "$tmp/$s" >"$tmp/$s.ilog" 2>&1
    check "ingest $s: exit 0" test $? -eq 0
done
check "capture_session.dropped_caches: 0 without, 1 with" \
    sh -c "grep -q 'dropped_caches = 0,' '$tmp/s1.session' && grep -q 'dropped_caches = 1,' '$tmp/s2.session'"
meta() { strings "$tmp/$1.vmr" | sed -n "s/^$2\t//p" | head -1; }
check "ingest: dropped_caches $(meta s1 dropped_caches) without, $(meta s2 dropped_caches) with" \
    sh -c "[ '$(meta s1 dropped_caches)' = 0 ] && [ '$(meta s2 dropped_caches)' = 1 ]"
check "ingest: start_cached_kb and start_workingset_nodes ($(meta s2 start_cached_kb), $(meta s2 start_workingset_nodes))" \
    sh -c "[ -n '$(meta s2 start_cached_kb)' ] && [ -n '$(meta s2 start_workingset_nodes)' ]"
