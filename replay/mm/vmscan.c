/*
 * vmscan.c — the reclaim code every policy shares, after mm/vmscan.c:
 * shrink_folio_list and the per-folio decisions, isolation accounting and
 * reclaim_throttle, the drivers do_try_to_free_pages / try_to_free_pages /
 * try_to_free_mem_cgroup_pages, and kswapd's balance_pgdat.
 *
 * Order-0 only: compaction, high-order watermarks and
 * should_continue_reclaim's reclaim/compaction mode never apply (see
 * DEVIATIONS.md).
 */
#include "vmscan.h"
#include "mm_inline.h"
#include "policy.h"
#include "workingset.h"

#include <string.h>

/* ---- statistics ------------------------------------------------------ */

/* All four evictable lists of the memcg's subtree. */
static uint64_t lruvec_lru_pages(const struct engine *e, int memcg)
{
	const uint64_t *sz = e->memcgs[memcg].lruvec.subtree_size;
	return sz[0] + sz[1] + sz[2] + sz[3];
}

/* lru_note_cost: reclaim of TYPE cost NR_IO writes and NR_ROTATED
 * rotations; the cost ages (halves) once it exceeds a quarter of the
 * lruvec, for the lruvec and every ancestor. */
void lru_note_cost(struct engine *e, int memcg, int file, uint64_t nr_io, uint64_t nr_rotated)
{
	uint64_t cost = nr_io * SWAP_CLUSTER_MAX + nr_rotated;
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent) {
		struct lruvec *lv = &e->memcgs[m].lruvec;
		if (file)
			lv->file_cost += cost;
		else
			lv->anon_cost += cost;
		uint64_t lrusize = lruvec_lru_pages(e, m);
		if (lv->anon_cost + lv->file_cost > lrusize / 4) {
			lv->anon_cost /= 2;
			lv->file_cost /= 2;
		}
	}
}

/* can_reclaim_anon_pages: is there swap space left for this memcg? */
int can_reclaim_anon_pages(const struct engine *e, int memcg)
{
	(void)memcg;                 /* no memory.swap.max: the device's space */
	return e->swap_slots > e->swap_used;
}

void reclaim_spend(struct engine *e, simtime_t ns)
{
	if (ns && e->sim.current)
		sim_sleep(&e->sim, ns);
}

/* ---- throttling ------------------------------------------------------ */

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
	if (reason == VMSCAN_THROTTLE_WRITEBACK && !sim_waitq_active(&pgdat->reclaim_wait[reason]))
		pgdat->nr_reclaim_start = pgdat->nr_throttled_written;
	count_vm_events(e, VM_mm_vmscan_throttled, 1);
	sim_wait(&e->sim, &pgdat->reclaim_wait[reason], timeout[reason]);
}

/* too_many_isolated: more folios of this type are isolated than an
 * eighth of the inactive list (the full list for GFP_NOIO/NOFS callers). */
int too_many_isolated(struct engine *e, int file, struct scan_control *sc)
{
	if (sc->kswapd)
		return 0;
	/* writeback_throttling_sane: cgroup v2 semantics (DEVIATIONS.md). */
	uint64_t inactive = lruvec_page_state(e, 0, file ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON);
	uint64_t isolated = e->node.nr_isolated[file];
	if (sc->gfp_io_fs)
		inactive >>= 3;
	int too_many = isolated > inactive;
	if (!too_many)
		sim_wake_all(&e->sim, &e->node.reclaim_wait[VMSCAN_THROTTLE_ISOLATED]);
	return too_many;
}

/* ---- per-folio decisions -------------------------------------------- */

/* folio_referenced: test and clear the young bit of the folio's mapping.
 * One mapping per folio (DEVIATIONS.md): returns 0 or 1. */
int folio_referenced(struct engine *e, uint32_t pfn, uint32_t *vm_exec)
{
	struct folio *f = &e->folio[pfn];
	*vm_exec = 0;
	if (!(f->flags & PG_mapped))
		return 0;
	int young = !!(f->flags & PG_young);
	f->flags &= ~PG_young;
	if (young && (f->flags & PG_exec))
		*vm_exec = 1;
	return young;
}

