/*
 * generations.c — MGLRU's generations, after the lru_gen parts of
 * include/linux/mm_inline.h and mm/vmscan.c: the per-lruvec state, the
 * lists folios[gen][type], their sizes (and the active/inactive sizes the
 * rest of mm/ reads), the generation a folio joins, and how accesses
 * move it (lru_gen_inc_refs, folio_update_gen, folio_inc_gen).
 *
 * Left out (DEVIATIONS.md, "MGLRU"): zones (one list per gen and type),
 * large folios, the unevictable list.
 */
#include "lru_gen.h"
#include "mm/internal.h"

#include <stdlib.h>
#include <string.h>

/* lru_gen_init_lruvec */
static void lru_gen_init_lruvec(struct lru_gen_folio *lrugen, int memcg, simtime_t now)
{
	memset(lrugen, 0, sizeof(*lrugen));
	lrugen->memcg = memcg;
	lrugen->max_seq = MIN_NR_GENS + 1;
	for (unsigned gen = 0; gen < MAX_NR_GENS; gen++)
		lrugen->timestamps[gen] = now;
	lrugen->mm_state_seq = MIN_NR_GENS;
}

/* The lruvec of MEMCG (one node).  Memcgs the engine creates later get
 * theirs on first use; the structs never move, so pointers stay valid
 * across sleeps. */
struct lru_gen_folio *mglru_lruvec_slow(struct engine *e, int memcg)
{
	struct mglru *m = mglru_of(e);
	if (memcg < m->nr_lrugen)
		return m->lrugen[memcg];
	struct lru_gen_folio **n = realloc(m->lrugen, (size_t)(memcg + 1) * sizeof(*n));
	if (!n) {
		e->failed = 1;
		return m->lrugen[0];
	}
	m->lrugen = n;
	while (m->nr_lrugen <= memcg) {
		struct lru_gen_folio *lv = malloc(sizeof(*lv));
		if (!lv) {
			e->failed = 1;
			return m->lrugen[0];
		}
		lru_gen_init_lruvec(lv, m->nr_lrugen, e->sim.now);
		m->lrugen[m->nr_lrugen++] = lv;
		lru_gen_online_memcg(e, lv);
	}
	return m->lrugen[memcg];
}

/* list_add / list_add_tail to folios[gen][type].  A list no folio is on
 * holds only dead entries: they are dropped first. */
void gen_list_add(struct engine *e, struct lru_gen_folio *lrugen, uint32_t pfn, int gen, int type,
		  int tail)
{
	struct lru_ring *r = &lrugen->folios[gen][type];
	unsigned lru = (unsigned)(gen * 2 + type);
	if (!lrugen->nr_listed[gen][type])
		r->nr = 0;
	if (lru_ring_add(e, r, lrugen->memcg, lru, pfn, tail, lrugen->nr_listed[gen][type])) {
		e->failed = 1;
		return;
	}
	e->folio[pfn].lru = (uint8_t)lru;
	lrugen->nr_listed[gen][type]++;
}

/* list_del: the folio's entry stays in the ring, dead (no slot matches
 * folio.prev until it is added again). */
void gen_list_del(struct engine *e, struct lru_gen_folio *lrugen, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	lrugen->nr_listed[f->lru >> 1][f->lru & 1]--;
	f->prev = NIL;
}

/* list_move / list_move_tail to folios[gen][type]. */
void gen_list_move(struct engine *e, struct lru_gen_folio *lrugen, uint32_t pfn, int gen,
			  int type, int tail)
{
	gen_list_del(e, lrugen, pfn);
	gen_list_add(e, lrugen, pfn, gen, type, tail);
}

/* lru_gen_update_size: nr_pages per generation, and the active/inactive
 * LRU sizes the rest of mm/ reads (the two youngest generations count as
 * active), so lruvec_page_state works for shared code. */
void lru_gen_update_size(struct engine *e, int memcg, struct lru_gen_folio *lrugen,
				const struct folio *f, int old_gen, int new_gen)
{
	int type = folio_is_file_lru(f);
	struct lruvec *lv = &e->memcgs[memcg].lruvec;
	int lru = type * LRU_INACTIVE_FILE;

	if (old_gen >= 0)
		lrugen->nr_pages[old_gen][type]--;
	if (new_gen >= 0)
		lrugen->nr_pages[new_gen][type]++;
	/* addition */
	if (old_gen < 0) {
		update_lru_size(e, lv, lru + lru_gen_is_active(lrugen, new_gen), 1);
		return;
	}
	/* deletion */
	if (new_gen < 0) {
		update_lru_size(e, lv, lru + lru_gen_is_active(lrugen, old_gen), -1);
		return;
	}
	/* promotion; demotion requires isolation */
	if (!lru_gen_is_active(lrugen, old_gen) && lru_gen_is_active(lrugen, new_gen)) {
		update_lru_size(e, lv, lru, -1);
		update_lru_size(e, lv, lru + 1, 1);
	}
}

