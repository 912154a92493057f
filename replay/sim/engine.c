/*
 * engine.c — the event loop that runs a .vmr: the machine is set up
 * from the trace (its memory, memcgs, devices, processes and tasks), then
 * tasks replay their record streams on one virtual clock (sim.h) while
 * kswapd, the flusher and I/O completions run beside them.
 *
 * The kernel model is replay/mm/: a task's access goes to
 * mm/memory.c's access_page; where that must sleep (reclaim, a locked
 * folio, a swap-in that reads ahead), the task continues in a coroutine.
 */
#include "engine.h"
#include "mix.h"
#include "mm/internal.h"
#include "mm/mm_inline.h"
#include "mm/lru_gen/lru_gen.h"
#include "mm/vmscan.h"
#include "progress.h"

#include <stdlib.h>
#include <string.h>

uint64_t engine_rand(struct engine *e, uint64_t n)
{
	/* splitmix64: small, fast, and the same on every machine. */
	uint64_t z = splitmix64_mix(e->rng += 0x9E3779B97F4A7C15ull);
	return n ? z % n : z;
}

/* ---- tasks ---------------------------------------------------------------------- */

/* task_fork: the child processes T forked by trace time LIMIT start,
 * T being at trace time TRACE_AT (at most LIMIT past them) at AT in the
 * replay: each at the replay time T was at its fork (as late as T runs
 * behind the trace there; never before its own trace time, nor before
 * now), with the gaps of its own records from there.  A child does not
 * exist before its parent's fork returns: one started at its trace time
 * while the parent ran late (xargs waiting for a slower compiler to exit
 * before it forks the next) would run beside the processes it came after
 * in the trace. */
static void task_fork(struct engine *e, struct task_state *t, simtime_t limit, simtime_t trace_at,
		      simtime_t at)
{
	while (t->next_fork < t->nr_forks) {
		uint32_t c = t->forks[t->next_fork];
		simtime_t begin = e->v->tasks[c].begin_ns - e->trace_t0;
		if (begin > limit)
			return;
		t->next_fork++;
		simtime_t start = trace_at - begin < at ? at - (trace_at - begin) : 0;  /* T's time at the fork */
		if (start < e->sim.now)
			start = e->sim.now;
		struct task_state *ct = &e->tasks[c];
		if (start > begin)
			ct->next += start - begin;
		sim_at(&e->sim, ct->next, EV_TASK, c, 0);
	}
}

static void task_finish(struct engine *e, struct task_state *t)
{
	read_pages(e, t);
	t->done = e->sim.now;
	t->finished = 1;
	e->tasks_done++;
	/* the forks a killed task has left: from now */
	task_fork(e, t, UINT64_MAX, UINT64_MAX, e->sim.now);
	/* do_exit -> do_notify_parent: the parent's wait ends (and the
	 * thread's next task may start) */
	for (uint32_t w = t->waiters; w; w = e->tasks[w - 1].next_waiter)
		sim_at(&e->sim, e->sim.now, EV_TASK, w - 1, 0);
	t->waiters = 0;
	struct process *p = &e->procs[t->proc];
	if (++p->tasks_done == p->nr_tasks && p->alive)
		exit_mmap(e, t->proc);
}

#define PREFETCH_RECS 32

/* T still has a wait for another task's end or a fork to place. */
static inline int task_edges_pending(const struct task_state *t)
{
	return t->next_wait < t->nr_waits || t->next_fork < t->nr_forks;
}

/* do_wait: a task the trace shows going on after a child process
 * exited (a shell's wait4, make's, xargs') does not go on before the
 * child has finished in the replay, however much slower the replay ran
 * it: what the parent does next may depend on it (a shell's exit closes
 * the files it held open, truncating their page cache).  The same for
 * a thread's next task (after an exec, or its exit path's last events):
 * it does not start before the previous one finished.  Returns 1 when T
 * must wait (the task it waits for wakes it in task_finish). */
static int task_wait(struct engine *e, struct task_state *t)
{
	const struct vmr *v = e->v;
	simtime_t at = t->next > e->sim.now ? t->next : e->sim.now;   /* when it is at trace_next */
	while (t->next_wait < t->nr_waits) {
		uint32_t c = t->waits[t->next_wait];
		simtime_t end = v->tasks[c].end_ns - e->trace_t0;
		if (end > t->trace_next)
			break;
		/* what it forked before that end, it forked before it waited */
		task_fork(e, t, end, t->trace_next, at);
		struct task_state *ct = &e->tasks[c];
		if (!ct->finished) {
			t->next_waiter = ct->waiters;
			ct->waiters = (uint32_t)(t - e->tasks) + 1;
			return 1;
		}
		t->next_wait++;
	}
	task_fork(e, t, t->trace_next, t->trace_next, at);
	return 0;
}

