/* damon.c — the DAMON expansion rule (see damon.h). */
#include "damon.h"

unsigned damon_checks(const struct damon_attrs *a)
{
	if (!a->sample_ns || a->aggr_ns < a->sample_ns)
		return 1;
	uint64_t n = a->aggr_ns / a->sample_ns;
	return n > 1000000 ? 1000000 : (unsigned)n;
}

unsigned damon_passes(const struct damon_attrs *a, unsigned nr_accesses)
{
	unsigned n = damon_checks(a), k = a->max_passes ? a->max_passes : 1;
	unsigned acc = nr_accesses < n ? nr_accesses : n;
	if (acc == 0)
		return 0;
	uint64_t p = ((uint64_t)acc * k + n - 1) / n;     /* ceil(a * K / N) */
	return p < k ? (unsigned)p : k;
}

uint64_t damon_pass_time(const struct damon_attrs *a, uint64_t end_ns, unsigned passes, unsigned j)
{
	uint64_t start = end_ns > a->aggr_ns ? end_ns - a->aggr_ns : 0, len = end_ns - start;
	if (!passes)
		return end_ns;
	return start + (2 * (uint64_t)j + 1) * len / (2 * (uint64_t)passes);
}
