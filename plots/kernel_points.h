/*
 * kernel_points.h — what the real kernel counted in the captures a
 * sweep replayed, to draw beside the replays.
 *
 * A capture's kernel counters (kcounter.h) compare with a replay only
 * under the condition the capture ran in: the same memory limit, the
 * capture's own RAM and swap (the run's defaults), at the swappiness it
 * was captured at.  Only sessions vmreplay capture recorded (their
 * cgroup's memory.stat snapshots) have counters for the workload alone.
 */
#ifndef KERNEL_POINTS_H
#define KERNEL_POINTS_H

#include <stddef.h>
#include <stdint.h>
#include "stats.h"

struct kernel_capture {
	char name[65], set[65];
	char lru_kind[16];             /* "classic" or "mglru"             */
	int swappiness;
	uint64_t memory_limit;         /* 0: none                          */
	double *value;                 /* per metric asked; NaN: not counted */
	int usable;                    /* a captured session with counters */
};

struct kernel_points {
	struct kernel_capture *c;
	size_t n;
	char *const *metrics;
	size_t nr_metrics;
};

/* Reads every trace of the sweeps DIRS[0..n) (DIR/traces/NAME.vmr).
 * 0, or -1 with err set (a .vmr that cannot be read). */
int kernel_points_load(struct kernel_points *kp, char *const *dirs, size_t n,
		       char *const *metrics, size_t nr_metrics, char *err, size_t errlen);
void kernel_points_free(struct kernel_points *kp);

/* Does capture C's kernel compare with the replays of condition G? */
int kernel_points_match(const struct kernel_capture *c, const struct stats_group *g);

#endif
