/*
 * engine.c — the simulated machine: tasks replaying their streams,
 * page faults and the page allocator, memory cgroup charging and the OOM
 * killer, swap and file I/O, the flusher, and the event loop.
 *
 * The reclaim side lives in vmscan.c and the policy files; this file is
 * the rest of mm/ that reclaim serves (mm/memory.c, mm/page_alloc.c,
 * mm/memcontrol.c, mm/oom_kill.c, mm/page_io.c, fs/fs-writeback.c), at the
 * level of detail reclaim can see.
 */
#include "engine.h"
#include "mm/mm_inline.h"
#include "progress.h"
#include "mm/policy.h"
#include "mm/vmscan.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define VMSTAT_NAME(name) #name,
const char *const vmstat_text[NR_VM_ITEMS] = { VMSTAT_ITEMS(VMSTAT_NAME) };

enum ev_kind {
	EV_WAKE,          /* a coroutine's sleep or wait ended      */
	EV_TASK,          /* a task's next record is due            */
	EV_IO_DONE,       /* writeback of folio ID completed        */
	EV_FLUSH,         /* the flusher's periodic run             */
};

/* dirty_writeback_interval (5 s); dirty_expire_interval is not modelled:
 * the flusher writes every dirty page it finds (DEVIATIONS.md). */
#define DIRTY_WRITEBACK_NS (5 * NSEC_PER_SEC)

/* alloc_pages / try_charge_memcg: 1 done, 0 the task was killed, -1 must
 * block (outside a coroutine), or this: no page, and no OOM kill either
 * (__GFP_NORETRY). */
#define ALLOC_NOMEM 2

uint64_t engine_rand(struct engine *e, uint64_t n)
{
	/* splitmix64: small, fast, and the same on every machine. */
	uint64_t z = (e->rng += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return n ? z % n : z;
}

void engine_isolated(struct engine *e, int file, int64_t delta)
{
	e->node.nr_isolated[file] += delta;
	uint64_t total = e->node.nr_isolated[0] + e->node.nr_isolated[1];
	if (total > e->vm[VM_nr_isolated_peak])
		e->vm[VM_nr_isolated_peak] = total;
	if (e->timeline)
		fprintf(e->timeline, "%llu\t%llu\t%llu\t%llu\n", (unsigned long long)e->sim.now,
			(unsigned long long)e->node.nr_isolated[0],
			(unsigned long long)e->node.nr_isolated[1],
			(unsigned long long)e->vm[VM_mm_vmscan_throttled]);
}

/* Is A slower than B?  Ties go to the earlier one, for determinism. */
static int slower(const struct reclaim_record *a, const struct reclaim_record *b)
{
	return a->duration > b->duration || (a->duration == b->duration && a->start < b->start);
}

void engine_record(struct engine *e, const struct reclaim_record *r)
{
	e->rec_sum.target_anon += r->target_anon;
	e->rec_sum.target_file += r->target_file;
	e->rec_sum.scanned_anon += r->scanned_anon;
	e->rec_sum.scanned_file += r->scanned_file;
	if (r->kind == RECLAIM_DIRECT) {
		/* Insertion into the sorted top 20. */
		e->rec_sum.direct++;
		uint32_t n = e->rec_sum.nr_slowest, i = n < 20 ? n : 19;
		if (n == 20 && !slower(r, &e->rec_sum.slowest[19]))
			goto keep;
		while (i > 0 && slower(r, &e->rec_sum.slowest[i - 1])) {
			e->rec_sum.slowest[i] = e->rec_sum.slowest[i - 1];
			i--;
		}
		e->rec_sum.slowest[i] = *r;
		if (n < 20)
			e->rec_sum.nr_slowest++;
	}
keep:
	if (!e->keep_records)
		return;
	if (e->nr_records == e->cap_records) {
		uint64_t cap = e->cap_records ? 2 * e->cap_records : 1024;
		struct reclaim_record *n = realloc(e->records, cap * sizeof(*n));
		if (!n) {
			e->failed = 1;
			return;
		}
		e->records = n;
		e->cap_records = cap;
	}
	e->records[e->nr_records++] = *r;
}

/* ---- memory cgroups ------------------------------------------------- */

static void mem_cgroup_uncharge(struct engine *e, int memcg)
{
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		e->memcgs[m].usage--;
}

/* page_counter_try_charge: the first ancestor that would go over its
 * limit, or -1 when the charge fits everywhere (and is made). */
static int page_counter_try_charge(struct engine *e, int memcg)
{
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		if (e->memcgs[m].usage + 1 > e->memcgs[m].max)
			return m;
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		e->memcgs[m].usage++;
	return -1;
}

/* ---- freeing ----------------------------------------------------------- */

void engine_free_swap(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (f->flags & (PG_swapcache | PG_swapped)) {
		e->swap_used--;
		e->procs[f->owner].swap--;
		f->flags &= ~(PG_swapcache | PG_swapped);
	}
}

int engine_alloc_swap(struct engine *e, uint32_t pfn)
{
	if (e->swap_used >= e->swap_slots)
		return 0;
	e->swap_used++;
	e->procs[e->folio[pfn].owner].swap++;
	return 1;
}

/* The folio leaves memory: the page returns to the free lists, the
 * memcg is uncharged, an anonymous folio's contents stay in its slot. */
void engine_free_folio(struct engine *e, uint32_t pfn)
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
	e->node.nr_free++;
	mem_cgroup_uncharge(e, f->memcg);
	e->procs[f->owner].rss--;
	count_vm_events(e, VM_pgfree, 1);
}

