/*
 * memory.c — the page fault and the accesses of a task, after
 * mm/memory.c (do_anonymous_page, do_swap_page, zap_pte_range), the
 * fault and read paths of mm/filemap.c, and exit_mmap (mm/mmap.c).
 *
 * Left out (DEVIATIONS.md): page tables and VMAs (an anonymous folio has
 * one mapping, a PG_mapped flag and its young bit, a file folio a PTE per
 * address space, rmap.c; fault-around's window is aligned by file
 * offset), large folios; a folio being read is installed when its read
 * is issued, locked until the read completes (folio_start_read), and only
 * a task that faults it waits for the read.
 */
#include "internal.h"
#include "swap_state.h"
#include "vmscan.h"

#include <stdlib.h>
#include <string.h>

/* Does touching PFN need anything that can sleep (reclaim, I/O)?  The
 * engine runs a task's accesses inline until one does, then continues it
 * in a coroutine: this is the test, made before anything changes. */
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
	return !mem_cgroup_charge_fits(e, folio_charge_memcg(e, t, pfn), 1);
}

/* The owner released the page (zap_pte_range on munmap and exit,
 * delete_from_page_cache on unlink or truncate, free_swap_and_cache for
 * its slot): no shadow, no swap copy.  A folio a reclaimer holds is freed
 * when it is put back. */
void release_page(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	folio_free_swap(e, pfn);
	f->flags &= ~(PG_shadow | PG_seen | PG_swapped | PG_precached);
	/* A read still in flight is abandoned (truncate would wait for
	 * it): its folio_end_read finds the folio gone. */
	if (f->flags & PG_resident)
		f->flags &= ~PG_locked;
	if (!(f->flags & PG_resident)) {
		workingset_update_node(e, pfn);     /* its shadow went */
		return;
	}
	if (f->flags & PG_isolated) {
		f->flags |= PG_freed;
		return;
	}
	if (f->flags & PG_lru)
		lruvec_del_folio(e, folio_lruvec(e, pfn), pfn);
	free_unref_folio(e, pfn);
}

/* A read-ahead page joins its task's window (read_pages); HEAD: it
 * begins a folio. */
static int ra_window_add(struct task_state *t, uint32_t pfn, uint16_t seq, int head)
{
	if (t->ra_nr == t->ra_cap) {
		uint32_t cap = t->ra_cap ? 2 * t->ra_cap : 64;
		struct ra_page *ra = realloc(t->ra, cap * sizeof(*ra));
		if (!ra)
			return -1;
		t->ra = ra;
		t->ra_cap = cap;
	}
	t->ra[t->ra_nr++] = (struct ra_page){ pfn, seq, (uint16_t)head };
	return 0;
}

/* Does PFN take up the file of its task's read-ahead window at the
 * window's next index (page_cache_ra_unbounded's next page)? */
static int ra_window_follows(const struct engine *e, const struct task_state *t, uint32_t pfn)
{
	const struct vmr_page *last = &e->v->pages[t->ra[t->ra_nr - 1].pfn], *pg = &e->v->pages[pfn];
	return pg->space == last->space && pg->ino == last->ino && pg->index == last->index + 1;
}

/* A page that is not resident is brought in, as do_anonymous_page,
 * do_swap_page, filemap_fault and filemap_read do: allocated, charged,
 * read if it has been in memory before, checked against its shadow
 * (workingset_refault), added to the LRU.  OP READAHEAD brings in a page
 * nobody touches yet: a page-cache read-ahead page (FILE) or a swap
 * read-ahead page.  Returns 0 when the task was killed on the way. */