/* A task's cursor (task_state's p, sub, next, trace_next), held in
 * locals while task_step runs, so that task_step_anon_hits' loop keeps it
 * in registers: the folio stores of an access may alias the task's
 * fields as far as the compiler knows.  Only task_step and task_wait
 * (trace_next) read the cursor; it goes back to the task before either
 * stops or waits. */
struct task_cursor {
	const struct vmr_rec *p, *end;
	uint32_t sub;                /* pages of *p already done */
	simtime_t next, trace_next;
};

static inline void task_cursor_save(struct task_state *t, const struct task_cursor *c)
{
	t->p = c->p;
	t->sub = c->sub;
	t->next = c->next;
	t->trace_next = c->trace_next;
}

/* The cursor moves to its next record, due DELTA after NOW. */
static inline void task_next_rec(struct task_cursor *c, simtime_t now)
{
	c->sub = 0;
	c->p++;
	if (c->p < c->end) {
		c->next = now + vmr_rec_delta(*c->p);
		c->trace_next += vmr_rec_delta(*c->p);
	}
}

/* The folio of a record a few ahead: a replay's accesses land all over
 * the folio array, one cache miss each, and the records say in advance
 * where. */
static inline __attribute__((always_inline)) void
task_prefetch(const struct engine *e, const struct task_cursor *c)
{
	if (c->p + PREFETCH_RECS < c->end && c->p[PREFETCH_RECS].page < e->nr_folios)
		prefetch_folio(&e->folio[c->p[PREFETCH_RECS].page]);
}

/* The records most of a replay is: one resident anonymous page loaded or
 * stored (access_anon_resident, what access_page does for one: it cannot
 * sleep, kill, fail, queue an event or read ahead; mm/internal.h), so
 * nothing task_step checks between records changes, and a run of them is
 * replayed here without those checks (the same steps as task_step's: due
 * before any queued event, the access, the cursor on; on the Zipf bench
 * stream a fifth of the instructions per access went).  Called in the
 * event loop with the task between records (sub 0), alive, and the
 * replay not failing; WAIT_AT is the trace time from which task_wait may
 * hold the task.  Stops at any other record. */
static inline void task_step_anon_hits(struct engine *e, struct task_state *t, struct task_cursor *c,
				       simtime_t wait_at)
{
	/* What no such access changes, in locals: the clock (moved here
	 * alone), the first queued event's time, the deadline */
	simtime_t now = e->sim.now, horizon = sim_peek(&e->sim), deadline = e->deadline;
	while (c->p < c->end && c->trace_next < wait_at) {
		struct vmr_rec r = *c->p;
		unsigned op = vmr_rec_op(r);
		if (op > VMR_OP_STORE || (r.info & (VMR_F_RUN | VMR_F_FILE | VMR_F_UACCESS | VMR_F_HUGE)) ||
		    !(e->folio[r.page].flags & PG_resident))
			return;
		if (c->next > now ? c->next >= horizon : horizon < c->next)
			return;
		if (c->next > now)
			e->sim.now = now = c->next;
		task_prefetch(e, c);
		e->in_lru_fault = 0;
		access_anon_resident(e, t, r.page, op, 0);
		t->accesses++;
		if (now <= deadline)
			e->work_done++;
		task_next_rec(c, now);
	}
}

/* Does the read-ahead window go on at record P (read_pages)?  It does at
 * a READAHEAD record, and past a DELAY record before one whose delay a
 * record's own delta field could have held: the sink writes such a DELAY
 * before every run record with a time of its own (a large folio's pages;
 * runs have no delta field), and page_cache_ra_order inserts every folio
 * of its window before read_pages, as page_cache_ra_unbounded does its
 * single pages, which go on through the same gap in their deltas. */
static int ra_window_continues(const struct vmr_rec *p, const struct vmr_rec *end)
{
	if (p < end && vmr_rec_op(*p) == VMR_OP_DELAY && vmr_rec_delay(*p) <= VMR_DELTA_MAX)
		p++;
	return p < end && vmr_rec_op(*p) == VMR_OP_READAHEAD;
}