/* The owner released the page (zap_pte_range on munmap and exit,
 * delete_from_page_cache on unlink or truncate, free_swap_and_cache for
 * its slot): no shadow, no swap copy.  A folio a reclaimer holds is freed
 * when it is put back. */
static void release_page(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	engine_free_swap(e, pfn);
	f->flags &= ~(PG_shadow | PG_seen | PG_swapped | PG_precached);
	if (!(f->flags & PG_resident))
		return;
	if (f->flags & PG_isolated) {
		f->flags |= PG_freed;
		return;
	}
	e->policy->folio_del_lru(e, pfn);
	engine_free_folio(e, pfn);
}

/* ---- I/O ------------------------------------------------------------------ */

void engine_start_writeback(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	struct backing *dev = folio_is_file_lru(f) ? &e->file : &e->swap;
	f->flags |= PG_writeback;
	e->node.nr_writeback++;
	simtime_t done = backing_submit(dev, e->sim.now, dev->p.write_ns,
					(uint32_t)engine_rand(e, 1ull << 32));
	sim_at(&e->sim, done, EV_IO_DONE, pfn, 0);
}

/* folio_end_writeback: a folio reclaim marked goes to the tail, and
 * reclaimers throttled on writeback are credited. */
static void folio_end_writeback(struct engine *e, uint32_t pfn)
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
		e->policy->folio_rotate_reclaimable(e, pfn);
	}
}

/* The flusher (wb_workfn, condensed) writes every dirty file page; it
 * runs every dirty_writeback_interval, and when reclaim finds dirty pages
 * nobody has queued (wakeup_flusher_threads). */
static void flusher_run(struct engine *e)
{
	for (uint64_t i = 0; i < e->nr_dirty_list; i++) {
		uint32_t pfn = e->dirty_list[i];
		struct folio *f = &e->folio[pfn];
		f->flags &= ~PG_dirty_listed;
		if ((f->flags & (PG_resident | PG_dirty | PG_writeback)) != (PG_resident | PG_dirty))
			continue;
		f->flags &= ~PG_dirty;
		e->node.nr_dirty--;
		e->file.writes++;
		engine_start_writeback(e, pfn);
	}
	e->nr_dirty_list = 0;
}

void engine_wakeup_flusher(struct engine *e)
{
	if (!e->flusher_kicked) {
		e->flusher_kicked = 1;
		sim_at(&e->sim, e->sim.now, EV_FLUSH, 1, 0);
	}
}

static void folio_mark_dirty(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (f->flags & PG_dirty)
		return;
	f->flags |= PG_dirty;
	if (!folio_is_file_lru(f))
		return;
	e->node.nr_dirty++;
	if (!(f->flags & PG_dirty_listed)) {
		if (e->nr_dirty_list == e->cap_dirty_list) {
			uint64_t cap = e->cap_dirty_list ? 2 * e->cap_dirty_list : 1024;
			uint32_t *n = realloc(e->dirty_list, cap * sizeof(*n));
			if (!n) {
				e->failed = 1;
				return;
			}
			e->dirty_list = n;
			e->cap_dirty_list = cap;
		}
		e->dirty_list[e->nr_dirty_list++] = pfn;
		f->flags |= PG_dirty_listed;
	}
	/* balance_dirty_pages' background threshold: 10% of what could
	 * hold page cache starts the flusher early. */
	if (e->node.nr_dirty * 10 > e->node.nr_free + lruvec_page_state(e, 0, LRU_INACTIVE_FILE) +
				    lruvec_page_state(e, 0, LRU_ACTIVE_FILE))
		engine_wakeup_flusher(e);
}

/* ---- the OOM killer ------------------------------------------------------ */

/* out_of_memory: kill the process with the most pages (oom_badness:
 * resident plus swapped) among those charged under SCOPE (-1: all).
 * Returns 0 when there was nobody left to kill. */
