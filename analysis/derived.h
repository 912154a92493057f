/*
 * derived.h — metrics computed from a run's vmstat counters.
 *
 * Each is a sum of counters, or a ratio of two sums, and exists for a run
 * only when every counter it needs does (a policy without pgrefill has
 * no reclaim_work, not a reclaim_work of pgscan alone) and, for a ratio,
 * when its denominator is not zero (a run that scanned nothing has no
 * reclaim efficiency).  A column the run wrote itself is kept as it is.
 */
#ifndef DERIVED_H
#define DERIVED_H

#include <stddef.h>
#include "result.h"

struct derived_metric {
	const char *name;
	const char *doc;
	const char *num[4];            /* summed; NULL-terminated            */
	const char *den[4];            /* summed; empty: not a ratio          */
};

extern const struct derived_metric derived_metrics[];
extern const size_t nr_derived_metrics;

/* Appends the derived metrics R's counters allow to R.  0, or -1 (out
 * of memory). */
int derived_add(struct result *r);

#endif
