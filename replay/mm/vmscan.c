/*
 * vmscan.c — page reclaim, after mm/vmscan.c: the classic active/inactive
 * LRU (isolate_lru_folios, shrink_inactive_list, shrink_active_list,
 * get_scan_count, shrink_lruvec), the code every LRU shares
 * (shrink_folio_list and its per-folio decisions, throttling), and the
 * drivers (shrink_node, do_try_to_free_pages, try_to_free_pages,
 * try_to_free_mem_cgroup_pages); kswapd is in vmscan_kswapd.c.  MGLRU
 * (lru_gen/) is entered where the kernel calls lru_gen_*: shrink_node for
 * root reclaim, shrink_lruvec for cgroup reclaim, kswapd_age_node (in
 * vmscan_kswapd.c), and folio_check_references.
 *
 * Left out (DEVIATIONS.md): one node with one zone, order 0 only (no
 * compaction; should_continue_reclaim's reclaim/compaction mode never
 * applies), no shrinkers, no memory.min/low protection, no unevictable
 * list.
 */
#include "vmscan.h"
#include "internal.h"
#include "records/cost.h"
#include "variants.h"

#include <string.h>

/* can_reclaim_anon_pages: is there swap space left for this memcg? */

int can_reclaim_anon_pages(const struct engine *e, int memcg)
{
	(void)memcg;                 /* no memory.swap.max: the device's space */
	return e->swap_slots > e->swap_used;
}

/* ---- throttling ------------------------------------------------------ */

/* skip_throttle_noprogress: no point waiting for progress when kswapd
 * has given up (the node is near OOM), or when too little of what could
 * be reclaimed is under writeback for waiting to help. */
static int skip_throttle_noprogress(const struct engine *e)
{
	if (e->node.kswapd_failures >= MAX_RECLAIM_RETRIES)
		return 1;
	uint64_t reclaimable = node_page_state(e, LRU_INACTIVE_FILE) + node_page_state(e, LRU_ACTIVE_FILE);
	if (can_reclaim_anon_pages(e, 0))
		reclaimable += node_page_state(e, LRU_INACTIVE_ANON) + node_page_state(e, LRU_ACTIVE_ANON);
	uint64_t write_pending = e->node.nr_dirty + e->node.nr_writeback;   /* NR_ZONE_WRITE_PENDING */
	return 2 * write_pending <= reclaimable;
}

/* reclaim_throttle: sleep on the node's queue for REASON.  The timeouts
 * are the kernel's; kswapd never throttles on ISOLATED/NOPROGRESS/
 * CONGESTED (current_is_kswapd exemption is in the callers). */
void reclaim_throttle(struct engine *e, enum vmscan_throttle_state reason)
{
	static const simtime_t timeout[NR_VMSCAN_THROTTLE] = {
		[VMSCAN_THROTTLE_WRITEBACK]  = NSEC_PER_SEC / 10,    /* HZ/10 */
		[VMSCAN_THROTTLE_ISOLATED]   = NSEC_PER_SEC / 50,    /* HZ/50 */
		[VMSCAN_THROTTLE_NOPROGRESS] = JIFFY_NS,             /* 1     */
		[VMSCAN_THROTTLE_CONGESTED]  = JIFFY_NS,             /* 1     */
	};
	if (!e->sim.current)
		return;
	struct pglist_data *pgdat = &e->node;
	if ((reason == VMSCAN_THROTTLE_CONGESTED || reason == VMSCAN_THROTTLE_NOPROGRESS) &&
	    skip_throttle_noprogress(e))
		return;
	if (reason == VMSCAN_THROTTLE_WRITEBACK && !sim_waitq_active(&pgdat->reclaim_wait[reason]))
		pgdat->nr_reclaim_start = pgdat->nr_throttled_written;
	count_vm_events(e, VM_mm_vmscan_throttled, 1);
	sim_wait(&e->sim, &pgdat->reclaim_wait[reason], timeout[reason]);
}

/* too_many_isolated: more folios of this type are isolated than an
 * eighth of the inactive list (the full list for GFP_NOIO/NOFS callers). */
