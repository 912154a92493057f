/*
 * lru_ring.c — room in an LRU list's ring (struct lru_ring, mm.h; the
 * classic lists and MGLRU's generations).
 *
 * Not a kernel mechanism: the ring is how the simulator stores a list
 * (for speed; lru_ring.h), and this is its housekeeping.  The order of
 * the live entries is never changed, so the list is the kernel's.
 */
#include <stdlib.h>
#include <string.h>
#include "lru_ring.h"

/* Called when the ring is full.  The live entries close up towards the
 * tail, in order and in place (an entry is only ever written over one
 * already read; a folio's position, renumbered when its live entry
 * moves, can match none of its dead entries still to be read: they are
 * at other slots); the folios a few entries ahead are prefetched, as at
 * the tail (unless the caller knows that NR_LIVE, its live entries, are
 * all of them: UINT32_MAX when it does not).  When less than half is
 * free after, the ring grows to twice its live entries and 64 (realloc),
 * the part of the entries that wrapped around the old end moved to the
 * new end: making room again takes half the ring's size in additions,
 * so each addition pays for reading at most two entries here (with a
 * quarter free it was four, and the closing up a twentieth of a short
 * session's classic replay), and the ring stays within about twice its
 * peak length (4 bytes an entry: under 1 byte per simulated page more
 * on the Zipf bench).  lru_ring_make_room_for leaves NEED slots free at
 * least (growing to twice NEED past the live entries when twice the live
 * entries and 64 would not): a caller about to add up to NEED entries in
 * one loop (inc_min_seq) makes room once, not at every entry that fills
 * the ring; lru_ring_make_room is it with NEED 1. */
int lru_ring_make_room_for(struct engine *e, struct lru_ring *r, int memcg, unsigned lru, uint32_t nr_live,
			   uint32_t need)
{
	uint32_t live = 0;
	/* every entry alive: nothing to close up */
	if (nr_live == r->nr)
		live = r->nr;
	for (uint32_t k = live; k < r->nr; k++) {
		uint32_t pos = lru_ring_wrap(r, r->tail + k);
		uint32_t pfn = r->slot[pos];
		if (k + LRU_RING_PREFETCH < r->nr) {
			uint32_t ahead = r->slot[lru_ring_wrap(r, pos + LRU_RING_PREFETCH)];
			prefetch_folio(&e->folio[ahead]);
		}
		if (!lru_ring_alive(e, memcg, lru, pfn, pos))
			continue;
		uint32_t to = lru_ring_wrap(r, r->tail + live++);
		r->slot[to] = pfn;
		e->folio[pfn].prev = to;
	}
	r->nr = live;
	if (r->size && r->size - live >= r->size / 2 && r->size - live >= need)
		return 0;

	uint64_t size = 2 * (uint64_t)live + 64;
	if (size - live < need)
		size = live + 2 * (uint64_t)need;
	if (size > UINT32_MAX / 2)
		return -1;
	uint32_t *slot = realloc(r->slot, size * sizeof(*slot));
	if (!slot)
		return -1;
	uint32_t upper = r->tail + live > r->size ? r->size - r->tail : 0;
	if (upper) {
		uint32_t to = (uint32_t)size - upper;
		memmove(slot + to, slot + r->tail, upper * sizeof(*slot));
		for (uint32_t i = to; i < size; i++)
			e->folio[slot[i]].prev = i;
		r->tail = to;
	}
	r->slot = slot;
	r->size = (uint32_t)size;
	return 0;
}

int lru_ring_make_room(struct engine *e, struct lru_ring *r, int memcg, unsigned lru, uint32_t nr_live)
{
	return lru_ring_make_room_for(e, r, memcg, lru, nr_live, 1);
}

void lru_ring_release(struct lru_ring *r)
{
	free(r->slot);
	r->slot = NULL;
	r->size = r->tail = r->nr = 0;
}
