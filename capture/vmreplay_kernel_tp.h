/*
 * vmreplay_kernel_tp.h - the `vmreplay_kernel` LTTng-UST provider: kernel
 * tracepoints re-emitted by the capture agent (the tracefs bridge).
 *
 * Where lttng-modules is not loaded, build/vmreplay-capture-agent reads
 * the kernel's tracepoints from a private tracefs instance (libtracefs +
 * libtraceevent) and emits each record here, in the same LTTng session as
 * the rest of the capture.  Event names are the lttng-modules names
 * (docs: tracing-notes.md section 2.5), or the kernel's own name for
 * tracepoints lttng-modules does not instrument; the fields after the
 * first four are named and ordered as lttng-modules names them, so that
 * ingest reads both vocabularies with one table.
 *
 * Every event starts with the same four fields (prefixed with k so that
 * they never clash with an lttng-modules field such as exec's `tid`):
 *   kts   u64  the ftrace timestamp (trace_clock "mono" = CLOCK_MONOTONIC
 *              ns) of the kernel record; the CTF timestamp of the event is
 *              the re-emit time, so readers order these events by kts
 *   kcpu  u32  the CPU the kernel record was written on
 *   ktid  s32  common_pid of the record (the kernel task)
 *   kpid  s32  its thread-group id, from the agent's process tree (0 when
 *              the agent could not tell)
 * The contract is capture/EVENTS.md.
 */

#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER vmreplay_kernel

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "vmreplay_kernel_tp.h"

#ifndef VMREPLAY_KERNEL_TP_TYPES_H
#define VMREPLAY_KERNEL_TP_TYPES_H

#include <stdint.h>

/* One kernel record: the common part and up to 13 values in the order of
 * the event's fields (the agent fills v[] from the ftrace fields). */
struct vmrk_rec {
    uint64_t kts;
    uint32_t cpu;
    int32_t tid;
    int32_t pid;
    uint64_t v[13];
    const char *s[2];           /* string fields, in order */
};

#endif /* VMREPLAY_KERNEL_TP_TYPES_H */

#if !defined(VMREPLAY_KERNEL_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define VMREPLAY_KERNEL_TP_H

#include <lttng/tracepoint.h>

#define VMRK_COMMON \
    lttng_ust_field_integer(uint64_t, kts, r->kts) \
    lttng_ust_field_integer(uint32_t, kcpu, r->cpu) \
    lttng_ust_field_integer(int32_t, ktid, r->tid) \
    lttng_ust_field_integer(int32_t, kpid, r->pid)

/* Direct and memcg reclaim begin: order, gfp_flags (kernels 5.2 - 7.0). */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(
    vmreplay_kernel, reclaim_begin,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(int32_t, order, (int32_t)r->v[0])
        lttng_ust_field_integer_hex(uint64_t, gfp_flags, r->v[1])
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vmreplay_kernel, reclaim_begin,
    vmreplay_kernel, mm_vmscan_direct_reclaim_begin,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vmreplay_kernel, reclaim_begin,
    vmreplay_kernel, mm_vmscan_memcg_reclaim_begin,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r))

LTTNG_UST_TRACEPOINT_EVENT_CLASS(
    vmreplay_kernel, reclaim_end,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(uint64_t, nr_reclaimed, r->v[0])
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vmreplay_kernel, reclaim_end,
    vmreplay_kernel, mm_vmscan_direct_reclaim_end,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vmreplay_kernel, reclaim_end,
    vmreplay_kernel, mm_vmscan_memcg_reclaim_end,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r))

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, mm_vmscan_kswapd_wake,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(int32_t, nid, (int32_t)r->v[0])
        lttng_ust_field_integer(int32_t, zid, (int32_t)r->v[1])
        lttng_ust_field_integer(int32_t, order, (int32_t)r->v[2])
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, mm_vmscan_kswapd_sleep,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(int32_t, nid, (int32_t)r->v[0])
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, mm_vmscan_wakeup_kswapd,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(int32_t, nid, (int32_t)r->v[0])
        lttng_ust_field_integer(int32_t, zid, (int32_t)r->v[1])
        lttng_ust_field_integer(int32_t, order, (int32_t)r->v[2])
        lttng_ust_field_integer_hex(uint64_t, gfp_flags, r->v[3])
    )
)