int too_many_isolated(struct engine *e, int file, struct scan_control *sc)
{
	if (current_is_kswapd(sc))
		return 0;
	if (!writeback_throttling_sane(e, sc))
		return 0;
	uint64_t inactive = node_page_state(e, file ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON);
	uint64_t isolated = e->node.nr_isolated[file];
	if (sc->gfp_io_fs)
		inactive >>= 3;
	int too_many = isolated > inactive;
	if (!too_many)
		sim_wake_all(&e->sim, &e->node.reclaim_wait[VMSCAN_THROTTLE_ISOLATED]);
	return too_many;
}

/* ---- per-folio decisions -------------------------------------------- */

/* folio_check_references: the fate shrink_folio_list gives a folio
 * that its references decide. */
static enum folio_references folio_check_references(struct engine *e, uint32_t pfn,
					     struct scan_control *sc)
{
	struct folio *f = &e->folio[pfn];
	uint32_t vm_exec;
	int referenced_ptes = folio_referenced(e, pfn, sc, &vm_exec);
	/* MGLRU: an unreferenced folio is reclaimed whatever its fd
	 * accesses (the tiers handle those); a referenced one is kept, or
	 * activated on its second sighting.  PG_referenced is not cleared:
	 * with MGLRU it counts the fd accesses of the folio's tier. */
	if (lru_gen_enabled(e) && !patch_k612_refs(e)) {
		if (!referenced_ptes)
			return FOLIOREF_RECLAIM;
		return lru_gen_set_refs(f) ? FOLIOREF_ACTIVATE : FOLIOREF_KEEP;
	}
	int referenced_folio = !!(f->flags & PG_referenced);
	f->flags &= ~PG_referenced;

	if (referenced_ptes) {
		/* All mapped folios start out with page table references from
		 * the instantiating fault, so look twice before activating. */
		f->flags |= PG_referenced;
		if (referenced_folio || referenced_ptes > 1)
			return FOLIOREF_ACTIVATE;
		/* Activate file-backed executable folios after first usage. */
		if (vm_exec && folio_is_file_lru(f))
			return FOLIOREF_ACTIVATE;
		return FOLIOREF_KEEP;
	}
	/* Reclaim if clean, defer dirty folios to writeback. */
	if (referenced_folio && folio_is_file_lru(f))
		return FOLIOREF_RECLAIM_CLEAN;
	return FOLIOREF_RECLAIM;
}

/* pageout: write a dirty folio.  Returns 1 when the folio is now clean
 * and can be freed at once (a synchronous device: zram), 0 when the write
 * is in flight (PG_writeback; it comes back to the tail when done).  The
 * bio goes into the reclaimer's plug (shrink_lruvec's blk_start_plug),
 * so the write starts only when the plug is flushed. */
static int pageout(struct engine *e, uint32_t pfn, struct scan_control *sc, simtime_t *sync_time)
{
	struct folio *f = &e->folio[pfn];
	int anon = !folio_is_file_lru(f);
	struct backing *dev = anon ? &e->swap : &e->file;
	f->flags |= PG_reclaim;
	f->flags &= ~PG_dirty;
	count_vm_events(e, VM_nr_vmscan_write, 1);
	if (anon)
		count_vm_events(e, VM_pswpout, 1);
	dev->writes++;
	if (dev->p.sync) {
		/* swap_writepage on zram compresses in the caller's context. */
		*sync_time += submit_write_sync(e, dev) - e->sim.now;
		f->flags &= ~PG_reclaim;
		return 1;
	}
	folio_start_writeback(e, pfn, sc->sim.plug);
	return 0;
}

/* shrink_folio_list: decide the fate of each of the *NR isolated folios
 * in LIST.  Survivors stay in LIST (compacted to the front) for
 * move_folios_to_lru, and *NR becomes their count. */
uint64_t shrink_folio_list(struct engine *e, uint32_t *list, uint32_t *nr, struct scan_control *sc,
			   struct reclaim_stat *stat)
{
	uint64_t nr_reclaimed = 0;
	uint32_t keep = 0;
	simtime_t sync_time = 0;
	memset(stat, 0, sizeof(*stat));

