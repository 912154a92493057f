/*
 * mm_inline.h — LRU list primitives, as include/linux/mm_inline.h,
 * with MGLRU entered where the kernel enters it: lruvec_add_folio and
 * lruvec_del_folio try lru_gen_add_folio / lru_gen_del_folio first.
 *
 * A classic list is a ring of page ids (struct lru_ring, mm.h); HEAD is
 * the most recently added end, reclaim takes from the TAIL.
 */
#ifndef MM_INLINE_H
#define MM_INLINE_H

#include "lru_gen/lru_gen.h"
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

/* lru_ring_alive: the entry of PFN at slot POS of LV's ring LRU is its
 * place on the list (not an entry it left behind): it is on LRU, on
 * this list of this memcg, at this slot. */
static inline int lru_ring_alive(const struct engine *e, const struct lruvec *lv,
				 enum lru_list lru, uint32_t pfn, uint32_t pos)
{
	const struct folio *f = &e->folio[pfn];
	return (f->flags & PG_lru) && f->lru == lru && f->memcg == lv->memcg &&
	       f->prev == pos;
}

/* lru_ring_make_room: drop the dead entries of a full ring, and grow it
 * when a quarter would not be free after (lru_ring.c).  0, or -1 when
 * out of memory. */
int lru_ring_make_room(struct engine *e, struct lruvec *lv, enum lru_list lru);
void lru_ring_free(struct lruvec *lv);

/* lru_ring_wrap: slot I (< 2 * size) of ring R, around the end. */
static inline uint32_t lru_ring_wrap(const struct lru_ring *r, uint32_t i)
{
	return i >= r->size ? i - r->size : i;
}

static inline void lru_ring_put(struct engine *e, struct lruvec *lv, enum lru_list lru,
				uint32_t pfn, uint32_t pos)
{
	lv->list[lru].slot[pos] = pfn;
	lv->list[lru].nr++;
	e->folio[pfn].prev = pos;
}

/* lru_ring_pop_tail: take the oldest folio of LV's list LRU off it (its
 * list_del: PG_lru cleared), NIL when the list is empty.  The entries a
 * few places ahead are prefetched: whether they are alive is known only
 * from their folios, and those loads, unlike a linked list's, do not
 * depend on each other. */
#define LRU_RING_PREFETCH 16
static inline uint32_t lru_ring_pop_tail(struct engine *e, struct lruvec *lv, enum lru_list lru)
{
	struct lru_ring *r = &lv->list[lru];
	while (r->nr) {
		uint32_t pos = r->tail;
		uint32_t pfn = r->slot[pos];
		r->tail = lru_ring_wrap(r, pos + 1);
		r->nr--;
		if (r->nr > LRU_RING_PREFETCH) {
			uint32_t ahead = r->slot[lru_ring_wrap(r, pos + LRU_RING_PREFETCH)];
			__builtin_prefetch(&e->folio[ahead], 1);
		}
		if (lru_ring_alive(e, lv, lru, pfn, pos)) {
			e->folio[pfn].flags &= ~PG_lru;
			return pfn;
		}
	}
	return NIL;
}

static inline void lruvec_add_folio(struct engine *e, struct lruvec *lv, uint32_t pfn)
{
	if (lru_gen_add_folio(e, pfn, 0))
		return;
	struct folio *f = &e->folio[pfn];
	enum lru_list lru = folio_lru_list(f);
	struct lru_ring *r = &lv->list[lru];
	if (r->nr == r->size && lru_ring_make_room(e, lv, lru)) {
		e->failed = 1;
		return;
	}
	f->lru = (uint8_t)lru;
	lru_ring_put(e, lv, lru, pfn, lru_ring_wrap(r, r->tail + r->nr));
	update_lru_size(e, lv, lru, 1);
	f->flags |= PG_lru;
}

static inline void lruvec_add_folio_tail(struct engine *e, struct lruvec *lv, uint32_t pfn)
{
	if (lru_gen_add_folio(e, pfn, 1))
		return;
	struct folio *f = &e->folio[pfn];
	enum lru_list lru = folio_lru_list(f);
	struct lru_ring *r = &lv->list[lru];
	if (r->nr == r->size && lru_ring_make_room(e, lv, lru)) {
		e->failed = 1;
		return;
	}
	f->lru = (uint8_t)lru;
	r->tail = r->tail ? r->tail - 1 : r->size - 1;
	lru_ring_put(e, lv, lru, pfn, r->tail);
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
