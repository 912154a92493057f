/*
 * k612.c — mglru+k6.12-loop: the reclaim loop of one lruvec as Linux 6.12
 * has it, before the mm tree's reclaim-loop rework (doc/variants.md §0):
 * the scan number recomputed before every batch by should_run_aging,
 * which also decides the aging by how evenly the pages spread over the
 * generations; batches of up to MAX_LRU_BATCH scanned (MIN_LRU_BATCH
 * isolated) until the lruvec's scan number is reached; memcg reclaim
 * stops at its goal from 6.12.118 on, never before (should_abort_scan's
 * fairness test, mglru+k6.12-no-abort); the lruvec
 * rotates when aging succeeded.  As 6.12.117's mm/vmscan.c has it (the
 * test bed's linux-source-6.12): DEVIATIONS.md, "MGLRU".
 */
#include "lru_gen.h"
#include "mm/internal.h"
#include "mm/vmscan.h"

/* should_run_aging (6.12): must age when nothing can be evicted; with
 * exactly MIN_NR_GENS + 1 generations, age when the youngest holds more
 * than 1/MIN_NR_GENS of the evictable pages or the oldest under
 * 1/(MIN_NR_GENS + 2).  *NR_TO_SCAN: every evictable page. */
static int should_run_aging_612(const struct lru_gen_folio *lrugen, int swappiness,
				uint64_t *nr_to_scan)
{
	uint64_t old, young, total;
	uint64_t max_seq = lrugen->max_seq;
	uint64_t min_seq = evictable_min_seq(lrugen->min_seq, swappiness);

	*nr_to_scan = 0;
	/* whether this lruvec is completely out of cold folios */
	if (min_seq + MIN_NR_GENS > max_seq)
		return 1;
	lru_gen_spread(lrugen, swappiness, &total, &young, &old);
	*nr_to_scan = total;
	/* the ideal number of generations is MIN_NR_GENS + 1 */
	if (min_seq + MIN_NR_GENS < max_seq)
		return 0;
	/* spread evenly: [1/(MIN_NR_GENS + 2), 1/MIN_NR_GENS] per generation */
	if (young * MIN_NR_GENS > total)
		return 1;
	if (old * (MIN_NR_GENS + 2) < total)
		return 1;
	return 0;
}

/* get_nr_to_scan (6.12): the evictable size >> priority; where aging is
 * due below DEF_PRIORITY, age instead: -1 (rotate the lruvec) when that
 * succeeded, else 0.  memory.min is not modelled. */
static int64_t get_nr_to_scan_612(struct engine *e, int memcg, struct scan_control *sc,
				  int swappiness)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	uint64_t max_seq = lrugen->max_seq, nr_to_scan;
	int success = should_run_aging_612(lrugen, swappiness, &nr_to_scan);

	/* try to get away with not aging at the default priority */
	if (!success || sc->priority == DEF_PRIORITY)
		return (int64_t)(nr_to_scan >> sc->priority);
	/* stop scanning this lruvec as it's low on cold folios */
	return try_to_inc_max_seq(e, memcg, max_seq, swappiness, sc) ? -1 : 0;
}

/* should_abort_scan (6.12): up to 6.12.117 (mglru+k6.12-no-abort) memcg
 * reclaim is never aborted, for fairness between the memcgs of its
 * subtree; 6.12.118 took that test out, as the mm tree had: root reclaim
 * and memcg reclaim both stop at the goal. */
static int should_abort_scan_612(struct engine *e, const struct scan_control *sc)
{
	if (patch_k612_no_abort(e) && !root_reclaim(sc))
		return 0;
	return should_abort_scan(e, sc);
}

/* try_to_shrink_lruvec (6.12): batches until the scan number is reached;
 * then the flushers if the coldest file folios were all unqueued dirty.
 * Returns whether the lruvec should be rotated. */
int try_to_shrink_lruvec_612(struct engine *e, int memcg, struct scan_control *sc)
{
	int64_t nr_to_scan;
	uint64_t scanned = 0;
	int swappiness = get_swappiness(e, memcg, sc);

	for (;;) {
		nr_to_scan = get_nr_to_scan_612(e, memcg, sc, swappiness);
		if (nr_to_scan <= 0)
			break;
		int delta = evict_folios(e, MAX_LRU_BATCH, memcg, sc, swappiness);
		if (!delta)
			break;
		scanned += (uint64_t)delta;
		if (scanned >= (uint64_t)nr_to_scan)
			break;
		if (should_abort_scan_612(e, sc))
			break;
	}
	lru_gen_wakeup_flusher(e, sc);
	return nr_to_scan < 0;
}
