/*
 * policy_classic.c — the classic active/inactive LRU (mm/vmscan.c without
 * CONFIG_LRU_GEN, and the LRU side of mm/swap.c), and the over-reclaim
 * RFC as the variants classic+early-exit and classic+early-exit-direct.
 *
 * Each function has the kernel's name and shape; where the kernel does
 * more than a single-node, order-0 machine needs, the comment says what
 * was left out (and DEVIATIONS.md says why).
 */
#include "mm_inline.h"
#include "policy.h"
#include "policy_classic.h"
#include "vmscan.h"
#include "workingset.h"

#include <string.h>

/* ---- mm/swap.c --------------------------------------------------------- */

/* folio_add_lru: new folios start inactive unless workingset_refault
 * activated them. */
static void classic_folio_add_lru(struct engine *e, uint32_t pfn)
{
	lruvec_add_folio(e, folio_lruvec(e, pfn), pfn);
}

/* folio_activate: move an inactive folio to the head of its active list. */
static void folio_activate(struct engine *e, uint32_t pfn)
{
	struct lruvec *lv = folio_lruvec(e, pfn);
	lruvec_del_folio(e, lv, pfn);
	e->folio[pfn].flags |= PG_active;
	lruvec_add_folio(e, lv, pfn);
	count_vm_events(e, VM_pgactivate, 1);
}

/* folio_mark_accessed: the two-touch rule for accesses through syscalls.
 *   inactive,unreferenced -> inactive,referenced
 *   inactive,referenced   -> active,unreferenced
 *   active,unreferenced   -> active,referenced */
static void classic_folio_mark_accessed(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (!(f->flags & PG_referenced)) {
		f->flags |= PG_referenced;
	} else if (!(f->flags & PG_active)) {
		/* An isolated folio is not on an LRU: there is nothing to
		 * move (__lru_cache_activate_folio finds it in no batch). */
		if (f->flags & PG_lru)
			folio_activate(e, pfn);
		f->flags &= ~PG_referenced;
		workingset_activation(e, pfn);
	}
}

static void classic_folio_del_lru(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (f->flags & PG_lru)
		lruvec_del_folio(e, folio_lruvec(e, pfn), pfn);
}

/* folio_rotate_reclaimable: writeback ended on a folio reclaim wanted:
 * put it at the tail of the inactive list, next in line. */
static void classic_folio_rotate_reclaimable(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if ((f->flags & PG_dirty) || !(f->flags & PG_lru))
		return;
	struct lruvec *lv = folio_lruvec(e, pfn);
	lruvec_del_folio(e, lv, pfn);
	f->flags &= ~PG_active;
	lruvec_add_folio_tail(e, lv, pfn);
	count_vm_events(e, VM_pgrotated, 1);
}

/* ---- isolation ------------------------------------------------------------ */

/* isolate_lru_folios: take up to NR_TO_SCAN folios from the tail of LRU.
 * One zone, so nothing is skipped for its zone; a mapped folio when
 * unmapping is not allowed goes back to the head.  Returns the number
 * taken; *nr_scanned is the number examined. */
static uint32_t isolate_lru_folios(struct engine *e, uint64_t nr_to_scan, struct lruvec *lv,
				   uint32_t *dst, uint64_t *nr_scanned, struct scan_control *sc,
				   enum lru_list lru)
{
	uint32_t nr_taken = 0;
	uint64_t scan = 0;
	while (scan < nr_to_scan && lv->tail[lru] != NIL) {
		uint32_t pfn = lv->tail[lru];
		struct folio *f = &e->folio[pfn];
		scan++;
		lruvec_del_folio(e, lv, pfn);
		if (!sc->may_unmap && (f->flags & PG_mapped)) {
			lruvec_add_folio(e, lv, pfn);     /* rotate */
			continue;
		}
		f->flags |= PG_isolated;
		dst[nr_taken++] = pfn;
	}
	*nr_scanned = scan;
	return nr_taken;
}

/* ---- the lists ---------------------------------------------------------------- */