int fault_in(struct engine *e, struct task_state *t, uint32_t pfn, unsigned op, int file)
{
	struct folio *f = &e->folio[pfn];
	int readahead = op == VMR_OP_READAHEAD;
	int swap_ra = readahead && (f->flags & PG_swapped);
	/* lru_gen_enter_fault: a fault through the page tables is "in a
	 * fault" for MGLRU, and so is the read-ahead it does (swapin_readahead
	 * from do_swap_page, and a READAHEAD record flagged VMR_F_FAULT, say so
	 * in in_lru_fault; read before anything sleeps, cleared until the LRU
	 * insertion below). */
	int in_fault = op == VMR_OP_LOAD || op == VMR_OP_STORE || (readahead && e->in_lru_fault);
	e->in_lru_fault = 0;
	/* A swapped-out page comes back to its own memcg and owner
	 * (mem_cgroup_swapin_charge_folio charges the memcg that swapped it
	 * out): by swap offset, read-ahead may bring in another process's. */
	int memcg = swap_ra ? f->memcg : folio_charge_memcg(e, t, pfn);
	uint32_t owner = swap_ra ? f->owner : t->proc;
	/* Page-cache read-ahead allocates with readahead_gfp_mask
	 * (__GFP_NORETRY); swap read-ahead with the fault's own mask.  So does
	 * a read() that misses: filemap_get_pages reads the page in through
	 * page_cache_sync_readahead (page_cache_ra_unbounded's
	 * ractl_alloc_folio and filemap_add_folio with readahead_gfp_mask),
	 * and only when that inserted nothing does filemap_create_folio
	 * allocate with the mapping's own mask, which may OOM. */
	int noretry = file && (readahead || op == VMR_OP_READ);
	/* Read-ahead pages come in the same read as the page the task waits
	 * for (or asynchronously): they add no stall of their own. */
	int major = !readahead && ((f->flags & PG_swapped) || (file && (f->flags & PG_seen)));

	/* Others touching the page wait until it is in (folio_lock). */
	f->flags |= PG_locked;
	int r;
	for (;;) {
		r = alloc_pages(e, t, noretry);
		if (r == 1) {
			r = try_charge_memcg(e, t, memcg, 1, GFP_DIRECT_RECLAIM | (noretry ? GFP_NORETRY : 0));
			if (r != 1)
				e->node.nr_free++;
		}
		if (r != ALLOC_NOMEM || readahead || !noretry)
			break;
		noretry = 0;            /* filemap_create_folio */
	}
	if (r != 1) {
		f->flags &= ~PG_locked;
		sim_wake_all(&e->sim, folio_waitqueue(e, pfn));
		/* No memory for a read-ahead page: it is not read (as
		 * page_cache_ra_unbounded stops at a failed allocation). */
		return r == ALLOC_NOMEM ? 1 : r;
	}
	f->memcg = (uint16_t)memcg;
	if (f->owner != owner && !file)
		mm_adopt_page(e, owner, pfn);     /* out of memory: e->failed */
	f->owner = owner;
	e->procs[owner].rss++;

	/* When the folio's read completes, if one is issued; a synchronous
	 * device (zram) reads before the folio goes on the LRU
	 * (do_swap_page's SWP_SYNCHRONOUS_IO path), so it is never seen
	 * locked there. */
	simtime_t read_done = 0;
	struct backing *dev = file ? &e->file : &e->swap;
	if (major) {
		/* A refault: the task waits for the read (task_step resumes it
		 * at io_until).  The folio is installed when the read is issued,
		 * so other tasks do not wait for it (DEVIATIONS.md). */
		simtime_t done = submit_read(e, dev);
		if (op == VMR_OP_LOAD || op == VMR_OP_STORE)
			count_vm_events(e, VM_pgmajfault, 1);
		if (!file)
			count_vm_events(e, VM_pswpin, 1);
		t->io_until = done;
		t->stall_ns += done - e->sim.now;
		read_done = done;
	} else if (swap_ra) {
		/* Read in the same plug as the fault; nobody waits for it
		 * (swap_read_folio counts it in pswpin all the same). */
		read_done = submit_read(e, &e->swap);
		count_vm_events(e, VM_pswpin, 1);
		f->flags |= PG_readahead;
	}
	if (dev->p.sync)
		read_done = 0;
	/* A page-cache read-ahead page, inserted when the trace shows it
	 * (page_cache_ra_unbounded): locked until the window's read, which
	 * read_pages issues once the window is in, completes.  A page a
	 * task reads or faults for the first time is not: its record comes
	 * when the kernel had read it, the capture's gap holding the wait. */
	int in_window = readahead && file && !e->file.p.sync;
	if (in_window && ra_window_add(t, pfn, ++f->read_seq, e->folio_head) != 0) {
		e->failed = 1;
		in_window = 0;
	}

	f->flags |= PG_resident | PG_seen;
	f->flags &= ~(PG_active | PG_referenced | PG_workingset | PG_young | PG_mapped);
	if (!file)
		f->flags |= PG_swapbacked;
	if (f->flags & PG_swapped) {
		/* Swap-in (do_swap_page).  A synchronous device (zram) reads
		 * around the swap cache and frees the slot at once; otherwise
		 * the copy stays in swap, for a clean reclaim to drop, unless
		 * should_try_to_free_swap: a write fault, or swap more than
		 * half full.  A read-ahead page keeps its slot until mapped. */
		f->flags &= ~PG_swapped;
		f->flags |= PG_swapcache;
		if (!readahead && (e->swap.p.sync || op == VMR_OP_STORE || vm_swap_full(e)))
			folio_free_swap(e, pfn);
	}
	/* The kernel is "in a fault" for the whole fault; only the refault
	 * check and folio_add_lru below read it, and nothing sleeps between
	 * them.  A read() is not in a fault, nor is the read-ahead of one. */
	e->in_lru_fault = in_fault;
	/* Buffered writes add folios without a refault check; read-ahead
	 * ones have it (filemap_add_folio), like any insertion. */
	if (op != VMR_OP_WRITE)
		workingset_refault(e, pfn);
	else
		f->flags &= ~PG_shadow;
	if (op == VMR_OP_LOAD || op == VMR_OP_STORE) {
		count_vm_events(e, VM_pgfault, 1);
		if (file)
			folio_add_file_rmap_pte(e, pfn, t->proc);
		else
			f->flags |= PG_mapped | PG_young;
		/* do_read_fault: fault-around first; the read makes
		 * filemap_fault return VM_FAULT_RETRY, whose retry maps the
		 * read-around that follows (filemap_map_retry) */
		if (op == VMR_OP_LOAD && file) {
			filemap_map_pages(e, pfn, t->proc);
			t->fault_retry = pfn + 1;
		}
	} else if (readahead && file && in_fault) {
		filemap_map_retry(e, t, pfn);
	}
	/* A new anonymous page is dirty from the start: it has no copy. */
	if (op == VMR_OP_STORE || op == VMR_OP_WRITE || (!file && !(f->flags & PG_swapcache)))
		folio_mark_dirty(e, pfn);
	folio_add_lru(e, pfn);
	e->in_lru_fault = 0;                /* lru_gen_exit_fault */
	if (read_done > e->sim.now)
		folio_start_read(e, pfn, read_done);   /* stays locked */
	else if (!in_window)
		f->flags &= ~PG_locked;
	sim_wake_all(&e->sim, folio_waitqueue(e, pfn));
	if (major && !file && swap_use_readahead(e))
		return swapin_readahead(e, t, pfn);
	return 1;
}