/* Runs task T's records from its cursor.  In the event loop it stops
 * before anything that must sleep and continues in its coroutine. */
static void task_step(struct engine *e, struct task_state *t)
{
	struct task_cursor c = { t->p, t->end, t->sub, t->next, t->trace_next };
	uint32_t id = (uint32_t)(t - e->tasks);
	while (c.p < c.end) {
		if (c.sub == 0 && !t->killed && !e->sim.current &&
		    !(e->failed || e->sim.failed || e->records.failed)) {
			simtime_t wait_at = t->next_wait < t->nr_waits ?
				e->v->tasks[t->waits[t->next_wait]].end_ns - e->trace_t0 : UINT64_MAX;
			if (t->next_fork < t->nr_forks &&
			    e->v->tasks[t->forks[t->next_fork]].begin_ns - e->trace_t0 < wait_at)
				wait_at = e->v->tasks[t->forks[t->next_fork]].begin_ns - e->trace_t0;
			task_step_anon_hits(e, t, &c, wait_at);
			if (c.p == c.end)
				break;
		}
		if (t->killed) {
			task_cursor_save(t, &c);
			task_finish(e, t);
			return;
		}
		if (c.sub == 0 && task_edges_pending(t)) {
			task_cursor_save(t, &c);
			if (task_wait(e, t))
				return;     /* the other's end schedules it; t->next stands */
		}
		if (c.next > e->sim.now || (!e->sim.current && sim_peek(&e->sim) < c.next)) {
			/* Due before anything else: go on here rather than through
			 * the queue (the event loop would pop it next and call this,
			 * unless it is stopping). */
			if (e->failed || e->sim.failed || e->records.failed ||
			    !sim_advance(&e->sim, c.next)) {
				task_cursor_save(t, &c);
				sim_at(&e->sim, c.next, EV_TASK, id, 0);
				return;
			}
		}
		task_prefetch(e, &c);
		struct vmr_rec r = *c.p;
		unsigned op = vmr_rec_op(r);
		if (op != VMR_OP_DELAY) {
			uint32_t count = vmr_rec_count(r);
			while (c.sub < count) {
				/* lru_gen_enter_fault for a read-ahead done by a fault */
				e->in_lru_fault = op == VMR_OP_READAHEAD && vmr_rec_in_fault(r);
				e->uaccess = vmr_rec_uaccess(r);
				e->huge = vmr_rec_huge(r);
				if (op == VMR_OP_READAHEAD)
					e->folio_head = c.sub == 0;
				int res = access_page(e, t, r.page + c.sub, op, vmr_rec_is_file(r));
				if (res < 0) {
					task_cursor_save(t, &c);
					t->blocked = 1;
					return;          /* continue in the coroutine */
				}
				if (res == 0) {
					task_cursor_save(t, &c);
					task_finish(e, t);
					return;
				}
				c.sub++;
				/* the last page of a run of read-ahead records:
				 * the window is in, its read goes out */
				if (op == VMR_OP_READAHEAD && c.sub == count && !ra_window_continues(c.p + 1, c.end))
					read_pages(e, t);
				simtime_t done = t->io_until > e->sim.now ? t->io_until : e->sim.now;
				if (vmr_op_is_access(op)) {
					t->accesses++;
					if (done <= e->deadline)
						e->work_done++;
				}
				if (t->io_until > e->sim.now) {
					/* Waiting for a read: resume when it completes. */
					int moved = c.sub == count;
					if (moved) {
						task_next_rec(&c, done);
					} else {
						c.next = done;
					}
					t->io_until = 0;
					task_cursor_save(t, &c);
					/* Between records, as at the loop's top: the
					 * children it forks in the gap to its next
					 * record start from where it is in that gap
					 * (task_wait -> task_fork), not when it comes
					 * to that record, a whole gap late (make's
					 * gaps are its waits for its jobs). */
					if (moved && c.p < c.end && task_edges_pending(t) && task_wait(e, t))
						return;     /* the other's end schedules it */
					sim_at(&e->sim, c.next, EV_TASK, id, 0);
					return;
				}
			}
		}
		task_next_rec(&c, e->sim.now);
	}
	/* Its end in the trace may come after others' (a shell's exit after
	 * its last child's). */
	c.trace_next = e->v->tasks[id].end_ns - e->trace_t0;
	task_cursor_save(t, &c);
	if (!t->killed && task_wait(e, t))
		return;
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

struct fork_edge {
	uint32_t parent, child;      /* PARENT waits for (or forks) CHILD ... */
	uint64_t end_ns;             /* ... from CHILD's end (at its begin) in the trace */
};

static int cmp_u64_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1];
}

