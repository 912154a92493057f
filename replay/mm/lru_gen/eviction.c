/*
 * eviction.c — MGLRU's eviction, after mm/vmscan.c: re-filing or
 * isolating the oldest generation's folios (sort_folio, isolate_folio,
 * scan_folios), the type to take them from (isolate_folios), one batch
 * through shrink_folio_list (evict_folios), and the reclaim loop of one
 * lruvec (get_nr_to_scan, try_to_shrink_lruvec, should_abort_scan).
 *
 * Left out (DEVIATIONS.md, "MGLRU"): zones, isolation failures from
 * races (one event loop: none happen).
 */
#include "lru_gen.h"
#include "mm/internal.h"
#include "mm/vmscan.h"
#include "records/cost.h"

#include <string.h>

/* sort_folio: re-file instead of isolating: promoted by aging, or
 * protected by its tier.  Dirty and writeback folios are isolated like
 * any other (shrink_folio_list deals with them), in the mm tree since the
 * reclaim-loop rework and in Linux 6.12.117 since the stable backport of
 * "wake up flushers conditionally" (6.12 itself re-filed them as
 * "waiting for writeback"; not modelled).  Returns 1 when re-filed. */
static int sort_folio(struct engine *e, int memcg, struct lru_gen_folio *lrugen, uint32_t pfn,
		      struct scan_control *sc, int tier_idx)
{
	struct folio *f = &e->folio[pfn];
	int gen = folio_lru_gen(f);
	int type = folio_is_file_lru(f);
	int refs = folio_lru_refs(f);
	int ws = !!(f->flags & PG_workingset);
	int tier = folio_lru_tier(e, f);

	(void)sc;
	/* promoted */
	if (gen != lru_gen_from_seq(lrugen->min_seq[type])) {
		gen_list_move(e, lrugen, pfn, gen, type, 0);
		return 1;
	}
	/* protected (6.12: the most accesses, refs == BIT(LRU_REFS_WIDTH),
	 * counted like the others; list_move_tail, to the end of the next
	 * generation that is scanned first, where the mm tree's list_move
	 * puts it at the other end) */
	if (patch_k612_tiers(e) &&
	    (tier > tier_idx || folio_lru_refs_612(f) == 1 << LRU_REFS_WIDTH)) {
		gen = folio_inc_gen(e, memcg, lrugen, pfn, 0);
		gen_list_move(e, lrugen, pfn, gen, type, 1);
		lrugen->protected[lru_hist_from_seq(lrugen->min_seq[type])][type][tier]++;
		return 1;
	}
	if (!patch_k612_tiers(e) && (tier > tier_idx || refs + ws == (1 << LRU_REFS_WIDTH) + 1)) {
		gen = folio_inc_gen(e, memcg, lrugen, pfn, 0);
		gen_list_move(e, lrugen, pfn, gen, type, 0);
		/* don't count the workingset being lazily promoted */
		if (refs + ws != (1 << LRU_REFS_WIDTH) + 1)
			lrugen->protected[lru_hist_from_seq(lrugen->min_seq[type])][type][tier]++;
		return 1;
	}
	/* ineligible (zone > reclaim_idx): one zone, never */
	return 0;
}

/* isolate_folio: off the list for shrink_folio_list.  Refused for a
 * caller without __GFP_IO and a dirty or swapless anon folio, and for a
 * folio being freed or isolated by someone else (never in one event loop). */
static int isolate_folio(struct engine *e, uint32_t pfn, struct scan_control *sc)
{
	struct folio *f = &e->folio[pfn];
	if (!sc->gfp_io_fs && ((f->flags & PG_dirty) ||
			       (!folio_is_file_lru(f) && !(f->flags & PG_swapcache))))
		return 0;
	if ((f->flags & PG_isolated) || !(f->flags & PG_lru))
		return 0;
	/* see the comment on MAX_NR_TIERS */
	if (!(f->flags & PG_referenced))
		folio_clear_lru_refs(e, f);
	f->flags &= ~PG_reclaim;
	/* 6.12 (mglru+k6.12-refs): PG_referenced cleared for
	 * shrink_folio_list, which keeps a mapped folio that has it again
	 * (look-around found it young meanwhile) */
	if (patch_k612_refs(e))
		f->flags &= ~PG_referenced;
	lru_gen_del_folio(e, pfn, 1);
	f->flags |= PG_isolated;
	return 1;
}

