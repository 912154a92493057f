/*
 * swapfile.c — swap slots, after mm/swapfile.c: one swap device of a
 * fixed number of slots, taken by folio_alloc_swap when reclaim swaps an
 * anonymous folio out and given back by folio_free_swap.
 *
 * Left out (DEVIATIONS.md): slot clusters and their order on the device
 * (a slot has no position), swap priorities, several devices.
 */
#include "internal.h"

int folio_alloc_swap(struct engine *e, uint32_t pfn)
{
	if (e->swap_used >= e->swap_slots)
		return 0;
	e->swap_used++;
	e->procs[e->folio[pfn].owner].swap++;
	return 1;
}

void folio_free_swap(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (f->flags & (PG_swapcache | PG_swapped)) {
		e->swap_used--;
		e->procs[f->owner].swap--;
		f->flags &= ~(PG_swapcache | PG_swapped);
	}
}