	for (uint32_t i = 0; i < *nr; i++) {
		uint32_t pfn = list[i];
		struct folio *f = &e->folio[pfn];
		int file = folio_is_file_lru(f);
		enum folio_references references = FOLIOREF_RECLAIM;

		if (lru_gen_enabled(e))
			lru_gen_look_around_prefetch(e, list, i, *nr);

		if (f->flags & PG_freed) {
			/* Its owner released it while we held it: the last
			 * reference is ours, so it is simply freed. */
			list[keep++] = pfn;
			continue;
		}
		/* folio_trylock fails while its read is in flight
		 * (folio_start_read): kept, not counted in sc->nr_scanned. */
		if (f->flags & PG_locked)
			goto keep_locked;
		sc->nr_scanned++;

		if (!sc->may_unmap && (f->flags & PG_mapped))
			goto keep_locked;

		/* folio_update_gen() tried to promote this page? (Linux 6.12,
		 * mglru+k6.12-refs: look-around marked it while isolated) */
		if (lru_gen_enabled(e) && patch_k612_refs(e) && (f->flags & PG_mapped) &&
		    (f->flags & PG_referenced))
			goto keep_locked;

		/* folio_check_dirty_writeback: file folios only. */
		if (file) {
			int dirty = !!(f->flags & PG_dirty), writeback = !!(f->flags & PG_writeback);
			if (dirty || writeback)
				stat->nr_dirty++;
			if (dirty && !writeback)
				stat->nr_unqueued_dirty++;
			if (writeback && (f->flags & PG_reclaim))
				stat->nr_congested++;
		}

		if (f->flags & PG_writeback) {
			/* Case 1: kswapd meets a folio it already marked, on a
			 * node flagged PGDAT_WRITEBACK: count it, move on. */
			if (current_is_kswapd(sc) && (f->flags & PG_reclaim) && e->node.pgdat_writeback) {
				stat->nr_immediate++;
				goto activate_locked;
			}
			/* Case 2: mark it for immediate reclaim and continue
			 * scanning, where writeback throttling is sane (or
			 * the folio is new to reclaim, or nobody could wait). */
			if (writeback_throttling_sane(e, sc) || !(f->flags & PG_reclaim) ||
			    !sc->gfp_io_fs || !e->sim.current) {
				f->flags |= PG_reclaim;
				stat->nr_writeback++;
				goto activate_locked;
			}
			/* Case 3: cgroup v1 memcg reclaim met a folio it marked
			 * before: it has no dirty throttling and could OOM with
			 * everything in writeback, so it waits for the write
			 * and tries the folio again.  Sleeping flushes the
			 * reclaimer's plug (sched_submit_work), which may hold
			 * this very write. */
			if (sc->sim.plug)
				blk_flush_plug(e, sc->sim.plug);
			while ((f->flags & PG_writeback) && !fatal_signal_pending(e, sc->sim.task))
				sim_wait(&e->sim, folio_waitqueue(e, pfn), NSEC_PER_SEC);
			sc->nr_scanned--;
			i--;
			continue;
		}

		references = folio_check_references(e, pfn, sc);
		switch (references) {
		case FOLIOREF_ACTIVATE:
			goto activate_locked;
		case FOLIOREF_KEEP:
			goto keep_locked;
		case FOLIOREF_RECLAIM:
		case FOLIOREF_RECLAIM_CLEAN:
			break;
		}

		/* Anonymous folio not yet in the swap cache: give it a slot. */
		if (!file && !(f->flags & PG_swapcache)) {
			if (!sc->gfp_io_fs)
				goto keep_locked;
			if (!folio_alloc_swap(e, pfn))
				goto activate_locked;   /* swap full */
			f->flags |= PG_swapcache | PG_dirty;
		}

		if (f->flags & PG_mapped)
			try_to_unmap(e, pfn);

		if (f->flags & PG_dirty) {
			/* Only kswapd writes file folios, and only those it met
			 * before on a node full of dirty pages; the flushers
			 * write the rest. */
			if (file && (!current_is_kswapd(sc) || !(f->flags & PG_reclaim) || !e->node.pgdat_dirty)) {
				count_vm_events(e, VM_nr_vmscan_immediate_reclaim, 1);
				f->flags |= PG_reclaim;
				goto activate_locked;
			}
			if (references == FOLIOREF_RECLAIM_CLEAN)
				goto keep_locked;
			if (!sc->may_writepage)
				goto keep_locked;
			/* pageout: reclaim writes only swap-backed folios; a
			 * regular file's is PAGE_ACTIVATE, left to the flushers
			 * (since the ->writepage removal). */
			if (file)
				goto activate_locked;
			if (!pageout(e, pfn, sc, &sync_time)) {
				stat->nr_pageout++;
				goto keep_locked;       /* in flight */
			}
			stat->nr_pageout++;
		}

		/* __remove_mapping: leave a shadow, free the folio. */
		workingset_eviction(e, pfn, sc->target_mem_cgroup);
		free_unref_folio(e, pfn);
		nr_reclaimed++;
		continue;

activate_locked:
		/* Not worth keeping a swap slot for a folio that stays. */
		if ((f->flags & PG_swapcache) && vm_swap_full(e))
			folio_free_swap(e, pfn);
		f->flags |= PG_active;
		stat->nr_activate[file]++;
keep_locked:
		list[keep++] = pfn;
	}
	count_vm_events(e, VM_pgactivate, stat->nr_activate[0] + stat->nr_activate[1]);
	reclaim_cpu(e, sync_time);
	*nr = keep;
	return nr_reclaimed;
}

