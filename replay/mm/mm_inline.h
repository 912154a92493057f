/*
 * mm_inline.h — LRU list primitives, as include/linux/mm_inline.h,
 * with MGLRU entered where the kernel enters it: lruvec_add_folio and
 * lruvec_del_folio try lru_gen_add_folio / lru_gen_del_folio first.
 *
 * A classic list is a ring of page ids (lru_ring.h); HEAD is the most
 * recently added end, reclaim takes from the TAIL (lru_ring_pop_tail).
 */
#ifndef MM_INLINE_H
#define MM_INLINE_H

#include "lru_gen/lru_gen.h"
#include "lru_ring.h"
#include "sim/engine.h"

static inline int folio_is_file_lru(const struct folio *f)
{
	return !(f->flags & PG_swapbacked);
}

static inline struct lruvec *folio_lruvec(struct engine *e, uint32_t pfn)
{
	return &e->memcgs[e->folio[pfn].memcg].lruvec;
}

static inline enum lru_list folio_lru_list(const struct folio *f)
{
	return (folio_is_file_lru(f) ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON) +
	       !!(f->flags & PG_active);
}

/* update_lru_size: a list of LV grew by NR (or shrank).  The kernel's
 * __mod_lruvec_state makes the memcg statistics hierarchical; here the
 * subtree sizes of every ancestor are kept current at the same moment
 * (what a flush of the statistics would make them), and each ancestor
 * counts the update it has pending (memcg_rstat_updated). */
static inline void update_lru_size(struct engine *e, struct lruvec *lv, enum lru_list lru, int64_t nr)
{
	lv->size[lru] += (uint64_t)nr;
	for (int m = lv->memcg; m >= 0; m = e->memcgs[m].parent) {
		e->memcgs[m].lruvec.subtree_size[lru] += (uint64_t)nr;
		e->memcgs[m].lruvec.stats_updates += (uint64_t)(nr < 0 ? -nr : nr);
	}
}

/* lruvec_free_lists: the rings of LV's classic lists. */
static inline void lruvec_free_lists(struct lruvec *lv)
{
	for (int l = 0; l < NR_LRU_LISTS; l++)
		lru_ring_release(&lv->list[l]);
}

static inline void lruvec_add_folio(struct engine *e, struct lruvec *lv, uint32_t pfn)
{
	if (lru_gen_add_folio(e, pfn, 0))
		return;
	struct folio *f = &e->folio[pfn];
	enum lru_list lru = folio_lru_list(f);
	if (lru_ring_add(e, &lv->list[lru], lv->memcg, lru, pfn, 0, UINT32_MAX)) {
		e->failed = 1;
		return;
	}
	f->lru = (uint8_t)lru;
	update_lru_size(e, lv, lru, 1);
	f->flags |= PG_lru;
}

static inline void lruvec_add_folio_tail(struct engine *e, struct lruvec *lv, uint32_t pfn)
{
	if (lru_gen_add_folio(e, pfn, 1))
		return;
	struct folio *f = &e->folio[pfn];
	enum lru_list lru = folio_lru_list(f);
	if (lru_ring_add(e, &lv->list[lru], lv->memcg, lru, pfn, 1, UINT32_MAX)) {
		e->failed = 1;
		return;
	}
	f->lru = (uint8_t)lru;
	update_lru_size(e, lv, lru, 1);
	f->flags |= PG_lru;
}

/* lruvec_del_folio: its ring entry stays, dead (PG_lru clear). */
static inline void lruvec_del_folio(struct engine *e, struct lruvec *lv, uint32_t pfn)
{
	if (lru_gen_del_folio(e, pfn, 0))
		return;
	struct folio *f = &e->folio[pfn];
	update_lru_size(e, lv, f->lru, -1);
	f->flags &= ~PG_lru;
}

#endif