static int out_of_memory(struct engine *e, int scope)
{
	uint32_t victim = UINT32_MAX;
	uint64_t worst = 0;
	for (uint32_t i = 0; i < e->nr_procs; i++) {
		struct process *p = &e->procs[i];
		if (!p->alive)
			continue;
		int m = p->memcg;
		if (scope > 0) {
			while (m > scope)
				m = e->memcgs[m].parent;
			if (m != scope)
				continue;
		}
		if (victim == UINT32_MAX || p->rss + p->swap > worst) {
			victim = i;
			worst = p->rss + p->swap;
		}
	}
	if (victim == UINT32_MAX)
		return 0;
	struct process *p = &e->procs[victim];
	p->alive = 0;
	count_vm_events(e, VM_oom_kill, 1);
	/* The reaper frees its anonymous memory; page cache stays. */
	for (uint32_t pfn = 0; pfn < e->nr_folios; pfn++) {
		struct folio *f = &e->folio[pfn];
		if (f->owner == victim && (f->flags & PG_swapbacked))
			release_page(e, pfn);
	}
	for (uint32_t t = 0; t < e->nr_tasks; t++)
		if (e->tasks[t].proc == victim)
			e->tasks[t].killed = 1;
	return 1;
}

/* ---- allocation and charging ---------------------------------------------- */

/* alloc_pages for one order-0 page (mm/page_alloc.c, condensed):
 * get_page_from_freelist at the low watermark; then, as
 * __alloc_pages_slowpath does, wake_all_kswapds and retry at the min
 * watermark, __alloc_pages_direct_reclaim, should_reclaim_retry until
 * MAX_RECLAIM_RETRIES passes make no progress, __alloc_pages_may_oom.
 * Returns 0 when the task was killed instead.  With NORETRY
 * (__GFP_NORETRY, readahead's readahead_gfp_mask) one direct reclaim is
 * all it tries: then it returns ALLOC_NOMEM, with no OOM kill. */
static int alloc_pages(struct engine *e, struct task_state *t, int noretry)
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

/* try_charge_memcg: charge one page; over a limit, reclaim from the memcg
 * that is over; any progress retries for free, MAX_RECLAIM_RETRIES
 * fruitless tries end in the memcg OOM killer.  Returns 0 when the task
 * was killed (the page is not charged).  With NORETRY, one reclaim and
 * then ALLOC_NOMEM if still over the limit (the kernel's drain_all_stock
 * retry has nothing to drain here: DEVIATIONS.md, per-CPU batches). */
static int try_charge_memcg(struct engine *e, struct task_state *t, int memcg, int noretry)
{
	int nr_retries = MAX_RECLAIM_RETRIES;
	for (;;) {
		if (t->killed)
			return 0;
		int over = page_counter_try_charge(e, memcg);
		if (over < 0)
			return 1;
		if (!e->sim.current)
			return -1;
		simtime_t t0 = e->sim.now;
		uint64_t nr_reclaimed = try_to_free_mem_cgroup_pages(e, over, 1, (uint32_t)(t - e->tasks));
		t->stall_ns += e->sim.now - t0;
		if (e->memcgs[over].usage < e->memcgs[over].max)
			continue;
		if (noretry)
			return ALLOC_NOMEM;
		if (nr_reclaimed)
			continue;          /* small charges retry while reclaim works */
		if (nr_retries--)
			continue;
		if (!out_of_memory(e, over))
			t->killed = 1;
		nr_retries = MAX_RECLAIM_RETRIES;
	}
}

/* ---- the fault path -------------------------------------------------------- */

/* folio_waitqueue: the queue of PFN's lock waiters (hash_ptr of the folio
 * in the kernel; a multiplicative hash of the page id here). */
static struct sim_waitq *folio_waitqueue(struct engine *e, uint32_t pfn)
{
	return &e->folio_wait_table[(pfn * 2654435761u) >> 22];
}

/* The memcg a folio brought in by T is charged to: T's (mem_cgroup_charge
 * charges the faulting task's cgroup), except for a file page that was in
 * the page cache before the session (PG_precached, from the trace's
 * VMR_PAGE_PRECACHED): it stays charged where it was, which the trace
 * does not say, so to the root.  Once it has left memory, its next fault
 * is the workload's own insertion. */
static int folio_charge_memcg(const struct engine *e, const struct task_state *t, uint32_t pfn)
{
	if (e->folio[pfn].flags & PG_precached)
		return 0;
	return e->procs[t->proc].memcg;
}

/* Does touching PFN need anything that can sleep (reclaim, I/O)? */
static int needs_slowpath(struct engine *e, struct task_state *t, uint32_t pfn)
{
	const struct folio *f = &e->folio[pfn];
	if (f->flags & PG_resident)
		return 0;
	if (f->flags & PG_locked)
		return 1;
	/* A swap-in may read ahead, and each page it reads may reclaim. */
	if ((f->flags & PG_swapped) && swap_use_readahead(e))
		return 1;
	if (e->node.nr_free <= e->node.watermark[WMARK_MIN])
		return 1;
	for (int m = folio_charge_memcg(e, t, pfn); m >= 0; m = e->memcgs[m].parent)
		if (e->memcgs[m].usage + 1 > e->memcgs[m].max)
			return 1;
	return 0;
}