/* BIO_MAX_VECS: the folios one read-ahead bio holds (ext4_mpage_readpages
 * and mpage_readahead allocate bio_max_segs(nr_pages) and submit a bio
 * when it is full; a folio of contiguous blocks is one segment). */
#define RA_BIO_FOLIOS 256u

/* The pages from FROM of the window that fit one bio: RA_BIO_FOLIOS
 * folios, a read-ahead record being one (a large folio is a run). */
static uint32_t ra_bio_pages(const struct task_state *t, uint32_t from)
{
	uint32_t n = 0, folios = 0;
	while (from + n < t->ra_nr) {
		if ((t->ra[from + n].head || n == 0) && ++folios > RA_BIO_FOLIOS)
			break;
		n++;
	}
	return n;
}

/* read_pages (mm/readahead.c): page_cache_ra_unbounded (page_cache_ra_order
 * for large folios) inserts a window's folios, locked, then reads them,
 * in bios of RA_BIO_FOLIOS.  The trace shows the insertions, not where a
 * window ends: a task's window ends with its run of read-ahead records,
 * the DELAY records of their times included (the engine calls this after
 * the last one, and at the task's end), before the read() or fault it was
 * for, or right after the fault whose asynchronous read-ahead it was; and
 * at a page page_cache_ra_unbounded found cached (access_page).  The
 * window takes ra_base + N x ra_page (submit_read_batched), its bios done
 * in order, each when the pages up to its last are read; each bio's end_io
 * (mpage_read_end_io) unlocks its folios still in memory and not brought
 * in again since (folio_end_read checks the read_seq). */
void read_pages(struct engine *e, struct task_state *t)
{
	if (!t->ra_nr)
		return;
	simtime_t done = submit_read_batched(e, &e->file, t->ra_nr);
	if (t->ra_nr == 1) {
		sim_at(&e->sim, done, EV_READ_DONE, t->ra[0].pfn, t->ra[0].seq);
		t->ra_nr = 0;
		return;
	}
	/* where the window's time has a part per page, the pages after a
	 * bio's are read after it */
	uint64_t per_page = e->file.p.ra_base_ns ? e->file.p.ra_page_ns : 0;
	for (uint32_t from = 0, n; from < t->ra_nr; from += n) {
		n = ra_bio_pages(t, from);
		struct read_bio *bio = read_bio_alloc(e);
		if (bio && bio->cap < n) {
			struct ra_page *pages = realloc(bio->pages, n * sizeof(*pages));
			if (pages) {
				bio->pages = pages;
				bio->cap = n;
			}
		}
		if (!bio || bio->cap < n) {
			e->failed = 1;
			break;
		}
		memcpy(bio->pages, t->ra + from, n * sizeof(*bio->pages));
		bio->nr = n;
		simtime_t bio_done = done - per_page * (t->ra_nr - from - n);
		sim_at(&e->sim, bio_done, EV_READ_BIO_DONE, (uint32_t)(bio - e->bios), 0);
	}
	t->ra_nr = 0;
}

