/*
 * filemap.c — the folio lock's wait queues, the end of writeback and the
 * mapping of cached folios around a fault, after mm/filemap.c
 * (folio_waitqueue, folio_end_writeback, filemap_map_pages).
 */
#include "internal.h"

#include <stdlib.h>

/* folio_waitqueue: hash_ptr of the folio in the kernel; a multiplicative
 * hash of the page id here (FOLIO_WAIT_TABLE_SIZE = 2^10 queues). */
struct sim_waitq *folio_waitqueue(struct engine *e, uint32_t pfn)
{
	return &e->folio_wait_table[(pfn * 2654435761u) >> 22];
}

/* folio_end_writeback: a folio reclaim marked goes to the tail, and
 * reclaimers throttled on writeback are credited. */
void folio_end_writeback(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (!(f->flags & PG_writeback))
		return;                 /* released meanwhile */
	f->flags &= ~PG_writeback;
	e->node.nr_writeback--;
	struct pglist_data *pgdat = &e->node;
	pgdat->nr_throttled_written++;
	struct sim_waitq *wq = &pgdat->reclaim_wait[VMSCAN_THROTTLE_WRITEBACK];
	if (sim_waitq_active(wq) &&
	    pgdat->nr_throttled_written - pgdat->nr_reclaim_start > SWAP_CLUSTER_MAX * wq->nr)
		sim_wake_all(&e->sim, wq);
	if (f->flags & PG_reclaim) {
		f->flags &= ~PG_reclaim;
		folio_rotate_reclaimable(e, pfn);
	}
	/* folio_wake_bit(PG_writeback): whoever waits for this write. */
	sim_wake_all(&e->sim, folio_waitqueue(e, pfn));
}

/* The page cache's index: a file's folios by offset, as mapping->i_pages
 * holds them.  The trace names a file page by (device, inode, index)
 * (struct vmr_page); the replay's page ids follow first touch, so the
 * index is a sorted array of the file pages' ids, made once, when the
 * first fault needs it. */
static int cmp_file_key(const struct vmr_page *x, uint64_t space, uint64_t ino, uint64_t index)
{
	if (x->space != space)
		return x->space < space ? -1 : 1;
	if (x->ino != ino)
		return x->ino < ino ? -1 : 1;
	if (x->index != index)
		return x->index < index ? -1 : 1;
	return 0;
}

static int cmp_file_page(const void *a, const void *b, void *arg)
{
	const struct vmr_page *pages = arg, *y = &pages[*(const uint32_t *)b];
	return cmp_file_key(&pages[*(const uint32_t *)a], y->space, y->ino, y->index);
}

static int page_cache_index_init(struct engine *e)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < e->nr_folios; i++)
		n += e->v->pages[i].kind != VMR_PAGE_ANON;
	e->page_cache = malloc((n ? n : 1) * sizeof(*e->page_cache));
	if (!e->page_cache) {
		e->failed = 1;
		return -1;
	}
	n = 0;
	for (uint32_t i = 0; i < e->nr_folios; i++)
		if (e->v->pages[i].kind != VMR_PAGE_ANON)
			e->page_cache[n++] = i;
	qsort_r(e->page_cache, n, sizeof(*e->page_cache), cmp_file_page, (void *)e->v->pages);
	e->nr_page_cache = n;
	return 0;
}

void page_cache_index_free(struct engine *e)
{
	free(e->page_cache);
	e->page_cache = NULL;
	e->nr_page_cache = 0;
}

/* filemap_map_pages: map the folios of PFN's file with offsets START to
 * END that are in the page cache, uptodate and unlocked, and not mapped
 * yet (next_uptodate_folio, filemap_map_folio_range); the PTEs are made
 * young (set_pte_range: x86's and UML's protections carry the accessed
 * bit, and neither asks for old prefaulted PTEs).  Mapping a folio is not
 * a fault: nothing is counted, nothing is read, nothing is added to the
 * LRU.  PFN itself is the fault's business. */
void filemap_map_pages(struct engine *e, uint32_t pfn, uint64_t start, uint64_t end)
{
	if (!e->page_cache && page_cache_index_init(e) != 0)
		return;
	const struct vmr_page *pages = e->v->pages, *me = &pages[pfn];
	/* the first folio at or after START (xas_find) */
	uint32_t lo = 0, hi = e->nr_page_cache;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cmp_file_key(&pages[e->page_cache[mid]], me->space, me->ino, start) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t s = lo; s < e->nr_page_cache; s++) {
		uint32_t n = e->page_cache[s];
		if (cmp_file_key(&pages[n], me->space, me->ino, end) > 0)
			break;
		struct folio *f = &e->folio[n];
		if (n == pfn || (f->flags & (PG_resident | PG_locked | PG_mapped)) != PG_resident)
			continue;
		f->flags |= PG_mapped | PG_young;
	}
}
