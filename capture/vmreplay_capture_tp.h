/*
 * vmreplay_capture_tp.h - the `vmreplay_capture` LTTng-UST provider: what
 * `vmreplay capture` knows about a session besides the kernel's events.
 *
 * Emitted only by build/vmreplay-capture-agent: the session's setup (memory
 * cgroup, limit, swappiness, swap, DAMON, how kernel events were
 * recorded, the kernel's LRU and how it was built), the cgroup's memory.stat snapshots, the workload's memory
 * maps, the DAMON target list, task names, and the losses counted at the
 * end.  The contract is capture/EVENTS.md; ingest reads these by name.
 */

#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER vmreplay_capture

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "vmreplay_capture_tp.h"

#ifndef VMREPLAY_CAPTURE_TP_TYPES_H
#define VMREPLAY_CAPTURE_TP_TYPES_H

#include <stdint.h>

struct vmrc_session {
    uint32_t root_pid;          /* the workload's first process          */
    const char *cgroup;         /* the memory cgroup's directory         */
    uint32_t cgroup_version;    /* 1 or 2                                */
    uint64_t memory_limit;      /* bytes                                 */
    int32_t swappiness;         /* the cgroup's (v1) or vm.swappiness (v2) */
    const char *swap_kind;      /* "device", "file", "zram"              */
    const char *swap_device;    /* path of the swap area(s)              */
    uint64_t swap_size;         /* bytes of swap space enabled           */
    const char *kernel_source;  /* "tracefs-bridge" or "lttng-modules"   */
    const char *lru_kind;       /* "classic" or "mglru"                  */
    const char *thp;            /* transparent_hugepage/enabled choice   */
    uint32_t period_ms;         /* memory.stat snapshot period (ms)      */
    uint8_t damon;              /* 1: damon_aggregated is recorded       */
    uint64_t damon_sample_us, damon_aggr_us, damon_update_us;
    const char *damon_note;     /* why DAMON is off, or its setup        */
    const char *filter;         /* how kernel events were filtered       */
    int32_t lru_gen_enabled;    /* lru_gen/enabled bits, -1 no MGLRU     */
    int32_t lru_gen_min_ttl_ms; /* lru_gen/min_ttl_ms, -1 no MGLRU       */
    const char *kernel_version; /* /proc/version                         */
    /* How the kernel was built, from the test bed's build-info
     * (capture/testbed/build.sh); "" outside the test bed. */
    const char *build_source, *build_version, *build_tree, *build_config,
               *build_patches, *build_key;
    /* What swapin_readahead decides by: swap_use_vma_readahead() is
     * vma_ra_enabled and no rotational swap area on the machine
     * (nr_rotate_swap); the window is 2^page-cluster slots. */
    int32_t swap_rotational;    /* 1: a swap area in /proc/swaps is rotational; -1 unknown */
    int32_t page_cluster;       /* /proc/sys/vm/page-cluster, -1 unknown */
    int32_t vma_ra_enabled;     /* /sys/kernel/mm/swap/vma_ra_enabled, -1 unknown */
    /* The tracepoint the memcg statistics' flushes are recorded by
     * ("memcg:memcg_flush_stats", "cgroup:cgroup_rstat_locked"), "" none. */
    const char *stats_flush;
    /* The files the command's exec reads, dropped from the page cache
     * with their shadow entries before it started (space-separated). */
    const char *dropped_inputs;
    const char *thp_defrag;     /* transparent_hugepage/defrag choice    */
    /* 1: the capture wrote back and dropped the machine's page cache and
     * its shadow entries before the command started (--drop-caches) */
    int32_t dropped_caches;
    /* the machine's page cache then (after the drop, if any): meminfo
     * Cached in KiB, and vmstat workingset_nodes, the xarray nodes that
     * hold shadow entries; -1 unknown */
    int64_t start_cached_kb, start_workingset_nodes;
};

struct vmrc_end {
    uint64_t ftrace_lost;       /* records the ftrace ring buffers lost  */
    uint64_t bridged;           /* kernel records re-emitted             */
    int32_t workload_status;    /* wait status decoded: exit code or 128+sig */
    uint64_t elapsed_ns;        /* workload run time                     */
};

