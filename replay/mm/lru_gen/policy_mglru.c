/*
 * policy_mglru.c — the multi-gen LRU (mm/vmscan.c with CONFIG_LRU_GEN, the
 * lru_gen parts of include/linux/mm_inline.h, mm/swap.c and
 * mm/workingset.c), and its proposed variants as switches.
 *
 * Baseline: reclaim-model.md §5.2, §6, §8, §9, with the mm tree of about
 * August 2026 where variants.md §0 says it differs: the reclaim loop
 * computes its scan number once per lruvec visit (get_nr_to_scan) and
 * try_to_shrink_lruvec ages and evicts in MIN_LRU_BATCH steps;
 * isolate_folios falls back to the other type only at priority 0;
 * should_run_aging skips aging at DEF_PRIORITY unless nothing can be
 * evicted; should_abort_scan has no root-reclaim test; inc_min_seq moves at
 * most MAX_LRU_BATCH folios per call and skips the move (not the advance)
 * for a type swappiness makes unevictable.
 *
 * Every function has the kernel's name and shape.  What a single-node,
 * order-0 replay leaves out is said next to the code and in
 * DEVIATIONS.md ("MGLRU").  Rules of the variants that are inferred from a
 * cover letter rather than read from a patch say "inferred".
 */
#include "policy_mglru.h"
#include "mm/mm_inline.h"
#include "mm/policy.h"
#include "mm/vmscan.h"
#include "mm/workingset.h"

#include <stdlib.h>
#include <string.h>

/* CPU time of the page-table walk per PTE it visits.  Not from the kernel:
 * a calibrated order of magnitude like struct reclaim_costs (DEVIATIONS.md). */
#define MGLRU_WALK_NS_PER_PTE 10
/* CPU time of one evict_folios call besides its folios: the lruvec lock
 * round trips, try_to_inc_min_seq, the PID reads.  Calibrated magnitude;
 * it also keeps a pass that finds nothing from taking no time at all. */
#define MGLRU_EVICT_CALL_NS 1000

/* The look-around's address keys: mapping id << 40 | page index. */
#define ADDR_INDEX_BITS 40
#define ADDR_INDEX_MASK ((1ull << ADDR_INDEX_BITS) - 1)

/* The shadow's token is 32 bits here (EVICTION_MASK in workingset.c). */
#define EVICTION_MASK 0xffffffffull

enum { MEMCG_LRU_NOP, MEMCG_LRU_HEAD, MEMCG_LRU_TAIL, MEMCG_LRU_OLD, MEMCG_LRU_YOUNG };

/* Build with -DMGLRU_DEBUG to check every invariant after each eviction
 * and aging step (slow). */
#ifdef MGLRU_DEBUG
#include <stdio.h>
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

static inline int fls_long(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* ---- per-lruvec state ---------------------------------------------------------- */

static void lru_gen_rotate_memcg(struct engine *e, int memcg, int op);

/* lru_gen_init_lruvec */
static void lru_gen_init_lruvec(struct lru_gen_folio *lrugen, simtime_t now)
{
	memset(lrugen, 0, sizeof(*lrugen));
	lrugen->max_seq = MIN_NR_GENS + 1;
	for (unsigned gen = 0; gen < MAX_NR_GENS; gen++) {
		lrugen->timestamps[gen] = now;
		for (int type = 0; type < ANON_AND_FILE; type++)
			lrugen->head[gen][type] = lrugen->tail[gen][type] = NIL;
	}
	lrugen->mm_state_seq = MIN_NR_GENS;
}

/* lru_gen_online_memcg: a new memcg joins the tail of a random bin of the
 * old generation of the node's memcg LRU. */
static void lru_gen_online_memcg(struct engine *e, struct lru_gen_folio *lrugen)
{
	struct mglru *m = mglru_of(e);
	int gen = (int)(m->memcg_lru_seq % MEMCG_NR_GENS);
	lrugen->memcg_gen = gen;
	lrugen->memcg_bin = (int)engine_rand(e, MEMCG_NR_BINS);
	lrugen->memcg_seg = 0;
	lrugen->memcg_pos = ++m->memcg_lru_tail;
	m->memcg_lru_nr[gen]++;
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
		lru_gen_init_lruvec(lv, e->sim.now);
		m->lrugen[m->nr_lrugen++] = lv;
		lru_gen_online_memcg(e, lv);
	}
	return m->lrugen[memcg];
}

/* ---- the generation lists (folios[gen][type]) ------------------------------- */

static void gen_list_add(struct engine *e, struct lru_gen_folio *lrugen, uint32_t pfn, int gen,
			 int type, int tail)
{
	struct folio *f = &e->folio[pfn];
	uint32_t *head = &lrugen->head[gen][type], *tl = &lrugen->tail[gen][type];
	f->lru = (uint8_t)(gen * 2 + type);
	if (tail) {
		f->next = NIL;
		f->prev = *tl;
		if (*tl != NIL)
			e->folio[*tl].next = pfn;
		else
			*head = pfn;
		*tl = pfn;
	} else {
		f->prev = NIL;
		f->next = *head;
		if (*head != NIL)
			e->folio[*head].prev = pfn;
		else
			*tl = pfn;
		*head = pfn;
	}
}

static void gen_list_del(struct engine *e, struct lru_gen_folio *lrugen, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	int gen = f->lru >> 1, type = f->lru & 1;
	if (f->prev != NIL)
		e->folio[f->prev].next = f->next;
	else
		lrugen->head[gen][type] = f->next;
	if (f->next != NIL)
		e->folio[f->next].prev = f->prev;
	else
		lrugen->tail[gen][type] = f->prev;
}

/* list_move / list_move_tail to folios[gen][type]. */
static void gen_list_move(struct engine *e, struct lru_gen_folio *lrugen, uint32_t pfn, int gen,
			  int type, int tail)
{
	gen_list_del(e, lrugen, pfn);
	gen_list_add(e, lrugen, pfn, gen, type, tail);
}

/* lru_gen_update_size: nr_pages per generation, and the active/inactive
 * LRU sizes the rest of mm/ reads (the two youngest generations count as
 * active), so lruvec_page_state works for shared code. */