static int cmp_fork_edge(const void *a, const void *b)
{
	const struct fork_edge *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->end_ns != y->end_ns)
		return x->end_ns < y->end_ns ? -1 : 1;
	return x->child < y->child ? -1 : x->child > y->child;
}

/* The task that forked C: of tid C->ppid, in another thread group, alive
 * at C's begin (and, with MUST_OUTLIVE, ending after C), the first in
 * BY_TID's order (by tid, then task index); UINT64_MAX for none. */
static uint64_t forking_task(const struct vmr *v, const uint64_t (*by_tid)[2], uint32_t n,
			     const struct vmr_task *c, int must_outlive)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (by_tid[mid][0] < c->ppid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && by_tid[lo][0] == c->ppid; lo++) {
		const struct vmr_task *pt = &v->tasks[by_tid[lo][1]];
		if (pt->pid != c->pid && pt->begin_ns <= c->begin_ns && c->begin_ns <= pt->end_ns &&
		    (!must_outlive || c->end_ns < pt->end_ns))
			return by_tid[lo][1];
	}
	return UINT64_MAX;
}

/* Who waits for whom (task_wait): a task whose thread group is new (a
 * fork, not a thread) for the task with the tid that forked it (ppid)
 * alive at its begin; a task for the previous task of its tid.  Threads
 * are not waited for (their joins are futexes the trace does not
 * show).  A task only waits for one that ended before it did, so no
 * trace, however inconsistent its times, makes tasks wait in a circle. */
static int task_waits_init(struct engine *e)
{
	const struct vmr *v = e->v;
	uint32_t n = e->nr_tasks;
	uint64_t (*by_tid)[2] = malloc((n ? n : 1) * sizeof(*by_tid));
	struct fork_edge *edge = malloc((n ? 2 * n : 1) * sizeof(*edge));
	e->wait_tasks = malloc((n ? 2 * n : 1) * sizeof(*e->wait_tasks));
	e->fork_tasks = malloc((n ? n : 1) * sizeof(*e->fork_tasks));
	if (!by_tid || !edge || !e->wait_tasks || !e->fork_tasks) {
		free(by_tid);
		free(edge);
		return -1;
	}
	/* by tid, then by task index: a tid's tasks in the order it had them */
	for (uint32_t i = 0; i < n; i++) {
		by_tid[i][0] = v->tasks[i].tid;
		by_tid[i][1] = i;
	}
	qsort(by_tid, n, sizeof(*by_tid), cmp_u64_pair);
	uint32_t nr_edges = 0;
	for (uint32_t k = 1; k < n; k++)
		if (by_tid[k][0] == by_tid[k - 1][0] &&
		    v->tasks[by_tid[k - 1][1]].end_ns < v->tasks[by_tid[k][1]].end_ns)
			edge[nr_edges++] = (struct fork_edge){ (uint32_t)by_tid[k][1], (uint32_t)by_tid[k - 1][1],
							       v->tasks[by_tid[k - 1][1]].end_ns };
	for (uint32_t i = 0; i < n; i++) {
		const struct vmr_task *c = &v->tasks[i];
		uint64_t parent = forking_task(v, by_tid, n, c, 1);
		if (parent != UINT64_MAX)
			edge[nr_edges++] = (struct fork_edge){ (uint32_t)parent, i, c->end_ns };
	}
	qsort(edge, nr_edges, sizeof(*edge), cmp_fork_edge);
	for (uint32_t k = 0; k < nr_edges; k++) {
		struct task_state *t = &e->tasks[edge[k].parent];
		if (!t->waits)
			t->waits = e->wait_tasks + k;
		t->nr_waits++;
		e->wait_tasks[k] = edge[k].child;
	}

	/* Who forks whom (task_fork): a tid's first task, in a new thread
	 * group, by the task of its ppid alive at its begin; by their begin.
	 * The others start at their trace time. */
	nr_edges = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (k > 0 && by_tid[k][0] == by_tid[k - 1][0])
			continue;
		uint32_t i = (uint32_t)by_tid[k][1];
		const struct vmr_task *c = &v->tasks[i];
		uint64_t parent = forking_task(v, by_tid, n, c, 0);
		if (parent != UINT64_MAX)
			edge[nr_edges++] = (struct fork_edge){ (uint32_t)parent, i, c->begin_ns };
	}
	qsort(edge, nr_edges, sizeof(*edge), cmp_fork_edge);
	for (uint32_t k = 0; k < nr_edges; k++) {
		struct task_state *t = &e->tasks[edge[k].parent];
		if (!t->forks)
			t->forks = e->fork_tasks + k;
		t->nr_forks++;
		e->fork_tasks[k] = edge[k].child;
		e->tasks[edge[k].child].forked = 1;
	}
	free(by_tid);
	free(edge);
	return 0;
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