/* lru_gen_folio_seq: the generation a folio joins.
 *   PG_active (set while isolated, or by a fault)   max_seq - 1 (+1 with workingset)
 *   reclaiming (tail re-add at writeback end)       the oldest
 *   anon not in the swap cache, or PG_reclaim with
 *     dirty/writeback                                max_seq - 1
 *   otherwise                                        max_seq - 3 (+1 with workingset)
 * never below min_seq[type]. */
uint64_t lru_gen_folio_seq(const struct lru_gen_folio *lrugen, const struct folio *f, int reclaiming)
{
	int type = folio_is_file_lru(f);
	int ws = !!(f->flags & PG_workingset);
	uint64_t gen;

	if (f->flags & PG_active)
		gen = MIN_NR_GENS - ws;
	else if (reclaiming)
		gen = MAX_NR_GENS;
	else if ((!type && !(f->flags & PG_swapcache)) ||
		 ((f->flags & PG_reclaim) && (f->flags & (PG_dirty | PG_writeback))))
		gen = MIN_NR_GENS;
	else
		gen = MAX_NR_GENS - ws;

	uint64_t seq = lrugen->max_seq - gen + 1;
	return seq > lrugen->min_seq[type] ? seq : lrugen->min_seq[type];
}

/* lru_gen_add_folio's placement in Linux 6.12 (mglru+k6.12-gens; the
 * Dec 2024 rework replaced it with lru_gen_folio_seq): "four common
 * cases" — hot (active: freshly faulted in) in the youngest generation;
 * anon outside the swap cache, or dirty/writeback under reclaim, in the
 * second youngest; under reclaim, or with only MIN_NR_GENS + 1
 * generations, in the oldest; everything else, e.g. new page cache, in
 * the second oldest. */
uint64_t lru_gen_folio_seq_612(const struct lru_gen_folio *lrugen, const struct folio *f,
			       int reclaiming)
{
	int type = folio_is_file_lru(f);
	uint64_t min_seq = lrugen->min_seq[type];

	if (f->flags & PG_active)
		return lrugen->max_seq;
	if ((!type && !(f->flags & PG_swapcache)) ||
	    ((f->flags & PG_reclaim) && (f->flags & (PG_dirty | PG_writeback))))
		return lrugen->max_seq - 1;
	if (reclaiming || min_seq + MIN_NR_GENS >= lrugen->max_seq)
		return min_seq;
	return min_seq + 1;
}

/* lru_gen_add_folio: at the head of its generation (at the tail when
 * reclaiming: next in line); PG_active is consumed.  This and
 * lru_gen_del_folio are flattened (lru_gen_update_size, update_lru_size
 * and the list ops inlined): every LRU insertion and removal goes
 * through them. */
__attribute__((flatten)) void __lru_gen_add_folio(struct engine *e, uint32_t pfn, int reclaiming)
{
	struct folio *f = &e->folio[pfn];
	int memcg = f->memcg;
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int type = folio_is_file_lru(f);
	uint64_t seq = patch_k612_gens(e) ? lru_gen_folio_seq_612(lrugen, f, reclaiming) :
					    lru_gen_folio_seq(lrugen, f, reclaiming);
	int gen = lru_gen_from_seq(seq);

	/* 6.12 (mglru+k6.12-tiers): an active folio loses its refs and
	 * PG_referenced, not PG_workingset (PSI) */
	if (patch_k612_tiers(e) && (f->flags & PG_active))
		folio_clear_refs_flags(f);
	folio_set_gen(f, gen);
	f->flags &= ~PG_active;
	lru_gen_update_size(e, memcg, lrugen, f, -1, gen);
	gen_list_add(e, lrugen, pfn, gen, type, reclaiming);
	f->flags |= PG_lru;
}

/* lru_gen_del_folio: off its list; outside reclaim, a folio of an active
 * generation keeps that as PG_active (for folio_migrate_flags). */
__attribute__((flatten)) int __lru_gen_del_folio(struct engine *e, uint32_t pfn, int reclaiming)
{
	struct folio *f = &e->folio[pfn];
	int gen = folio_lru_gen(f);
	if (gen < 0)
		return 0;
	int memcg = f->memcg;
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	if (!reclaiming && lru_gen_is_active(lrugen, gen))
		f->flags |= PG_active;
	f->gen_refs &= 0x0f;
	lru_gen_update_size(e, memcg, lrugen, f, gen, -1);
	gen_list_del(e, lrugen, pfn);
	f->flags &= ~PG_lru;
	return 1;
}

/* lru_gen_inc_refs (folio_mark_accessed with MGLRU): accesses through file
 * descriptors count up in PG_referenced + the refs bits; the fifth sets
 * PG_workingset.  Nothing moves; no PGACTIVATE.  As in kernels after 6.17
 * the folio need not be on the LRU. */
