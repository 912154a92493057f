/*
 * vmreplay_tp.h - the `vmreplay` LTTng-UST tracepoint provider.
 *
 * The events and their fields are the contract in capture/EVENTS.md: the
 * ingest in replay/ reads them by name and in this order, so do not rename,
 * reorder or retype a field here without changing that document and the
 * ingest together.
 *
 * Uses the LTTng-UST 2.13 namespaced API. capture/vmreplay_tp.c instantiates
 * the probes (static linking); a workload only includes this header and calls
 *
 *     lttng_ust_tracepoint(vmreplay, anon_access, pid, tid, addr, len, 1);
 *
 * A tracepoint takes at most 10 arguments, so the two wide events (session,
 * vmstat) take a pointer to a plain struct defined below.
 */

#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER vmreplay

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "vmreplay_tp.h"

/*
 * The argument structs are outside the multi-read section: the provider
 * machinery includes this file several times while creating the probes,
 * and a struct must be defined exactly once per translation unit.
 */
#ifndef VMREPLAY_TP_TYPES_H
#define VMREPLAY_TP_TYPES_H

#include <stdint.h>

/* Payload of vmreplay:session. Strings are NUL-terminated. */
struct vmr_tp_session {
    const char *workload;
    const char *argv;
    uint64_t memory_limit;      /* bytes; 0 = no limit */
    int32_t swappiness;         /* -1 = unknown */
    uint32_t page_size;
    const char *kernel_release;
    const char *hostname;
    uint32_t nr_cpus;
    uint64_t mem_total;         /* bytes */
    const char *lru_kind;       /* "classic" or "mglru" */
};

/* Payload of vmreplay:vmstat: /proc/vmstat counters, same names. */
struct vmr_tp_vmstat {
    uint64_t pgscan_kswapd;
    uint64_t pgscan_direct;
    uint64_t pgscan_anon;
    uint64_t pgscan_file;
    uint64_t pgsteal_kswapd;
    uint64_t pgsteal_direct;
    uint64_t pgsteal_anon;
    uint64_t pgsteal_file;
    uint64_t pgrefill;
    uint64_t pgactivate;
    uint64_t pgdeactivate;
    uint64_t workingset_refault_anon;
    uint64_t workingset_refault_file;
    uint64_t workingset_activate_anon;
    uint64_t workingset_activate_file;
    uint64_t workingset_restore_anon;
    uint64_t workingset_restore_file;
    uint64_t pswpin;
    uint64_t pswpout;
    uint64_t allocstall;        /* sum of all allocstall_<zone> */
    uint64_t pgscan_direct_throttle;
    uint64_t oom_kill;
    uint64_t pgfault;
    uint64_t pgmajfault;
    uint64_t nr_free_pages;
    uint64_t nr_isolated_anon;
    uint64_t nr_isolated_file;
};

/* vmreplay:file_access `op` values. */
enum vmr_file_op {
    VMR_FILE_READ = 0,          /* read() */
    VMR_FILE_WRITE = 1,         /* write() */
    VMR_FILE_MMAP_LOAD = 2,
    VMR_FILE_MMAP_STORE = 3,
};

#endif /* VMREPLAY_TP_TYPES_H */

