/*
 * swap.c — the LRU side of mm/swap.c: adding folios to the LRU,
 * activation, the two-touch rule of folio_mark_accessed, rotation after
 * writeback, and the reclaim cost that balances anon against file
 * (lru_note_cost).  MGLRU is entered where the kernel enters it.
 *
 * Left out (DEVIATIONS.md): the per-CPU folio batches (a folio is on its
 * list at once), unevictable and mlocked folios.
 */
#include "internal.h"

/* folio_add_lru: new folios start inactive unless workingset_refault
 * activated them; with MGLRU a folio added inside a page fault (the
 * trace's LOAD/STORE faults, not read()) is made active, so that it
 * lands in max_seq - 1 (see lru_gen_folio_seq). */
void folio_add_lru(struct engine *e, uint32_t pfn)
{
	if (lru_gen_enabled(e) && lru_gen_in_fault(e))
		e->folio[pfn].flags |= PG_active;
	lruvec_add_folio(e, folio_lruvec(e, pfn), pfn);
	workingset_update_node(e, pfn);     /* a folio in its node now */
}

/* folio_activate -> lru_activate: move an inactive folio to the head of
 * its active list (with MGLRU: re-add with PG_active, into max_seq). */
void folio_activate(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if ((f->flags & PG_active) || !(f->flags & PG_lru))
		return;
	struct lruvec *lv = folio_lruvec(e, pfn);
	lruvec_del_folio(e, lv, pfn);
	f->flags |= PG_active;
	lruvec_add_folio(e, lv, pfn);
	count_vm_events(e, VM_pgactivate, 1);
}

/* folio_mark_accessed: the two-touch rule for accesses through syscalls.
 *   inactive,unreferenced -> inactive,referenced
 *   inactive,referenced   -> active,unreferenced
 *   active,unreferenced   -> active,referenced
 * MGLRU counts the access in the folio's tier instead (lru_gen_inc_refs). */
void folio_mark_accessed(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (lru_gen_enabled(e)) {
		lru_gen_inc_refs(e, pfn);
		return;
	}
	if (!(f->flags & PG_referenced)) {
		f->flags |= PG_referenced;
	} else if (!(f->flags & PG_active)) {
		/* An isolated folio is not on an LRU: there is nothing to
		 * move (__lru_cache_activate_folio finds it in no batch). */
		folio_activate(e, pfn);
		f->flags &= ~PG_referenced;
		workingset_activation(e, pfn);
	}
}

/* folio_rotate_reclaimable -> lru_move_tail: writeback ended on a folio
 * reclaim wanted: put it at the tail of the inactive list (the oldest
 * generation with MGLRU), next in line. */
void folio_rotate_reclaimable(struct engine *e, uint32_t pfn)
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

/* All four evictable lists of the memcg's subtree, as its statistics
 * say (lruvec_page_state). */
static uint64_t lruvec_lru_pages(const struct engine *e, int memcg)
{
	const uint64_t *sz = e->memcgs[memcg].lruvec.stat;
	return sz[0] + sz[1] + sz[2] + sz[3];
}

/* lru_note_cost: reclaim of TYPE cost NR_IO writes and NR_ROTATED
 * rotations; the cost ages (halves) once it exceeds a quarter of the
 * lruvec, for the lruvec and every ancestor.  No cost, no ageing. */
void lru_note_cost(struct engine *e, int memcg, int file, uint64_t nr_io, uint64_t nr_rotated)
{
	uint64_t cost = nr_io * SWAP_CLUSTER_MAX + nr_rotated;
	if (!cost)
		return;
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

/* lru_note_cost_refault: a refault of a workingset folio costs IO. */
void lru_note_cost_refault(struct engine *e, uint32_t pfn)
{
	lru_note_cost(e, e->folio[pfn].memcg, folio_is_file_lru(&e->folio[pfn]), 1, 0);
}
