/*
 * internal.h — what the files of replay/mm/ call in each other, as the
 * kernel's mm/internal.h: the fault path, page allocation and freeing,
 * memcg charging, swap slots, I/O and writeback.  The reclaim entry
 * points are in vmscan.h, the LRU primitives in mm_inline.h.
 */
#ifndef MM_INTERNAL_H
#define MM_INTERNAL_H

#include "mm_inline.h"
#include "sim/engine.h"

static inline void count_vm_events(struct engine *e, enum vm_event_item item, uint64_t n)
{
	e->vm[item] += n;
}

/* fatal_signal_pending: the reclaiming task was OOM-killed. */
static inline int fatal_signal_pending(const struct engine *e, uint32_t task)
{
	return task != UINT32_MAX && e->tasks[task].killed;
}

/* ---- memory.c: the fault path ------------------------------------------- */
/* One access by task T to page PFN with OP (a VMR_OP_*).  1 done, 0 the
 * task was killed, -1 it must block (only outside a coroutine, before
 * anything changed). */
int access_page(struct engine *e, struct task_state *t, uint32_t pfn, unsigned op, int file);
/* do_swap_page_cached: an access by T to PFN, resident, anonymous and
 * unmapped: a minor fault (access_anon_resident, at the end of this file,
 * is the rest of an access to a resident anonymous folio). */
void do_swap_page_cached(struct engine *e, struct task_state *t, uint32_t pfn, unsigned op);
/* exit_mmap: the process's last task ended; its anonymous memory goes. */
void exit_mmap(struct engine *e, uint32_t proc);
/* FN for each anonymous page process PROC owns, ascending (it may free
 * the page).  mm_adopt_page: PFN is faulted in for OWNER, from another's. */
void mm_walk(struct engine *e, uint32_t proc, void (*fn)(struct engine *e, uint32_t proc, uint32_t pfn));
void mm_adopt_page(struct engine *e, uint32_t owner, uint32_t pfn);
/* Appends PFN to a process's growable list of page ids (memory.c). */
void pfn_list_add(struct engine *e, uint32_t **list, uint32_t *nr, uint32_t *cap,
		  uint32_t pfn);
/* The owner released the page (zap_pte_range, delete_from_page_cache). */
void release_page(struct engine *e, uint32_t pfn);
/* A page brought in for T (memory.c's fault_in, for read-ahead too). */
int fault_in(struct engine *e, struct task_state *t, uint32_t pfn, unsigned op, int file);

/* ---- huge_memory.c --------------------------------------------------------- */
/* do_huge_pmd_anonymous_page's return when the PMD-sized folio could not
 * be had: the fault goes on with a base page (VM_FAULT_FALLBACK). */
#define VM_FAULT_FALLBACK 3
int do_huge_pmd_anonymous_page(struct engine *e, struct task_state *t, uint32_t pfn);

/* ---- page_alloc.c ---------------------------------------------------------- */
/* alloc_pages / try_charge_memcg return 1 done, 0 the task was killed,
 * -1 must block (outside a coroutine), or this: no page, and no OOM kill
 * either (__GFP_NORETRY). */
#define ALLOC_NOMEM 2
int alloc_pages(struct engine *e, struct task_state *t, int noretry);
/* The folio's last reference is dropped: free page, uncharge. */
void free_unref_folio(struct engine *e, uint32_t pfn);
/* The node's watermarks for PAGE_SIZE pages (__setup_per_zone_wmarks). */
void setup_per_zone_wmarks(struct pglist_data *pgdat, uint64_t page_size);
/* The folio array (mem_map) for NR pages, zeroed; *BYTES says how it was
 * allocated, for free_node_mem_map. */
struct folio *alloc_node_mem_map(uint32_t nr, size_t *bytes);
void free_node_mem_map(struct folio *folio, size_t bytes);

/* ---- memcontrol.c ---------------------------------------------------------- */
/* page_counter_try_charge: the first ancestor that would go over its
 * limit, or -1 when the charge of NR_PAGES fits everywhere (and is made).
 * As the kernel's, it charges each counter on the way up and cancels the
 * charges below the one that failed: one walk when the charge fits. */
static inline int page_counter_try_charge(struct engine *e, int memcg, uint64_t nr_pages)
{
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent) {
		e->memcgs[m].usage += nr_pages;
		if (e->memcgs[m].usage > e->memcgs[m].max) {
			e->memcgs[m].usage -= nr_pages;
			for (int c = memcg; c != m; c = e->memcgs[c].parent)
				e->memcgs[c].usage -= nr_pages;    /* page_counter_cancel */
			return m;
		}
	}
	return -1;
}

