/*
 * policy_mglru.h — the multi-gen LRU (MGLRU, CONFIG_LRU_GEN) and its
 * proposed variants: what the policy keeps per lruvec, and the decisions
 * tests check by hand.
 *
 * Baseline: reclaim-model.md §5.2, §6, §8, §9 with the mm tree of about
 * August 2026 (variants.md §0: the reworked reclaim loop) winning where
 * they differ.  Variants (variants.md §1, §2, §4, §5) are flag bits of one
 * ops table; `mglru+swappiness+iso-throttle` is the base with two sets of
 * bits.  Simplifications: replay/DEVIATIONS.md, "MGLRU".
 */
#ifndef POLICY_MGLRU_H
#define POLICY_MGLRU_H

#include "sim/engine.h"

/* include/linux/mmzone.h */
#define MIN_NR_GENS        2u
#define MAX_NR_GENS        4u
#define MAX_NR_TIERS       4u
#define LRU_REFS_WIDTH     2u                   /* MAX_NR_TIERS - 2          */
#define NR_HIST_GENS       1u                   /* no CONFIG_LRU_GEN_STATS   */
#define MIN_LRU_BATCH      64u                  /* BITS_PER_LONG             */
#define MAX_LRU_BATCH      (MIN_LRU_BATCH * 64) /* 4096                      */
#define MEMCG_NR_GENS      3u
#define MEMCG_NR_BINS      8u
#define SWAPPINESS_ANON_ONLY (MAX_SWAPPINESS + 1)
#define MIN_SWAPPINESS     0
enum { LRU_GEN_ANON = 0, LRU_GEN_FILE = 1 };

/* ---- variant switches (struct reclaim_policy.mglru_flags) ---------------
 * mglru+swappiness ("mm: mglru: fix swappiness behavior", RFC v4): every
 * rule of variants.md §4 is its own bit; the named variant sets them all
 * (but the alternative gain mode).  The rules are *inferred* from the
 * cover letter, see the comments where each applies. */
enum {
	MGLRU_SW_AGE_PREF     = 1u << 0,  /* sw-age-pref: age when the preferred type is exhausted */
	MGLRU_SW_NO_GENTLE    = 1u << 1,  /* sw-no-gentle: no DEF_PRIORITY skip at swappiness <=1, >=200 */
	MGLRU_SW_BOOST        = 1u << 2,  /* sw-boost: swappiness decides while refaults are sparse */
	MGLRU_SW_EXHAUSTION   = 1u << 3,  /* sw-exhaustion: scan_folios reports an exhausted type */
	MGLRU_SW_RETRY_RACE   = 1u << 4,  /* sw-retry-race: rescan a type lost only to races */
	MGLRU_SW_NO_INVERSION = 1u << 5,  /* sw-no-inversion: inc_min_seq always moves, keeps order */
	MGLRU_SW_BATCHED      = 1u << 6,  /* sw-batched: fewer folios per inc_min_seq call */
	MGLRU_SW_IMBALANCE    = 1u << 7,  /* sw-imbalance: lru_gen_imbalanced() triggers aging */
	MGLRU_SW_BOOST_GAIN   = 1u << 8,  /* sw-boost-gain: superlinear gain (alternative mode) */
	MGLRU_SWAPPINESS      = MGLRU_SW_AGE_PREF | MGLRU_SW_NO_GENTLE | MGLRU_SW_BOOST |
				MGLRU_SW_EXHAUSTION | MGLRU_SW_RETRY_RACE | MGLRU_SW_NO_INVERSION |
				MGLRU_SW_BATCHED | MGLRU_SW_IMBALANCE,
	MGLRU_ISO_THROTTLE    = 1u << 16, /* "throttle MGLRU eviction when isolated folios pile up" v7 */
	MGLRU_SCAN_BALANCE    = 1u << 17, /* the reviewer's alternative: budget first, lruvec throttle */
};

