/* policy.c — the policies `vmreplay run` knows, and compositions (policy.h). */
#include "policy.h"
#include "variants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct reclaim_policy classic = {
	.name = "classic",
	.summary = "active/inactive LRU of mainline (mm/vmscan.c without MGLRU)",
};
static const struct reclaim_policy classic_early_exit = {
	.name = "classic+early-exit",
	.summary = "over-reclaim RFC: stop shrink_lruvec / the memcg walk once the goal is met",
	.variants = PATCH_EARLY_EXIT,
};
static const struct reclaim_policy classic_early_exit_direct = {
	.name = "classic+early-exit-direct",
	.summary = "the same, the memcg-walk break for direct reclaim only (not kswapd)",
	.variants = PATCH_EARLY_EXIT | PATCH_EARLY_EXIT_DIRECT,
};
static const struct reclaim_policy mglru = {
	.name = "mglru",
	.summary = "multi-gen LRU of the mm tree (Aug 2026: reworked reclaim loop)",
	.lru_gen = 1,
};
static const struct reclaim_policy mglru_swappiness = {
	.name = "mglru+swappiness",
	.summary = "\"fix swappiness behavior\": respect get_type_to_scan, age the preferred type, boosted gain",
	.lru_gen = 1,
	.variants = PATCH_SWAPPINESS,
};
static const struct reclaim_policy mglru_iso_throttle = {
	.name = "mglru+iso-throttle",
	.summary = "throttle eviction when every evictable type has isolated > evictable/MIN_NR_GENS",
	.lru_gen = 1,
	.variants = PATCH_ISO_THROTTLE,
};
static const struct reclaim_policy mglru_scan_balance = {
	.name = "mglru+scan-balance",
	.summary = "type and amount first (as get_scan_count), size minus isolated; lruvec-wide throttle",
	.lru_gen = 1,
	.variants = PATCH_SCAN_BALANCE,
};
static const struct reclaim_policy mglru_k612 = {
	.name = "mglru+k6.12",
	.summary = "MGLRU as Linux 6.12 (to 6.12.117) reclaims: its reclaim loop, dirty handling and counters",
	.lru_gen = 1,
	.variants = PATCH_K612,
};
static const struct reclaim_policy mglru_swappiness_iso_throttle = {
	.name = "mglru+swappiness+iso-throttle",
	.summary = "both: the swappiness series with the isolation throttle",
	.lru_gen = 1,
	.variants = PATCH_SWAPPINESS | PATCH_ISO_THROTTLE,
};

const struct reclaim_policy *const reclaim_policies[] = {
	&classic,
	&classic_early_exit,
	&classic_early_exit_direct,
	&mglru,
	&mglru_swappiness,
	&mglru_iso_throttle,
	&mglru_scan_balance,
	&mglru_swappiness_iso_throttle,
	&mglru_k612,
	NULL,
};

/* The MGLRU switches, in canonical order. */
static const struct {
	const char *name;
	unsigned flags;
} mglru_switches[] = {
	{ "swappiness", PATCH_SWAPPINESS },
	{ "sw-age-pref", PATCH_SW_AGE_PREF },
	{ "sw-no-gentle", PATCH_SW_NO_GENTLE },
	{ "sw-boost", PATCH_SW_BOOST },
	{ "sw-exhaustion", PATCH_SW_EXHAUSTION },
	{ "sw-retry-race", PATCH_SW_RETRY_RACE },
	{ "sw-no-inversion", PATCH_SW_NO_INVERSION },
	{ "sw-batched", PATCH_SW_BATCHED },
	{ "sw-imbalance", PATCH_SW_IMBALANCE },
	{ "sw-boost-gain", PATCH_SW_BOOST_GAIN },
	{ "sw-imbalance-prev", PATCH_SW_IMBALANCE_PREV },
	{ "iso-throttle", PATCH_ISO_THROTTLE },
	{ "scan-balance", PATCH_SCAN_BALANCE },
	{ "high-prio-fallback", PATCH_HIGH_PRIO_FALLBACK },
	{ "k6.12", PATCH_K612 },
	{ "k6.12.118", PATCH_K612_118 },
	{ "k6.12-counters", PATCH_K612_COUNTERS },
	{ "k6.12-writeback", PATCH_K612_WRITEBACK },
	{ "k6.12-loop", PATCH_K612_LOOP },
	{ "k6.12-types", PATCH_K612_TYPES },
	{ "k6.12-gens", PATCH_K612_GENS },
	{ "k6.12-refs", PATCH_K612_REFS },
	{ "k6.12-tiers", PATCH_K612_TIERS },
	{ "k6.12-no-abort", PATCH_K612_NO_ABORT },
	{ "no-mm-walk", PATCH_NO_MM_WALK },
};
#define NR_MGLRU_SWITCHES (sizeof(mglru_switches) / sizeof(mglru_switches[0]))

