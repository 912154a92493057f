/*
 * engine.h — the replay engine: a simulated machine that runs a .vmr.
 *
 * Tasks replay their streams closed-loop (the next access happens after
 * the recorded think time plus whatever the task was stalled for); page
 * faults allocate from one node with zone watermarks and charge memory
 * cgroups; kswapd, direct reclaim and memcg limit reclaim run as the
 * kernel runs them, through a reclaim policy (policy.h).  Swap and file
 * I/O go to backing stores with latency models (backing.h).
 */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdint.h>
#include <stdio.h>
#include "backing.h"
#include "mm/mm.h"
#include "progress.h"
#include "sim.h"
#include "mm/swap_state.h"
#include "vmr/vmr.h"

struct reclaim_policy;

/* What a run is asked to simulate (command-line options). */
struct engine_params {
	const struct reclaim_policy *policy;
	int swappiness;              /* 0..200 */
	uint64_t memory_limit;       /* bytes; 0: the trace's, else none */
	uint64_t node_memory;        /* bytes of RAM; 0: derived */
	struct backing_params swap;  /* the swap device */
	uint64_t swap_size;          /* bytes; 0: no swap */
	struct backing_params file;  /* the file system's device */
	uint64_t seed;
	simtime_t deadline;          /* work_done counts accesses before it; 0: the trace's span */
	FILE *timeline;              /* nr_isolated over time, or NULL */
	int keep_records;            /* keep every reclaim record (--events) */
	int progress;
};

/* Costs of the reclaim code itself, in ns of CPU time.  Not from the
 * kernel: calibrated orders of magnitude (DEVIATIONS.md). */
struct reclaim_costs {
	uint64_t isolate_per_page;   /* taking a folio off the LRU      */
	uint64_t shrink_per_page;    /* shrink_folio_list, per folio    */
	uint64_t unmap_per_page;     /* try_to_unmap of a mapped folio  */
	uint64_t active_per_page;    /* shrink_active_list, per folio   */
};

/* One reclaim invocation, as mm_vmscan_{direct,memcg}_reclaim_begin/end
 * and kswapd wake/sleep would show it. */
enum reclaim_kind { RECLAIM_DIRECT, RECLAIM_KSWAPD, RECLAIM_MEMCG };

struct reclaim_record {
	simtime_t start, duration;
	uint32_t task;               /* task index; UINT32_MAX for kswapd */
	uint8_t kind;
	int8_t priority;             /* the lowest priority reached */
	uint64_t nr_scanned, nr_reclaimed;
	uint64_t scanned_anon, scanned_file;
	uint64_t target_anon, target_file;   /* get_scan_count's ask */
};

struct process {
	uint32_t pid;
	int memcg;
	int alive;
	uint32_t nr_tasks, tasks_done;
	uint64_t rss;                /* resident pages, for the OOM killer */
	uint64_t swap;               /* swap slots held                    */
	struct swap_ra_info swap_ra; /* swap read-ahead (per VMA in the kernel) */
};

struct engine;

struct task_state {
	struct engine *engine;
	const struct vmr_rec *p, *end;
	uint32_t sub;                /* pages of *p already done */
	int finished;
	uint32_t proc;
	simtime_t next;              /* when the next record runs */
	simtime_t io_until;          /* a read the task waits for ends then */
	simtime_t done;              /* completion time (0 while running) */
	uint64_t accesses;
	uint64_t stall_ns;
	int killed;
	int blocked;                 /* in a slow path */
	struct sim_thread thread;
};

struct engine {
	struct sim sim;
	const struct vmr *v;
	struct engine_params p;
	const struct reclaim_policy *policy;
	struct reclaim_costs cost;

	struct folio *folio;
	uint32_t nr_folios;
	size_t folio_bytes;          /* the mapping behind folio[] */
	struct pglist_data node;
	struct mem_cgroup *memcgs;
	int nr_memcgs;
	uint64_t vm[NR_VM_ITEMS];

