/*
 * filemap.c — the folio lock's wait queues, the end of writeback and the
 * fault-around of a read fault, after mm/filemap.c (folio_waitqueue,
 * folio_end_read, folio_end_writeback, filemap_map_pages).
 */
#include "internal.h"
#include "sim/page_order.h"

#include <stdlib.h>

/* folio_waitqueue: hash_ptr of the folio in the kernel; a multiplicative
 * hash of the page id here (FOLIO_WAIT_TABLE_SIZE = 2^10 queues). */
struct sim_waitq *folio_waitqueue(struct engine *e, uint32_t pfn)
{
	return &e->folio_wait_table[(pfn * 2654435761u) >> 22];
}

/* A folio is read locked: filemap_add_folio (page_cache_ra_unbounded,
 * filemap_create_folio) and __read_swap_cache_async insert it locked,
 * folio_add_lru puts it on the LRU, and the read's completion
 * (folio_end_read from the bio's end_io: mpage_read_end_io,
 * end_swap_bio_read) unlocks it.  Until then reclaim's folio_trylock
 * fails on it (shrink_folio_list keeps it) and fault-around passes it
 * (next_uptodate_folio). */
void folio_start_read(struct engine *e, uint32_t pfn, simtime_t done)
{
	struct folio *f = &e->folio[pfn];
	f->read_seq++;
	sim_at(&e->sim, done, EV_READ_DONE, pfn, f->read_seq);
}

/* folio_end_read: the read numbered SEQ is done.  A folio released and
 * brought in again since has another read, or none, in flight. */
void folio_end_read(struct engine *e, uint32_t pfn, uint16_t seq)
{
	struct folio *f = &e->folio[pfn];
	if (f->read_seq != seq || (f->flags & (PG_resident | PG_locked)) != (PG_resident | PG_locked))
		return;
	f->flags &= ~PG_locked;
	sim_wake_all(&e->sim, folio_waitqueue(e, pfn));
}

struct read_bio *read_bio_alloc(struct engine *e)
{
	if (!e->free_bio) {
		/* all in flight: twice as many, the new ones free */
		uint32_t n = e->nr_bios ? 2 * e->nr_bios : 16;
		struct read_bio *b = realloc(e->bios, n * sizeof(*b));
		if (!b)
			return NULL;
		for (uint32_t i = e->nr_bios; i < n; i++)
			b[i] = (struct read_bio){ .next_free = i + 1 < n ? i + 2 : 0 };
		e->bios = b;
		e->free_bio = e->nr_bios + 1;
		e->nr_bios = n;
	}
	struct read_bio *bio = &e->bios[e->free_bio - 1];
	e->free_bio = bio->next_free;
	return bio;
}

/* mpage_read_end_io: folio_end_read of each folio of the request. */
void mpage_read_end_io(struct engine *e, uint32_t id)
{
	struct read_bio *bio = &e->bios[id];
	for (uint32_t i = 0; i < bio->nr; i++)
		folio_end_read(e, bio->pages[i].pfn, bio->pages[i].seq);
	bio->nr = 0;
	bio->next_free = e->free_bio;
	e->free_bio = id + 1;
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

/* fault_around_pages: fault_around_bytes (64 KiB) in pages. */
#define FAULT_AROUND_PAGES 16u

static int page_addr_cmp(const struct vmr_page *a, const struct vmr_page *b)
{
	if (a->space != b->space)
		return a->space < b->space ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return 0;
}

/* filemap_map_pages, as do_read_fault's do_fault_around calls it: a read
 * fault through a file mapping maps the page cache around the faulting
 * page — the fault_around_pages window aligned around it, of the same
 * file — where a page is cached, unlocked and not mapped yet by the
 * faulting process (another's PTE is another page table).  The PTEs
 * it sets are young (set_pte_range: arch_wants_old_prefaulted_pte is
 * false on x86 and UML, whose VMA protections carry _PAGE_ACCESSED), and
 * no fault is counted for them.  They are the faulting VMA's PTEs
 * (set_pte_range on vmf->vma), so a neighbour of a page faulted through
 * a VM_EXEC mapping is mapped executable too: folio_referenced_one then
 * hands its VM_EXEC to folio_check_references, which activates the
 * executable text at its first young sighting.  The window is aligned by
 * file offset: the trace has no VMAs (DEVIATIONS.md). */
void filemap_map_pages(struct engine *e, uint32_t pfn, uint32_t proc)
{
	const struct page_ids *file = pages_file_by_addr(e->v);
	const struct vmr_page *pg = e->v->pages, *me = &pg[pfn];
	uint32_t vm_exec = e->folio[pfn].flags & PG_exec;
	if (!file || !file->nr)
		return;
	uint64_t from = me->index & ~(uint64_t)(FAULT_AROUND_PAGES - 1);
	uint64_t to = from + FAULT_AROUND_PAGES;
	/* the first page of the window in (space, ino, index) order */
	uint32_t lo = 0, hi = file->nr;
	struct vmr_page key = *me;
	key.index = from;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (page_addr_cmp(&pg[file->id[mid]], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t r = lo; r < file->nr; r++) {
		uint32_t n = file->id[r];
		const struct vmr_page *np = &pg[n];
		if (np->space != me->space || np->ino != me->ino || np->index >= to)
			break;
		struct folio *nf = &e->folio[n];
		/* next_uptodate_folio: cached, not being read; a PTE already
		 * there is left alone */
		if (n == pfn || (nf->flags & (PG_resident | PG_locked | PG_isolated)) != PG_resident ||
		    folio_pte_present(e, n, proc))
			continue;
		folio_add_file_rmap_pte(e, n, proc);
		nf->flags |= vm_exec;
	}
}

/* filemap_fault of a page not in the cache reads it with its read-around
 * window (do_sync_mmap_readahead) after dropping the mmap lock
 * (maybe_unlock_mmap_for_io), so it returns VM_FAULT_RETRY, and the
 * architecture's fault handler (UML's handle_page_fault, x86's
 * do_user_addr_fault) retries with FAULT_FLAG_TRIED: do_read_fault runs
 * do_fault_around again, now over the pages that read brought in, and
 * maps them — one exception, so the trace has one fault event.  The
 * first pass mapped only the cached neighbours (filemap_map_pages, at
 * the fault); this is the second pass, one read-ahead page at a time as
 * the trace inserts it after the fault: mapped into T's page table,
 * young, with the faulting VMA's VM_EXEC, when in the faulting page's
 * aligned window of the same file.  The read the retry waited for is in
 * the capture's gap before the task's next record. */
void filemap_map_retry(struct engine *e, const struct task_state *t, uint32_t pfn)
{
	if (!t->fault_retry)
		return;
	uint32_t fault = t->fault_retry - 1;
	const struct vmr_page *pg = e->v->pages, *me = &pg[fault], *np = &pg[pfn];
	if (np->space != me->space || np->ino != me->ino ||
	    (np->index & ~(uint64_t)(FAULT_AROUND_PAGES - 1)) != (me->index & ~(uint64_t)(FAULT_AROUND_PAGES - 1)) ||
	    !folio_pte_present(e, fault, t->proc) || folio_pte_present(e, pfn, t->proc))
		return;
	folio_add_file_rmap_pte(e, pfn, t->proc);
	e->folio[pfn].flags |= e->folio[fault].flags & PG_exec;
}