int try_charge_memcg_reclaim(struct engine *e, struct task_state *t, int memcg, uint64_t nr_pages,
			     unsigned gfp, int over);
/* try_charge_memcg: charge NR_PAGES pages to MEMCG, reclaiming as the
 * kernel does when a limit is in the way (memcontrol.c).  Its first
 * attempt, a charge that fits (page_counter_try_charge: the common
 * case), is inline: the out-of-line function's frame, kept for its
 * reclaim and retries, cost some 20 of a fault's ~300 instructions
 * (callgrind, the bench's Zipf stream). */
static inline int try_charge_memcg(struct engine *e, struct task_state *t, int memcg, uint64_t nr_pages,
				   unsigned gfp)
{
	if (t->killed)
		return 0;
	int over = page_counter_try_charge(e, memcg, nr_pages);
	if (over < 0)
		return 1;
	return try_charge_memcg_reclaim(e, t, memcg, nr_pages, gfp, over);
}
void mem_cgroup_uncharge(struct engine *e, int memcg);
int mem_cgroup_charge_fits(const struct engine *e, int memcg, uint64_t nr_pages);
/* The memcg a folio brought in by T is charged to. */
int folio_charge_memcg(const struct engine *e, const struct task_state *t, uint32_t pfn);
/* A new memcg IDX under PARENT (-1: the root itself). */
void mem_cgroup_init(struct engine *e, int idx, int parent, const char *name, int swappiness);
/* The memcg of PATH under the session's, created on first use; -1 if PATH
 * nests deeper than the model holds. */
int mem_cgroup_from_path(struct engine *e, const char *path, int swappiness);

/* The statistics' flushes (lruvec_page_state reads the last one). */
void mem_cgroup_flush_stats(struct engine *e, int memcg);
void mem_cgroup_flush_stats_ratelimited(struct engine *e, int memcg);
uint64_t flush_time_jiffies(unsigned hz);
simtime_t flush_memcg_stats_first(const struct engine *e);
void flush_memcg_stats_dwork(struct engine *e);
void memcg_stat_read(struct engine *e);
void stats_flush_trace_next(struct engine *e, uint64_t from);
void stats_flush_trace(struct engine *e, uint64_t idx);

static inline int mem_cgroup_swappiness(const struct engine *e, int memcg)
{
	return e->memcgs[memcg < 0 ? 0 : memcg].swappiness;
}

/* ---- oom_kill.c ------------------------------------------------------------ */
/* out_of_memory: kill the biggest process under SCOPE (-1: all); 0 when
 * nobody was left to kill. */
int out_of_memory(struct engine *e, int scope);

/* ---- swapfile.c ------------------------------------------------------------ */
/* folio_alloc_swap: a slot for the folio; 0 when swap is full. */
int folio_alloc_swap(struct engine *e, uint32_t pfn);
/* folio_free_swap: the folio's slot is freed (it stays resident). */
void folio_free_swap(struct engine *e, uint32_t pfn);
/* vm_swap_full (mem_cgroup_swap_full for cgroup v1 and for memcgs with
 * no swap limit): more than half the swap space is in use. */
static inline int vm_swap_full(const struct engine *e)
{
	return e->swap_used * 2 > e->swap_slots;
}
/* The slots' positions, for swap_cluster_readahead.  0, or -1. */
int swap_slots_init(struct engine *e);
void swap_slots_free(struct engine *e);

/* ---- page_io.c: the devices ------------------------------------------------ */
/* A read of one page from DEV issued now; returns when it completes. */
simtime_t submit_read(struct engine *e, struct backing *dev);
/* A read-ahead window's read, nobody waiting for it; returns when it
 * completes. */
simtime_t submit_read_batched(struct engine *e, struct backing *dev, uint32_t pages);
/* An asynchronous write of PFN to its device; folio_end_writeback runs
 * when it completes.  With PLUG (the writer's current->plug) the write
 * waits there until the plug is flushed. */
void submit_write(struct engine *e, uint32_t pfn, struct blk_plug *plug);
/* blk_start_plug, blk_finish_plug; blk_flush_plug: what schedule()
 * does (sched_submit_work) before a plugged task sleeps. */
void blk_start_plug(struct blk_plug *plug);
void blk_finish_plug(struct engine *e, struct blk_plug *plug);
void blk_flush_plug(struct engine *e, struct blk_plug *plug);
/* A write to a synchronous device (zram): returns when it completes. */
simtime_t submit_write_sync(struct engine *e, struct backing *dev);