/* The processes by pid, open addressing: the trace's pids are arbitrary
 * numbers, and a search of every process for each task and each page made
 * set-up O(tasks x processes + pages x processes). */
struct pid_map {
	uint32_t *slot;              /* process index + 1; 0: empty */
	uint32_t mask;
};

static int pid_map_init(struct pid_map *m, uint32_t nr)
{
	uint32_t size = 16;
	while (size < 2 * (uint64_t)nr)
		size *= 2;
	m->mask = size - 1;
	m->slot = calloc(size, sizeof(*m->slot));
	return m->slot ? 0 : -1;
}

static uint32_t *pid_map_slot(const struct engine *e, struct pid_map *m, uint32_t pid)
{
	uint32_t i = (pid * 0x9E3779B1u) & m->mask;
	while (m->slot[i] && e->procs[m->slot[i] - 1].pid != pid)
		i = (i + 1) & m->mask;
	return &m->slot[i];
}

/* Anonymous pages belong to the process of their address space; each
 * process gets the runs of its own, ascending (struct process.runs).  A
 * page of an address space no task has keeps owner 0, as the zeroed
 * folio array has it, and so is in the first process's runs.  An address
 * space's pages are mostly adjacent: its process is looked up once for
 * each run of them, not for every page (anon-mt-sw1's classic replay:
 * 210 k instructions fewer, of 81 M). */
static int mm_init_pages(struct engine *e, struct pid_map *pids)
{
	const struct vmr *v = e->v;
	uint64_t nr_runs = 0;
	uint32_t last = NIL;                 /* the previous anon page's owner */
	static const uint32_t no_process;
	uint64_t space = 0;
	const uint32_t *slot = NULL;         /* SPACE's process + 1, NULL: not looked up */
	for (uint32_t i = 0; i < e->nr_folios; i++) {
		if (v->pages[i].kind != VMR_PAGE_ANON || !e->nr_procs) {
			last = NIL;
			continue;
		}
		if (!slot || v->pages[i].space != space) {
			space = v->pages[i].space;
			slot = space <= UINT32_MAX ? pid_map_slot(e, pids, (uint32_t)space) : &no_process;
		}
		if (*slot)
			e->folio[i].owner = *slot - 1;
		if (e->folio[i].owner != last) {
			e->procs[e->folio[i].owner].nr_runs++;
			nr_runs++;
		}
		last = e->folio[i].owner;
	}
	e->proc_runs = malloc((nr_runs ? nr_runs : 1) * sizeof(*e->proc_runs));
	if (!e->proc_runs)
		return -1;
	uint64_t off = 0;
	for (uint32_t pr = 0; pr < e->nr_procs; pr++) {
		e->procs[pr].runs = e->proc_runs + off;
		off += e->procs[pr].nr_runs;
		e->procs[pr].nr_runs = 0;
	}
	last = NIL;
	for (uint32_t i = 0; i < e->nr_folios; i++) {
		if (v->pages[i].kind != VMR_PAGE_ANON || !e->nr_procs) {
			last = NIL;
			continue;
		}
		struct process *pr = &e->procs[e->folio[i].owner];
		if (e->folio[i].owner != last)
			pr->runs[pr->nr_runs++] = (struct mm_run){ i, 0 };
		pr->runs[pr->nr_runs - 1].nr++;
		last = e->folio[i].owner;
	}
	return 0;
}

