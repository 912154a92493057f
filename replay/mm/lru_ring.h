/*
 * lru_ring.h — an LRU list stored as a ring of page ids (struct lru_ring,
 * mm.h): the classic lists (mm_inline.h) and MGLRU's folios[gen][type]
 * (lru_gen/generations.c) both keep theirs so.  Not a kernel mechanism:
 * how the simulator stores a struct list_head list, for speed.
 *
 * A list is named by its memcg and its list number (the value folio.lru
 * has while the folio is on it: enum lru_list, or MGLRU's gen * 2 + type).
 * The oldest entry (the tail, where reclaim takes) is at slot `tail`,
 * then nr - 1 more, around the end.  A folio's place is the slot in
 * folio.prev; taking it off the list in the middle (list_del) leaves its
 * entry behind, dead: the folio is off LRU, on another list, or at
 * another slot (lru_ring_alive).  Dead entries are skipped when an end
 * reaches them and dropped when the ring is full.  So the list's ends are
 * read from consecutive memory, and the folios a few entries ahead can be
 * prefetched: with struct list_head each step was one dependent cache
 * miss, and deleting a folio wrote both its neighbours.
 */
#ifndef LRU_RING_H
#define LRU_RING_H

#include "sim/engine.h"

/* lru_ring_alive: the entry of PFN at slot POS is its place on list LRU of
 * MEMCG (not an entry it left behind): it is on LRU, on this list of
 * this memcg, at this slot. */
static inline int lru_ring_alive(const struct engine *e, int memcg, unsigned lru, uint32_t pfn,
				 uint32_t pos)
{
	const struct folio *f = &e->folio[pfn];
	return (f->flags & PG_lru) && f->lru == lru && f->memcg == memcg && f->prev == pos;
}

/* lru_ring_make_room: drop the dead entries of the full ring R (list LRU
 * of MEMCG; NR_LIVE of its entries are alive, UINT32_MAX: not known), and
 * grow it when half would not be free after (lru_ring.c).  0, or -1
 * when out of memory. */
int lru_ring_make_room(struct engine *e, struct lru_ring *r, int memcg, unsigned lru, uint32_t nr_live);
/* The same, leaving at least NEED slots free (lru_ring.c). */
int lru_ring_make_room_for(struct engine *e, struct lru_ring *r, int memcg, unsigned lru, uint32_t nr_live,
			   uint32_t need);
void lru_ring_release(struct lru_ring *r);

/* lru_ring_wrap: slot I (< 2 * size) of ring R, around the end. */
static inline uint32_t lru_ring_wrap(const struct lru_ring *r, uint32_t i)
{
	return i >= r->size ? i - r->size : i;
}

/* lru_ring_add: PFN's entry at the head of R (list_add), or at the tail
 * (list_add_tail), its slot in folio.prev; room is made first when the
 * ring is full (NR_LIVE: as for lru_ring_make_room).  The caller sets
 * folio.lru and PG_lru.  0, or -1 when out of memory. */
static inline int lru_ring_add(struct engine *e, struct lru_ring *r, int memcg, unsigned lru,
			       uint32_t pfn, int tail, uint32_t nr_live)
{
	if (r->nr == r->size && lru_ring_make_room(e, r, memcg, lru, nr_live))
		return -1;
	uint32_t pos;
	if (tail)
		pos = r->tail = r->tail ? r->tail - 1 : r->size - 1;
	else
		pos = lru_ring_wrap(r, r->tail + r->nr);
	r->slot[pos] = pfn;
	r->nr++;
	e->folio[pfn].prev = pos;
	return 0;
}

/* lru_ring_last: the folio at the tail of R (list_last_entry), the dead
 * entries before it dropped; NIL when the list is empty.  The entry
 * stays: the caller takes the folio off the list or moves it.  The folios
 * a few entries ahead are prefetched: whether they are alive is known
 * only from their folios, and those loads, unlike a linked list's, do not
 * depend on each other.  32 entries: at 16 the scan of the oldest
 * generation still waited on most of its folios (a few instructions an
 * entry ran out ahead of a miss); 64 did no better. */
#define LRU_RING_PREFETCH 32
static inline uint32_t lru_ring_last(struct engine *e, struct lru_ring *r, int memcg, unsigned lru)
{
	while (r->nr) {
		uint32_t pos = r->tail;
		uint32_t pfn = r->slot[pos];
		if (r->nr > LRU_RING_PREFETCH) {
			uint32_t ahead = r->slot[lru_ring_wrap(r, pos + LRU_RING_PREFETCH)];
			prefetch_folio(&e->folio[ahead]);
		}
		if (lru_ring_alive(e, memcg, lru, pfn, pos))
			return pfn;
		r->tail = lru_ring_wrap(r, pos + 1);
		r->nr--;
	}
	return NIL;
}

/* lru_ring_first: the folio at the head of R (list_first_entry), the
 * dead entries after it dropped; NIL when the list is empty. */
static inline uint32_t lru_ring_first(struct engine *e, struct lru_ring *r, int memcg, unsigned lru)
{
	while (r->nr) {
		uint32_t pos = lru_ring_wrap(r, r->tail + r->nr - 1);
		uint32_t pfn = r->slot[pos];
		if (lru_ring_alive(e, memcg, lru, pfn, pos))
			return pfn;
		r->nr--;
	}
	return NIL;
}

/* lru_ring_pop_tail: take the oldest folio of R off it, NIL when the list
 * is empty; the entry goes, PG_lru is cleared (list_del; the caller
 * updates the sizes). */
static inline uint32_t lru_ring_pop_tail(struct engine *e, struct lru_ring *r, int memcg, unsigned lru)
{
	uint32_t pfn = lru_ring_last(e, r, memcg, lru);
	if (pfn != NIL) {
		r->tail = lru_ring_wrap(r, r->tail + 1);
		r->nr--;
		e->folio[pfn].flags &= ~PG_lru;
	}
	return pfn;
}

#endif