struct scan_result {
	int isolated, skipped, sorted;
	int exhausted;         /* only MIN_NR_GENS generations, or the oldest empty */
};

/* scan_folios: from the tail of the oldest generation of TYPE, up to
 * NR_TO_SCAN folios or MIN_LRU_BATCH isolated.  pgscan counts the
 * isolated folios, pgrefill the re-filed ones: mod_lruvec_state, node and
 * memcg statistics for every reclaimer (mglru+k6.12-counters: the global
 * pgscan_kswapd/direct and pgrefill for global reclaim only, as 6.12's
 * __count_vm_events behind !cgroup_reclaim).  Returns the folios examined.
 * Flattened: sort_folio, isolate_folio and the list ops inline into its
 * loop (the same flattening made classic's isolate_lru_folios slower). */
static __attribute__((flatten)) int scan_folios(struct engine *e, uint64_t nr_to_scan, int memcg,
						struct scan_control *sc, int type, int tier,
						uint32_t *list, struct scan_result *res)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	uint32_t moved[MIN_LRU_BATCH];
	int scanned = 0;
	uint64_t remaining = nr_to_scan;

	memset(res, 0, sizeof(*res));
	if (get_nr_gens(lrugen, type) == (int)MIN_NR_GENS) {
		res->exhausted = 1;
		return 0;
	}
	int gen = lru_gen_from_seq(lrugen->min_seq[type]);
	if (!lrugen->nr_listed[gen][type])
		res->exhausted = 1;    /* emptied, and try_to_inc_min_seq could not retire it */
	/* one zone: the loop over zones runs once */
	for (uint32_t pfn; (pfn = gen_list_last(e, lrugen, gen, type)) != NIL;) {
		scanned++;
		if (sort_folio(e, memcg, lrugen, pfn, sc, tier))
			res->sorted++;
		else if (isolate_folio(e, pfn, sc)) {
			list[res->isolated++] = pfn;
			lru_gen_look_around_prefetch_rank(e, pfn);
		}
		else {
			gen_list_del(e, lrugen, pfn);
			moved[res->skipped++] = pfn;
		}
		if (!--remaining || (res->isolated > res->skipped ? res->isolated : res->skipped) >=
				    (int)MIN_LRU_BATCH)
			break;
	}
	/* list_splice(&moved, head): back at the head, in their order */
	for (int i = res->skipped - 1; i >= 0; i--)
		gen_list_add(e, lrugen, moved[i], gen, type, 0);

	if (!patch_k612_counters(e) || !cgroup_reclaim(sc)) {
		count_vm_events(e, current_is_kswapd(sc) ? VM_pgscan_kswapd : VM_pgscan_direct, res->isolated);
		count_vm_events(e, VM_pgrefill, res->sorted);
	}
	count_vm_events(e, type ? VM_pgscan_file : VM_pgscan_anon, res->isolated);
	if (type == LRU_GEN_FILE && patch_k612_writeback(e))
		sc->nr.file_taken += res->isolated;
	return scanned;
}

/* isolate_folios (6.12, mglru+k6.12-types): the obvious choice first —
 * file at swappiness 0, anon when its oldest generation is older than
 * file's, file at 1, anon at MAX_SWAPPINESS, file without __GFP_IO — else
 * get_type_to_scan's tier-0 comparison, which also names the tier; a type
 * that isolated nothing before its MAX_LRU_BATCH ran out (6.12's
 * scan_folios returns 0 then) gives way to the other, at any priority
 * (with the isolation throttle, only to an allowed type).  Returns the
 * folios the last type scanned, as 6.12 does. */
