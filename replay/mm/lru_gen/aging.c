/*
 * aging.c — MGLRU's aging, after mm/vmscan.c: retiring the oldest
 * generation (inc_min_seq, try_to_inc_min_seq), making a new youngest one
 * (inc_max_seq) after the page-table walk has harvested accessed bits
 * (walk_mm, try_to_inc_max_seq), and when to age (should_run_aging, and
 * the swappiness series' lru_gen_imbalanced).
 *
 * Left out (DEVIATIONS.md, "MGLRU"): page tables (every mapped folio of
 * the memcg is a PTE the walk visits), the mm_struct list and its Bloom
 * filters, min_ttl_ms.
 */
#include "lru_gen.h"
#include "mm/internal.h"
#include "records/cost.h"

/* inc_min_seq's protected tier of a folio, by its LRU_REFS_FLAGS and refs
 * bits: PG_referenced (bit 0 of the key), PG_workingset (bit 1), the refs
 * bits (bits 2-3); lru_tier_from_refs(folio_lru_refs, workingset), or
 * MAX_NR_TIERS for the workingset being lazily promoted (refs 4 with
 * PG_workingset: not counted).  A table, so that the loop below counts a
 * folio with one load and no branch (test_mglru checks it against
 * lru_tier_from_refs). */
const uint8_t inc_min_seq_tier[16] = {
	/* refs bits 0: refs 0 (no PG_referenced) or 1 */
	0, 0, 3, 3,
	/* refs bits 1: refs 0 or 2 */
	0, 1, 3, 3,
	/* refs bits 2: refs 0 or 3 */
	0, 2, 3, 3,
	/* refs bits 3: refs 0 or 4; 4 with PG_workingset is not counted */
	0, 2, 3, MAX_NR_TIERS,
};

/* A folio aging promoted to a generation other than the next: list_move_tail
 * to its own (rare: out of line, so that the loop's state stays in
 * registers). */
static __attribute__((noinline, cold)) void inc_min_seq_promoted(struct engine *e, struct lru_gen_folio *lrugen,
								  uint32_t pfn, int gen, int type)
{
	gen_list_add(e, lrugen, pfn, gen, type, 1);
}

/* inc_min_seq: retire the oldest generation of TYPE into the next one,
 * at most a batch of folios per call (returns 0 when the batch ran out:
 * the caller drops the lock and calls again).
 *
 * Baseline: the folios go tail first to the TAIL of the next generation
 * (which reverses their order), each counted as protected unless it is
 * the lazily promoted workingset; a type swappiness makes unevictable is
 * not moved at all — its folios join the new youngest generation (the
 * known cold/hot inversion).
 * mglru+swappiness sw-no-inversion (inferred): always move, head first so
 * the coldest stays nearest eviction, and do not count folios aging
 * already promoted as protected.  sw-batched: MIN_LRU_BATCH per call.
 *
 * The loop moves every folio of a full generation (much of a small memcg
 * at each aging step: 28 k moves, 2.1 M of the 12.4 M instructions of a
 * replay of reader-sw100 under mglru+swappiness), so it is written for
 * that: it takes the entries off the old list's ring itself
 * (list_move_tail's list_del: each entry read once, the dead ones dropped
 * as it goes, and it stops when no folio is left on the list: the rest
 * are dead, and the ring is emptied when the generation is next added
 * to); the two rings most moves read and write, the old generation's and
 * the next one's, are held in locals (written back before anything else
 * can read them: the folios' stores would otherwise make the compiler
 * reload them at every move); and folio_inc_gen's size update is summed
 * (the caller runs only with MAX_NR_GENS generations, so the next
 * generation, max_seq - 2, is inactive: nr_pages alone changes, and
 * nothing reads it before the loop ends).  A folio on folios[gen][type]
 * is of TYPE (PG_swapbacked is set before a folio is first added), so
 * min_seq[TYPE] is the oldest generation folio_inc_gen reads.  Each
 * folio is still visited, as the kernel's loop visits it: its generation
 * and refs are in its own fields, as in the kernel's folio flags. */

