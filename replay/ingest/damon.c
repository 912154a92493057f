/* damon.c — the DAMON expansion rule (see damon.h). */
#include "damon.h"
#include "mix.h"

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

uint64_t damon_pages(const struct damon_attrs *a, uint64_t span_pages, unsigned nr_accesses)
{
	unsigned n = damon_checks(a), acc = nr_accesses < n ? nr_accesses : n;
	/* ceil(S * a / N) without S * a, which a damaged region's S overflows */
	return span_pages / n * acc + (span_pages % n * acc + n - 1) / n;
}

uint64_t damon_phase(uint64_t start, uint64_t ts)
{
	/* splitmix64's finaliser over the region's first page and the pass's
	 * time: a fixed function of the trace, so every ingest picks the same
	 * pages, and unrelated from region to region and pass to pass, as
	 * damon_rand's sampling addresses are */
	return splitmix64_mix(start * 0x9e3779b97f4a7c15ull ^ ts);
}

uint64_t damon_window(const struct damon_attrs *a, uint64_t start, uint64_t span, unsigned nr_accesses,
		      uint64_t ts, uint64_t *len)
{
	uint64_t m = damon_pages(a, span, nr_accesses);
	*len = m;
	return m ? start + damon_phase(start, ts) % (span - m + 1) : start;
}