/* Kernels >= 6.7 (no isolate_mode); ftrace's highest_zoneidx is
 * lttng-modules' classzone_idx. */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, mm_vmscan_lru_isolate,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(int32_t, classzone_idx, (int32_t)r->v[0])
        lttng_ust_field_integer(int32_t, order, (int32_t)r->v[1])
        lttng_ust_field_integer(uint64_t, nr_requested, r->v[2])
        lttng_ust_field_integer(uint64_t, nr_scanned, r->v[3])
        lttng_ust_field_integer(uint64_t, nr_skipped, r->v[4])
        lttng_ust_field_integer(uint64_t, nr_taken, r->v[5])
        lttng_ust_field_integer(int32_t, lru, (int32_t)r->v[6])
    )
)

/* ftrace's nr_activate0/1 are lttng-modules' nr_activate_anon/file. */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, mm_vmscan_lru_shrink_inactive,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(int32_t, nid, (int32_t)r->v[0])
        lttng_ust_field_integer(uint64_t, nr_scanned, r->v[1])
        lttng_ust_field_integer(uint64_t, nr_reclaimed, r->v[2])
        lttng_ust_field_integer(uint64_t, nr_dirty, r->v[3])
        lttng_ust_field_integer(uint64_t, nr_writeback, r->v[4])
        lttng_ust_field_integer(uint64_t, nr_congested, r->v[5])
        lttng_ust_field_integer(uint64_t, nr_immediate, r->v[6])
        lttng_ust_field_integer(uint64_t, nr_activate_anon, r->v[7])
        lttng_ust_field_integer(uint64_t, nr_activate_file, r->v[8])
        lttng_ust_field_integer(uint64_t, nr_ref_keep, r->v[9])
        lttng_ust_field_integer(uint64_t, nr_unmap_fail, r->v[10])
        lttng_ust_field_integer(int32_t, priority, (int32_t)r->v[11])
        lttng_ust_field_integer_hex(int32_t, reclaim_flags, (int32_t)r->v[12])
    )
)

/* Not instrumented by lttng-modules: the kernel's names. */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, mm_vmscan_lru_shrink_active,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(int32_t, nid, (int32_t)r->v[0])
        lttng_ust_field_integer(uint64_t, nr_taken, r->v[1])
        lttng_ust_field_integer(uint64_t, nr_active, r->v[2])
        lttng_ust_field_integer(uint64_t, nr_deactivated, r->v[3])
        lttng_ust_field_integer(uint64_t, nr_referenced, r->v[4])
        lttng_ust_field_integer(int32_t, priority, (int32_t)r->v[5])
        lttng_ust_field_integer_hex(int32_t, reclaim_flags, (int32_t)r->v[6])
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, mm_vmscan_throttled,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(int32_t, nid, (int32_t)r->v[0])
        lttng_ust_field_integer(int32_t, usec_timeout, (int32_t)r->v[1])
        lttng_ust_field_integer(int32_t, usec_delayed, (int32_t)r->v[2])
        lttng_ust_field_integer(int32_t, reason, (int32_t)r->v[3])
    )
)

/* The memcg statistics' flushes (6.18 has it, 6.12 not): every call of
 * __mem_cgroup_flush_stats; it flushed when force or needs_flush. */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, memcg_flush_stats,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(uint64_t, id, r->v[0])
        lttng_ust_field_integer(int64_t, stats_updates, (int64_t)r->v[1])
        lttng_ust_field_integer(uint8_t, force, (uint8_t)r->v[2])
        lttng_ust_field_integer(uint8_t, needs_flush, (uint8_t)r->v[3])
    )
)

/* cgroup_rstat_lock taken (kernels 6.10+): cpu -1 where a
 * cgroup_rstat_flush of cgroup `id` (its hierarchy `root`) begins. */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, cgroup_rstat_locked,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(int32_t, root, (int32_t)r->v[0])
        lttng_ust_field_integer(int32_t, level, (int32_t)r->v[1])
        lttng_ust_field_integer(uint64_t, id, r->v[2])
        lttng_ust_field_integer(int32_t, cpu, (int32_t)r->v[3])
        lttng_ust_field_integer(uint8_t, contended, (uint8_t)r->v[4])
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, mm_vmscan_write_folio,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer_hex(uint64_t, pfn, r->v[0])
        lttng_ust_field_integer_hex(int32_t, reclaim_flags, (int32_t)r->v[1])
    )
)