/* inc_min_seq's loop, for each setting of the two variants it tests per
 * folio (NO_INVERSION, K612_TIERS: constants in each of inc_min_seq's
 * four calls, so that each loop has only its own tests); the protected
 * counts are summed in locals, as nr_pages is.  The next generation's
 * ring is given room for the whole batch before the loop (a batch moves
 * at most MIN(listed, remaining) folios there), so that no entry it adds
 * needs the full-ring test; the old ring's slot and the next ring's tail
 * step by one each (no modulo), and a folio's liveness and protected
 * tier are read without branches (the list order, the counts and every
 * folio's fields are those of the folio-at-a-time loop). */
static inline __attribute__((always_inline)) int inc_min_seq_list(struct engine *e, int memcg,
								  struct lru_gen_folio *lrugen, int type,
								  int swappiness, uint64_t *moved,
								  const int no_inversion, const int k612_tiers)
{
	struct folio *folios = e->folio;
	unsigned remaining = patch_sw_batched(e) ? MIN_LRU_BATCH : MAX_LRU_BATCH;
	int hist = lru_hist_from_seq(lrugen->min_seq[type]);
	int old_gen = lru_gen_from_seq(lrugen->min_seq[type]);
	int next_gen = (old_gen + 1) % (int)MAX_NR_GENS;
	unsigned lru = (unsigned)(old_gen * 2 + type), next_lru = (unsigned)(next_gen * 2 + type);
	struct lru_ring *r = &lrugen->folios[old_gen][type], *to = &lrugen->folios[next_gen][type];
	uint64_t protected[MAX_NR_TIERS + 1] = { 0 };
	/* gen_refs as folio_lru_gen reads them: of the old and the next gen */
	const unsigned old_gen_refs = (unsigned)(old_gen + 1), next_gen_refs = (unsigned)(next_gen + 1);
	const uint32_t clear = PG_referenced | (k612_tiers ? PG_workingset : 0);

	if (!no_inversion) {
		if (type && swappiness == SWAPPINESS_ANON_ONLY)
			goto done;
		if (!type && !swappiness)
			goto done;
	}
	uint32_t listed = lrugen->nr_listed[old_gen][type];
	/* gen_list_add: a list no folio is on holds only dead entries */
	if (!lrugen->nr_listed[next_gen][type])
		to->nr = 0;
	/* the folios this call moves: the batch, or every one left */
	uint32_t limit = listed < remaining ? listed : remaining;
	if (!limit)
		goto done;
	if (to->size - to->nr < limit &&
	    lru_ring_make_room_for(e, to, memcg, next_lru, lrugen->nr_listed[next_gen][type], limit)) {
		e->failed = 1;
		return 1;
	}
	const uint32_t *slot = r->slot, size = r->size;
	uint32_t *dslot = to->slot, dsize = to->size, dtail = to->tail;
	uint32_t nr = r->nr, n_moved = 0, n_dst = 0, nr_inc = 0;
	/* the slot read next: the head (no_inversion) or the tail */
	uint32_t pos = no_inversion ? (r->tail + nr - 1 >= size ? r->tail + nr - 1 - size : r->tail + nr - 1) :
				      r->tail;
	while (n_moved < limit) {
		uint32_t pfn = slot[pos], at = pos;
		/* the folios a few entries on, prefetched (lru_ring_last) */
		if (nr > LRU_RING_PREFETCH) {
			uint32_t ahead = no_inversion ? (pos >= LRU_RING_PREFETCH ? pos - LRU_RING_PREFETCH :
							 pos + size - LRU_RING_PREFETCH) :
							(pos + LRU_RING_PREFETCH >= size ? pos + LRU_RING_PREFETCH - size :
							 pos + LRU_RING_PREFETCH);
			prefetch_folio(&folios[slot[ahead]]);
		}
		if (no_inversion)
			pos = pos ? pos - 1 : size - 1;
		else
			pos = pos + 1 == size ? 0 : pos + 1;
		nr--;
		struct folio *f = &folios[pfn];
		uint32_t flags = f->flags;
		/* lru_ring_alive */
		if (((flags & PG_lru) ^ PG_lru) | (f->lru ^ lru) | (f->memcg ^ (unsigned)memcg) | (f->prev ^ at))
			continue;
		n_moved++;
		unsigned gen_refs = f->gen_refs;
		unsigned tier = inc_min_seq_tier[INC_MIN_SEQ_TIER_KEY(flags, gen_refs)];
		if (gen_refs >> 4 == old_gen_refs) {
			/* folio_inc_gen: folio_clear_lru_refs and folio_set_gen */
			f->flags = flags & ~clear;
			f->gen_refs = (uint8_t)(next_gen_refs << 4);
			nr_inc++;
		} else if (gen_refs >> 4 != next_gen_refs) {
			/* aging promoted it past the next generation */
			inc_min_seq_promoted(e, lrugen, pfn, (int)(gen_refs >> 4) - 1, type);
			if (no_inversion)
				tier = MAX_NR_TIERS;
			if (!k612_tiers)
				protected[tier]++;
			continue;
		} else if (no_inversion) {
			/* sw-no-inversion: aging already promoted it */
			tier = MAX_NR_TIERS;
		}
		/* list_move_tail to the next generation (lru_ring_add; room
		 * was made above) */
		dtail = dtail ? dtail - 1 : dsize - 1;
		dslot[dtail] = pfn;
		n_dst++;
		f->prev = dtail;
		f->lru = (uint8_t)next_lru;
		/* don't count the workingset being lazily promoted (6.12,
		 * mglru+k6.12-tiers: inc_min_seq counts none) */
		if (!k612_tiers)
			protected[tier]++;
	}
	r->nr = nr;
	if (!no_inversion)
		r->tail = pos;
	lrugen->nr_listed[old_gen][type] -= n_moved;
	to->tail = dtail;
	to->nr += n_dst;
	lrugen->nr_listed[next_gen][type] += n_dst;
	*moved += n_moved;
	for (unsigned tier = 0; tier < MAX_NR_TIERS; tier++)
		lrugen->protected[hist][type][tier] += protected[tier];
	lrugen->nr_pages[old_gen][type] -= nr_inc;
	lrugen->nr_pages[next_gen][type] += nr_inc;
	/* the batch ran out: the caller drops the lock and calls again */
	if (n_moved == remaining)
		return 0;
done:
	reset_ctrl_pos(lrugen, type, 1);
	lrugen->min_seq[type]++;
	return 1;
}

