/*
 * shrinker.c — shrink_slab and do_shrink_slab, after mm/shrinker.c: the
 * memcg-aware shrinkers reclaim calls after each lruvec.  The one the
 * replay has objects for is the workingset's shadow shrinker
 * (workingset.c: count_shadow_nodes, scan_shadow_nodes), which bounds
 * the page cache's shadow entries and so decides which refaults can
 * still be recognised.
 *
 * Left out (DEVIATIONS.md): every other shrinker (dentries, inodes, the
 * file systems' caches: the trace has no slab objects).
 */
#include "internal.h"

#define SHRINK_BATCH 128

/* do_shrink_slab for the shadow shrinker (seeks = 0: "objects that need
 * no I/O to create are trimmed aggressively", half the freeable ones per
 * call), with the work a call could not do deferred to the next, which
 * scales it by the priority. */
static uint64_t do_shrink_slab(struct engine *e, int memcg, int priority)
{
	long freeable = count_shadow_nodes(e, memcg);
	if (freeable == 0 || freeable == SHRINK_EMPTY)
		return 0;
	struct mem_cgroup *mc = &e->memcgs[memcg];
	long nr = mc->shadow_nr_deferred;       /* xchg_nr_deferred */
	mc->shadow_nr_deferred = 0;
	long delta = freeable / 2;
	long total_scan = (nr >> priority) + delta;
	if (total_scan > 2 * freeable)
		total_scan = 2 * freeable;
	/* Batches of SHRINK_BATCH, or all of a smaller freeable count when
	 * the scan is that large (the "tight on memory" case). */
	uint64_t freed = 0;
	long scanned = 0;
	while (total_scan >= SHRINK_BATCH || total_scan >= freeable) {
		long nr_to_scan = total_scan < SHRINK_BATCH ? total_scan : SHRINK_BATCH;
		freed += scan_shadow_nodes(e, memcg, (uint64_t)nr_to_scan);
		total_scan -= nr_to_scan;
		scanned += nr_to_scan;
	}
	long next_deferred = nr + delta - scanned;
	if (next_deferred < 0)
		next_deferred = 0;
	if (next_deferred > 2 * freeable)
		next_deferred = 2 * freeable;
	mc->shadow_nr_deferred += next_deferred;   /* add_nr_deferred */
	return freed;
}

/* shrink_slab: every memcg (the root included) reaches the memcg-aware
 * shrinkers with objects on its lists. */
uint64_t shrink_slab(struct engine *e, int memcg, int priority)
{
	return do_shrink_slab(e, memcg < 0 ? 0 : memcg, priority);
}
