/*
 * cost.h — the CPU time the simulated reclaim code takes.
 *
 * Not from the kernel: calibrated orders of magnitude (DEVIATIONS.md,
 * "Reclaim's CPU time").  A reclaimer lets this time pass in virtual
 * time (it sleeps as a coroutine), so other tasks and reclaimers act
 * inside its isolation window as they would on other CPUs.
 */
#ifndef COST_H
#define COST_H

#include <stdint.h>
#include "sim/sim.h"

struct engine;

#define COST_ISOLATE_NS      50   /* a folio off the LRU, or moved between gens */
#define COST_SHRINK_NS      400   /* shrink_folio_list, per folio */
#define COST_UNMAP_NS       600   /* try_to_unmap of a mapped folio */
#define COST_ACTIVE_NS      150   /* shrink_active_list, per folio */
#define COST_WALK_PTE_NS     10   /* MGLRU's page-table walk, per PTE visited */
#define COST_EVICT_CALL_NS 1000   /* one evict_folios call besides its folios:
				   * lock round trips, try_to_inc_min_seq, the
				   * PID reads; a pass that finds nothing still
				   * takes time */

/* A batch of NR_TAKEN folios in LIST isolated out of NR_SCANNED, then
 * decided by shrink_folio_list (the mapped ones unmapped). */
simtime_t cost_shrink_batch(const struct engine *e, uint64_t nr_scanned, const uint32_t *list,
			    uint32_t nr_taken);

/* The reclaimer spends NS of CPU time: it sleeps in virtual time. */
void reclaim_cpu(struct engine *e, simtime_t ns);

#endif