static __attribute__((noinline)) int inc_min_seq(struct engine *e, int memcg,
						struct lru_gen_folio *lrugen, int type,
						int swappiness, uint64_t *moved)
{
	if (patch_sw_no_inversion(e))
		return patch_k612_tiers(e) ? inc_min_seq_list(e, memcg, lrugen, type, swappiness, moved, 1, 1) :
					     inc_min_seq_list(e, memcg, lrugen, type, swappiness, moved, 1, 0);
	return patch_k612_tiers(e) ? inc_min_seq_list(e, memcg, lrugen, type, swappiness, moved, 0, 1) :
				     inc_min_seq_list(e, memcg, lrugen, type, swappiness, moved, 0, 0);
}

/* try_to_inc_min_seq: skip empty oldest generations; keep the two types
 * within one generation of each other when both are evictable.
 * mglru+k6.12-types: 6.12's coupling instead ("see the comment on
 * lru_gen_folio", removed by the Dec 2024 type-selection rework): anon's
 * min_seq never passes file's, and file's never falls behind anon's. */
int try_to_inc_min_seq(const struct engine *e, struct lru_gen_folio *lrugen, int swappiness)
{
	int type, success = 0, seq_inc = 0;
	uint64_t min_seq[ANON_AND_FILE] = { lrugen->min_seq[0], lrugen->min_seq[1] };

	for_each_evictable_type(type, swappiness) {
		while (min_seq[type] + MIN_NR_GENS <= lrugen->max_seq) {
			int gen = lru_gen_from_seq(min_seq[type]);
			if (lrugen->nr_listed[gen][type])
				break;
			min_seq[type]++;
			seq_inc = 1;
		}
	}
	if (patch_k612_types(e)) {
		if (swappiness) {
			if (min_seq[LRU_GEN_FILE] < min_seq[LRU_GEN_ANON])
				min_seq[LRU_GEN_ANON] = min_seq[LRU_GEN_FILE];
			min_seq[LRU_GEN_FILE] = min_seq[LRU_GEN_ANON] > lrugen->min_seq[LRU_GEN_FILE] ?
						min_seq[LRU_GEN_ANON] : lrugen->min_seq[LRU_GEN_FILE];
		}
	} else if (!seq_inc)
		return 0;
	else if (swappiness && swappiness <= MAX_SWAPPINESS) {
		uint64_t seq = lrugen->max_seq - MIN_NR_GENS;
		if (min_seq[LRU_GEN_ANON] > seq && min_seq[LRU_GEN_FILE] < seq)
			min_seq[LRU_GEN_ANON] = seq;
		else if (min_seq[LRU_GEN_FILE] > seq && min_seq[LRU_GEN_ANON] < seq)
			min_seq[LRU_GEN_FILE] = seq;
	}
	for_each_evictable_type(type, swappiness) {
		if (min_seq[type] <= lrugen->min_seq[type])
			continue;
		reset_ctrl_pos(lrugen, type, 1);
		lrugen->min_seq[type] = min_seq[type];
		success = 1;
	}
	return success;
}