/* shrink_inactive_list: isolate a batch, let the time to process it pass
 * (other reclaimers and tasks run meanwhile: isolation is an interval),
 * then decide each folio and put the survivors back. */
static uint64_t shrink_inactive_list(struct engine *e, uint64_t nr_to_scan, int memcg,
				     struct scan_control *sc, enum lru_list lru)
{
	struct lruvec *lv = &e->memcgs[memcg].lruvec;
	int file = is_file_lru(lru);
	uint32_t list[SWAP_CLUSTER_MAX];
	int stalled = 0;
	uint64_t nr_scanned;

	while (too_many_isolated(e, file, sc)) {
		if (stalled)
			return 0;
		/* wait a bit for the reclaimer. */
		stalled = 1;
		reclaim_throttle(e, VMSCAN_THROTTLE_ISOLATED);
		/* We are about to die and free our memory. Return now. */
		if (fatal_signal_pending(e, sc->task))
			return SWAP_CLUSTER_MAX;
	}

	uint32_t nr_taken = isolate_lru_folios(e, nr_to_scan, lv, list, &nr_scanned, sc, lru);
	engine_isolated(e, file, nr_taken);
	if (!cgroup_reclaim(sc))
		count_vm_events(e, sc->kswapd ? VM_pgscan_kswapd : VM_pgscan_direct, nr_scanned);
	count_vm_events(e, file ? VM_pgscan_file : VM_pgscan_anon, nr_scanned);
	sc->total_scanned += nr_scanned;
	if (nr_taken == 0)
		return 0;

	uint32_t nr_mapped = 0;
	for (uint32_t i = 0; i < nr_taken; i++)
		nr_mapped += !!(e->folio[list[i]].flags & PG_mapped);
	reclaim_spend(e, nr_scanned * e->cost.isolate_per_page + nr_taken * e->cost.shrink_per_page +
			 nr_mapped * e->cost.unmap_per_page);

	struct reclaim_stat stat;
	uint64_t nr_reclaimed = shrink_folio_list(e, list, nr_taken, sc, &stat);
	move_folios_to_lru(e, list, sc->nr_survivors);
	engine_isolated(e, file, -(int64_t)nr_taken);

	if (!cgroup_reclaim(sc))
		count_vm_events(e, sc->kswapd ? VM_pgsteal_kswapd : VM_pgsteal_direct, nr_reclaimed);
	count_vm_events(e, file ? VM_pgsteal_file : VM_pgsteal_anon, nr_reclaimed);

	lru_note_cost(e, memcg, file, stat.nr_pageout, nr_scanned - nr_reclaimed);

	/* Dirty folios that nobody queued for IO: the flushers are behind. */
	if (stat.nr_unqueued_dirty == nr_taken)
		engine_wakeup_flusher(e);

	sc->nr.dirty += stat.nr_dirty;
	sc->nr.congested += stat.nr_congested;
	sc->nr.unqueued_dirty += stat.nr_unqueued_dirty;
	sc->nr.writeback += stat.nr_writeback;
	sc->nr.immediate += stat.nr_immediate;
	sc->nr.taken += nr_taken;
	if (file)
		sc->nr.file_taken += nr_taken;
	return nr_reclaimed;
}

/* shrink_active_list: move folios from the active to the inactive list.
 * A referenced folio is deactivated anyway, except executable file pages,
 * which get another trip around the active list. */
static void shrink_active_list(struct engine *e, uint64_t nr_to_scan, int memcg,
			       struct scan_control *sc, enum lru_list lru)
{
	struct lruvec *lv = &e->memcgs[memcg].lruvec;
	int file = is_file_lru(lru);
	uint32_t list[SWAP_CLUSTER_MAX];
	uint64_t nr_scanned, nr_rotated = 0, nr_deactivate = 0;

	uint32_t nr_taken = isolate_lru_folios(e, nr_to_scan, lv, list, &nr_scanned, sc, lru);
	engine_isolated(e, file, nr_taken);
	if (!cgroup_reclaim(sc))
		count_vm_events(e, VM_pgrefill, nr_scanned);
	reclaim_spend(e, nr_scanned * e->cost.active_per_page);