static int swapin_readahead(struct engine *e, struct task_state *t, uint32_t pfn);

/* A page that is not resident is brought in, as do_anonymous_page,
 * do_swap_page, filemap_fault and filemap_read do: allocated, charged,
 * read if it has been in memory before, checked against its shadow
 * (workingset_refault), added to the LRU.  OP READAHEAD brings in a page
 * nobody touches yet: a page-cache read-ahead page (FILE) or a swap
 * read-ahead page.  Returns 0 when the task was killed on the way. */
static int fault_in(struct engine *e, struct task_state *t, uint32_t pfn, unsigned op, int file)
{
	struct folio *f = &e->folio[pfn];
	int memcg = folio_charge_memcg(e, t, pfn);
	int readahead = op == VMR_OP_READAHEAD;
	/* Page-cache read-ahead allocates with readahead_gfp_mask
	 * (__GFP_NORETRY); swap read-ahead with the fault's own mask. */
	int noretry = readahead && file;
	/* Read-ahead pages come in the same read as the page the task waits
	 * for (or asynchronously): they add no stall of their own. */
	int major = !readahead && ((f->flags & PG_swapped) || (file && (f->flags & PG_seen)));
	int swap_ra = readahead && (f->flags & PG_swapped);

	/* Others touching the page wait until it is in (folio_lock). */
	f->flags |= PG_locked;
	int r = alloc_pages(e, t, noretry);
	if (r == 1) {
		r = try_charge_memcg(e, t, memcg, noretry);
		if (r != 1)
			e->node.nr_free++;
	}
	if (r != 1) {
		f->flags &= ~PG_locked;
		sim_wake_all(&e->sim, folio_waitqueue(e, pfn));
		/* No memory for a read-ahead page: it is not read (as
		 * page_cache_ra_unbounded stops at a failed allocation). */
		return r == ALLOC_NOMEM ? 1 : r;
	}
	f->memcg = (uint16_t)memcg;
	f->owner = t->proc;
	e->procs[t->proc].rss++;

	if (major) {
		/* A refault: the task waits for the read (task_step resumes it
		 * at io_until).  The folio is installed when the read is issued,
		 * so other tasks do not wait for it (DEVIATIONS.md). */
		struct backing *dev = file ? &e->file : &e->swap;
		simtime_t done = backing_submit(dev, e->sim.now, dev->p.read_ns,
						(uint32_t)engine_rand(e, 1ull << 32));
		dev->reads++;
		if (op == VMR_OP_LOAD || op == VMR_OP_STORE)
			count_vm_events(e, VM_pgmajfault, 1);
		if (!file)
			count_vm_events(e, VM_pswpin, 1);
		t->io_until = done;
		t->stall_ns += done - e->sim.now;
	} else if (swap_ra) {
		/* Read in the same plug as the fault; nobody waits for it
		 * (swap_read_folio counts it in pswpin all the same). */
		backing_submit(&e->swap, e->sim.now, e->swap.p.read_ns,
			       (uint32_t)engine_rand(e, 1ull << 32));
		e->swap.reads++;
		count_vm_events(e, VM_pswpin, 1);
		f->flags |= PG_readahead;
	}

	f->flags |= PG_resident | PG_seen;
	f->flags &= ~(PG_active | PG_referenced | PG_workingset | PG_young | PG_mapped);
	if (!file)
		f->flags |= PG_swapbacked;
	if (f->flags & PG_swapped) {
		/* Swap-in: the copy stays in swap (a clean folio reclaim can
		 * drop), unless this is a write fault (should_try_to_free_swap). */
		f->flags &= ~PG_swapped;
		f->flags |= PG_swapcache;
		if (op == VMR_OP_STORE)
			engine_free_swap(e, pfn);
	}
	/* Buffered writes add folios without a refault check; read-ahead
	 * ones have it (filemap_add_folio), like any insertion. */
	if (op != VMR_OP_WRITE)
		e->policy->workingset_refault(e, pfn);
	else
		f->flags &= ~PG_shadow;
	if (op == VMR_OP_LOAD || op == VMR_OP_STORE) {
		count_vm_events(e, VM_pgfault, 1);
		f->flags |= PG_mapped | PG_young;
	}
	/* A new anonymous page is dirty from the start: it has no copy. */
	if (op == VMR_OP_STORE || op == VMR_OP_WRITE || (!file && !(f->flags & PG_swapcache)))
		folio_mark_dirty(e, pfn);
	e->policy->folio_add_lru(e, pfn);
	f->flags &= ~PG_locked;
	sim_wake_all(&e->sim, folio_waitqueue(e, pfn));
	if (major && !file && swap_use_readahead(e))
		return swapin_readahead(e, t, pfn);
	return 1;
}