/* ---- page-writeback.c ------------------------------------------------------ */
void folio_mark_dirty(struct engine *e, uint32_t pfn);
/* folio_start_writeback, and the write's submission. */
void folio_start_writeback(struct engine *e, uint32_t pfn, struct blk_plug *plug);
/* wakeup_flusher_threads: reclaim met dirty folios nobody queued. */
void wakeup_flusher_threads(struct engine *e);
/* wb_workfn: the flusher's run (periodic when KICKED is 0). */
void wb_workfn(struct engine *e, int kicked);
/* wb_wakeup_delayed: arms the periodic run dirty_writeback_interval on. */
void wb_wakeup_delayed(struct engine *e);

/* ---- filemap.c -------------------------------------------------------------- */
void folio_end_writeback(struct engine *e, uint32_t pfn);
/* A read of PFN issued by fault_in is in flight until DONE: the folio
 * stays locked until then (folio_end_read). */
void folio_start_read(struct engine *e, uint32_t pfn, simtime_t done);
/* read_pages: issue the read of the read-ahead window T inserted. */
void read_pages(struct engine *e, struct task_state *t);
/* The read numbered SEQ completed: unlock the folio. */
void folio_end_read(struct engine *e, uint32_t pfn, uint16_t seq);
/* A free request for read_pages (NULL: out of memory); its completion,
 * mpage_read_end_io, ends its folios' reads and frees it. */
struct read_bio *read_bio_alloc(struct engine *e);
void mpage_read_end_io(struct engine *e, uint32_t bio);
/* The queue of PFN's lock waiters. */
struct sim_waitq *folio_waitqueue(struct engine *e, uint32_t pfn);
/* do_fault_around: a read fault of process PROC on file page PFN maps
 * its cached neighbours into PROC's page table (filemap_map_pages). */
void filemap_map_pages(struct engine *e, uint32_t pfn, uint32_t proc);
/* The retried read fault of T (VM_FAULT_RETRY) maps read-ahead page PFN,
 * just brought in, if it lies in the fault's fault-around window. */
void filemap_map_retry(struct engine *e, const struct task_state *t, uint32_t pfn);

/* ---- swap.c ---------------------------------------------------------------- */
void folio_add_lru(struct engine *e, uint32_t pfn);
void folio_mark_accessed(struct engine *e, uint32_t pfn);
void folio_rotate_reclaimable(struct engine *e, uint32_t pfn);
void folio_activate(struct engine *e, uint32_t pfn);
void lru_note_cost(struct engine *e, int memcg, int file, uint64_t nr_io, uint64_t nr_rotated);
void lru_note_cost_refault(struct engine *e, uint32_t pfn);

/* ---- rmap.c ---------------------------------------------------------------- */
/* folio_referenced: test and clear the young bits of the folio's PTEs,
 * returning how many were young; with MGLRU a young one is looked around
 * (lru_gen_look_around). */
int folio_referenced(struct engine *e, uint32_t pfn, struct scan_control *sc, uint32_t *vm_exec);
/* Has process PROC a PTE for PFN?  (A third address space has none of
 * its own: struct folio_ptes.) */
int folio_pte_present(const struct engine *e, uint32_t pfn, uint32_t proc);
/* folio_pte_mkyoung: process PROC touches file folio PFN through the PTE
 * it has; 0 when it has none. */
int folio_pte_mkyoung(struct engine *e, uint32_t pfn, uint32_t proc);
/* folio_add_file_rmap_pte: PROC, which has no PTE for the file folio PFN,
 * maps it young; 1 when the PTE is its own (a fault to count, the fault
 * path to run), 0 when it joins the others' shared one. */
int folio_add_file_rmap_pte(struct engine *e, uint32_t pfn, uint32_t proc);
/* exit_mmap's zap of PROC's file PTEs (rmap.c). */
void zap_file_ptes(struct engine *e, uint32_t proc);
/* The accessed bit of address space PROC's PTE for PFN (an anonymous
 * folio's is its owner's): is it set (0 without a PTE), clear it.
 * Inline: lru_gen_look_around tests every present neighbour's (a call
 * each was 8 % of its instructions on the bench's Zipf stream).
 * folio_pte_of: 1 for the first address space's PTE (an anonymous
 * folio's, its owner's), 2 for the others', 0 for none: the one PROC
 * would reach PFN through. */
static inline int folio_pte_of(const struct engine *e, uint32_t pfn, uint32_t proc)
{
	const struct folio *f = &e->folio[pfn];
	if (!(f->flags & PG_mapped))
		return 0;
	if (!folio_is_file_lru(f))
		return f->owner == proc;
	const struct folio_ptes *p = &e->ptes[pfn];
	if (p->first == proc)
		return 1;
	return (p->other & ~PTES_YOUNG) == proc + 1 ? 2 : 0;
}