	for (uint32_t i = 0; i < nr_taken; i++) {
		uint32_t pfn = list[i];
		struct folio *f = &e->folio[pfn];
		uint32_t vm_exec;
		if (f->flags & PG_freed)
			continue;
		if (folio_referenced(e, pfn, &vm_exec) && vm_exec && folio_is_file_lru(f)) {
			/* Executable code keeps its place: it is the working set. */
			nr_rotated++;
			continue;
		}
		f->flags &= ~PG_active;
		f->flags |= PG_workingset;
		nr_deactivate++;
	}
	move_folios_to_lru(e, list, nr_taken);
	engine_isolated(e, file, -(int64_t)nr_taken);
	count_vm_events(e, VM_pgdeactivate, nr_deactivate);
	if (nr_rotated)
		lru_note_cost(e, memcg, file, 0, nr_rotated);
}

/* inactive_is_low: the inactive list is too small for its active list;
 * the ratio grows with the square root of the size in GiB. */
int inactive_is_low(struct engine *e, int memcg, enum lru_list inactive_lru)
{
	uint64_t inactive = lruvec_page_state(e, memcg, inactive_lru);
	uint64_t active = lruvec_page_state(e, memcg, inactive_lru + 1);
	uint64_t gb = (inactive + active) >> (30 - 12);
	uint64_t inactive_ratio = 1;
	if (gb) {
		inactive_ratio = 0;     /* int_sqrt(10 * gb) */
		while ((inactive_ratio + 1) * (inactive_ratio + 1) <= 10 * gb)
			inactive_ratio++;
	}
	return inactive * inactive_ratio < active;
}

enum { DEACTIVATE_ANON = 1, DEACTIVATE_FILE = 2 };

static uint64_t shrink_list(struct engine *e, enum lru_list lru, uint64_t nr_to_scan, int memcg,
			    struct scan_control *sc)
{
	if (is_active_lru(lru)) {
		if (sc->may_deactivate & (1 << is_file_lru(lru)))
			shrink_active_list(e, nr_to_scan, memcg, sc, lru);
		else
			sc->skipped_deactivate = 1;
		return 0;
	}
	return shrink_inactive_list(e, nr_to_scan, memcg, sc, lru);
}

/* ---- get_scan_count ------------------------------------------------------ */

enum scan_balance { SCAN_EQUAL, SCAN_FRACT, SCAN_ANON, SCAN_FILE };

/* get_scan_count: how many folios of each list to scan at this priority.
 * Memory cgroup protection (memory.min/low) and offline memcgs are not
 * modelled, so their branches are absent. */