/* swap_vma_readahead: after a swap-in of PFN from a queued device, the
 * window's other pages that are in swap come in too, each allocated and
 * charged like the faulting page (so each may reclaim).  Returns 0 when
 * the task was killed on the way. */
static int swapin_readahead(struct engine *e, struct task_state *t, uint32_t pfn)
{
	uint32_t ids[SWAP_RA_MAX_WIN];
	uint32_t n = swap_ra_window(e, t->proc, pfn, ids);
	for (uint32_t i = 0; i < n; i++) {
		const struct folio *f = &e->folio[ids[i]];
		/* Reclaim for an earlier page may have let others run. */
		if (!(f->flags & PG_swapped) || (f->flags & (PG_resident | PG_locked)))
			continue;
		int r = fault_in(e, t, ids[i], VMR_OP_READAHEAD, 0);
		if (r != 1)
			return r;
	}
	return 1;
}

/* One access by task T.  Returns 1 done, 0 task killed, -1 must block
 * (only outside a coroutine, before anything changed). */
static int access_page(struct engine *e, struct task_state *t, uint32_t pfn, unsigned op, int file)
{
	struct folio *f = &e->folio[pfn];
	if (op == VMR_OP_FREE) {
		release_page(e, pfn);
		return 1;
	}
	if (op == VMR_OP_READAHEAD) {
		/* page_cache_ra_unbounded skips pages already in the cache
		 * (or being read); the others are added, not referenced. */
		if (f->flags & (PG_resident | PG_locked))
			return 1;
		if (!e->sim.current && needs_slowpath(e, t, pfn))
			return -1;
		return fault_in(e, t, pfn, op, file);
	}
	if (!(f->flags & PG_resident) && (f->flags & PG_locked)) {
		/* Another task is bringing it in: wait for it (folio_wait_locked). */
		if (!e->sim.current)
			return -1;
		simtime_t t0 = e->sim.now;
		while ((f->flags & PG_locked) && !t->killed)
			sim_wait(&e->sim, folio_waitqueue(e, pfn), NSEC_PER_SEC);
		t->stall_ns += e->sim.now - t0;
		if (t->killed)
			return 0;
	}
	if (!(f->flags & PG_resident)) {
		if (!e->sim.current && needs_slowpath(e, t, pfn))
			return -1;
		int r = fault_in(e, t, pfn, op, file);
		if (r <= 0)
			return r;
		if (op == VMR_OP_READ)
			e->policy->folio_mark_accessed(e, pfn);
		return 1;
	}
	switch (op) {
	case VMR_OP_LOAD:
	case VMR_OP_STORE:
		if (!(f->flags & PG_mapped)) {
			count_vm_events(e, VM_pgfault, 1);   /* minor: map a cached page */
			f->flags |= PG_mapped;
			/* do_swap_page found it in the swap cache. */
			if (f->flags & PG_swapcache)
				swap_ra_hit(e, t->proc, pfn, !!(f->flags & PG_readahead));
			f->flags &= ~PG_readahead;
		}
		f->flags |= PG_young;
		if (op == VMR_OP_STORE) {
			folio_mark_dirty(e, pfn);
			if (f->flags & PG_swapcache)
				engine_free_swap(e, pfn);    /* the copy is stale now */
		}
		break;
	case VMR_OP_READ:
		e->policy->folio_mark_accessed(e, pfn);
		break;
	case VMR_OP_WRITE:
		folio_mark_dirty(e, pfn);
		break;
	}
	return 1;
}

/* ---- tasks ---------------------------------------------------------------------- */

/* A process whose last task ended exits: its anonymous memory is freed. */
static void exit_mmap(struct engine *e, uint32_t proc)
{
	e->procs[proc].alive = 0;
	for (uint32_t pfn = 0; pfn < e->nr_folios; pfn++) {
		struct folio *f = &e->folio[pfn];
		if (f->owner == proc && (f->flags & PG_swapbacked) &&
		    (f->flags & (PG_resident | PG_swapped | PG_shadow)))
			release_page(e, pfn);
	}
}

static void task_finish(struct engine *e, struct task_state *t)
{
	t->done = e->sim.now;
	t->finished = 1;
	e->tasks_done++;
	struct process *p = &e->procs[t->proc];
	if (++p->tasks_done == p->nr_tasks && p->alive)
		exit_mmap(e, t->proc);
}

/* Runs task T's records from its cursor.  In the event loop it stops
 * before anything that must sleep and continues in its coroutine. */