const char mglru_switches_help[] =
	"  mglru+SWITCH[+SWITCH...]   any composition, in any order, of: swappiness\n"
	"                             (= every sw-* rule but sw-boost-gain), sw-age-pref,\n"
	"                             sw-no-gentle, sw-boost, sw-exhaustion, sw-retry-race,\n"
	"                             sw-no-inversion, sw-batched, sw-imbalance,\n"
	"                             sw-boost-gain, sw-imbalance-prev, iso-throttle,\n"
	"                             scan-balance,\n"
	"                             high-prio-fallback, k6.12 (= the eight k6.12-*),\n"
	"                             k6.12.118 (= k6.12 but k6.12-no-abort),\n"
	"                             k6.12-counters, k6.12-writeback, k6.12-loop,\n"
	"                             k6.12-types, k6.12-gens, k6.12-refs, k6.12-tiers,\n"
	"                             k6.12-no-abort,\n"
	"                             no-mm-walk\n";

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

static const struct reclaim_policy *mglru_policy_find(const char *name)
{
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
	for (int i = 0; reclaim_policies[i]; i++)
		if (reclaim_policies[i]->lru_gen && strcmp(reclaim_policies[i]->name, canon) == 0)
			return reclaim_policies[i];
	for (size_t i = 0; i < nr_made; i++)
		if (made[i].variants == flags)
			return &made[i];
	if (nr_made == sizeof(made) / sizeof(made[0]))
		return NULL;
	snprintf(made_name[nr_made], sizeof(made_name[nr_made]), "%s", canon);
	made[nr_made] = mglru;                  /* the same kernel, other switches */
	made[nr_made].name = made_name[nr_made];
	made[nr_made].summary = "a composition of MGLRU switches";
	made[nr_made].variants = flags;
	return &made[nr_made++];
}

const struct reclaim_policy *policy_find(const char *name)
{
	for (int i = 0; reclaim_policies[i]; i++)
		if (strcmp(reclaim_policies[i]->name, name) == 0)
			return reclaim_policies[i];
	/* Compositions of MGLRU switches in any order: mglru+scan-balance+... */
	return mglru_policy_find(name);
}

/* The MGLRU a capture's kernel ran, for replays "as captured": mglru, with
 * the k6.12 readings for a release up to 6.12 (k6.12.118 from 6.12.118 on,
 * whose should_abort_scan stops memcg reclaim at its goal) and no-mm-walk when
 * lru_gen/enabled lacks LRU_GEN_MM_WALK (0x0002).  RELEASE and ENABLED
 * (e.g. "6.12.117", "0x0001") may be NULL or unparsable: the mm tree. */
const struct reclaim_policy *mglru_policy_as_captured(const char *release, const char *enabled)
{
	char name[64] = "mglru";
	unsigned major, minor, sub = 0;
	if (release && sscanf(release, "%u.%u.%u", &major, &minor, &sub) >= 2 &&
	    (major < 6 || (major == 6 && minor <= 12)))
		strcat(name, major == 6 && minor == 12 && sub >= 118 ? "+k6.12.118" : "+k6.12");
	char *end;
	unsigned long caps = enabled ? strtoul(enabled, &end, 0) : 0;
	if (enabled && end != enabled && *end == '\0' && (caps & 1) && !(caps & 2))
		strcat(name, "+no-mm-walk");
	return policy_find(name);
}