void get_scan_count(struct engine *e, int memcg, struct scan_control *sc, uint64_t *nr)
{
	int swappiness = mem_cgroup_swappiness(e, memcg);
	uint64_t fraction[ANON_AND_FILE] = { 0, 0 }, denominator = 0;
	enum scan_balance scan_balance;

	/* If we have no swap space, do not bother scanning anon folios. */
	if (!sc->may_swap || !can_reclaim_anon_pages(e, memcg)) {
		scan_balance = SCAN_FILE;
		goto out;
	}
	/* Global reclaim will swap to prevent OOM even with no swappiness,
	 * but memcg users want to use this knob to disable swapping. */
	if (cgroup_reclaim(sc) && !swappiness) {
		scan_balance = SCAN_FILE;
		goto out;
	}
	/* Do not apply any pressure balancing cleverness when the system is
	 * close to OOM: scan both anon and file equally. */
	if (!sc->priority && swappiness) {
		scan_balance = SCAN_EQUAL;
		goto out;
	}
	/* If the system is almost out of file pages, force-scan anon. */
	if (sc->file_is_tiny) {
		scan_balance = SCAN_ANON;
		goto out;
	}
	/* If there is enough inactive page cache, reclaim it only. */
	if (sc->cache_trim_mode) {
		scan_balance = SCAN_FILE;
		goto out;
	}
	/* calculate_pressure_balance: cost-weighted, swappiness-biased. */
	scan_balance = SCAN_FRACT;
	{
		uint64_t total_cost = sc->anon_cost + sc->file_cost;
		uint64_t anon_cost = total_cost + sc->anon_cost;
		uint64_t file_cost = total_cost + sc->file_cost;
		total_cost = anon_cost + file_cost;
		uint64_t ap = (uint64_t)swappiness * (total_cost + 1) / (anon_cost + 1);
		uint64_t fp = (uint64_t)(MAX_SWAPPINESS - swappiness) * (total_cost + 1) / (file_cost + 1);
		fraction[0] = ap;
		fraction[1] = fp;
		denominator = ap + fp;
	}
out:
	for (int lru = 0; lru < NR_LRU_LISTS; lru++) {
		int file = is_file_lru(lru);
		uint64_t scan = lruvec_lru_size(e, memcg, lru) >> sc->priority;
		switch (scan_balance) {
		case SCAN_EQUAL:
			break;
		case SCAN_FRACT:
			/* (scan first: most lists are empty at high priority,
			 * and the division is the costly part of this loop) */
			scan = scan && denominator ? scan * fraction[file] / denominator : 0;
			break;
		case SCAN_FILE:
		case SCAN_ANON:
			if ((scan_balance == SCAN_FILE) != file)
				scan = 0;
			break;
		}
		nr[lru] = scan;
	}
}

/* ---- shrink_lruvec and up ------------------------------------------------- */

/* shrink_lruvec: scan the four lists in proportion to get_scan_count.
 * Once the goal is met, the smaller of anon/file stops and the larger is
 * cut down so both keep the ratio they were asked for. */