static void task_step(struct engine *e, struct task_state *t)
{
	while (t->p < t->end) {
		if (t->killed) {
			task_finish(e, t);
			return;
		}
		if (t->next > e->sim.now || (!e->sim.current && sim_peek(&e->sim) < t->next)) {
			sim_at(&e->sim, t->next, EV_TASK, (uint32_t)(t - e->tasks), 0);
			return;
		}
		struct vmr_rec r = *t->p;
		unsigned op = vmr_rec_op(r);
		if (op != VMR_OP_DELAY) {
			uint32_t count = vmr_rec_count(r);
			while (t->sub < count) {
				int res = access_page(e, t, r.page + t->sub, op, vmr_rec_is_file(r));
				if (res < 0) {
					t->blocked = 1;
					return;          /* continue in the coroutine */
				}
				if (res == 0) {
					task_finish(e, t);
					return;
				}
				t->sub++;
				simtime_t done = t->io_until > e->sim.now ? t->io_until : e->sim.now;
				if (vmr_op_is_access(op)) {
					t->accesses++;
					if (done <= e->deadline)
						e->work_done++;
				}
				if (t->io_until > e->sim.now) {
					/* Waiting for a read: resume when it completes. */
					if (t->sub == count) {
						t->sub = 0;
						t->p++;
						t->next = done + (t->p < t->end ? vmr_rec_delta(*t->p) : 0);
					} else {
						t->next = done;
					}
					t->io_until = 0;
					sim_at(&e->sim, t->next, EV_TASK, (uint32_t)(t - e->tasks), 0);
					return;
				}
			}
		}
		t->sub = 0;
		t->p++;
		if (t->p < t->end)
			t->next = e->sim.now + vmr_rec_delta(*t->p);
	}
	task_finish(e, t);
}

static void task_thread(void *arg)
{
	struct task_state *t = arg;
	t->blocked = 0;
	task_step(t->engine, t);
}

static void task_event(struct engine *e, uint32_t id)
{
	struct task_state *t = &e->tasks[id];
	if (t->finished)
		return;
	task_step(e, t);
	if (t->blocked && !t->finished)
		if (sim_thread_start(&e->sim, &t->thread, task_thread, t) != 0)
			e->failed = 1;
}

/* ---- set-up ------------------------------------------------------------------------- */

/* __setup_per_zone_wmarks with min_free_kbytes from
 * calculate_min_free_kbytes and watermark_scale_factor = 10. */
static void setup_watermarks(struct pglist_data *pgdat, uint64_t page_size)
{
	uint64_t kbytes = pgdat->present_pages * (page_size / 1024);
	uint64_t min_free_kbytes = 0;
	while ((min_free_kbytes + 1) * (min_free_kbytes + 1) <= kbytes * 16)
		min_free_kbytes++;
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
 * a large trace its TLB misses cost as much as its cache misses, so it
 * asks for transparent huge pages (a hint; zeroed either way). */
static struct folio *folio_array_alloc(uint32_t nr, size_t *bytes)
{
	size_t want = (size_t)(nr ? nr : 1) * sizeof(struct folio);
	size_t huge = 2u << 20;
	*bytes = (want + huge - 1) / huge * huge;
	void *p = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, *bytes, MADV_HUGEPAGE);
	return p;
}

static uint64_t meta_u64(const struct vmr *v, const char *key, uint64_t def)
{
	char buf[64];
	if (!vmr_meta_get(v, key, buf, sizeof(buf)))
		return def;
	return strtoull(buf, NULL, 10);
}

/* The trace's "cgroup" metadata lines: "pid limit swappiness path". */
struct cgroup_line {
	uint32_t pid;
	uint64_t limit;
	char path[128];
};

struct cgroup_lines {
	struct cgroup_line *l;
	size_t nr;
	int failed;
};

static void collect_cgroup(void *arg, const char *val, size_t len)
{
	struct cgroup_lines *cl = arg;
	char buf[256];
	struct cgroup_line c = { 0 };
	long long sw;
	int off = 0;
	snprintf(buf, sizeof(buf), "%.*s", (int)len, val);
	if (sscanf(buf, "%u %llu %lld %n", &c.pid, (unsigned long long *)&c.limit, &sw, &off) < 3 ||
	    !buf[off]) {
		cl->failed = 1;
		return;
	}
	snprintf(c.path, sizeof(c.path), "%s", buf + off);
	struct cgroup_line *n = realloc(cl->l, (cl->nr + 1) * sizeof(*n));
	if (!n) {
		cl->failed = 1;
		return;
	}
	cl->l = n;
	cl->l[cl->nr++] = c;
}

static void free_cgroup_lines(struct cgroup_lines *cl)
{
	free(cl->l);
	memset(cl, 0, sizeof(*cl));
}

static void init_memcg(struct engine *e, int idx, int parent, const char *name, int swappiness)
{
	struct mem_cgroup *mc = &e->memcgs[idx];
	memset(mc, 0, sizeof(*mc));
	mc->lruvec.memcg = idx;
	mc->parent = parent;
	mc->max = UINT64_MAX;
	mc->swappiness = swappiness;
	snprintf(mc->name, sizeof(mc->name), "%s", name);
	for (int l = 0; l < NR_LRU_LISTS; l++)
		mc->lruvec.head[l] = mc->lruvec.tail[l] = NIL;
}