static int isolate_folios_612(struct engine *e, uint64_t nr_to_scan, int memcg, struct scan_control *sc,
			      int swappiness, unsigned allowed, uint32_t *list, int *isolated,
			      int *type_scanned)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int i, type, scanned = 0, tier = -1;

	if (!swappiness)
		type = LRU_GEN_FILE;
	else if (lrugen->min_seq[LRU_GEN_ANON] < lrugen->min_seq[LRU_GEN_FILE])
		type = LRU_GEN_ANON;
	else if (swappiness == 1)
		type = LRU_GEN_FILE;
	else if (swappiness == MAX_SWAPPINESS)
		type = LRU_GEN_ANON;
	else if (!sc->gfp_io_fs)
		type = LRU_GEN_FILE;
	else
		type = get_type_to_scan_612(lrugen, swappiness, &tier);
	if (!(allowed & (1u << type))) {
		type = !type;
		tier = -1;
	}
	*isolated = 0;
	*type_scanned = type;
	for (i = !swappiness; i < ANON_AND_FILE; i++) {
		struct scan_result res;
		if (tier < 0)
			tier = get_tier_idx_612(lrugen, type);
		scanned = scan_folios(e, nr_to_scan, memcg, sc, type, tier, list, &res);
		*type_scanned = type;
		if (res.isolated || (uint64_t)scanned >= nr_to_scan) {
			*isolated = res.isolated;
			break;
		}
		scanned = 0;
		if (!(allowed & (1u << !type)))
			break;
		type = !type;
		tier = -1;
	}
	return scanned;
}

/* isolate_folios: the type get_type_to_scan picks (the other when the
 * isolation throttle does not allow it); a pass that scanned nothing
 * retires empty generations and falls back to the other type, at any
 * priority, when the swappiness allows both (with the throttle, only to an
 * allowed type); a pass that scanned but isolated nothing retries the same
 * type.  FORCE_TYPE >= 0 (mglru+scan-balance) scans that type alone.
 * mglru+high-prio-fallback: the RFC "only fall back when reclaim is
 * running at high priority" (dropped in the swappiness series' v3) falls
 * back at priority 0 only.
 *
 * mglru+swappiness (inferred): sw-exhaustion reports the preferred type
 * exhausted (*EXHAUSTED, for the caller to age) instead of retrying or
 * falling back, and falls back at once from a type with no folios at all
 * (aging cannot help it); sw-retry-race
 * rescans a type once when isolation failed only for races (never here). */
static int isolate_folios(struct engine *e, uint64_t nr_to_scan, int memcg, struct scan_control *sc,
			  int swappiness, unsigned allowed, int force_type, uint32_t *list,
			  int *isolated, int *type_scanned, int *exhausted)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int total_scanned = 0, i, retried = 0;
	int type;

	if (patch_k612_types(e) && force_type < 0)
		return isolate_folios_612(e, nr_to_scan, memcg, sc, swappiness, allowed, list,
					  isolated, type_scanned);
	type = force_type >= 0 ? force_type : get_type_to_scan(e, lrugen, swappiness, 1);

	if (force_type < 0 && !(allowed & (1u << type)))
		type = !type;
	*isolated = 0;
	*exhausted = 0;
	for_each_evictable_type(i, swappiness) {
		struct scan_result res;
		int tier = get_tier_idx(lrugen, type);
		int scanned = scan_folios(e, nr_to_scan, memcg, sc, type, tier, list, &res);
		total_scanned += scanned;
		if (res.isolated) {
			*isolated = res.isolated;
			*type_scanned = type;
			break;
		}
		if (patch_sw_retry_race(e) && res.skipped && !retried &&
		    res.skipped + res.sorted == scanned) {
			retried = 1;
			i--;
			continue;
		}
		if (force_type >= 0) {
			if (!scanned)
				try_to_inc_min_seq(e, lrugen, swappiness);
			break;
		}
		if (!scanned) {
			try_to_inc_min_seq(e, lrugen, swappiness);
			if (patch_sw_exhaustion(e)) {
				if (res.exhausted && lruvec_type_evictable_size(lrugen, type)) {
					*exhausted = 1;
					*type_scanned = type;
					break;
				}
				/* an empty type cannot be aged into reclaimability:
				 * the other, at any priority (inferred) */
				if (!lruvec_type_evictable_size(lrugen, type) && (allowed & (1u << !type))) {
					type = !type;
					continue;
				}
			}
			if ((!patch_high_prio_fallback(e) || !sc->priority) &&
			    (allowed & (1u << !type)))
				type = !type;
		}
	}
	return total_scanned;
}

