/*
 * report.h — what a kernel-policy run reports: the /proc/vmstat-named
 * counters and derived measures (analysis/RESULTS.md), one record per
 * reclaim invocation, and per-task completion.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>
#include "sim/engine.h"

enum report_format { REPORT_TEXT, REPORT_TSV, REPORT_JSON };

struct report_identity {
	const char *trace;
	const char *policy;
	int swappiness;
	uint64_t memory_limit;          /* bytes; 0 none */
	uint64_t node_memory;           /* bytes */
	const char *swap;               /* as asked (a spec), else preset name or "none" */
	uint64_t seed;
};

/* The counters and measures, as RESULTS.md names them. */
void report_write(FILE *f, enum report_format fmt, const struct engine *e,
		  const struct report_identity *id);
/* The same counters and measures as report_write, in its order: at most
 * MAX names (static strings) and values; returns how many. */
#define REPORT_MAX_METRICS (NR_VM_ITEMS + 32)
int report_metrics(const struct engine *e, const char **names, double *values, int max);
/* One line per reclaim invocation (mm_vmscan_*_reclaim_begin/end). */
void report_events(FILE *f, const struct engine *e);
/* One line per task: completion time, accesses, stall, killed. */
void report_tasks(FILE *f, const struct engine *e);

#endif
