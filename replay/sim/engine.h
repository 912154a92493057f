/*
 * engine.h — the simulated machine that runs a .vmr: its memory (the
 * kernel model's state, replay/mm/), its tasks, its devices, and the
 * event loop that drives them on one virtual clock (sim.h).
 *
 * Tasks replay their streams closed-loop: the next access happens after
 * the recorded think time plus whatever the task was stalled for (in
 * reclaim, on a read, on a throttle).  Each access goes to the kernel
 * model (mm/memory.c's handle_mm_fault); everything that takes time in
 * the middle (reclaim, a fault waiting for memory) runs in a coroutine.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdint.h>
#include <stdio.h>
#include "backing.h"
#include "mm/mm.h"
#include "mm/swap_state.h"
#include "progress.h"
#include "records/records.h"
#include "sim.h"
#include "vmr/vmr.h"

struct reclaim_policy;
struct mglru;

/* What a run is asked to simulate (command-line options). */
struct engine_params {
	const struct reclaim_policy *policy;
	int swappiness;              /* 0..200 */
	uint64_t memory_limit;       /* bytes; 0: the trace's, else none */
	int unlimited;               /* the session's memcg has no limit at all */
	uint64_t node_memory;        /* bytes of RAM; 0: derived */
	struct backing_params swap;  /* the swap device */
	uint64_t swap_size;          /* bytes; 0: no swap */
	int no_swap_device;          /* "--swap none" (reports say so) */
	unsigned page_cluster;       /* vm.page-cluster: read-ahead of 2^N slots at most */
	unsigned nr_cpus;            /* the machine's CPUs (the stats' batches) */
	int cgroup_v1;               /* the memory controller is cgroup v1's */
	simtime_t stat_read_ns;      /* memory.stat read this often (a capture's); 0 never */
	int stats_flush_recorded;    /* the trace's KEVENTS hold the statistics' flushes */
	unsigned hz;                 /* the captured kernel's HZ where known (its timers); 0 not */
	int64_t boot_offset_ns;      /* with hz: the trace's clock minus the kernel's time since boot */
	uint64_t nonlru_pages;       /* charged to the session, on no LRU (kernel memory, stock) */
	int vma_ra_enabled;          /* /sys/kernel/mm/swap/vma_ra_enabled */
	unsigned thp_gfp;            /* a THP fault's charge: GFP_* (mm/mm.h) */
	struct backing_params file;  /* the file system's device */
	uint64_t seed;
	simtime_t deadline;          /* work_done counts accesses before it; 0: the trace's span */
	FILE *timeline;              /* nr_isolated over time, or NULL */
	int keep_records;            /* keep every reclaim record (--events) */
	int progress;
};

/* The events of the loop (struct sim_event.kind). */
enum ev_kind {
	EV_WAKE,          /* a coroutine's sleep or wait ended      */
	EV_TASK,          /* a task's next record is due            */
	EV_IO_DONE,       /* writeback of folio ID completed        */
	EV_READ_DONE,     /* the read of folio ID completed (ARG: its read_seq) */
	EV_READ_BIO_DONE, /* read_pages' request ID (engine.bios) completed */
	EV_FLUSH,         /* the flusher's run: ID 0 periodic, 1 kicked */
	EV_STATS_FLUSH,   /* the memcg statistics' periodic flush   */
	EV_STATS_READ,    /* the capture read memory.stat           */
	EV_STATS_FLUSH_TRACE, /* a flush the capture recorded (ID: its KEVENTS index) */
};

struct mm_run;

struct process {
	uint32_t pid;
	int memcg;
	int alive;
	uint32_t nr_tasks, tasks_done;
	uint64_t rss;                /* resident pages, for the OOM killer */
	uint64_t swap;               /* swap slots held                    */
	struct swap_ra_info swap_ra; /* swap read-ahead (per VMA in the kernel) */
	/* Its anonymous pages, as ascending runs of page ids: what
	 * exit_mmap and the OOM reaper walk, as the kernel walks the mm's
	 * VMAs instead of all of memory.  Page ids are given in the order of
	 * first touch, so a process's pages are few long runs.  A slice of
	 * engine.proc_runs, or its own array once pages it did not start
	 * with were faulted in for it (memory.c, mm_walk). */
	struct mm_run *runs;
	uint32_t nr_runs;
	int own_runs;                /* runs is malloc'd (not a slice) */
	uint32_t *adopted;           /* anonymous pages faulted in for it since */
	uint32_t nr_adopted, cap_adopted;
	/* The file folios it put a PTE on (folio_add_file_rmap_pte), for
	 * exit_mmap's zap (rmap.c zap_file_ptes); an entry goes stale when
	 * reclaim unmaps the folio or another process's PTE takes over, and
	 * is checked there. */
	uint32_t *file_ptes;
	uint32_t nr_file_ptes, cap_file_ptes;
};