/* inc_max_seq: a new youngest generation; a full window first retires the
 * oldest (in batches, with the lock dropped between them: other reclaimers
 * run meanwhile).  Fails if someone else aged first. */
static int inc_max_seq(struct engine *e, int memcg, uint64_t seq, int swappiness)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	uint64_t moved = 0;
restart:
	if (seq != lrugen->max_seq)
		return 0;
	for (int type = 0; type < ANON_AND_FILE; type++) {
		if (get_nr_gens(lrugen, type) != (int)MAX_NR_GENS)
			continue;
		if (inc_min_seq(e, memcg, lrugen, type, swappiness, &moved))
			continue;
		/* lruvec_unlock_irq; cond_resched: the moves took CPU time */
		reclaim_cpu(e, moved * COST_ISOLATE_NS);
		moved = 0;
		goto restart;
	}
	/* The active/inactive sizes: max_seq - 1 leaves the active pair,
	 * max_seq + 1 (which can overlap min_seq when a type was not moved)
	 * joins it. */
	int prev = lru_gen_from_seq(lrugen->max_seq - 1);
	int next = lru_gen_from_seq(lrugen->max_seq + 1);
	for (int type = 0; type < ANON_AND_FILE; type++) {
		int64_t delta = lrugen->nr_pages[prev][type] - lrugen->nr_pages[next][type];
		struct lruvec *lv = &e->memcgs[memcg].lruvec;
		int lru = type * LRU_INACTIVE_FILE;
		update_lru_size(e, lv, lru, delta);
		update_lru_size(e, lv, lru + 1, -delta);
	}
	for (int type = 0; type < ANON_AND_FILE; type++)
		reset_ctrl_pos(lrugen, type, 0);
	lrugen->timestamps[next] = e->sim.now;
	lrugen->max_seq++;
	MGLRU_DEBUG_CHECK(e, "inc_max_seq");
	reclaim_cpu(e, moved * COST_ISOLATE_NS);
	return 1;
}

/* walk_mm and walk_pte_range, condensed: every mapped folio of the memcg on
 * its generation lists is a PTE the walk visits; a young one has its
 * accessed bit cleared and goes through folio_update_gen into max_seq.
 * Anon VMAs are skipped at swappiness 0 (should_skip_vma).  No mm_struct
 * list, no Bloom filter (every PTE table is walked), no VMA without
 * recency (DEVIATIONS.md).  Returns the PTEs visited. */
static inline void walk_pte(struct engine *e, int memcg, struct lru_gen_folio *lrugen, struct folio *f,
			    int new_gen)
{
	f->flags &= ~PG_young;
	int old_gen = patch_k612_refs(e) ? folio_update_gen_612(f, new_gen) : folio_update_gen(f, new_gen);
	if (old_gen >= 0 && old_gen != new_gen)
		lru_gen_update_size(e, memcg, lrugen, f, old_gen, new_gen);
}

