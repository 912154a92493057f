/*
 * kdemand.c — kevents_finish: what the collected kernel events become at
 * the end of the trace.
 *
 * The events are put in time order (bridged events carry the kernel's
 * timestamp, which is not the order LTTng recorded them in) and the
 * process tree is rebuilt (fork, exec, exit, task names).  The events of
 * the workload's tasks and kswapd are the ground truth (.vmr KEVENTS; all
 * tasks' when the capture did not name the workload's first process).
 * Unless the trace holds an instrumented workload's exact access stream,
 * one walk over demand and process events in time order then turns page
 * faults, madvise populates and zaps, reads, page-cache insertions (read-ahead or a buffered write)
 * and deletions (a FREE, or an eviction kept as ground truth), exec, exit
 * and DAMON passes into the demand stream, and flags the file pages that
 * were cached before the session (replay/vmr/FORMAT.md, "Demand from
 * kernel events" and PAGES).  Left out, because the kernel's tracepoints
 * do not show them: accesses to pages already mapped (DAMON samples stand
 * in), writes to pages already cached, and munmap.
 */
#include "kevents_priv.h"
#include "ingest_sink.h"
#include "mix.h"

#include <gsl/gsl_statistics_double.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Orders and names                                                    */

static void unpack_comm(char out[16], const uint64_t *src)
{
	memcpy(out, src, 16);
	out[15] = '\0';
}

static int cmp_kev(const void *a, const void *b)
{
	const struct vmr_kev *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->reserved < y->reserved ? -1 : x->reserved > y->reserved;
}