/* ---- per-lruvec state (struct lru_gen_folio and friends) ---------------- */
struct lru_gen_folio {
	uint64_t max_seq;
	uint64_t min_seq[ANON_AND_FILE];
	simtime_t timestamps[MAX_NR_GENS];
	/* folios[gen][type] (one zone): lists threaded through folio.prev/next;
	 * folio.lru holds the list a folio is physically on (gen * 2 + type),
	 * which can lag behind its gen field after lazy promotion. */
	uint32_t head[MAX_NR_GENS][ANON_AND_FILE], tail[MAX_NR_GENS][ANON_AND_FILE];
	int64_t nr_pages[MAX_NR_GENS][ANON_AND_FILE];
	/* the PID controller */
	uint64_t avg_refaulted[ANON_AND_FILE][MAX_NR_TIERS];
	uint64_t avg_total[ANON_AND_FILE][MAX_NR_TIERS];
	uint64_t refaulted[NR_HIST_GENS][ANON_AND_FILE][MAX_NR_TIERS];
	uint64_t evicted[NR_HIST_GENS][ANON_AND_FILE][MAX_NR_TIERS];
	uint64_t protected[NR_HIST_GENS][ANON_AND_FILE][MAX_NR_TIERS];
	/* struct lru_gen_mm_state, reduced to one walk unit per lruvec */
	uint64_t mm_state_seq;
	uint64_t walk_seq;                 /* a walk for this seq is running */
	int walking;
	/* the memcg LRU (per node): generation, segment, bin, list position */
	int memcg_gen, memcg_seg, memcg_bin;
	int64_t memcg_pos;
	/* mglru+iso-throttle, mglru+scan-balance: folios isolated from here */
	uint64_t nr_isolated[ANON_AND_FILE];
	/* mglru+swappiness sw-boost: the swappiness credit (inferred) */
	uint32_t type_credit;
};

struct mglru {
	unsigned flags;
	struct lru_gen_folio **lrugen;     /* by memcg index */
	int nr_lrugen;
	/* the memcg LRU of the node (pgdat->memcg_lru) */
	uint64_t memcg_lru_seq;
	int memcg_lru_nr[MEMCG_NR_GENS];
	int64_t memcg_lru_head, memcg_lru_tail;
	/* look-around: folios in (address space, page index) order */
	uint64_t *addr_key;
	uint32_t *addr_order, *addr_rank;
	/* lru_gen_refault hands "recent" to folio_add_lru (lru_gen_in_fault) */
	uint32_t refault_pfn;
	int refault_recent;
};

static inline struct mglru *mglru_of(struct engine *e)
{
	return e->policy_data;
}

struct lru_gen_folio *mglru_lruvec_slow(struct engine *e, int memcg);
/* The lruvec state of MEMCG (created on first use; never moves). */
static inline struct lru_gen_folio *mglru_lruvec(struct engine *e, int memcg)
{
	struct mglru *m = mglru_of(e);
	return memcg < m->nr_lrugen ? m->lrugen[memcg] : mglru_lruvec_slow(e, memcg);
}

/* ---- the per-folio encoding (folio.gen_refs: gen+1 << 4 | refs bits) ---- */
static inline int lru_gen_from_seq(uint64_t seq)  { return (int)(seq % MAX_NR_GENS); }
static inline int lru_hist_from_seq(uint64_t seq) { return (int)(seq % NR_HIST_GENS); }
static inline int folio_lru_gen(const struct folio *f) { return (f->gen_refs >> 4) - 1; }
static inline int folio_refs_bits(const struct folio *f) { return f->gen_refs & 3; }

/* order_base_2 of refs: refs 0,1 -> tier 0; 2 -> 1; 3,4 -> 2; workingset -> 3. */
static inline int lru_tier_from_refs(int refs, int workingset)
{
	if (workingset)
		return MAX_NR_TIERS - 1;
	return refs <= 1 ? 0 : refs == 2 ? 1 : 2;
}

/* The accesses through file descriptors: 0 without PG_referenced. */
static inline int folio_lru_refs(const struct folio *f)
{
	if (!(f->flags & PG_referenced))
		return 0;
	return folio_refs_bits(f) + 1;
}

/* ---- shorthand helpers (mm/vmscan.c), shared by the MGLRU files --------- */
/* Is variant switch BIT on for this run? */
static inline int mglru_flag(struct engine *e, unsigned bit)
{
	return (mglru_of(e)->flags & bit) != 0;
}

/* min_type / max_type: the evictable types at this swappiness. */
static inline int min_type(int swappiness) { return !swappiness; }
static inline int max_type(int swappiness) { return swappiness < SWAPPINESS_ANON_ONLY; }
#define for_each_evictable_type(type, swappiness) \
	for ((type) = min_type(swappiness); (type) <= max_type(swappiness); (type)++)

static inline uint64_t evictable_min_seq(const uint64_t *min_seq, int swappiness)
{
	uint64_t a = min_seq[min_type(swappiness)], b = min_seq[max_type(swappiness)];
	return a < b ? a : b;
}

