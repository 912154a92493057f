/*
 * variants.h — the proposed patches, as named predicates read at the
 * places each patch changes (replay/README.md lists them, variants.md of
 * the design docs describes them):
 *
 *   classic+early-exit[-direct]  "avoid over-reclaim in classic LRU direct
 *                                reclaim path" (RFC): vmscan.c
 *   mglru+swappiness             "mm: mglru: fix swappiness behavior" (RFC
 *                                v4), every rule its own switch (inferred
 *                                from the cover letter): lru_gen/
 *   mglru+iso-throttle           "throttle MGLRU eviction when isolated
 *                                folios pile up" (v7): lru_gen/iso_throttle.c
 *   mglru+scan-balance           the reviewer's alternative to it:
 *                                lru_gen/scan_balance.c
 *   mglru+high-prio-fallback     "only fall back when reclaim is running
 *                                at high priority" (RFC, dropped by the
 *                                swappiness series in v3): lru_gen/eviction.c
 *   mglru+k6.12[-*]              what Linux 6.12 does where the mm tree
 *                                differs (doc/variants.md §0): lru_gen/
 *   mglru+no-mm-walk             lru_gen/enabled 0x0001 (no hardware
 *                                accessed bit: aging without the
 *                                page-table walk): lru_gen/aging.c
 */
#ifndef VARIANTS_H
#define VARIANTS_H

#include "policy.h"
#include "sim/engine.h"

enum {
	PATCH_SW_AGE_PREF     = 1u << 0,  /* age when the preferred type is exhausted */
	PATCH_SW_NO_GENTLE    = 1u << 1,  /* no DEF_PRIORITY skip at swappiness <= 1, >= 200 */
	PATCH_SW_BOOST        = 1u << 2,  /* swappiness decides while refaults are sparse */
	PATCH_SW_EXHAUSTION   = 1u << 3,  /* scan_folios reports an exhausted type */
	PATCH_SW_RETRY_RACE   = 1u << 4,  /* rescan a type lost only to races */
	PATCH_SW_NO_INVERSION = 1u << 5,  /* inc_min_seq always moves, keeps order */
	PATCH_SW_BATCHED      = 1u << 6,  /* fewer folios per inc_min_seq call */
	PATCH_SW_IMBALANCE    = 1u << 7,  /* lru_gen_imbalanced() triggers aging */
	PATCH_SW_BOOST_GAIN   = 1u << 8,  /* superlinear gain (an alternative mode) */
	PATCH_SW_IMBALANCE_PREV = 1u << 9, /* sw-imbalance with the pre-2025 bounds (an alternative) */
	PATCH_SWAPPINESS      = PATCH_SW_AGE_PREF | PATCH_SW_NO_GENTLE | PATCH_SW_BOOST |
				PATCH_SW_EXHAUSTION | PATCH_SW_RETRY_RACE | PATCH_SW_NO_INVERSION |
				PATCH_SW_BATCHED | PATCH_SW_IMBALANCE,
	/* Kernel readings other than the mm-tree baseline (doc/variants.md). */
	PATCH_HIGH_PRIO_FALLBACK = 1u << 10, /* RFC: fall back to the other type only at priority 0 */
	PATCH_K612_COUNTERS   = 1u << 11, /* 6.12: global pgscan/pgsteal_{kswapd,direct}, pgrefill gated */
	PATCH_K612_WRITEBACK  = 1u << 12, /* 6.12.117: flushers woken from unqueued_dirty */
	PATCH_K612_LOOP       = 1u << 13, /* 6.12: the reclaim loop before its rework */
	PATCH_K612_TYPES      = 1u << 15, /* 6.12: type selection and coupled min_seq */
	PATCH_K612_GENS       = 1u << 18, /* 6.12: lru_gen_add_folio's placement */
	PATCH_K612_REFS       = 1u << 19, /* 6.12: PG_referenced for shrink_folio_list */
	PATCH_K612_TIERS      = 1u << 20, /* 6.12: tiers, refs and refault detection */
	PATCH_K612_NO_ABORT   = 1u << 21, /* 6.12 up to .117: memcg reclaim past its goal */
	/* Linux 6.12.118 on: should_abort_scan as in the mm tree (the stable
	 * backport of "mm: remove '!root_reclaim' checking in should_abort_scan()") */
	PATCH_K612_118        = PATCH_K612_COUNTERS | PATCH_K612_WRITEBACK | PATCH_K612_LOOP |
				PATCH_K612_TYPES | PATCH_K612_GENS | PATCH_K612_REFS | PATCH_K612_TIERS,
	PATCH_K612            = PATCH_K612_118 | PATCH_K612_NO_ABORT,
	PATCH_NO_MM_WALK      = 1u << 14, /* lru_gen/enabled 0x0001: no page-table walk */
	PATCH_ISO_THROTTLE    = 1u << 16,
	PATCH_SCAN_BALANCE    = 1u << 17,
	PATCH_EARLY_EXIT      = 1u << 24,
	PATCH_EARLY_EXIT_DIRECT = 1u << 25, /* the memcg-walk break for direct reclaim only */
};

