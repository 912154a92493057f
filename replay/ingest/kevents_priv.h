/*
 * kevents_priv.h — what the files of the kernel-event half of ingest
 * share: kevents.c (collecting events as they are decoded), kmaps.c
 * (address-space snapshots) and kdemand.c (kevents_finish: ground truth
 * and the demand stream).  Only they include it.
 */
#ifndef KEVENTS_PRIV_H
#define KEVENTS_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include "array.h"
#include "damon.h"
#include "kevents.h"

enum kkind {
	/* 1..VMR_KEV_NR_TYPES-1: ground truth, as enum vmr_kev_type */
	KK_FAULT = 32, KK_FILEMAP_ADD, KK_FILEMAP_DELETE, KK_FILEMAP_GET_PAGES, KK_DAMON,
	KK_MADVISE, KK_MADVISE_EXIT,    /* madvise(2) entry (start, len, advice) and exit */
	KK_DAMON_PASS,                 /* made from KK_DAMON at the end */
	KK_SCHED_SWITCH,
	KK_MEMCG_FLUSH, KK_RSTAT_LOCKED, /* made VMR_KEV_STATS_FLUSH when they flushed */
	KK_CAPTURE_SESSION, KK_MEMCG_STAT, KK_PROC_MAPS, KK_TASK_COMM, KK_DAMON_TARGET,
	KK_CAPTURE_END, KK_DEVICE_LATENCY,
	KK_YOUNG, KK_YOUNG_SAMPLER,    /* the accessed-bit sampler (capture/pte_young.c) */
};

/* A demand-side event, compact (faults are most of a trace). */
struct kdem {
	uint64_t ts;
	uint32_t tid, pid;
	uint32_t seq;
	uint8_t kind;
	uint8_t order;
	uint16_t cpu;
	uint64_t dev;
	uint64_t a, b, c;
};

struct mreg {
	uint64_t start, end, pgoff, dev, ino;
	int file;                      /* page cache backed (not shmem/anon) */
	int priv;                      /* MAP_PRIVATE: written pages become anon */
	int exec;                      /* VM_EXEC (maps says x) */
};

/* The madvise(2) advice ingest follows (include/uapi/asm-generic/
 * mman-common.h): the ones that move pages, and the THP ones. */
#define MADV_DONTNEED        4
#define MADV_HUGEPAGE        14
#define MADV_NOHUGEPAGE      15
#define MADV_POPULATE_READ   22
#define MADV_POPULATE_WRITE  23
#define MADV_DONTNEED_LOCKED 24

/* An madvise(MADV_HUGEPAGE or MADV_NOHUGEPAGE) that succeeded: the
 * VMAs of [start, end) of address space PID (exec epoch EPOCH) have
 * VM_HUGEPAGE (ON) or VM_NOHUGEPAGE from TS on (hugepage_madvise). */
struct hpadv {
	uint64_t ts, start, end;
	uint32_t pid, epoch;
	int on;
};

struct msnap {
	int32_t pid;
	uint32_t epoch;
	uint64_t ts;
	size_t first, nr;
};

struct dtarget {
	uint64_t ts;
	uint32_t id;
	int32_t pid;
};

struct tinfo {
	uint32_t tid, pid, ppid;
	char comm[16];
	uint8_t used, in_tree, kswapd, in_reclaim, last_fault_file, named, comm_seen;
	int32_t threads;               /* of the thread group, when tid == pid */
	uint64_t fork_ts;              /* when it was forked (0: not in the trace) */
	uint64_t reclaim_begin;        /* the open reclaim's begin (in_reclaim) */
	uint64_t last_fault_dev, last_fault_ino;
	size_t pend_first, pend_nr;    /* pending page-cache adds (in k->pend) */
	/* the first get_pages of the task's current read() (kdemand.c) */
	uint64_t read_dev, read_ino, read_lo, read_hi;
	/* the madvise(2) the task is in: its entry, until the exit says
	 * whether it did what it was asked (kdemand.c) */
	uint8_t madv_open;
	uint64_t madv_ts, madv_start, madv_len, madv_advice;
};

struct kevents {
	struct kclass *cls;
	size_t nr_cls, cap_cls;

	struct vmr_kev *kev;
	size_t nr_kev, cap_kev;
	struct kdem *dem;
	size_t nr_dem, cap_dem;
	struct vmr_memcg *memcg;
	size_t nr_memcg, cap_memcg;
	struct mreg *reg;
	size_t nr_reg, cap_reg;
	struct msnap *snap;
	size_t nr_snap, cap_snap;
	struct dtarget *dt;
	size_t nr_dt, cap_dt;
	struct vmr_kev *out;           /* ground truth after finish */
	size_t nr_out, cap_out;
	uint32_t seq;
	uint64_t events;

	/* kernel domain: current task per CPU, from sched_switch */
	uint32_t *cur_tid;
	size_t nr_cpus;

	/* tasks */
	struct tinfo *t;
	size_t nr_t, cap_t;
	uint32_t *tslot;
	size_t nr_tslot;

	/* pending filemap adds, by task */
	struct kdem *pend;
	size_t nr_pend, cap_pend;
	/* the synchronous read-ahead windows a read() waited for
	 * (note_sync_read): pages and ns from the last insertion to the
	 * read's get_pages */
	struct ra_wait { uint64_t pages, ns; } *ra_wait;
	size_t nr_ra_wait, cap_ra_wait;
	/* file pages the workload inserted into the page cache */
	struct pkey { uint64_t dev, ino, index; } *ins;
	size_t nr_ins, cap_ins;
	struct pkey *exec;             /* file pages faulted through a VM_EXEC mapping */
	size_t nr_exec, cap_exec;

