#!/bin/bash
# throttle.sh [--bundled] BUILD OUT — `make experiment-throttle`.
#
# "throttle MGLRU eviction when isolated folios pile up" (v7) ran threads
# write-touching a 48 MB anonymous working set in a 16 MB memcg with swap
# on dm-delay 50 ms, at 64 and 192 threads, and compared OOM kills, work
# done, scan efficiency and mm_vmscan_throttled with and without the
# patch; the review proposed scan balance instead.  This captures that
# storm (build/workloads/anon-storm) on a real MGLRU kernel, Debian's 6.12
# in the test bed (capture/testbed/; under /run/vmreplay-testbed.lock),
# with its swap on dm-delay 50 ms, replays each capture under mglru
# (unpatched), mglru+iso-throttle (patched) and mglru+scan-balance, and
# mglru+k6.12 (the model read as 6.12 reclaims, the kernel that ran it),
# at the limit and swappiness it ran with, on dm-delay-50ms (the test
# bed records no latencies of its swap device), 5 seeds, and writes one
# table per capture into OUT/throttle.{txt,md,tex,tsv}, the real 6.12
# kernel's row beside.  The captures are kept in $VMREPLAY_EXPERIMENTS/
# storm (default /var/cache/vmreplay/experiments), made when missing;
# --bundled replays the committed ones (traces/experiments/storm-6.12-*;
# make figures; no capture).  Both also replay the demand-only storms
# (traces/anon-storm-{64,192}t: recorded without a memcg on this
# machine's two CPUs) in a 16 MiB memcg on the dm-delay-50ms preset: the
# storm at the threads' own pace, which fills 16 MiB in 5 ms and has its
# first swap writes back at 55 ms.  And the paper's control: redis with
# a dataset larger than its 96 MiB memcg (traces/experiments/redis-6.12).
#
# The regime of the captures: the storm runs VMREPLAY_STORM_SECONDS
# (default 10; the paper 60) in the memcg, so that swap writes complete
# while it is being filled; the test bed has one CPU.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
policies="mglru mglru+iso-throttle mglru+scan-balance mglru+k6.12"
# cells STATS.tsv KERNEL.tsv: the tables in table.sh's line format, from
# the sweep's stats and the kernel's counters (--cells runs only this:
# tests/t_experiments.sh gives it fixtures).
cells() {
    exp_means "$1" | awk -F'\t' -v kfile="$2" -v pols="$policies" '
BEGIN {
    while ((getline l < kfile) > 0) { split(l, a, "\t"); k[a[1], a[2]] = a[3]; kt[a[1]] = 1 }
    np = split(pols, pol, " ")
    split("unpatched|patched|scan-balance|k6.12 reading", lab, "|")
}
!($1 in seen) { seen[$1] = 1; trs[++ntr] = $1 }
{ m[$1, $2, $4] = $5; s[$1, $2, $4] = $6 == 1 ? "*" : "" }
function v(t, p, x) { return ((t, p, x) in m) ? m[t, p, x] s[t, p, x] : "-" }
function kv(t, x) { return ((t, x) in k) ? k[t, x] : "-" }
END {
    for (e = 1; e <= ntr; e++) {
        t = trs[e]
        printf "title\t%s\t%s: %s; replay means of 5 seeds\n", t, t, (t in kt) && ((t, "title") in k) ? k[t, "title"] : "48 MiB written by its threads in a 16 MiB memcg"
        printf "head\t%s\tpolicy\tOOM kills\twork done\tscan efficiency\tmm_vmscan_throttled\tnr_isolated peak\tpgscan_direct\tworkingset_refault\n", t
        for (p = 1; p <= np; p++)
            printf "row\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t, lab[p], v(t, pol[p], "oom_kill"), v(t, pol[p], "work_done"), \
                v(t, pol[p], "steal_scan_ratio"), v(t, pol[p], "mm_vmscan_throttled"), v(t, pol[p], "nr_isolated_peak"), \
                v(t, pol[p], "pgscan_direct"), v(t, pol[p], "workingset_refault")
        real = (t, "pgscan_anon") in k
        if (real) {
            sc = kv(t, "pgscan_anon") + kv(t, "pgscan_file")
            eff = sc > 0 ? sprintf("%.4g", (kv(t, "pgsteal_anon") + kv(t, "pgsteal_file")) / sc) : "-"
            printf "row\t%s\treal 6.12\t%s\t%s\t%s\t%s\t-\t%s\t%s\n", t, kv(t, "oom_kill"), kv(t, "accesses"), eff, \
                kv(t, "mm_vmscan_throttled"), kv(t, "pgscan_direct"), kv(t, "workingset_refault_anon") + kv(t, "workingset_refault_file")
        }
        printf "note\t%s\tunpatched = mglru, patched = mglru+iso-throttle, scan-balance = mglru+scan-balance, k6.12 reading = mglru+k6.12 (the model read as 6.12 reclaims)%s; * differs from its baseline (Holm-adjusted p < 0.05; seeds: the simulator'\''s noise).\n", t, real ? "; real 6.12: the unpatched kernel that ran it" : ""
        printf "note\t%s\twork done: pages touched by the trace'\''s span%s; scan efficiency: pgsteal / pgscan; workingset_refault: anon + file.\n", t, real ? " (real: every access the capture recorded)" : ""
        if (real) printf "note\t%s\tThe real row: the capture'\''s own counters (memory.stat, vmstat, its mm_vmscan_throttled events); the kernel'\''s nr_isolated peak is not recorded; its pgscan_direct is the memcg'\''s (memory.stat), which 6.12 counts and its /proc/vmstat does not (the k6.12 reading reports the global counter: 0 for memcg reclaim).\n", t
    }
}'
}
exp_main throttle "$@"
seconds=${VMREPLAY_STORM_SECONDS:-10}
# redis_script: the redis control's workload (20000 SETs of 8 KiB values
# over 20000 keys, about 12600 of them distinct: some 100 MiB of values;
# then 1000 GETs of them).
redis_script() {
    cat <<'SCRIPT'
#!/bin/sh
# redis-server over a Unix socket (no network: loopback only), filled by
# redis-benchmark with a dataset larger than the memcg, then read back.
set -e
d=$(mktemp -d /tmp/redis.XXXXXX)
redis-server --port 0 --unixsocket "$d/s" --save "" --appendonly no --daemonize no --logfile "" >/dev/null &
pid=$!
i=0; while [ ! -S "$d/s" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
redis-benchmark -s "$d/s" -t set -d 8192 -n 20000 -r 20000 -q
redis-benchmark -s "$d/s" -t get -d 8192 -n 1000 -r 20000 -q
kill "$pid"; wait "$pid" || true
SCRIPT
}

# The captures on the real kernel (replayed at their limit on
# dm-delay-50ms), and the demand-only storms (replayed in 16 MiB on dm-delay 50 ms).
cap=() dem=()
for t in 64 192; do
    d=$root/traces/anon-storm-${t}t/ctf
    [ -d "$d" ] && dem+=("$d")
    if [ "$bundled" = 1 ]; then
        d=$root/traces/experiments/storm-6.12-${t}t
        [ -f "$d/ctf.tar.xz" ] && cap+=("$d")
        continue
    fi
    d=$cache/storm/storm-${t}t
    cap+=("$d")
    [ -d "$d/kernel" ] && continue
    exp_say "capturing the storm at $t threads in the test bed (6.12, MGLRU), ${seconds} s"
    mkdir -p "$cache/storm"
    rm -rf "$d"
    flock /run/vmreplay-testbed.lock "$vmr" capture --kernel 6.12 --lru-gen y -o "$d" \
        --limit 16M --swap delay:256M:50 -- "$root/$build/workloads/anon-storm" --threads "$t" \
        --wss-mb 48 --run-pages 4 --duration "$seconds" --memory-limit 16777216 \
        >"$cache/storm/storm-${t}t.log" 2>&1 ||
        exp_say "the storm at $t threads ended with status $? (an OOM kill ends it: kept)"
    [ -d "$d/kernel" ] || { cat "$cache/storm/storm-${t}t.log" >&2; exp_die "no capture at $t threads"; }
done
# The control: Debian's redis-server with a dataset larger than its
# 96 MiB memcg, swap on dm-delay 50 ms, filled and read back by
# redis-benchmark over a Unix socket (no network); the paper saw no
# impact of the patch there.  Its script lives where the guest can read it.
ctl=()
if [ "$bundled" = 1 ]; then
    d=$root/traces/experiments/redis-6.12
    [ -f "$d/ctf.tar.xz" ] && ctl+=("$d")
else
    d=$cache/redis/redis-6.12
    if [ ! -d "$d/kernel" ]; then
        command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
        mkdir -p "$cache/redis"
        redis_script >"$cache/redis/redis.sh"
        chmod +x "$cache/redis/redis.sh"
        exp_say "capturing redis in the test bed (6.12, MGLRU; about 2 min)"
        rm -rf "$d"
        flock /run/vmreplay-testbed.lock "$vmr" capture --kernel 6.12 --lru-gen y -o "$d" \
            --limit 96M --swap delay:512M:50 -- "$cache/redis/redis.sh" >"$cache/redis/redis-6.12.log" 2>&1 ||
            { tail -5 "$cache/redis/redis-6.12.log" >&2; exp_die "the redis capture failed"; }
    fi
    ctl+=("$d")
fi
[ ${#cap[@]} -gt 0 ] || [ ${#dem[@]} -gt 0 ] || [ ${#ctl[@]} -gt 0 ] || exp_die "nothing to replay"

metrics=(oom_kill work_done steal_scan_ratio mm_vmscan_throttled nr_isolated_peak pgscan_direct workingset_refault)
# sweep_file NAME: the sweep of the captures (captured) or of the
# demand-only storms (demand).  The captures ran on dm-delay 50 ms over
# a UBD file in the test bed, which records no latencies of its swap
# device (as captured they would replay on a plain ssd): their device is
# given, dm-delay-50ms (its default size, half the node's memory, where
# they had 256 and 512 MiB: neither fills).
sweep_file() {
    local c
    echo "# written by analysis/experiments/throttle.sh"
    if [ "$1" = captured ]; then
        for c in "${cap[@]}"; do echo "trace $c storm-6.12-${c##*-}"; done
        for c in "${ctl[@]}"; do echo "trace $c ${c##*/}"; done
        echo "memory-limit captured"
        echo "swap dm-delay-50ms"
    else
        for c in "${dem[@]}"; do c=${c%/ctf}; echo "trace $c/ctf ${c##*/}"; done
        echo "memory-limit 16M"
        echo "swap dm-delay-50ms"
    fi
    echo "policy $policies"
    echo "swappiness 60                # the storm ran at the default"
    echo "seed 1-5"
}
kinds=()
[ $(( ${#cap[@]} + ${#ctl[@]} )) -gt 0 ] && kinds+=(captured)
[ ${#dem[@]} -gt 0 ] && kinds+=(demand)
exp_sweeps "${kinds[@]}"

# The kernel's counters of each capture, and each table's title.
kernel_file() {
    local c t
    for c in "${cap[@]}"; do
        t=${c##*-}
        exp_kernel mglru "$c" | sed "s/^/storm-6.12-$t\t/"
        printf 'storm-6.12-%s\ttitle\tthe storm on Linux 6.12 (test bed, MGLRU, one CPU): %s threads write 48 MiB in a 16 MiB memcg, swap on dm-delay 50 ms; replayed at its limit on dm-delay-50ms\n' "$t" "${t%t}"
    done
    for c in "${ctl[@]}"; do
        exp_kernel mglru "$c" | sed "s/^/${c##*/}\t/"
        printf '%s\ttitle\tthe control, redis-server on Linux 6.12 (test bed, MGLRU, one CPU): 100 MiB of values written and read back by redis-benchmark in a 96 MiB memcg, swap on dm-delay 50 ms; replayed at its limit on dm-delay-50ms\n' "${c##*/}"
    done
    for c in "${dem[@]}"; do
        c=${c%/ctf} t=${c##*-}
        printf '%s\ttitle\tthe demand-only storm (no memcg, two CPUs, at its own pace): %s threads write 48 MiB; replayed in a 16 MiB memcg on dm-delay-50ms\n' "${c##*/}" "${t%t}"
    done
}
kern=$work/kernel.tsv
exp_to "$kern" kernel_file

cells=$work/cells.tsv
exp_to "$cells" cells "$work/stats.tsv" "$kern"
exp_publish "$cells"