static void lru_gen_update_size(struct engine *e, int memcg, struct lru_gen_folio *lrugen,
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

/* lru_gen_add_folio: at the head of its generation (at the tail when
 * reclaiming: next in line); PG_active is consumed. */
static void lru_gen_add_folio(struct engine *e, uint32_t pfn, int reclaiming)
{
	struct folio *f = &e->folio[pfn];
	int memcg = f->memcg;
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int type = folio_is_file_lru(f);
	int gen = lru_gen_from_seq(lru_gen_folio_seq(lrugen, f, reclaiming));

	folio_set_gen(f, gen);
	f->flags &= ~PG_active;
	lru_gen_update_size(e, memcg, lrugen, f, -1, gen);
	gen_list_add(e, lrugen, pfn, gen, type, reclaiming);
	f->flags |= PG_lru;
}

/* lru_gen_del_folio: off its list; outside reclaim, a folio of an active
 * generation keeps that as PG_active (for folio_migrate_flags). */
static int lru_gen_del_folio(struct engine *e, uint32_t pfn, int reclaiming)
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

/* ---- mm/swap.c ---------------------------------------------------------------- */

/* folio_add_lru: with MGLRU a folio added inside a page fault (with
 * recency; the trace's LOAD/STORE faults, not read()) gets PG_active, so it
 * lands in max_seq - 1, or max_seq when its refault restored the
 * workingset.  A refault found recent in a fault counts
 * workingset_activate here, where "in a fault" is known. */
static void mglru_folio_add_lru(struct engine *e, uint32_t pfn)
{
	struct mglru *m = mglru_of(e);
	struct folio *f = &e->folio[pfn];
	int in_fault = !!(f->flags & PG_mapped);        /* lru_gen_in_fault() */

	if (m->refault_pfn == pfn) {
		if (m->refault_recent && in_fault)
			count_vm_events(e, folio_is_file_lru(f) ? VM_workingset_activate_file :
								  VM_workingset_activate_anon, 1);
		m->refault_pfn = NIL;
	}
	if (in_fault)
		f->flags |= PG_active;
	lru_gen_add_folio(e, pfn, 0);
}

/* lru_gen_inc_refs (folio_mark_accessed with MGLRU): accesses through file
 * descriptors count up in PG_referenced + the refs bits; the fifth sets
 * PG_workingset.  Nothing moves; no PGACTIVATE.  As in kernels after 6.17
 * the folio need not be on the LRU. */
void lru_gen_inc_refs(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
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

static void mglru_folio_mark_accessed(struct engine *e, uint32_t pfn)
{
	lru_gen_inc_refs(e, pfn);
}

/* The owner released the folio (release_pages): off the LRU. */
static void mglru_folio_del_lru(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (f->flags & PG_lru)
		lru_gen_del_folio(e, pfn, 0);
	f->gen_refs = 0;
}

/* folio_rotate_reclaimable -> lru_move_tail: writeback of a folio reclaim
 * wanted has ended; it goes to the tail of the oldest generation. */
static void mglru_folio_rotate_reclaimable(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if ((f->flags & PG_dirty) || !(f->flags & PG_lru))
		return;
	lru_gen_del_folio(e, pfn, 0);
	f->flags &= ~PG_active;
	lru_gen_add_folio(e, pfn, 1);
	count_vm_events(e, VM_pgrotated, 1);
}

/* folio_activate -> lru_activate: re-add with PG_active (look-around
 * promotion without a walk context): max_seq with workingset. */
static void folio_activate(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if ((f->flags & PG_active) || !(f->flags & PG_lru))
		return;
	lru_gen_del_folio(e, pfn, 0);
	f->flags |= PG_active;
	lru_gen_add_folio(e, pfn, 0);
	count_vm_events(e, VM_pgactivate, 1);
}

/* move_folios_to_lru for MGLRU: survivors back through lru_gen_add_folio
 * (PG_active is consumed there, so nonresident_age does not move). */
static void lru_gen_putback(struct engine *e, const uint32_t *list, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t pfn = list[i];
		struct folio *f = &e->folio[pfn];
		f->flags &= ~PG_isolated;
		if (f->flags & PG_freed) {
			f->flags &= ~PG_freed;
			f->gen_refs = 0;
			engine_free_folio(e, pfn);
			continue;
		}
		lru_gen_add_folio(e, pfn, 0);
	}
}

/* ---- mm/workingset.c ------------------------------------------------------------ */

/* lru_gen_eviction: the shadow names the folio's own lruvec (not the
 * reclaim target), the oldest generation of its type and its fd access
 * count; the eviction feeds the PID controller. */
static void lru_gen_eviction(struct engine *e, uint32_t pfn, int target_memcg)
{
	struct folio *f = &e->folio[pfn];
	struct lru_gen_folio *lrugen = mglru_lruvec(e, f->memcg);
	int type = folio_is_file_lru(f);
	int refs = folio_lru_refs(f);
	int ws = !!(f->flags & PG_workingset);
	int tier = lru_tier_from_refs(refs, ws);
	uint64_t min_seq = lrugen->min_seq[type];
	(void)target_memcg;

	uint64_t token = (min_seq << LRU_REFS_WIDTH) | (uint64_t)(refs > 1 ? refs - 1 : 0);
	lrugen->evicted[lru_hist_from_seq(min_seq)][type][tier]++;
	f->shadow = (uint32_t)(token & EVICTION_MASK);
	f->shadow_memcg = f->memcg;
	f->flags |= PG_shadow;
	if (ws)
		f->flags |= PG_shadow_ws;
	else
		f->flags &= ~PG_shadow_ws;
	f->gen_refs = 0;
}

/* lru_gen_test_recent: within MAX_NR_GENS of the evicting lruvec's max_seq. */
static int lru_gen_test_recent(const struct lru_gen_folio *lrugen, uint32_t token)
{
	uint64_t max_seq = lrugen->max_seq & (EVICTION_MASK >> LRU_REFS_WIDTH);
	uint64_t seq = token >> LRU_REFS_WIDTH;
	uint64_t d = max_seq > seq ? max_seq - seq : seq - max_seq;
	return d < MAX_NR_GENS;
}

/* lru_gen_refault: only a refault into the lruvec that evicted it counts;
 * a recent one feeds the PID controller and restores PG_workingset. */
static void lru_gen_refault(struct engine *e, uint32_t pfn)
{
	struct mglru *m = mglru_of(e);
	struct folio *f = &e->folio[pfn];
	int type = folio_is_file_lru(f);

	f->gen_refs = 0;             /* a new folio: no gen, no refs */
	if (!(f->flags & PG_shadow))
		return;
	f->flags &= ~PG_shadow;
	if (f->shadow_memcg != f->memcg)
		return;
	struct lru_gen_folio *lrugen = mglru_lruvec(e, f->shadow_memcg);
	int recent = lru_gen_test_recent(lrugen, f->shadow);
	int ws = !!(f->flags & PG_shadow_ws);

	count_vm_events(e, type ? VM_workingset_refault_file : VM_workingset_refault_anon, 1);
	if (!recent)
		return;
	int refs = (int)(f->shadow & ((1u << LRU_REFS_WIDTH) - 1)) + 1;
	int tier = lru_tier_from_refs(refs, ws);
	lrugen->refaulted[lru_hist_from_seq(lrugen->min_seq[type])][type][tier]++;
	/* workingset_activate: "if in a page fault" — folio_add_lru decides. */
	m->refault_pfn = pfn;
	m->refault_recent = 1;
	if (ws) {
		f->flags |= PG_workingset;
		count_vm_events(e, type ? VM_workingset_restore_file : VM_workingset_restore_anon, 1);
	} else {
		/* The refs bits without PG_referenced: inert (reclaim-model §5.2). */
		f->gen_refs = (uint8_t)((f->gen_refs & 0xf0) | (refs - 1));
	}
}

/* ---- the PID controller --------------------------------------------------------- */

struct ctrl_pos {
	uint64_t refaulted, total;
	uint64_t gain;
};

static void read_ctrl_pos(const struct lru_gen_folio *lrugen, int type, int tier, uint64_t gain,
			  struct ctrl_pos *pos)
{
	int hist = lru_hist_from_seq(lrugen->min_seq[type]);
	int last = tier < (int)MAX_NR_TIERS - 1 ? tier : (int)MAX_NR_TIERS - 1;
	pos->gain = gain;
	pos->refaulted = pos->total = 0;
	for (int i = tier % MAX_NR_TIERS; i <= last; i++) {
		pos->refaulted += lrugen->avg_refaulted[type][i] + lrugen->refaulted[hist][type][i];
		pos->total += lrugen->avg_total[type][i] + lrugen->protected[hist][type][i] +
			      lrugen->evicted[hist][type][i];
	}
}

/* reset_ctrl_pos: with carryover (min_seq advanced) the current window is
 * folded into the moving averages (factor 1/2) and cleared. */
static void reset_ctrl_pos(struct lru_gen_folio *lrugen, int type, int carryover)
{
	int clear = carryover ? NR_HIST_GENS == 1 : NR_HIST_GENS > 1;
	uint64_t seq = carryover ? lrugen->min_seq[type] : lrugen->max_seq + 1;
	if (!carryover && !clear)
		return;
	int hist = lru_hist_from_seq(seq);
	for (unsigned tier = 0; tier < MAX_NR_TIERS; tier++) {
		if (carryover) {
			lrugen->avg_refaulted[type][tier] =
				(lrugen->avg_refaulted[type][tier] + lrugen->refaulted[hist][type][tier]) / 2;
			lrugen->avg_total[type][tier] =
				(lrugen->avg_total[type][tier] + lrugen->protected[hist][type][tier] +
				 lrugen->evicted[hist][type][tier]) / 2;
		}
		if (clear) {
			lrugen->refaulted[hist][type][tier] = 0;
			lrugen->evicted[hist][type][tier] = 0;
			lrugen->protected[hist][type][tier] = 0;
		}
	}
}

/* positive_ctrl_err: the PV has few refaults, or a lower refaulted/total
 * than the SP (each weighted by its gain). */
static int positive_ctrl_err(const struct ctrl_pos *sp, const struct ctrl_pos *pv)
{
	return pv->refaulted < MIN_LRU_BATCH ||
	       pv->refaulted * (sp->total + MIN_LRU_BATCH) * sp->gain <=
	       (sp->refaulted + 1) * pv->total * pv->gain;
}

/* get_tier_idx: tiers are evicted like tier 0 until one refaults more than
 * 3:2 of tier 0; that tier and the ones above are protected. */
int get_tier_idx(const struct lru_gen_folio *lrugen, int type)
{
	struct ctrl_pos sp, pv;
	unsigned tier;
	read_ctrl_pos(lrugen, type, 0, 2, &sp);
	for (tier = 1; tier < MAX_NR_TIERS; tier++) {
		read_ctrl_pos(lrugen, type, (int)tier, 3, &pv);
		if (!positive_ctrl_err(&sp, &pv))
			break;
	}
	return (int)tier - 1;
}

/* get_type_to_scan: file at swappiness 0-1, anon at 200; otherwise compare
 * the all-tier refault rates, anon with gain swappiness, file with
 * 200 - swappiness.  Fewer than MIN_LRU_BATCH file refaults pick file.
 *
 * mglru+swappiness (inferred):
 *  sw-boost       while both types' refaults are sparse (< MIN_LRU_BATCH)
 *                 a credit picks anon in swappiness/200 of the decisions
 *                 (CONSUME == 0 peeks without spending it);
 *  sw-boost-gain  the gains are squared (swappiness^2 vs (200-sw)^2): a
 *                 stronger than linear gain, the alternative mode. */
int get_type_to_scan(struct engine *e, struct lru_gen_folio *lrugen, int swappiness, int consume)
{
	struct ctrl_pos sp, pv;
	if (swappiness <= MIN_SWAPPINESS + 1)
		return LRU_GEN_FILE;
	if (swappiness >= MAX_SWAPPINESS)
		return LRU_GEN_ANON;
	uint64_t ga = (uint64_t)swappiness, gf = (uint64_t)(MAX_SWAPPINESS - swappiness);
	if (mglru_flag(e, MGLRU_SW_BOOST_GAIN)) {
		ga *= ga;
		gf *= gf;
	}
	read_ctrl_pos(lrugen, LRU_GEN_ANON, MAX_NR_TIERS, ga, &sp);
	read_ctrl_pos(lrugen, LRU_GEN_FILE, MAX_NR_TIERS, gf, &pv);
	if (mglru_flag(e, MGLRU_SW_BOOST) && sp.refaulted < MIN_LRU_BATCH &&
	    pv.refaulted < MIN_LRU_BATCH) {
		uint32_t credit = lrugen->type_credit + (uint32_t)swappiness;
		int anon = credit >= MAX_SWAPPINESS;
		if (consume)
			lrugen->type_credit = anon ? credit - MAX_SWAPPINESS : credit;
		return anon ? LRU_GEN_ANON : LRU_GEN_FILE;
	}
	return positive_ctrl_err(&sp, &pv);
}

/* ---- the aging ------------------------------------------------------------------------ */

/* folio_update_gen: an accessed bit found by the aging walk (or by
 * look-around with a walk context).  First sighting marks PG_referenced;
 * the next promotes to GEN in place (lazily: the folio stays on its list
 * until sort_folio) with PG_workingset.  Returns the old gen, or -1. */
static int folio_update_gen(struct folio *f, int gen)
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

/* folio_inc_gen: protect a folio of the oldest generation into the next
 * (unless aging already promoted it); clears LRU_REFS_FLAGS. */
static int folio_inc_gen(struct engine *e, int memcg, struct lru_gen_folio *lrugen, uint32_t pfn,
			 int reclaiming)
{
	struct folio *f = &e->folio[pfn];
	int type = folio_is_file_lru(f);
	int old_gen = lru_gen_from_seq(lrugen->min_seq[type]);
	int new_gen = folio_lru_gen(f);

	if (new_gen >= 0 && new_gen != old_gen)
		return new_gen;     /* folio_update_gen() has promoted it */
	new_gen = (old_gen + 1) % (int)MAX_NR_GENS;
	folio_clear_refs_flags(f);
	folio_set_gen(f, new_gen);
	if (reclaiming)
		f->flags |= PG_reclaim;
	lru_gen_update_size(e, memcg, lrugen, f, old_gen, new_gen);
	return new_gen;
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
 * already promoted as protected.  sw-batched: MIN_LRU_BATCH per call. */
static int inc_min_seq(struct engine *e, int memcg, struct lru_gen_folio *lrugen, int type,
		       int swappiness, uint64_t *moved)
{
	int no_inversion = mglru_flag(e, MGLRU_SW_NO_INVERSION);
	unsigned remaining = mglru_flag(e, MGLRU_SW_BATCHED) ? MIN_LRU_BATCH : MAX_LRU_BATCH;
	int hist = lru_hist_from_seq(lrugen->min_seq[type]);
	int old_gen = lru_gen_from_seq(lrugen->min_seq[type]);

	if (!no_inversion) {
		if (type && swappiness == SWAPPINESS_ANON_ONLY)
			goto done;
		if (!type && !swappiness)
			goto done;
	}
	for (;;) {
		uint32_t pfn = no_inversion ? lrugen->head[old_gen][type] : lrugen->tail[old_gen][type];
		if (pfn == NIL)
			break;
		struct folio *f = &e->folio[pfn];
		int refs = folio_lru_refs(f);
		int ws = !!(f->flags & PG_workingset);
		int promoted = folio_lru_gen(f) != old_gen;
		int new_gen = folio_inc_gen(e, memcg, lrugen, pfn, 0);
		gen_list_move(e, lrugen, pfn, new_gen, type, 1);
		(*moved)++;
		/* don't count the workingset being lazily promoted */
		if (refs + ws != (1 << LRU_REFS_WIDTH) + 1 && !(no_inversion && promoted))
			lrugen->protected[hist][type][lru_tier_from_refs(refs, ws)]++;
		if (!--remaining)
			return 0;
	}
done:
	reset_ctrl_pos(lrugen, type, 1);
	lrugen->min_seq[type]++;
	return 1;
}

/* try_to_inc_min_seq: skip empty oldest generations; keep the two types
 * within one generation of each other when both are evictable. */
static int try_to_inc_min_seq(struct lru_gen_folio *lrugen, int swappiness)
{
	int type, success = 0, seq_inc = 0;
	uint64_t min_seq[ANON_AND_FILE] = { lrugen->min_seq[0], lrugen->min_seq[1] };

	for_each_evictable_type(type, swappiness) {
		while (min_seq[type] + MIN_NR_GENS <= lrugen->max_seq) {
			int gen = lru_gen_from_seq(min_seq[type]);
			if (lrugen->head[gen][type] != NIL)
				break;
			min_seq[type]++;
			seq_inc = 1;
		}
	}
	if (!seq_inc)
		return 0;
	if (swappiness && swappiness <= MAX_SWAPPINESS) {
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
		reclaim_spend(e, moved * e->cost.isolate_per_page);
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
	reclaim_spend(e, moved * e->cost.isolate_per_page);
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
	int old_gen = folio_update_gen(f, new_gen);
	if (old_gen >= 0 && old_gen != new_gen)
		lru_gen_update_size(e, memcg, lrugen, f, old_gen, new_gen);
}

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
	 * id order, sequentially, a small one along its lists. */
	if (listed * 16 >= e->nr_folios) {
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
			for (uint32_t pfn = lrugen->head[gen][type]; pfn != NIL; pfn = e->folio[pfn].next) {
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
	if (sc)
		sc->lru_gen_mm_walk = 1;
	if (lrugen->walking && lrugen->walk_seq == seq) {
		lrugen->mm_state_seq = seq;
		return inc_max_seq(e, memcg, seq, swappiness);
	}
	lrugen->walking = 1;
	lrugen->walk_seq = seq;
	uint64_t visited = walk_mm(e, memcg, lrugen, swappiness);
	reclaim_spend(e, visited * MGLRU_WALK_NS_PER_PTE);
	if (lrugen->walk_seq == seq)
		lrugen->walking = 0;
	if (seq <= lrugen->mm_state_seq)
		return 0;
	lrugen->mm_state_seq = seq;
	return inc_max_seq(e, memcg, seq, swappiness);
}

/* ---- rmap/PT walk feedback ---------------------------------------------------------- */

/* lru_gen_set_refs: a young PTE found on the rmap walk of eviction: the
 * first sighting marks PG_referenced (KEEP), a second promotes (ACTIVATE
 * with PG_workingset: back into max_seq). */
static int lru_gen_set_refs(struct folio *f)
{
	if (!(f->flags & (PG_referenced | PG_workingset))) {
		f->gen_refs &= 0xf0;
		f->flags |= PG_referenced;
		return 0;
	}
	folio_clear_refs_flags(f);
	f->flags |= PG_workingset;
	return 1;
}

/* walk_update_folio for look-around: with a walk context folio_update_gen
 * (lazy), without lru_gen_set_refs and folio_activate. */
static void walk_update_folio(struct engine *e, uint32_t pfn, int walk, int new_gen)
{
	struct folio *f = &e->folio[pfn];
	if (walk) {
		int old_gen = folio_update_gen(f, new_gen);
		if (old_gen >= 0 && old_gen != new_gen)
			lru_gen_update_size(e, f->memcg, mglru_lruvec(e, f->memcg), f, old_gen, new_gen);
	} else if (lru_gen_set_refs(f)) {
		int old_gen = folio_lru_gen(f);
		if (old_gen >= 0 && old_gen != new_gen)
			folio_activate(e, pfn);
	}
}

/* lru_gen_look_around: the PTE of PFN was young; scan the PTEs around it
 * in the same page table (a 2 MiB-aligned range of the address space,
 * clamped to MIN_LRU_BATCH pages around it) and treat every other young
 * folio of the same memcg as the aging walk would.  Neighbours are the
 * trace's pages of the same address space (anon: pid and virtual page
 * number; file: inode and page offset, mapped by the same process) —
 * VMA boundaries and the Bloom filter feedback are not modelled. */
static void lru_gen_look_around(struct engine *e, uint32_t pfn, struct scan_control *sc)
{
	struct mglru *m = mglru_of(e);
	const struct folio *f = &e->folio[pfn];
	uint32_t rank = m->addr_rank[pfn];
	uint64_t mapping = m->addr_key[rank] >> ADDR_INDEX_BITS;
	uint64_t addr = m->addr_key[rank] & ADDR_INDEX_MASK;
	uint64_t start = addr & ~511ull, end = (addr | 511ull) + 1;
	if (end - start > MIN_LRU_BATCH) {
		if (addr - start < MIN_LRU_BATCH / 2)
			end = start + MIN_LRU_BATCH;
		else if (end - addr < MIN_LRU_BATCH / 2)
			start = end - MIN_LRU_BATCH;
		else {
			start = addr - MIN_LRU_BATCH / 2;
			end = addr + MIN_LRU_BATCH / 2;
		}
	}
	int gen = lru_gen_from_seq(mglru_lruvec(e, f->memcg)->max_seq);
	int walk = sc->lru_gen_mm_walk;
	for (int dir = -1; dir <= 1; dir += 2) {
		for (uint32_t r = rank;;) {
			if (dir < 0 ? r == 0 : r + 1 >= e->nr_folios)
				break;
			r += (uint32_t)dir;
			uint64_t key = m->addr_key[r];
			if ((key >> ADDR_INDEX_BITS) != mapping || (key & ADDR_INDEX_MASK) < start ||
			    (key & ADDR_INDEX_MASK) >= end)
				break;
			uint32_t n = m->addr_order[r];
			struct folio *nf = &e->folio[n];
			/* get_pte_pfn: present and young; get_pfn_folio: on the
			 * lrugen lists of the same memcg (and here: the same mm) */
			if ((nf->flags & (PG_resident | PG_mapped | PG_young)) !=
			    (PG_resident | PG_mapped | PG_young))
				continue;
			if (folio_lru_gen(nf) < 0 || nf->memcg != f->memcg || nf->owner != f->owner)
				continue;
			nf->flags &= ~PG_young;
			walk_update_folio(e, n, walk, gen);
		}
	}
}

/* folio_check_references with MGLRU: the rmap test is lru_gen_look_around
 * (one mapping per folio: 0 or 1 referencing PTE); an unreferenced folio is
 * reclaimed whatever its fd accesses (the tiers handle those). */
static enum folio_references mglru_folio_check_references(struct engine *e, uint32_t pfn,
							  struct scan_control *sc)
{
	struct folio *f = &e->folio[pfn];
	int referenced_ptes = 0;
	if ((f->flags & (PG_mapped | PG_young)) == (PG_mapped | PG_young)) {
		f->flags &= ~PG_young;
		referenced_ptes = 1;
		lru_gen_look_around(e, pfn, sc);
	}
	if (!referenced_ptes)
		return FOLIOREF_RECLAIM;
	return lru_gen_set_refs(f) ? FOLIOREF_ACTIVATE : FOLIOREF_KEEP;
}

/* ---- the eviction ------------------------------------------------------------------------ */

/* sort_folio: re-file instead of isolating: promoted by aging, protected by
 * its tier, or waiting for writeback (dirty file folios are left to the
 * flushers).  Returns 1 when re-filed. */
static int sort_folio(struct engine *e, int memcg, struct lru_gen_folio *lrugen, uint32_t pfn,
		      struct scan_control *sc, int tier_idx)
{
	struct folio *f = &e->folio[pfn];
	int gen = folio_lru_gen(f);
	int type = folio_is_file_lru(f);
	int refs = folio_lru_refs(f);
	int ws = !!(f->flags & PG_workingset);
	int tier = lru_tier_from_refs(refs, ws);

	/* promoted */
	if (gen != lru_gen_from_seq(lrugen->min_seq[type])) {
		gen_list_move(e, lrugen, pfn, gen, type, 0);
		return 1;
	}
	/* protected */
	if (tier > tier_idx || refs + ws == (1 << LRU_REFS_WIDTH) + 1) {
		gen = folio_inc_gen(e, memcg, lrugen, pfn, 0);
		gen_list_move(e, lrugen, pfn, gen, type, 0);
		/* don't count the workingset being lazily promoted */
		if (refs + ws != (1 << LRU_REFS_WIDTH) + 1)
			lrugen->protected[lru_hist_from_seq(lrugen->min_seq[type])][type][tier]++;
		return 1;
	}
	/* ineligible (zone > reclaim_idx): one zone, never */
	int dirty = !!(f->flags & PG_dirty), writeback = !!(f->flags & PG_writeback);
	if (type == LRU_GEN_FILE && dirty) {
		sc->nr.file_taken++;
		if (!writeback)
			sc->nr.unqueued_dirty++;
	}
	/* waiting for writeback */
	if (writeback || (type == LRU_GEN_FILE && dirty)) {
		gen = folio_inc_gen(e, memcg, lrugen, pfn, 1);
		gen_list_move(e, lrugen, pfn, gen, type, 0);
		return 1;
	}
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
	if (!(f->flags & PG_referenced))
		f->gen_refs &= 0xf0;
	f->flags &= ~PG_reclaim;
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
 * isolated folios, pgrefill the re-filed ones (global reclaim only;
 * pgscan_anon/file always).  Returns the folios examined. */
static int scan_folios(struct engine *e, uint64_t nr_to_scan, int memcg, struct scan_control *sc,
		       int type, int tier, uint32_t *list, struct scan_result *res)
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
	if (lrugen->tail[gen][type] == NIL)
		res->exhausted = 1;    /* emptied, and try_to_inc_min_seq could not retire it */
	/* one zone: the loop over zones runs once */
	while (lrugen->tail[gen][type] != NIL) {
		uint32_t pfn = lrugen->tail[gen][type];
		scanned++;
		if (sort_folio(e, memcg, lrugen, pfn, sc, tier))
			res->sorted++;
		else if (isolate_folio(e, pfn, sc))
			list[res->isolated++] = pfn;
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

	if (!cgroup_reclaim(sc)) {
		count_vm_events(e, sc->kswapd ? VM_pgscan_kswapd : VM_pgscan_direct, res->isolated);
		count_vm_events(e, VM_pgrefill, res->sorted);
	}
	count_vm_events(e, type ? VM_pgscan_file : VM_pgscan_anon, res->isolated);
	if (type == LRU_GEN_FILE)
		sc->nr.file_taken += res->isolated;
	return scanned;
}

/* isolate_folios: the type get_type_to_scan picks (the other when the
 * isolation throttle does not allow it); a pass that scanned nothing
 * retires empty generations and falls back to the other type only at
 * priority 0 (and, with the throttle, only to an allowed type); a pass that
 * scanned but isolated nothing retries the same type.  FORCE_TYPE >= 0
 * (mglru+scan-balance) scans that type alone.
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
	int type = force_type >= 0 ? force_type : get_type_to_scan(e, lrugen, swappiness, 1);

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
		if (mglru_flag(e, MGLRU_SW_RETRY_RACE) && res.skipped && !retried &&
		    res.skipped + res.sorted == scanned) {
			retried = 1;
			i--;
			continue;
		}
		if (force_type >= 0) {
			if (!scanned)
				try_to_inc_min_seq(lrugen, swappiness);
			break;
		}
		if (!scanned) {
			try_to_inc_min_seq(lrugen, swappiness);
			if (mglru_flag(e, MGLRU_SW_EXHAUSTION)) {
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
			if (!sc->priority && (allowed & (1u << !type)))
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

	if (mglru_flag(e, MGLRU_ISO_THROTTLE)) {
		int fatal;
		allowed = throttle_evictable_types(e, memcg, swappiness, sc, &fatal);
		if (!allowed) {
			/* A dying task pretends progress so reclaim unwinds. */
			if (fatal)
				sc->nr_reclaimed += SWAP_CLUSTER_MAX;
			reclaim_spend(e, MGLRU_EVICT_CALL_NS);
			return 0;
		}
		if (force_type >= 0 && !(allowed & (1u << force_type))) {
			reclaim_spend(e, MGLRU_EVICT_CALL_NS);
			return 0;
		}
	}

	/* In case folio deletion left empty old gens, flush them */
	try_to_inc_min_seq(lrugen, swappiness);
	int scanned = isolate_folios(e, nr_to_scan, memcg, sc, swappiness, allowed, force_type, list,
				     &isolated, &type, &exh);
	/* Scanning may have emptied the oldest gen, flush it */
	if (scanned)
		try_to_inc_min_seq(lrugen, swappiness);
	if (exhausted)
		*exhausted = exh;
	if (!isolated) {
		reclaim_spend(e, MGLRU_EVICT_CALL_NS + (uint64_t)scanned * e->cost.isolate_per_page);
		return scanned;
	}

	engine_isolated(e, type, isolated);
	lrugen->nr_isolated[type] += (uint64_t)isolated;
	sc->total_scanned += (uint64_t)isolated;
	if (sc->rec) {
		if (type)
			sc->rec->scanned_file += (uint64_t)isolated;
		else
			sc->rec->scanned_anon += (uint64_t)isolated;
	}
	uint32_t nr_mapped = 0;
	for (int i = 0; i < isolated; i++)
		nr_mapped += !!(e->folio[list[i]].flags & PG_mapped);
	reclaim_spend(e, MGLRU_EVICT_CALL_NS + (uint64_t)scanned * e->cost.isolate_per_page +
			 (uint64_t)isolated * e->cost.shrink_per_page + nr_mapped * e->cost.unmap_per_page);

	uint32_t nr = (uint32_t)isolated;
retry:;
	struct reclaim_stat stat;
	uint64_t reclaimed = shrink_folio_list(e, list, nr, sc, &stat);
	sc->nr.unqueued_dirty += stat.nr_unqueued_dirty;
	sc->nr_reclaimed += reclaimed;

	uint32_t nr_keep = 0, nr_clean = 0;
	uint64_t min_seq = lrugen->min_seq[type];
	for (uint32_t i = 0; i < sc->nr_survivors; i++) {
		uint32_t pfn = list[i];
		struct folio *f = &e->folio[pfn];
		/* retry folios that may have missed folio_rotate_reclaimable() */
		if (!skip_retry && !(f->flags & PG_freed) &&
		    !(f->flags & (PG_active | PG_mapped | PG_dirty | PG_writeback))) {
			clean[nr_clean++] = pfn;
			continue;
		}
		/* don't add rejected folios to the oldest generation */
		if (!(f->flags & PG_freed) && lru_gen_folio_seq(lrugen, f, 0) == min_seq) {
			folio_clear_refs_flags(f);
			f->flags |= PG_active;
		}
		list[nr_keep++] = pfn;
	}
	lru_gen_putback(e, list, nr_keep);
	engine_isolated(e, type, -(int64_t)(nr - nr_clean));
	lrugen->nr_isolated[type] -= nr - nr_clean;

	if (!cgroup_reclaim(sc))
		count_vm_events(e, sc->kswapd ? VM_pgsteal_kswapd : VM_pgsteal_direct, reclaimed);
	count_vm_events(e, type ? VM_pgsteal_file : VM_pgsteal_anon, reclaimed);
	/* mglru+scan-balance notes costs as shrink_inactive_list does, so
	 * its fraction can weigh them (inferred). */
	if (mglru_flag(e, MGLRU_SCAN_BALANCE))
		lru_note_cost(e, memcg, type, stat.nr_pageout, nr - reclaimed);

	if (nr_clean) {
		memcpy(list, clean, nr_clean * sizeof(*list));
		nr = nr_clean;
		skip_retry = 1;
		reclaim_spend(e, nr * e->cost.shrink_per_page);
		goto retry;
	}
	MGLRU_DEBUG_CHECK(e, "evict_folios");
	return scanned;
}

int evict_folios(struct engine *e, uint64_t nr_to_scan, int memcg, struct scan_control *sc,
		 int swappiness)
{
	return __evict_folios(e, nr_to_scan, memcg, sc, swappiness, -1, NULL);
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
	if (mglru_flag(e, MGLRU_SW_AGE_PREF)) {
		int pref = get_type_to_scan(e, lrugen, swappiness, 0);
		if (pref >= min_type(swappiness) && pref <= max_type(swappiness) &&
		    lrugen->min_seq[pref] + MIN_NR_GENS > max_seq &&
		    lruvec_type_evictable_size(lrugen, pref))
			return 1;
	}
	if (mglru_flag(e, MGLRU_SW_IMBALANCE) && lru_gen_imbalanced(lrugen, swappiness))
		return 1;
	/* try to avoid aging, do gentle reclaim at the default priority */
	if (sc->priority == DEF_PRIORITY &&
	    !(mglru_flag(e, MGLRU_SW_NO_GENTLE) &&
	      (swappiness <= MIN_SWAPPINESS + 1 || swappiness >= MAX_SWAPPINESS)))
		return 0;
	/* better to run aging even though eviction is still possible */
	return min_seq + MIN_NR_GENS == max_seq;
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
	if (!sc->kswapd)
		return 0;
	return e->node.nr_free > e->node.watermark[WMARK_HIGH] + MIN_LRU_BATCH;
}

/* The pre-rework tail of try_to_shrink_lruvec: the coldest file folios
 * were all dirty and nobody queued them — wake the flushers. */
void lru_gen_wakeup_flusher(struct engine *e, struct scan_control *sc)
{
	if (sc->nr.unqueued_dirty && sc->nr.unqueued_dirty == sc->nr.file_taken)
		engine_wakeup_flusher(e);
}

/* try_to_shrink_lruvec: the scan number once, then batches of
 * MIN_LRU_BATCH: age when should_run_aging says so, evict, stop at the goal
 * or when root reclaim has just aged (for fairness between memcgs).
 * Returns whether the memcg should be rotated (it aged). */
int try_to_shrink_lruvec(struct engine *e, int memcg, struct scan_control *sc)
{
	if (mglru_flag(e, MGLRU_SCAN_BALANCE))
		return try_to_shrink_lruvec_balanced(e, memcg, sc);

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
			if (exhausted && mglru_flag(e, MGLRU_SW_EXHAUSTION) &&
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

/* ---- the memcg LRU and the drivers ------------------------------------------------- */

/* lru_gen_rotate_memcg: HEAD/TAIL keep the generation and set the segment;
 * OLD goes to the head of a random bin of the old generation, YOUNG to the
 * tail of a random bin of the young one.  The old generation emptied:
 * the young one becomes old.  List order is a position counter: head
 * insertions count down, tail insertions up. */
static void lru_gen_rotate_memcg(struct engine *e, int memcg, int op)
{
	struct mglru *m = mglru_of(e);
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int bin = (int)engine_rand(e, MEMCG_NR_BINS);
	int seg = 0, old = lrugen->memcg_gen, new = old;

	if (op == MEMCG_LRU_HEAD)
		seg = MEMCG_LRU_HEAD;
	else if (op == MEMCG_LRU_TAIL)
		seg = MEMCG_LRU_TAIL;
	else if (op == MEMCG_LRU_OLD)
		new = (int)(m->memcg_lru_seq % MEMCG_NR_GENS);
	else if (op == MEMCG_LRU_YOUNG)
		new = (int)((m->memcg_lru_seq + 1) % MEMCG_NR_GENS);
	lrugen->memcg_seg = seg;
	lrugen->memcg_gen = new;
	lrugen->memcg_bin = bin;
	lrugen->memcg_pos = (op == MEMCG_LRU_HEAD || op == MEMCG_LRU_OLD) ? --m->memcg_lru_head :
									    ++m->memcg_lru_tail;
	m->memcg_lru_nr[old]--;
	m->memcg_lru_nr[new]++;
	if (!m->memcg_lru_nr[old] && old == (int)(m->memcg_lru_seq % MEMCG_NR_GENS))
		m->memcg_lru_seq++;
}

/* lruvec_is_sizable: worth reclaiming at this priority. */
static int lruvec_is_sizable(struct engine *e, int memcg, const struct scan_control *sc)
{
	int swappiness = get_swappiness(e, memcg, sc);
	return (lruvec_evictable_size(mglru_lruvec(e, memcg), swappiness) >> sc->priority) != 0;
}

/* shrink_one: reclaim one memcg for root reclaim; the rotation to apply.
 * memory.min/low are not modelled; shrink_slab neither. */
static int shrink_one(struct engine *e, int memcg, struct scan_control *sc)
{
	int need_rotate = try_to_shrink_lruvec(e, memcg, sc);
	if (need_rotate)
		return MEMCG_LRU_YOUNG;
	if (lruvec_is_sizable(e, memcg, sc))
		return 0;
	/* one retry if too small */
	return mglru_lruvec(e, memcg)->memcg_seg != MEMCG_LRU_TAIL ? MEMCG_LRU_TAIL : MEMCG_LRU_YOUNG;
}

/* The next memcg after position POS on the list fifo[gen][bin], or -1. */
static int memcg_lru_next(struct engine *e, int gen, int bin, int64_t pos)
{
	int best = -1;
	int64_t best_pos = 0;
	for (int m = 0; m < e->nr_memcgs; m++) {
		const struct lru_gen_folio *lv = mglru_lruvec(e, m);
		if (lv->memcg_gen != gen || lv->memcg_bin != bin || lv->memcg_pos <= pos)
			continue;
		if (best < 0 || lv->memcg_pos < best_pos) {
			best = m;
			best_pos = lv->memcg_pos;
		}
	}
	return best;
}

/* shrink_many: walk the old generation of the memcg LRU from a random bin,
 * shrinking each memcg and applying its rotation once past it, until
 * should_abort_scan or back at the first bin. */
static void shrink_many(struct engine *e, struct scan_control *sc)
{
	struct mglru *m = mglru_of(e);
	int gen = (int)(m->memcg_lru_seq % MEMCG_NR_GENS);
	int first_bin = (int)engine_rand(e, MEMCG_NR_BINS), bin = first_bin;
	do {
		int op = 0, prev = -1, aborted = 0;
		int64_t pos = INT64_MIN;
		for (;;) {
			int memcg = memcg_lru_next(e, gen, bin, pos);
			if (memcg < 0)
				break;
			if (op) {
				lru_gen_rotate_memcg(e, prev, op);
				op = 0;
			}
			pos = mglru_lruvec(e, memcg)->memcg_pos;
			op = shrink_one(e, memcg, sc);
			prev = memcg;
			if (should_abort_scan(e, sc)) {
				aborted = 1;
				break;
			}
		}
		if (op)
			lru_gen_rotate_memcg(e, prev, op);
		if (aborted)
			return;
		bin = (bin + 1) % (int)MEMCG_NR_BINS;
	} while (bin != first_bin);
}

/* set_initial_priority: root reclaim with a goal of MIN_LRU_BATCH or more
 * (kswapd) starts at the priority whose share of the reclaimable pages
 * covers the goal, within [DEF_PRIORITY / 2, DEF_PRIORITY]. */
static void set_initial_priority(struct engine *e, struct scan_control *sc)
{
	if (sc->priority != DEF_PRIORITY || sc->nr_to_reclaim < MIN_LRU_BATCH)
		return;
	uint64_t reclaimable = lruvec_page_state(e, 0, LRU_INACTIVE_FILE);
	if (can_reclaim_anon_pages(e, 0))
		reclaimable += lruvec_page_state(e, 0, LRU_INACTIVE_ANON);
	int priority = fls_long(reclaimable) - 1 - fls_long(sc->nr_to_reclaim - 1);
	sc->priority = priority < DEF_PRIORITY / 2 ? DEF_PRIORITY / 2 :
		       priority > DEF_PRIORITY ? DEF_PRIORITY : priority;
}

/* lru_gen_shrink_node: global and root-memcg reclaim through the memcg LRU.
 * kswapd has a walk context throughout and its goal is per call. */
static void lru_gen_shrink_node(struct engine *e, struct scan_control *sc)
{
	uint64_t reclaimed = sc->nr_reclaimed;
	if (!sc->may_writepage || !sc->may_unmap)
		goto done;
	sc->lru_gen_mm_walk = sc->kswapd;        /* set_mm_walk(pgdat, proactive) */
	set_initial_priority(e, sc);
	if (sc->kswapd)
		sc->nr_reclaimed = 0;
	shrink_many(e, sc);
	if (sc->kswapd)
		sc->nr_reclaimed += reclaimed;
	sc->lru_gen_mm_walk = 0;                 /* clear_mm_walk */
done:
	if (sc->nr_reclaimed > reclaimed)
		e->node.kswapd_failures = 0;
}

/* lru_gen_shrink_lruvec: one memcg under cgroup reclaim; aging rotates it
 * young in the memcg LRU. */
static void lru_gen_shrink_lruvec(struct engine *e, int memcg, struct scan_control *sc)
{
	sc->lru_gen_mm_walk = 0;                 /* set_mm_walk(NULL, proactive) */
	if (try_to_shrink_lruvec(e, memcg, sc))
		lru_gen_rotate_memcg(e, memcg, MEMCG_LRU_YOUNG);
	sc->lru_gen_mm_walk = 0;
}

static int memcg_is_under(const struct engine *e, int m, int target)
{
	while (m > target)
		m = e->memcgs[m].parent;
	return m == target;
}

/* shrink_node_memcgs for cgroup reclaim (the generic walk, as in the
 * classic policy): a partial walk from the shared cursor stops at the goal. */
static void shrink_node_memcgs(struct engine *e, struct scan_control *sc)
{
	int target = sc->target_mem_cgroup;
	int partial = !sc->kswapd && !sc->memcg_full_walk;
	int start = target;
	if (partial && e->node.memcg_cursor > (uint32_t)target &&
	    e->node.memcg_cursor < (uint32_t)e->nr_memcgs &&
	    memcg_is_under(e, (int)e->node.memcg_cursor, target))
		start = (int)e->node.memcg_cursor;
	for (int m = start; m < e->nr_memcgs; m++) {
		if (!memcg_is_under(e, m, target))
			continue;
		if (partial)
			e->node.memcg_cursor = (uint32_t)m + 1;
		lru_gen_shrink_lruvec(e, m, sc);
		if (partial && sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
	}
	if (partial && e->node.memcg_cursor >= (uint32_t)e->nr_memcgs)
		e->node.memcg_cursor = 0;
}

/* shrink_node with MGLRU: root reclaim goes to lru_gen_shrink_node;
 * cgroup reclaim walks the memcgs (prepare_scan_control does nothing for
 * MGLRU) and keeps shrink_node's congestion tail, which MGLRU's eviction
 * never feeds (sc->nr.dirty/congested stay 0). */
static void mglru_shrink_node(struct engine *e, struct scan_control *sc)
{
	memset(&sc->nr, 0, sizeof(sc->nr));
	if (root_reclaim(sc)) {
		lru_gen_shrink_node(e, sc);
		return;
	}
	uint64_t nr_reclaimed = sc->nr_reclaimed;
	shrink_node_memcgs(e, sc);
	if (sc->nr.dirty && sc->nr.dirty == sc->nr.congested)
		e->memcgs[sc->target_mem_cgroup].lruvec.congested = 1;
	if (!sc->kswapd && e->memcgs[sc->target_mem_cgroup].lruvec.congested)
		reclaim_throttle(e, VMSCAN_THROTTLE_CONGESTED);
	if (sc->nr_reclaimed > nr_reclaimed)
		e->node.kswapd_failures = 0;
}

/* lru_gen_age_node (kswapd_age_node): with min_ttl_ms 0 (the default) it
 * only sets the initial priority; it never ages. */
static void lru_gen_age_node(struct engine *e, struct scan_control *sc)
{
	set_initial_priority(e, sc);
}

/* ---- the address order of the trace's pages (look-around) ---------------------------- */

/* Pages in (mapping, page index) order, a mapping being an anon address
 * space or a file: addr_key[rank] = mapping id << ADDR_INDEX_BITS | index
 * (indices past 2^40 pages wrap: DEVIATIONS.md), addr_order[rank] = page
 * id, addr_rank[page id] = rank.  Mapping ids come from a hash table; the
 * keys are radix sorted, so building costs O(pages). */
static int mglru_build_addr_order(struct engine *e, struct mglru *m)
{
	uint32_t n = e->nr_folios;
	const struct vmr_page *pg = e->v->pages;
	uint32_t cap = 64, nr_ids = 0;
	struct { uint64_t space, ino; uint32_t kind, id; } *tab = calloc(cap, sizeof(*tab));
	uint64_t *key = malloc((size_t)(n ? n : 1) * sizeof(uint64_t));
	uint64_t *tmpk = malloc((size_t)(n ? n : 1) * sizeof(uint64_t));
	uint32_t *tmpo = malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	int rc = -1;
	m->addr_key = malloc((size_t)(n ? n : 1) * sizeof(uint64_t));
	m->addr_order = malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	m->addr_rank = malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
	if (!tab || !key || !tmpk || !tmpo || !m->addr_key || !m->addr_order || !m->addr_rank)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		if (2 * (nr_ids + 1) > cap) {
			uint32_t ncap = cap * 2;
			__typeof__(tab) nt = calloc(ncap, sizeof(*tab));
			if (!nt)
				goto out;
			for (uint32_t j = 0; j < cap; j++) {
				if (!tab[j].id)
					continue;
				uint64_t h = (tab[j].space * 0x9E3779B97F4A7C15ull) ^ (tab[j].ino * 0xC2B2AE3D27D4EB4Full) ^ tab[j].kind;
				uint32_t k = (uint32_t)(h >> 32) & (ncap - 1);
				while (nt[k].id)
					k = (k + 1) & (ncap - 1);
				nt[k] = tab[j];
			}
			free(tab);
			tab = nt;
			cap = ncap;
		}
		uint64_t h = (pg[i].space * 0x9E3779B97F4A7C15ull) ^ (pg[i].ino * 0xC2B2AE3D27D4EB4Full) ^ pg[i].kind;
		uint32_t k = (uint32_t)(h >> 32) & (cap - 1);
		while (tab[k].id && (tab[k].space != pg[i].space || tab[k].ino != pg[i].ino ||
				     tab[k].kind != pg[i].kind))
			k = (k + 1) & (cap - 1);
		if (!tab[k].id) {
			tab[k].space = pg[i].space;
			tab[k].ino = pg[i].ino;
			tab[k].kind = pg[i].kind;
			tab[k].id = ++nr_ids;       /* ids from 1: 0 marks a free slot */
		}
		key[i] = (uint64_t)tab[k].id << ADDR_INDEX_BITS | (pg[i].index & ADDR_INDEX_MASK);
		m->addr_order[i] = i;
	}
	/* LSD radix sort of (key, page id), a byte at a time, skipping bytes
	 * no two keys differ in; stable, so equal keys keep page id order. */
	uint64_t diff = 0;
	for (uint32_t i = 1; i < n; i++)
		diff |= key[i] ^ key[0];
	for (int shift = 0; shift < 64; shift += 8) {
		if (!((diff >> shift) & 0xff))
			continue;
		uint32_t count[257] = { 0 };
		for (uint32_t i = 0; i < n; i++)
			count[((key[i] >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (uint32_t i = 0; i < n; i++) {
			uint32_t d = count[(key[i] >> shift) & 0xff]++;
			tmpk[d] = key[i];
			tmpo[d] = m->addr_order[i];
		}
		memcpy(key, tmpk, (size_t)n * sizeof(*key));
		memcpy(m->addr_order, tmpo, (size_t)n * sizeof(*tmpo));
	}
	memcpy(m->addr_key, key, (size_t)n * sizeof(*key));
	for (uint32_t i = 0; i < n; i++)
		m->addr_rank[m->addr_order[i]] = i;
	rc = 0;
out:
	free(tab);
	free(key);
	free(tmpk);
	free(tmpo);
	return rc;
}

/* ---- set-up ------------------------------------------------------------------------------ */

static void mglru_exit(struct engine *e)
{
	struct mglru *m = mglru_of(e);
	if (!m)
		return;
	for (int i = 0; i < m->nr_lrugen; i++)
		free(m->lrugen[i]);
	free(m->lrugen);
	free(m->addr_key);
	free(m->addr_order);
	free(m->addr_rank);
	free(m);
	e->policy_data = NULL;
}

static int mglru_init(struct engine *e)
{
	struct mglru *m = calloc(1, sizeof(*m));
	if (!m)
		return -1;
	e->policy_data = m;
	m->flags = e->policy->mglru_flags;
	m->refault_pfn = NIL;
	if (mglru_build_addr_order(e, m) != 0)
		goto fail;
	/* every memcg is onlined in index order */
	mglru_lruvec(e, e->nr_memcgs - 1);
	if (e->failed)
		goto fail;
	return 0;
fail:
	mglru_exit(e);
	return -1;
}

/* ---- the policies --------------------------------------------------------------------- */

#define MGLRU_OPS \
	.takes_swappiness = 1, \
	.init = mglru_init, \
	.exit = mglru_exit, \
	.folio_add_lru = mglru_folio_add_lru, \
	.folio_mark_accessed = mglru_folio_mark_accessed, \
	.folio_del_lru = mglru_folio_del_lru, \
	.folio_rotate_reclaimable = mglru_folio_rotate_reclaimable, \
	.shrink_node = mglru_shrink_node, \
	.age_node = lru_gen_age_node, \
	.workingset_eviction = lru_gen_eviction, \
	.workingset_refault = lru_gen_refault, \
	.folio_check_references = mglru_folio_check_references

const struct reclaim_policy policy_mglru = {
	.name = "mglru",
	.summary = "multi-gen LRU of the mm tree (Aug 2026: reworked reclaim loop)",
	MGLRU_OPS,
};

const struct reclaim_policy policy_mglru_swappiness = {
	.name = "mglru+swappiness",
	.summary = "\"fix swappiness behavior\": respect get_type_to_scan, age the preferred type, boosted gain",
	.mglru_flags = MGLRU_SWAPPINESS,
	MGLRU_OPS,
};

const struct reclaim_policy policy_mglru_iso_throttle = {
	.name = "mglru+iso-throttle",
	.summary = "throttle eviction when every evictable type has isolated > evictable/MIN_NR_GENS",
	.mglru_flags = MGLRU_ISO_THROTTLE,
	MGLRU_OPS,
};

const struct reclaim_policy policy_mglru_scan_balance = {
	.name = "mglru+scan-balance",
	.summary = "type and amount first (as get_scan_count), size minus isolated; lruvec-wide throttle",
	.mglru_flags = MGLRU_SCAN_BALANCE,
	MGLRU_OPS,
};

const struct reclaim_policy policy_mglru_swappiness_iso_throttle = {
	.name = "mglru+swappiness+iso-throttle",
	.summary = "both: the swappiness series with the isolation throttle",
	.mglru_flags = MGLRU_SWAPPINESS | MGLRU_ISO_THROTTLE,
	MGLRU_OPS,
};

