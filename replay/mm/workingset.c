/*
 * workingset.c — refault detection, after mm/workingset.c: the shadow
 * an evicted folio leaves, and what its refault says (activation,
 * restore, the cost that tilts reclaim).  Classic: the lruvec's
 * nonresident_age clock and the refault distance.  MGLRU
 * (lru_gen_eviction, lru_gen_refault, entered where the kernel enters
 * them): the generation the folio was evicted from and its tier, which
 * feed the PID controller.
 *
 * Left out (DEVIATIONS.md): the shadow nodes' own shrinker (shadows are
 * kept as long as their page id), and the memcg statistics' flush delay
 * (the refault distance reads exact sizes).
 */
#include "internal.h"
#include "vmscan.h"

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

/* ---- MGLRU ----------------------------------------------------------- */

/* lru_gen_eviction: the shadow names the folio's own lruvec (not the
 * reclaim target), the oldest generation of its type and its fd access
 * count; the eviction feeds the PID controller. */
static void lru_gen_eviction(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	struct lru_gen_folio *lrugen = mglru_lruvec(e, f->memcg);
	int type = folio_is_file_lru(f);
	int refs = folio_lru_refs(f);
	int ws = !!(f->flags & PG_workingset);
	int tier = lru_tier_from_refs(refs, ws);
	uint64_t min_seq = lrugen->min_seq[type];

	uint64_t token = (min_seq << LRU_REFS_WIDTH) | (uint64_t)(refs > 1 ? refs - 1 : 0);
	lrugen->evicted[lru_hist_from_seq(min_seq)][type][tier]++;
	f->shadow = (uint32_t)(token & EVICTION_MASK);
	f->shadow_memcg = f->memcg;
	f->flags |= PG_shadow;
	if (ws)
		f->flags |= PG_shadow_ws;
	else
		f->flags &= ~PG_shadow_ws;
	f->gen_refs = 0;
}

/* lru_gen_test_recent: within MAX_NR_GENS of the evicting lruvec's max_seq. */
static int lru_gen_test_recent(const struct lru_gen_folio *lrugen, uint32_t token)
{
	uint64_t max_seq = lrugen->max_seq & (EVICTION_MASK >> LRU_REFS_WIDTH);
	uint64_t seq = token >> LRU_REFS_WIDTH;
	uint64_t d = max_seq > seq ? max_seq - seq : seq - max_seq;
	return d < MAX_NR_GENS;
}

/* lru_gen_refault: only a refault into the lruvec that evicted it counts;
 * a recent one feeds the PID controller and restores PG_workingset. */
static void lru_gen_refault(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	int type = folio_is_file_lru(f);

	f->gen_refs = 0;             /* a new folio: no gen, no refs */
	if (!(f->flags & PG_shadow))
		return;
	f->flags &= ~PG_shadow;
	if (f->shadow_memcg != f->memcg)
		return;
	struct lru_gen_folio *lrugen = mglru_lruvec(e, f->shadow_memcg);
	int recent = lru_gen_test_recent(lrugen, f->shadow);
	int ws = !!(f->flags & PG_shadow_ws);

	count_vm_events(e, type ? VM_workingset_refault_file : VM_workingset_refault_anon, 1);
	if (!recent)
		return;
	int refs = (int)(f->shadow & ((1u << LRU_REFS_WIDTH) - 1)) + 1;
	int tier = lru_tier_from_refs(refs, ws);
	lrugen->refaulted[lru_hist_from_seq(lrugen->min_seq[type])][type][tier]++;
	/* workingset_activate counts a recent refault in a page fault. */
	if (lru_gen_in_fault(e))
		count_vm_events(e, type ? VM_workingset_activate_file : VM_workingset_activate_anon, 1);
	if (ws) {
		f->flags |= PG_workingset;
		count_vm_events(e, type ? VM_workingset_restore_file : VM_workingset_restore_anon, 1);
	} else {
		/* The refs bits without PG_referenced: inert (reclaim-model §5.2). */
		f->gen_refs = (uint8_t)((f->gen_refs & 0xf0) | (refs - 1));
	}
}

/* ---- the classic LRU ----------------------------------------------------- */

/* workingset_eviction: the shadow reads the clock of the lruvec that
 * drove reclaim (the target memcg, the root for global reclaim). */
void workingset_eviction(struct engine *e, uint32_t pfn, int target_memcg)
{
	if (lru_gen_enabled(e)) {
		lru_gen_eviction(e, pfn);
		return;
	}
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
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent) {
		e->memcgs[m].lruvec.workingset_activate[file]++;
		e->memcgs[m].lruvec.stats_updates++;
	}
}

/* workingset_refault: called when a folio with a shadow is faulted back
 * in (not for buffered writes).  Sets PG_active / PG_workingset before
 * the folio is added to the LRU. */
void workingset_refault(struct engine *e, uint32_t pfn)
{
	if (lru_gen_enabled(e)) {
		lru_gen_refault(e, pfn);
		return;
	}
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
