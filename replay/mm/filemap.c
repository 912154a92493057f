/*
 * filemap.c — the folio lock's wait queues and the end of writeback,
 * after mm/filemap.c (folio_waitqueue, folio_end_writeback).
 */
#include "internal.h"

/* folio_waitqueue: hash_ptr of the folio in the kernel; a multiplicative
 * hash of the page id here (FOLIO_WAIT_TABLE_SIZE = 2^10 queues). */
struct sim_waitq *folio_waitqueue(struct engine *e, uint32_t pfn)
{
	return &e->folio_wait_table[(pfn * 2654435761u) >> 22];
}

/* folio_end_writeback: a folio reclaim marked goes to the tail, and
 * reclaimers throttled on writeback are credited. */
void folio_end_writeback(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (!(f->flags & PG_writeback))
		return;                 /* released meanwhile */
	f->flags &= ~PG_writeback;
	e->node.nr_writeback--;
	struct pglist_data *pgdat = &e->node;
	pgdat->nr_throttled_written++;
	struct sim_waitq *wq = &pgdat->reclaim_wait[VMSCAN_THROTTLE_WRITEBACK];
	if (sim_waitq_active(wq) &&
	    pgdat->nr_throttled_written - pgdat->nr_reclaim_start > SWAP_CLUSTER_MAX * wq->nr)
		sim_wake_all(&e->sim, wq);
	if (f->flags & PG_reclaim) {
		f->flags &= ~PG_reclaim;
		folio_rotate_reclaimable(e, pfn);
	}
	/* folio_wake_bit(PG_writeback): whoever waits for this write. */
	sim_wake_all(&e->sim, folio_waitqueue(e, pfn));
}
