/*
 * memcontrol.c — memory cgroups, after mm/memcontrol.c and
 * mm/page_counter.c: the tree the trace's cgroups form, hierarchical
 * charging against memory.max, try_charge_memcg's reclaim, retry and OOM
 * rules, and the statistics' rstat flushes: readers of lruvec_page_state
 * see the values of the last flush, made every 2 s by the periodic
 * flusher, by a reader of memory.stat when enough updates are pending,
 * and by the rate-limited flushes of reclaim when the periodic one is
 * late; or, where the capture recorded the flushes the rest of the
 * machine made (KEVENTS stats_flush), at their times instead of the
 * first two.
 *
 * Left out (DEVIATIONS.md): memory.min/low/high, the per-CPU charge
 * stock and its drain (its pages, kernel memory and others the session
 * charged outside the LRU come as one charge measured by the capture),
 * memsw, socket memory; pending updates are counted for the statistics
 * the model keeps (LRU sizes, workingset activations), not every one.
 */
#include "internal.h"
#include "vmscan.h"

#include <stdio.h>
#include <string.h>

void mem_cgroup_uncharge(struct engine *e, int memcg)
{
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		e->memcgs[m].usage--;
}

/* Whether a charge of NR_PAGES to MEMCG fits under every ancestor's
 * limit (mem_cgroup_margin >= NR_PAGES up the hierarchy): the test the
 * inline fault paths make before a charge that might have to reclaim. */
int mem_cgroup_charge_fits(const struct engine *e, int memcg, uint64_t nr_pages)
{
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		if (e->memcgs[m].usage + nr_pages > e->memcgs[m].max)
			return 0;
	return 1;
}

/* try_charge_memcg (its first charge attempt inline, internal.h; here
 * the rest, from a charge that went over OVER's limit): charge NR_PAGES
 * pages (one folio) with the gfp bits GFP; over a limit, reclaim from
 * the memcg that is over (asking for NR_PAGES,
 * try_to_free_mem_cgroup_pages) until it has room for them
 * (mem_cgroup_margin); for a small charge any progress retries for
 * free, MAX_RECLAIM_RETRIES fruitless tries end in the memcg OOM killer.
 * Returns 0 when the task was killed (nothing is charged).  The first
 * reclaim that leaves the memcg over its limit is followed by
 * drain_all_stock and a retry that reclaims again, before __GFP_NORETRY
 * gives up or a retry counts: there are no per-CPU stocks to drain
 * (their pages come as the session's non-LRU charge), but the second
 * reclaim is the kernel's, so a NORETRY charge reclaims twice and an OOM
 * takes 18 fruitless reclaims.  ALLOC_NOMEM, charging nothing: without
 * __GFP_DIRECT_RECLAIM at once (!gfpflags_allow_blocking); with NORETRY
 * if still over the limit then; above PAGE_ALLOC_COSTLY_ORDER (a THP)
 * after the retries, as mem_cgroup_oom does not kill for such orders. */
int try_charge_memcg_reclaim(struct engine *e, struct task_state *t, int memcg, uint64_t nr_pages,
			     unsigned gfp, int over)
{
	int nr_retries = MAX_RECLAIM_RETRIES;
	int drained = 0;
	/* each pass follows a charge that went over OVER's limit; the
	 * passes that go on (continue) try the charge again */
	do {
		if (!(gfp & GFP_DIRECT_RECLAIM))
			return ALLOC_NOMEM;
		if (!e->sim.current)
			return -1;
		simtime_t t0 = e->sim.now;
		uint64_t nr_reclaimed = try_to_free_mem_cgroup_pages(e, over, nr_pages, (uint32_t)(t - e->tasks));
		t->stall_ns += e->sim.now - t0;
		if (e->memcgs[over].usage + nr_pages <= e->memcgs[over].max)
			continue;
		if (!drained) {
			drained = 1;       /* drain_all_stock(mem_over_limit) */
			continue;
		}
		if (gfp & GFP_NORETRY)
			return ALLOC_NOMEM;
		if (nr_reclaimed && nr_pages <= 1u << PAGE_ALLOC_COSTLY_ORDER)
			continue;          /* small charges retry while reclaim works */
		if (nr_retries--)
			continue;
		if (nr_pages > 1u << PAGE_ALLOC_COSTLY_ORDER)
			return ALLOC_NOMEM;
		if (!out_of_memory(e, over))
			t->killed = 1;
		nr_retries = MAX_RECLAIM_RETRIES;
	} while (!t->killed && (over = page_counter_try_charge(e, memcg, nr_pages)) >= 0);
	return t->killed ? 0 : 1;
}

