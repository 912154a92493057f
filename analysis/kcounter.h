/*
 * kcounter.h — what the kernel counted in a captured session, by
 * /proc/vmstat name: from the workload's own reclaim events where they
 * define the counter (pgscan/pgsteal by type: lru_shrink_inactive's
 * scanned and reclaimed, and for an MGLRU kernel lru_isolate's nr_taken
 * as its pgscan), else from the session
 * cgroup's memory.stat, else from /proc/vmstat (machine-wide).  compare
 * and validate read the kernel's side of a session here.
 */
#ifndef KCOUNTER_H
#define KCOUNTER_H

#include "analyze.h"
#include "vmr/vmr.h"

struct kcounter {
	int have;
	double v;
	const char *source;          /* "events", "memory.stat" or "vmstat" */
};

/* The kernel's value of counter NAME over the session V (A: its analysis). */
struct kcounter kernel_counter(const struct vmr *v, const struct analysis *a, const char *name);

#endif