/* move_folios_to_lru: put survivors back at the head of their lists;
 * active ones age the workingset clock.  Folios released by their owner
 * while isolated are freed here. */
void move_folios_to_lru(struct engine *e, uint32_t *list, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t pfn = list[i];
		struct folio *f = &e->folio[pfn];
		f->flags &= ~PG_isolated;
		if (f->flags & PG_freed) {
			f->flags &= ~PG_freed;
			free_unref_folio(e, pfn);
			continue;
		}
		lruvec_add_folio(e, folio_lruvec(e, pfn), pfn);
		if (f->flags & PG_active)
			workingset_age_nonresident(e, f->memcg, 1);
	}
}

/* ---- the classic LRU ------------------------------------------------------ */

/* isolate_lru_folios: take up to NR_TO_SCAN folios from the tail of LRU.
 * One zone, so nothing is skipped for its zone; a mapped folio when
 * unmapping is not allowed goes back to the head.  Returns the number
 * taken; *nr_scanned is the number examined.  The list's lru_size is
 * updated once for the batch (update_lru_size's sums are the same in
 * any order; nothing reads them meanwhile). */
static uint32_t isolate_lru_folios(struct engine *e, uint64_t nr_to_scan, struct lruvec *lv,
				   uint32_t *dst, uint64_t *nr_scanned, struct scan_control *sc,
				   enum lru_list lru)
{
	uint32_t nr_taken = 0, pfn;
	uint64_t scan = 0;
	while (scan < nr_to_scan && (pfn = lru_ring_pop_tail(e, &lv->list[lru], lv->memcg, lru)) != NIL) {
		struct folio *f = &e->folio[pfn];
		scan++;
		if (!sc->may_unmap && (f->flags & PG_mapped)) {
			lruvec_add_folio(e, lv, pfn);     /* rotate */
			continue;
		}
		f->flags |= PG_isolated;
		dst[nr_taken++] = pfn;
	}
	if (scan)
		update_lru_size(e, lv, lru, -(int64_t)scan);
	*nr_scanned = scan;
	return nr_taken;
}

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
		/* wait a bit for the reclaimer (sleeping flushes our plug). */
		stalled = 1;
		if (sc->sim.plug)
			blk_flush_plug(e, sc->sim.plug);
		reclaim_throttle(e, VMSCAN_THROTTLE_ISOLATED);
		/* We are about to die and free our memory. Return now. */
		if (fatal_signal_pending(e, sc->sim.task))
			return SWAP_CLUSTER_MAX;
	}

	uint32_t nr_taken = isolate_lru_folios(e, nr_to_scan, lv, list, &nr_scanned, sc, lru);
	mod_node_isolated(e, file, nr_taken);
	if (!cgroup_reclaim(sc))
		count_vm_events(e, current_is_kswapd(sc) ? VM_pgscan_kswapd : VM_pgscan_direct, nr_scanned);
	count_vm_events(e, file ? VM_pgscan_file : VM_pgscan_anon, nr_scanned);
	record_scanned(sc, nr_scanned);
	if (nr_taken == 0)
		return 0;

	reclaim_cpu(e, cost_shrink_batch(e, nr_scanned, list, nr_taken));

	struct reclaim_stat stat;
	uint32_t nr_survivors = nr_taken;
	uint64_t nr_reclaimed = shrink_folio_list(e, list, &nr_survivors, sc, &stat);
	move_folios_to_lru(e, list, nr_survivors);
	mod_node_isolated(e, file, -(int64_t)nr_taken);

	if (!cgroup_reclaim(sc))
		count_vm_events(e, current_is_kswapd(sc) ? VM_pgsteal_kswapd : VM_pgsteal_direct, nr_reclaimed);
	count_vm_events(e, file ? VM_pgsteal_file : VM_pgsteal_anon, nr_reclaimed);

	lru_note_cost(e, memcg, file, stat.nr_pageout, nr_scanned - nr_reclaimed);
	handle_reclaim_writeback(e, nr_taken, sc, &stat, file);
	return nr_reclaimed;
}

