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

/* The id a classic list's folios carry in lru_link.next: unique per
 * memcg and list, never 0. */
static inline uint32_t lru_ring_id(const struct lruvec *lv, enum lru_list lru)
{
	return (uint32_t)lv->memcg * NR_LRU_LISTS + lru + 1;
}

/* lru_ring_make_room: drop the dead entries of a full ring, and grow it
 * when a quarter would not be free after (lru_ring.c).  0, or -1 when
 * out of memory. */
int lru_ring_make_room(struct engine *e, struct lruvec *lv, enum lru_list lru);
void lru_ring_free(struct lruvec *lv);

static inline void lru_ring_put(struct engine *e, struct lruvec *lv, enum lru_list lru,
				uint32_t pfn, uint32_t pos)
{
	struct lru_ring *r = &lv->list[lru];
	r->slot[pos & r->mask] = pfn;
	e->lru_link[pfn].prev = pos;
	e->lru_link[pfn].next = lru_ring_id(lv, lru);
}

static inline int lru_ring_full(const struct lru_ring *r)
{
	return !r->slot || r->head - r->tail > r->mask;
}

/* lru_ring_pop_tail: take the oldest folio of LV's list LRU off it (its
 * list_del), NIL when the list is empty.  The entries a few places ahead
 * are prefetched: whether they are alive is known only from their links,
 * and those loads, unlike a linked list's, do not depend on each other. */
#define LRU_RING_PREFETCH 16
static inline uint32_t lru_ring_pop_tail(struct engine *e, struct lruvec *lv, enum lru_list lru)
{
	struct lru_ring *r = &lv->list[lru];
	uint32_t id = lru_ring_id(lv, lru);
	while (r->tail != r->head) {
		uint32_t pos = r->tail++;
		uint32_t pfn = r->slot[pos & r->mask];
		if (r->head - pos > LRU_RING_PREFETCH) {
			uint32_t ahead = r->slot[(pos + LRU_RING_PREFETCH) & r->mask];
			__builtin_prefetch(&e->lru_link[ahead], 1);
			__builtin_prefetch(&e->folio[ahead], 1);
		}
		struct lru_link *l = &e->lru_link[pfn];
		if (l->next == id && l->prev == pos) {
			l->next = 0;
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
	if (lru_ring_full(&lv->list[lru]) && lru_ring_make_room(e, lv, lru)) {
		e->failed = 1;
		return;
	}
	f->lru = (uint8_t)lru;
	lru_ring_put(e, lv, lru, pfn, lv->list[lru].head++);
	update_lru_size(e, lv, lru, 1);
	f->flags |= PG_lru;
}

static inline void lruvec_add_folio_tail(struct engine *e, struct lruvec *lv, uint32_t pfn)
{
	if (lru_gen_add_folio(e, pfn, 1))
		return;
	struct folio *f = &e->folio[pfn];
	enum lru_list lru = folio_lru_list(f);
	if (lru_ring_full(&lv->list[lru]) && lru_ring_make_room(e, lv, lru)) {
		e->failed = 1;
		return;
	}
	f->lru = (uint8_t)lru;
	lru_ring_put(e, lv, lru, pfn, --lv->list[lru].tail);
	update_lru_size(e, lv, lru, 1);
	f->flags |= PG_lru;
}

/* lruvec_del_folio: its ring entry stays, dead. */
static inline void lruvec_del_folio(struct engine *e, struct lruvec *lv, uint32_t pfn)
{
	if (lru_gen_del_folio(e, pfn, 0))
		return;
	struct folio *f = &e->folio[pfn];
	e->lru_link[pfn].next = 0;
	update_lru_size(e, lv, f->lru, -1);
	f->flags &= ~PG_lru;
}

#endif
