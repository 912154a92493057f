/*
 * oom_kill.c — the OOM killer, after mm/oom_kill.c: the victim is the
 * process with the largest oom_badness (resident plus swapped pages)
 * among those the out-of-memory scope covers; its anonymous memory is
 * freed at once, as the OOM reaper does.
 *
 * Left out (DEVIATIONS.md): oom_score_adj, the reaper's delay, page
 * tables in the badness.
 */
#include "internal.h"

static void oom_reap_one(struct engine *e, uint32_t victim, uint32_t pfn)
{
	if (e->folio[pfn].owner == victim && (e->folio[pfn].flags & PG_swapbacked))
		release_page(e, pfn);
}

int out_of_memory(struct engine *e, int scope)
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
	/* The reaper frees its anonymous memory (its own pages, as
	 * __oom_reap_task_mm walks its VMAs); page cache stays. */
	mm_walk(e, victim, oom_reap_one);
	for (uint32_t t = 0; t < e->nr_tasks; t++)
		if (e->tasks[t].proc == victim)
			e->tasks[t].killed = 1;
	/* SIGKILL ends the victim's killable waits (throttle_direct_reclaim). */
	sim_wake_all(&e->sim, &e->pfmemalloc_wait);
	return 1;
}
