/*
 * records.h — the simulator's instrumentation: one record per reclaim
 * invocation, their running sums, and the isolation timeline.
 *
 * The kernel model calls these where the kernel has tracepoints
 * (mm_vmscan_{direct,memcg}_reclaim_begin/end, kswapd's wake and sleep,
 * the pgscan and NR_ISOLATED updates), so that instrumentation never
 * changes what the model does: it only watches.  report.c writes what
 * is collected here.
 */
#ifndef RECORDS_H
#define RECORDS_H

#include <stdint.h>
#include <stdio.h>
#include "sim/sim.h"

struct engine;
struct scan_control;

/* One reclaim invocation, as mm_vmscan_{direct,memcg}_reclaim_begin/end
 * and kswapd wake/sleep would show it. */
enum reclaim_kind { RECLAIM_DIRECT, RECLAIM_KSWAPD, RECLAIM_MEMCG };

struct reclaim_record {
	simtime_t start, duration;
	uint32_t task;               /* task index; UINT32_MAX for kswapd */
	uint8_t kind;
	int8_t priority;             /* the lowest priority reached */
	uint64_t nr_scanned, nr_reclaimed;
	uint64_t scanned_anon, scanned_file;
	uint64_t target_anon, target_file;   /* get_scan_count's ask */
};

#define SLOWEST_DIRECT 20            /* the over-reclaim RFC's measure */

struct records {
	int keep;                    /* keep every record (--events) */
	struct reclaim_record *all;
	uint64_t nr, cap;
	/* What the metrics need: running sums and the slowest direct reclaims. */
	struct {
		uint64_t target_anon, target_file, scanned_anon, scanned_file;
		uint64_t direct;
		struct reclaim_record slowest[SLOWEST_DIRECT];   /* longest first */
		uint32_t nr_slowest;
	} sum;
	FILE *timeline;              /* nr_isolated over time, or NULL */
	int failed;                  /* out of memory keeping records */
};

/* trace_mm_vmscan_{direct,memcg}_reclaim_begin, kswapd's balance_pgdat. */
void record_reclaim_begin(struct engine *e, struct scan_control *sc, enum reclaim_kind kind);
/* ..._reclaim_end: the invocation's record is complete. */
void record_reclaim_end(struct engine *e, struct scan_control *sc);
/* The priority loop reached sc->priority. */
void record_priority(struct scan_control *sc);
/* NR pages scanned, as pgscan counts them (mm_vmscan_lru_isolate). */
void record_scanned(struct scan_control *sc, uint64_t nr);
/* One lruvec's ask (get_scan_count) and what was scanned of it. */
void record_lru_scan(struct scan_control *sc, uint64_t target_anon, uint64_t target_file,
		     uint64_t scanned_anon, uint64_t scanned_file);
/* NR_ISOLATED_ANON/FILE changed: the peak, and the timeline's next line. */
void record_isolated(struct engine *e);
void records_free(struct records *r);

#endif