enum folio_references folio_check_references(struct engine *e, uint32_t pfn,
					     struct scan_control *sc)
{
	struct folio *f = &e->folio[pfn];
	uint32_t vm_exec;
	(void)sc;
	int referenced_ptes = folio_referenced(e, pfn, &vm_exec);
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
 * is in flight (PG_writeback; it comes back to the tail when done). */
static int pageout(struct engine *e, uint32_t pfn, simtime_t *sync_time)
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
		*sync_time += backing_submit(dev, e->sim.now, dev->p.write_ns,
					     (uint32_t)engine_rand(e, 1ull << 32)) - e->sim.now;
		f->flags &= ~PG_reclaim;
		return 1;
	}
	engine_start_writeback(e, pfn);
	return 0;
}

/* shrink_folio_list: decide the fate of each isolated folio.  Survivors
 * stay in LIST (compacted to the front) for move_folios_to_lru; the
 * count of survivors is returned through *nr. */
uint64_t shrink_folio_list(struct engine *e, uint32_t *list, uint32_t nr, struct scan_control *sc,
			   struct reclaim_stat *stat)
{
	uint64_t nr_reclaimed = 0;
	uint32_t keep = 0;
	simtime_t sync_time = 0;
	memset(stat, 0, sizeof(*stat));

	for (uint32_t i = 0; i < nr; i++) {
		uint32_t pfn = list[i];
		struct folio *f = &e->folio[pfn];
		int file = folio_is_file_lru(f);
		enum folio_references references = FOLIOREF_RECLAIM;

		if (f->flags & PG_freed) {
			/* Its owner released it while we held it: the last
			 * reference is ours, so it is simply freed. */
			list[keep++] = pfn;
			continue;
		}
		sc->nr_scanned++;

		if (!sc->may_unmap && (f->flags & PG_mapped))
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
			if (sc->kswapd && (f->flags & PG_reclaim) && e->node.pgdat_writeback) {
				stat->nr_immediate++;
				goto activate_locked;
			}
			/* Case 2: mark it for immediate reclaim and continue
			 * scanning (writeback throttling is sane here). */
			f->flags |= PG_reclaim;
			stat->nr_writeback++;
			goto activate_locked;
		}

		references = e->policy->folio_check_references ?
			     e->policy->folio_check_references(e, pfn, sc) :
			     folio_check_references(e, pfn, sc);
		switch (references) {
		case FOLIOREF_ACTIVATE:
			goto activate_locked;
		case FOLIOREF_KEEP:
			stat->nr_ref_keep++;
			goto keep_locked;
		case FOLIOREF_RECLAIM:
		case FOLIOREF_RECLAIM_CLEAN:
			break;
		}

		/* Anonymous folio not yet in the swap cache: give it a slot. */
		if (!file && !(f->flags & PG_swapcache)) {
			if (!sc->gfp_io_fs)
				goto keep_locked;
			if (!engine_alloc_swap(e, pfn))
				goto activate_locked;   /* swap full */
			f->flags |= PG_swapcache | PG_dirty;
		}

		/* try_to_unmap: the single mapping goes away. */
		if (f->flags & PG_mapped)
			f->flags &= ~(PG_mapped | PG_young);

		if (f->flags & PG_dirty) {
			/* Only kswapd writes file folios, and only those it met
			 * before on a node full of dirty pages; the flushers
			 * write the rest. */
			if (file && (!sc->kswapd || !(f->flags & PG_reclaim) || !e->node.pgdat_dirty)) {
				count_vm_events(e, VM_nr_vmscan_immediate_reclaim, 1);
				f->flags |= PG_reclaim;
				goto activate_locked;
			}
			if (references == FOLIOREF_RECLAIM_CLEAN)
				goto keep_locked;
			if (!sc->may_writepage)
				goto keep_locked;
			if (!pageout(e, pfn, &sync_time)) {
				stat->nr_pageout++;
				goto keep_locked;       /* in flight */
			}
			stat->nr_pageout++;
		}

