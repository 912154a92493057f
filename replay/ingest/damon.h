/*
 * damon.h — how a DAMON sample becomes page references (the expansion
 * rule of FORMAT.md, "Demand from kernel events").
 *
 * DAMON's damon_aggregated tracepoint reports, at the end of each
 * aggregation interval, regions [start, end) of a monitored address space
 * with nr_accesses: in how many of the interval's sampling checks
 * (aggr_us / sample_us of them) the region's sampled page had been
 * accessed.  A replay needs page references, so each region becomes
 * "passes" over its pages:
 *
 *   N = aggr / sample (at least 1), a = min(nr_accesses, N)
 *   passes k = 0 if a = 0, else min(K, ceil(a * K / N))
 *   pass j (0 <= j < k) happens at  end - aggr + (2j + 1) * aggr / (2k)
 *   (an interval that would begin before time 0 begins there)
 *
 * where K (max_passes, default 4) bounds the cost: a region accessed at
 * every check gets K passes spread evenly over the interval, one found
 * accessed once gets one pass in its middle.  A pass references, in
 * address order, every page of the region that the demand stream already
 * holds and that is resident in it (first touches come from page faults,
 * never from DAMON: a region's unfaulted pages are not memory), as loads
 * (DAMON cannot tell loads from stores).
 */
#ifndef DAMON_H
#define DAMON_H

#include <stdint.h>

#define DAMON_DEFAULT_SAMPLE_NS   5000000ull    /* DAMON's defaults: 5 ms  */
#define DAMON_DEFAULT_AGGR_NS   100000000ull    /* and 100 ms              */
#define DAMON_DEFAULT_MAX_PASSES 4u

struct damon_attrs {
	uint64_t sample_ns;        /* sampling interval                       */
	uint64_t aggr_ns;          /* aggregation interval                    */
	unsigned max_passes;       /* K                                       */
};

/* Checks per aggregation interval: aggr / sample, at least 1. */
unsigned damon_checks(const struct damon_attrs *a);
/* Number of passes over a region found accessed NR_ACCESSES times. */
unsigned damon_passes(const struct damon_attrs *a, unsigned nr_accesses);
/* Time of pass J of PASSES in the interval that ended at END_NS. */
uint64_t damon_pass_time(const struct damon_attrs *a, uint64_t end_ns, unsigned passes, unsigned j);

#endif
