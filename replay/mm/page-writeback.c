/*
 * page-writeback.c — dirty folios and their writeback, after
 * mm/page-writeback.c (folio_mark_dirty, folio_start_writeback, the
 * background threshold of balance_dirty_pages) and the flusher of
 * fs/fs-writeback.c (wb_workfn, wakeup_flusher_threads).
 *
 * Left out (DEVIATIONS.md): dirty_expire_interval (the flusher writes
 * every dirty page it finds), per-bdi and per-memcg dirty limits, the
 * writer's own throttling in balance_dirty_pages.
 */
#include "internal.h"
#include "vmscan.h"

#include <stdlib.h>

/* dirty_writeback_interval (5 s). */
#define DIRTY_WRITEBACK_NS (5 * NSEC_PER_SEC)

void folio_start_writeback(struct engine *e, uint32_t pfn, struct blk_plug *plug)
{
	e->folio[pfn].flags |= PG_writeback;
	e->node.nr_writeback++;
	submit_write(e, pfn, plug);
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
		folio_start_writeback(e, pfn, NULL);
	}
	e->nr_dirty_list = 0;
}

/* wb_wakeup_delayed: the next periodic run. */
void wb_wakeup_delayed(struct engine *e)
{
	sim_at(&e->sim, e->sim.now + DIRTY_WRITEBACK_NS, EV_FLUSH, 0, 0);
}

void wb_workfn(struct engine *e, int kicked)
{
	if (kicked)
		e->flusher_kicked = 0;
	else
		wb_wakeup_delayed(e);
	flusher_run(e);
}

void wakeup_flusher_threads(struct engine *e)
{
	if (!e->flusher_kicked) {
		e->flusher_kicked = 1;
		sim_at(&e->sim, e->sim.now, EV_FLUSH, 1, 0);
	}
}

void folio_mark_dirty(struct engine *e, uint32_t pfn)
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
	if (e->node.nr_dirty * 10 > e->node.nr_free + node_page_state(e, LRU_INACTIVE_FILE) +
				    node_page_state(e, LRU_ACTIVE_FILE))
		wakeup_flusher_threads(e);
}