/* The memcg a folio brought in by T is charged to: T's (mem_cgroup_charge
 * charges the faulting task's cgroup), except for a file page that was in
 * the page cache before the session (PG_precached, from the trace's
 * VMR_PAGE_PRECACHED): it stays charged where it was, which the trace
 * does not say, so to the root.  Once it has left memory, its next fault
 * is the workload's own insertion. */
int folio_charge_memcg(const struct engine *e, const struct task_state *t, uint32_t pfn)
{
	if (e->folio[pfn].flags & PG_precached)
		return 0;
	return e->procs[t->proc].memcg;
}

void mem_cgroup_init(struct engine *e, int idx, int parent, const char *name, int swappiness)
{
	struct mem_cgroup *mc = &e->memcgs[idx];
	memset(mc, 0, sizeof(*mc));
	mc->lruvec.memcg = idx;
	mc->parent = parent;
	mc->max = UINT64_MAX;
	mc->swappiness = swappiness;
	snprintf(mc->name, sizeof(mc->name), "%s", name);
}

/* Parents are created first, on first use, so that a child's index is
 * above its parent's (the memcg walks rely on it). */
int mem_cgroup_from_path(struct engine *e, const char *path, int swappiness)
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
			mem_cgroup_init(e, found, parent, comp, swappiness);
		}
		parent = found;
		p += n + (slash ? 1 : 0);
	}
	return parent;
}

/* ---- statistics -------------------------------------------------------- */

/* FLUSH_TIME: the periodic flusher's interval (2 * HZ). */
#define FLUSH_TIME_NS (2 * NSEC_PER_SEC)
/* MEMCG_CHARGE_BATCH: updates a CPU may hold before they count. */
#define MEMCG_CHARGE_BATCH 64

/* do_flush_stats: the statistics of MEMCG's subtree become current. */
static void do_flush_stats(struct engine *e, int memcg)
{
	for (int m = memcg; m < e->nr_memcgs; m++) {
		if (m != memcg && !memcg_is_under(e, m, memcg))
			continue;
		struct lruvec *lv = &e->memcgs[m].lruvec;
		memcpy(lv->stat, lv->subtree_size, sizeof(lv->stat));
		memcpy(lv->stat_local, lv->size, sizeof(lv->stat_local));
		memcpy(lv->stat_workingset_activate, lv->workingset_activate,
		       sizeof(lv->stat_workingset_activate));
		lv->stats_updates = 0;
	}
	if (memcg == 0)
		e->stats_flush_last = e->sim.now;
}

/* mem_cgroup_flush_stats: flush when more updates are pending than the
 * CPUs' batches hold (memcg_vmstats_needs_flush). */
void mem_cgroup_flush_stats(struct engine *e, int memcg)
{
	if (e->memcgs[memcg].lruvec.stats_updates > MEMCG_CHARGE_BATCH * (uint64_t)e->p.nr_cpus)
		do_flush_stats(e, memcg);
}

/* mem_cgroup_flush_stats_ratelimited: only when the periodic flusher is a
 * full cycle late. */
void mem_cgroup_flush_stats_ratelimited(struct engine *e, int memcg)
{
	if (e->sim.now > e->stats_flush_last + 2 * FLUSH_TIME_NS)
		mem_cgroup_flush_stats(e, memcg);
}

/* How many jiffies apart the periodic flusher runs at HZ: each run
 * re-queues stats_flush_dwork FLUSH_TIME (2 * HZ) ahead, and the timer
 * wheel files a timer that far out in a coarser level, whose bucket it
 * rounds up to the next boundary so as never to fire early
 * (kernel/time/timer.c calc_wheel_index, calc_index: LVL_CLK_SHIFT 3;
 * level n holds from LVL_START(n) = 63 << 3(n-1) jiffies ahead, its
 * buckets LVL_GRAN(n) = 8^n apart).
 * A run fires on a boundary of that level, so the next is FLUSH_TIME
 * rounded up past the next boundary: HZ 100 208 jiffies (2.08 s), HZ 250
 * 504 (2.016 s), HZ 1000 2048. */