int engine_init(struct engine *e, const struct vmr *v, const struct engine_params *p,
		char *err, size_t errlen)
{
	memset(e, 0, sizeof(*e));
	e->v = v;
	e->p = *p;
	e->policy = p->policy;
	e->records.timeline = p->timeline;
	e->records.keep = p->keep_records;
	e->rng = p->seed ^ 0x5851F42D4C957F2Dull;
	uint64_t page_size = meta_u64(v, "page_size", 4096);
	e->hpage_pmd_nr = (uint32_t)vmr_hpage_pmd_nr(page_size);

	if (sim_init(&e->sim, EV_WAKE) != 0)
		goto oom;
	e->nr_folios = (uint32_t)v->hdr->nr_pages;
	e->folio = alloc_node_mem_map(e->nr_folios, &e->folio_bytes);
	if (!e->folio)
		goto oom;
	e->ptes = calloc(e->nr_folios, sizeof(*e->ptes));
	if (!e->ptes)
		goto oom;
	for (uint32_t i = 0; i < e->nr_folios; i++) {
		if (v->pages[i].kind == VMR_PAGE_ANON)
			e->folio[i].flags = PG_swapbacked;
		if (v->pages[i].flags & VMR_PAGE_PRECACHED)
			e->folio[i].flags = PG_precached;
		if (v->pages[i].flags & VMR_PAGE_EXEC)
			e->folio[i].flags |= PG_exec;     /* its vma's VM_EXEC */
	}

	/* The machine: the node has the given RAM, or the capture's. */
	uint64_t node_bytes = p->node_memory ? p->node_memory : meta_u64(v, "mem_total", 0);
	if (!node_bytes)
		node_bytes = 2 * (uint64_t)e->nr_folios * page_size + (64ull << 20);
	e->node.present_pages = node_bytes / page_size;
	e->node.nr_free = e->node.present_pages;
	setup_per_zone_wmarks(&e->node, page_size);

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
	mem_cgroup_init(e, 0, -1, "", p->swappiness);
	if (limit || cl.nr) {
		mem_cgroup_init(e, 1, 0, "", p->swappiness);
		if (limit && !p->unlimited)
			e->memcgs[1].max = limit / page_size;
		e->nr_memcgs = 2;
	}
	for (size_t i = 0; i < cl.nr; i++) {
		int m = mem_cgroup_from_path(e, cl.l[i].path, p->swappiness);
		if (m < 0) {
			snprintf(err, errlen, "%s: cgroup '%s' nests too deep", v->path, cl.l[i].path);
			free_cgroup_lines(&cl);
			engine_free(e);
			return -1;
		}
		if (cl.l[i].limit)
			e->memcgs[m].max = cl.l[i].limit / page_size;
	}

	/* What the session had charged outside the LRU (kernel memory, the
	 * per-CPU charge stock, pages between lists), as the capture measured
	 * it: it holds memory from the start and reclaim never frees it. */
	if (e->nr_memcgs > 1 && p->nonlru_pages) {
		for (int m = 1; m >= 0; m = e->memcgs[m].parent)
			e->memcgs[m].usage += p->nonlru_pages;
		e->node.nr_free -= p->nonlru_pages < e->node.nr_free ? p->nonlru_pages : e->node.nr_free;
	}

	if (backing_init(&e->swap, &p->swap) != 0 || backing_init(&e->file, &p->file) != 0)
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
	e->deadline = p->deadline ? p->deadline : (t_end > t0 ? t_end - t0 : 0);
	struct pid_map pids;
	if (pid_map_init(&pids, e->nr_tasks) != 0) {
		free_cgroup_lines(&cl);
		goto oom;
	}
	for (uint32_t i = 0; i < e->nr_tasks; i++) {
		const struct vmr_task *vt = &v->tasks[i];
		struct task_state *t = &e->tasks[i];
		uint32_t *slot = pid_map_slot(e, &pids, vt->pid);
		if (!*slot) {
			uint32_t pr = e->nr_procs++;
			e->procs[pr].pid = vt->pid;
			e->procs[pr].memcg = e->nr_memcgs > 1 ? 1 : 0;
			e->procs[pr].alive = 1;
			*slot = pr + 1;
		}
		uint32_t pr = *slot - 1;
		e->procs[pr].nr_tasks++;
		t->engine = e;
		t->proc = pr;
		t->p = v->recs + vt->first_rec;
		t->end = t->p + vt->nr_recs;
		t->next = vt->begin_ns - t0 + (t->p < t->end ? vmr_rec_delta(*t->p) : 0);
		t->trace_next = t->next;
	}
	e->trace_t0 = t0;
	if (task_waits_init(e) != 0) {
		free(pids.slot);
		free_cgroup_lines(&cl);
		goto oom;
	}
	/* a forked task starts when its parent forks it (task_fork) */
	for (uint32_t i = 0; i < e->nr_tasks; i++)
		if (!e->tasks[i].forked)
			sim_at(&e->sim, e->tasks[i].next, EV_TASK, i, 0);
	/* A process is in the memcg of the first cgroup line naming its pid
	 * (walked backwards, so the first one is the last written; every
	 * path exists by now, so no memcg is created here). */
	for (size_t c = cl.nr; c-- > 0;) {
		uint32_t *slot = pid_map_slot(e, &pids, cl.l[c].pid);
		if (*slot)
			e->procs[*slot - 1].memcg = mem_cgroup_from_path(e, cl.l[c].path, p->swappiness);
	}
	int r = mm_init_pages(e, &pids);
	free(pids.slot);
	free_cgroup_lines(&cl);
	if (r != 0)
		goto oom;
	/* Only a device that reads ahead needs the address index (a sort)
	 * or the slots' positions. */
	if (swap_ra_init(e) != 0 || shadow_nodes_init(e) != 0)
		goto oom;
	if (lru_gen_enabled(e) && lru_gen_init(e) != 0)
		goto oom;
	if (sim_thread_start(&e->sim, &e->kswapd, kswapd_main, e) != 0)
		goto oom;
	wb_wakeup_delayed(e);
	/* The statistics' flushes: where the capture recorded them, at their
	 * times; else the periodic flusher (from 2 s on, or on its series
	 * since boot where the kernel's timers are known) and the capture's
	 * reads of memory.stat at its period. */
	if (p->stats_flush_recorded) {
		stats_flush_trace_next(e, 0);
	} else {
		sim_at(&e->sim, flush_memcg_stats_first(e), EV_STATS_FLUSH, 0, 0);
		if (p->stat_read_ns)
			sim_at(&e->sim, p->stat_read_ns, EV_STATS_READ, 0, 0);
	}
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
	while (e->tasks_done < e->nr_tasks && !e->failed && !e->sim.failed && !e->records.failed &&
	       sim_next(&e->sim, &ev)) {
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
		case EV_READ_DONE:
			folio_end_read(e, ev.id, (uint16_t)ev.arg);
			break;
		case EV_READ_BIO_DONE:
			mpage_read_end_io(e, ev.id);
			break;
		case EV_FLUSH:
			wb_workfn(e, (int)ev.id);
			break;
		case EV_STATS_FLUSH:
			flush_memcg_stats_dwork(e);
			break;
		case EV_STATS_READ:
			memcg_stat_read(e);
			break;
		case EV_STATS_FLUSH_TRACE:
			stats_flush_trace(e, ev.id);
			break;
		}
		progress_update(pr, e->tasks_done);
	}
	progress_done(pr, e->tasks_done);
	e->stopping = 1;
	e->end_time = e->sim.now;
	return e->failed || e->sim.failed || e->records.failed ? -1 : 0;
}

void engine_free(struct engine *e)
{
	lru_gen_exit(e);
	for (uint32_t i = 0; e->tasks && i < e->nr_tasks; i++) {
		sim_thread_free(&e->tasks[i].thread);
		free(e->tasks[i].ra);
	}
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
		free_node_mem_map(e->folio, e->folio_bytes);
	free(e->ptes);
	swap_ra_free(e);
	shadow_nodes_free(e);
	for (int i = 0; e->memcgs && i < e->nr_memcgs; i++)
		lruvec_free_lists(&e->memcgs[i].lruvec);
	free(e->memcgs);
	free(e->tasks);
	free(e->wait_tasks);
	free(e->fork_tasks);
	for (uint32_t i = 0; e->procs && i < e->nr_procs; i++) {
		if (e->procs[i].own_runs)
			free(e->procs[i].runs);
		free(e->procs[i].adopted);
		free(e->procs[i].file_ptes);
	}
	free(e->procs);
	free(e->proc_runs);
	records_free(&e->records);
	free(e->dirty_list);
	for (uint32_t i = 0; e->bios && i < e->nr_bios; i++)
		free(e->bios[i].pages);
	free(e->bios);
	sim_free(&e->sim);
	memset(e, 0, sizeof(*e));
}
