/*
 * pid.c — MGLRU's PID controller, after mm/vmscan.c: the refault rates
 * per type and tier (read_ctrl_pos, reset_ctrl_pos), which tiers are
 * protected (get_tier_idx), and which type to evict (get_type_to_scan,
 * where the swappiness series' boost rules apply).
 *
 * Left out (DEVIATIONS.md, "MGLRU"): CONFIG_LRU_GEN_STATS (NR_HIST_GENS
 * is 1).
 */
#include "lru_gen.h"

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
void reset_ctrl_pos(struct lru_gen_folio *lrugen, int type, int carryover)
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

/* The last tier evicted like tier 0 (at gain SP_GAIN) against the
 * others (at PV_GAIN): the first that refaults more is protected, with
 * the ones above it. */
static int __get_tier_idx(const struct lru_gen_folio *lrugen, int type, uint64_t sp_gain,
			  uint64_t pv_gain)
{
	struct ctrl_pos sp, pv;
	unsigned tier;
	read_ctrl_pos(lrugen, type, 0, sp_gain, &sp);
	for (tier = 1; tier < MAX_NR_TIERS; tier++) {
		read_ctrl_pos(lrugen, type, (int)tier, pv_gain, &pv);
		if (!positive_ctrl_err(&sp, &pv))
			break;
	}
	return (int)tier - 1;
}

/* get_tier_idx: tiers are evicted like tier 0 until one refaults more than
 * 3:2 of tier 0; that tier and the ones above are protected. */
int get_tier_idx(const struct lru_gen_folio *lrugen, int type)
{
	return __get_tier_idx(lrugen, type, 2, 3);
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
	if (patch_sw_boost_gain(e)) {
		ga *= ga;
		gf *= gf;
	}
	read_ctrl_pos(lrugen, LRU_GEN_ANON, MAX_NR_TIERS, ga, &sp);
	read_ctrl_pos(lrugen, LRU_GEN_FILE, MAX_NR_TIERS, gf, &pv);
	if (patch_sw_boost(e) && sp.refaulted < MIN_LRU_BATCH &&
	    pv.refaulted < MIN_LRU_BATCH) {
		uint32_t credit = lrugen->type_credit + (uint32_t)swappiness;
		int anon = credit >= MAX_SWAPPINESS;
		if (consume)
			lrugen->type_credit = anon ? credit - MAX_SWAPPINESS : credit;
		return anon ? LRU_GEN_ANON : LRU_GEN_FILE;
	}
	return positive_ctrl_err(&sp, &pv);
}

/* get_tier_idx (6.12): the same search with a 1:2 margin (tier 0 at gain
 * 1, the others at 2) instead of the mm tree's 2:3. */
int get_tier_idx_612(const struct lru_gen_folio *lrugen, int type)
{
	return __get_tier_idx(lrugen, type, 1, 2);
}

/* get_type_to_scan (6.12): compare the first tier of anon (gain
 * swappiness) with that of file (200 - swappiness); then the selected
 * type's other tiers with the other type's first tier, for the last tier
 * to evict (*TIER_IDX). */
int get_type_to_scan_612(const struct lru_gen_folio *lrugen, int swappiness, int *tier_idx)
{
	struct ctrl_pos sp, pv;
	uint64_t gain[ANON_AND_FILE] = { (uint64_t)swappiness, (uint64_t)(MAX_SWAPPINESS - swappiness) };
	unsigned tier;

	read_ctrl_pos(lrugen, LRU_GEN_ANON, 0, gain[LRU_GEN_ANON], &sp);
	read_ctrl_pos(lrugen, LRU_GEN_FILE, 0, gain[LRU_GEN_FILE], &pv);
	int type = positive_ctrl_err(&sp, &pv);

	read_ctrl_pos(lrugen, !type, 0, gain[!type], &sp);
	for (tier = 1; tier < MAX_NR_TIERS; tier++) {
		read_ctrl_pos(lrugen, type, (int)tier, gain[type], &pv);
		if (!positive_ctrl_err(&sp, &pv))
			break;
	}
	*tier_idx = (int)tier - 1;
	return type;
}