/* An access to a resident anonymous folio that is not mapped: a minor
 * fault maps it (do_swap_page found it in the swap cache; then
 * should_try_to_free_swap, as for a swap-in). */
void do_swap_page_cached(struct engine *e, struct task_state *t, uint32_t pfn, unsigned op)
{
	struct folio *f = &e->folio[pfn];
	count_vm_events(e, VM_pgfault, 1);
	f->flags |= PG_mapped;
	if (f->flags & PG_swapcache) {
		swap_ra_hit(e, t->proc, pfn, !!(f->flags & PG_readahead));
		if (op == VMR_OP_LOAD && vm_swap_full(e))
			folio_free_swap(e, pfn);
	}
	f->flags &= ~PG_readahead;
}

int access_page(struct engine *e, struct task_state *t, uint32_t pfn, unsigned op, int file)
{
	struct folio *f = &e->folio[pfn];
	/* a fault's retry is over at the task's next other access */
	if (op != VMR_OP_READAHEAD)
		t->fault_retry = 0;
	if (op == VMR_OP_FREE) {
		release_page(e, pfn);
		return 1;
	}
	if (op == VMR_OP_READAHEAD) {
		/* page_cache_ra_unbounded skips a page already in the cache
		 * (or being read), and first reads the batch of pages it
		 * inserted before it ("Page already present?  Kick off the
		 * current batch of contiguous pages": read_pages); the others
		 * are added, not referenced.  The trace's insertions leave out
		 * the pages the kernel found there, so a page that does not
		 * take up the window's file at its next index ends the batch
		 * as well. */
		if (f->flags & (PG_resident | PG_locked)) {
			read_pages(e, t);
			e->in_lru_fault = 0;
			return 1;
		}
		if (t->ra_nr && !ra_window_follows(e, t, pfn))
			read_pages(e, t);
		if (!e->sim.current && needs_slowpath(e, t, pfn))
			return -1;
		return fault_in(e, t, pfn, op, file);
	}
	if (e->huge) {
		/* A THP fault's record (VMR_F_HUGE): its range's other pages,
		 * which the fault mapped or, had it fallen back, left alone;
		 * the faulting page, once a fallback is decided, goes on as a
		 * base page's fault (it may come back here from the coroutine) */
		uint32_t head = t->thp_head, nr = e->hpage_pmd_nr;
		if (t->thp_left && pfn > head && pfn < head + nr) {
			t->thp_left--;
			return 1;
		}
		if (!(pfn == head && t->thp_left == nr - 1 && !(f->flags & PG_resident))) {
			int r = do_huge_pmd_anonymous_page(e, t, pfn);
			if (r != VM_FAULT_FALLBACK)
				return r;
		}
	}
	if (!(f->flags & PG_resident) && (f->flags & PG_locked)) {
		/* Another task is bringing it in: wait for it (folio_wait_locked). */
		if (!e->sim.current)
			return -1;
		simtime_t t0 = e->sim.now;
		while ((f->flags & (PG_locked | PG_resident)) == PG_locked && !t->killed)
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
			folio_mark_accessed(e, pfn);
		return 1;
	}
	switch (op) {
	case VMR_OP_LOAD:
	case VMR_OP_STORE:
		if (file) {
			/* A process without a PTE for it faults (minor: map a
			 * cached page, do_fault_around first); one with a PTE
			 * sets its accessed bit, unless the kernel copies
			 * around it (uaccess_skips_pte). */
			if (!uaccess_skips_pte(e, e->uaccess, pfn, t->proc) && !folio_pte_mkyoung(e, pfn, t->proc) &&
			    folio_add_file_rmap_pte(e, pfn, t->proc)) {
				count_vm_events(e, VM_pgfault, 1);
				if (op == VMR_OP_LOAD)
					filemap_map_pages(e, pfn, t->proc);
			}
			if (op == VMR_OP_STORE)
				folio_mark_dirty(e, pfn);
			break;
		}
		access_anon_resident(e, t, pfn, op, e->uaccess);
		break;
	case VMR_OP_READ:
		folio_mark_accessed(e, pfn);
		break;
	case VMR_OP_WRITE:
		folio_mark_dirty(e, pfn);
		break;
	}
	return 1;
}