	struct task_state *tasks;
	uint32_t nr_tasks, tasks_done;
	struct process *procs;
	uint32_t nr_procs;

	struct backing swap, file;
	uint64_t swap_slots, swap_used;
	uint32_t *anon_by_addr;      /* anonymous page ids by (space, index) */
	uint32_t nr_anon;

	struct sim_thread kswapd;
	enum { KSWAPD_SLEEPING, KSWAPD_NAPPING, KSWAPD_RUNNING } kswapd_state;
	struct sim_waitq kswapd_wait;      /* pgdat->kswapd_wait       */
	struct sim_waitq pfmemalloc_wait;  /* pgdat->pfmemalloc_wait   */
	/* folio_wait_table: waiters for a locked folio, hashed by folio as
	 * the kernel's PAGE_WAIT_TABLE_SIZE queues are, so an unlock wakes
	 * that folio's waiters (and rarely a neighbour's), not everyone. */
#define FOLIO_WAIT_TABLE_SIZE 1024
	struct sim_waitq folio_wait_table[FOLIO_WAIT_TABLE_SIZE];
	int stopping;                      /* every task has finished  */

	/* Every reclaim record is kept only for --events; the metrics need
	 * just these running sums and the 20 slowest direct reclaims. */
	int keep_records;
	struct reclaim_record *records;
	uint64_t nr_records, cap_records;
	struct {
		uint64_t target_anon, target_file, scanned_anon, scanned_file;
		uint64_t direct;
		struct reclaim_record slowest[20];   /* direct, longest first */
		uint32_t nr_slowest;
	} rec_sum;

	uint32_t *dirty_list;        /* file folios dirtied since the flusher ran */
	uint64_t nr_dirty_list, cap_dirty_list;
	int flusher_kicked;

	FILE *timeline;
	struct progress progress;
	simtime_t trace_start, deadline, end_time;
	uint64_t work_done;          /* accesses completed by the deadline */

	uint64_t rng;                /* splitmix64 state (latency jitter) */
	void *policy_data;
	int failed;
};

int engine_init(struct engine *e, const struct vmr *v, const struct engine_params *p,
		char *err, size_t errlen);
/* Runs the whole trace.  0, or -1 (out of memory). */
int engine_run(struct engine *e);
void engine_free(struct engine *e);

/* ---- services the policies call ------------------------------------ */
/* Page frees and the folio's charge (__remove_mapping's end). */
void engine_free_folio(struct engine *e, uint32_t pfn);
/* Starts an asynchronous swap-out or file write of the folio. */
void engine_start_writeback(struct engine *e, uint32_t pfn);
/* Allocates a swap slot (folio_alloc_swap); 0 when swap is full. */
int engine_alloc_swap(struct engine *e, uint32_t pfn);
/* folio_free_swap: drops the folio's swap slot (it stays resident). */
void engine_free_swap(struct engine *e, uint32_t pfn);
void engine_wakeup_flusher(struct engine *e);
uint64_t engine_rand(struct engine *e, uint64_t n);
/* Records one reclaim invocation. */
void engine_record(struct engine *e, const struct reclaim_record *r);
void engine_isolated(struct engine *e, int file, int64_t delta);

static inline struct lruvec *folio_lruvec(struct engine *e, uint32_t pfn)
{
	return &e->memcgs[e->folio[pfn].memcg].lruvec;
}

static inline int folio_is_file_lru(const struct folio *f)
{
	return !(f->flags & PG_swapbacked);
}

/* fatal_signal_pending: the reclaiming task was OOM-killed. */
static inline int fatal_signal_pending(const struct engine *e, uint32_t task)
{
	return task != UINT32_MAX && e->tasks[task].killed;
}

static inline int mem_cgroup_swappiness(const struct engine *e, int memcg)
{
	return e->memcgs[memcg < 0 ? 0 : memcg].swappiness;
}

static inline void count_vm_events(struct engine *e, enum vm_event_item item, uint64_t n)
{
	e->vm[item] += n;
}

#endif
