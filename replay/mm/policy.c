/* policy.c — the table of reclaim policies `vmreplay run` knows. */
#include "policy.h"
#include "policy_classic.h"
#include "mm/lru_gen/policy_mglru.h"

#include <string.h>

const struct reclaim_policy *const reclaim_policies[] = {
	&policy_classic,
	&policy_classic_early_exit,
	&policy_classic_early_exit_direct,
	&policy_mglru,
	&policy_mglru_swappiness,
	&policy_mglru_iso_throttle,
	&policy_mglru_scan_balance,
	&policy_mglru_swappiness_iso_throttle,
	NULL,
};

const struct reclaim_policy *policy_find(const char *name)
{
	for (int i = 0; reclaim_policies[i]; i++)
		if (strcmp(reclaim_policies[i]->name, name) == 0)
			return reclaim_policies[i];
	/* Compositions of MGLRU switches in any order: mglru+scan-balance+... */
	return mglru_policy_find(name);
}
