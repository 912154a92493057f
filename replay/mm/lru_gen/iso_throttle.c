/*
 * iso_throttle.c — "throttle MGLRU eviction when isolated folios pile up"
 * (v7), mglru+iso-throttle: per lruvec and type, the folios isolated
 * against the evictable ones (lru_gen_too_many_isolated), and the check
 * at the top of evict_folios that allows types or sleeps once
 * (throttle_evictable_types).
 */
#include "lru_gen.h"
#include "mm/internal.h"
#include "mm/vmscan.h"

/* lru_gen_too_many_isolated: more of TYPE isolated from this lruvec than
 * its evictable pages / MIN_NR_GENS (an eighth of them first, for callers
 * allowed IO and FS).  Never for kswapd, nor where writeback throttling
 * is not sane (cgroup v1 limit reclaim). */
int lru_gen_too_many_isolated(struct engine *e, const struct lru_gen_folio *lrugen, int type,
			      const struct scan_control *sc)
{
	if (current_is_kswapd(sc) || !writeback_throttling_sane(e, sc))
		return 0;
	uint64_t evictable = lruvec_type_evictable_size(lrugen, type);
	if (sc->gfp_io_fs)
		evictable >>= 3;
	return lrugen->nr_isolated[type] > evictable / MIN_NR_GENS;
}

/* throttle_evictable_types: at the top of evict_folios.  The evictable
 * types that are not over-isolated are allowed (and isolation waiters are
 * woken); nothing evictable returns 0 at once; if every evictable type is
 * over-isolated the reclaimer sleeps once (reclaim_throttle ISOLATED, up to
 * HZ/50 or until woken), and gives up if they still are. */
unsigned throttle_evictable_types(struct engine *e, int memcg, int swappiness,
				  struct scan_control *sc, int *fatal)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int stalled = 0;
	*fatal = 0;
	for (;;) {
		unsigned allowed = 0;
		int evictable = 0, type;
		for_each_evictable_type(type, swappiness) {
			if (!lruvec_type_evictable_size(lrugen, type))
				continue;
			evictable = 1;
			if (!lru_gen_too_many_isolated(e, lrugen, type, sc))
				allowed |= 1u << type;
		}
		if (!evictable)
			return 0;
		if (allowed) {
			sim_wake_all(&e->sim, &e->node.reclaim_wait[VMSCAN_THROTTLE_ISOLATED]);
			return allowed;
		}
		if (stalled)
			return 0;
		stalled = 1;
		reclaim_throttle(e, VMSCAN_THROTTLE_ISOLATED);
		if (fatal_signal_pending(e, sc->sim.task)) {
			*fatal = 1;
			return 0;
		}
	}
}
