/*
 * merge.h — the trace's global time order, from its per-task streams.
 *
 * A .vmr keeps one stream per task; an open-loop replay (the reference
 * LRU) needs all of them in recorded time order.  merge_take hands out
 * runs: the longest stretch of one task's records that comes before any
 * other task's next record, so the caller's inner loop has no merge work.
 * Ties go to the lower task index, so the order is deterministic.
 */
#ifndef MERGE_H
#define MERGE_H

#include <stdint.h>
#include "vmr/vmr.h"

struct merge_cursor {
	const struct vmr_rec *p, *end;
	uint64_t ts;                   /* time of *p */
	uint32_t task;
};

struct merge {
	struct merge_cursor *cur;
	uint32_t *heap;                /* indices into cur, min (ts, task) first */
	uint32_t nr;
};

int merge_init(struct merge *m, const struct vmr *v);
void merge_free(struct merge *m);

/* Next run of records: *recs, *n records of task *task, recorded at times
 * starting at *ts.  Returns 0 when every stream is exhausted. */
int merge_take(struct merge *m, const struct vmr_rec **recs, uint64_t *n, uint32_t *task);

#endif