/* The memcg of PATH under the session's (created, parents first, on
 * first use, so that a child's index is above its parent's). */
static int memcg_by_path(struct engine *e, const char *path, int swappiness)
{
	int parent = 1;
	char comp[128];
	const char *p = path;
	for (int depth = 0; *p; depth++) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (depth > 3 || n == 0 || n >= sizeof(comp))
			return -1;
		memcpy(comp, p, n);
		comp[n] = '\0';
		int found = -1;
		for (int m = 2; m < e->nr_memcgs; m++)
			if (e->memcgs[m].parent == parent && strcmp(e->memcgs[m].name, comp) == 0)
				found = m;
		if (found < 0) {
			found = e->nr_memcgs++;
			init_memcg(e, found, parent, comp, swappiness);
		}
		parent = found;
		p += n + (slash ? 1 : 0);
	}
	return parent;
}

int engine_init(struct engine *e, const struct vmr *v, const struct engine_params *p,
		char *err, size_t errlen)
{
	memset(e, 0, sizeof(*e));
	e->v = v;
	e->p = *p;
	e->policy = p->policy;
	e->timeline = p->timeline;
	e->keep_records = p->keep_records;
	e->rng = p->seed ^ 0x5851F42D4C957F2Dull;
	e->cost = (struct reclaim_costs){ .isolate_per_page = 50, .shrink_per_page = 400,
					  .unmap_per_page = 600, .active_per_page = 150 };
	uint64_t page_size = meta_u64(v, "page_size", 4096);

	if (sim_init(&e->sim, EV_WAKE) != 0)
		goto oom;
	e->nr_folios = (uint32_t)v->hdr->nr_pages;
	e->folio = folio_array_alloc(e->nr_folios, &e->folio_bytes);
	if (!e->folio)
		goto oom;
	for (uint32_t i = 0; i < e->nr_folios; i++) {
		if (v->pages[i].kind == VMR_PAGE_ANON)
			e->folio[i].flags = PG_swapbacked;
		if (v->pages[i].flags & VMR_PAGE_PRECACHED)
			e->folio[i].flags = PG_precached;
	}

	/* The machine: the node has the given RAM, or the capture's. */
	uint64_t node_bytes = p->node_memory ? p->node_memory : meta_u64(v, "mem_total", 0);
	if (!node_bytes)
		node_bytes = 2 * (uint64_t)e->nr_folios * page_size + (64ull << 20);
	e->node.present_pages = node_bytes / page_size;
	e->node.nr_free = e->node.present_pages;
	setup_watermarks(&e->node, page_size);

	/* Memory cgroups: the root; the session's cgroup when the capture
	 * had a limit or cgroups of its own; the trace's cgroups below it. */
	uint64_t limit = p->memory_limit ? p->memory_limit : meta_u64(v, "memory_limit", 0);
	struct cgroup_lines cl = { 0 };
	vmr_meta_each(v, "cgroup", collect_cgroup, &cl);
	if (cl.failed)
		goto oom;
	int cap = 2 + 2 * (int)cl.nr * 4;
	e->memcgs = calloc(cap, sizeof(*e->memcgs));
	if (!e->memcgs)
		goto oom;
	e->nr_memcgs = 1;
	init_memcg(e, 0, -1, "", p->swappiness);
	if (limit || cl.nr) {
		init_memcg(e, 1, 0, "", p->swappiness);
		if (limit)
			e->memcgs[1].max = limit / page_size;
		e->nr_memcgs = 2;
	}
	for (size_t i = 0; i < cl.nr; i++) {
		int m = memcg_by_path(e, cl.l[i].path, p->swappiness);
		if (m < 0) {
			free_cgroup_lines(&cl);
			snprintf(err, errlen, "%s: cgroup '%s' nests too deep", v->path, cl.l[i].path);
			engine_free(e);
			return -1;
		}
		if (cl.l[i].limit)
			e->memcgs[m].max = cl.l[i].limit / page_size;
	}

	if (backing_init(&e->swap, &p->swap) != 0 || backing_init(&e->file, &p->file) != 0)
		goto oom;
	/* The address index costs a sort: only a device that reads ahead needs it. */
	if (swap_use_readahead(e) && swap_ra_init(e) != 0)
		goto oom;
	e->swap_slots = p->swap_size / page_size;

	/* Processes (address spaces) and tasks. */
	e->nr_tasks = (uint32_t)v->hdr->nr_tasks;
	e->tasks = calloc(e->nr_tasks ? e->nr_tasks : 1, sizeof(*e->tasks));
	e->procs = calloc(e->nr_tasks ? e->nr_tasks : 1, sizeof(*e->procs));
	if (!e->tasks || !e->procs)
		goto oom;
	simtime_t t0 = UINT64_MAX, t_end = 0;
	for (uint32_t i = 0; i < e->nr_tasks; i++) {
		if (v->tasks[i].begin_ns < t0)
			t0 = v->tasks[i].begin_ns;
		if (v->tasks[i].end_ns > t_end)
			t_end = v->tasks[i].end_ns;
	}
	e->trace_start = t0;
	e->deadline = p->deadline ? p->deadline : (t_end > t0 ? t_end - t0 : 0);
	for (uint32_t i = 0; i < e->nr_tasks; i++) {
		const struct vmr_task *vt = &v->tasks[i];
		struct task_state *t = &e->tasks[i];
		uint32_t pr;
		for (pr = 0; pr < e->nr_procs; pr++)
			if (e->procs[pr].pid == vt->pid)
				break;
		if (pr == e->nr_procs) {
			e->procs[pr].pid = vt->pid;
			e->procs[pr].memcg = e->nr_memcgs > 1 ? 1 : 0;
			for (size_t c = 0; c < cl.nr; c++)
				if (cl.l[c].pid == vt->pid) {
					e->procs[pr].memcg = memcg_by_path(e, cl.l[c].path, p->swappiness);
					break;
				}
			e->procs[pr].alive = 1;
			e->nr_procs++;
		}
		e->procs[pr].nr_tasks++;
		t->engine = e;
		t->proc = pr;
		t->p = v->recs + vt->first_rec;
		t->end = t->p + vt->nr_recs;
		t->next = vt->begin_ns - t0 + (t->p < t->end ? vmr_rec_delta(*t->p) : 0);
		sim_at(&e->sim, t->next, EV_TASK, i, 0);
	}
	/* Anonymous pages belong to the process of their address space. */
	for (uint32_t i = 0; i < e->nr_folios; i++) {
		if (v->pages[i].kind != VMR_PAGE_ANON)
			continue;
		for (uint32_t pr = 0; pr < e->nr_procs; pr++)
			if (e->procs[pr].pid == v->pages[i].space) {
				e->folio[i].owner = pr;
				break;
			}
	}
	free_cgroup_lines(&cl);
	if (e->policy->init && e->policy->init(e) != 0)
		goto oom;
	if (sim_thread_start(&e->sim, &e->kswapd, kswapd_main, e) != 0)
		goto oom;
	sim_at(&e->sim, DIRTY_WRITEBACK_NS, EV_FLUSH, 0, 0);
	return 0;
oom:
	snprintf(err, errlen, "out of memory setting up the replay");
	engine_free(e);
	return -1;
}