void shrink_lruvec(struct engine *e, int memcg, struct scan_control *sc)
{
	uint64_t nr[NR_LRU_LISTS], targets[NR_LRU_LISTS];
	uint64_t nr_to_scan, nr_reclaimed = 0, nr_to_reclaim = sc->nr_to_reclaim;

	get_scan_count(e, memcg, sc, nr);
	memcpy(targets, nr, sizeof(nr));

	/* Global direct reclaim at the first priority scans its whole
	 * target: the LRU will be fairly aged even if the goal is met. */
	int proportional_reclaim = !cgroup_reclaim(sc) && !sc->kswapd && sc->priority == DEF_PRIORITY;

	/* The RFC's goal: max(nr_to_reclaim, compact_gap(order)); order 0. */
	uint64_t goal = sc->nr_to_reclaim > 2 ? sc->nr_to_reclaim : 2;

	while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] || nr[LRU_INACTIVE_FILE]) {
		uint64_t nr_anon, nr_file, percentage, nr_scanned;

		for (int lru = 0; lru < NR_LRU_LISTS; lru++) {
			if (nr[lru]) {
				nr_to_scan = nr[lru] < SWAP_CLUSTER_MAX ? nr[lru] : SWAP_CLUSTER_MAX;
				nr[lru] -= nr_to_scan;
				nr_reclaimed += shrink_list(e, lru, nr_to_scan, memcg, sc);
			}
		}

		/* classic+early-exit: stop as soon as the goal is met, before
		 * the proportional adjustment below ever runs. */
		if (sc->early_exit && !cgroup_reclaim(sc) && sc->nr_reclaimed + nr_reclaimed >= goal)
			break;

		if (nr_reclaimed < nr_to_reclaim || proportional_reclaim)
			continue;

		/* For kswapd and memcg, reclaim at least the number of pages
		 * requested.  Ensure that the anon and file LRUs are scanned
		 * proportionally to what was requested by get_scan_count(). */
		nr_file = nr[LRU_INACTIVE_FILE] + nr[LRU_ACTIVE_FILE];
		nr_anon = nr[LRU_INACTIVE_ANON] + nr[LRU_ACTIVE_ANON];

		/* It's just vindictive to attack the larger once the smaller
		 * has gone to zero.  And given the way we stop scanning the
		 * smaller below, this makes sure that we only make one nudge
		 * towards proportionality once we've got nr_to_reclaim. */
		if (!nr_file || !nr_anon)
			break;

		int lru;
		if (nr_file > nr_anon) {
			uint64_t scan_target = targets[LRU_INACTIVE_ANON] + targets[LRU_ACTIVE_ANON] + 1;
			lru = LRU_INACTIVE_ANON;
			percentage = nr_anon * 100 / scan_target;
		} else {
			uint64_t scan_target = targets[LRU_INACTIVE_FILE] + targets[LRU_ACTIVE_FILE] + 1;
			lru = LRU_INACTIVE_FILE;
			percentage = nr_file * 100 / scan_target;
		}
		/* Stop scanning the smaller of the LRU */
		nr[lru] = 0;
		nr[lru + 1] = 0;

		/* Recalculate the other LRU scan count based on its original
		 * scan target and the percentage scanning already complete. */
		lru = (lru == LRU_INACTIVE_FILE) ? LRU_INACTIVE_ANON : LRU_INACTIVE_FILE;
		nr_scanned = targets[lru] - nr[lru];
		nr[lru] = targets[lru] * (100 - percentage) / 100;
		nr[lru] -= nr[lru] < nr_scanned ? nr[lru] : nr_scanned;

		lru += 1;
		nr_scanned = targets[lru] - nr[lru];
		nr[lru] = targets[lru] * (100 - percentage) / 100;
		nr[lru] -= nr[lru] < nr_scanned ? nr[lru] : nr_scanned;

	}
	sc->nr_reclaimed += nr_reclaimed;

	if (sc->rec) {
		sc->rec->target_anon += targets[LRU_INACTIVE_ANON] + targets[LRU_ACTIVE_ANON];
		sc->rec->target_file += targets[LRU_INACTIVE_FILE] + targets[LRU_ACTIVE_FILE];
		sc->rec->scanned_anon += (targets[LRU_INACTIVE_ANON] - nr[LRU_INACTIVE_ANON]) +
					 (targets[LRU_ACTIVE_ANON] - nr[LRU_ACTIVE_ANON]);
		sc->rec->scanned_file += (targets[LRU_INACTIVE_FILE] - nr[LRU_INACTIVE_FILE]) +
					 (targets[LRU_ACTIVE_FILE] - nr[LRU_ACTIVE_FILE]);
	}

	/* Even if we did not try to evict anon pages at all, we want to
	 * rebalance the anon lru active/inactive ratio. */
	if (can_age_anon_pages(e) && inactive_is_low(e, memcg, LRU_INACTIVE_ANON))
		shrink_active_list(e, SWAP_CLUSTER_MAX, memcg, sc, LRU_ACTIVE_ANON);
}

/* The memcgs under TARGET in pre-order (target first), as mem_cgroup_iter
 * visits them.  Children have higher indices than their parents. */
static int memcg_is_under(const struct engine *e, int m, int target)
{
	while (m > target)
		m = e->memcgs[m].parent;
	return m == target;
}

/* shrink_node_memcgs: shrink the lruvec of every memcg under the target.
 * Direct and limit reclaimers share a cursor and walk partially (each
 * from where the last one stopped, until it has reclaimed enough);
 * kswapd and full walks visit them all. */