static inline int get_nr_gens(const struct lru_gen_folio *lrugen, int type)
{
	return (int)(lrugen->max_seq - lrugen->min_seq[type] + 1);
}

static inline int lru_gen_is_active(const struct lru_gen_folio *lrugen, int gen)
{
	return gen == lru_gen_from_seq(lrugen->max_seq) ||
	       gen == lru_gen_from_seq(lrugen->max_seq - 1);
}

/* ---- decisions the tests check ------------------------------------------ */
/* The sequence number a folio joins (lru_gen_folio_seq, mm_inline.h). */
uint64_t lru_gen_folio_seq(const struct lru_gen_folio *lrugen, const struct folio *f, int reclaiming);
/* The folio's access count changes as through folio_mark_accessed. */
void lru_gen_inc_refs(struct engine *e, uint32_t pfn);
/* swappiness as reclaim sees it: 0 without swap or may_swap. */
int get_swappiness(struct engine *e, int memcg, const struct scan_control *sc);
int get_type_to_scan(struct engine *e, struct lru_gen_folio *lrugen, int swappiness, int consume);
int get_tier_idx(const struct lru_gen_folio *lrugen, int type);
int should_run_aging(struct engine *e, struct lru_gen_folio *lrugen, uint64_t max_seq,
		     const struct scan_control *sc, int swappiness);
uint64_t lruvec_type_evictable_size(const struct lru_gen_folio *lrugen, int type);
uint64_t lruvec_evictable_size(const struct lru_gen_folio *lrugen, int swappiness);
int try_to_inc_max_seq(struct engine *e, int memcg, uint64_t seq, int swappiness,
		       struct scan_control *sc);
int evict_folios(struct engine *e, uint64_t nr_to_scan, int memcg, struct scan_control *sc,
		 int swappiness);
int try_to_shrink_lruvec(struct engine *e, int memcg, struct scan_control *sc);

/* mglru+iso-throttle: the types evict_folios may isolate from (bit per
 * type); 0 when nothing is evictable or every type stayed over-isolated
 * after one sleep.  *fatal: the task was killed while sleeping. */
unsigned throttle_evictable_types(struct engine *e, int memcg, int swappiness,
				  struct scan_control *sc, int *fatal);
int lru_gen_too_many_isolated(struct engine *e, const struct lru_gen_folio *lrugen, int type,
			      const struct scan_control *sc);
/* mglru+scan-balance: pages of each type to scan at sc->priority. */
void lru_gen_scan_balance(struct engine *e, int memcg, struct scan_control *sc, int swappiness,
			  uint64_t nr[ANON_AND_FILE]);

/* ---- between policy_mglru.c and mglru_variants.c ------------------------ */
/* evict_folios with FORCE_TYPE >= 0 (mglru+scan-balance: that type alone)
 * and *EXHAUSTED (mglru+swappiness sw-exhaustion), either may be -1/NULL. */
int __evict_folios(struct engine *e, uint64_t nr_to_scan, int memcg, struct scan_control *sc,
		   int swappiness, int force_type, int *exhausted);
int should_abort_scan(struct engine *e, const struct scan_control *sc);
void lru_gen_wakeup_flusher(struct engine *e, struct scan_control *sc);
/* mglru+swappiness sw-imbalance: the generations are severely skewed. */
int lru_gen_imbalanced(const struct lru_gen_folio *lrugen, int swappiness);
/* try_to_shrink_lruvec of mglru+scan-balance. */
int try_to_shrink_lruvec_balanced(struct engine *e, int memcg, struct scan_control *sc);

/* The invariants of every lruvec (tests): 0, or -1 with the reason. */
int mglru_check(struct engine *e, char *err, size_t len);

/* ---- the policies ------------------------------------------------------- */
extern const struct reclaim_policy policy_mglru;
extern const struct reclaim_policy policy_mglru_swappiness;
extern const struct reclaim_policy policy_mglru_iso_throttle;
extern const struct reclaim_policy policy_mglru_scan_balance;
extern const struct reclaim_policy policy_mglru_swappiness_iso_throttle;
/* Any "mglru+SWITCH+..." composition, in any order; NULL if a switch is
 * unknown.  The returned policy's name lists the switches canonically. */
const struct reclaim_policy *mglru_policy_find(const char *name);
/* "swappiness iso-throttle ..." for --help. */
extern const char mglru_switches_help[];

#endif
