/*
 * scan_balance.c — mglru+scan-balance, the reviewer's alternative to the
 * isolation throttle (inferred where the review is silent): a
 * get_scan_count-like budget per type once per lruvec visit, eviction of
 * each type to its target, and one lruvec-wide isolation check.
 */
#include "lru_gen.h"
#include "mm/internal.h"
#include "mm/vmscan.h"

enum scan_balance { SCAN_EQUAL, SCAN_FRACT, SCAN_ANON, SCAN_FILE };

/* lru_gen_scan_balance: get_scan_count for MGLRU (the reviewer's
 * proposal): per type (evictable - isolated) >> priority, split by the
 * classic rules — file only without swap (swappiness 0 here), anon only
 * for SWAPPINESS_ANON_ONLY or a tiny file LRU (global reclaim), equal at
 * priority 0, otherwise the fraction from swappiness and the target's
 * costs.  cache_trim_mode is left out: it rests on the classic refault
 * snapshots MGLRU does not keep (inferred). */
void lru_gen_scan_balance(struct engine *e, int memcg, struct scan_control *sc, int swappiness,
			  uint64_t nr[ANON_AND_FILE])
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	uint64_t fraction[ANON_AND_FILE] = { 0, 0 }, denominator = 0;
	enum scan_balance balance;

	if (!swappiness) {
		balance = SCAN_FILE;
	} else if (swappiness == SWAPPINESS_ANON_ONLY) {
		balance = SCAN_ANON;
	} else if (!sc->priority) {
		balance = SCAN_EQUAL;
	} else {
		int file_is_tiny = 0;
		if (!cgroup_reclaim(sc)) {
			uint64_t file = node_page_state(e, LRU_ACTIVE_FILE) +
					node_page_state(e, LRU_INACTIVE_FILE);
			uint64_t anon = node_page_state(e, LRU_INACTIVE_ANON);
			file_is_tiny = file + e->node.nr_free <= e->node.watermark[WMARK_HIGH] &&
				       (anon >> sc->priority);
		}
		if (file_is_tiny) {
			balance = SCAN_ANON;
		} else {
			int target = sc->target_mem_cgroup < 0 ? 0 : sc->target_mem_cgroup;
			const struct lruvec *tlv = &e->memcgs[target].lruvec;
			uint64_t total_cost = tlv->anon_cost + tlv->file_cost;
			uint64_t anon_cost = total_cost + tlv->anon_cost;
			uint64_t file_cost = total_cost + tlv->file_cost;
			total_cost = anon_cost + file_cost;
			balance = SCAN_FRACT;
			fraction[0] = (uint64_t)swappiness * (total_cost + 1) / (anon_cost + 1);
			fraction[1] = (uint64_t)(MAX_SWAPPINESS - swappiness) * (total_cost + 1) /
				      (file_cost + 1);
			denominator = fraction[0] + fraction[1];
		}
	}
	for (int type = 0; type < ANON_AND_FILE; type++) {
		uint64_t size = lruvec_type_evictable_size(lrugen, type);
		uint64_t iso = lrugen->nr_isolated[type];
		uint64_t scan = (size > iso ? size - iso : 0) >> sc->priority;
		switch (balance) {
		case SCAN_EQUAL:
			break;
		case SCAN_FRACT:
			scan = denominator ? scan * fraction[type] / denominator : 0;
			break;
		case SCAN_FILE:
		case SCAN_ANON:
			if ((balance == SCAN_FILE) != type)
				scan = 0;
			break;
		}
		nr[type] = scan;
	}
}

/* The whole lruvec's isolation check: total isolated > total size /
 * MIN_NR_GENS.  kswapd is exempt (inferred, as for every isolation
 * throttle).  Sleeps once; returns 1 if reclaim of this lruvec should stop. */
static int lru_gen_balance_throttle(struct engine *e, struct lru_gen_folio *lrugen,
				    struct scan_control *sc)
{
	int stalled = 0;
	for (;;) {
		if (current_is_kswapd(sc))
			return 0;
		uint64_t size = lruvec_type_evictable_size(lrugen, 0) + lruvec_type_evictable_size(lrugen, 1);
		uint64_t isolated = lrugen->nr_isolated[0] + lrugen->nr_isolated[1];
		if (isolated <= size / MIN_NR_GENS) {
			sim_wake_all(&e->sim, &e->node.reclaim_wait[VMSCAN_THROTTLE_ISOLATED]);
			return 0;
		}
		if (stalled)
			return 1;
		stalled = 1;
		reclaim_throttle(e, VMSCAN_THROTTLE_ISOLATED);
		if (fatal_signal_pending(e, sc->sim.task)) {
			sc->nr_reclaimed += SWAP_CLUSTER_MAX;
			return 1;
		}
	}
}

/* try_to_shrink_lruvec for mglru+scan-balance (inferred where the review
 * is silent): the budget per type once per visit, then rounds that evict
 * each type in MIN_LRU_BATCH steps to its target — aging when that type
 * has no evictable generation instead of spilling into the other — with
 * the lruvec throttle before each round and the base's aging and stop
 * rules. */
int try_to_shrink_lruvec_balanced(struct engine *e, int memcg, struct scan_control *sc)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int need_rotate = 0, aged = 0;
	int swappiness = get_swappiness(e, memcg, sc);
	uint64_t nr[ANON_AND_FILE];

	lru_gen_scan_balance(e, memcg, sc, swappiness, nr);
	record_lru_scan(sc, nr[LRU_GEN_ANON], nr[LRU_GEN_FILE], 0, 0);
	while (nr[LRU_GEN_ANON] || nr[LRU_GEN_FILE]) {
		if (lru_gen_balance_throttle(e, lrugen, sc))
			break;
		for (int type = 0; type < ANON_AND_FILE; type++) {
			if (!nr[type])
				continue;
			uint64_t max_seq = lrugen->max_seq;
			if (should_run_aging(e, lrugen, max_seq, sc, swappiness) ||
			    lrugen->min_seq[type] + MIN_NR_GENS > max_seq) {
				if (try_to_inc_max_seq(e, memcg, max_seq, swappiness, sc))
					need_rotate = 1;
				aged = 1;
			}
			uint64_t batch = nr[type] < MIN_LRU_BATCH ? nr[type] : MIN_LRU_BATCH;
			int delta = __evict_folios(e, batch, memcg, sc, swappiness, type, NULL);
			if (!delta) {
				nr[type] = 0;
				continue;
			}
			nr[type] -= (uint64_t)delta < nr[type] ? (uint64_t)delta : nr[type];
		}
		if (should_abort_scan(e, sc))
			break;
		if (root_reclaim(sc) && aged)
			break;
	}
	lru_gen_wakeup_flusher(e, sc);
	return need_rotate;
}
