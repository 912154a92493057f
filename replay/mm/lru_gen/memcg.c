/*
 * memcg.c — MGLRU's memcg LRU and its root reclaim, after mm/vmscan.c:
 * the node's generations of memcgs in random bins (lru_gen_online_memcg,
 * lru_gen_rotate_memcg), the walk that shrinks them (shrink_many,
 * shrink_one), and the two entry points: lru_gen_shrink_node for global
 * and root-memcg reclaim, lru_gen_shrink_lruvec for cgroup reclaim.
 *
 * Left out (DEVIATIONS.md, "MGLRU"): memory.min/low, shrink_slab, memcg
 * offlining; list order is a position counter, not a hlist.
 */
#include "lru_gen.h"
#include "mm/internal.h"
#include "mm/vmscan.h"

#include <stdint.h>

static inline int fls_long(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* lru_gen_online_memcg: a new memcg joins the tail of a random bin of the
 * old generation of the node's memcg LRU. */
void lru_gen_online_memcg(struct engine *e, struct lru_gen_folio *lrugen)
{
	struct mglru *m = mglru_of(e);
	int gen = (int)(m->memcg_lru_seq % MEMCG_NR_GENS);
	lrugen->memcg_gen = gen;
	lrugen->memcg_bin = (int)engine_rand(e, MEMCG_NR_BINS);
	lrugen->memcg_seg = 0;
	lrugen->memcg_pos = ++m->memcg_lru_tail;
	m->memcg_lru_nr[gen]++;
}

/* lru_gen_rotate_memcg: HEAD/TAIL keep the generation and set the segment;
 * OLD goes to the head of a random bin of the old generation, YOUNG to the
 * tail of a random bin of the young one.  The old generation emptied:
 * the young one becomes old.  List order is a position counter: head
 * insertions count down, tail insertions up. */
void lru_gen_rotate_memcg(struct engine *e, int memcg, int op)
{
	struct mglru *m = mglru_of(e);
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int bin = (int)engine_rand(e, MEMCG_NR_BINS);
	int seg = 0, old = lrugen->memcg_gen, new = old;

	if (op == MEMCG_LRU_HEAD)
		seg = MEMCG_LRU_HEAD;
	else if (op == MEMCG_LRU_TAIL)
		seg = MEMCG_LRU_TAIL;
	else if (op == MEMCG_LRU_OLD)
		new = (int)(m->memcg_lru_seq % MEMCG_NR_GENS);
	else if (op == MEMCG_LRU_YOUNG)
		new = (int)((m->memcg_lru_seq + 1) % MEMCG_NR_GENS);
	lrugen->memcg_seg = seg;
	lrugen->memcg_gen = new;
	lrugen->memcg_bin = bin;
	lrugen->memcg_pos = (op == MEMCG_LRU_HEAD || op == MEMCG_LRU_OLD) ? --m->memcg_lru_head :
									    ++m->memcg_lru_tail;
	m->memcg_lru_nr[old]--;
	m->memcg_lru_nr[new]++;
	if (!m->memcg_lru_nr[old] && old == (int)(m->memcg_lru_seq % MEMCG_NR_GENS))
		m->memcg_lru_seq++;
}

/* lruvec_is_sizable: worth reclaiming at this priority. */
static int lruvec_is_sizable(struct engine *e, int memcg, const struct scan_control *sc)
{
	int swappiness = get_swappiness(e, memcg, sc);
	return (lruvec_evictable_size(mglru_lruvec(e, memcg), swappiness) >> sc->priority) != 0;
}

/* shrink_one: reclaim one memcg for root reclaim; the rotation to apply.
 * memory.min/low are not modelled; shrink_slab neither. */
static int shrink_one(struct engine *e, int memcg, struct scan_control *sc)
{
	int need_rotate = try_to_shrink_lruvec(e, memcg, sc);
	if (need_rotate)
		return MEMCG_LRU_YOUNG;
	if (lruvec_is_sizable(e, memcg, sc))
		return 0;
	/* one retry if too small */
	return mglru_lruvec(e, memcg)->memcg_seg != MEMCG_LRU_TAIL ? MEMCG_LRU_TAIL : MEMCG_LRU_YOUNG;
}

/* The next memcg after position POS on the list fifo[gen][bin], or -1. */
static int memcg_lru_next(struct engine *e, int gen, int bin, int64_t pos)
{
	int best = -1;
	int64_t best_pos = 0;
	for (int m = 0; m < e->nr_memcgs; m++) {
		const struct lru_gen_folio *lv = mglru_lruvec(e, m);
		if (lv->memcg_gen != gen || lv->memcg_bin != bin || lv->memcg_pos <= pos)
			continue;
		if (best < 0 || lv->memcg_pos < best_pos) {
			best = m;
			best_pos = lv->memcg_pos;
		}
	}
	return best;
}

/* shrink_many: walk the old generation of the memcg LRU from a random bin,
 * shrinking each memcg and applying its rotation once past it, until
 * should_abort_scan or back at the first bin. */
static void shrink_many(struct engine *e, struct scan_control *sc)
{
	struct mglru *m = mglru_of(e);
	int gen = (int)(m->memcg_lru_seq % MEMCG_NR_GENS);
	int first_bin = (int)engine_rand(e, MEMCG_NR_BINS), bin = first_bin;
	do {
		int op = 0, prev = -1, aborted = 0;
		int64_t pos = INT64_MIN;
		for (;;) {
			int memcg = memcg_lru_next(e, gen, bin, pos);
			if (memcg < 0)
				break;
			if (op) {
				lru_gen_rotate_memcg(e, prev, op);
				op = 0;
			}
			pos = mglru_lruvec(e, memcg)->memcg_pos;
			op = shrink_one(e, memcg, sc);
			prev = memcg;
			if (should_abort_scan(e, sc)) {
				aborted = 1;
				break;
			}
		}
		if (op)
			lru_gen_rotate_memcg(e, prev, op);
		if (aborted)
			return;
		bin = (bin + 1) % (int)MEMCG_NR_BINS;
	} while (bin != first_bin);
}

/* set_initial_priority: root reclaim with a goal of MIN_LRU_BATCH or more
 * (kswapd) starts at the priority whose share of the reclaimable pages
 * covers the goal, within [DEF_PRIORITY / 2, DEF_PRIORITY]. */
void set_initial_priority(struct engine *e, struct scan_control *sc)
{
	if (sc->priority != DEF_PRIORITY || sc->nr_to_reclaim < MIN_LRU_BATCH)
		return;
	uint64_t reclaimable = node_page_state(e, LRU_INACTIVE_FILE);
	if (can_reclaim_anon_pages(e, 0))
		reclaimable += node_page_state(e, LRU_INACTIVE_ANON);
	int priority = fls_long(reclaimable) - 1 - fls_long(sc->nr_to_reclaim - 1);
	sc->priority = priority < DEF_PRIORITY / 2 ? DEF_PRIORITY / 2 :
		       priority > DEF_PRIORITY ? DEF_PRIORITY : priority;
}

/* lru_gen_shrink_node: global and root-memcg reclaim through the memcg LRU.
 * kswapd has a walk context throughout and its goal is per call. */
void lru_gen_shrink_node(struct engine *e, struct scan_control *sc)
{
	uint64_t reclaimed = sc->nr_reclaimed;
	if (!sc->may_writepage || !sc->may_unmap)
		goto done;
	sc->sim.mm_walk = current_is_kswapd(sc);        /* set_mm_walk(pgdat, proactive) */
	set_initial_priority(e, sc);
	if (current_is_kswapd(sc))
		sc->nr_reclaimed = 0;
	shrink_many(e, sc);
	if (current_is_kswapd(sc))
		sc->nr_reclaimed += reclaimed;
	sc->sim.mm_walk = 0;                 /* clear_mm_walk */
done:
	if (sc->nr_reclaimed > reclaimed)
		e->node.kswapd_failures = 0;
}

/* lru_gen_shrink_lruvec: one memcg under cgroup reclaim; aging rotates it
 * young in the memcg LRU. */
void lru_gen_shrink_lruvec(struct engine *e, int memcg, struct scan_control *sc)
{
	sc->sim.mm_walk = 0;                 /* set_mm_walk(NULL, proactive) */
	if (try_to_shrink_lruvec(e, memcg, sc))
		lru_gen_rotate_memcg(e, memcg, MEMCG_LRU_YOUNG);
	sc->sim.mm_walk = 0;
}
