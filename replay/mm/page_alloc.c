/*
 * page_alloc.c — the page allocator of one node with one zone, after
 * mm/page_alloc.c: the watermarks, the allocation slow path that wakes
 * kswapd, reclaims directly, retries and calls the OOM killer, and the
 * freeing of a folio's last reference.
 *
 * Left out (DEVIATIONS.md): zones, orders above 0, per-CPU page lists,
 * compaction, the reserves' finer rules (ALLOC_HARDER, highatomic).
 */
#include "internal.h"
#include "vmscan.h"

#include <stdlib.h>
#include <sys/mman.h>

/* alloc_pages for one order-0 page (mm/page_alloc.c, condensed):
 * get_page_from_freelist at the low watermark; then, as
 * __alloc_pages_slowpath does, wake_all_kswapds and retry at the min
 * watermark, __alloc_pages_direct_reclaim, should_reclaim_retry until
 * MAX_RECLAIM_RETRIES passes make no progress, __alloc_pages_may_oom.
 * Returns 0 when the task was killed instead.  With NORETRY
 * (__GFP_NORETRY, readahead's readahead_gfp_mask) one direct reclaim is
 * all it tries: then it returns ALLOC_NOMEM, with no OOM kill. */
int alloc_pages(struct engine *e, struct task_state *t, int noretry)
{
	struct pglist_data *pgdat = &e->node;
	if (pgdat->nr_free > pgdat->watermark[WMARK_LOW])
		goto got_pg;
	wakeup_kswapd(e);
	int no_progress_loops = 0;
	for (;;) {
		if (t->killed)
			return 0;
		if (pgdat->nr_free > pgdat->watermark[WMARK_MIN])
			goto got_pg;
		if (!e->sim.current)
			return -1;       /* caller must retry in a coroutine */
		simtime_t t0 = e->sim.now;
		uint64_t progress = try_to_free_pages(e, (uint32_t)(t - e->tasks));
		t->stall_ns += e->sim.now - t0;
		if (t->killed)
			return 0;
		if (pgdat->nr_free > pgdat->watermark[WMARK_MIN])
			goto got_pg;
		if (noretry)
			return ALLOC_NOMEM;
		if (progress)
			no_progress_loops = 0;
		else if (++no_progress_loops > MAX_RECLAIM_RETRIES) {
			if (!out_of_memory(e, -1))
				t->killed = 1;   /* nothing left to kill but us */
			no_progress_loops = 0;
		}
	}
got_pg:
	pgdat->nr_free--;
	count_vm_events(e, VM_pgalloc, 1);
	return 1;
}

/* The folio leaves memory: what __remove_mapping's callers and
 * folio_put do with the last reference — the page returns to the free
 * lists, the memcg is uncharged (mem_cgroup_uncharge), an anonymous
 * folio's contents stay in its slot, and its page flags (the LRU_GEN and
 * LRU_REFS bits among them) are cleared. */
void free_unref_folio(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (f->flags & PG_writeback) {
		e->node.nr_writeback--;
		f->flags &= ~PG_writeback;
	}
	if ((f->flags & PG_dirty) && folio_is_file_lru(f))
		e->node.nr_dirty--;
	if (f->flags & PG_swapcache) {
		f->flags &= ~PG_swapcache;
		f->flags |= PG_swapped;
	}
	f->flags &= ~(PG_resident | PG_lru | PG_active | PG_referenced | PG_mapped | PG_young |
		      PG_dirty | PG_workingset | PG_reclaim | PG_isolated | PG_freed | PG_precached |
		      PG_readahead);
	f->gen_refs = 0;
	workingset_update_node(e, pfn);     /* page_cache_delete */
	e->node.nr_free++;
	mem_cgroup_uncharge(e, f->memcg);
	e->procs[f->owner].rss--;
	count_vm_events(e, VM_pgfree, 1);
}

/* int_sqrt (lib/math/int_sqrt.c): floor(sqrt(X)), a bit of the root
 * per step.  (Counted up one by one it was 20,000 steps for a 24 GiB
 * node, at every replay.) */
static uint64_t int_sqrt(uint64_t x)
{
	uint64_t b, m, y = 0;
	if (x <= 1)
		return x;
	m = 1ull << ((63 - __builtin_clzll(x)) & ~1);
	while (m != 0) {
		b = y + m;
		y >>= 1;
		if (x >= b) {
			x -= b;
			y += m;
		}
		m >>= 2;
	}
	return y;
}

/* __setup_per_zone_wmarks with min_free_kbytes from
 * calculate_min_free_kbytes and watermark_scale_factor = 10. */
void setup_per_zone_wmarks(struct pglist_data *pgdat, uint64_t page_size)
{
	uint64_t kbytes = pgdat->present_pages * (page_size / 1024);
	uint64_t min_free_kbytes = int_sqrt(kbytes * 16);
	if (min_free_kbytes < 128)
		min_free_kbytes = 128;
	if (min_free_kbytes > 262144)
		min_free_kbytes = 262144;
	uint64_t min = min_free_kbytes / (page_size / 1024);
	uint64_t tmp = pgdat->present_pages * 10 / 10000;
	if (tmp < min / 4)
		tmp = min / 4;
	pgdat->watermark[WMARK_MIN] = min;
	pgdat->watermark[WMARK_LOW] = min + tmp;
	pgdat->watermark[WMARK_HIGH] = min + 2 * tmp;
}

/* The folio array is read at random on every access and every scan: on
 * a large trace its TLB misses cost as much as its cache misses, so an
 * array of a huge page or more is mapped on its own and asks for
 * transparent huge pages (a hint; zeroed either way).  A smaller one
 * comes from the heap (*BYTES 0): rounded up to a huge page, a few
 * thousand folios cost the zeroing of 2 MiB at every replay (a fifth of a
 * short session's replay), and mapped afresh, a page fault per 4 KiB;
 * the heap gives the next replay of a --repeat (or a sweep's next) the
 * same memory back, and the few TLB entries it needs were never the
 * cost. */
struct folio *alloc_node_mem_map(uint32_t nr, size_t *bytes)
{
	size_t n = nr ? nr : 1;
	size_t huge = 2u << 20;
	if (n * sizeof(struct folio) < huge) {
		*bytes = 0;
		return calloc(n, sizeof(struct folio));
	}
	*bytes = (n * sizeof(struct folio) + huge - 1) / huge * huge;
	void *p = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, *bytes, MADV_HUGEPAGE);
	return p;
}

void free_node_mem_map(struct folio *folio, size_t bytes)
{
	if (bytes)
		munmap(folio, bytes);
	else
		free(folio);
}
