/*
 * sim.h — the discrete-event core: a virtual clock, an event queue and
 * coroutines.
 *
 * Reclaim in the kernel is straight-line code that takes time in the
 * middle (a batch is isolated, then processed, then put back) while other
 * CPUs run.  To keep the simulated reclaim code shaped like mm/vmscan.c,
 * every reclaimer (kswapd, a task in direct or memcg reclaim) runs as a
 * coroutine: sim_sleep() hands the CPU back to the event loop until
 * virtual time has moved on, so other tasks and reclaimers act inside the
 * interval exactly as on a real machine.  Everything else (the tasks'
 * ordinary accesses) runs inline in the event loop.
 *
 * Determinism: events are ordered by (time, sequence number), the sequence
 * number being the order in which they were scheduled.
 */
#ifndef SIM_H
#define SIM_H

#include <stdint.h>
#include <ucontext.h>

typedef uint64_t simtime_t;

#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC  1000000000ull
#define HZ            250u                    /* CONFIG_HZ of a distribution kernel */
#define JIFFY_NS      (NSEC_PER_SEC / HZ)

struct sim_event {
	simtime_t time;
	uint64_t seq;
	uint32_t kind;
	uint32_t id;
	uint64_t arg;
};

struct sim_thread {
#if defined(__x86_64__)
	void *sp;             /* saved stack pointer (sim.c's own switch) */
#else
	ucontext_t ctx;
#endif
	void *stack;
	void (*fn)(void *arg);
	void *arg;
	int running;          /* started and not finished */
	uint64_t wait_gen;    /* stale wake-ups carry an older generation */
	int woken;            /* the last wait ended by sim_wake, not timeout */
	void *fake_stack;     /* AddressSanitizer fiber bookkeeping */
	/* The wait queue it sleeps on, and its neighbours there: a thread
	 * waits on one queue at a time, and one that times out leaves it in
	 * O(1), in place (a search of the queue made thousands of waiters
	 * quadratic). */
	struct sim_waitq *wq;
	struct sim_thread *wq_prev, *wq_next;
};

/* A list of sleeping threads, e.g. the reclaim_wait[] queues of a node,
 * in the order they began to wait (the order sim_wake_all wakes them). */
struct sim_waitq {
	struct sim_thread *head, *tail;
	uint32_t nr;
};

struct sim {
	simtime_t now;
	uint64_t seq;
	struct sim_event *heap;
	uint32_t nr, cap;
#if defined(__x86_64__)
	void *main_sp;
#else
	ucontext_t main_ctx;
#endif
	struct sim_thread *current;   /* NULL: the event loop itself */
	uint32_t wake_kind;           /* event kind reserved for thread wake-ups */
	uint32_t stale;               /* timeouts in the heap that lost to a wake-up */
	int failed;                   /* out of memory */
};

int sim_init(struct sim *s, uint32_t wake_kind);
void sim_free(struct sim *s);

/* Schedules an event of KIND for ID at time T (never before now). */
void sim_at(struct sim *s, simtime_t t, uint32_t kind, uint32_t id, uint64_t arg);
/* Takes the earliest event; 0 when there is none.  Sets s->now. */
int sim_next(struct sim *s, struct sim_event *ev);
/* Time of the earliest pending event, or UINT64_MAX. */
static inline simtime_t sim_peek(const struct sim *s)
{
	return s->nr ? s->heap[0].time : UINT64_MAX;
}

/* Moves the clock to T, for the event loop to go on at once with what it
 * would have queued for T: only when T is strictly before every queued
 * event (so that event would have been the next one popped, and no other
 * at T came first).  1 when it did. */
static inline int sim_advance(struct sim *s, simtime_t t)
{
	if (s->current || t >= sim_peek(s))
		return 0;
	s->now = t;
	return 1;
}

/* Starts FN(ARG) on thread TH and runs it until it sleeps or ends. */
int sim_thread_start(struct sim *s, struct sim_thread *th, void (*fn)(void *), void *arg);
/* Continues TH after a wake-up event for it (ignores stale ones). */
void sim_thread_resume(struct sim *s, struct sim_thread *th, uint64_t gen);
void sim_thread_free(struct sim_thread *th);

/* Inside a thread: let DELAY ns of virtual time pass. */
void sim_sleep(struct sim *s, simtime_t delay);
/* Inside a thread: sleep on Q until sim_wake_all(Q) or TIMEOUT ns.
 * Returns 1 if woken, 0 on timeout. */
int sim_wait(struct sim *s, struct sim_waitq *q, simtime_t timeout);
void sim_wake_all(struct sim *s, struct sim_waitq *q);
static inline int sim_waitq_active(const struct sim_waitq *q) { return q->nr != 0; }
void sim_waitq_free(struct sim_waitq *q);

#endif