/* x86's page faults, user and kernel mode (the kernel touching a user
 * page in a user copy), as lttng-modules names them. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(
    vmreplay_kernel, x86_exceptions_page_fault,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer_hex(uint64_t, address, r->v[0])
        lttng_ust_field_integer_hex(uint64_t, ip, r->v[1])
        lttng_ust_field_integer_hex(uint8_t, error_code, (uint8_t)r->v[2])
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vmreplay_kernel, x86_exceptions_page_fault,
    vmreplay_kernel, x86_exceptions_page_fault_user,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vmreplay_kernel, x86_exceptions_page_fault,
    vmreplay_kernel, x86_exceptions_page_fault_kernel,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r))

/* madvise(2), as lttng-modules names its syscall events: the kernel
 * faults pages in for MADV_POPULATE_READ/WRITE through GUP (faultin_page),
 * which no exception tracepoint sees, and zaps them for MADV_DONTNEED.
 * The exit says whether the call did it (ret 0). */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, syscall_entry_madvise,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer_hex(uint64_t, start, r->v[0])
        lttng_ust_field_integer(uint64_t, len_in, r->v[1])
        lttng_ust_field_integer(int32_t, behavior, (int32_t)r->v[2])
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, syscall_exit_madvise,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(int64_t, ret, (int64_t)r->v[0])
    )
)

/* filemap: no lttng-modules instrumentation; s_dev is the kernel's dev_t
 * (major << 20 | minor), as ftrace records it. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(
    vmreplay_kernel, filemap_folio,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer_hex(uint64_t, pfn, r->v[0])
        lttng_ust_field_integer(uint64_t, i_ino, r->v[1])
        lttng_ust_field_integer(uint64_t, index, r->v[2])
        lttng_ust_field_integer(uint32_t, s_dev, (uint32_t)r->v[3])
        lttng_ust_field_integer(uint8_t, order, (uint8_t)r->v[4])
    )
)
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vmreplay_kernel, filemap_folio,
    vmreplay_kernel, mm_filemap_add_to_page_cache,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vmreplay_kernel, filemap_folio,
    vmreplay_kernel, mm_filemap_delete_from_page_cache,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r))

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, mm_filemap_get_pages,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(uint64_t, i_ino, r->v[0])
        lttng_ust_field_integer(uint32_t, s_dev, (uint32_t)r->v[1])
        lttng_ust_field_integer(uint64_t, index, r->v[2])
        lttng_ust_field_integer(uint64_t, last_index, r->v[3])
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, damon_aggregated,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_integer(uint64_t, target_id, r->v[0])
        lttng_ust_field_integer(uint32_t, nr_regions, (uint32_t)r->v[1])
        lttng_ust_field_integer_hex(uint64_t, start, r->v[2])
        lttng_ust_field_integer_hex(uint64_t, end, r->v[3])
        lttng_ust_field_integer(uint32_t, nr_accesses, (uint32_t)r->v[4])
        lttng_ust_field_integer(uint32_t, age, (uint32_t)r->v[5])
    )
)

/* The process tree, with lttng-modules' field names: *_tid is the kernel
 * task id, *_pid its thread group (the agent fills the tgids in). */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, sched_process_fork,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_string(parent_comm, r->s[0])
        lttng_ust_field_integer(int32_t, parent_tid, (int32_t)r->v[0])
        lttng_ust_field_integer(int32_t, parent_pid, (int32_t)r->v[1])
        lttng_ust_field_string(child_comm, r->s[1])
        lttng_ust_field_integer(int32_t, child_tid, (int32_t)r->v[2])
        lttng_ust_field_integer(int32_t, child_pid, (int32_t)r->v[3])
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, sched_process_exec,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_string(filename, r->s[0])
        lttng_ust_field_integer(int32_t, tid, (int32_t)r->v[0])
        lttng_ust_field_integer(int32_t, old_tid, (int32_t)r->v[1])
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay_kernel, sched_process_exit,
    LTTNG_UST_TP_ARGS(const struct vmrk_rec *, r),
    LTTNG_UST_TP_FIELDS(
        VMRK_COMMON
        lttng_ust_field_string(comm, r->s[0])
        lttng_ust_field_integer(int32_t, tid, (int32_t)r->v[0])
        lttng_ust_field_integer(int32_t, prio, (int32_t)r->v[1])
    )
)

#endif /* VMREPLAY_KERNEL_TP_H */

#include <lttng/tracepoint-event.h>
