/* cost.c — the CPU time of reclaim (cost.h). */
#include "cost.h"
#include "sim/engine.h"

simtime_t cost_shrink_batch(const struct engine *e, uint64_t nr_scanned, const uint32_t *list,
			    uint32_t nr_taken)
{
	uint32_t nr_mapped = 0;
	for (uint32_t i = 0; i < nr_taken; i++)
		nr_mapped += !!(e->folio[list[i]].flags & PG_mapped);
	return nr_scanned * COST_ISOLATE_NS + (uint64_t)nr_taken * COST_SHRINK_NS +
	       (uint64_t)nr_mapped * COST_UNMAP_NS;
}

void reclaim_cpu(struct engine *e, simtime_t ns)
{
	if (ns && e->sim.current)
		sim_sleep(&e->sim, ns);
}
