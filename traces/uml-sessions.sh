#!/bin/bash
# traces/uml-sessions.sh [--reps N] [--build DIR] [WORKLOAD...]
# traces/uml-sessions.sh --readme [--build DIR]   (only the sets' READMEs)
#
# Remakes the test bed's real sessions: traces/sessions/uml-6.12-mglru
# (Debian's 6.12 under User-Mode Linux, MGLRU on) and
# traces/sessions/uml-6.12-classic (the same kernel, lru_gen off), every
# WORKLOAD (default compile reader mix mt-anon) at swappiness 1, 100 and
# 200, N captures each (default 3), with traces/sessions.sh --kernel 6.12
# (its header says what each workload is; it boots one guest per capture,
# under the test bed's lock), then each set's README.md: how it was made
# and which demand source serves which of its scoreboard cells.  The
# kernel is built first if it is not cached (make testbed).  About 25 s a
# capture on this machine.
set -eu
cd "$(dirname "$0")/.."
build=build capture=1
[ "${1:-}" != --readme ] || { capture=0; shift; }
args=("$@")
while [ $# -gt 0 ]; do
    case $1 in --build) build=$2; shift 2 ;; --reps) shift 2 ;; *) shift ;; esac
done
if [ $capture = 1 ]; then
    for lru in y n; do
        traces/sessions.sh --kernel 6.12 --lru-gen "$lru" "${args[@]}"
    done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export VMREPLAY_CACHE=$tmp/cache
# "N (" of a metadata value, and the number before WORD in it
first() { sed -n "s/^$1	\([0-9]*\).*/\1/p" "$2"; }
before() { sed -n "s/^$1	.*[^0-9]\([0-9][0-9]*\) $2.*/\1/p; s/^$1	\([0-9][0-9]*\) $2.*/\1/p" "$3" | head -1; }
median() { sort -n | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "-"}'; }
for set in traces/sessions/uml-6.12-mglru traces/sessions/uml-6.12-classic; do
    [ -d "$set" ] || continue
    case $set in *mglru) what="MGLRU on (lru_gen 0x0001, as built)"; pol=mglru lg=y ;;
    *) what="MGLRU off (\`--lru-gen n\`: the classic LRU of the same kernel)"; pol=classic lg=n ;; esac
    rows=""
    for wl in compile reader mix mt-anon; do
        : >"$tmp/rows"
        for cap in "$set/$wl"-sw*-*/; do
            [ -d "$cap" ] || continue
            "$build/vmreplay" ingest -q -o "$tmp/v.vmr" "$cap" >/dev/null
            strings "$tmp/v.vmr" | grep -P '^[a-z_]+\t' >"$tmp/m"
            madv=$(before demand_madvise 'pages populated' "$tmp/m")
            printf '%s\t%s\t%s\t%s\t%s\n' "$(before demand_faults anon "$tmp/m")" "$(before demand_faults file "$tmp/m")" \
                "${madv:-0}" "$(first demand_page_cache "$tmp/m")" "$(before demand_damon 'page references' "$tmp/m")" \
                >>"$tmp/rows"
        done
        n=$(wc -l <"$tmp/rows")
        [ "$n" -gt 0 ] || continue
        rows="$rows| $wl | $n |"
        for c in 1 2 3 4 5; do rows="$rows $(cut -f$c "$tmp/rows" | median) |"; done
        rows="$rows
"
    done
    cat >"$set/README.md" <<EOM
# $(basename "$set"): real sessions of Linux 6.12 under User-Mode Linux, $what

Made by \`traces/uml-sessions.sh\` (\`traces/sessions.sh --kernel 6.12 --lru-gen $lg\`; see
its header for the workloads and their limits) in the test bed's guest
(capture/testbed/README.md: Debian's linux-source-6.12 built for UML with the
project's patches, one CPU, 1 GiB, zram swap, a cgroup v2 limit,
vm.swappiness; each capture's README names the patches its kernel had).
A folder is WORKLOAD-swN-R: workload, swappiness, replicate; each holds
ctf.tar.xz (the capture's CTF, which ingest reads as it is) and a README
with the capture's command and output.  \`make fidelity\`
replays them under $pol as captured and scores them (traces/FIDELITY.md).

## Which demand source serves which cells

None of these workloads is instrumented, so the replay's demand is the
kernel's own events: the fault tracepoint the test bed adds to UML
(\`exceptions:page_fault_user\`: first touches, and under UML every touch
after reclaim or aging cleared the emulated young bit), the madvise syscall
events it adds (\`syscalls:sys_enter/sys_exit_madvise\`, patch 0003: the
pages GUP faults in for \`MADV_POPULATE_READ/WRITE\`, which no fault event
shows; stress-ng's \`--vm\` populates its whole buffer), the page cache's
\`mm_filemap_get_pages\` / \`add_to_page_cache\` (reads by \`read()\`, read-ahead)
and DAMON's regions (re-references of mapped pages, by replay/ingest/damon.h's
rule; traces/damon/uml-6.12-anon-storm measures that rule).  Medians over
each workload's captures, from ingest's metadata:

| workload | captures | anon faults | file faults | madvise pages populated | page-cache pages read | DAMON page references |
|---|---|---|---|---|---|---|
${rows}
So the anon cells of compile, mix and mt-anon rest on the faults, with
DAMON's references on top (the table says how many) and, for mt-anon,
the populated pages; the file cells of reader and mix on the page-cache
events, and compile's file cells on both (its binaries are mapped, its
headers read); no cell uses an LTTng-UST stream.
EOM
done
