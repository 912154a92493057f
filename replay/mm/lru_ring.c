/*
 * lru_ring.c — room in a classic LRU list's ring (struct lru_ring, mm.h).
 *
 * Not a kernel mechanism: the ring is how the simulator stores a list
 * (for speed; mm_inline.h), and this is its housekeeping.  The order of
 * the live entries is never changed, so the list is the kernel's.
 */
#include <stdlib.h>
#include "mm_inline.h"

static int lru_ring_alive(const struct engine *e, const struct lru_ring *r, uint32_t id,
			  uint32_t pos)
{
	const struct lru_link *l = &e->lru_link[r->slot[pos & r->mask]];
	return l->next == id && l->prev == pos;
}

/* Called when the ring is full: the live entries are copied, in order, to
 * positions 0.. of a ring with at least a quarter free, so that making
 * room again takes at least a quarter of the ring's size in additions
 * (amortised O(1) each).  Positions are renumbered only after the copy:
 * a dead entry of a folio must not match the folio's new position. */
int lru_ring_make_room(struct engine *e, struct lruvec *lv, enum lru_list lru)
{
	struct lru_ring *r = &lv->list[lru];
	uint32_t id = lru_ring_id(lv, lru);
	uint32_t live = 0;
	for (uint32_t pos = r->tail; r->slot && pos != r->head; pos++)
		live += (uint32_t)lru_ring_alive(e, r, id, pos);
	uint64_t cap = r->slot ? (uint64_t)r->mask + 1 : 64;
	while (cap - live < cap / 4)
		cap *= 2;
	if (cap > (uint64_t)1 << 31)
		return -1;
	uint32_t *slot = malloc(cap * sizeof(*slot));
	if (!slot)
		return -1;
	uint32_t n = 0;
	for (uint32_t pos = r->tail; r->slot && pos != r->head; pos++)
		if (lru_ring_alive(e, r, id, pos))
			slot[n++] = r->slot[pos & r->mask];
	for (uint32_t i = 0; i < n; i++)
		e->lru_link[slot[i]].prev = i;
	free(r->slot);
	r->slot = slot;
	r->mask = (uint32_t)(cap - 1);
	r->tail = 0;
	r->head = n;
	return 0;
}

void lru_ring_free(struct lruvec *lv)
{
	for (int l = 0; l < NR_LRU_LISTS; l++) {
		free(lv->list[l].slot);
		lv->list[l].slot = NULL;
	}
}