	/* capture facts: the capture's session event, kept whole */
	struct {
		char cgroup[512], swap_kind[32], swap_device[512], kernel_source[32], lru_kind[16];
		char thp[32], thp_defrag[32], damon_note[512], filter[512];
		/* the kernel's LRU and how it was built (test bed), if recorded */
		int64_t lru_gen_enabled, lru_gen_min_ttl_ms;
		int64_t swap_rotational, page_cluster, vma_ra_enabled;   /* -1: not known */
		char kernel_version[512], build_source[64], build_version[128], build_tree[1024];
		char build_config[80], build_patches[1024], build_key[256];
		char stats_flush[64];  /* the tracepoint of the flushes recorded, "" none */
		char dropped_inputs[8192]; /* the exec's files dropped before, "" none */
		/* 1: the machine's page cache was dropped before (--drop-caches),
		 * 0 not; its Cached KiB and workingset_nodes as the session
		 * started; -1 not recorded */
		int64_t dropped_caches, start_cached_kb, start_ws_nodes;
		uint64_t cgroup_version, limit, swap_size, period_ms, damon, update_us;
		int64_t swappiness;
		uint64_t end_lost, end_bridged, end_elapsed;
		int64_t end_status;
		int have_end;
		/* the swap area's [0] and the file device's [1] request
		 * latencies (capture/blk_latency.h): count and median ns of
		 * reads [0] and writes [1] */
		uint64_t dev_nr[2][2], dev_ns[2][2];
		char dev_disk[2][32];
		/* the accessed-bit sampler's summary (pte_young_sampler) */
		int have_young;
		uint64_t young_period_ms, young_polls, young_lost, young_resets;
		char young_note[160];
	} cap;
	/* the trace's clock minus CLOCK_MONOTONIC (time since boot), from
	 * the first event: where the trace lies in the kernel's timers */
	int64_t mono_offset;
	int have_mono_offset;
	struct vmr_kev *evict;         /* file folios evicted, found by the walk */
	size_t nr_evict, cap_evict;
	uint32_t root_pid;
	struct damon_attrs damon;
	int saw_session;

	/* counts for the metadata */
	uint64_t n_fault_anon, n_fault_file, n_fault_unmapped, n_fault_cow;
	uint64_t n_fault_kernel;        /* in kernel mode, on user pages (user copies) */
	uint64_t n_read_pages, n_write_pages, n_free_pages, n_evict, n_readahead, n_precached;
	uint64_t n_read_retries;       /* get_pages of a read() already counted */
	uint64_t n_damon_regions, n_damon_passes, n_damon_refs, n_damon_lost;
	uint64_t n_filtered;
	uint64_t n_stats_flush;        /* STATS_FLUSH events kept */
	uint64_t n_madv_calls, n_madv_populated, n_madv_dropped, n_madv_failed;
	/* MADV_HUGEPAGE / MADV_NOHUGEPAGE calls, and the anonymous faults
	 * that mapped a PMD-sized folio (kdemand.c thp_fault) */
	uint64_t n_madv_hugepage, n_madv_nohugepage, n_fault_thp;
	enum { THP_NEVER, THP_MADVISE, THP_ALWAYS } thp_mode;   /* the capture's "thp" */
	/* the VM_HUGEPAGE / VM_NOHUGEPAGE advice given, in time order */
	struct hpadv *hpadv;
	size_t nr_hpadv, cap_hpadv;
	/* reclaims of the workload's tasks (begin..end), their ns after the
	 * task's last record, begins inside an open one, ends without one */
	uint64_t n_stalls, n_stall_ns, n_stall_nested, n_stall_unopened;
	/* pte_young observations, the resident pages they referenced, and
	 * those of pages the trace never had (fault-around, fork) */
	uint64_t n_young, n_young_refs, n_young_unknown;
	const char *trace;             /* for messages of kevents_finish */
};

/* exec times per pid, for telling address spaces apart */
struct execs {
	struct { uint32_t pid; uint64_t ts; } *e;
	size_t n;
};

/* kevents.c */
#define GROW(k, arr, nr, cap) array_grow((void **)&(k)->arr, &(k)->cap, (k)->nr + 1, sizeof(*(k)->arr))
/* The task TID (created if CREATE); NULL if unknown or out of memory.
 * Creating one may move every task: a pointer from an earlier call is
 * stale after a call with CREATE. */
struct tinfo *kev_tinfo(struct kevents *k, uint32_t tid, int create);

/* kmaps.c */
int kev_parse_maps(struct kevents *k, int32_t pid, uint64_t ts, const char *text);
int kev_cmp_exec(const void *a, const void *b);
uint32_t kev_epoch_of(const struct execs *x, uint32_t pid, uint64_t ts);
const struct msnap *kev_snap_at(const struct kevents *k, uint32_t pid, uint32_t epoch, uint64_t ts);
const struct mreg *kev_region_at(const struct kevents *k, const struct msnap *s, uint64_t addr);
const struct mreg *kev_region_of(const struct kevents *k, uint32_t pid, uint32_t epoch, uint64_t ts,
				 uint64_t addr);

#endif