void lru_gen_inc_refs(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (patch_k612_tiers(e)) {
		/* 6.12's folio_inc_refs: PG_referenced, then PG_workingset,
		 * then the refs bits up to their maximum */
		if (!(f->flags & PG_referenced))
			f->flags |= PG_referenced;
		else if (!(f->flags & PG_workingset))
			f->flags |= PG_workingset;
		else if (folio_refs_bits(f) < 3)
			f->gen_refs++;
		return;
	}
	if (!(f->flags & PG_referenced)) {
		f->gen_refs &= 0xf0;
		f->flags |= PG_referenced;
		return;
	}
	if (folio_refs_bits(f) == 3) {
		f->flags |= PG_workingset;
		return;
	}
	f->gen_refs++;
}

/* folio_update_gen: an accessed bit found by the aging walk (or by
 * look-around with a walk context).  First sighting marks PG_referenced;
 * the next promotes to GEN in place (lazily: the folio stays on its list
 * until sort_folio) with PG_workingset.  Returns the old gen, or -1. */
int folio_update_gen(struct folio *f, int gen)
{
	if (!(f->flags & (PG_referenced | PG_workingset))) {
		f->gen_refs &= 0xf0;
		f->flags |= PG_referenced;
		return -1;
	}
	int old_gen = folio_lru_gen(f);
	if (old_gen < 0)
		return -1;          /* lru_gen_del_folio() has isolated it */
	folio_clear_refs_flags(f);
	folio_set_gen(f, gen);
	f->flags |= PG_workingset;
	return old_gen;
}

/* folio_update_gen (6.12, mglru+k6.12-refs): promotes to GEN at the first
 * sighting, refs and PG_referenced/PG_workingset cleared; an isolated
 * folio gets PG_referenced for shrink_folio_list.  Returns the old gen,
 * or -1. */
int folio_update_gen_612(struct folio *f, int gen)
{
	int old_gen = folio_lru_gen(f);
	if (old_gen < 0) {
		f->flags |= PG_referenced;
		return -1;
	}
	folio_clear_refs_flags(f);
	f->flags &= ~PG_workingset;
	folio_set_gen(f, gen);
	return old_gen;
}

/* folio_inc_gen: protect a folio of the oldest generation into the next
 * (unless aging already promoted it); clears LRU_REFS_FLAGS. */
int folio_inc_gen(struct engine *e, int memcg, struct lru_gen_folio *lrugen, uint32_t pfn,
			 int reclaiming)
{
	struct folio *f = &e->folio[pfn];
	int type = folio_is_file_lru(f);
	int old_gen = lru_gen_from_seq(lrugen->min_seq[type]);
	int new_gen = folio_lru_gen(f);

	if (new_gen >= 0 && new_gen != old_gen)
		return new_gen;     /* folio_update_gen() has promoted it */
	new_gen = (old_gen + 1) % (int)MAX_NR_GENS;
	folio_clear_lru_refs(e, f);
	folio_set_gen(f, new_gen);
	if (reclaiming)
		f->flags |= PG_reclaim;
	lru_gen_update_size(e, memcg, lrugen, f, old_gen, new_gen);
	return new_gen;
}

uint64_t lruvec_type_evictable_size(const struct lru_gen_folio *lrugen, int type)
{
	uint64_t total = 0;
	for (uint64_t seq = lrugen->min_seq[type]; seq <= lrugen->max_seq; seq++) {
		int64_t n = lrugen->nr_pages[lru_gen_from_seq(seq)][type];
		total += n > 0 ? (uint64_t)n : 0;
	}
	return total;
}

/* lruvec_evictable_size: the pages of the evictable types, every live gen. */
uint64_t lruvec_evictable_size(const struct lru_gen_folio *lrugen, int swappiness)
{
	uint64_t total = 0;
	int type;
	for_each_evictable_type(type, swappiness)
		total += lruvec_type_evictable_size(lrugen, type);
	return total;
}

void lru_gen_exit(struct engine *e)
{
	struct mglru *m = mglru_of(e);
	if (!m)
		return;
	for (int i = 0; i < m->nr_lrugen; i++) {
		for (unsigned gen = 0; gen < MAX_NR_GENS; gen++)
			for (int type = 0; type < ANON_AND_FILE; type++)
				lru_ring_release(&m->lrugen[i]->folios[gen][type]);
		free(m->lrugen[i]);
	}
	free(m->lrugen);
	free(m);
	e->lru_gen = NULL;
}

int lru_gen_init(struct engine *e)
{
	struct mglru *m = calloc(1, sizeof(*m));
	if (!m)
		return -1;
	e->lru_gen = m;
	if (mglru_build_addr_order(e, m) != 0)
		goto fail;
	/* every memcg is onlined in index order */
	mglru_lruvec(e, e->nr_memcgs - 1);
	if (e->failed)
		goto fail;
	return 0;
fail:
	lru_gen_exit(e);
	return -1;
}