static void shrink_node_memcgs(struct engine *e, struct scan_control *sc)
{
	int target = sc->target_mem_cgroup < 0 ? 0 : sc->target_mem_cgroup;
	int partial = !sc->kswapd && !sc->memcg_full_walk;
	int start = target;
	uint64_t goal = sc->nr_to_reclaim > 2 ? sc->nr_to_reclaim : 2;

	if (partial && e->node.memcg_cursor > (uint32_t)target &&
	    e->node.memcg_cursor < (uint32_t)e->nr_memcgs &&
	    memcg_is_under(e, (int)e->node.memcg_cursor, target))
		start = (int)e->node.memcg_cursor;

	for (int m = start; m < e->nr_memcgs; m++) {
		if (!memcg_is_under(e, m, target))
			continue;
		if (partial)
			e->node.memcg_cursor = (uint32_t)m + 1;
		shrink_lruvec(e, m, sc);
		/* shrink_slab: not modelled. */

		if (sc->early_exit && sc->early_exit_memcg_walk) {
			/* classic+early-exit: partial and full walks alike. */
			if (sc->nr_reclaimed >= goal)
				break;
		} else if (partial && sc->nr_reclaimed >= sc->nr_to_reclaim) {
			break;
		}
	}
	if (partial && e->node.memcg_cursor >= (uint32_t)e->nr_memcgs)
		e->node.memcg_cursor = 0;       /* the cursor wraps */
}

/* prepare_scan_control: costs, deactivation and cache-trim decisions for
 * this pass, taken on the target lruvec (the root's for global reclaim). */
static void prepare_scan_control(struct engine *e, struct scan_control *sc)
{
	int target = sc->target_mem_cgroup < 0 ? 0 : sc->target_mem_cgroup;
	struct lruvec *tlv = &e->memcgs[target].lruvec;

	sc->anon_cost = tlv->anon_cost;
	sc->file_cost = tlv->file_cost;

	/* Deactivate active folios only when the inactive list is low or
	 * refaults show the active list is the workingset being thrashed. */
	if (!sc->force_deactivate) {
		if (tlv->workingset_activate[LRU_ANON] != tlv->refaults[LRU_ANON] ||
		    inactive_is_low(e, target, LRU_INACTIVE_ANON))
			sc->may_deactivate |= DEACTIVATE_ANON;
		else
			sc->may_deactivate &= ~DEACTIVATE_ANON;
		if (tlv->workingset_activate[LRU_FILE] != tlv->refaults[LRU_FILE] ||
		    inactive_is_low(e, target, LRU_INACTIVE_FILE))
			sc->may_deactivate |= DEACTIVATE_FILE;
		else
			sc->may_deactivate &= ~DEACTIVATE_FILE;
	} else {
		sc->may_deactivate = DEACTIVATE_ANON | DEACTIVATE_FILE;
	}

	/* If we have plenty of inactive file pages that aren't thrashing,
	 * try to reclaim those first before touching anonymous pages. */
	uint64_t file = lruvec_page_state(e, target, LRU_INACTIVE_FILE);
	sc->cache_trim_mode = (file >> sc->priority) && !(sc->may_deactivate & DEACTIVATE_FILE);

	/* Prevent the reclaimer from falling into the cache trap: as cache
	 * pages start out inactive, every cache fault will tip the scan
	 * balance towards the file LRU.  And as the file LRU shrinks, so
	 * does the window for rotation from references.  Global only. */
	if (!cgroup_reclaim(sc)) {
		uint64_t free = e->node.nr_free;
		uint64_t nfile = lruvec_page_state(e, 0, LRU_ACTIVE_FILE) +
				 lruvec_page_state(e, 0, LRU_INACTIVE_FILE);
		uint64_t anon = lruvec_page_state(e, 0, LRU_INACTIVE_ANON);
		sc->file_is_tiny = nfile + free <= e->node.watermark[WMARK_HIGH] &&
				   !(sc->may_deactivate & DEACTIVATE_ANON) && (anon >> sc->priority);
	}
}

/* shrink_node: one pass over the node, then the writeback and congestion
 * bookkeeping that decides whether reclaimers should slow down. */