/* handle_reclaim_writeback: after shrink_folio_list of NR_TAKEN folios
 * (shrink_inactive_list, and MGLRU's evict_folios since the reclaim-loop
 * rework).  Dirty folios that nobody queued for IO: the flushers are
 * behind.  For cgroup v1, which has no dirty throttling, this is it: wait
 * for some writeback (and the folios marked now in shrink_folio_list).
 * Then the tallies shrink_node's throttling reads. */
void handle_reclaim_writeback(struct engine *e, uint64_t nr_taken, struct scan_control *sc,
			      const struct reclaim_stat *stat, int file)
{
	if (stat->nr_unqueued_dirty == nr_taken) {
		wakeup_flusher_threads(e);
		if (!writeback_throttling_sane(e, sc)) {
			if (sc->sim.plug)
				blk_flush_plug(e, sc->sim.plug);
			reclaim_throttle(e, VMSCAN_THROTTLE_WRITEBACK);
		}
	}

	sc->nr.dirty += stat->nr_dirty;
	sc->nr.congested += stat->nr_congested;
	sc->nr.unqueued_dirty += stat->nr_unqueued_dirty;
	sc->nr.writeback += stat->nr_writeback;
	sc->nr.immediate += stat->nr_immediate;
	sc->nr.taken += nr_taken;
	if (file)
		sc->nr.file_taken += nr_taken;
}

/* shrink_active_list: move folios from the active to the inactive list.
 * A referenced folio is deactivated anyway, except executable file pages,
 * which get another trip around the active list. */
void shrink_active_list(struct engine *e, uint64_t nr_to_scan, int memcg,
			struct scan_control *sc, enum lru_list lru)
{
	struct lruvec *lv = &e->memcgs[memcg].lruvec;
	int file = is_file_lru(lru);
	uint32_t list[SWAP_CLUSTER_MAX];
	uint64_t nr_scanned, nr_rotated = 0, nr_deactivate = 0;

	uint32_t nr_taken = isolate_lru_folios(e, nr_to_scan, lv, list, &nr_scanned, sc, lru);
	mod_node_isolated(e, file, nr_taken);
	if (!cgroup_reclaim(sc))
		count_vm_events(e, VM_pgrefill, nr_scanned);
	reclaim_cpu(e, nr_scanned * COST_ACTIVE_NS);

	for (uint32_t i = 0; i < nr_taken; i++) {
		uint32_t pfn = list[i];
		struct folio *f = &e->folio[pfn];
		uint32_t vm_exec;
		if (f->flags & PG_freed)
			continue;
		if (folio_referenced(e, pfn, sc, &vm_exec) && vm_exec && folio_is_file_lru(f)) {
			/* Executable code keeps its place: it is the working set. */
			nr_rotated++;
			continue;
		}
		f->flags &= ~PG_active;
		f->flags |= PG_workingset;
		nr_deactivate++;
	}
	move_folios_to_lru(e, list, nr_taken);
	mod_node_isolated(e, file, -(int64_t)nr_taken);
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