/* evict_folios: isolate a batch, let the time to process it pass (other
 * tasks and reclaimers run meanwhile), decide each folio with
 * shrink_folio_list, put the survivors back — none into the oldest
 * generation — and retry once the clean ones that may have missed their
 * writeback rotation.  NR_ISOLATED_ANON/FILE cover the interval
 * (variants.md §1, every MGLRU policy).  Returns the folios examined. */
int __evict_folios(struct engine *e, uint64_t nr_to_scan, int memcg, struct scan_control *sc,
			  int swappiness, int force_type, int *exhausted)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	uint32_t list[MIN_LRU_BATCH], clean[MIN_LRU_BATCH];
	int isolated = 0, type = LRU_GEN_ANON, exh = 0, skip_retry = 0;
	unsigned allowed = (1u << LRU_GEN_ANON) | (1u << LRU_GEN_FILE);

	if (patch_iso_throttle(e)) {
		int fatal;
		allowed = throttle_evictable_types(e, memcg, swappiness, sc, &fatal);
		if (!allowed) {
			/* A dying task pretends progress so reclaim unwinds. */
			if (fatal)
				sc->nr_reclaimed += SWAP_CLUSTER_MAX;
			reclaim_cpu(e, COST_EVICT_CALL_NS);
			return 0;
		}
		if (force_type >= 0 && !(allowed & (1u << force_type))) {
			reclaim_cpu(e, COST_EVICT_CALL_NS);
			return 0;
		}
	}

	int scanned;
	if (patch_k612_types(e)) {
		/* 6.12: no flush before; after, a successful flush counts as
		 * progress, and a lruvec left with MIN_NR_GENS of the first
		 * evictable type reports none (its caller ages next). */
		scanned = isolate_folios(e, nr_to_scan, memcg, sc, swappiness, allowed, force_type,
					 list, &isolated, &type, &exh);
		scanned += try_to_inc_min_seq(e, lrugen, swappiness);
		if (get_nr_gens(lrugen, !swappiness) == (int)MIN_NR_GENS)
			scanned = 0;
	} else {
		/* In case folio deletion left empty old gens, flush them */
		try_to_inc_min_seq(e, lrugen, swappiness);
		scanned = isolate_folios(e, nr_to_scan, memcg, sc, swappiness, allowed, force_type,
					 list, &isolated, &type, &exh);
		/* Scanning may have emptied the oldest gen, flush it */
		if (scanned)
			try_to_inc_min_seq(e, lrugen, swappiness);
	}
	if (exhausted)
		*exhausted = exh;
	if (!isolated) {
		reclaim_cpu(e, COST_EVICT_CALL_NS + (uint64_t)scanned * COST_ISOLATE_NS);
		return scanned;
	}

	mod_node_isolated(e, type, isolated);
	lrugen->nr_isolated[type] += (uint64_t)isolated;
	record_scanned(sc, (uint64_t)isolated);
	record_lru_scan(sc, 0, 0, type ? 0 : (uint64_t)isolated, type ? (uint64_t)isolated : 0);
	reclaim_cpu(e, COST_EVICT_CALL_NS + cost_shrink_batch(e, (uint64_t)scanned, list, (uint32_t)isolated));

	uint32_t nr = (uint32_t)isolated;
