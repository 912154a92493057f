/*
 * swap_state.c — swap-in read-ahead, after mm/swap_state.c (see
 * swap_state.h).
 *
 * When the swap device is queued, the kernel reads ahead: around the
 * faulting address in the same VMA (swap_vma_readahead) unless a swap
 * device is rotational or vma_ra_enabled is off, and then the aligned
 * block of 2^k swap slots around the faulting slot, whatever pages hold
 * them (swap_cluster_readahead).  The window grows with read-ahead hits
 * and shrinks at most by half per fault: per VMA for the first, globally
 * (swapin_nr_pages' statics) for the second.  Read-ahead pages take
 * memory and are charged like swapped-in pages, so under a limit they
 * cost reclaim: pswpin then exceeds the major faults, as the kernel's
 * counters show.
 *
 * Simplifications (DEVIATIONS.md): the trace has no VMAs, so the VMA
 * window is clamped to the PMD (as the kernel also does) but not to a
 * VMA, and its state is kept per address space instead of per VMA;
 * the cluster window is at most SWAP_RA_MAX_WIN pages.
 */
#include "swap_state.h"
#include "internal.h"
#include "sim/page_order.h"

#define PTRS_PER_PMD_PAGES 512       /* pages under one PMD (2 MiB) */

int swap_ra_init(struct engine *e)
{
	if (!swap_use_readahead(e))
		return 0;
	if (!swap_use_vma_readahead(e))
		return swap_slots_init(e);
	const struct page_ids *anon = pages_anon_by_addr(e->v);
	if (!anon)
		return -1;
	e->anon_by_addr = anon->id;
	e->nr_anon = anon->nr;
	return 0;
}

void swap_ra_free(struct engine *e)
{
	e->anon_by_addr = NULL;              /* the trace's: page_order.h */
	swap_slots_free(e);
}

int swap_use_readahead(const struct engine *e)
{
	return !e->swap.p.sync;
}

int swap_use_vma_readahead(const struct engine *e)
{
	return e->p.vma_ra_enabled && !e->swap.p.rotational;
}

unsigned int swapin_nr_pages(uint64_t prev_offset, uint64_t offset, unsigned int hits,
			     unsigned int max_pages, unsigned int prev_win)
{
	unsigned int pages = hits + 2;
	if (pages == 2) {
		/* No hits to judge by: read ahead only for a neighbour of
		 * the last fault, so as not to get stuck at one page. */
		if (offset != prev_offset + 1 && offset != prev_offset - 1)
			pages = 1;
	} else {
		unsigned int roundup = 4;
		while (roundup < pages)
			roundup <<= 1;
		pages = roundup;
	}
	if (pages > max_pages)
		pages = max_pages;
	/* Don't shrink readahead too fast. */
	if (pages < prev_win / 2)
		pages = prev_win / 2;
	return pages;
}