	if (lru_gen_enabled(e) && !root_reclaim(sc)) {
		lru_gen_shrink_lruvec(e, memcg, sc);
		return;
	}

	get_scan_count(e, memcg, sc, nr);
	memcpy(targets, nr, sizeof(nr));

	/* Global direct reclaim at the first priority scans its whole
	 * target: the LRU will be fairly aged even if the goal is met. */
	int proportional_reclaim = !cgroup_reclaim(sc) && !current_is_kswapd(sc) && sc->priority == DEF_PRIORITY;

	/* The RFC's goal: max(nr_to_reclaim, compact_gap(order)); order 0. */
	uint64_t goal = sc->nr_to_reclaim > 2 ? sc->nr_to_reclaim : 2;

	/* The swap writes of this pass wait in the plug until its end (or
	 * until the reclaimer sleeps, or the plug fills). */
	struct blk_plug plug;
	blk_start_plug(&plug);
	sc->sim.plug = &plug;
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
		if (patch_early_exit(e) && !cgroup_reclaim(sc) && sc->nr_reclaimed + nr_reclaimed >= goal)
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
	sc->sim.plug = NULL;
	blk_finish_plug(e, &plug);
	sc->nr_reclaimed += nr_reclaimed;

	record_lru_scan(sc, targets[LRU_INACTIVE_ANON] + targets[LRU_ACTIVE_ANON],
			targets[LRU_INACTIVE_FILE] + targets[LRU_ACTIVE_FILE],
			(targets[LRU_INACTIVE_ANON] - nr[LRU_INACTIVE_ANON]) +
			(targets[LRU_ACTIVE_ANON] - nr[LRU_ACTIVE_ANON]),
			(targets[LRU_INACTIVE_FILE] - nr[LRU_INACTIVE_FILE]) +
			(targets[LRU_ACTIVE_FILE] - nr[LRU_ACTIVE_FILE]));

	/* Even if we did not try to evict anon pages at all, we want to
	 * rebalance the anon lru active/inactive ratio. */
	if (can_age_anon_pages(e) && inactive_is_low(e, memcg, LRU_INACTIVE_ANON))
		shrink_active_list(e, SWAP_CLUSTER_MAX, memcg, sc, LRU_ACTIVE_ANON);
}

/* The memcgs under TARGET in pre-order (target first), as mem_cgroup_iter
 * visits them.  Children have higher indices than their parents. */