retry:;
	struct reclaim_stat stat;
	uint32_t nr_survivors = nr;
	uint64_t reclaimed = shrink_folio_list(e, list, &nr_survivors, sc, &stat);
	sc->nr_reclaimed += reclaimed;
	/* the retry pass is only for clean folios without new isolation */
	if (patch_k612_writeback(e))
		sc->nr.unqueued_dirty += stat.nr_unqueued_dirty;
	else if (!skip_retry)
		handle_reclaim_writeback(e, (uint64_t)isolated, sc, &stat, type);

	uint32_t nr_keep = 0, nr_clean = 0;
	uint64_t min_seq = lrugen->min_seq[type];
	for (uint32_t i = 0; i < nr_survivors; i++) {
		uint32_t pfn = list[i];
		struct folio *f = &e->folio[pfn];
		/* 6.12 (mglru+k6.12-gens): a folio reclaim wrote or left to
		 * the flushers keeps the flags shrink_folio_list gave it —
		 * active when it activated it, else lru_gen_add_folio's
		 * max_seq - 1 — with PG_referenced restored for a workingset
		 * one (isolate_folio cleared LRU_REFS_FLAGS) */
		if (patch_k612_gens(e) && !(f->flags & PG_freed) && (f->flags & PG_reclaim) &&
		    (f->flags & (PG_dirty | PG_writeback))) {
			if (f->flags & PG_workingset)
				f->flags |= PG_referenced;
			list[nr_keep++] = pfn;
			continue;
		}
		/* retry folios that may have missed folio_rotate_reclaimable() */
		if (!skip_retry && !(f->flags & PG_freed) &&
		    !(f->flags & (PG_active | PG_mapped | PG_dirty | PG_writeback)) &&
		    !(patch_k612_refs(e) && (f->flags & PG_referenced))) {
			clean[nr_clean++] = pfn;
			continue;
		}
		/* don't add rejected folios to the oldest generation (6.12,
		 * mglru+k6.12-gens: every rejected one goes back active, to
		 * the youngest) */
		if (!(f->flags & PG_freed) &&
		    (patch_k612_gens(e) || lru_gen_folio_seq(lrugen, f, 0) == min_seq)) {
			folio_clear_lru_refs(e, f);
			f->flags |= PG_active;
		}
		list[nr_keep++] = pfn;
	}
	move_folios_to_lru(e, list, nr_keep);
	mod_node_isolated(e, type, -(int64_t)(nr - nr_clean));

	if (!patch_k612_counters(e) || !cgroup_reclaim(sc))
		count_vm_events(e, current_is_kswapd(sc) ? VM_pgsteal_kswapd : VM_pgsteal_direct, reclaimed);
	count_vm_events(e, type ? VM_pgsteal_file : VM_pgsteal_anon, reclaimed);
	/* mglru+scan-balance notes costs as shrink_inactive_list does, so
	 * its fraction can weigh them (inferred). */
	if (patch_scan_balance(e))
		lru_note_cost(e, memcg, type, stat.nr_pageout, nr - reclaimed);

	if (nr_clean) {
		memcpy(list, clean, nr_clean * sizeof(*list));
		nr = nr_clean;
		skip_retry = 1;
		reclaim_cpu(e, nr * COST_SHRINK_NS);
		goto retry;
	}
	/* The per-lruvec count of mglru+iso-throttle (and scan-balance) drops
	 * once, after the clean-retry pass, as the throttle's diff has it:
	 * folios being retried still count as isolated.  (No writeback
	 * completes inside shrink_folio_list, so the clean survivors
	 * retried are the folios under read its folio_trylock kept.) */
	lrugen->nr_isolated[type] -= (uint64_t)isolated;
	MGLRU_DEBUG_CHECK(e, "evict_folios");
	return scanned;
}

int evict_folios(struct engine *e, uint64_t nr_to_scan, int memcg, struct scan_control *sc,
		 int swappiness)
{
	return __evict_folios(e, nr_to_scan, memcg, sc, swappiness, -1, NULL);
}

/* get_swappiness: 0 when swapping is not allowed or fewer than
 * MIN_LRU_BATCH swap slots are free (no demotion here). */
int get_swappiness(struct engine *e, int memcg, const struct scan_control *sc)
{
	if (!sc->may_swap)
		return 0;
	uint64_t free_swap = e->swap_slots > e->swap_used ? e->swap_slots - e->swap_used : 0;
	if (free_swap < MIN_LRU_BATCH)
		return 0;
	return mem_cgroup_swappiness(e, memcg);
}

/* get_nr_to_scan: the evictable size >> priority, once per lruvec visit
 * (memory.min/low protection and offline memcgs are not modelled). */