/* Another process's anonymous page faulted in for OWNER (a trace may
 * share an address space's pages between processes): it joins OWNER's
 * pages, for mm_walk to merge in. */
void mm_adopt_page(struct engine *e, uint32_t owner, uint32_t pfn)
{
	struct process *p = &e->procs[owner];
	pfn_list_add(e, &p->adopted, &p->nr_adopted, &p->cap_adopted, pfn);
}

/* A process's lists of page ids (its adopted pages, its file PTEs) grow
 * by doubling from 64; an allocation failure fails the replay. */
void pfn_list_add(struct engine *e, uint32_t **list, uint32_t *nr, uint32_t *cap,
		  uint32_t pfn)
{
	if (*nr == *cap) {
		uint32_t c = *cap ? 2 * *cap : 64;
		uint32_t *n = realloc(*list, c * sizeof(*n));
		if (!n) {
			e->failed = 1;
			return;
		}
		*list = n;
		*cap = c;
	}
	(*list)[(*nr)++] = pfn;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Merges the pages PROC adopted into its runs, dropping those another
 * process has taken over since.  -1 when out of memory. */
static int mm_merge_adopted(struct engine *e, uint32_t proc)
{
	struct process *p = &e->procs[proc];
	uint64_t all = p->nr_adopted;
	for (uint32_t r = 0; r < p->nr_runs; r++)
		all += p->runs[r].nr;
	uint32_t *m = malloc(all * sizeof(*m));
	struct mm_run *runs = malloc(all * sizeof(*runs));
	if (!m || !runs) {
		free(m);
		free(runs);
		e->failed = 1;
		return -1;
	}
	uint64_t n = 0, k = 0;
	for (uint32_t r = 0; r < p->nr_runs; r++)
		for (uint32_t i = 0; i < p->runs[r].nr; i++)
			m[n++] = p->runs[r].first + i;
	memcpy(m + n, p->adopted, p->nr_adopted * sizeof(*m));
	qsort(m, all, sizeof(*m), cmp_u32);
	for (uint64_t i = 0; i < all; i++) {
		if ((i && m[i - 1] == m[i]) || e->folio[m[i]].owner != proc)
			continue;
		if (k && runs[k - 1].first + runs[k - 1].nr == m[i])
			runs[k - 1].nr++;
		else
			runs[k++] = (struct mm_run){ m[i], 1 };
	}
	free(m);
	if (p->own_runs)
		free(p->runs);
	p->runs = runs;
	p->nr_runs = (uint32_t)k;
	p->own_runs = 1;
	p->nr_adopted = 0;
	return 0;
}

/* Calls FN for every anonymous page PROC owns, in ascending order (the
 * order the folio array was once walked in, so that pages are freed in
 * the same order).  FN may free the page, not change its owner. */
void mm_walk(struct engine *e, uint32_t proc, void (*fn)(struct engine *e, uint32_t proc, uint32_t pfn))
{
	struct process *p = &e->procs[proc];
	if (p->nr_adopted && mm_merge_adopted(e, proc) != 0)
		return;
	for (uint32_t r = 0; r < p->nr_runs; r++)
		for (uint32_t i = 0; i < p->runs[r].nr; i++)
			fn(e, proc, p->runs[r].first + i);
}

static void exit_mmap_one(struct engine *e, uint32_t proc, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	e->exit_mmap_visited++;
	if (f->owner == proc && (f->flags & PG_swapbacked) &&
	    (f->flags & (PG_resident | PG_swapped | PG_shadow)))
		release_page(e, pfn);
}

/* exit_mmap (mm/mmap.c): a process whose last task ended exits; its
 * anonymous memory is freed and its PTEs of file folios are zapped
 * (zap_file_ptes).  Only its own pages are walked, as
 * exit_mmap walks the mm's VMAs (a walk of all memory per exit made a
 * trace of many short processes quadratic). */
void exit_mmap(struct engine *e, uint32_t proc)
{
	e->procs[proc].alive = 0;
	mm_walk(e, proc, exit_mmap_one);
	zap_file_ptes(e, proc);
}
