/*
 * policy.h — a reclaim policy behind a small ops table.
 *
 * The engine (page faults, frees, I/O completion, kswapd and the direct
 * and memcg reclaim drivers in vmscan.c) calls a policy only where the
 * kernel branches between the classic LRU and MGLRU; each policy lives in
 * its own file (policy_classic.c, …) and a variant is the same ops with
 * different switches.
 */
#ifndef POLICY_H
#define POLICY_H

#include "sim/engine.h"
#include "vmscan.h"

struct reclaim_policy {
	const char *name;
	const char *summary;
	int takes_swappiness;
	int early_exit;                      /* classic+early-exit switches */
	int early_exit_direct_only;
	unsigned mglru_flags;                /* mglru+... switches (policy_mglru.h) */

	int  (*init)(struct engine *e);
	void (*exit)(struct engine *e);
	/* folio_add_lru: a newly resident folio joins its lruvec. */
	void (*folio_add_lru)(struct engine *e, uint32_t pfn);
	/* folio_mark_accessed: an access through a syscall (read()). */
	void (*folio_mark_accessed)(struct engine *e, uint32_t pfn);
	/* The folio leaves the LRU because its owner released it. */
	void (*folio_del_lru)(struct engine *e, uint32_t pfn);
	/* folio_rotate_reclaimable: writeback of a PG_reclaim folio ended. */
	void (*folio_rotate_reclaimable)(struct engine *e, uint32_t pfn);
	/* shrink_node: one reclaim pass over the node for SC. */
	void (*shrink_node)(struct engine *e, struct scan_control *sc);
	/* kswapd_age_node: background aging before kswapd reclaims. */
	void (*age_node)(struct engine *e, struct scan_control *sc);
	/* snapshot_refaults at the end of a reclaim cycle. */
	void (*snapshot_refaults)(struct engine *e, int target_memcg);
	/* workingset_eviction / workingset_refault. */
	void (*workingset_eviction)(struct engine *e, uint32_t pfn, int target_memcg);
	void (*workingset_refault)(struct engine *e, uint32_t pfn);
	/* folio_check_references for shrink_folio_list; NULL: the classic one. */
	enum folio_references (*folio_check_references)(struct engine *e, uint32_t pfn,
							struct scan_control *sc);
};

extern const struct reclaim_policy *const reclaim_policies[];
const struct reclaim_policy *policy_find(const char *name);

#endif
