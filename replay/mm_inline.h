/*
 * mm_inline.h — LRU list primitives, as include/linux/mm_inline.h.
 *
 * Lists are threaded through folio.prev/next (page ids); HEAD is the
 * most recently added end, reclaim takes from the TAIL.
 */
#ifndef MM_INLINE_H
#define MM_INLINE_H

#include "engine.h"

static inline enum lru_list folio_lru_list(const struct folio *f)
{
	return (folio_is_file_lru(f) ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON) +
	       !!(f->flags & PG_active);
}

static inline void lruvec_add_folio(struct engine *e, struct lruvec *lv, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	enum lru_list lru = folio_lru_list(f);
	f->lru = (uint8_t)lru;
	f->prev = NIL;
	f->next = lv->head[lru];
	if (lv->head[lru] != NIL)
		e->folio[lv->head[lru]].prev = pfn;
	else
		lv->tail[lru] = pfn;
	lv->head[lru] = pfn;
	lv->size[lru]++;
	f->flags |= PG_lru;
}

static inline void lruvec_add_folio_tail(struct engine *e, struct lruvec *lv, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	enum lru_list lru = folio_lru_list(f);
	f->lru = (uint8_t)lru;
	f->next = NIL;
	f->prev = lv->tail[lru];
	if (lv->tail[lru] != NIL)
		e->folio[lv->tail[lru]].next = pfn;
	else
		lv->head[lru] = pfn;
	lv->tail[lru] = pfn;
	lv->size[lru]++;
	f->flags |= PG_lru;
}

static inline void lruvec_del_folio(struct engine *e, struct lruvec *lv, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	enum lru_list lru = f->lru;
	if (f->prev != NIL)
		e->folio[f->prev].next = f->next;
	else
		lv->head[lru] = f->next;
	if (f->next != NIL)
		e->folio[f->next].prev = f->prev;
	else
		lv->tail[lru] = f->prev;
	lv->size[lru]--;
	f->flags &= ~PG_lru;
}

#endif
