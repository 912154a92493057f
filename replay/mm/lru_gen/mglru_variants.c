/*
 * mglru_variants.c — the proposed MGLRU variants that are more than a
 * condition in the base code (policy_mglru.c), and their names:
 *
 *   mglru+iso-throttle   "throttle MGLRU eviction when isolated folios pile
 *                        up" (v7): throttle_evictable_types at the top of
 *                        evict_folios, lru_gen_too_many_isolated
 *   mglru+scan-balance   the reviewer's alternative: a get_scan_count-like
 *                        budget per type, forced per-type eviction, one
 *                        lruvec-wide isolation check
 *   mglru+swappiness     sw-imbalance's lru_gen_imbalanced (the series'
 *                        other rules are conditions where the base decides)
 *
 * and mglru_policy_find, which turns any "mglru+SWITCH+..." into one ops
 * table with flags.  Rules marked *inferred* are reconstructions from
 * cover letters and reviews (variants.md §4, §5); DEVIATIONS.md lists them.
 */
#include "policy_mglru.h"
#include "mm/policy.h"
#include "mm/vmscan.h"

#include <stdio.h>
#include <string.h>

/* ---- mglru+swappiness sw-imbalance ------------------------------------------------- */

/* lru_gen_imbalanced (mglru+swappiness sw-imbalance, inferred): with
 * MIN_NR_GENS + 1 generations, the oldest holds less than an eighth of the
 * evictable pages or the youngest more than seven eighths — the pre-2025
 * rule (1/4, 1/2) made looser, the threshold a fraction of the lruvec's
 * size; lruvecs under MIN_LRU_BATCH pages never count. */
int lru_gen_imbalanced(const struct lru_gen_folio *lrugen, int swappiness)
{
	uint64_t total = 0, young = 0, old = 0;
	int type;
	if (evictable_min_seq(lrugen->min_seq, swappiness) + MIN_NR_GENS != lrugen->max_seq)
		return 0;
	for_each_evictable_type(type, swappiness) {
		for (uint64_t seq = lrugen->min_seq[type]; seq <= lrugen->max_seq; seq++) {
			int64_t n = lrugen->nr_pages[lru_gen_from_seq(seq)][type];
			uint64_t size = n > 0 ? (uint64_t)n : 0;
			total += size;
			if (seq == lrugen->max_seq)
				young += size;
			else if (seq + MIN_NR_GENS == lrugen->max_seq)
				old += size;
		}
	}
	if (total < MIN_LRU_BATCH)
		return 0;
	return old < total / 8 || young > total - total / 8;
}


/* ---- mglru+iso-throttle -------------------------------------------------------------- */

/* lru_gen_too_many_isolated: more of TYPE isolated from this lruvec than
 * its evictable pages / MIN_NR_GENS (an eighth of them first, for callers
 * allowed IO and FS).  Never for kswapd; writeback throttling is always
 * sane here (cgroup v2). */
int lru_gen_too_many_isolated(struct engine *e, const struct lru_gen_folio *lrugen, int type,
			      const struct scan_control *sc)
{
	(void)e;
	if (sc->kswapd)
		return 0;
	uint64_t evictable = lruvec_type_evictable_size(lrugen, type);
	if (sc->gfp_io_fs)
		evictable >>= 3;
	return lrugen->nr_isolated[type] > evictable / MIN_NR_GENS;
}

/* throttle_evictable_types: at the top of evict_folios.  The evictable
 * types that are not over-isolated are allowed (and isolation waiters are
 * woken); nothing evictable returns 0 at once; if every evictable type is
 * over-isolated the reclaimer sleeps once (reclaim_throttle ISOLATED, up to
 * HZ/50 or until woken), and gives up if they still are. */
unsigned throttle_evictable_types(struct engine *e, int memcg, int swappiness,
				  struct scan_control *sc, int *fatal)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int stalled = 0;
	*fatal = 0;
	for (;;) {
		unsigned allowed = 0;
		int evictable = 0, type;
		for_each_evictable_type(type, swappiness) {
			if (!lruvec_type_evictable_size(lrugen, type))
				continue;
			evictable = 1;
			if (!lru_gen_too_many_isolated(e, lrugen, type, sc))
				allowed |= 1u << type;
		}
		if (!evictable)
			return 0;
		if (allowed) {
			sim_wake_all(&e->sim, &e->node.reclaim_wait[VMSCAN_THROTTLE_ISOLATED]);
			return allowed;
		}
		if (stalled)
			return 0;
		stalled = 1;
		reclaim_throttle(e, VMSCAN_THROTTLE_ISOLATED);
		if (fatal_signal_pending(e, sc->task)) {
			*fatal = 1;
			return 0;
		}
	}
}

/* ---- mglru+scan-balance ------------------------------------------------------------- */

enum scan_balance { SCAN_EQUAL, SCAN_FRACT, SCAN_ANON, SCAN_FILE };

