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
# And the paper's CI build pod, where traces/kbuild-long.sh's captures
# are (not --bundled): the long kernel build replayed with its file
# system on dm-delay-10ms (below, "The build pod").
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
$1 ~ /^build-pod/ { next }
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
    pod_cells "$1" "$2"
}
# pod_cells STATS.tsv KERNEL.tsv: the build pod's tables, one per trace
# set (build-pod-v1, build-pod-v2) and memory limit, from the stats'
# rows of those sets (by column name: trace, memory_limit, policy,
# metric, mean, significant) and the kernel file's lines of them: "SET
# title T", "SET limit BYTES LABEL" (the tables' order), "SET objects
# POLICY BYTES N" (objects compiled within the span, the captures' mean)
# and "SET real BYTES METRIC VALUE" (the real kernel at its own limit).
pod_cells() {
    awk -F'\t' -v kfile="$2" -v pols="mglru mglru+iso-throttle mglru+scan-balance" '
BEGIN {
    while ((getline l < kfile) > 0) {
        n = split(l, a, "\t")
        if (a[1] !~ /^build-pod/) continue
        if (a[2] == "title") { title[a[1]] = a[3]; if (!(a[1] in sn)) { sn[a[1]] = 1; sets[++ns] = a[1] } }
        else if (a[2] == "limit") { lim[a[1], ++nl[a[1]]] = a[3]; lab[a[1], a[3]] = a[4] }
        else if (a[2] == "objects") obj[a[1], a[3], a[4]] = a[5]
        else if (a[2] == "real") { real[a[1], a[3], a[4]] = a[5]; hasreal[a[1], a[3]] = 1 }
    }
    np = split(pols, pol, " ")
    split("unpatched|patched|scan-balance", plab, "|")
}
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["trace"] ~ /^build-pod/ {
    k = $c["trace"] SUBSEP $c["memory_limit"] SUBSEP $c["policy"] SUBSEP $c["metric"]
    m[k] = $c["mean"]; s[k] = $c["significant"] == 1 ? "*" : ""
}
function v(t, l, p, x, scale,   k) {
    k = t SUBSEP l SUBSEP p SUBSEP x
    if (!(k in m)) return "-"
    return (scale ? sprintf("%.10g", m[k] / scale) : m[k]) s[k]
}
function ov(t, l, p) { return ((t, p, l) in obj) ? obj[t, p, l] : "-" }
function rv(t, l, x) { return ((t, l, x) in real) ? real[t, l, x] : "-" }
END {
    for (e = 1; e <= ns; e++) {
        t = sets[e]
        for (j = 1; j <= nl[t]; j++) {
            l = lim[t, j]; mib = sprintf("%.0f", l / 1048576); id = t "-" mib "M"
            printf "title\t%s\t%s: %s, in %s MiB (%s); replay means of the captures\n", id, id, title[t], mib, lab[t, l]
            printf "head\t%s\tpolicy\tOOM kills\tobjects by the span\tmakespan s\tscan efficiency\tmm_vmscan_throttled\tnr_isolated peak\tpgscan_direct\n", id
            for (p = 1; p <= np; p++)
                printf "row\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", id, plab[p], v(t, l, pol[p], "oom_kill"), ov(t, l, pol[p]), \
                    v(t, l, pol[p], "makespan_ns", 1e9), v(t, l, pol[p], "steal_scan_ratio"), v(t, l, pol[p], "mm_vmscan_throttled"), \
                    v(t, l, pol[p], "nr_isolated_peak"), v(t, l, pol[p], "pgscan_direct")
            if ((t, l) in hasreal) {
                sc = rv(t, l, "pgscan_anon") + rv(t, l, "pgscan_file")
                eff = sc > 0 ? sprintf("%.4g", (rv(t, l, "pgsteal_anon") + rv(t, l, "pgsteal_file")) / sc) : "-"
                printf "row\t%s\treal 6.18\t%s\t%s\t%s\t%s\t%s\t-\t%s\n", id, rv(t, l, "oom_kill"), rv(t, l, "objects"), \
                    rv(t, l, "span_s"), eff, rv(t, l, "mm_vmscan_throttled"), rv(t, l, "pgscan_direct")
            }
            printf "note\t%s\tunpatched = mglru, patched = mglru+iso-throttle, scan-balance = mglru+scan-balance; * differs from its baseline (paired t over the captures, Holm-adjusted p < 0.05).\n", id
            printf "note\t%s\tobjects by the span: assembler (as) processes that finished by the capture'\''s recorded span, the captures'\'' mean (not tested); makespan: when the replayed build ended; scan efficiency: pgsteal / pgscan.\n", id
            if ((t, l) in hasreal) printf "note\t%s\tThe real row: the host kernel that ran the build (Linux 6.18, classic LRU, cgroup v1, the ext4 disk as it is, not dm-delay), the captures'\'' mean: their counters, their span, their mm_vmscan_throttled events; its pgscan_direct: what its memcg reclaims scanned (mm_vmscan_memcg_reclaim events; its /proc/vmstat counts none of them); its nr_isolated peak is not recorded.\n", id
        }
    }
}' "$1"
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

# The build pod: the paper's CI pod built vmlinux with make -j20 in
# 1024, 1536 and 2048 MB memcgs on ext4 over dm-delay 10 ms.  Its what-if
# replay: the long kernel build (traces/kbuild-long.sh: make -j2 mm/
# fs/ext4/ of linux-source-6.12, real dirty object files written to
# ext4, captured on this machine's classic 6.18 in a cgroup v1 memcg of
# a third of its peak, zram swap) at every swappiness it was captured
# at, each capture a replicate of the workload, replayed at swappiness
# 60 (the pod's default) with its file system on dm-delay-10ms and its
# swap as captured, at the paper's limits as shares of the build's
# peak (1024, 1536, 2048 of the paper's ~2560 MB: 0.4, 0.6, 0.8 of the
# peak measured without a limit) and at the capture's own limit, where
# the real kernel's row is; as captured (cgroup v1, where limit reclaim
# is not throttled and the isolation throttle never acts:
# writeback_throttling_sane) and in a cgroup v2 memcg (the pod's).
# sweep does not vary the file device: the runs are made here, into a
# directory of a sweep's layout (plan.tsv, results/ID.tsv; RESULTS.md)
# that vmreplay stats reads, with each run's --tasks beside.
pod=$cache/kbuild-long
pod_caps=()
if [ "$bundled" = 1 ]; then
    exp_say "the build pod: skipped with --bundled (its captures, $pod, are not committed: traces/kbuild-long.sh makes them)"
else
    for d in "$pod"/kbuild-long-sw*-[0-9]; do [ -d "$d/kernel" ] && pod_caps+=("$d"); done
    [ ${#pod_caps[@]} -gt 0 ] ||
        exp_say "the build pod: skipped (no captures in $pod: traces/kbuild-long.sh makes them)"
fi
pod_policies="mglru mglru+iso-throttle mglru+scan-balance"
# pod_run DIR CG NAME VMR HASH PAGES POLICY LIMIT|captured: one run
# into DIR/results/ID.tsv (and DIR/tasks/ID.tsv), its plan line on
# stdout.  ID hashes the binary and everything the run depends on.
pod_run() {
    local dir=$1 cg=$2 name=$3 vmrf=$4 hash=$5 pages=$6 p=$7 lim=$8 id la=()
    [ "$lim" = captured ] || la=(--memory-limit "$lim")
    id=$(echo "$sum $hash $p $lim cgroup-v$cg dm-delay-10ms 60 1" | sha256sum | cut -c1-16)
    if [ ! -s "$dir/results/$id.tsv" ]; then
        (cd "$dir" && "$vmr" run -q -p "$p" -s 60 "${la[@]}" --cgroup-version "$cg" \
            --file-device dm-delay-10ms --seed 1 --tasks "tasks/.$id.tmp" -f tsv -o "results/.$id.tmp" \
            "traces/$name.vmr") || exp_die "the build pod: $p on $name failed"
        mv -f "$dir/tasks/.$id.tmp" "$dir/tasks/$id.tsv"
        mv -f "$dir/results/.$id.tmp" "$dir/results/$id.tsv"
    fi
    awk -F'\t' -v id="$id" -v name="$name" -v hash="$hash" -v pages="$pages" -v p="$p" -v cg="$cg" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { printf "%s\t%s\t%s\t%s\t4096\t%s\t1\t60\t%s\t-\t-\t1\t0\t0\tbuild-pod-v%s\n", id, name, hash, pages, p, $c["memory_limit"], cg }' \
        "$dir/results/$id.tsv"
}
if [ ${#pod_caps[@]} -gt 0 ]; then
    sum=$(sha256sum "$vmr" | cut -d' ' -f1)
    peak=$(awk -F'\t' '$1 == "peak_bytes" { print $2 }' "$pod/peak" 2>/dev/null)
    [ -n "$peak" ] || exp_die "the build pod: no peak_bytes in $pod/peak (traces/kbuild-long.sh writes it)"
    pod_limits="$((peak * 1024 / 2560 / 4096 * 4096)) $((peak * 1536 / 2560 / 4096 * 4096)) $((peak * 2048 / 2560 / 4096 * 4096)) captured"
    exp_say "the build pod: ${#pod_caps[@]} captures x 3 policies x 4 limits x cgroup v1, v2 on dm-delay-10ms"
    pod_stats=()
    for cg in 1 2; do
        dir=$work/pod-v$cg
        if [ -d "$dir" ] && [ "$(cat "$dir/.binary" 2>/dev/null)" != "$sum" ]; then
            exp_say "results in $dir are of another vmreplay binary: replaying again"
            rm -rf "$dir"
        fi
        mkdir -p "$dir/traces" "$dir/results" "$dir/tasks"
        echo "$sum" >"$dir/.binary"
        plan() {
            local c j name vmrf hash pages p l
            printf 'id\ttrace\ttrace_hash\tpages\tpage_size\tpolicy\tkernel\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tevents\ttimeline\tset\n'
            for c in "${pod_caps[@]}"; do
                name=${c##*/}
                j=$("$vmr" ingest -q -f json "$c") || exp_die "the build pod: ingesting $c failed"
                vmrf=$(sed -n 's/.*"vmr": "\([^"]*\)".*/\1/p' <<<"$j")
                hash=$(sed -n 's/.*"trace_hash": "\([0-9a-f]*\)".*/\1/p' <<<"$j")
                pages=$(sed -n 's/.*"pages": \([0-9]*\).*/\1/p' <<<"$j")
                ln -sfn "$vmrf" "$dir/traces/$name.vmr"
                for p in $pod_policies; do
                    for l in $pod_limits; do pod_run "$dir" "$cg" "$name" "$vmrf" "$hash" "$pages" "$p" "$l"; done
                done
            done
        }
        exp_to "$dir/plan.tsv" plan
        exp_to "$work/pod-v$cg.stats.tsv" "$vmr" stats -m oom_kill -m makespan_ns -m steal_scan_ratio \
            -m mm_vmscan_throttled -m nr_isolated_peak -m pgscan_direct --outcome makespan_ns "$dir"
        pod_stats+=("$work/pod-v$cg.stats.tsv")
    done
    exp_to "$work/stats.tsv.all" awk 'FNR > 1 || NR == 1' "$work/stats.tsv" "${pod_stats[@]}"
    mv -f "$work/stats.tsv.all" "$work/stats.tsv"
fi

# pod_kernel: the build pod's lines of the kernel file (pod_cells):
# titles, limits, the objects each policy compiled by the span (the
# captures' mean), the real kernel at its own limit (the captures' mean).
pod_kernel() {
    local cg dir c t
    for cg in 1 2; do
        dir=$work/pod-v$cg
        t=build-pod-v$cg
        if [ $cg = 1 ]; then
            printf '%s\ttitle\tthe long kernel build (make -j2 mm/ fs/ext4/, %d captures on Linux 6.18, peak %d MiB) as captured, cgroup v1; ext4 on dm-delay-10ms, swap as captured\n' "$t" ${#pod_caps[@]} $((peak >> 20))
        else
            printf '%s\ttitle\tthe long kernel build (make -j2 mm/ fs/ext4/, %d captures on Linux 6.18, peak %d MiB) in a cgroup v2 memcg (the pod'"'"'s); ext4 on dm-delay-10ms, swap as captured\n' "$t" ${#pod_caps[@]} $((peak >> 20))
        fi
        # the limits, in MiB as stats gives them, and what each stands for
        awk -F'\t' -v t="$t" -v peak="$peak" '
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            !($c["memory_limit"] in seen) { seen[$c["memory_limit"]] = 1; l[++n] = $c["memory_limit"] }
            END {
                for (i = 1; i <= n; i++) {
                    r = l[i] / peak
                    lab = r > 0.39 && r < 0.41 ? "0.4 of the peak: the paper'"'"'s 1024 of 2560 MB" : \
                          r > 0.59 && r < 0.61 ? "0.6 of the peak: the paper'"'"'s 1536 MB" : \
                          r > 0.79 && r < 0.81 ? "0.8 of the peak: the paper'"'"'s 2048 MB" : \
                          sprintf("%.2f of the peak: the capture'"'"'s own limit", r)
                    printf "%s\tlimit\t%s\t%s\n", t, l[i], lab
                }
            }' "$dir/plan.tsv" | sort -t$'\t' -k3,3g
        # objects: distinct as processes (a tid: its fork and its exec
        # are two tasks) that finished, unkilled, by the recorded span
        awk -F'\t' -v t="$t" '
            NR == 1 { next }
            { pol[$1] = $6; lim[$1] = $9 }
            END { for (id in pol) print id "\t" pol[id] "\t" lim[id] }' "$dir/plan.tsv" |
        while IFS=$'\t' read -r id p l; do
            d=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["deadline_ns"] }' "$dir/results/$id.tsv")
            awk -F'\t' -v d="$d" -v p="$p" -v l="$l" 'NR > 1 && $3 == "as" && $7 == 0 && $4 <= d { u[$2] = 1 }
                END { print p "\t" l "\t" length(u) }' "$dir/tasks/$id.tsv"
        done | awk -F'\t' -v t="$t" '{ s[$1, $2] += $3; n[$1, $2]++ }
            END { for (k in s) { split(k, a, SUBSEP); printf "%s\tobjects\t%s\t%s\t%.10g\n", t, a[1], a[2], s[k] / n[k] } }' | sort
    done
    # the real kernel: each capture's counters at its own limit, averaged
    for c in "${pod_caps[@]}"; do
        exp_kernel classic "$c"
        "$vmr" analyze -f tsv "$c" | awk -F'\t' '$1 == "summary" && $3 == "direct_pages_scanned" { print "pgscan_memcg\t" $4 }
            $1 == "summary" && $3 == "session_ns" { printf "span_s\t%.10g\n", $4 / 1e9 }'
        # its mglru run at the captured limit: the last of pod_limits
        id=$(awk -F'\t' -v n="${c##*/}" '$2 == n && $6 == "mglru" { id = $1 } END { print id }' "$work/pod-v1/plan.tsv")
        awk -F'\t' 'NR > 1 && $3 == "as" { u[$2] = 1 } END { print "objects\t" length(u) }' "$work/pod-v1/tasks/$id.tsv"
        awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print "limit\t" $c["memory_limit"] }' \
            "$work/pod-v1/results/$id.tsv"
    done | awk -F'\t' -v n=${#pod_caps[@]} '
        $1 == "limit" { if (lim != "" && lim != $2) mixed = 1; lim = $2; next }
        $1 == "pgscan_direct" { next }
        $1 == "pgscan_memcg" { $1 = "pgscan_direct" }
        { s[$1] += $2; if (!($1 in seen)) { seen[$1] = 1; o[++k] = $1 } }
        END {
            if (mixed) exit
            for (cg = 1; cg <= 2; cg++) for (i = 1; i <= k; i++)
                printf "build-pod-v%d\treal\t%s\t%s\t%.10g\n", cg, lim, o[i], s[o[i]] / n
        }'
}

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
    [ ${#pod_caps[@]} = 0 ] || pod_kernel
}
kern=$work/kernel.tsv
exp_to "$kern" kernel_file

cells=$work/cells.tsv
exp_to "$cells" cells "$work/stats.tsv" "$kern"
exp_publish "$cells"