		/* __remove_mapping: leave a shadow, free the folio. */
		e->policy->workingset_eviction(e, pfn, sc->target_mem_cgroup);
		engine_free_folio(e, pfn);
		nr_reclaimed++;
		continue;

activate_locked:
		/* Not worth keeping a swap slot for a folio that stays. */
		if ((f->flags & PG_swapcache) && e->swap_used * 2 > e->swap_slots)
			engine_free_swap(e, pfn);
		f->flags |= PG_active;
		stat->nr_activate[file]++;
keep_locked:
		list[keep++] = pfn;
	}
	count_vm_events(e, VM_pgactivate, stat->nr_activate[0] + stat->nr_activate[1]);
	reclaim_spend(e, sync_time);
	/* Survivors are at the front of the list. */
	sc->nr_survivors = keep;
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
			engine_free_folio(e, pfn);
			continue;
		}
		lruvec_add_folio(e, folio_lruvec(e, pfn), pfn);
		if (f->flags & PG_active)
			workingset_age_nonresident(e, f->memcg, 1);
	}
}

/* ---- the drivers ------------------------------------------------------ */

int pgdat_balanced(const struct engine *e)
{
	return e->node.nr_free > e->node.watermark[WMARK_HIGH];
}

/* consider_reclaim_throttle: global direct reclaim that makes no progress
 * at priority 1 waits a jiffy for others to make some. */
static void consider_reclaim_throttle(struct engine *e, struct scan_control *sc)
{
	if (sc->nr_reclaimed > (sc->nr_scanned >> 3)) {
		sim_wake_all(&e->sim, &e->node.reclaim_wait[VMSCAN_THROTTLE_NOPROGRESS]);
		return;
	}
	if (sc->kswapd || cgroup_reclaim(sc))
		return;
	if (sc->priority == 1 && !sc->nr_reclaimed)
		reclaim_throttle(e, VMSCAN_THROTTLE_NOPROGRESS);
}

static void record_begin(struct engine *e, struct scan_control *sc, struct reclaim_record *r,
			 enum reclaim_kind kind)
{
	memset(r, 0, sizeof(*r));
	r->start = e->sim.now;
	r->task = sc->task;
	r->kind = (uint8_t)kind;
	r->priority = DEF_PRIORITY;
	sc->rec = r;
}

