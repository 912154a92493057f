/*
 * rmap.c — the PTEs of a folio, after mm/rmap.c: folio_add_file_rmap_pte
 * (a file folio mapped by each address space that faults it),
 * try_to_unmap, and folio_referenced, which tests and clears the accessed
 * bit of every PTE and, with MGLRU, looks around a young one
 * (lru_gen_look_around), as folio_referenced_one does; and an exiting
 * process's file PTEs taken down (zap_file_ptes: mm/memory.c's
 * zap_pte_range, folio_remove_rmap_ptes here, on struct folio_ptes).
 *
 * Left out (DEVIATIONS.md): an anonymous folio has one PTE, its owner's;
 * a file folio's PTEs beyond the first address space's share one accessed
 * bit (struct folio_ptes), so folio_referenced returns 0, 1 or 2.
 */
#include "internal.h"

#include <stdlib.h>

int folio_pte_present(const struct engine *e, uint32_t pfn, uint32_t proc)
{
	return folio_pte_of(e, pfn, proc) != 0;
}

/* A touch the trace shows: the accessed bit of PROC's PTE is set
 * (handle_pte_fault's pte_mkyoung; under UML a touch through an old PTE
 * faults, the host mapping it inaccessible). */
int folio_pte_mkyoung(struct engine *e, uint32_t pfn, uint32_t proc)
{
	switch (folio_pte_of(e, pfn, proc)) {
	case 1:
		e->folio[pfn].flags |= PG_young;
		return 1;
	case 2:
		e->ptes[pfn].other |= PTES_YOUNG;
		return 1;
	}
	return 0;
}

/* folio_add_file_rmap_pte: the mapcount goes up by PROC's PTE, set young
 * (do_set_pte / set_pte_range: a fault's PTE, or fault-around's, whose
 * prefaulted PTEs are young on x86 and UML).  A third address space's PTE
 * joins the second's: its first touch then neither counts a fault nor
 * faults around. */
/* PROC's page table holds a PTE of PFN now: noted for its exit. */
static void note_file_pte(struct engine *e, uint32_t proc, uint32_t pfn)
{
	if (proc >= e->nr_procs)
		return;             /* an address space no process of the trace has */
	struct process *pr = &e->procs[proc];
	pfn_list_add(e, &pr->file_ptes, &pr->nr_file_ptes, &pr->cap_file_ptes, pfn);
}

int folio_add_file_rmap_pte(struct engine *e, uint32_t pfn, uint32_t proc)
{
	struct folio *f = &e->folio[pfn];
	struct folio_ptes *p = &e->ptes[pfn];
	if (!(f->flags & PG_mapped)) {
		f->flags |= PG_mapped | PG_young;
		p->first = proc;
		p->other = 0;
		note_file_pte(e, proc, pfn);
		return 1;
	}
	int own = !p->other;
	if (own) {
		p->other = proc + 1;
		note_file_pte(e, proc, pfn);
	}
	p->other |= PTES_YOUNG;
	return own;
}

/* exit_mmap -> unmap_vmas -> zap_pte_range: the exiting PROC's PTEs of
 * file folios are cleared, and a young one marks its folio accessed
 * (zap_present_folio_ptes: folio_mark_accessed where the VMA has
 * recency), so that a folio no live process maps is unmapped, with at
 * most PG_referenced of its last use: reclaim then finds no young PTE
 * (folio_check_references: FOLIOREF_RECLAIM_CLEAN, not ACTIVATE or
 * KEEP).  Where PROC held the first PTE and another address space maps
 * the folio too, that one's becomes the first (the others that joined
 * its PTE, struct folio_ptes, go with it). */
void zap_file_ptes(struct engine *e, uint32_t proc)
{
	struct process *pr = &e->procs[proc];
	for (uint32_t i = 0; i < pr->nr_file_ptes; i++) {
		uint32_t pfn = pr->file_ptes[i];
		struct folio *f = &e->folio[pfn];
		if (!(f->flags & PG_mapped))
			continue;               /* reclaim unmapped it since */
		struct folio_ptes *p = &e->ptes[pfn];
		int young;
		if (p->first == proc) {
			young = !!(f->flags & PG_young);
			if (p->other) {
				p->first = (p->other & ~PTES_YOUNG) - 1;
				f->flags = (f->flags & ~PG_young) | (p->other & PTES_YOUNG ? PG_young : 0);
				p->other = 0;
			} else {
				f->flags &= ~(PG_mapped | PG_young);
			}
		} else if ((p->other & ~PTES_YOUNG) == proc + 1) {
			young = !!(p->other & PTES_YOUNG);
			p->other = 0;
		} else {
			continue;               /* stale: not PROC's PTE now */
		}
		if (young)
			folio_mark_accessed(e, pfn);
	}
	free(pr->file_ptes);
	pr->file_ptes = NULL;
	pr->nr_file_ptes = pr->cap_file_ptes = 0;
}

/* try_to_unmap: every address space's PTE is cleared (the mapcount drops
 * to 0), as reclaim does before it frees a mapped folio. */
void try_to_unmap(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	/* only a file folio has PTEs in e->ptes: an anonymous folio's stay
	 * untouched, so that their array costs no memory and no cache miss
	 * where nothing maps a file */
	if (folio_is_file_lru(f))
		e->ptes[pfn].other = 0;
	f->flags &= ~(PG_mapped | PG_young);
}

int folio_referenced(struct engine *e, uint32_t pfn, struct scan_control *sc, uint32_t *vm_exec)
{
	struct folio *f = &e->folio[pfn];
	*vm_exec = 0;
	if (!(f->flags & PG_mapped))
		return 0;
	/* an anonymous folio has its owner's PTE alone (e->ptes untouched) */
	struct folio_ptes *p = folio_is_file_lru(f) ? &e->ptes[pfn] : NULL;
	/* folio_referenced_one for each VMA that maps it: one reference per
	 * young PTE, each cleared (ptep_clear_flush_young_notify) */
	int young = !!(f->flags & PG_young), young_other = p && (p->other & PTES_YOUNG);
	int referenced = young + young_other;
	f->flags &= ~PG_young;
	if (young_other)
		p->other &= ~PTES_YOUNG;
	/* each young PTE is looked around, in its own address space */
	if (young && lru_gen_enabled(e))
		lru_gen_look_around(e, pfn, sc, p ? p->first : f->owner);
	if (young_other && lru_gen_enabled(e))
		lru_gen_look_around(e, pfn, sc, (p->other & ~PTES_YOUNG) - 1);
	/* pra->vm_flags: the young PTEs' VMAs' flags */
	if (referenced && (f->flags & PG_exec))
		*vm_exec = 1;
	return referenced;
}
