/*
 * huge_memory.c — the anonymous THP fault, after mm/huge_memory.c
 * (do_huge_pmd_anonymous_page, vma_alloc_anon_folio_pmd,
 * __do_huge_pmd_anonymous_page, vma_thp_gfp_mask).
 *
 * Which faults are THP faults is ingest's decision, made as
 * __handle_mm_fault makes it (replay/ingest/kdemand.c thp_fault, the
 * records flagged VMR_F_HUGE).  Left out (DEVIATIONS.md, "anonymous huge
 * pages"): once in, the folio's pages are order-0 folios of their own
 * (reclaim sees 512 pages, not one folio: the folio-size row); its
 * allocation from the node takes no direct reclaim or compaction.
 */
#include "internal.h"

#include <string.h>

/* vma_thp_gfp_mask: "always" stalls for every THP (NORETRY where not
 * madvised), "defer" never (kswapd and kcompactd only), "defer+madvise"
 * and "madvise" for a VM_HUGEPAGE VMA only, "never" never.  Only the
 * bits the charge reads: what the defer modes add (__GFP_KSWAPD_RECLAIM)
 * wakes kswapd for the node, which a memcg charge never does. */
unsigned vma_thp_gfp_mask(const char *defrag, int madvised)
{
	if (strcmp(defrag, "always") == 0)
		return GFP_DIRECT_RECLAIM | (madvised ? 0 : GFP_NORETRY);
	if (strcmp(defrag, "defer+madvise") == 0 || strcmp(defrag, "madvise") == 0)
		return madvised ? GFP_DIRECT_RECLAIM : 0;
	return 0;
}

/* Would the THP's charge reclaim (so block)?  The test the engine's
 * inline path makes before anything changes (memory.c needs_slowpath). */
static int thp_charge_blocks(const struct engine *e, int memcg, uint64_t nr)
{
	if (!(e->p.thp_gfp & GFP_DIRECT_RECLAIM))
		return 0;                      /* fails at once instead */
	return !mem_cgroup_charge_fits(e, memcg, nr);
}

/* The write fault at PFN on a PMD range ingest found none of: its folio
 * is PFN .. PFN + HPAGE_PMD_NR - 1 (the range's other pages' ids run on
 * from the faulting page's).  vma_alloc_anon_folio_pmd allocates the
 * folio (vma_alloc_folio: here from the node's free pages above the low
 * watermark, as get_page_from_freelist's first try) and charges it in
 * one charge (mem_cgroup_charge → try_charge_memcg with nr_pages 512 and
 * the VMA's gfp, vma_thp_gfp_mask); where either fails the folio goes
 * back and the fault falls back to a base page (THP_FAULT_FALLBACK,
 * THP_FAULT_FALLBACK_CHARGE: VM_FAULT_FALLBACK, then do_anonymous_page).
 * Otherwise map_anon_folio_pmd maps all of it: one fault, every page a
 * new anonymous page, dirty, young, on the LRU (folio_add_lru_vma) in
 * the fault (lru_gen_in_fault).  Returns 1 done, 0 killed, -1 must
 * block (outside a coroutine: nothing changed), VM_FAULT_FALLBACK. */
int do_huge_pmd_anonymous_page(struct engine *e, struct task_state *t, uint32_t pfn)
{
	uint32_t nr = e->hpage_pmd_nr;
	int memcg = folio_charge_memcg(e, t, pfn);
	if (!e->sim.current && thp_charge_blocks(e, memcg, nr))
		return -1;
	t->thp_head = pfn;
	t->thp_left = nr - 1;
	if (nr > e->nr_folios || pfn > e->nr_folios - nr)
		return VM_FAULT_FALLBACK;      /* a damaged range: not one folio */
	for (uint32_t i = 0; i < nr; i++)
		if (e->folio[pfn + i].flags & (PG_resident | PG_locked))
			return VM_FAULT_FALLBACK;
	struct pglist_data *pgdat = &e->node;
	if (pgdat->nr_free < pgdat->watermark[WMARK_LOW] + nr)
		return VM_FAULT_FALLBACK;
	pgdat->nr_free -= nr;
	int r = try_charge_memcg(e, t, memcg, nr, e->p.thp_gfp);
	if (r != 1) {
		pgdat->nr_free += nr;          /* folio_put */
		return r == ALLOC_NOMEM ? VM_FAULT_FALLBACK : r;
	}
	count_vm_events(e, VM_pgalloc, nr);
	count_vm_events(e, VM_pgfault, 1);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t p = pfn + i;
		struct folio *f = &e->folio[p];
		f->memcg = (uint16_t)memcg;
		if (f->owner != t->proc)
			mm_adopt_page(e, t->proc, p);
		f->owner = t->proc;
		e->procs[t->proc].rss++;
		f->flags |= PG_resident | PG_seen | PG_swapbacked | PG_mapped | PG_young;
		f->flags &= ~(PG_active | PG_referenced | PG_workingset);
		folio_mark_dirty(e, p);
		e->in_lru_fault = 1;
		folio_add_lru(e, p);
		e->in_lru_fault = 0;
	}
	return 1;
}