/* The position of the first anonymous page of SPACE at or after INDEX. */
static uint32_t lower_bound(const struct engine *e, uint64_t space, uint64_t index)
{
	uint32_t lo = 0, hi = e->nr_anon;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct vmr_page *p = &e->v->pages[e->anon_by_addr[mid]];
		if (p->space < space || (p->space == space && p->index < index))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The largest window: 1 << page-cluster, for the VMA window also at most
 * 1 << SWAP_RA_ORDER_CEILING (and here for both: IDS's room). */
static unsigned int max_window(const struct engine *e)
{
	unsigned int order = e->p.page_cluster < SWAP_RA_ORDER_CEILING ? e->p.page_cluster :
									  SWAP_RA_ORDER_CEILING;
	return 1u << order;
}

/* swap_cluster_readahead's window: swapin_nr_pages sizes it from the
 * read-ahead hits since the last fault (global, not per VMA), and it is
 * the aligned block of that many slots around PFN's, past the header and
 * within the device. */
static uint32_t swap_cluster_window(struct engine *e, uint32_t pfn, uint32_t *ids)
{
	struct swap_info_struct *si = &e->si;
	uint32_t offset = si->slot_of[pfn];
	unsigned int max_pages = max_window(e);
	if (max_pages <= 1)
		return 0;
	uint32_t hits = e->swap_ra_cluster.hits;
	e->swap_ra_cluster.hits = 0;
	unsigned int pages = swapin_nr_pages(e->swap_ra_cluster.prev_offset, offset, hits, max_pages,
					     e->swap_ra_cluster.last_readahead_pages);
	if (!hits)
		e->swap_ra_cluster.prev_offset = offset;
	e->swap_ra_cluster.last_readahead_pages = pages;
	uint32_t mask = pages - 1;
	if (!mask)
		return 0;
	uint32_t start = offset & ~mask, end = offset | mask;
	if (!start)
		start = 1;                   /* the first page is the swap header */
	if (end >= si->max)
		end = si->max - 1;
	uint32_t n = 0;
	for (uint32_t s = start; s <= end; s++) {
		uint32_t id = si->swap_map[s];
		if (!id-- || s == offset)
			continue;
		const struct folio *f = &e->folio[id];
		if ((f->flags & PG_swapped) && !(f->flags & (PG_resident | PG_locked)))
			ids[n++] = id;
	}
	return n;
}

uint32_t swap_ra_window(struct engine *e, uint32_t proc, uint32_t pfn, uint32_t *ids)
{
	if (!swap_use_vma_readahead(e))
		return swap_cluster_window(e, pfn, ids);
	struct swap_ra_info *ra = &e->procs[proc].swap_ra;
	const struct vmr_page *fp = &e->v->pages[pfn];
	uint64_t fpfn = fp->index, prev = ra->addr;

	/* swap_ra_info */
	unsigned int win = swapin_nr_pages(prev, fpfn, ra->hits, max_window(e), ra->win);
	ra->addr = fpfn;
	ra->win = win;
	ra->hits = 0;
	if (win == 1)
		return 0;
	uint64_t lpfn, rpfn;
	if (fpfn == prev + 1) {
		lpfn = fpfn;
		rpfn = fpfn + win;
	} else if (prev == fpfn + 1) {
		lpfn = fpfn + 1 >= win ? fpfn - win + 1 : 0;
		rpfn = fpfn + 1;
	} else {
		uint64_t left = (win - 1) / 2;
		lpfn = fpfn >= left ? fpfn - left : 0;
		rpfn = fpfn + win - left;
	}
	/* swap_ra_clamp_pfn: within the fault's PMD (the VMA is unknown). */
	uint64_t pmd = fpfn & ~(uint64_t)(PTRS_PER_PMD_PAGES - 1);
	if (lpfn < pmd)
		lpfn = pmd;
	if (rpfn > pmd + PTRS_PER_PMD_PAGES)
		rpfn = pmd + PTRS_PER_PMD_PAGES;

	/* The PTEs of the window that hold swap entries: pages of this
	 * address space that are in swap and not being read already. */
	uint32_t n = 0;
	for (uint32_t i = lower_bound(e, fp->space, lpfn); i < e->nr_anon; i++) {
		uint32_t id = e->anon_by_addr[i];
		const struct vmr_page *p = &e->v->pages[id];
		if (p->space != fp->space || p->index >= rpfn)
			break;
		const struct folio *f = &e->folio[id];
		if (id != pfn && (f->flags & PG_swapped) && !(f->flags & (PG_resident | PG_locked)))
			ids[n++] = id;
	}
	return n;
}

void swap_ra_hit(struct engine *e, uint32_t proc, uint32_t pfn, int was_readahead)
{
	if (!swap_use_vma_readahead(e)) {
		/* swapin_readahead_hits: one count for every reader */
		e->swap_ra_cluster.hits += was_readahead;
		return;
	}
	struct swap_ra_info *ra = &e->procs[proc].swap_ra;
	ra->addr = e->v->pages[pfn].index;
	if (was_readahead && ra->hits < SWAP_RA_HITS_MAX)
		ra->hits++;
}

/* swapin_readahead: after a swap-in of PFN from a queued device, the
 * window's other pages that are in swap come in too, each allocated and
 * charged to its own memcg (so each may reclaim).  Returns 0 when the
 * task was killed on the way. */
int swapin_readahead(struct engine *e, struct task_state *t, uint32_t pfn)
{
	uint32_t ids[SWAP_RA_MAX_WIN];
	uint32_t n = swap_ra_window(e, t->proc, pfn, ids);
	for (uint32_t i = 0; i < n; i++) {
		const struct folio *f = &e->folio[ids[i]];
		/* Reclaim for an earlier page may have let others run. */
		if (!(f->flags & PG_swapped) || (f->flags & (PG_resident | PG_locked)))
			continue;
		e->in_lru_fault = 1;            /* still in do_swap_page's fault */
		int r = fault_in(e, t, ids[i], VMR_OP_READAHEAD, 0);
		if (r != 1)
			return r;
	}
	return 1;
}