static void classic_shrink_node(struct engine *e, struct scan_control *sc)
{
	struct pglist_data *pgdat = &e->node;

	memset(&sc->nr, 0, sizeof(sc->nr));
	uint64_t nr_reclaimed = sc->nr_reclaimed;

	prepare_scan_control(e, sc);
	shrink_node_memcgs(e, sc);

	uint64_t node_reclaimed = sc->nr_reclaimed - nr_reclaimed;

	if (sc->kswapd) {
		/* Every folio taken was under writeback: flag the node so
		 * kswapd counts them as immediate instead of waiting. */
		if (sc->nr.writeback && sc->nr.writeback == sc->nr.taken)
			pgdat->pgdat_writeback = 1;
		/* Every file folio taken was dirty and unqueued. */
		if (sc->nr.unqueued_dirty && sc->nr.unqueued_dirty == sc->nr.file_taken)
			pgdat->pgdat_dirty = 1;
		/* Folios under writeback met again: wait for some IO. */
		if (sc->nr.immediate)
			reclaim_throttle(e, VMSCAN_THROTTLE_WRITEBACK);
	}

	/* All dirty folios seen were already queued for IO: congested. */
	int target = sc->target_mem_cgroup < 0 ? 0 : sc->target_mem_cgroup;
	if (sc->nr.dirty && sc->nr.dirty == sc->nr.congested) {
		if (cgroup_reclaim(sc))
			e->memcgs[target].lruvec.congested = 1;
		else if (sc->kswapd)
			e->memcgs[0].lruvec.congested = 1;
	}
	/* Stall direct reclaimers on congestion rather than let them
	 * scan the LRU into the ground. */
	if (!sc->kswapd && e->memcgs[target].lruvec.congested)
		reclaim_throttle(e, VMSCAN_THROTTLE_CONGESTED);

	/* should_continue_reclaim: only for reclaim/compaction (order > 0);
	 * never here.  The early-exit RFC's change to it is therefore a
	 * no-op on order-0 replays (DEVIATIONS.md). */

	if (node_reclaimed)
		pgdat->kswapd_failures = 0;
}

/* kswapd_age_node: age the anon lists even when nothing is reclaimed. */
static void classic_age_node(struct engine *e, struct scan_control *sc)
{
	if (!can_age_anon_pages(e))
		return;
	if (!inactive_is_low(e, 0, LRU_INACTIVE_ANON))
		return;
	for (int m = 0; m < e->nr_memcgs; m++)
		shrink_active_list(e, SWAP_CLUSTER_MAX, m, sc, LRU_ACTIVE_ANON);
}

/* snapshot_refaults: remember the activation counters at the end of a
 * cycle, so the next one sees whether refaults happened since. */
static void classic_snapshot_refaults(struct engine *e, int target_memcg)
{
	struct lruvec *lv = &e->memcgs[target_memcg < 0 ? 0 : target_memcg].lruvec;
	lv->refaults[LRU_ANON] = lv->workingset_activate[LRU_ANON];
	lv->refaults[LRU_FILE] = lv->workingset_activate[LRU_FILE];
}

#define CLASSIC_OPS \
	.takes_swappiness = 1, \
	.folio_add_lru = classic_folio_add_lru, \
	.folio_mark_accessed = classic_folio_mark_accessed, \
	.folio_del_lru = classic_folio_del_lru, \
	.folio_rotate_reclaimable = classic_folio_rotate_reclaimable, \
	.shrink_node = classic_shrink_node, \
	.age_node = classic_age_node, \
	.snapshot_refaults = classic_snapshot_refaults, \
	.workingset_eviction = workingset_eviction, \
	.workingset_refault = workingset_refault

const struct reclaim_policy policy_classic = {
	.name = "classic",
	.summary = "active/inactive LRU of mainline (mm/vmscan.c without MGLRU)",
	CLASSIC_OPS,
};

const struct reclaim_policy policy_classic_early_exit = {
	.name = "classic+early-exit",
	.summary = "over-reclaim RFC: stop shrink_lruvec / the memcg walk once the goal is met",
	.early_exit = 1,
	CLASSIC_OPS,
};

const struct reclaim_policy policy_classic_early_exit_direct = {
	.name = "classic+early-exit-direct",
	.summary = "the same, the memcg-walk break for direct reclaim only (not kswapd)",
	.early_exit = 1,
	.early_exit_direct_only = 1,
	CLASSIC_OPS,
};
