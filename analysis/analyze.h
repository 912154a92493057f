/*
 * analyze.h — reclaim analysis of a session: what the kernel's
 * Documentation/trace/postprocess/trace-vmscan-postprocess.pl computes,
 * on today's tracepoint formats, plus the efficiency and velocity that
 * mmtests derives, and the N slowest reclaims.
 *
 * It works on three inputs alike:
 *   - a captured trace's ground truth (the .vmr KEVENTS section: LTTng
 *     kernel-domain traces and tracefs-bridged traces);
 *   - the replay's own simulated records (`vmreplay run --events FILE`:
 *     TSV with columns start_ns duration_ns kind task priority
 *     nr_scanned nr_reclaimed, found by name; more columns are ignored).
 *
 * Definitions (as the perl script, adapted to today's events):
 *   - a reclaim is a direct or memcg reclaim begin..end pair in one task,
 *     or a kswapd wake..sleep period; its latency is end − begin;
 *   - "pages scanned" of a task: nr_scanned of its mm_vmscan_lru_isolate
 *     events on inactive lists (active-list isolation is rotation, not
 *     scanning, as the script's isolate_mode test meant); the scanned
 *     pages of one reclaim: the nr_scanned of the lru_shrink_inactive
 *     events inside it (what pgscan counts);
 *   - "pages reclaimed" of a task: nr_reclaimed of its
 *     lru_shrink_inactive events; of one reclaim: the end event's
 *     nr_reclaimed (kswapd: the shrink_inactive sum of the period);
 *   - sync/async write I/O: mm_vmscan_write_folio (writepage on old
 *     kernels) with or without RECLAIM_WB_SYNC, file or anon by flags;
 *   - stall: the sum of a task's direct and memcg reclaim latencies;
 *   - kswapd wakeups: kswapd_wake while asleep; re-wakeups: while awake;
 *     awake time: wake to sleep;
 *   - efficiency % = reclaimed / scanned × 100 (100 when nothing was
 *     scanned), velocity = scanned per second of the session, percentage
 *     direct scans = direct / (direct + kswapd) × 100 (mmtests); "direct"
 *     includes memcg limit reclaim.  From /proc/vmstat, direct is
 *     pgscan_anon + pgscan_file − pgscan_kswapd (pgsteal alike): the
 *     kernel counts memcg limit reclaim in pgscan_anon/file but not in
 *     pgscan_direct, which is for global reclaim only.
 */
#ifndef ANALYZE_H
#define ANALYZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "vmr/vmr.h"

enum an_kind { AN_DIRECT, AN_MEMCG, AN_KSWAPD, AN_NR_KINDS };
extern const char *const an_kind_names[AN_NR_KINDS];

#define AN_MAX_ORDER 11
#define AN_UNKNOWN   UINT64_MAX

struct an_reclaim {
	uint64_t start_ns, duration_ns;
	uint32_t task;                 /* tid (trace) or the task column (simulation) */
	uint8_t kind;                  /* enum an_kind */
	uint8_t complete;              /* begin and end both in the input */
	int16_t order;                 /* -1: unknown */
	int16_t priority;              /* the lowest reached; -1: unknown */
	uint64_t nr_scanned, nr_reclaimed;
};

struct an_task {
	uint32_t tid, pid;
	char name[40];                 /* comm-tid, as the script names them */
	int kswapd;
	uint64_t direct, memcg;        /* reclaims begun */
	uint64_t direct_order[AN_MAX_ORDER], wakeup_order[AN_MAX_ORDER], wake_order[AN_MAX_ORDER];
	uint64_t wakeup_kswapd;
	uint64_t scanned, reclaimed;
	uint64_t write_sync_file, write_sync_anon, write_async_file, write_async_anon;
	uint64_t stall_ns;
	uint64_t throttled, throttled_us;
	uint64_t file_evicted;
	uint64_t kswapd_wakes, kswapd_rewakes, kswapd_awake_ns;
};

/* Scanned/reclaimed by whom, for efficiency and velocity. */
struct an_flow {
	int have;
	uint64_t kswapd_scanned, kswapd_reclaimed, direct_scanned, direct_reclaimed;
};

struct analysis {
	int simulated;                 /* input: the replay's records */
	int have_detail;               /* wakeups, writes, throttling known */
	char source[96];
	struct an_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct an_reclaim *rec;
	size_t nr_rec, cap_rec;
	uint64_t first_ns;             /* for relative times */
	uint64_t span_ns;              /* the session's length, for velocities */
	char span_from[48];
	struct an_flow trace, vmstat;  /* from the events; from /proc/vmstat */
	uint64_t anon_scanned, file_scanned, anon_reclaimed, file_reclaimed;
	uint64_t anon_isolated, file_isolated;   /* lru_isolate's nr_taken, inactive lists */
	int have_isolated;
	int have_vm;
	uint64_t vm[VMR_NR_VMSTAT];    /* last − first snapshot */
	uint64_t events;
	uint64_t last_end_ns;          /* an_add_record: the latest end so far */
};

/* From a .vmr's ground truth.  0, or -1 with err set. */
int analyze_vmr(const struct vmr *v, struct analysis *a, char *err, size_t errlen);
/* From `vmreplay run --events` TSV.  0, or -1 with "FILE: line N: field F: why". */
int analyze_tsv(const char *path, struct analysis *a, char *err, size_t errlen);
void analysis_free(struct analysis *a);

/* A replay's reclaim records one by one (analyze_tsv reads them so; compare
 * takes them from its replay in-process): begin, add each (TID 0 and comm
 * "-" for kswapd's; COMM the task's name or "-"; PRIO -1 if unknown), done.
 * an_add_record: 0, or -1 out of memory. */
void an_records_begin(struct analysis *a);
int an_add_record(struct analysis *a, uint64_t start, uint64_t dur, int kind, uint32_t tid, int prio,
		  uint64_t scanned, uint64_t reclaimed, const char *comm);
void an_records_done(struct analysis *a);

/* Distribution of one quantity over the reclaims of KIND (-1: all). */
enum an_what { AN_LATENCY, AN_SCANNED, AN_RECLAIMED };
struct an_dist {
	uint64_t n;
	double mean, p50, p90, p99, max;
};
void an_dist_of(const struct analysis *a, int kind, enum an_what what, struct an_dist *d);

enum an_fmt { AN_TEXT, AN_TSV, AN_JSON };
/* Writes the report; TOP is the N of "the N slowest". */
void analysis_print(FILE *f, const struct analysis *a, enum an_fmt fmt, unsigned top, const char *input);

#endif