struct mm_run {
	uint32_t first, nr;
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
	/* The tasks this one waits for (engine.c's task_wait): the child
	 * processes it forked and the task its thread was before an exec or
	 * its exit, by their end in the trace; what the trace has this task
	 * do after one ended, it does here after that one finished. */
	simtime_t trace_next;        /* the trace's time of the next record */
	uint32_t *waits, nr_waits, next_wait;
	uint32_t waiters;            /* 1 + the first task waiting for this one */
	uint32_t next_waiter;        /* 1 + the next one waiting for the same */
	/* The child processes this task forks (engine.c's task_fork), by
	 * their begin in the trace: each starts when this task has come that
	 * far in the replay, not before. */
	uint32_t *forks, nr_forks, next_fork;
	int forked;                  /* a task's fork starts it, not the clock */
	/* The read-ahead pages it inserted since its last other access:
	 * the window whose read read_pages issues (mm/memory.c). */
	struct ra_page { uint32_t pfn; uint16_t seq, head; } *ra;   /* head: a folio's first */
	uint32_t ra_nr, ra_cap;
	/* 1 + the file page whose read fault brought it in, until its next
	 * other access: the fault is retried once the read-around is in
	 * (filemap_map_retry, mm/filemap.c); 0 none. */
	uint32_t fault_retry;
	/* The THP fault it is in (VMR_F_HUGE records, mm/huge_memory.c):
	 * the faulting page, and how many of its range's other pages' records
	 * are still to come. */
	uint32_t thp_head, thp_left;
};

/* A read of several folios in one request (read_pages' bio) in flight:
 * the folios it reads, each with its read_seq.  Its completion ends
 * them all in one event, in the window's order, as the bio's end_io
 * does (mpage_read_end_io): the events one per folio that it replaces
 * had one time and consecutive sequence numbers, so nothing came
 * between them. */
struct read_bio {
	struct ra_page *pages;
	uint32_t nr, cap;
	uint32_t next_free;          /* 1 + the next free one (engine.free_bio) */
};

struct engine {
	struct sim sim;
	const struct vmr *v;
	struct engine_params p;
	const struct reclaim_policy *policy;

	/* The memory: mm/mm.h's objects. */
	struct folio *folio;
	struct folio_ptes *ptes;     /* the page tables mapping file folio[i] */
	uint32_t nr_folios;
	size_t folio_bytes;          /* the mapping behind folio[]; 0: heap */
	struct pglist_data node;
	struct mem_cgroup *memcgs;
	int nr_memcgs;
	uint64_t vm[NR_VM_ITEMS];
	struct mglru *lru_gen;       /* MGLRU's state (mm/lru_gen/), or NULL */
	int in_lru_fault;            /* current->in_lru_fault (mm/memory.c) */
	int uaccess;                 /* the access is the kernel's user copy
				      * through no PTE (UML's uaccess) */
	int huge;                    /* the access is a THP fault's (VMR_F_HUGE) */
	int folio_head;              /* set for read-ahead records only: the page
				      * is its record's first, and a read-ahead
				      * record is a folio (read_pages) */
	uint32_t hpage_pmd_nr;       /* HPAGE_PMD_NR: the pages of a THP */

	/* The tasks and their address spaces. */
	struct task_state *tasks;
	uint32_t nr_tasks, tasks_done;
	struct process *procs;
	uint32_t nr_procs;
	uint32_t *wait_tasks;        /* the tasks' slices of waited-for tasks (task_state.waits) */
	uint32_t *fork_tasks;        /* the tasks' slices of forked tasks (task_state.forks) */
	simtime_t trace_t0;          /* the trace's time of the replay's time 0 */
	struct mm_run *proc_runs;    /* every anonymous page, grouped by process */
	uint64_t exit_mmap_visited;  /* folios exit_mmap looked at (test_exit_mmap) */

	/* The devices, and the swap space on one of them. */
	struct backing swap, file;
	uint64_t swap_slots, swap_used;
	struct swap_info_struct si;  /* slot positions (cluster read-ahead only) */
	struct {                     /* swapin_nr_pages' globals (cluster read-ahead) */
		uint64_t prev_offset;
		uint32_t last_readahead_pages, hits;
	} swap_ra_cluster;
	const uint32_t *anon_by_addr; /* anonymous page ids by (space, index) */
	uint32_t nr_anon;
	struct shadow_nodes *shadow_nodes;  /* page-cache xa_nodes (mm/workingset.c) */

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

	struct read_bio *bios;       /* read_pages' requests, in flight or free */
	uint32_t nr_bios, free_bio;  /* free_bio: 1 + the first free one, 0: none */

	uint32_t *dirty_list;        /* file folios dirtied since the flusher ran */
	uint64_t nr_dirty_list, cap_dirty_list;
	int flusher_kicked;

	simtime_t stats_flush_last;  /* the last flush of everything */
	struct records records;      /* records/records.h */
	struct progress progress;
	simtime_t deadline, end_time;
	uint64_t work_done;          /* accesses completed by the deadline */

	uint64_t rng;                /* splitmix64 state (latency jitter) */
	int failed;
};

int engine_init(struct engine *e, const struct vmr *v, const struct engine_params *p,
		char *err, size_t errlen);
/* Runs the whole trace.  0, or -1 (out of memory). */
int engine_run(struct engine *e);
void engine_free(struct engine *e);

/* A seeded random number in [0, N) (all of 64 bits for N == 0). */
uint64_t engine_rand(struct engine *e, uint64_t n);

#endif