#define LRU_WALK_LINE 64u             /* bytes of a cache line */
static uint64_t walk_mm(struct engine *e, int memcg, struct lru_gen_folio *lrugen, int swappiness)
{
	int new_gen = lru_gen_from_seq(lrugen->max_seq);
	int walk_type[ANON_AND_FILE] = { swappiness != 0, swappiness <= MAX_SWAPPINESS };
	uint64_t visited = 0, listed = 0;

	for (unsigned gen = 0; gen < MAX_NR_GENS; gen++)
		for (int type = 0; type < ANON_AND_FILE; type++)
			listed += lrugen->nr_pages[gen][type] > 0 ? (uint64_t)lrugen->nr_pages[gen][type] : 0;
	/* The same folios either way (the walk's effect on each is independent
	 * of the order): a memcg holding much of the trace is scanned in page
	 * id order, sequentially, a small one along its lists — whichever
	 * reads fewer bytes: the whole folio array, or a cache line for each
	 * listed folio (prefetched a few entries ahead). */
	if (listed * LRU_WALK_LINE >= (uint64_t)e->nr_folios * sizeof(struct folio)) {
		for (uint32_t pfn = 0; pfn < e->nr_folios; pfn++) {
			struct folio *f = &e->folio[pfn];
			if ((f->flags & (PG_lru | PG_mapped)) != (PG_lru | PG_mapped) || f->memcg != memcg ||
			    !walk_type[folio_is_file_lru(f)])
				continue;
			visited++;
			if (f->flags & PG_young)
				walk_pte(e, memcg, lrugen, f, new_gen);
		}
		return visited;
	}
	for (unsigned gen = 0; gen < MAX_NR_GENS; gen++) {
		for (int type = 0; type < ANON_AND_FILE; type++) {
			if (!walk_type[type])
				continue;
			const struct lru_ring *r = &lrugen->folios[gen][type];
			/* no folio on it: its entries are all dead */
			if (!lrugen->nr_listed[gen][type])
				continue;
			for (uint32_t k = 0; k < r->nr; k++) {
				uint32_t pos = lru_ring_wrap(r, r->tail + k);
				uint32_t pfn = r->slot[pos];
				if (k + LRU_RING_PREFETCH < r->nr)
					prefetch_folio(&e->folio[r->slot[lru_ring_wrap(r, pos + LRU_RING_PREFETCH)]]);
				if (!lru_ring_alive(e, memcg, gen * 2 + (unsigned)type, pfn, pos))
					continue;
				struct folio *f = &e->folio[pfn];
				if (!(f->flags & PG_mapped))
					continue;
				visited++;
				if (f->flags & PG_young)
					walk_pte(e, memcg, lrugen, f, new_gen);
			}
		}
	}
	return visited;
}

/* try_to_inc_max_seq: walk the page tables, then inc_max_seq.  Walkers of
 * one lruvec share the mm list: with one walk unit per lruvec here, a
 * second walker arriving while a walk for the same seq is running finds
 * the list done and increments max_seq at once (iterate_mm_list's "last");
 * the first then returns false.  The walk harvests the accessed bits at
 * its start; its CPU time passes before max_seq moves (DEVIATIONS.md).
 * A direct reclaimer gets its walk context here (set_mm_walk(NULL, true)),
 * kept until its lru_gen_shrink_node/lruvec call ends. */
int try_to_inc_max_seq(struct engine *e, int memcg, uint64_t seq, int swappiness,
		       struct scan_control *sc)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	if (seq <= lrugen->mm_state_seq)
		return 0;
	/* mglru+no-mm-walk (!should_walk_mmu, lru_gen/enabled 0x0001):
	 * iterate_mm_list_nowalk, no walk context for the reclaimer; young
	 * PTEs are found only by look-around in eviction. */
	if (patch_no_mm_walk(e)) {
		lrugen->mm_state_seq = seq;
		return inc_max_seq(e, memcg, seq, swappiness);
	}
	if (sc)
		sc->sim.mm_walk = 1;
	if (lrugen->walking && lrugen->walk_seq == seq) {
		lrugen->mm_state_seq = seq;
		return inc_max_seq(e, memcg, seq, swappiness);
	}
	lrugen->walking = 1;
	lrugen->walk_seq = seq;
	uint64_t visited = walk_mm(e, memcg, lrugen, swappiness);
	reclaim_cpu(e, visited * COST_WALK_PTE_NS);
	if (lrugen->walk_seq == seq)
		lrugen->walking = 0;
	if (seq <= lrugen->mm_state_seq)
		return 0;
	lrugen->mm_state_seq = seq;
	return inc_max_seq(e, memcg, seq, swappiness);
}