int memcg_is_under(const struct engine *e, int m, int target)
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
	int partial = !current_is_kswapd(sc) && !sc->memcg_full_walk;
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
		shrink_slab(e, m, sc->priority);

		if (patch_early_exit_memcg_walk(e, sc)) {
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
 * this pass, taken on the target lruvec (the root's for global reclaim);
 * MGLRU makes none of them. */
static void prepare_scan_control(struct engine *e, struct scan_control *sc)
{
	if (lru_gen_enabled(e))
		return;
	int target = sc->target_mem_cgroup < 0 ? 0 : sc->target_mem_cgroup;
	struct lruvec *tlv = &e->memcgs[target].lruvec;

	sc->anon_cost = tlv->anon_cost;
	sc->file_cost = tlv->file_cost;

	/* Deactivate active folios only when the inactive list is low or
	 * refaults show the active list is the workingset being thrashed. */
	if (!sc->force_deactivate) {
		if (tlv->stat_workingset_activate[LRU_ANON] != tlv->refaults[LRU_ANON] ||
		    inactive_is_low(e, target, LRU_INACTIVE_ANON))
			sc->may_deactivate |= DEACTIVATE_ANON;
		else
			sc->may_deactivate &= ~DEACTIVATE_ANON;
		if (tlv->stat_workingset_activate[LRU_FILE] != tlv->refaults[LRU_FILE] ||
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
	sc->cache_trim_mode = (file >> sc->priority) && !(sc->may_deactivate & DEACTIVATE_FILE) &&
			      !sc->no_cache_trim_mode;

	/* Prevent the reclaimer from falling into the cache trap: as cache
	 * pages start out inactive, every cache fault will tip the scan
	 * balance towards the file LRU.  And as the file LRU shrinks, so
	 * does the window for rotation from references.  Global only. */
	if (!cgroup_reclaim(sc)) {
		uint64_t free = e->node.nr_free;
		uint64_t nfile = node_page_state(e, LRU_ACTIVE_FILE) +
				 node_page_state(e, LRU_INACTIVE_FILE);
		uint64_t anon = node_page_state(e, LRU_INACTIVE_ANON);
		sc->file_is_tiny = nfile + free <= e->node.watermark[WMARK_HIGH] &&
				   !(sc->may_deactivate & DEACTIVATE_ANON) && (anon >> sc->priority);
	}
}

/* shrink_node: one pass over the node (root reclaim with MGLRU goes to
 * lru_gen_shrink_node), then the writeback and congestion bookkeeping
 * that decides whether reclaimers should slow down. */
void shrink_node(struct engine *e, struct scan_control *sc)
{
	struct pglist_data *pgdat = &e->node;

	memset(&sc->nr, 0, sizeof(sc->nr));
	if (lru_gen_enabled(e) && root_reclaim(sc)) {
		lru_gen_shrink_node(e, sc);
		return;
	}
	uint64_t nr_reclaimed = sc->nr_reclaimed;

	prepare_scan_control(e, sc);
	shrink_node_memcgs(e, sc);

	uint64_t node_reclaimed = sc->nr_reclaimed - nr_reclaimed;

	if (current_is_kswapd(sc)) {
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
		if (cgroup_reclaim(sc) && writeback_throttling_sane(e, sc))
			e->memcgs[target].lruvec.congested = 1;      /* LRUVEC_CGROUP_CONGESTED */
		if (current_is_kswapd(sc))
			e->memcgs[0].lruvec.congested = 1;           /* LRUVEC_NODE_CONGESTED */
	}
	/* Stall direct reclaimers on congestion rather than let them
	 * scan the LRU into the ground. */
	if (!current_is_kswapd(sc) && e->memcgs[target].lruvec.congested)
		reclaim_throttle(e, VMSCAN_THROTTLE_CONGESTED);

	/* should_continue_reclaim: only for reclaim/compaction (order > 0);
	 * never here.  The early-exit RFC's change to it is therefore a
	 * no-op on order-0 replays (DEVIATIONS.md). */

	if (node_reclaimed)
		pgdat->kswapd_failures = 0;
	else if (sc->cache_trim_mode)
		sc->cache_trim_mode_failed = 1;
}

/* ---- the drivers ------------------------------------------------------ */

int pgdat_balanced(const struct engine *e)
{
	return e->node.nr_free > e->node.watermark[WMARK_HIGH];
}

/* snapshot_refaults: remember the activation counters at the end of a
 * cycle, so the next one sees whether refaults happened since. */
void snapshot_refaults(struct engine *e, int target_memcg)
{
	struct lruvec *lv = &e->memcgs[target_memcg < 0 ? 0 : target_memcg].lruvec;
	lv->refaults[LRU_ANON] = lv->stat_workingset_activate[LRU_ANON];
	lv->refaults[LRU_FILE] = lv->stat_workingset_activate[LRU_FILE];
}

/* consider_reclaim_throttle: global direct reclaim that makes no progress
 * at priority 1 waits a jiffy for others to make some. */
static void consider_reclaim_throttle(struct engine *e, struct scan_control *sc)
{
	if (sc->nr_reclaimed > (sc->nr_scanned >> 3)) {
		sim_wake_all(&e->sim, &e->node.reclaim_wait[VMSCAN_THROTTLE_NOPROGRESS]);
		return;
	}
	if (current_is_kswapd(sc) || cgroup_reclaim(sc))
		return;
	if (sc->priority == 1 && !sc->nr_reclaimed)
		reclaim_throttle(e, VMSCAN_THROTTLE_NOPROGRESS);
}

/* do_try_to_free_pages: the priority loop of direct and memcg reclaim,
 * with its three retries (full memcg walk, forced deactivation, memory.low). */
static uint64_t do_try_to_free_pages(struct engine *e, struct scan_control *sc)
{
	int initial_priority = sc->priority;
retry:
	if (!cgroup_reclaim(sc))
		count_vm_events(e, VM_allocstall, 1);
	do {
		sc->nr_scanned = 0;
		/* shrink_zones: the one node. */
		shrink_node(e, sc);
		record_priority(sc);
		consider_reclaim_throttle(e, sc);
		if (sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
		/* compaction_ready: order 0 never needs compaction. */
		if (sc->priority < DEF_PRIORITY - 2)
			sc->may_writepage = 1;
	} while (--sc->priority >= 0);

	snapshot_refaults(e, sc->target_mem_cgroup);
	if (cgroup_reclaim(sc))
		e->memcgs[sc->target_mem_cgroup].lruvec.congested = 0;

	if (sc->nr_reclaimed)
		return sc->nr_reclaimed;
	/* Untapped memcgs behind a partial walk's cursor: walk them all. */
	if (!sc->memcg_full_walk) {
		sc->priority = initial_priority;
		sc->memcg_full_walk = 1;
		goto retry;
	}
	/* We skipped deactivation of active lists: force it. */
	if (sc->skipped_deactivate) {
		sc->priority = initial_priority;
		sc->force_deactivate = 1;
		sc->skipped_deactivate = 0;
		goto retry;
	}
	/* memory.low is not modelled: no third retry. */
	return 0;
}

void init_sc(struct scan_control *sc, uint32_t task)
{
	memset(sc, 0, sizeof(*sc));
	sc->priority = DEF_PRIORITY;
	sc->may_writepage = 1;        /* !laptop_mode */
	sc->may_unmap = 1;
	sc->may_swap = 1;
	sc->gfp_io_fs = 1;            /* GFP_HIGHUSER_MOVABLE allows IO and FS */
	sc->sim.task = task;
	sc->target_mem_cgroup = -1;
}

/* allow_direct_reclaim: is there still half the min reserve free?  A
 * hopeless kswapd lets everyone reclaim; a reclaimer that is held back
 * makes sure kswapd is awake. */
int allow_direct_reclaim(struct engine *e)
{
	if (e->node.kswapd_failures >= MAX_RECLAIM_RETRIES)
		return 1;
	int wmark_ok = e->node.nr_free > e->node.watermark[WMARK_MIN] / 2;
	if (!wmark_ok)
		wakeup_kswapd(e);
	return wmark_ok;
}

/* throttle_direct_reclaim: with the pfmemalloc reserve nearly gone, a
 * __GFP_FS direct reclaimer waits (killable, untimed) until kswapd has
 * restored it.  The wait is bounded here by a minute of virtual time, a
 * safety net for a replay that would otherwise stop (DEVIATIONS.md). */
static void throttle_direct_reclaim(struct engine *e, uint32_t task)
{
	if (fatal_signal_pending(e, task) || allow_direct_reclaim(e))
		return;
	count_vm_events(e, VM_pgscan_direct_throttle, 1);
	simtime_t until = e->sim.now + 60 * NSEC_PER_SEC;
	while (!allow_direct_reclaim(e) && !fatal_signal_pending(e, task) && e->sim.now < until)
		sim_wait(&e->sim, &e->pfmemalloc_wait, until - e->sim.now);
}

uint64_t try_to_free_pages(struct engine *e, uint32_t task)
{
	struct scan_control sc;
	init_sc(&sc, task);
	sc.nr_to_reclaim = SWAP_CLUSTER_MAX;
	throttle_direct_reclaim(e, task);
	record_reclaim_begin(e, &sc, RECLAIM_DIRECT);
	uint64_t nr = do_try_to_free_pages(e, &sc);
	record_reclaim_end(e, &sc);
	return nr;
}

uint64_t try_to_free_mem_cgroup_pages(struct engine *e, int memcg, uint64_t nr_pages, uint32_t task)
{
	struct scan_control sc;
	init_sc(&sc, task);
	sc.nr_to_reclaim = nr_pages > SWAP_CLUSTER_MAX ? nr_pages : SWAP_CLUSTER_MAX;
	sc.target_mem_cgroup = memcg;
	record_reclaim_begin(e, &sc, RECLAIM_MEMCG);
	uint64_t nr = do_try_to_free_pages(e, &sc);
	record_reclaim_end(e, &sc);
	return nr;
}