#if !defined(VMREPLAY_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define VMREPLAY_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay, session,
    LTTNG_UST_TP_ARGS(const struct vmr_tp_session *, s),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_string(workload, s->workload)
        lttng_ust_field_string(argv, s->argv)
        lttng_ust_field_integer(uint64_t, memory_limit, s->memory_limit)
        lttng_ust_field_integer(int32_t, swappiness, s->swappiness)
        lttng_ust_field_integer(uint32_t, page_size, s->page_size)
        lttng_ust_field_string(kernel_release, s->kernel_release)
        lttng_ust_field_string(hostname, s->hostname)
        lttng_ust_field_integer(uint32_t, nr_cpus, s->nr_cpus)
        lttng_ust_field_integer(uint64_t, mem_total, s->mem_total)
        lttng_ust_field_string(lru_kind, s->lru_kind)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay, vmstat,
    LTTNG_UST_TP_ARGS(const struct vmr_tp_vmstat *, v),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, pgscan_kswapd, v->pgscan_kswapd)
        lttng_ust_field_integer(uint64_t, pgscan_direct, v->pgscan_direct)
        lttng_ust_field_integer(uint64_t, pgscan_anon, v->pgscan_anon)
        lttng_ust_field_integer(uint64_t, pgscan_file, v->pgscan_file)
        lttng_ust_field_integer(uint64_t, pgsteal_kswapd, v->pgsteal_kswapd)
        lttng_ust_field_integer(uint64_t, pgsteal_direct, v->pgsteal_direct)
        lttng_ust_field_integer(uint64_t, pgsteal_anon, v->pgsteal_anon)
        lttng_ust_field_integer(uint64_t, pgsteal_file, v->pgsteal_file)
        lttng_ust_field_integer(uint64_t, pgrefill, v->pgrefill)
        lttng_ust_field_integer(uint64_t, pgactivate, v->pgactivate)
        lttng_ust_field_integer(uint64_t, pgdeactivate, v->pgdeactivate)
        lttng_ust_field_integer(uint64_t, workingset_refault_anon, v->workingset_refault_anon)
        lttng_ust_field_integer(uint64_t, workingset_refault_file, v->workingset_refault_file)
        lttng_ust_field_integer(uint64_t, workingset_activate_anon, v->workingset_activate_anon)
        lttng_ust_field_integer(uint64_t, workingset_activate_file, v->workingset_activate_file)
        lttng_ust_field_integer(uint64_t, workingset_restore_anon, v->workingset_restore_anon)
        lttng_ust_field_integer(uint64_t, workingset_restore_file, v->workingset_restore_file)
        lttng_ust_field_integer(uint64_t, pswpin, v->pswpin)
        lttng_ust_field_integer(uint64_t, pswpout, v->pswpout)
        lttng_ust_field_integer(uint64_t, allocstall, v->allocstall)
        lttng_ust_field_integer(uint64_t, pgscan_direct_throttle, v->pgscan_direct_throttle)
        lttng_ust_field_integer(uint64_t, oom_kill, v->oom_kill)
        lttng_ust_field_integer(uint64_t, pgfault, v->pgfault)
        lttng_ust_field_integer(uint64_t, pgmajfault, v->pgmajfault)
        lttng_ust_field_integer(uint64_t, nr_free_pages, v->nr_free_pages)
        lttng_ust_field_integer(uint64_t, nr_isolated_anon, v->nr_isolated_anon)
        lttng_ust_field_integer(uint64_t, nr_isolated_file, v->nr_isolated_file)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay, task_begin,
    LTTNG_UST_TP_ARGS(uint32_t, pid, uint32_t, tid, uint32_t, ppid,
                      const char *, comm),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, pid, pid)
        lttng_ust_field_integer(uint32_t, tid, tid)
        lttng_ust_field_integer(uint32_t, ppid, ppid)
        lttng_ust_field_string(comm, comm)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay, task_end,
    LTTNG_UST_TP_ARGS(uint32_t, pid, uint32_t, tid, int32_t, status),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, pid, pid)
        lttng_ust_field_integer(uint32_t, tid, tid)
        lttng_ust_field_integer(int32_t, status, status)
    )
)

/* The process joined a memory cgroup (PATH relative to the session's
 * own cgroup, "/"-separated); LIMIT in bytes (0 = none), SWAPPINESS -1 =
 * inherited.  Emitted before the process's first access. */
LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay, cgroup,
    LTTNG_UST_TP_ARGS(uint32_t, pid, uint32_t, tid, const char *, path,
                      uint64_t, limit, int32_t, swappiness),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, pid, pid)
        lttng_ust_field_integer(uint32_t, tid, tid)
        lttng_ust_field_string(path, path)
        lttng_ust_field_integer(uint64_t, limit, limit)
        lttng_ust_field_integer(int32_t, swappiness, swappiness)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay, anon_access,
    LTTNG_UST_TP_ARGS(uint32_t, pid, uint32_t, tid, uint64_t, addr,
                      uint64_t, len, uint8_t, write),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, pid, pid)
        lttng_ust_field_integer(uint32_t, tid, tid)
        lttng_ust_field_integer(uint64_t, addr, addr)
        lttng_ust_field_integer(uint64_t, len, len)
        lttng_ust_field_integer(uint8_t, write, write)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay, anon_free,
    LTTNG_UST_TP_ARGS(uint32_t, pid, uint32_t, tid, uint64_t, addr,
                      uint64_t, len),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, pid, pid)
        lttng_ust_field_integer(uint32_t, tid, tid)
        lttng_ust_field_integer(uint64_t, addr, addr)
        lttng_ust_field_integer(uint64_t, len, len)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay, file_access,
    LTTNG_UST_TP_ARGS(uint32_t, pid, uint32_t, tid, uint64_t, dev,
                      uint64_t, ino, uint64_t, offset, uint64_t, len,
                      uint8_t, op),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, pid, pid)
        lttng_ust_field_integer(uint32_t, tid, tid)
        lttng_ust_field_integer(uint64_t, dev, dev)
        lttng_ust_field_integer(uint64_t, ino, ino)
        lttng_ust_field_integer(uint64_t, offset, offset)
        lttng_ust_field_integer(uint64_t, len, len)
        lttng_ust_field_integer(uint8_t, op, op)
    )
)

LTTNG_UST_TRACEPOINT_EVENT(
    vmreplay, file_drop,
    LTTNG_UST_TP_ARGS(uint32_t, pid, uint32_t, tid, uint64_t, dev,
                      uint64_t, ino),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, pid, pid)
        lttng_ust_field_integer(uint32_t, tid, tid)
        lttng_ust_field_integer(uint64_t, dev, dev)
        lttng_ust_field_integer(uint64_t, ino, ino)
    )
)

#endif /* VMREPLAY_TP_H */

#include <lttng/tracepoint-event.h>
