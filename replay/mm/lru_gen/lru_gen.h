/*
 * lru_gen.h — the multi-gen LRU (CONFIG_LRU_GEN), the code mm/vmscan.c,
 * include/linux/mm_inline.h and mm/workingset.c keep under lru_gen_*:
 * what it keeps per lruvec and per node, the per-folio encoding, and the
 * functions the rest of mm/ calls where the kernel calls them.
 *
 * Baseline: the mm tree of about August 2026 (the reworked reclaim loop).
 * The files of this folder, by concern: generations.c (lists, sizes,
 * where a folio lands), aging.c, eviction.c, pid.c (the PID controller),
 * memcg.c (the memcg LRU and the root-reclaim driver), look_around.c,
 * k612.c (Linux 6.12's reclaim loop, for mglru+k6.12-loop),
 * and the proposed patches iso_throttle.c and scan_balance.c (the
 * swappiness series' rules are conditions where the base decides:
 * variants.h).  Simplifications: replay/DEVIATIONS.md, "MGLRU".
 */
#ifndef LRU_GEN_H
#define LRU_GEN_H

#include "mm/lru_ring.h"
#include "mm/variants.h"
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

/* ---- per-lruvec state (struct lru_gen_folio and friends) ---------------- */
struct lru_gen_folio {
	uint64_t max_seq;
	uint64_t min_seq[ANON_AND_FILE];
	simtime_t timestamps[MAX_NR_GENS];
	/* folios[gen][type] (one zone): rings of page ids (lru_ring.h), the
	 * list number gen * 2 + type; folio.lru holds the list a folio is
	 * physically on, which can lag behind its gen field after lazy
	 * promotion.  nr_listed: the folios physically on each (nr_pages
	 * counts them by their gen fields). */
	struct lru_ring folios[MAX_NR_GENS][ANON_AND_FILE];
	uint32_t nr_listed[MAX_NR_GENS][ANON_AND_FILE];
	int memcg;                         /* whose lruvec this is */
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

/* One rank of the look-around's address order (look_around.c): the
 * page's place in its page table under the table's number, and the page. */
struct lru_gen_addr {
	uint32_t key;
	uint32_t pfn;
};

struct mglru {
	struct lru_gen_folio **lrugen;     /* by memcg index */
	int nr_lrugen;
	/* the memcg LRU of the node (pgdat->memcg_lru) */
	uint64_t memcg_lru_seq;
	int memcg_lru_nr[MEMCG_NR_GENS];
	int64_t memcg_lru_head, memcg_lru_tail;
	/* look-around: folios in (address space, page index) order (the
	 * trace's, shared by its replays: look_around.c) */
	const struct lru_gen_addr *addr_map;
	const uint32_t *addr_rank;
};

static inline struct mglru *mglru_of(struct engine *e)
{
	return e->lru_gen;
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

static inline void folio_set_gen(struct folio *f, int gen)
{
	f->gen_refs = (uint8_t)(((gen + 1) << 4) | (f->gen_refs & 3));
}

/* set_mask_bits(LRU_REFS_FLAGS, 0): the refs bits and PG_referenced. */
static inline void folio_clear_refs_flags(struct folio *f)
{
	f->gen_refs &= 0xf0;
	f->flags &= ~PG_referenced;
}

/* Linux 6.12's tiers (mglru+k6.12-tiers, include/linux/mm_inline.h as
 * 6.12.117 has it): an access through a file descriptor sets PG_referenced,
 * the second PG_workingset, the next ones count up in the refs bits;
 * folio_lru_refs is the refs bits plus PG_workingset (N - 1 of N > 1
 * accesses), lru_tier_from_refs order_base_2(refs + 1): refs 0 -> tier 0,
 * 1 -> 1, 2-3 -> 2, 4 -> 3. */
static inline int folio_lru_refs_612(const struct folio *f)
{
	return folio_refs_bits(f) + !!(f->flags & PG_workingset);
}

static inline int lru_tier_from_refs_612(int refs)
{
	return refs == 0 ? 0 : refs == 1 ? 1 : refs <= 3 ? 2 : 3;
}

/* The folio's tier as the kernel modelled computes it. */
static inline int folio_lru_tier(const struct engine *e, const struct folio *f)
{
	if (patch_k612_tiers(e))
		return lru_tier_from_refs_612(folio_lru_refs_612(f));
	return lru_tier_from_refs(folio_lru_refs(f), !!(f->flags & PG_workingset));
}

/* folio_clear_lru_refs: the refs bits and LRU_REFS_FLAGS, which in 6.12
 * (mglru+k6.12-tiers) hold PG_workingset too. */
static inline void folio_clear_lru_refs(const struct engine *e, struct folio *f)
{
	folio_clear_refs_flags(f);
	if (patch_k612_tiers(e))
		f->flags &= ~PG_workingset;
}

/* ---- where the rest of mm/ enters MGLRU -------------------------------- */
void __lru_gen_add_folio(struct engine *e, uint32_t pfn, int reclaiming);
int __lru_gen_del_folio(struct engine *e, uint32_t pfn, int reclaiming);

/* lru_gen_add_folio: onto its generation's list; 0 without MGLRU. */
static inline int lru_gen_add_folio(struct engine *e, uint32_t pfn, int reclaiming)
{
	if (!lru_gen_enabled(e))
		return 0;
	__lru_gen_add_folio(e, pfn, reclaiming);
	return 1;
}

/* lru_gen_del_folio: off its generation's list; 0 for a folio that has
 * no generation (every folio without MGLRU). */
static inline int lru_gen_del_folio(struct engine *e, uint32_t pfn, int reclaiming)
{
	if (folio_lru_gen(&e->folio[pfn]) < 0)
		return 0;
	return __lru_gen_del_folio(e, pfn, reclaiming);
}

/* lru_gen_in_fault: the current task is in a page fault (memory.c). */
static inline int lru_gen_in_fault(const struct engine *e)
{
	return e->in_lru_fault;
}

/* Set-up: the lruvecs of every memcg, the look-around index.  0 / -1. */
int lru_gen_init(struct engine *e);
void lru_gen_exit(struct engine *e);
/* Root reclaim of the node (shrink_node), cgroup reclaim of one memcg
 * (shrink_lruvec), kswapd's aging (kswapd_age_node). */
void lru_gen_shrink_node(struct engine *e, struct scan_control *sc);
void lru_gen_shrink_lruvec(struct engine *e, int memcg, struct scan_control *sc);
void lru_gen_age_node(struct engine *e, struct scan_control *sc);
/* lru_gen_look_around: PFN's PTE in address space MM was young
 * (folio_referenced). */
void lru_gen_look_around(struct engine *e, uint32_t pfn, struct scan_control *sc, uint32_t mm);
/* The look-around of a folio shrink_folio_list will find young reads
 * its rank, then the keys and page ids around the rank: two cache
 * misses, one after the other, before its scan can start (the folio's
 * own line is in cache from isolation).  shrink_folio_list calls this at
 * its I-th folio of NR in LIST: the rank of the eighth folio ahead is
 * prefetched, and what the fourth ahead's rank points to, so that both
 * arrive while the folios before them are decided (with the second ahead
 * the scan of a look-around still waited on its ranks' lines); then the
 * second ahead's neighbours' folios, from those lines, as they have
 * arrived (prefetched by the look-around itself just before its scan,
 * they were most of its time).  The look-around still prefetches its own
 * exact range: without that it was slower.  Not a kernel mechanism: the
 * kernel's look-around reads one page table. */
#define LOOK_AROUND_PREFETCH 8
/* Whether shrink_folio_list will look around folio F: mapped with a
 * young PTE (folio_referenced finds it and calls lru_gen_look_around). */
static inline int lru_gen_looks_around(const struct folio *f)
{
	return (f->flags & (PG_mapped | PG_young)) == (PG_mapped | PG_young);
}
/* The ranks a look-around from RANK can reach: [*LO, *HI). */
static inline void lru_gen_look_around_ranks(const struct engine *e, uint32_t rank, uint32_t *lo, uint32_t *hi)
{
	*lo = rank > MIN_LRU_BATCH / 2 ? rank - MIN_LRU_BATCH / 2 : 0;
	*hi = rank + MIN_LRU_BATCH / 2 < e->nr_folios ? rank + MIN_LRU_BATCH / 2 : (uint32_t)e->nr_folios;
}
/* The rank of a folio isolated for shrink_folio_list, prefetched as it is
 * isolated when it will be looked around: prefetched only at
 * shrink_folio_list's LOOK_AROUND_PREFETCH-th folio ahead, it came too
 * late, its load a fifth of that loop's time on the bench's Zipf stream. */
static inline __attribute__((always_inline)) void lru_gen_look_around_prefetch_rank(struct engine *e,
										     uint32_t pfn)
{
	if (lru_gen_looks_around(&e->folio[pfn]))
		__builtin_prefetch(&mglru_of(e)->addr_rank[pfn]);
}
static inline __attribute__((always_inline)) void
lru_gen_look_around_prefetch(struct engine *e, const uint32_t *list, uint32_t i, uint32_t nr)
{
	const struct mglru *m = mglru_of(e);
	uint32_t lo, hi;
	if (i + LOOK_AROUND_PREFETCH < nr)
		lru_gen_look_around_prefetch_rank(e, list[i + LOOK_AROUND_PREFETCH]);
	/* the folios of the second ahead's ranks */
	if (i + LOOK_AROUND_PREFETCH / 4 < nr) {
		uint32_t pfn = list[i + LOOK_AROUND_PREFETCH / 4];
		if (lru_gen_looks_around(&e->folio[pfn])) {
			lru_gen_look_around_ranks(e, m->addr_rank[pfn], &lo, &hi);
			for (uint32_t r = lo; r < hi; r++)
				prefetch_folio(&e->folio[m->addr_map[r].pfn]);
		}
	}
	/* every line of the fourth ahead's ranks: the two ends and the
	 * middle alone left the scan waiting on the others */
	if (i + LOOK_AROUND_PREFETCH / 2 < nr) {
		uint32_t pfn = list[i + LOOK_AROUND_PREFETCH / 2];
		if (!lru_gen_looks_around(&e->folio[pfn]))
			return;
		lru_gen_look_around_ranks(e, m->addr_rank[pfn], &lo, &hi);
		for (const char *p = (const char *)&m->addr_map[lo]; p < (const char *)&m->addr_map[hi]; p += 64)
			__builtin_prefetch(p);
		__builtin_prefetch(&m->addr_map[hi - 1]);
	}
}

/* lru_gen_set_refs: a young PTE seen by eviction: 1 if it promotes. */
int lru_gen_set_refs(struct folio *f);

/* ---- shorthand helpers (mm/vmscan.c), shared by the MGLRU files --------- */
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
/* The same as Linux 6.12's lru_gen_add_folio places it (mglru+k6.12-gens). */
uint64_t lru_gen_folio_seq_612(const struct lru_gen_folio *lrugen, const struct folio *f,
			       int reclaiming);
/* The folio's access count changes as through folio_mark_accessed. */
void lru_gen_inc_refs(struct engine *e, uint32_t pfn);
/* swappiness as reclaim sees it: 0 without swap or may_swap. */
int get_swappiness(struct engine *e, int memcg, const struct scan_control *sc);
int get_type_to_scan(struct engine *e, struct lru_gen_folio *lrugen, int swappiness, int consume);
int get_tier_idx(const struct lru_gen_folio *lrugen, int type);
/* Linux 6.12's readings of the two (mglru+k6.12-types, pid.c). */
int get_tier_idx_612(const struct lru_gen_folio *lrugen, int type);
int get_type_to_scan_612(const struct lru_gen_folio *lrugen, int swappiness, int *tier_idx);
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

/* ---- between the files of lru_gen/ ----------------------------------------- */
#define MEMCG_LRU_HEAD  1               /* lru_gen_rotate_memcg's ops */
#define MEMCG_LRU_TAIL  2
#define MEMCG_LRU_OLD   3
#define MEMCG_LRU_YOUNG 4
/* The folio at the tail (gen_list_last) or the head (gen_list_first) of
 * folios[gen][type], NIL when it is empty; it stays on the list. */
static inline uint32_t gen_list_last(struct engine *e, struct lru_gen_folio *lrugen, int gen, int type)
{
	return lru_ring_last(e, &lrugen->folios[gen][type], lrugen->memcg, (unsigned)(gen * 2 + type));
}

static inline uint32_t gen_list_first(struct engine *e, struct lru_gen_folio *lrugen, int gen, int type)
{
	return lru_ring_first(e, &lrugen->folios[gen][type], lrugen->memcg, (unsigned)(gen * 2 + type));
}

void gen_list_add(struct engine *e, struct lru_gen_folio *lrugen, uint32_t pfn, int gen, int type,
		  int tail);
void gen_list_del(struct engine *e, struct lru_gen_folio *lrugen, uint32_t pfn);
void gen_list_move(struct engine *e, struct lru_gen_folio *lrugen, uint32_t pfn, int gen, int type,
		   int tail);
void lru_gen_update_size(struct engine *e, int memcg, struct lru_gen_folio *lrugen,
			 const struct folio *f, int old_gen, int new_gen);
int folio_update_gen(struct folio *f, int gen);
int folio_update_gen_612(struct folio *f, int gen);
int folio_inc_gen(struct engine *e, int memcg, struct lru_gen_folio *lrugen, uint32_t pfn,
		  int reclaiming);
int try_to_inc_min_seq(const struct engine *e, struct lru_gen_folio *lrugen, int swappiness);
/* inc_min_seq's protected tier by INC_MIN_SEQ_TIER_KEY (aging.c):
 * PG_referenced, PG_workingset and the refs bits; MAX_NR_TIERS: not
 * counted. */
#define INC_MIN_SEQ_TIER_KEY(flags, gen_refs) ((((flags) >> 2) & 3u) | (((gen_refs) & 3u) << 2))
_Static_assert(PG_referenced == 1u << 2 && PG_workingset == 1u << 3, "INC_MIN_SEQ_TIER_KEY's bits");
extern const uint8_t inc_min_seq_tier[16];
void reset_ctrl_pos(struct lru_gen_folio *lrugen, int type, int carryover);
void lru_gen_rotate_memcg(struct engine *e, int memcg, int op);
void lru_gen_online_memcg(struct engine *e, struct lru_gen_folio *lrugen);
/* Points M at the trace's look-around order, built on first use. */
int mglru_build_addr_order(struct engine *e, struct mglru *m);
/* set_initial_priority: root reclaim's starting priority (memcg.c). */
void set_initial_priority(struct engine *e, struct scan_control *sc);
/* evict_folios with FORCE_TYPE >= 0 (mglru+scan-balance: that type alone)
 * and *EXHAUSTED (mglru+swappiness sw-exhaustion), either may be -1/NULL. */
int __evict_folios(struct engine *e, uint64_t nr_to_scan, int memcg, struct scan_control *sc,
		   int swappiness, int force_type, int *exhausted);
int should_abort_scan(struct engine *e, const struct scan_control *sc);
void lru_gen_wakeup_flusher(struct engine *e, struct scan_control *sc);
/* mglru+swappiness sw-imbalance: the generations are severely skewed. */
int lru_gen_imbalanced(const struct engine *e, const struct lru_gen_folio *lrugen, int swappiness);
/* The evictable pages, and those of the youngest and of the oldest of
 * MIN_NR_GENS + 1 generations (aging.c). */
void lru_gen_spread(const struct lru_gen_folio *lrugen, int swappiness, uint64_t *total,
		    uint64_t *young, uint64_t *old);
/* try_to_shrink_lruvec of mglru+scan-balance. */
int try_to_shrink_lruvec_balanced(struct engine *e, int memcg, struct scan_control *sc);
/* try_to_shrink_lruvec of mglru+k6.12-loop (k612.c). */
int try_to_shrink_lruvec_612(struct engine *e, int memcg, struct scan_control *sc);

/* The invariants of every lruvec (tests): 0, or -1 with the reason. */
int mglru_check(struct engine *e, char *err, size_t len);

/* Build with -DMGLRU_DEBUG to check every invariant after each eviction
 * and aging step (slow). */
#ifdef MGLRU_DEBUG
#include <stdio.h>
#include <stdlib.h>
#define MGLRU_DEBUG_CHECK(e, where) do { \
	char _err[256]; \
	if (mglru_check((e), _err, sizeof(_err)) != 0) { \
		fprintf(stderr, "mglru_check after %s at %llu: %s\n", (where), \
			(unsigned long long)(e)->sim.now, _err); \
		abort(); \
	} \
} while (0)
#else
#define MGLRU_DEBUG_CHECK(e, where) do { } while (0)
#endif

#endif
