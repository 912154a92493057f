/*
 * vmscan.h — reclaim code shared by every policy (mm/vmscan.c): the
 * drivers (do_try_to_free_pages, try_to_free_pages,
 * try_to_free_mem_cgroup_pages, balance_pgdat / kswapd), shrink_folio_list
 * and its helpers, isolation accounting and throttling.
 */
#ifndef VMSCAN_H
#define VMSCAN_H

#include "sim/engine.h"

/* Outcome counts of one shrink_folio_list call (struct reclaim_stat). */
struct reclaim_stat {
	uint64_t nr_dirty, nr_unqueued_dirty, nr_congested, nr_writeback, nr_immediate;
	uint64_t nr_pageout;
	uint64_t nr_activate[ANON_AND_FILE];
	uint64_t nr_ref_keep, nr_unmap_fail;
};

enum folio_references {
	FOLIOREF_RECLAIM,
	FOLIOREF_RECLAIM_CLEAN,
	FOLIOREF_KEEP,
	FOLIOREF_ACTIVATE,
};

/* lruvec_page_state(NR_LRU_BASE + lru): hierarchical, like memcg stats. */
static inline uint64_t lruvec_page_state(const struct engine *e, int memcg, enum lru_list lru)
{
	return e->memcgs[memcg].lruvec.subtree_size[lru];
}
/* lruvec_lru_size: the memcg's own list (not its children's). */
static inline uint64_t lruvec_lru_size(const struct engine *e, int memcg, enum lru_list lru)
{
	return e->memcgs[memcg].lruvec.size[lru];
}
void lru_note_cost(struct engine *e, int memcg, int file, uint64_t nr_io, uint64_t nr_rotated);
int can_reclaim_anon_pages(const struct engine *e, int memcg);
static inline int can_age_anon_pages(const struct engine *e)
{
	return e->swap_slots > 0;       /* total_swap_pages > 0 */
}

int folio_referenced(struct engine *e, uint32_t pfn, uint32_t *vm_exec);
enum folio_references folio_check_references(struct engine *e, uint32_t pfn,
					     struct scan_control *sc);
uint64_t shrink_folio_list(struct engine *e, uint32_t *list, uint32_t nr, struct scan_control *sc,
			   struct reclaim_stat *stat);
void move_folios_to_lru(struct engine *e, uint32_t *list, uint32_t nr);
int too_many_isolated(struct engine *e, int file, struct scan_control *sc);
void reclaim_throttle(struct engine *e, enum vmscan_throttle_state reason);
/* The simulated CPU time of reclaim work: the reclaimer sleeps. */
void reclaim_spend(struct engine *e, simtime_t ns);

uint64_t try_to_free_pages(struct engine *e, uint32_t task);
uint64_t try_to_free_mem_cgroup_pages(struct engine *e, int memcg, uint64_t nr_pages, uint32_t task);
void wakeup_kswapd(struct engine *e);
void kswapd_main(void *arg);
int pgdat_balanced(const struct engine *e);

#endif
