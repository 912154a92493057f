/*
 * damon.h — how a DAMON sample becomes page references (the expansion
 * rule of FORMAT.md, "Demand from kernel events").
 *
 * DAMON's damon_aggregated tracepoint (kdamond_reset_aggregated) reports,
 * at the end of each aggregation interval, regions [start, end) of a
 * monitored address space with nr_accesses: in how many of the interval's
 * N = aggr_us / sample_us sampling checks the region was found accessed.
 * A check looks at ONE page: __damon_va_prepare_access_check picks
 * sampling_addr = damon_rand(start, end) and clears its accessed bit
 * (damon_va_mkold), and a sample interval later __damon_va_check_access
 * asks damon_va_young of that page alone (damon_update_region_access_rate
 * counts it); a region kdamond_merge_regions merged reports its parts'
 * size-weighted mean (damon_merge_two_regions).  So if a fraction f of a
 * region's S pages is accessed per sample interval, E[a] = N f: a / N
 * estimates f, and S a / N the pages accessed in one sample interval.  It
 * says nothing of which pages, nor whether they are the same in every
 * sample interval (S a / N distinct pages in the interval) or different
 * ones (up to S a): the estimator takes the pages the sample supports,
 * S a / N, the lower bound.  The rule:
 *
 *   a = min(nr_accesses, N), passes k = 0 if a = 0, else min(K, ceil(a * K / N))
 *   pass j (0 <= j < k) happens at  end - aggr + (2j + 1) * aggr / (2k)
 *   (an interval that would begin before time 0 begins there)
 *   pass j covers m = ceil(S * a / N) pages of the region, from page
 *   start + damon_phase(start, time of pass j) mod (S - m + 1) on
 *
 * where K (max_passes, default 4) bounds the cost: a region accessed at
 * every check gets K passes over all its pages, spread evenly over the
 * interval; one found accessed once of 20 gets one pass, in the interval's
 * middle, over a twentieth of it.  The window's place is a hash of the
 * region and the pass time (deterministic: the trace does not say which
 * pages damon_rand picked, and no choice could be better informed), and
 * differs from pass to pass as DAMON's sampled pages do.  A pass
 * references the pages of its window that the demand stream already holds
 * and that are resident in it (first touches come from page faults, never
 * from DAMON: a region's unfaulted pages are not memory, and DAMON finds
 * them never young, so they count in S), as loads (DAMON cannot tell loads
 * from stores).  Against an exact stream (traces/damon/uml-6.12-anon-storm,
 * capture/testbed/damon_check.c) this references 8,036 pages in the
 * intervals the stream referenced 60,019 in, 69.9 % of them ones the
 * stream referenced, where every page of the region (the previous rule)
 * gave 54,482 at 49.1 %: replay/DEVIATIONS.md.
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

/* Pages a pass covers of a region of SPAN_PAGES pages found accessed
 * NR_ACCESSES times: ceil(S * a / N). */
uint64_t damon_pages(const struct damon_attrs *a, uint64_t span_pages, unsigned nr_accesses);
/* Where in the region at page START the pass at TS puts its window. */
uint64_t damon_phase(uint64_t start, uint64_t ts);
/* The window of the pass at TS over the region of SPAN pages at page
 * START: returns its first page, its length in *LEN. */
uint64_t damon_window(const struct damon_attrs *a, uint64_t start, uint64_t span, unsigned nr_accesses,
		      uint64_t ts, uint64_t *len);

#endif
