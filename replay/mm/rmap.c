/*
 * rmap.c — folio_referenced, after mm/rmap.c: the accessed bit of the
 * folio's mapping is tested and cleared; with MGLRU a young one is looked
 * around (lru_gen_look_around), as folio_referenced_one does.
 *
 * Left out (DEVIATIONS.md): one mapping per folio (the trace does not say
 * who else maps it), so a folio has 0 or 1 referencing PTE.
 */
#include "internal.h"

int folio_referenced(struct engine *e, uint32_t pfn, struct scan_control *sc, uint32_t *vm_exec)
{
	struct folio *f = &e->folio[pfn];
	*vm_exec = 0;
	if (!(f->flags & PG_mapped))
		return 0;
	int young = !!(f->flags & PG_young);
	f->flags &= ~PG_young;
	if (young && lru_gen_enabled(e))
		lru_gen_look_around(e, pfn, sc);
	if (young && (f->flags & PG_exec))
		*vm_exec = 1;
	return young;
}