uint64_t flush_time_jiffies(unsigned hz)
{
	uint64_t delta = 2 * (uint64_t)hz;
	unsigned lvl = 0;
	while (lvl < 8 && delta >= (63ull << (3 * lvl)))
		lvl++;
	unsigned shift = 3 * lvl;      /* LVL_SHIFT(lvl) */
	return ((delta >> shift) + 1) << shift;
}

/* The periodic flusher's first run in the replay.  mem_cgroup_css_online
 * queues it for the root memcg at boot and every run re-queues it
 * (flush_memcg_stats_dwork), so it runs at whole multiples of its period
 * since boot (the first at one period: INITIAL_JIFFIES is a bucket
 * boundary).  Where the captured kernel's HZ and time since boot are
 * known (the test bed's guest, booted for the capture: run.c), the first
 * run after the trace's start is on that series; elsewhere the phase is
 * not known and the first run comes 2 s after the trace's start.  The
 * work is deferrable and the guest has one CPU: a run comes late when
 * the CPU is busy, and the later ones with it (not modelled). */
/* The flusher's period in ns: FLUSH_TIME where the kernel's HZ is not
 * known. */
static simtime_t flush_period_ns(const struct engine *e)
{
	return e->p.hz ? flush_time_jiffies(e->p.hz) * (NSEC_PER_SEC / e->p.hz) : FLUSH_TIME_NS;
}

simtime_t flush_memcg_stats_first(const struct engine *e)
{
	if (!e->p.hz)
		return FLUSH_TIME_NS;
	uint64_t period = flush_period_ns(e);
	int64_t since_boot = (int64_t)e->trace_t0 - e->p.boot_offset_ns;
	if (since_boot < 0)
		return FLUSH_TIME_NS;
	return ((uint64_t)since_boot / period + 1) * period - (uint64_t)since_boot;
}

/* flush_memcg_stats_dwork: everything, then again one period later
 * (FLUSH_TIME where the kernel's HZ is not known). */
void flush_memcg_stats_dwork(struct engine *e)
{
	do_flush_stats(e, 0);
	sim_at(&e->sim, e->sim.now + flush_period_ns(e), EV_STATS_FLUSH, 0, 0);
}

/* The capture read the session cgroup's memory.stat every period
 * (memcg_stat_show flushes it): so does the replay of its session. */
void memcg_stat_read(struct engine *e)
{
	mem_cgroup_flush_stats(e, e->nr_memcgs > 1 ? 1 : 0);
	sim_at(&e->sim, e->sim.now + e->p.stat_read_ns, EV_STATS_READ, 0, 0);
}

/* The next flush the capture recorded, from KEVENTS index FROM on: at its
 * time in the replay's clock (one before the replay's start at 0). */
void stats_flush_trace_next(struct engine *e, uint64_t from)
{
	const struct vmr *v = e->v;
	/* the event's id holds 32 bits of the index (512 GiB of KEVENTS) */
	for (uint64_t i = from; i < v->nr_kev && i <= UINT32_MAX; i++) {
		if (v->kev[i].type != VMR_KEV_STATS_FLUSH)
			continue;
		simtime_t t = v->kev[i].ts_ns > e->trace_t0 ? v->kev[i].ts_ns - e->trace_t0 : 0;
		sim_at(&e->sim, t > e->sim.now ? t : e->sim.now, EV_STATS_FLUSH_TRACE, i, 0);
		return;
	}
}

/* A recorded cgroup_rstat_flush: of the hierarchy's root (the periodic
 * flusher, flush_memcg_stats_dwork) everything, which is also the flush
 * the rate-limited readers time themselves by; of the session's cgroup
 * or an ancestor between (the capture's memory.stat reads) the session's
 * subtree.  Whether it flushed was the kernel's decision: no threshold
 * here. */
void stats_flush_trace(struct engine *e, uint64_t idx)
{
	do_flush_stats(e, e->v->kev[idx].f[1] == 1 || e->nr_memcgs < 2 ? 0 : 1);
	stats_flush_trace_next(e, idx + 1);
}