static uint64_t get_nr_to_scan(struct lru_gen_folio *lrugen, const struct scan_control *sc,
			       int swappiness)
{
	return lruvec_evictable_size(lrugen, swappiness) >> sc->priority;
}

/* should_abort_scan: the goal is met; or kswapd has every eligible zone
 * above the high watermark with MIN_LRU_BATCH to spare.  (The mm tree has
 * no root_reclaim test here: memcg reclaim stops at its goal too.) */
int should_abort_scan(struct engine *e, const struct scan_control *sc)
{
	uint64_t goal = sc->nr_to_reclaim > 2 ? sc->nr_to_reclaim : 2;   /* compact_gap(0) */
	if (sc->nr_reclaimed >= goal)
		return 1;
	if (!current_is_kswapd(sc))
		return 0;
	return e->node.nr_free > e->node.watermark[WMARK_HIGH] + MIN_LRU_BATCH;
}

/* The pre-rework tail of try_to_shrink_lruvec (mglru+k6.12-writeback,
 * as 6.12.117 has it): every file folio isolated was dirty and nobody
 * queued it — wake the flushers, and under cgroup v1 (no dirty
 * throttling) wait for writeback.  The mm tree does it in
 * handle_reclaim_writeback. */
void lru_gen_wakeup_flusher(struct engine *e, struct scan_control *sc)
{
	if (!patch_k612_writeback(e))
		return;
	if (sc->nr.unqueued_dirty && sc->nr.unqueued_dirty == sc->nr.file_taken) {
		wakeup_flusher_threads(e);
		if (!writeback_throttling_sane(e, sc))
			reclaim_throttle(e, VMSCAN_THROTTLE_WRITEBACK);
	}
}

/* try_to_shrink_lruvec: the scan number once, then batches of
 * MIN_LRU_BATCH: age when should_run_aging says so, evict, stop at the goal
 * or when root reclaim has just aged (for fairness between memcgs).
 * Returns whether the memcg should be rotated (it aged). */
int try_to_shrink_lruvec(struct engine *e, int memcg, struct scan_control *sc)
{
	if (patch_scan_balance(e))
		return try_to_shrink_lruvec_balanced(e, memcg, sc);
	if (patch_k612_loop(e))
		return try_to_shrink_lruvec_612(e, memcg, sc);

	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int need_rotate = 0, should_age = 0, exhaustion_agings = 0;
	int swappiness = get_swappiness(e, memcg, sc);
	int64_t nr_to_scan = (int64_t)get_nr_to_scan(lrugen, sc, swappiness);

	while (nr_to_scan > 0) {
		uint64_t max_seq = lrugen->max_seq;
		/* mem_cgroup_below_min: memory.min is not modelled */
		if (should_run_aging(e, lrugen, max_seq, sc, swappiness)) {
			if (try_to_inc_max_seq(e, memcg, max_seq, swappiness, sc))
				need_rotate = 1;
			should_age = 1;
		}
		int exhausted = 0;
		uint64_t nr_batch = nr_to_scan < (int64_t)MIN_LRU_BATCH ? (uint64_t)nr_to_scan : MIN_LRU_BATCH;
		int delta = __evict_folios(e, nr_batch, memcg, sc, swappiness, -1, &exhausted);
		if (!delta) {
			/* mglru+swappiness sw-exhaustion (inferred): the preferred
			 * type has no evictable generation — age, and evict it
			 * again, rather than give up or spill into the other
			 * type (at most MAX_NR_GENS times per visit). */
			if (exhausted && patch_sw_exhaustion(e) &&
			    exhaustion_agings < (int)MAX_NR_GENS) {
				exhaustion_agings++;
				if (try_to_inc_max_seq(e, memcg, lrugen->max_seq, swappiness, sc)) {
					need_rotate = 1;
					should_age = 1;
					continue;
				}
			}
			break;
		}
		if (should_abort_scan(e, sc))
			break;
		/* Root reclaim needs rotation when low on cold folios for
		 * better fairness; cgroup reclaim gets it from the iterator. */
		if (root_reclaim(sc) && should_age)
			break;
		nr_to_scan -= delta;
	}
	lru_gen_wakeup_flusher(e, sc);
	return need_rotate;
}