static inline int folio_pte_young(const struct engine *e, uint32_t pfn, uint32_t proc)
{
	switch (folio_pte_of(e, pfn, proc)) {
	case 1:
		return !!(e->folio[pfn].flags & PG_young);
	case 2:
		return !!(e->ptes[pfn].other & PTES_YOUNG);
	}
	return 0;
}

static inline void folio_pte_mkold(struct engine *e, uint32_t pfn, uint32_t proc)
{
	switch (folio_pte_of(e, pfn, proc)) {
	case 1:
		e->folio[pfn].flags &= ~PG_young;
		break;
	case 2:
		e->ptes[pfn].other &= ~PTES_YOUNG;
		break;
	}
}

/* try_to_unmap: every PTE of PFN goes. */
void try_to_unmap(struct engine *e, uint32_t pfn);

/* ---- swap_state.c ----------------------------------------------------------- */
/* swapin_readahead after a swap-in of PFN by T from a queued device. */
int swapin_readahead(struct engine *e, struct task_state *t, uint32_t pfn);

/* ---- workingset.c ----------------------------------------------------------- */
void workingset_age_nonresident(struct engine *e, int memcg, uint64_t nr);
void workingset_activation(struct engine *e, uint32_t pfn);
void workingset_eviction(struct engine *e, uint32_t pfn, int target_memcg);
void workingset_refault(struct engine *e, uint32_t pfn);
/* The page-cache xa_nodes (64 slots of one file each), built from the
 * trace's file pages.  0, or -1 out of memory. */
int shadow_nodes_init(struct engine *e);
void shadow_nodes_free(struct engine *e);
/* workingset_update_node: file page PFN changed (inserted, evicted with
 * or without a shadow, its shadow gone); its node joins or leaves its
 * memcg's shadow_nodes list. */
void workingset_update_node(struct engine *e, uint32_t pfn);
/* count_shadow_nodes / scan_shadow_nodes: the shadow shrinker's objects. */
long count_shadow_nodes(struct engine *e, int memcg);
uint64_t scan_shadow_nodes(struct engine *e, int memcg, uint64_t nr_to_scan);
#define SHRINK_EMPTY (-2L)

/* ---- shrinker.c ------------------------------------------------------------ */
/* shrink_slab: the memcg's shrinkers at PRIORITY (the shadow shrinker). */
uint64_t shrink_slab(struct engine *e, int memcg, int priority);

/* ---- memory.c: the access most of a replay is ------------------------------- */
/* A user copy by the kernel (UACCESS: VMR_F_UACCESS, a kernel-mode fault
 * in the trace, from UML) to a resident page PROC has a PTE for: UML's
 * uaccess faults only where the PTE is missing or write-protected
 * (maybe_map), then copies through the kernel's own mapping of the page
 * (do_op_one_page), so the PTE's accessed bit is not set — the kernel
 * faulted because its copy of the page was not in memory, this one is.
 * A write-protected PTE would fault and be made young (do_wp_page); the
 * replay's anonymous PTEs are always writable (DEVIATIONS.md). */
static inline int uaccess_skips_pte(const struct engine *e, int uaccess, uint32_t pfn, uint32_t proc)
{
	return uaccess && folio_pte_present(e, pfn, proc);
}

/* A load or store of a resident anonymous folio: its PTE is set young
 * (handle_pte_fault's pte_mkyoung), after the minor fault that maps it
 * again from the swap cache when it is unmapped.  It touches the folio,
 * the vmstat counters and the swap space (folio_free_swap) alone:
 * nothing that sleeps, fails, kills or queues an event, so the engine
 * replays a run of these without its checks between records (engine.c's
 * task_step_anon_hits). */
static inline void access_anon_resident(struct engine *e, struct task_state *t, uint32_t pfn, unsigned op,
					int uaccess)
{
	struct folio *f = &e->folio[pfn];
	if (!(f->flags & PG_mapped)) {
		do_swap_page_cached(e, t, pfn, op);
		f->flags |= PG_young;
	} else if (!uaccess_skips_pte(e, uaccess, pfn, t->proc)) {
		f->flags |= PG_young;
	}
	if (op == VMR_OP_STORE) {
		if (!(f->flags & PG_dirty))
			folio_mark_dirty(e, pfn);
		if (f->flags & PG_swapcache)
			folio_free_swap(e, pfn);     /* the copy is stale now */
	}
}

#endif
