/*
 * vmscan.h — page reclaim (vmscan.c): the drivers the allocator, memcg
 * charging and kswapd call, and what every LRU shares: shrink_folio_list,
 * isolation accounting, throttling, and the LRU sizes reclaim reads.
 */
#ifndef VMSCAN_H
#define VMSCAN_H

#include "records/records.h"
#include "sim/engine.h"

/* Outcome counts of one shrink_folio_list call (struct reclaim_stat). */
struct reclaim_stat {
	uint64_t nr_dirty, nr_unqueued_dirty, nr_congested, nr_writeback, nr_immediate;
	uint64_t nr_pageout;
	uint64_t nr_activate[ANON_AND_FILE];
};

enum folio_references {
	FOLIOREF_RECLAIM,
	FOLIOREF_RECLAIM_CLEAN,
	FOLIOREF_KEEP,
	FOLIOREF_ACTIVATE,
};

/* lruvec_page_state(NR_LRU_BASE + lru): the memcg's hierarchical
 * statistic as of its last flush (memcontrol.c), as the kernel's reads it. */
static inline uint64_t lruvec_page_state(const struct engine *e, int memcg, enum lru_list lru)
{
	return e->memcgs[memcg].lruvec.stat[lru];
}
/* node_page_state(NR_LRU_BASE + lru): the node's own counter, exact. */
static inline uint64_t node_page_state(const struct engine *e, enum lru_list lru)
{
	return e->memcgs[0].lruvec.subtree_size[lru];
}
/* lruvec_lru_size: the memcg's own list (not its children's). */
static inline uint64_t lruvec_lru_size(const struct engine *e, int memcg, enum lru_list lru)
{
	return e->memcgs[memcg].lruvec.size[lru];
}
int can_reclaim_anon_pages(const struct engine *e, int memcg);
/* writeback_throttling_sane: global reclaim, or a cgroup v2 memcg's
 * (cgroup v1 has no dirty throttling of its own: reclaim waits instead). */
static inline int writeback_throttling_sane(const struct engine *e, const struct scan_control *sc)
{
	return !cgroup_reclaim(sc) || !e->p.cgroup_v1;
}
static inline int can_age_anon_pages(const struct engine *e)
{
	return e->swap_slots > 0;       /* total_swap_pages > 0 */
}

/* __mod_node_page_state(NR_ISOLATED_ANON + file): NR folios were taken
 * off (or put back on) an LRU. */
static inline void mod_node_isolated(struct engine *e, int file, int64_t nr)
{
	e->node.nr_isolated[file] += nr;
	record_isolated(e);
}

uint64_t shrink_folio_list(struct engine *e, uint32_t *list, uint32_t *nr, struct scan_control *sc,
			   struct reclaim_stat *stat);
void handle_reclaim_writeback(struct engine *e, uint64_t nr_taken, struct scan_control *sc,
			      const struct reclaim_stat *stat, int file);
void move_folios_to_lru(struct engine *e, uint32_t *list, uint32_t nr);
int too_many_isolated(struct engine *e, int file, struct scan_control *sc);
void reclaim_throttle(struct engine *e, enum vmscan_throttle_state reason);

/* The classic LRU's decisions that tests check by hand. */
/* get_scan_count: folios to scan per list (enum lru_list) at sc->priority. */
void get_scan_count(struct engine *e, int memcg, struct scan_control *sc, uint64_t *nr);
/* inactive_is_low: INACTIVE_LRU is too small next to its active list. */
int inactive_is_low(struct engine *e, int memcg, enum lru_list inactive_lru);
/* shrink_lruvec: one memcg's lists at sc->priority. */
void shrink_lruvec(struct engine *e, int memcg, struct scan_control *sc);
/* Is memcg M in the subtree of TARGET (mem_cgroup_iter's walk)? */
int memcg_is_under(const struct engine *e, int m, int target);

/* The drivers. */
uint64_t try_to_free_pages(struct engine *e, uint32_t task);
uint64_t try_to_free_mem_cgroup_pages(struct engine *e, int memcg, uint64_t nr_pages, uint32_t task);
void wakeup_kswapd(struct engine *e);
void kswapd_main(void *arg);
int pgdat_balanced(const struct engine *e);

/* What kswapd (vmscan_kswapd.c) shares with the drivers of vmscan.c. */
void init_sc(struct scan_control *sc, uint32_t task);
void shrink_node(struct engine *e, struct scan_control *sc);
void shrink_active_list(struct engine *e, uint64_t nr_to_scan, int memcg,
			struct scan_control *sc, enum lru_list lru);
void snapshot_refaults(struct engine *e, int target_memcg);
int allow_direct_reclaim(struct engine *e);

#endif