/* lru_gen_scan_balance: get_scan_count for MGLRU (the reviewer's
 * proposal): per type (evictable - isolated) >> priority, split by the
 * classic rules — file only without swap (swappiness 0 here), anon only
 * for SWAPPINESS_ANON_ONLY or a tiny file LRU (global reclaim), equal at
 * priority 0, otherwise the fraction from swappiness and the target's
 * costs.  cache_trim_mode is left out: it rests on the classic refault
 * snapshots MGLRU does not keep (inferred). */
void lru_gen_scan_balance(struct engine *e, int memcg, struct scan_control *sc, int swappiness,
			  uint64_t nr[ANON_AND_FILE])
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	uint64_t fraction[ANON_AND_FILE] = { 0, 0 }, denominator = 0;
	enum scan_balance balance;

	if (!swappiness) {
		balance = SCAN_FILE;
	} else if (swappiness == SWAPPINESS_ANON_ONLY) {
		balance = SCAN_ANON;
	} else if (!sc->priority) {
		balance = SCAN_EQUAL;
	} else {
		int file_is_tiny = 0;
		if (!cgroup_reclaim(sc)) {
			uint64_t file = lruvec_page_state(e, 0, LRU_ACTIVE_FILE) +
					lruvec_page_state(e, 0, LRU_INACTIVE_FILE);
			uint64_t anon = lruvec_page_state(e, 0, LRU_INACTIVE_ANON);
			file_is_tiny = file + e->node.nr_free <= e->node.watermark[WMARK_HIGH] &&
				       (anon >> sc->priority);
		}
		if (file_is_tiny) {
			balance = SCAN_ANON;
		} else {
			int target = sc->target_mem_cgroup < 0 ? 0 : sc->target_mem_cgroup;
			const struct lruvec *tlv = &e->memcgs[target].lruvec;
			uint64_t total_cost = tlv->anon_cost + tlv->file_cost;
			uint64_t anon_cost = total_cost + tlv->anon_cost;
			uint64_t file_cost = total_cost + tlv->file_cost;
			total_cost = anon_cost + file_cost;
			balance = SCAN_FRACT;
			fraction[0] = (uint64_t)swappiness * (total_cost + 1) / (anon_cost + 1);
			fraction[1] = (uint64_t)(MAX_SWAPPINESS - swappiness) * (total_cost + 1) /
				      (file_cost + 1);
			denominator = fraction[0] + fraction[1];
		}
	}
	for (int type = 0; type < ANON_AND_FILE; type++) {
		uint64_t size = lruvec_type_evictable_size(lrugen, type);
		uint64_t iso = lrugen->nr_isolated[type];
		uint64_t scan = (size > iso ? size - iso : 0) >> sc->priority;
		switch (balance) {
		case SCAN_EQUAL:
			break;
		case SCAN_FRACT:
			scan = denominator ? scan * fraction[type] / denominator : 0;
			break;
		case SCAN_FILE:
		case SCAN_ANON:
			if ((balance == SCAN_FILE) != type)
				scan = 0;
			break;
		}
		nr[type] = scan;
	}
}

/* The whole lruvec's isolation check: total isolated > total size /
 * MIN_NR_GENS.  kswapd is exempt (inferred, as for every isolation
 * throttle).  Sleeps once; returns 1 if reclaim of this lruvec should stop. */
static int lru_gen_balance_throttle(struct engine *e, struct lru_gen_folio *lrugen,
				    struct scan_control *sc)
{
	int stalled = 0;
	for (;;) {
		if (sc->kswapd)
			return 0;
		uint64_t size = lruvec_type_evictable_size(lrugen, 0) + lruvec_type_evictable_size(lrugen, 1);
		uint64_t isolated = lrugen->nr_isolated[0] + lrugen->nr_isolated[1];
		if (isolated <= size / MIN_NR_GENS) {
			sim_wake_all(&e->sim, &e->node.reclaim_wait[VMSCAN_THROTTLE_ISOLATED]);
			return 0;
		}
		if (stalled)
			return 1;
		stalled = 1;
		reclaim_throttle(e, VMSCAN_THROTTLE_ISOLATED);
		if (fatal_signal_pending(e, sc->task)) {
			sc->nr_reclaimed += SWAP_CLUSTER_MAX;
			return 1;
		}
	}
}

/* try_to_shrink_lruvec for mglru+scan-balance (inferred where the review
 * is silent): the budget per type once per visit, then rounds that evict
 * each type in MIN_LRU_BATCH steps to its target — aging when that type
 * has no evictable generation instead of spilling into the other — with
 * the lruvec throttle before each round and the base's aging and stop
 * rules. */