int engine_run(struct engine *e)
{
	struct sim_event ev;
	struct progress *pr = &e->progress;
	progress_init(pr, e->p.progress, "replay", "tasks done");
	while (e->tasks_done < e->nr_tasks && !e->failed && !e->sim.failed && sim_next(&e->sim, &ev)) {
		switch (ev.kind) {
		case EV_WAKE:
			sim_thread_resume(&e->sim, (struct sim_thread *)(uintptr_t)ev.arg, ev.id);
			break;
		case EV_TASK:
			task_event(e, ev.id);
			break;
		case EV_IO_DONE:
			folio_end_writeback(e, ev.id);
			break;
		case EV_FLUSH:
			if (ev.id)
				e->flusher_kicked = 0;
			else
				sim_at(&e->sim, e->sim.now + DIRTY_WRITEBACK_NS, EV_FLUSH, 0, 0);
			flusher_run(e);
			break;
		}
		progress_update(pr, e->tasks_done);
	}
	progress_done(pr, e->tasks_done);
	e->stopping = 1;
	e->end_time = e->sim.now;
	return e->failed || e->sim.failed ? -1 : 0;
}

void engine_free(struct engine *e)
{
	if (e->policy && e->policy->exit)
		e->policy->exit(e);
	for (uint32_t i = 0; e->tasks && i < e->nr_tasks; i++)
		sim_thread_free(&e->tasks[i].thread);
	sim_thread_free(&e->kswapd);
	for (int r = 0; r < NR_VMSCAN_THROTTLE; r++)
		sim_waitq_free(&e->node.reclaim_wait[r]);
	sim_waitq_free(&e->kswapd_wait);
	sim_waitq_free(&e->pfmemalloc_wait);
	for (int i = 0; i < FOLIO_WAIT_TABLE_SIZE; i++)
		sim_waitq_free(&e->folio_wait_table[i]);
	backing_free(&e->swap);
	backing_free(&e->file);
	if (e->folio)
		munmap(e->folio, e->folio_bytes);
	swap_ra_free(e);
	free(e->memcgs);
	free(e->tasks);
	free(e->procs);
	free(e->records);
	free(e->dirty_list);
	sim_free(&e->sim);
	memset(e, 0, sizeof(*e));
}