static int cmp_dem(const void *a, const void *b)
{
	const struct kdem *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* When a pte_young observation's access was: some time between the
 * sampler's previous poll and the one that saw the PTE young (the
 * observation's time), which the capture does not say.  Placed at the
 * poll, every access came up to a period late, after the replay's own
 * reclaim had met the page cold and evicted it, and the replay swapped
 * back in what the trace showed in use (6.18 churn sw100, 2026-12-02:
 * pswpin 8,514 against the kernel's 6,296).  Each is moved back by a
 * hash of its page and poll, uniform over the period (polls are at least
 * a period apart: the agent starts one a period after the last one
 * started), so the accesses one poll saw spread over the interval they
 * came in, deterministically.  A page is reported only when it was
 * mapped to the same frame at both polls (capture/EVENTS.md), so the
 * access never moves before the fault that mapped it. */
static void place_young(struct kevents *k)
{
	uint64_t period = k->cap.young_period_ms * 1000000ull;
	if (!k->cap.have_young || !period)
		return;
	for (size_t i = 0; i < k->nr_dem; i++) {
		struct kdem *d = &k->dem[i];
		if (d->kind != KK_YOUNG)
			continue;
		uint64_t back = splitmix64_mix((d->a * 0x9E3779B97F4A7C15ull) ^
					       (d->ts * 0xC2B2AE3D27D4EB4Full) ^ d->pid) % period;
		d->ts = d->ts > back ? d->ts - back : 0;
	}
}

static int cmp_snap(const void *a, const void *b)
{
	const struct msnap *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_dt(const void *a, const void *b)
{
	const struct dtarget *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* ------------------------------------------------------------------ */
/* Demand                                                              */

struct walk {
	struct kevents *k;
	struct sink *s;
	struct execs ex;
	int shift;
};

/* Pages LO..HI of insertion A were read ahead: they enter the page cache
 * (and the session's memory) without being referenced; IN_FAULT: by the
 * fault before them (filemap_fault's read-ahead, VMR_F_FAULT). */
static int readahead_range(struct walk *w, const struct kdem *a, uint64_t lo, uint64_t hi,
			   int in_fault)
{
	w->k->n_readahead += hi - lo + 1;
	return ingest_sink_range(w->s, a->pid, a->tid, a->ts, VMR_PAGE_FILE, a->dev, a->a, lo, hi,
				 VMR_OP_READAHEAD | (in_fault ? VMR_F_FAULT : 0));
}

/* A read() that starts a synchronous read-ahead window waits for it:
 * filemap_get_pages calls page_cache_sync_readahead, which inserts the
 * window's folios locked and submits their read (read_pages), then
 * filemap_update_page waits for the lock of the folio at the read's
 * index, and only then is mm_filemap_get_pages traced.  The task's last
 * pending insertions, a run of consecutive indices of the read's file
 * that holds its index, are that window (not those of a fault's
 * read-ahead, flagged); from the last of them to the get_pages is the
 * window's read time as the capture's disk gave it — building the bios,
 * the queue, the device, the completion: the trace does not split them. */
static int note_sync_read(struct kevents *k, const struct tinfo *t, const struct kdem *d)
{
	if (!t->pend_nr)
		return 0;
	const struct kdem *last = &k->pend[t->pend_first + t->pend_nr - 1];
	if ((last->order & 0x80) || last->dev != d->dev || last->a != d->a || d->ts < last->ts)
		return 0;
	uint64_t lo = last->b, hi = last->b + (1ull << (last->order & 0x7f));
	for (size_t i = t->pend_nr - 1; i-- > 0;) {
		const struct kdem *a = &k->pend[t->pend_first + i];
		if ((a->order & 0x80) || a->dev != d->dev || a->a != d->a ||
		    a->b + (1ull << (a->order & 0x7f)) != lo)
			break;
		lo = a->b;
	}
	if (d->b < lo || d->b >= hi)
		return 0;
	if (GROW(k, ra_wait, nr_ra_wait, cap_ra_wait) != 0)
		return -1;
	k->ra_wait[k->nr_ra_wait++] = (struct ra_wait){ hi - lo, d->ts - last->ts };
	return 0;
}

/* Page-cache adds a task made since its last demand event are resolved
 * by what it does next: the read they were read-ahead for (a get_pages of
 * the same file) or the fault they came after drops them (the read or
 * fault names the pages it used); otherwise they were a buffered write's
 * new pages: WRITE. */
static int resolve_pending(struct walk *w, struct tinfo *t, const struct kdem *next)
{
	struct kevents *k = w->k;
	int rc = 0;
	for (size_t i = 0; i < t->pend_nr; i++) {
		const struct kdem *a = &k->pend[t->pend_first + i];
		int readahead = a->order & 0x80;   /* flagged: after a fault on this file */
		unsigned order = a->order & 0x7f;
		uint64_t lo = a->b, hi = a->b + (1ull << order) - 1;
		if (next && next->kind == KK_FILEMAP_GET_PAGES && next->dev == a->dev && next->a == a->a) {
			/* pages the read itself uses are its READs; the rest were
			 * read ahead and not (yet) referenced */
			uint64_t in_lo = lo > next->b ? lo : next->b, in_hi = hi < next->c ? hi : next->c;
			if (in_hi < in_lo) {
				rc |= readahead_range(w, a, lo, hi, 0);
			} else {
				if (lo < in_lo)
					rc |= readahead_range(w, a, lo, in_lo - 1, 0);
				if (in_hi < hi)
					rc |= readahead_range(w, a, in_hi + 1, hi, 0);
			}
			continue;
		}
		if (readahead) {
			rc |= readahead_range(w, a, lo, hi, 1);
			continue;
		}
		rc |= ingest_sink_range(w->s, a->pid, a->tid, a->ts, VMR_PAGE_FILE, a->dev, a->a, a->b,
					a->b + (1ull << order) - 1, VMR_OP_WRITE);
		k->n_write_pages += 1ull << order;
	}
	t->pend_nr = 0;
	return rc;
}

/* filemap_read calls filemap_get_pages until the read() is done, and the
 * tracepoint reports the range asked for, from the current position to
 * the read's last page (last_index, fixed for the read()), not the folios
 * the batch returned: a batch ends early at a folio marked for
 * read-ahead or not yet uptodate, and the next call asks for the rest
 * again.  filemap_read marks each folio it copies accessed once, so a
 * get_pages of the same task and file that starts inside its read's
 * first range and ends where it ends is that read() going on: its pages
 * are already referenced (measured under UML's hostfs: (32,63) then
 * (33,63) for every 128 KiB read, 1.5 references a page). */
static int same_read(const struct tinfo *t, const struct kdem *d)
{
	return t->read_hi && d->dev == t->read_dev && d->a == t->read_ino && d->c == t->read_hi &&
	       d->b > t->read_lo && d->b <= t->read_hi;
}

/* ---- file pages cached before the session ------------------------------ */

/* In both cgroup versions a page-cache page is charged to the cgroup of
 * the task that inserted it and stays there however often others use
 * it.  A file page the workload used but never inserted (a compiler's
 * text, shared libraries, headers read by an earlier build) was already
 * cached: the session's limit reclaim never sees it.  Such pages are
 * flagged VMR_PAGE_PRECACHED and the replay charges them outside the
 * session (fault_in).  A page inserted by the workload at any
 * time counts as its own from its first use (DEVIATIONS.md). */
static int note_insertion(struct kevents *k, const struct kdem *d)
{
	uint64_t n = 1ull << (d->order & 0x7f);
	if (array_grow((void **)&k->ins, &k->cap_ins, k->nr_ins + n, sizeof(*k->ins)) != 0)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		k->ins[k->nr_ins++] = (struct pkey){ d->dev, d->a, d->b + i };
	return 0;
}

static int cmp_pkey(const void *a, const void *b)
{
	const struct pkey *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static void flag_if_not_inserted(void *arg, struct vmr_page *p)
{
	struct kevents *k = arg;
	struct pkey key = { p->space, p->ino, p->index };
	if (!k->nr_ins || !bsearch(&key, k->ins, k->nr_ins, sizeof(*k->ins), cmp_pkey)) {
		p->flags |= VMR_PAGE_PRECACHED;
		k->n_precached++;
	}
}

/* VMR_PAGE_EXEC for the file pages faulted through a VM_EXEC mapping. */
static void flag_if_exec(void *arg, struct vmr_page *p)
{
	struct kevents *k = arg;
	struct pkey key = { p->space, p->ino, p->index };
	if (k->nr_exec && bsearch(&key, k->exec, k->nr_exec, sizeof(*k->exec), cmp_pkey))
		p->flags |= VMR_PAGE_EXEC;
}

static void mark_precached(struct kevents *k, struct sink *s)
{
	if (k->nr_ins)
		qsort(k->ins, k->nr_ins, sizeof(*k->ins), cmp_pkey);
	ingest_sink_each_file_page(s, flag_if_not_inserted, k);
	if (k->nr_exec) {
		qsort(k->exec, k->nr_exec, sizeof(*k->exec), cmp_pkey);
		ingest_sink_each_file_page(s, flag_if_exec, k);
	}
}

static int add_pending(struct walk *w, struct tinfo *t, const struct kdem *d)
{
	struct kevents *k = w->k;
	if (t->pend_nr && t->pend_first + t->pend_nr != k->nr_pend) {
		/* keep each task's pending adds contiguous: move them to the end */
		if (array_grow((void **)&k->pend, &k->cap_pend, k->nr_pend + t->pend_nr + 1, sizeof(*k->pend)) != 0)
			return -1;
		memmove(k->pend + k->nr_pend, k->pend + t->pend_first, t->pend_nr * sizeof(*k->pend));
		t->pend_first = k->nr_pend;
		k->nr_pend += t->pend_nr;
	}
	if (!t->pend_nr)
		t->pend_first = k->nr_pend;
	if (array_grow((void **)&k->pend, &k->cap_pend, k->nr_pend + 1, sizeof(*k->pend)) != 0)
		return -1;
	struct kdem p = *d;
	p.order &= 0x7f;
	if (t->last_fault_file && t->last_fault_dev == d->dev && t->last_fault_ino == d->a)
		p.order |= 0x80;
	k->pend[k->nr_pend++] = p;
	t->pend_nr++;
	return 0;
}

/* The mapping ADDR lies in for process PID at TS (kev_region_of).  A
 * process forked in the trace and not exec'd since has its parent's
 * mappings (dup_mmap copies them) until the capture snapshots its own: a
 * worker that lives shorter than the snapshot period has none, so the
 * parent's at the fork stand in (up the chain of forks, a few levels). */
static const struct mreg *fault_region(struct walk *w, uint32_t pid, uint64_t ts, uint64_t addr)
{
	struct kevents *k = w->k;
	for (int level = 0; level < 8; level++) {
		uint32_t epoch = kev_epoch_of(&w->ex, pid, ts);
		const struct mreg *r = kev_region_of(k, pid, epoch, ts, addr);
		const struct tinfo *t = kev_tinfo(k, pid, 0);
		if (r || epoch || !t || !t->fork_ts || kev_snap_at(k, pid, 0, ts))
			return r;
		const struct tinfo *parent = kev_tinfo(k, t->ppid, 0);
		if (!parent)
			return NULL;
		pid = parent->pid ? parent->pid : parent->tid;
		ts = t->fork_ts;
	}
	return NULL;
}

/* The mapping of a kernel-mode write fault of process PID at ADDR, at TS,
 * when PID execs after TS and the image that exec loads maps ADDR
 * otherwise than OLD (the mapping fault_region found there in the old
 * image, or NULL).  sched_process_exec fires after exec_binprm's
 * load_elf_binary has returned, and the loader already runs in the new
 * mm (begin_new_exec's exec_mmap): its writes — padzero's clear_user of
 * a data segment's tail through the new image's private file mapping,
 * create_elf_tables' to the new stack — fault before the exec event, in
 * mappings only the new image's snapshots have.  Before exec_mmap,
 * execve only reads the old mm (copy_strings).  So the page-cache
 * insertions after such a fault are its do_cow_fault read-in and
 * read-ahead of the new image's file, not write()s of some other. */
static const struct mreg *exec_loader_region(struct walk *w, uint32_t pid, uint64_t ts, uint64_t addr,
					     const struct mreg *old)
{
	uint32_t epoch = kev_epoch_of(&w->ex, pid, ts);
	if (kev_epoch_of(&w->ex, pid, UINT64_MAX) == epoch)
		return old;            /* no exec of PID after TS */
	const struct mreg *r = kev_region_of(w->k, pid, epoch + 1, ts, addr);
	if (!r || (old && old->file == r->file && (!r->file || (old->dev == r->dev && old->ino == r->ino))))
		return old;
	return r;
}

/* ---- anonymous THP faults ---------------------------------------------- */

/* The VMA flag the advice gives the page at ADDR of process PID at TS:
 * 1 VM_HUGEPAGE, -1 VM_NOHUGEPAGE, 0 neither; *SPLIT when later advice
 * covers part of [HADDR, HEND) only, which split the VMA inside that PMD
 * range (madvise_update_vma), so no PMD maps it.  A process forked in the
 * trace and not exec'd since has its parent's flags from the fork on
 * (dup_mmap copies the VMAs), as fault_region takes its mappings. */
static int hugepage_advice(struct walk *w, uint32_t pid, uint64_t ts, uint64_t addr, uint64_t haddr,
			   uint64_t hend, int *split)
{
	struct kevents *k = w->k;
	*split = 0;
	for (int level = 0; level < 8; level++) {
		uint32_t epoch = kev_epoch_of(&w->ex, pid, ts);
		int found = 0;
		for (size_t i = k->nr_hpadv; i-- > 0;) {
			const struct hpadv *a = &k->hpadv[i];
			if (a->pid != pid || a->epoch != epoch || a->ts > ts || a->end <= haddr || a->start >= hend)
				continue;
			if (a->start > haddr || a->end < hend)
				*split = 1;
			if (a->start <= addr && addr < a->end) {
				found = a->on ? 1 : -1;
				break;
			}
		}
		const struct tinfo *t = kev_tinfo(k, pid, 0);
		if (found || epoch || !t || !t->fork_ts)
			return found;
		const struct tinfo *parent = kev_tinfo(k, t->ppid, 0);
		if (!parent)
			return 0;
		pid = parent->pid ? parent->pid : parent->tid;
		ts = t->fork_ts;
	}
	return 0;
}

/* A write fault on anonymous memory (D, in region R: NULL outside any
 * known mapping).  __handle_mm_fault takes create_huge_pmd when the PMD
 * is none and thp_vma_allowable_order allows PMD_ORDER: THP "always", or
 * "madvise" in a VM_HUGEPAGE VMA, never in a VM_NOHUGEPAGE one; and
 * do_huge_pmd_anonymous_page maps a PMD-sized folio where the aligned
 * range lies inside the VMA (thp_vma_suitable_order).  The VMA's bounds:
 * the advice's range in "madvise" mode (hugepage_madvise splits the VMA
 * there), the maps snapshot's region in "always" mode.  The PMD is none
 * where the trace never had a page of the range: a base page faulted
 * there once leaves its page table (zap_pte_range and swap-out keep
 * it).  A read fault maps the huge zero page instead and allocates
 * nothing (a later write splits it to base pages): it stays as it is.
 * The THP fault is the faulting page's record, flagged VMR_F_HUGE, then
 * the rest of the range, so its ids run on from the faulting page's
 * (FORMAT.md); the replay charges them as one folio and falls back to
 * the one page when the charge fails (replay/mm/huge_memory.c). */
static int thp_fault(struct walk *w, const struct kdem *d, const struct mreg *r, unsigned op)
{
	struct kevents *k = w->k;
	uint64_t page = d->a >> w->shift;
	uint64_t nr = vmr_hpage_pmd_nr(1ull << w->shift);
	uint64_t hlo = page & ~(nr - 1), hhi = hlo + nr - 1;
	uint64_t haddr = hlo << w->shift, hend = (hhi + 1) << w->shift;
	int huge = 0;
	if (k->thp_mode) {
		int split;
		int adv = hugepage_advice(w, d->pid, d->ts, d->a, haddr, hend, &split);
		if (k->thp_mode == THP_MADVISE)
			huge = adv > 0 && !split;
		else
			huge = adv >= 0 && !split && r && r->start <= haddr && hend <= r->end;
		huge = huge && ingest_sink_untouched(w->s, VMR_PAGE_ANON, d->pid, 0, hlo, hhi);
	}
	if (!huge)
		return ingest_sink_range(w->s, d->pid, d->tid, d->ts, VMR_PAGE_ANON, d->pid, 0, page, page, op);
	k->n_fault_thp++;
	op |= VMR_F_HUGE;
	int rc = ingest_sink_range(w->s, d->pid, d->tid, d->ts, VMR_PAGE_ANON, d->pid, 0, page, page, op);
	if (page > hlo)
		rc |= ingest_sink_range(w->s, d->pid, d->tid, d->ts, VMR_PAGE_ANON, d->pid, 0, hlo, page - 1, op);
	if (page < hhi)
		rc |= ingest_sink_range(w->s, d->pid, d->tid, d->ts, VMR_PAGE_ANON, d->pid, 0, page + 1, hhi, op);
	return rc;
}

static int on_fault(struct walk *w, struct tinfo *t, const struct kdem *d)
{
	struct kevents *k = w->k;
	uint64_t addr = d->a, ec = d->b;
	int write = (ec & 2) != 0;
	/* A kernel-mode fault (x86's error code without USER, bit 2) is a
	 * user copy touching the page: the task's access all the same.  In
	 * the test bed's User-Mode Linux (the only kernel a capture names a
	 * test-bed build of) the copy faults only for a missing or
	 * write-protected PTE and then goes through the kernel's mapping of
	 * the page (maybe_map and do_op_one_page, arch/um/kernel/skas/
	 * uaccess.c): a copy to a page whose PTE is there sets no accessed
	 * bit, which the record says (VMR_F_UACCESS); x86's copies go
	 * through the PTE. */
	unsigned op = write ? VMR_OP_STORE : VMR_OP_LOAD;
	if (!(ec & 4)) {
		k->n_fault_kernel++;
		if (k->cap.build_source[0])
			op |= VMR_F_UACCESS;
	}
	const struct mreg *r = fault_region(w, d->pid, d->ts, addr);
	if ((ec & 6) == 2)             /* a kernel-mode write */
		r = exec_loader_region(w, d->pid, d->ts, addr, r);
	/* The page-cache insertions after a fault in a file mapping are its
	 * read-in and read-ahead (filemap_fault), the mapping's file page
	 * being mapped or, for a write to a private mapping, copied to a new
	 * anonymous page (do_cow_fault: __do_fault reads the file folio and
	 * its read-ahead first, and the copy leaves them in the page cache,
	 * clean and not referenced). */
	t->last_fault_file = r && r->file;
	if (t->last_fault_file) {
		t->last_fault_dev = r->dev;
		t->last_fault_ino = r->ino;
	}
	if (r && r->file && !(write && r->priv)) {
		uint64_t index = (addr - r->start + r->pgoff) >> w->shift;
		k->n_fault_file++;
		if (r->exec) {
			if (array_grow((void **)&k->exec, &k->cap_exec, k->nr_exec + 1, sizeof(*k->exec)) != 0)
				return -1;
			k->exec[k->nr_exec++] = (struct pkey){ r->dev, r->ino, index };
		}
		return ingest_sink_range(w->s, d->pid, d->tid, d->ts, VMR_PAGE_FILE, r->dev, r->ino,
					 index, index, op);
	}
	if (!r)
		k->n_fault_unmapped++;
	else if (r->file)
		k->n_fault_cow++;
	k->n_fault_anon++;
	uint64_t page = addr >> w->shift;
	if (write && (!r || !r->file))
		return thp_fault(w, d, r, op);
	return ingest_sink_range(w->s, d->pid, d->tid, d->ts, VMR_PAGE_ANON, d->pid, 0, page, page, op);
}

/* Pages A..B (addresses, B exclusive) of region R (NULL: anonymous memory
 * outside any known mapping) under the advice of the madvise T is in.
 * POPULATE_READ/WRITE fault every page in through GUP (madvise_populate
 * -> faultin_page_range -> handle_mm_fault), as a load or a store would,
 * but no exception tracepoint sees it; a read of anonymous memory never
 * touched maps the zero page and allocates nothing (do_anonymous_page),
 * so there only the pages the task already has are loaded — swapped-out
 * ones come back.  A write to a private file mapping makes anonymous
 * copies.  DONTNEED zaps the range (zap_page_range_single): anonymous
 * pages are freed, page-cache pages only unmapped. */
static int madvise_part(struct walk *w, struct tinfo *t, const struct mreg *r, uint64_t a, uint64_t b)
{
	struct kevents *k = w->k;
	uint32_t pid = t->pid ? t->pid : t->tid;
	uint64_t ts = t->madv_ts, advice = t->madv_advice;
	uint64_t lo = a >> w->shift, hi = (b - 1) >> w->shift;
	int write = advice == MADV_POPULATE_WRITE;
	if (advice == MADV_DONTNEED || advice == MADV_DONTNEED_LOCKED) {
		if (r && r->file && !r->priv)
			return 0;
		k->n_madv_dropped += hi - lo + 1;
		return ingest_sink_range(w->s, pid, t->tid, ts, VMR_PAGE_ANON, pid, 0, lo, hi, VMR_OP_FREE);
	}
	if (r && r->file && !(write && r->priv)) {
		uint64_t ilo = (a - r->start + r->pgoff) >> w->shift, ihi = (b - 1 - r->start + r->pgoff) >> w->shift;
		/* the page-cache insertions the populate made are its own
		 * pages, read-ahead around them the rest (as for a read) */
		struct kdem use = { .ts = ts, .tid = t->tid, .pid = pid, .kind = KK_FILEMAP_GET_PAGES,
				    .dev = r->dev, .a = r->ino, .b = ilo, .c = ihi };
		if (resolve_pending(w, t, &use) != 0)
			return -1;
		k->n_madv_populated += ihi - ilo + 1;
		return ingest_sink_range(w->s, pid, t->tid, ts, VMR_PAGE_FILE, r->dev, r->ino, ilo, ihi,
					 write ? VMR_OP_STORE : VMR_OP_LOAD);
	}
	if (write) {
		k->n_madv_populated += hi - lo + 1;
		return ingest_sink_range(w->s, pid, t->tid, ts, VMR_PAGE_ANON, pid, 0, lo, hi, VMR_OP_STORE);
	}
	int64_t n = ingest_sink_known(w->s, pid, t->tid, ts, VMR_PAGE_ANON, pid, 0, lo, hi, VMR_OP_LOAD);
	if (n < 0)
		return -1;
	k->n_madv_populated += (uint64_t)n;
	return 0;
}

/* The exit of the madvise T is in: RET 0, and the call did it. */
static int on_madvise_exit(struct walk *w, struct tinfo *t, int64_t ret)
{
	struct kevents *k = w->k;
	if (!t->madv_open)
		return 0;                      /* advice that moves no pages */
	t->madv_open = 0;
	k->n_madv_calls++;
	if (ret != 0) {
		k->n_madv_failed++;
		return 0;
	}
	uint64_t ps = 1ull << w->shift;
	uint64_t start = t->madv_start, end = start + ((t->madv_len + ps - 1) & ~(ps - 1));
	if (end <= start)
		return 0;
	uint32_t pid = t->pid ? t->pid : t->tid;
	/* hugepage_madvise sets the VMAs' flag and moves no page: a range
	 * of any length (a heap reserved at start-up) */
	if (t->madv_advice == MADV_HUGEPAGE || t->madv_advice == MADV_NOHUGEPAGE) {
		if (GROW(k, hpadv, nr_hpadv, cap_hpadv) != 0)
			return -1;
		int on = t->madv_advice == MADV_HUGEPAGE;
		k->hpadv[k->nr_hpadv++] = (struct hpadv){ t->madv_ts, start, end, pid,
							  kev_epoch_of(&w->ex, pid, t->madv_ts), on };
		if (on)
			k->n_madv_hugepage++;
		else
			k->n_madv_nohugepage++;
		return 0;
	}
	/* What a populate brings in has to fit in the session's memory and
	 * swap: more is a damaged length, not billions of page ids. */
	uint64_t mem = ingest_sink_mem_total(w->s);
	if (mem && end - start > mem + k->cap.swap_size) {
		ingest_sink_fail(w->s, "%s: event syscall_entry_madvise: field len_in: %llu bytes is more "
				 "than the session's memory and swap (%llu)", k->trace ? k->trace : "trace",
				 (unsigned long long)(end - start), (unsigned long long)(mem + k->cap.swap_size));
		return -1;
	}
	const struct msnap *sn = kev_snap_at(k, pid, kev_epoch_of(&w->ex, pid, t->madv_ts), t->madv_ts);
	const struct mreg *r = sn && sn->nr ? k->reg + sn->first : NULL;
	/* the parts inside known mappings as those mappings say, the rest
	 * as anonymous memory (as faults outside any known mapping are) */
	uint64_t at = start;
	for (size_t i = 0; r && i < sn->nr && at < end; i++) {
		if (r[i].end <= at || r[i].start >= end)
			continue;
		if (r[i].start > at && madvise_part(w, t, NULL, at, r[i].start) != 0)
			return -1;
		uint64_t a = r[i].start > at ? r[i].start : at, b = r[i].end < end ? r[i].end : end;
		if (madvise_part(w, t, &r[i], a, b) != 0)
			return -1;
		at = b;
	}
	return at < end ? madvise_part(w, t, NULL, at, end) : 0;
}

/* A pte_young observation: pages D->a .. +D->b of process D->pid were
 * accessed between the sampler's previous poll and this one without a
 * fault: a LOAD (a STORE when the PTE was dirty, D->c) of those the trace
 * already has resident, resolved as a fault at that address would be
 * (fault_region), at D->ts, a point of that interval (place_young).  A
 * PTE of a MAP_PRIVATE file mapping maps the page cache or an anonymous
 * copy: the copy where the trace has one.  Pages the
 * trace never had (mapped by fault-around or fork, never faulted) are
 * counted, not invented. */
static int on_young(struct walk *w, const struct kdem *d)
{
	struct kevents *k = w->k;
	uint32_t pid = d->pid;
	struct tinfo *t = kev_tinfo(k, pid, 0);
	if (t && t->pend_nr && resolve_pending(w, t, NULL) != 0)
		return -1;
	uint64_t lo = d->a >> w->shift, hi = (d->a + d->b - 1) >> w->shift;
	const struct mreg *r = fault_region(w, pid, d->ts, d->a);
	int64_t n = 0;
	/* A dirty PTE was written since it was mapped (or cleaned) and the
	 * folio is dirty when reclaim unmaps it (try_to_unmap_one's
	 * folio_mark_dirty): do_swap_page maps a read fault's exclusive
	 * anonymous folio writable and clean, so the write that follows,
	 * which no fault shows, makes the swap cache's copy stale. */
	unsigned op = d->c ? VMR_OP_STORE : VMR_OP_LOAD;
	if (!r || !r->file || r->priv)
		n = ingest_sink_known(w->s, pid, pid, d->ts, VMR_PAGE_ANON, pid, 0, lo, hi, op);
	if (n == 0 && r && r->file)
		n = ingest_sink_known(w->s, pid, pid, d->ts, VMR_PAGE_FILE, r->dev, r->ino,
				      (d->a - r->start + r->pgoff) >> w->shift,
				      (d->a + d->b - 1 - r->start + r->pgoff) >> w->shift, op);
	if (n < 0)
		return -1;
	k->n_young++;
	k->n_young_refs += (uint64_t)n;
	k->n_young_unknown += (hi - lo + 1) - (uint64_t)n;
	return 0;
}

/* One DAMON pass over a region: the resident pages already known of the
 * window damon_window picks (damon.h: the pages DAMON's sampling supports). */
static int on_damon_pass(struct walk *w, const struct kdem *d)
{
	struct kevents *k = w->k;
	uint32_t pid = d->pid;
	struct tinfo *t = kev_tinfo(k, pid, 0);
	uint32_t tid = pid;
	if (t && t->pend_nr && resolve_pending(w, t, NULL) != 0)
		return -1;
	const struct msnap *sn = kev_snap_at(k, pid, kev_epoch_of(&w->ex, pid, d->ts), d->ts);
	uint64_t len, first = damon_window(&k->damon, d->a >> w->shift, (d->b - d->a) >> w->shift,
					   (uint32_t)d->c, d->ts, &len);
	if (!len)
		return 0;
	uint64_t start = first << w->shift, end = (first + len) << w->shift;
	int64_t n = 0;
	if (!sn) {                     /* no maps: the region is anonymous memory */
		n = ingest_sink_known(w->s, pid, tid, d->ts, VMR_PAGE_ANON, pid, 0, start >> w->shift,
				      (end - 1) >> w->shift, VMR_OP_LOAD);
	} else {
		/* an empty snapshot has no regions (and k->reg may be NULL) */
		const struct mreg *r = sn->nr ? k->reg + sn->first : NULL;
		for (size_t i = 0; i < sn->nr && n >= 0; i++) {
			if (r[i].end <= start || r[i].start >= end)
				continue;
			uint64_t a = r[i].start > start ? r[i].start : start;
			uint64_t b = r[i].end < end ? r[i].end : end;
			int64_t m;
			if (r[i].file) {
				m = ingest_sink_known(w->s, pid, tid, d->ts, VMR_PAGE_FILE, r[i].dev, r[i].ino,
						      (a - r[i].start + r[i].pgoff) >> w->shift,
						      (b - 1 - r[i].start + r[i].pgoff) >> w->shift, VMR_OP_LOAD);
				if (m >= 0 && r[i].priv) {     /* written pages became anon */
					int64_t m2 = ingest_sink_known(w->s, pid, tid, d->ts, VMR_PAGE_ANON, pid, 0,
								       a >> w->shift, (b - 1) >> w->shift,
								       VMR_OP_LOAD);
					m = m2 < 0 ? -1 : m + m2;
				}
			} else {
				m = ingest_sink_known(w->s, pid, tid, d->ts, VMR_PAGE_ANON, pid, 0,
						      a >> w->shift, (b - 1) >> w->shift, VMR_OP_LOAD);
			}
			n = m < 0 ? -1 : n + m;
		}
	}
	if (n < 0)
		return -1;
	k->n_damon_refs += (uint64_t)n;
	return 0;
}

static int push_out(struct kevents *k, const struct vmr_kev *e)
{
	if (array_grow((void **)&k->out, &k->cap_out, k->nr_out + 1, sizeof(*k->out)) != 0)
		return -1;
	k->out[k->nr_out++] = *e;
	return 0;
}

static void name_task(void *arg, uint32_t tid, uint32_t *ppid, char comm[16])
{
	struct kevents *k = arg;
	struct tinfo *t = kev_tinfo(k, tid, 0);
	if (!t)
		return;
	if (!*ppid)
		*ppid = t->ppid;
	if (!comm[0] && t->comm[0])
		memcpy(comm, t->comm, 16);
}

/* DAMON samples → passes (demand entries of kind KK_DAMON_PASS). */
static int expand_damon(struct kevents *k)
{
	size_t nr = k->nr_dem;
	for (size_t i = 0; i < nr; i++) {
		if (k->dem[i].kind != KK_DAMON)
			continue;
		struct kdem d = k->dem[i];
		uint32_t target = (uint32_t)(d.c >> 32), acc = (uint32_t)d.c;
		/* the pid DAMON monitored as TARGET at that time */
		int32_t pid = -1;
		for (size_t j = 0; j < k->nr_dt && k->dt[j].ts <= d.ts; j++)
			if (k->dt[j].id == target)
				pid = k->dt[j].pid;
		if (pid < 0 && k->nr_dt == 0 && target == 0 && k->root_pid)
			pid = (int32_t)k->root_pid;
		k->n_damon_regions++;
		if (pid <= 0) {
			k->n_damon_lost++;
			continue;
		}
		unsigned passes = damon_passes(&k->damon, acc);
		for (unsigned j = 0; j < passes; j++) {
			if (array_grow((void **)&k->dem, &k->cap_dem, k->nr_dem + 1, sizeof(*k->dem)) != 0)
				return -1;
			struct kdem *p = &k->dem[k->nr_dem++];
			*p = d;
			p->kind = KK_DAMON_PASS;
			p->pid = (uint32_t)pid;
			p->tid = (uint32_t)pid;
			p->ts = damon_pass_time(&k->damon, d.ts, passes, j);
			p->seq = k->seq++;
			k->n_damon_passes++;
		}
	}
	return 0;
}

static int cmp_ra_wait(const void *a, const void *b)
{
	const struct ra_wait *x = a, *y = b;
	if (x->pages != y->pages)
		return x->pages < y->pages ? -1 : 1;
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/* A read-ahead window's read time as a line in its pages, a + b * pages,
 * through the capture's synchronous windows (note_sync_read), taken at
 * their lower envelope: a window waited for behind requests already in
 * the device's queue (another window's, a swap-in's) took longer by
 * their time, which is not the window's, and which the replay, whose
 * windows take no queue slot, must not stretch by the page.  A window of
 * more pages never reads faster on an idle device, so the fastest wait
 * seen for a window of N pages or more, L(N), is what N pages took at
 * most with nothing ahead.  The line through the L(N) of the sizes seen
 * at least twice is Theil-Sen's: b the median slope over their pairs, a
 * the median of what each took beyond b a page.  Written where two such
 * sizes were seen (file_ra_base_ns, file_ra_page_ns, file_ra_windows:
 * all the windows; run.c gives them to the replay's file device,
 * page_io.c's submit_read_batched). */
static void meta_ra_read_time(struct kevents *k, struct sink *s)
{
	size_t n = 0;
	if (k->nr_ra_wait < 4)
		return;              /* two sizes seen twice need four windows */
	qsort(k->ra_wait, k->nr_ra_wait, sizeof(*k->ra_wait), cmp_ra_wait);
	/* the fastest of each size seen twice or more, first in its run:
	 * kept in place (of a size seen once, its one wait is not known to
	 * have had nothing ahead of it) */
	for (size_t i = 0; i + 1 < k->nr_ra_wait; i++)
		if ((!i || k->ra_wait[i].pages != k->ra_wait[i - 1].pages) &&
		    k->ra_wait[i + 1].pages == k->ra_wait[i].pages)
			k->ra_wait[n++] = k->ra_wait[i];
	if (n < 2)
		return;
	/* L(N): the fastest of N pages or more */
	for (size_t i = n - 1; i-- > 0;)
		if (k->ra_wait[i + 1].ns < k->ra_wait[i].ns)
			k->ra_wait[i].ns = k->ra_wait[i + 1].ns;
	/* the pairs' slopes, then each size's intercept: n(n-1)/2 of the
	 * first, n of the second (more than the pairs where n is 2) */
	size_t pairs = n * (n - 1) / 2;
	double *v = malloc((pairs > n ? pairs : n) * sizeof(*v));
	if (!v)
		return;              /* no calibration: the median request stands */
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			v[m++] = ((double)k->ra_wait[j].ns - (double)k->ra_wait[i].ns) /
				 ((double)k->ra_wait[j].pages - (double)k->ra_wait[i].pages);
	double b = gsl_stats_median(v, 1, m);   /* reorders V */
	if (b < 0)
		b = 0;               /* a read never takes less for more pages */
	for (size_t i = 0; i < n; i++)
		v[i] = (double)k->ra_wait[i].ns - b * (double)k->ra_wait[i].pages;
	double a = gsl_stats_median(v, 1, n);
	ingest_sink_meta(s, "file_ra_base_ns", "%llu", (unsigned long long)(a < 1 ? 1 : a + 0.5));
	ingest_sink_meta(s, "file_ra_page_ns", "%llu", (unsigned long long)(b + 0.5));
	ingest_sink_meta(s, "file_ra_windows", "%zu", k->nr_ra_wait);
	free(v);
}

static void meta_session(struct kevents *k, struct sink *s)
{
	if (k->saw_session) {
		ingest_sink_meta(s, "capture_root_pid", "%u", k->root_pid);
		ingest_sink_meta(s, "capture_cgroup", "%s", k->cap.cgroup);
		ingest_sink_meta(s, "capture_cgroup_version", "%llu", (unsigned long long)k->cap.cgroup_version);
		ingest_sink_meta(s, "capture_memory_limit", "%llu", (unsigned long long)k->cap.limit);
		ingest_sink_meta(s, "capture_swappiness", "%lld", (long long)k->cap.swappiness);
		ingest_sink_meta(s, "swap_kind", "%s", k->cap.swap_kind);
		ingest_sink_meta(s, "swap_device", "%s", k->cap.swap_device);
		ingest_sink_meta(s, "swap_size", "%llu", (unsigned long long)k->cap.swap_size);
		ingest_sink_meta(s, "kernel_source", "%s", k->cap.kernel_source);
		ingest_sink_meta(s, "capture_lru_kind", "%s", k->cap.lru_kind);
		ingest_sink_meta(s, "thp", "%s", k->cap.thp);
		if (k->cap.thp_defrag[0])
			ingest_sink_meta(s, "thp_defrag", "%s", k->cap.thp_defrag);
		/* how cold the machine's page cache was as the session started */
		if (k->cap.dropped_caches == 0 || k->cap.dropped_caches == 1)
			ingest_sink_meta(s, "dropped_caches", "%lld", (long long)k->cap.dropped_caches);
		if (k->cap.start_cached_kb >= 0)
			ingest_sink_meta(s, "start_cached_kb", "%lld", (long long)k->cap.start_cached_kb);
		if (k->cap.start_ws_nodes >= 0)
			ingest_sink_meta(s, "start_workingset_nodes", "%lld", (long long)k->cap.start_ws_nodes);
		ingest_sink_meta(s, "capture_period_ms", "%llu", (unsigned long long)k->cap.period_ms);
		ingest_sink_meta(s, "damon", "%s: %s", k->cap.damon ? "on" : "off", k->cap.damon_note);
		ingest_sink_meta(s, "capture_filter", "%s", k->cap.filter);
		if (k->cap.lru_gen_enabled != INT64_MIN && k->cap.lru_gen_enabled < 0)
			ingest_sink_meta(s, "capture_lru_gen_enabled", "none");
		else if (k->cap.lru_gen_enabled != INT64_MIN)
			ingest_sink_meta(s, "capture_lru_gen_enabled", "0x%04llx",
					 (unsigned long long)k->cap.lru_gen_enabled);
		if (k->cap.lru_gen_min_ttl_ms != INT64_MIN && k->cap.lru_gen_min_ttl_ms >= 0)
			ingest_sink_meta(s, "capture_lru_gen_min_ttl_ms", "%lld", (long long)k->cap.lru_gen_min_ttl_ms);
		if (k->cap.kernel_version[0])
			ingest_sink_meta(s, "kernel_version", "%s", k->cap.kernel_version);
		/* swap read-ahead as the capture's kernel chose it (run.c) */
		if (k->cap.swap_rotational >= 0 && k->cap.swap_rotational <= 1)
			ingest_sink_meta(s, "swap_rotational", "%lld", (long long)k->cap.swap_rotational);
		if (k->cap.page_cluster >= 0 && k->cap.page_cluster <= 31)
			ingest_sink_meta(s, "page_cluster", "%lld", (long long)k->cap.page_cluster);
		if (k->cap.vma_ra_enabled >= 0 && k->cap.vma_ra_enabled <= 1)
			ingest_sink_meta(s, "vma_ra_enabled", "%lld", (long long)k->cap.vma_ra_enabled);
		if (k->cap.build_source[0]) {
			ingest_sink_meta(s, "kernel_build_source", "%s", k->cap.build_source);
			ingest_sink_meta(s, "kernel_build_version", "%s", k->cap.build_version);
			if (k->cap.build_tree[0])
				ingest_sink_meta(s, "kernel_build_tree", "%s", k->cap.build_tree);
			ingest_sink_meta(s, "kernel_build_config", "%s", k->cap.build_config);
			ingest_sink_meta(s, "kernel_build_patches", "%s", k->cap.build_patches);
			ingest_sink_meta(s, "kernel_build_key", "%s", k->cap.build_key);
		}
		/* the timers of the captured kernel run in its time since boot
		 * (replay/run.c: the statistics' periodic flusher) */
		if (k->have_mono_offset)
			ingest_sink_meta(s, "clock_monotonic_offset_ns", "%lld", (long long)k->mono_offset);
	}
	/* The devices' latencies as the capture measured them (run.c sets
	 * the replay's devices up with them). */
	static const char *const dev[2] = { "swap", "file" }, *const dir[2] = { "read", "write" };
	for (int d = 0; d < 2; d++) {
		if (k->cap.dev_disk[d][0])
			ingest_sink_meta(s, d ? "file_disk" : "swap_disk", "%s", k->cap.dev_disk[d]);
		for (int i = 0; i < 2; i++) {
			char key[32];
			if (!k->cap.dev_nr[d][i])
				continue;
			snprintf(key, sizeof(key), "%s_%s_ns", dev[d], dir[i]);
			ingest_sink_meta(s, key, "%llu", (unsigned long long)k->cap.dev_ns[d][i]);
			snprintf(key, sizeof(key), "%s_%s_requests", dev[d], dir[i]);
			ingest_sink_meta(s, key, "%llu", (unsigned long long)k->cap.dev_nr[d][i]);
		}
	}
	meta_ra_read_time(k, s);
	if (k->cap.have_end) {
		ingest_sink_meta(s, "ftrace_lost_events", "%llu", (unsigned long long)k->cap.end_lost);
		ingest_sink_meta(s, "bridged_events", "%llu", (unsigned long long)k->cap.end_bridged);
		ingest_sink_meta(s, "workload_status", "%lld", (long long)k->cap.end_status);
		ingest_sink_meta(s, "workload_elapsed_ns", "%llu", (unsigned long long)k->cap.end_elapsed);
	}
}

/* Whether the thread group PID of an exact stream lies outside the
 * process tree the capture started (kevents_finish has marked it). */
static int not_of_the_tree(void *arg, uint32_t pid)
{
	const struct tinfo *t = kev_tinfo(arg, pid, 0);
	return !t || !t->in_tree;
}

int kevents_finish(struct kevents *k, struct sink *s)
{
	if (k->nr_kev)
		qsort(k->kev, k->nr_kev, sizeof(*k->kev), cmp_kev);
	if (k->nr_dt)
		qsort(k->dt, k->nr_dt, sizeof(*k->dt), cmp_dt);

	/* The process tree, from the first process the capture started. */
	struct tinfo *root = k->root_pid ? kev_tinfo(k, k->root_pid, 1) : NULL;
	if (k->root_pid && !root)
		goto oom;
	if (root) {
		root->in_tree = 1;
		root->pid = k->root_pid;
		root->threads = 1;
	}
	for (size_t i = 0; i < k->nr_kev; i++) {
		const struct vmr_kev *e = &k->kev[i];
		struct tinfo *t = kev_tinfo(k, e->tid, 1);
		if (!t)
			goto oom;
		if (e->pid && !t->named)
			t->pid = e->pid;
		switch (e->type) {
		case VMR_KEV_FORK: {
			/* Creating a task may move them all (kev_tinfo): create
			 * both, then look both up. */
			if (!kev_tinfo(k, (uint32_t)e->f[0], 1) || !kev_tinfo(k, (uint32_t)e->f[2], 1))
				goto oom;
			struct tinfo *p = kev_tinfo(k, (uint32_t)e->f[0], 0), *ch = kev_tinfo(k, (uint32_t)e->f[2], 0);
			ch->pid = (uint32_t)e->f[3];
			ch->ppid = (uint32_t)e->f[0];
			ch->fork_ts = e->ts_ns;
			unpack_comm(ch->comm, &e->f[4]);
			ch->in_tree = p->in_tree || !k->root_pid;
			ch->named = 1;
			break;
		}
		case VMR_KEV_EXEC:
			unpack_comm(t->comm, e->f);
			t->pid = t->tid;
			break;
		case VMR_KEV_COMM:
			if (!t->comm[0])
				unpack_comm(t->comm, e->f);
			if (strncmp(t->comm, "kswapd", 6) == 0)
				t->kswapd = 1;
			break;
		case VMR_KEV_KSWAPD_WAKE:
		case VMR_KEV_KSWAPD_SLEEP:
			t->kswapd = 1;
			break;
		}
	}
	/* Demand comes from kernel events unless the trace has an exact
	 * stream (an instrumented workload's own events say more than faults
	 * can); its address spaces need the exec times of every task, taken
	 * here, before the ground truth replaces the events. */
	/* The capture's LTTng session records every instrumented process of
	 * its user, not only the workload's: the streams of one outside the
	 * process tree (6.18-classic mix-sw100-2 holds 1,500 anon_access of a
	 * test's anon-storm, 8.6 s into the session) are not the workload's,
	 * and would have made the trace an exact stream of that. */
	uint64_t foreign = k->root_pid ? ingest_sink_drop_tasks(s, not_of_the_tree, k) : 0;
	uint64_t ps = ingest_sink_page_size(s);
	int exact = ingest_sink_accesses(s) > 0;
	struct execs ex = { 0 };
	if (!exact && k->nr_dem) {
		size_t nex = 0;
		for (size_t i = 0; i < k->nr_kev; i++)
			nex += k->kev[i].type == VMR_KEV_EXEC;
		ex.e = calloc(nex ? nex : 1, sizeof(*ex.e));
		if (!ex.e)
			goto oom;
		for (size_t i = 0; i < k->nr_kev; i++)
			if (k->kev[i].type == VMR_KEV_EXEC) {
				ex.e[ex.n].pid = k->kev[i].pid;
				ex.e[ex.n].ts = k->kev[i].ts_ns;
				ex.n++;
			}
	}

	/* Ground truth: the workload's tasks and kswapd (all tasks when the
	 * trace does not say which process the workload started with).  The
	 * statistics' flushes the other way round: those the rest of the
	 * machine made (the periodic flusher, the capture's memory.stat
	 * reads), which a replay makes at their times; the workload's and
	 * kswapd's own (reclaim's rate-limited flushes) the replay makes
	 * itself. */
	size_t kept = 0;
	for (size_t i = 0; i < k->nr_kev; i++) {
		struct vmr_kev e = k->kev[i];
		struct tinfo *t = kev_tinfo(k, e.tid, 0);
		int keep = !k->root_pid || (t && (t->in_tree || t->kswapd));
		if (e.type == VMR_KEV_STATS_FLUSH) {
			keep = !(t && (t->in_tree || t->kswapd));
			k->n_stats_flush += keep;
		}
		if (e.type == VMR_KEV_FORK) {
			struct tinfo *ch = kev_tinfo(k, (uint32_t)e.f[2], 0);
			keep = keep || (ch && ch->in_tree);
		}
		if (!keep) {
			k->n_filtered += e.type != VMR_KEV_STATS_FLUSH;
			continue;
		}
		if (t && e.pid == 0)
			e.pid = t->pid;
		e.reserved = 0;
		k->kev[kept++] = e;
	}
	/* The events kept, in place, are the ground truth: a copy of them
	 * beside the events doubled what the kernel events take (43 MB of a
	 * 1.1 M-event trace's 140). */
	k->out = k->kev;
	k->nr_out = kept;
	k->cap_out = k->cap_kev;
	k->kev = NULL;
	k->nr_kev = k->cap_kev = 0;

	/* Demand */
	size_t nr_fault = 0;
	for (size_t i = 0; i < k->nr_dem; i++)
		nr_fault += k->dem[i].kind == KK_FAULT;
	if (!exact && k->nr_dem) {
		struct walk w = { .k = k, .s = s, .shift = __builtin_ctzll(ps) };
		/* transparent_hugepage/enabled as the capture found it */
		k->thp_mode = strcmp(k->cap.thp, "always") == 0 ? THP_ALWAYS :
			      strcmp(k->cap.thp, "madvise") == 0 ? THP_MADVISE : THP_NEVER;
		if (expand_damon(k) != 0)
			goto oom;
		place_young(k);
		qsort(k->dem, k->nr_dem, sizeof(*k->dem), cmp_dem);
		/* exec epochs and maps snapshots in (pid, time) order */
		w.ex = ex;
		if (w.ex.n)
			qsort(w.ex.e, w.ex.n, sizeof(*w.ex.e), kev_cmp_exec);
		for (size_t i = 0; i < k->nr_snap; i++)
			k->snap[i].epoch = kev_epoch_of(&w.ex, (uint32_t)k->snap[i].pid, k->snap[i].ts);
		if (k->nr_snap)
			qsort(k->snap, k->nr_snap, sizeof(*k->snap), cmp_snap);
		ingest_sink_track_residency(s);

		/* One walk over demand and process/reclaim events in time order. */
		size_t i = 0, j = 0;
		int rc = 0;
		while (rc == 0 && (i < k->nr_out || j < k->nr_dem)) {
			int take_kev = j >= k->nr_dem || (i < k->nr_out && k->out[i].ts_ns <= k->dem[j].ts);
			if (take_kev) {
				const struct vmr_kev *e = &k->out[i++];
				struct tinfo *t = kev_tinfo(k, e->tid, 0);
				if (!t)
					continue;
				switch (e->type) {
				/* The task's reclaim stalls: direct reclaim
				 * (__alloc_pages_direct_reclaim -> try_to_free_pages)
				 * and memcg reclaim (try_charge_memcg ->
				 * try_to_free_mem_cgroup_pages), bracketed by their
				 * begin and end events.  The gap before the task's
				 * next record holds that time, which the replay
				 * simulates itself: it comes out of the gap
				 * (ingest_sink_stall).  The writeback throttle
				 * (reclaim_throttle, mm_vmscan_throttled) sleeps
				 * inside these brackets (shrink_node,
				 * shrink_inactive_list, consider_reclaim_throttle),
				 * so it is in them already.  A begin inside an open
				 * bracket (the two cannot nest; an end lost) keeps the
				 * first begin; an end without a begin, or a bracket
				 * still open at the task's end, takes nothing out. */
				case VMR_KEV_DIRECT_BEGIN:
				case VMR_KEV_MEMCG_BEGIN:
					if (t->in_reclaim) {
						k->n_stall_nested++;
						break;
					}
					t->in_reclaim = 1;
					t->reclaim_begin = e->ts_ns;
					break;
				case VMR_KEV_DIRECT_END:
				case VMR_KEV_MEMCG_END:
					if (!t->in_reclaim) {
						k->n_stall_unopened++;
						break;
					}
					t->in_reclaim = 0;
					k->n_stalls++;
					k->n_stall_ns += ingest_sink_stall(s, e->tid, t->reclaim_begin, e->ts_ns);
					break;
				case VMR_KEV_FORK: {
					struct tinfo *ch = kev_tinfo(k, (uint32_t)e->f[2], 0);
					struct tinfo *leader = ch ? kev_tinfo(k, ch->pid, 1) : NULL;
					if (leader)
						leader->threads++;
					break;
				}
				case VMR_KEV_EXEC:
					/* the old address space is gone */
					rc |= resolve_pending(&w, t, NULL);
					rc |= ingest_sink_free_space(s, e->pid, e->tid, e->ts_ns, e->pid);
					ingest_sink_task_end(s, e->tid, e->ts_ns);
					break;
				case VMR_KEV_EXIT: {
					rc |= resolve_pending(&w, t, NULL);
					struct tinfo *leader = kev_tinfo(k, t->pid, 0);
					if (leader && --leader->threads <= 0)
						rc |= ingest_sink_free_space(s, t->pid, e->tid, e->ts_ns, t->pid);
					ingest_sink_task_end(s, e->tid, e->ts_ns);
					break;
				}
				}
				continue;
			}
			const struct kdem *d = &k->dem[j++];
			struct tinfo *t = kev_tinfo(k, d->tid, 1);
			if (!t)
				goto oom;
			if (k->root_pid && !t->in_tree && d->kind != KK_DAMON_PASS) {
				k->n_filtered++;
				continue;
			}
			if (!d->pid) {
				struct kdem *dd = (struct kdem *)d;
				dd->pid = t->pid;
			}
			switch (d->kind) {
			case KK_FAULT:
				rc |= resolve_pending(&w, t, d);
				rc |= on_fault(&w, t, d);
				break;
			case KK_FILEMAP_GET_PAGES:
				rc |= note_sync_read(k, t, d);
				rc |= resolve_pending(&w, t, d);
				t->last_fault_file = 0;
				if (same_read(t, d)) {
					k->n_read_retries++;
					break;
				}
				t->read_dev = d->dev;
				t->read_ino = d->a;
				t->read_lo = d->b;
				t->read_hi = d->c;
				rc |= ingest_sink_range(s, d->pid, d->tid, d->ts, VMR_PAGE_FILE, d->dev, d->a,
							d->b, d->c, VMR_OP_READ);
				k->n_read_pages += d->c - d->b + 1;
				break;
			case KK_FILEMAP_ADD:
				if (add_pending(&w, t, d) != 0 || note_insertion(k, d) != 0)
					goto oom;
				break;
			case KK_FILEMAP_DELETE:
				if (t->kswapd || t->in_reclaim) {
					/* reclaim evicted it: ground truth, kept after the walk */
					if (array_grow((void **)&k->evict, &k->cap_evict, k->nr_evict + 1,
						     sizeof(*k->evict)) != 0)
						goto oom;
					struct vmr_kev *e = &k->evict[k->nr_evict++];
					memset(e, 0, sizeof(*e));
					e->ts_ns = d->ts;
					e->tid = d->tid;
					e->pid = d->pid;
					e->type = VMR_KEV_FILE_EVICT;
					e->cpu = d->cpu;
					for (int f = 0; f < VMR_KEV_FIELDS; f++)
						e->f[f] = VMR_ABSENT;
					e->f[0] = d->dev;
					e->f[1] = d->a;
					e->f[2] = d->b;
					e->f[3] = d->order;
					k->n_evict++;
				} else {
					rc |= resolve_pending(&w, t, d);
					rc |= ingest_sink_range(s, d->pid, d->tid, d->ts, VMR_PAGE_FILE, d->dev, d->a,
								d->b, d->b + (1ull << d->order) - 1, VMR_OP_FREE);
					k->n_free_pages += 1ull << d->order;
				}
				break;
			case KK_DAMON_PASS:
				rc |= on_damon_pass(&w, d);
				break;
			case KK_YOUNG:
				rc |= on_young(&w, d);
				break;
			case KK_MADVISE:
				/* the page-cache insertions until its exit are its own */
				rc |= resolve_pending(&w, t, NULL);
				t->madv_open = 1;
				t->madv_ts = d->ts;
				t->madv_start = d->a;
				t->madv_len = d->b;
				t->madv_advice = d->c;
				break;
			case KK_MADVISE_EXIT:
				rc |= on_madvise_exit(&w, t, (int64_t)d->a);
				break;
			}
		}
		for (size_t n = 0; n < k->nr_t && rc == 0; n++)
			if (k->t[n].pend_nr)
				rc |= resolve_pending(&w, &k->t[n], NULL);
		free(w.ex.e);
		if (rc != 0 || ingest_sink_failed(s))
			return -1;
		mark_precached(k, s);
		/* evictions into the ground truth, in time order */
		for (size_t n = 0; n < k->nr_evict; n++)
			if (push_out(k, &k->evict[n]) != 0)
				goto oom;
		for (size_t n = 0; n < k->nr_out; n++)
			k->out[n].reserved = (uint32_t)n;
		if (k->nr_out)
			qsort(k->out, k->nr_out, sizeof(*k->out), cmp_kev);
		for (size_t n = 0; n < k->nr_out; n++)
			k->out[n].reserved = 0;
		ingest_sink_name_tasks(s, name_task, k);
	}

	/* Metadata. */
	if (k->events) {
		meta_session(k, s);
		ingest_sink_meta(s, "kernel_events", "%llu", (unsigned long long)k->events);
		ingest_sink_meta(s, "ground_truth_events", "%llu", (unsigned long long)k->nr_out);
		ingest_sink_meta(s, "memcg_snapshots", "%llu", (unsigned long long)k->nr_memcg);
		/* which flushes the capture recorded (absent: none, the replay
		 * keeps its own rule; a session may have none at all) */
		if (k->cap.dropped_inputs[0]) {
			/* the count and the executable: the whole list (the
			 * capture_session field) is longer than a metadata value */
			const char *d = k->cap.dropped_inputs;
			unsigned n = 1;
			for (const char *p = d; *p; p++)
				n += *p == ' ';
			ingest_sink_meta(s, "dropped_inputs", "%u", n);
			ingest_sink_meta(s, "dropped_exec", "%.*s", (int)strcspn(d, " "), d);
		}
		if (k->cap.stats_flush[0]) {
			ingest_sink_meta(s, "stats_flush_event", "%s", k->cap.stats_flush);
			ingest_sink_meta(s, "stats_flushes", "%llu", (unsigned long long)k->n_stats_flush);
		}
		if (k->n_filtered)
			ingest_sink_meta(s, "kernel_events_not_of_the_workload", "%llu",
					 (unsigned long long)k->n_filtered);
		if (foreign)
			ingest_sink_meta(s, "ust_accesses_not_of_the_workload", "%llu",
					 (unsigned long long)foreign);
		ingest_sink_meta(s, "demand_source", "%s",
				 exact ? "ust (the workload's own events; kernel demand events not used)"
				       : k->nr_dem ? "kernel (faults, page-cache events, DAMON)" : "none");
		if (!exact && k->nr_dem) {
			ingest_sink_meta(s, "demand_faults",
					 "%llu (%llu anon incl. %llu copy-on-write and %llu outside any known "
					 "mapping, %llu file)",
					 (unsigned long long)nr_fault,
					 (unsigned long long)k->n_fault_anon, (unsigned long long)k->n_fault_cow,
					 (unsigned long long)k->n_fault_unmapped,
					 (unsigned long long)k->n_fault_file);
			if (k->n_fault_kernel)
				ingest_sink_meta(s, "demand_faults_kernel_mode",
						 "%llu (user copies: the kernel touching a user page)",
						 (unsigned long long)k->n_fault_kernel);
			ingest_sink_meta(s, "demand_page_cache",
					 "%llu pages read (%llu get_pages of a read already counted), %llu "
					 "pages written, %llu freed, %llu read-ahead "
					 "(inserted, not referenced), %llu evicted by reclaim, %llu file pages found "
					 "cached (charged outside the session)",
					 (unsigned long long)k->n_read_pages, (unsigned long long)k->n_read_retries,
					 (unsigned long long)k->n_write_pages,
					 (unsigned long long)k->n_free_pages, (unsigned long long)k->n_readahead,
					 (unsigned long long)k->n_evict, (unsigned long long)k->n_precached);
			ingest_sink_meta(s, "demand_damon",
					 "%llu regions, %llu passes, %llu page references (sample %llu us, "
					 "aggregation %llu us, max %u passes)%s",
					 (unsigned long long)k->n_damon_regions,
					 (unsigned long long)k->n_damon_passes, (unsigned long long)k->n_damon_refs,
					 (unsigned long long)(k->damon.sample_ns / 1000),
					 (unsigned long long)(k->damon.aggr_ns / 1000), k->damon.max_passes,
					 k->n_damon_lost ? " (some of unknown targets)" : "");
			ingest_sink_meta(s, "maps_snapshots", "%llu", (unsigned long long)k->nr_snap);
			ingest_sink_meta(s, "demand_kernel_stall_ns", "%llu",
					 (unsigned long long)ingest_sink_stall_subtracted(s));
			ingest_sink_meta(s, "demand_kernel_stalls",
					 "%llu reclaims (direct and memcg), %llu ns of them after their "
					 "task's last record; %llu begins inside an open one, %llu ends "
					 "without a begin",
					 (unsigned long long)k->n_stalls, (unsigned long long)k->n_stall_ns,
					 (unsigned long long)k->n_stall_nested,
					 (unsigned long long)k->n_stall_unopened);
			if (k->cap.have_young)
				ingest_sink_meta(s, "demand_pte_young",
						 "%llu observations, %llu resident pages referenced, %llu pages "
						 "the trace never had; poll every %llu ms, %llu polls, %llu lost, "
						 "%llu resets; sampler %s",
						 (unsigned long long)k->n_young, (unsigned long long)k->n_young_refs,
						 (unsigned long long)k->n_young_unknown,
						 (unsigned long long)k->cap.young_period_ms,
						 (unsigned long long)k->cap.young_polls,
						 (unsigned long long)k->cap.young_lost,
						 (unsigned long long)k->cap.young_resets, k->cap.young_note);
			if (k->n_madv_calls)
				ingest_sink_meta(s, "demand_madvise",
						 "%llu calls (%llu failed), %llu pages populated, %llu pages "
						 "dropped (DONTNEED), %llu HUGEPAGE, %llu NOHUGEPAGE",
						 (unsigned long long)k->n_madv_calls,
						 (unsigned long long)k->n_madv_failed,
						 (unsigned long long)k->n_madv_populated,
						 (unsigned long long)k->n_madv_dropped,
						 (unsigned long long)k->n_madv_hugepage,
						 (unsigned long long)k->n_madv_nohugepage);
			if (k->n_fault_thp)
				ingest_sink_meta(s, "demand_thp_faults",
						 "%llu (anonymous write faults that map a PMD-sized folio, "
						 "%llu pages each)",
						 (unsigned long long)k->n_fault_thp,
						 (unsigned long long)vmr_hpage_pmd_nr(ps));
		}
	}
	return ingest_sink_failed(s) ? -1 : 0;
oom:
	ingest_sink_fail(s, "out of memory (kernel events)");
	return -1;
}