static void record_end(struct engine *e, struct scan_control *sc, struct reclaim_record *r)
{
	r->duration = e->sim.now - r->start;
	r->nr_scanned = sc->total_scanned;
	r->nr_reclaimed = sc->nr_reclaimed;
	engine_record(e, r);
	sc->rec = NULL;
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
		e->policy->shrink_node(e, sc);
		if (sc->rec && sc->priority < sc->rec->priority)
			sc->rec->priority = (int8_t)sc->priority;
		consider_reclaim_throttle(e, sc);
		if (sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
		/* compaction_ready: order 0 never needs compaction. */
		if (sc->priority < DEF_PRIORITY - 2)
			sc->may_writepage = 1;
	} while (--sc->priority >= 0);

	if (e->policy->snapshot_refaults)
		e->policy->snapshot_refaults(e, sc->target_mem_cgroup);
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

static void init_sc(struct scan_control *sc, uint32_t task)
{
	memset(sc, 0, sizeof(*sc));
	sc->priority = DEF_PRIORITY;
	sc->may_writepage = 1;        /* !laptop_mode */
	sc->may_unmap = 1;
	sc->may_swap = 1;
	sc->gfp_io_fs = 1;            /* GFP_HIGHUSER_MOVABLE allows IO and FS */
	sc->task = task;
	sc->target_mem_cgroup = -1;
}

/* allow_direct_reclaim: is there still half the min reserve free? */
static int allow_direct_reclaim(const struct engine *e)
{
	return e->node.nr_free > e->node.watermark[WMARK_MIN] / 2;
}

/* throttle_direct_reclaim: with the pfmemalloc reserve nearly gone,
 * direct reclaimers wait (up to HZ) for kswapd to restore it. */
static void throttle_direct_reclaim(struct engine *e)
{
	if (allow_direct_reclaim(e))
		return;
	count_vm_events(e, VM_pgscan_direct_throttle, 1);
	wakeup_kswapd(e);
	sim_wait(&e->sim, &e->pfmemalloc_wait, NSEC_PER_SEC);
}

uint64_t try_to_free_pages(struct engine *e, uint32_t task)
{
	struct scan_control sc;
	struct reclaim_record r;
	init_sc(&sc, task);
	sc.nr_to_reclaim = SWAP_CLUSTER_MAX;
	sc.early_exit = e->policy->early_exit;
	sc.early_exit_memcg_walk = e->policy->early_exit;
	throttle_direct_reclaim(e);
	record_begin(e, &sc, &r, RECLAIM_DIRECT);
	uint64_t nr = do_try_to_free_pages(e, &sc);
	record_end(e, &sc, &r);
	return nr;
}

uint64_t try_to_free_mem_cgroup_pages(struct engine *e, int memcg, uint64_t nr_pages, uint32_t task)
{
	struct scan_control sc;
	struct reclaim_record r;
	init_sc(&sc, task);
	sc.nr_to_reclaim = nr_pages > SWAP_CLUSTER_MAX ? nr_pages : SWAP_CLUSTER_MAX;
	sc.target_mem_cgroup = memcg;
	sc.early_exit = e->policy->early_exit;
	sc.early_exit_memcg_walk = e->policy->early_exit;
	record_begin(e, &sc, &r, RECLAIM_MEMCG);
	uint64_t nr = do_try_to_free_pages(e, &sc);
	record_end(e, &sc, &r);
	return nr;
}

/* ---- kswapd ----------------------------------------------------------- */

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
 * when nothing is reclaimed (classic only; a policy without it passes). */
static void kswapd_age_node(struct engine *e, struct scan_control *sc)
{
	if (e->policy->age_node)
		e->policy->age_node(e, sc);
}

/* kswapd_shrink_node: reclaim toward the high watermark; reports whether
 * enough was scanned that priority need not rise. */
static int kswapd_shrink_node(struct engine *e, struct scan_control *sc)
{
	uint64_t high = e->node.watermark[WMARK_HIGH];
	sc->nr_to_reclaim = high > SWAP_CLUSTER_MAX ? high : SWAP_CLUSTER_MAX;
	e->policy->shrink_node(e, sc);
	return sc->nr_scanned >= sc->nr_to_reclaim;
}

/* balance_pgdat: reclaim until the node is balanced (free above the high
 * watermark), raising the priority when a pass reclaims too little. */
static void balance_pgdat(struct engine *e)
{
	struct scan_control sc;
	struct reclaim_record r;
	init_sc(&sc, UINT32_MAX);
	sc.kswapd = 1;
	sc.early_exit = e->policy->early_exit;
	sc.early_exit_memcg_walk = e->policy->early_exit && !e->policy->early_exit_direct_only;
	count_vm_events(e, VM_pageoutrun, 1);
	record_begin(e, &sc, &r, RECLAIM_KSWAPD);
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
		if (sc.priority < r.priority)
			r.priority = (int8_t)sc.priority;
		if (sim_waitq_active(&e->pfmemalloc_wait) && allow_direct_reclaim(e))
			sim_wake_all(&e->sim, &e->pfmemalloc_wait);
		nr_reclaimed = sc.nr_reclaimed - nr_reclaimed;
		if (raise_priority || !nr_reclaimed)
			sc.priority--;
	} while (sc.priority >= 1);
	if (!sc.nr_reclaimed)
		e->node.kswapd_failures++;
	if (e->policy->snapshot_refaults)
		e->policy->snapshot_refaults(e, -1);
	record_end(e, &sc, &r);
}

/* prepare_kswapd_sleep: balanced, or hopeless. */
static int prepare_kswapd_sleep(struct engine *e)
{
	if (e->node.kswapd_failures >= MAX_RECLAIM_RETRIES)
		return 1;
	if (pgdat_balanced(e)) {
		/* clear_pgdat_congested: the node is fine again. */
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