int try_to_shrink_lruvec_balanced(struct engine *e, int memcg, struct scan_control *sc)
{
	struct lru_gen_folio *lrugen = mglru_lruvec(e, memcg);
	int need_rotate = 0, aged = 0;
	int swappiness = get_swappiness(e, memcg, sc);
	uint64_t nr[ANON_AND_FILE];

	lru_gen_scan_balance(e, memcg, sc, swappiness, nr);
	if (sc->rec) {
		sc->rec->target_anon += nr[LRU_GEN_ANON];
		sc->rec->target_file += nr[LRU_GEN_FILE];
	}
	while (nr[LRU_GEN_ANON] || nr[LRU_GEN_FILE]) {
		if (lru_gen_balance_throttle(e, lrugen, sc))
			break;
		for (int type = 0; type < ANON_AND_FILE; type++) {
			if (!nr[type])
				continue;
			uint64_t max_seq = lrugen->max_seq;
			if (should_run_aging(e, lrugen, max_seq, sc, swappiness) ||
			    lrugen->min_seq[type] + MIN_NR_GENS > max_seq) {
				if (try_to_inc_max_seq(e, memcg, max_seq, swappiness, sc))
					need_rotate = 1;
				aged = 1;
			}
			uint64_t batch = nr[type] < MIN_LRU_BATCH ? nr[type] : MIN_LRU_BATCH;
			int delta = __evict_folios(e, batch, memcg, sc, swappiness, type, NULL);
			if (!delta) {
				nr[type] = 0;
				continue;
			}
			nr[type] -= (uint64_t)delta < nr[type] ? (uint64_t)delta : nr[type];
		}
		if (should_abort_scan(e, sc))
			break;
		if (root_reclaim(sc) && aged)
			break;
	}
	lru_gen_wakeup_flusher(e, sc);
	return need_rotate;
}

/* The switches, in canonical order. */
static const struct {
	const char *name;
	unsigned flags;
} mglru_switches[] = {
	{ "swappiness", MGLRU_SWAPPINESS },
	{ "sw-age-pref", MGLRU_SW_AGE_PREF },
	{ "sw-no-gentle", MGLRU_SW_NO_GENTLE },
	{ "sw-boost", MGLRU_SW_BOOST },
	{ "sw-exhaustion", MGLRU_SW_EXHAUSTION },
	{ "sw-retry-race", MGLRU_SW_RETRY_RACE },
	{ "sw-no-inversion", MGLRU_SW_NO_INVERSION },
	{ "sw-batched", MGLRU_SW_BATCHED },
	{ "sw-imbalance", MGLRU_SW_IMBALANCE },
	{ "sw-boost-gain", MGLRU_SW_BOOST_GAIN },
	{ "iso-throttle", MGLRU_ISO_THROTTLE },
	{ "scan-balance", MGLRU_SCAN_BALANCE },
};
#define NR_MGLRU_SWITCHES (sizeof(mglru_switches) / sizeof(mglru_switches[0]))

const char mglru_switches_help[] =
	"  mglru+SWITCH[+SWITCH...]   any composition, in any order, of: swappiness\n"
	"                             (= every sw-* rule but sw-boost-gain), sw-age-pref,\n"
	"                             sw-no-gentle, sw-boost, sw-exhaustion, sw-retry-race,\n"
	"                             sw-no-inversion, sw-batched, sw-imbalance,\n"
	"                             sw-boost-gain, iso-throttle, scan-balance\n";

/* The canonical name of FLAGS: "mglru", then the switches in table order,
 * "swappiness" standing for the full set of its rules. */
static void mglru_canonical_name(unsigned flags, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "mglru");
	unsigned left = flags;
	for (size_t i = 0; i < NR_MGLRU_SWITCHES && off < len; i++) {
		unsigned f = mglru_switches[i].flags;
		if ((left & f) == f && f) {
			off += (size_t)snprintf(buf + off, len - off, "+%s", mglru_switches[i].name);
			left &= ~f;
		}
	}
}

const struct reclaim_policy *mglru_policy_find(const char *name)
{
	static const struct reclaim_policy *const named[] = {
		&policy_mglru, &policy_mglru_swappiness, &policy_mglru_iso_throttle,
		&policy_mglru_scan_balance, &policy_mglru_swappiness_iso_throttle,
	};
	static struct reclaim_policy made[64];
	static char made_name[64][160];
	static size_t nr_made;

	if (strncmp(name, "mglru", 5) != 0 || (name[5] != '\0' && name[5] != '+'))
		return NULL;
	unsigned flags = 0, seen = 0;
	for (const char *p = name + 5; *p;) {
		p++;                                 /* the '+' */
		size_t n = strcspn(p, "+");
		size_t i;
		for (i = 0; i < NR_MGLRU_SWITCHES; i++)
			if (strlen(mglru_switches[i].name) == n && strncmp(p, mglru_switches[i].name, n) == 0)
				break;
		if (i == NR_MGLRU_SWITCHES || (seen & (1u << i)))
			return NULL;                 /* unknown, empty or repeated */
		seen |= 1u << i;
		flags |= mglru_switches[i].flags;
		p += n;
	}
	char canon[160];
	mglru_canonical_name(flags, canon, sizeof(canon));
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (strcmp(named[i]->name, canon) == 0)
			return named[i];
	for (size_t i = 0; i < nr_made; i++)
		if (made[i].mglru_flags == flags)
			return &made[i];
	if (nr_made == sizeof(made) / sizeof(made[0]))
		return NULL;
	snprintf(made_name[nr_made], sizeof(made_name[nr_made]), "%s", canon);
	made[nr_made] = policy_mglru;           /* the same ops, other switches */
	made[nr_made].name = made_name[nr_made];
	made[nr_made].summary = "a composition of MGLRU switches";
	made[nr_made].mglru_flags = flags;
	return &made[nr_made++];
}
