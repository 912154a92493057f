/*
 * vmscan_kswapd.c — kswapd, the half of mm/vmscan.c that reclaims in the
 * background: wakeup_kswapd, kswapd_age_node, kswapd_shrink_node,
 * balance_pgdat, prepare_kswapd_sleep and kswapd (kswapd_try_to_sleep's
 * nap and sleep).  Its own file only to keep vmscan.c readable; it calls
 * the shared drivers of vmscan.c through vmscan.h.  MGLRU is entered
 * where the kernel calls lru_gen_age_node.
 *
 * Left out (DEVIATIONS.md): one node with one zone, order 0 only (no
 * kcompactd, no boosted watermarks, no pgdat->kswapd_order).
 */
#include "vmscan.h"
#include "internal.h"
#include "variants.h"

/* wakeup_kswapd: an allocation found the low watermark breached. */
void wakeup_kswapd(struct engine *e)
{
	if (e->kswapd_state == KSWAPD_RUNNING)
		return;
	/* Hopeless node: kswapd stays asleep (it would only spin). */
	if (e->node.kswapd_failures >= MAX_RECLAIM_RETRIES)
		return;
	if (pgdat_balanced(e))
		return;
	e->kswapd_state = KSWAPD_RUNNING;
	sim_wake_all(&e->sim, &e->kswapd_wait);
}

/* kswapd_age_node: keep the inactive anon list from running low even
 * when nothing is reclaimed (MGLRU: lru_gen_age_node). */
static void kswapd_age_node(struct engine *e, struct scan_control *sc)
{
	if (lru_gen_enabled(e)) {
		lru_gen_age_node(e, sc);
		return;
	}
	if (!can_age_anon_pages(e))
		return;
	if (!inactive_is_low(e, 0, LRU_INACTIVE_ANON))
		return;
	for (int m = 0; m < e->nr_memcgs; m++)
		shrink_active_list(e, SWAP_CLUSTER_MAX, m, sc, LRU_ACTIVE_ANON);
}

/* kswapd_shrink_node: reclaim toward the high watermark; reports whether
 * enough was scanned that priority need not rise. */
static int kswapd_shrink_node(struct engine *e, struct scan_control *sc)
{
	uint64_t high = e->node.watermark[WMARK_HIGH];
	sc->nr_to_reclaim = high > SWAP_CLUSTER_MAX ? high : SWAP_CLUSTER_MAX;
	shrink_node(e, sc);
	return sc->nr_scanned >= sc->nr_to_reclaim;
}

/* balance_pgdat: reclaim until the node is balanced (free above the high
 * watermark), raising the priority when a pass reclaims too little. */
static void balance_pgdat(struct engine *e)
{
	struct scan_control sc;
	init_sc(&sc, UINT32_MAX);
	sc.sim.kswapd = 1;
	count_vm_events(e, VM_pageoutrun, 1);
	record_reclaim_begin(e, &sc, RECLAIM_KSWAPD);
restart:
	sc.priority = DEF_PRIORITY;
	do {
		uint64_t nr_reclaimed = sc.nr_reclaimed;
		int raise_priority = 1;
		if (pgdat_balanced(e))
			break;
		sc.may_writepage = 1;
		sc.may_swap = 1;
		sc.nr_scanned = 0;
		kswapd_age_node(e, &sc);
		if (kswapd_shrink_node(e, &sc))
			raise_priority = 0;
		record_priority(&sc);
		if (sim_waitq_active(&e->pfmemalloc_wait) && allow_direct_reclaim(e))
			sim_wake_all(&e->sim, &e->pfmemalloc_wait);
		nr_reclaimed = sc.nr_reclaimed - nr_reclaimed;
		if (raise_priority || !nr_reclaimed)
			sc.priority--;
	} while (sc.priority >= 1);
	/* The whole priority loop in cache-trim mode reclaimed nothing:
	 * once more without it. */
	if (!sc.nr_reclaimed && sc.priority < 1 && !sc.no_cache_trim_mode && sc.cache_trim_mode_failed) {
		sc.no_cache_trim_mode = 1;
		goto restart;
	}
	if (!sc.nr_reclaimed)
		e->node.kswapd_failures++;
	snapshot_refaults(e, -1);
	record_reclaim_end(e, &sc);
}

/* prepare_kswapd_sleep: balanced, or hopeless.  Nobody should wait on
 * pfmemalloc_wait while kswapd sleeps: they are woken (and throttle
 * again if that was premature). */
static int prepare_kswapd_sleep(struct engine *e)
{
	if (sim_waitq_active(&e->pfmemalloc_wait))
		sim_wake_all(&e->sim, &e->pfmemalloc_wait);
	if (e->node.kswapd_failures >= MAX_RECLAIM_RETRIES)
		return 1;
	if (pgdat_balanced(e)) {
		/* clear_pgdat_congested: the node is fine again. */
		e->memcgs[0].lruvec.congested = 0;
		e->node.pgdat_dirty = e->node.pgdat_writeback = 0;
		return 1;
	}
	return 0;
}

/* kswapd: sleep until woken, balance the node, then kswapd_try_to_sleep:
 * a short nap (HZ/10) and, if the node is still balanced, a full sleep. */
void kswapd_main(void *arg)
{
	struct engine *e = arg;
	e->kswapd_state = KSWAPD_SLEEPING;
	for (;;) {
		while (e->kswapd_state == KSWAPD_SLEEPING && !e->stopping)
			sim_wait(&e->sim, &e->kswapd_wait, 1000ull * NSEC_PER_SEC);
		if (e->stopping)
			return;
		balance_pgdat(e);
		if (!prepare_kswapd_sleep(e))
			continue;
		e->kswapd_state = KSWAPD_NAPPING;
		if (sim_wait(&e->sim, &e->kswapd_wait, NSEC_PER_SEC / 10))
			continue;          /* woken during the nap: work again */
		if (e->stopping)
			return;
		e->kswapd_state = prepare_kswapd_sleep(e) ? KSWAPD_SLEEPING : KSWAPD_RUNNING;
	}
}