/* The accessed-bit sampler's summary (capture/pte_young.c). */
struct vmrc_young {
    uint32_t period_ms;         /* the poll period; 0: the sampler was off */
    uint64_t polls;             /* polls made */
    uint64_t observed;          /* pte_young events emitted */
    uint64_t lost;              /* transitions the ring buffer had no room for */
    uint64_t resets;            /* region snapshots dropped: the PTE table changed */
    uint64_t regions;           /* the most 2 MiB regions one poll walked */
    uint64_t full;              /* regions the map had no room for */
    uint64_t poll_ns;           /* the polls' run time, summed */
    const char *note;           /* "on: ..." or "off: why" */
};

#endif /* VMREPLAY_CAPTURE_TP_TYPES_H */

#if !defined(VMREPLAY_CAPTURE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define VMREPLAY_CAPTURE_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_capture, capture_session,
    LTTNG_UST_TP_ARGS(const struct vmrc_session *, s),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, root_pid, s->root_pid)
        lttng_ust_field_string(cgroup, s->cgroup)
        lttng_ust_field_integer(uint32_t, cgroup_version, s->cgroup_version)
        lttng_ust_field_integer(uint64_t, memory_limit, s->memory_limit)
        lttng_ust_field_integer(int32_t, swappiness, s->swappiness)
        lttng_ust_field_string(swap_kind, s->swap_kind)
        lttng_ust_field_string(swap_device, s->swap_device)
        lttng_ust_field_integer(uint64_t, swap_size, s->swap_size)
        lttng_ust_field_string(kernel_source, s->kernel_source)
        lttng_ust_field_string(lru_kind, s->lru_kind)
        lttng_ust_field_string(thp, s->thp)
        lttng_ust_field_integer(uint32_t, period_ms, s->period_ms)
        lttng_ust_field_integer(uint8_t, damon, s->damon)
        lttng_ust_field_integer(uint64_t, damon_sample_us, s->damon_sample_us)
        lttng_ust_field_integer(uint64_t, damon_aggr_us, s->damon_aggr_us)
        lttng_ust_field_integer(uint64_t, damon_update_us, s->damon_update_us)
        lttng_ust_field_string(damon_note, s->damon_note)
        lttng_ust_field_string(filter, s->filter)
        lttng_ust_field_integer(int32_t, lru_gen_enabled, s->lru_gen_enabled)
        lttng_ust_field_integer(int32_t, lru_gen_min_ttl_ms, s->lru_gen_min_ttl_ms)
        lttng_ust_field_string(kernel_version, s->kernel_version)
        lttng_ust_field_string(build_source, s->build_source)
        lttng_ust_field_string(build_version, s->build_version)
        lttng_ust_field_string(build_tree, s->build_tree)
        lttng_ust_field_string(build_config, s->build_config)
        lttng_ust_field_string(build_patches, s->build_patches)
        lttng_ust_field_string(build_key, s->build_key)
        lttng_ust_field_integer(int32_t, swap_rotational, s->swap_rotational)
        lttng_ust_field_integer(int32_t, page_cluster, s->page_cluster)
        lttng_ust_field_integer(int32_t, vma_ra_enabled, s->vma_ra_enabled)
        lttng_ust_field_string(stats_flush, s->stats_flush)
        lttng_ust_field_string(dropped_inputs, s->dropped_inputs)
        lttng_ust_field_string(thp_defrag, s->thp_defrag)
        lttng_ust_field_integer(int32_t, dropped_caches, s->dropped_caches)
        lttng_ust_field_integer(int64_t, start_cached_kb, s->start_cached_kb)
        lttng_ust_field_integer(int64_t, start_workingset_nodes, s->start_workingset_nodes)
    )
)

/* One snapshot of the cgroup: "key value" lines of memory.stat, then the
 * usage, limit and event counters under the names of EVENTS.md. */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_capture, memcg_stat,
    LTTNG_UST_TP_ARGS(uint64_t, kts, const char *, stat),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, kts, kts)
        lttng_ust_field_string(stat, stat)
    )
)

