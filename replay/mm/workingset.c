/*
 * workingset.c — refault detection for the classic LRU (mm/workingset.c).
 *
 * Each lruvec has a clock, nonresident_age, that advances on evictions
 * and activations.  An evicted folio leaves a shadow entry with the clock
 * value (and whether it was in the workingset); when it faults back in,
 * the distance the clock moved meanwhile is the number of pages that
 * were evicted or activated in between — its refault distance.  If that
 * is within the memory that could have held it, the folio is activated.
 */
#include "workingset.h"
#include "mm_inline.h"

/* The shadow's token is the clock modulo 2^32 (EVICTION_MASK: the kernel
 * also packs a truncated clock into the shadow entry). */
#define EVICTION_MASK 0xffffffffull

/* workingset_age_nonresident: the lruvec and every ancestor age. */
void workingset_age_nonresident(struct engine *e, int memcg, uint64_t nr)
{
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		e->memcgs[m].lruvec.nonresident_age += nr;
}

/* workingset_activation: folio_mark_accessed activated a folio. */
void workingset_activation(struct engine *e, uint32_t pfn)
{
	workingset_age_nonresident(e, e->folio[pfn].memcg, 1);
}

/* workingset_eviction: the shadow reads the clock of the lruvec that
 * drove reclaim (the target memcg, the root for global reclaim). */
void workingset_eviction(struct engine *e, uint32_t pfn, int target_memcg)
{
	struct folio *f = &e->folio[pfn];
	int m = target_memcg < 0 ? 0 : target_memcg;
	struct lruvec *lv = &e->memcgs[m].lruvec;
	f->shadow = (uint32_t)(lv->nonresident_age & EVICTION_MASK);
	f->shadow_memcg = (uint16_t)m;
	f->flags |= PG_shadow;
	if (f->flags & PG_workingset)
		f->flags |= PG_shadow_ws;
	else
		f->flags &= ~PG_shadow_ws;
	workingset_age_nonresident(e, m, 1);
}

/* Counts a workingset event on the folio's lruvec and its ancestors,
 * as memcg statistics are hierarchical. */
static void count_ws(struct engine *e, int memcg, int file)
{
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		e->memcgs[m].lruvec.workingset_activate[file]++;
}

/* lru_note_cost_refault: a refault of a workingset folio costs IO. */
static void lru_note_cost_refault(struct engine *e, uint32_t pfn)
{
	lru_note_cost(e, e->folio[pfn].memcg, folio_is_file_lru(&e->folio[pfn]), 1, 0);
}

/* workingset_refault: called when a folio with a shadow is faulted back
 * in (not for buffered writes).  Sets PG_active / PG_workingset before
 * the folio is added to the LRU. */
void workingset_refault(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	int file = folio_is_file_lru(f);
	if (!(f->flags & PG_shadow))
		return;
	f->flags &= ~PG_shadow;
	count_vm_events(e, file ? VM_workingset_refault_file : VM_workingset_refault_anon, 1);

	int em = f->shadow_memcg;
	struct lruvec *eviction_lruvec = &e->memcgs[em].lruvec;
	uint64_t refault_distance = (eviction_lruvec->nonresident_age - f->shadow) & EVICTION_MASK;

	/* The memory this folio competed for: the active file list, the
	 * inactive file list for anon refaults, and the anon lists when
	 * anon can be swapped (workingset_test_recent). */
	uint64_t workingset_size = lruvec_page_state(e, em, LRU_ACTIVE_FILE);
	if (!file)
		workingset_size += lruvec_page_state(e, em, LRU_INACTIVE_FILE);
	if (e->swap_slots > e->swap_used) {
		workingset_size += lruvec_page_state(e, em, LRU_ACTIVE_ANON);
		if (file)
			workingset_size += lruvec_page_state(e, em, LRU_INACTIVE_ANON);
	}
	if (refault_distance > workingset_size)
		return;

	f->flags |= PG_active;
	workingset_age_nonresident(e, f->memcg, 1);
	count_vm_events(e, file ? VM_workingset_activate_file : VM_workingset_activate_anon, 1);
	count_ws(e, f->memcg, file);
	if (f->flags & PG_shadow_ws) {
		f->flags |= PG_workingset;
		lru_note_cost_refault(e, pfn);
		count_vm_events(e, file ? VM_workingset_restore_file : VM_workingset_restore_anon, 1);
	}
}
