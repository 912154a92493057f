/*
 * policy.h — which kernel a replay models: the classic LRU or MGLRU
 * (lru_gen_enabled()), and which proposed patches are applied on top
 * (variants.h).  This is the replay's kernel configuration, not an ops
 * table: the model's code branches where the kernel branches, on
 * lru_gen_enabled() and on the patches' named predicates.
 */
#ifndef POLICY_H
#define POLICY_H

struct reclaim_policy {
	const char *name;
	const char *summary;
	int lru_gen;                 /* CONFIG_LRU_GEN with lru_gen/enabled on */
	unsigned variants;           /* PATCH_* bits (variants.h) */
};

/* The named policies, NULL-terminated, in --help order. */
extern const struct reclaim_policy *const reclaim_policies[];
/* A named policy, or any "mglru+SWITCH+..." composition (in any order);
 * NULL when a switch is unknown or repeated.  A composition's name lists
 * its switches canonically. */
const struct reclaim_policy *policy_find(const char *name);
/* The MGLRU policy that replays a capture "as captured": the mm tree,
 * with +k6.12 for a kernel RELEASE up to 6.12 and +no-mm-walk for an
 * lru_gen/ENABLED without the page-table walk (0x0001).  Either may be
 * NULL. */
const struct reclaim_policy *mglru_policy_as_captured(const char *release, const char *enabled);
/* The composition syntax, for --help. */
extern const char mglru_switches_help[];

#endif