/* The text of /proc/PID/maps at kts (a whole snapshot). */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_capture, proc_maps,
    LTTNG_UST_TP_ARGS(uint64_t, kts, int32_t, pid, const char *, maps),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, kts, kts)
        lttng_ust_field_integer(int32_t, pid, pid)
        lttng_ust_field_string(maps, maps)
    )
)

/* A task's name and thread group, for tasks the trace has no fork of. */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_capture, task_comm,
    LTTNG_UST_TP_ARGS(uint64_t, kts, int32_t, tid, int32_t, pid, const char *, comm),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, kts, kts)
        lttng_ust_field_integer(int32_t, tid, tid)
        lttng_ust_field_integer(int32_t, pid, pid)
        lttng_ust_field_string(comm, comm)
    )
)

/* DAMON target TARGET_ID (its index in the context) monitors PID from kts. */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_capture, damon_target,
    LTTNG_UST_TP_ARGS(uint64_t, kts, uint32_t, target_id, int32_t, pid),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, kts, kts)
        lttng_ust_field_integer(uint32_t, target_id, target_id)
        lttng_ust_field_integer(int32_t, pid, pid)
    )
)

/* The median latency (issue to completion, ns) of the block requests of
 * DEVICE ("swap": the swap area's sectors; "file": the rest of the disk
 * the workload's page cache read from) on disk MAJ:MIN during the
 * session, and how many there were (capture/blk_latency.h). */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_capture, device_latency,
    LTTNG_UST_TP_ARGS(const char *, device, const char *, disk, uint64_t, nr_read, uint64_t, read_ns,
                      uint64_t, nr_write, uint64_t, write_ns),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_string(device, device)
        lttng_ust_field_string(disk, disk)
        lttng_ust_field_integer(uint64_t, nr_read, nr_read)
        lttng_ust_field_integer(uint64_t, read_ns, read_ns)
        lttng_ust_field_integer(uint64_t, nr_write, nr_write)
        lttng_ust_field_integer(uint64_t, write_ns, write_ns)
    )
)

/* A PTE of thread group PID whose accessed bit the poll at kts found set
 * and the previous poll clear, with the same frame: LEN bytes (a page,
 * or a huge page's 2 MiB) at ADDR accessed in between; DIRTY its dirty
 * bit then (written since it was mapped or last cleaned). */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_capture, pte_young,
    LTTNG_UST_TP_ARGS(uint64_t, kts, int32_t, pid, uint64_t, addr, uint32_t, len, uint8_t, dirty),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, kts, kts)
        lttng_ust_field_integer(int32_t, pid, pid)
        lttng_ust_field_integer_hex(uint64_t, addr, addr)
        lttng_ust_field_integer(uint32_t, len, len)
        lttng_ust_field_integer(uint8_t, dirty, dirty)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_capture, pte_young_sampler,
    LTTNG_UST_TP_ARGS(const struct vmrc_young *, y),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, period_ms, y->period_ms)
        lttng_ust_field_integer(uint64_t, polls, y->polls)
        lttng_ust_field_integer(uint64_t, observed, y->observed)
        lttng_ust_field_integer(uint64_t, lost, y->lost)
        lttng_ust_field_integer(uint64_t, resets, y->resets)
        lttng_ust_field_integer(uint64_t, regions, y->regions)
        lttng_ust_field_integer(uint64_t, full, y->full)
        lttng_ust_field_integer(uint64_t, poll_ns, y->poll_ns)
        lttng_ust_field_string(note, y->note)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_capture, capture_end,
    LTTNG_UST_TP_ARGS(const struct vmrc_end *, e),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, ftrace_lost, e->ftrace_lost)
        lttng_ust_field_integer(uint64_t, bridged, e->bridged)
        lttng_ust_field_integer(int32_t, workload_status, e->workload_status)
        lttng_ust_field_integer(uint64_t, elapsed_ns, e->elapsed_ns)
    )
)

#endif /* VMREPLAY_CAPTURE_TP_H */

#include <lttng/tracepoint-event.h>