/* lru_gen_enabled(): the multi-gen LRU replaces the active/inactive lists. */
static inline int lru_gen_enabled(const struct engine *e)
{
	return e->policy->lru_gen;
}

static inline int patch_applied(const struct engine *e, unsigned bit)
{
	return (e->policy->variants & bit) != 0;
}

/* classic+early-exit: stop at the goal in shrink_lruvec,
 * should_continue_reclaim and the memcg walk. */
static inline int patch_early_exit(const struct engine *e)
{
	return patch_applied(e, PATCH_EARLY_EXIT);
}
/* ... and in the memcg walk of this reclaimer (the -direct form spares
 * kswapd's walk, which the review feared it would starve). */
static inline int patch_early_exit_memcg_walk(const struct engine *e, const struct scan_control *sc)
{
	return patch_early_exit(e) && !(current_is_kswapd(sc) && patch_applied(e, PATCH_EARLY_EXIT_DIRECT));
}

static inline int patch_sw_age_pref(const struct engine *e)     { return patch_applied(e, PATCH_SW_AGE_PREF); }
static inline int patch_sw_no_gentle(const struct engine *e)    { return patch_applied(e, PATCH_SW_NO_GENTLE); }
static inline int patch_sw_boost(const struct engine *e)        { return patch_applied(e, PATCH_SW_BOOST); }
static inline int patch_sw_exhaustion(const struct engine *e)   { return patch_applied(e, PATCH_SW_EXHAUSTION); }
static inline int patch_sw_retry_race(const struct engine *e)   { return patch_applied(e, PATCH_SW_RETRY_RACE); }
static inline int patch_sw_no_inversion(const struct engine *e) { return patch_applied(e, PATCH_SW_NO_INVERSION); }
static inline int patch_sw_batched(const struct engine *e)      { return patch_applied(e, PATCH_SW_BATCHED); }
static inline int patch_sw_imbalance(const struct engine *e)    { return patch_applied(e, PATCH_SW_IMBALANCE); }
static inline int patch_sw_boost_gain(const struct engine *e)   { return patch_applied(e, PATCH_SW_BOOST_GAIN); }
static inline int patch_sw_imbalance_prev(const struct engine *e) { return patch_applied(e, PATCH_SW_IMBALANCE_PREV); }
static inline int patch_iso_throttle(const struct engine *e)    { return patch_applied(e, PATCH_ISO_THROTTLE); }
static inline int patch_high_prio_fallback(const struct engine *e) { return patch_applied(e, PATCH_HIGH_PRIO_FALLBACK); }
static inline int patch_k612_counters(const struct engine *e)   { return patch_applied(e, PATCH_K612_COUNTERS); }
static inline int patch_k612_writeback(const struct engine *e)  { return patch_applied(e, PATCH_K612_WRITEBACK); }
static inline int patch_k612_loop(const struct engine *e)       { return patch_applied(e, PATCH_K612_LOOP); }
static inline int patch_k612_types(const struct engine *e)      { return patch_applied(e, PATCH_K612_TYPES); }
static inline int patch_k612_gens(const struct engine *e)       { return patch_applied(e, PATCH_K612_GENS); }
static inline int patch_k612_refs(const struct engine *e)       { return patch_applied(e, PATCH_K612_REFS); }
static inline int patch_k612_tiers(const struct engine *e)      { return patch_applied(e, PATCH_K612_TIERS); }
static inline int patch_k612_no_abort(const struct engine *e)   { return patch_applied(e, PATCH_K612_NO_ABORT); }
static inline int patch_no_mm_walk(const struct engine *e)      { return patch_applied(e, PATCH_NO_MM_WALK); }
static inline int patch_scan_balance(const struct engine *e)    { return patch_applied(e, PATCH_SCAN_BALANCE); }

#endif