/* should_run_aging: must age when nothing can be evicted; otherwise not at
 * DEF_PRIORITY (gentle reclaim); else age when only MIN_NR_GENS + 1
 * generations remain.
 * mglru+swappiness (inferred): sw-age-pref also ages when the type
 * get_type_to_scan prefers has folios but no evictable generation;
 * sw-imbalance ages a severely skewed lruvec; sw-no-gentle drops the
 * DEF_PRIORITY shortcut at swappiness <= 1 or >= 200. */
int should_run_aging(struct engine *e, struct lru_gen_folio *lrugen, uint64_t max_seq,
		     const struct scan_control *sc, int swappiness)
{
	uint64_t min_seq = evictable_min_seq(lrugen->min_seq, swappiness);

	/* have to run aging, since eviction is not possible anymore */
	if (min_seq + MIN_NR_GENS > max_seq)
		return 1;
	if (patch_sw_age_pref(e)) {
		int pref = get_type_to_scan(e, lrugen, swappiness, 0);
		if (pref >= min_type(swappiness) && pref <= max_type(swappiness) &&
		    lrugen->min_seq[pref] + MIN_NR_GENS > max_seq &&
		    lruvec_type_evictable_size(lrugen, pref))
			return 1;
	}
	if (patch_sw_imbalance(e) && lru_gen_imbalanced(e, lrugen, swappiness))
		return 1;
	/* try to avoid aging, do gentle reclaim at the default priority */
	if (sc->priority == DEF_PRIORITY &&
	    !(patch_sw_no_gentle(e) &&
	      (swappiness <= MIN_SWAPPINESS + 1 || swappiness >= MAX_SWAPPINESS)))
		return 0;
	/* better to run aging even though eviction is still possible */
	return min_seq + MIN_NR_GENS == max_seq;
}

/* lru_gen_spread: the evictable pages of the lruvec (*TOTAL), those of
 * max_seq (*YOUNG) and of max_seq - MIN_NR_GENS (*OLD: the oldest when
 * MIN_NR_GENS + 1 generations remain) — what 6.12's should_run_aging and
 * the swappiness series' lru_gen_imbalanced weigh. */
void lru_gen_spread(const struct lru_gen_folio *lrugen, int swappiness, uint64_t *total,
		    uint64_t *young, uint64_t *old)
{
	int type;
	*total = *young = *old = 0;
	for_each_evictable_type(type, swappiness) {
		for (uint64_t seq = lrugen->min_seq[type]; seq <= lrugen->max_seq; seq++) {
			int64_t n = lrugen->nr_pages[lru_gen_from_seq(seq)][type];
			uint64_t size = n > 0 ? (uint64_t)n : 0;
			*total += size;
			if (seq == lrugen->max_seq)
				*young += size;
			else if (seq + MIN_NR_GENS == lrugen->max_seq)
				*old += size;
		}
	}
}

/* lru_gen_imbalanced (mglru+swappiness sw-imbalance, inferred): with
 * MIN_NR_GENS + 1 generations, the oldest holds less than an eighth of the
 * evictable pages or the youngest more than seven eighths — the pre-2025
 * rule (1/4, 1/2) made looser, the threshold a fixed fraction of the
 * lruvec's size (the patch's title says "dynamically scale"; its rule is
 * not public); lruvecs under MIN_LRU_BATCH pages never count.
 * sw-imbalance-prev, the other reading: the pre-2025 bounds themselves. */
int lru_gen_imbalanced(const struct engine *e, const struct lru_gen_folio *lrugen, int swappiness)
{
	uint64_t total, young, old;
	if (evictable_min_seq(lrugen->min_seq, swappiness) + MIN_NR_GENS != lrugen->max_seq)
		return 0;
	lru_gen_spread(lrugen, swappiness, &total, &young, &old);
	if (total < MIN_LRU_BATCH)
		return 0;
	if (patch_sw_imbalance_prev(e))
		return young * MIN_NR_GENS > total || old * (MIN_NR_GENS + 2) < total;
	return old < total / 8 || young > total - total / 8;
}

/* lru_gen_age_node (kswapd_age_node): with min_ttl_ms 0 (the default) it
 * only sets the initial priority; it never ages. */
void lru_gen_age_node(struct engine *e, struct scan_control *sc)
{
	set_initial_priority(e, sc);
}
