/*
 * damon_check.c — the DAMON expansion rule against an exact stream.
 *
 *   damon-check TEXT SAMPLE_US AGGR_US MAX_PASSES HOT_MB
 *
 * TEXT is `babeltrace2 --clock-cycles` of one capture of an instrumented
 * workload (its exact vmreplay:anon_access stream) that DAMON vaddr
 * monitored (vmreplay_kernel:damon_aggregated), with no reclaim.  Per
 * DAMON aggregation interval it scores the page references that
 * replay/ingest/damon.c's rule (damon_passes and damon_window: k passes,
 * each over the resident pages of a window of ceil(S * a / N) of the S
 * pages of a region found accessed a of N times) makes of the interval's
 * regions, and those the previous rule made (the same passes over every
 * resident page of the region: "whole_region"), against those the
 * workload really made in it.  Resident: touched
 * by the stream before the interval's end (with no reclaim nothing leaves).
 * Both clocks are CLOCK_MONOTONIC: the stream's CTF cycles and DAMON's kts.
 * Prints key<TAB>value lines; exit 0, 1 on bad input, 2 usage.
 */
#include "ingest/damon.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096u

struct access { uint64_t ts, first, n; };
struct region { uint64_t kts, start, end; unsigned nr; };

static int field(const char *line, const char *name, uint64_t *v)
{
	char key[64];
	snprintf(key, sizeof(key), " %s = ", name);
	const char *p = strstr(line, key);
	if (!p)
		return -1;
	char *end;
	*v = strtoull(p + strlen(key), &end, 0);
	return end == p + strlen(key) ? -1 : 0;
}

static int cmp_access(const void *a, const void *b)
{
	const struct access *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 4096;
	p = realloc(p, *cap * size);
	if (!p) {
		fprintf(stderr, "damon-check: out of memory\n");
		exit(1);
	}
	return p;
}

static void pct(const char *key, uint64_t a, uint64_t b, const char *note)
{
	if (b)
		printf("%s\t%.1f%s\n", key, 100.0 * (double)a / (double)b, note);
	else
		printf("%s\t-%s\n", key, note);
}

/* A rule's references in the scored intervals: REFS page references (HOT
 * of them in the hot part) on PAGES pages (a page once per interval),
 * BOTH of which the stream referenced in the same interval. */
struct score { uint64_t refs, hot, pages, both; };

/* N references to a page; NEW: its first in the interval; EXACT: the
 * stream referenced it in the interval */
static void score_page(struct score *sc, int hot, unsigned n, int new, int exact)
{
	sc->refs += n;
	sc->hot += hot ? n : 0;
	sc->pages += new;
	sc->both += new && exact;
}

static void print_score(const char *name, const struct score *sc, uint64_t exact, uint64_t exact_pages,
			const char *note)
{
	char key[64];
	printf("%s\t%s\n", name, note);
	snprintf(key, sizeof(key), "%s_references", name);
	printf("%s\t%" PRIu64 "\n", key, sc->refs);
	snprintf(key, sizeof(key), "%s_references_to_exact", name);
	if (exact)
		printf("%s\t%.3f\n", key, (double)sc->refs / (double)exact);
	else
		printf("%s\t-\n", key);
	snprintf(key, sizeof(key), "%s_hot_share_pct", name);
	pct(key, sc->hot, sc->refs, "");
	snprintf(key, sizeof(key), "%s_pages_referenced", name);
	printf("%s\t%" PRIu64 "\n", key, sc->pages);
	snprintf(key, sizeof(key), "%s_recall_pct", name);
	pct(key, sc->both, exact_pages, "");
	snprintf(key, sizeof(key), "%s_precision_pct", name);
	pct(key, sc->both, sc->pages, "");
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: damon-check TEXT SAMPLE_US AGGR_US MAX_PASSES HOT_MB\n");
		return 2;
	}
	struct damon_attrs at = {
		.sample_ns = strtoull(argv[2], NULL, 10) * 1000,
		.aggr_ns = strtoull(argv[3], NULL, 10) * 1000,
		.max_passes = (unsigned)strtoul(argv[4], NULL, 10),
	};
	uint64_t hot_pages = (strtoull(argv[5], NULL, 10) << 20) / PAGE;
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	struct access *acc = NULL;
	struct region *dam = NULL;
	size_t nacc = 0, cacc = 0, ndam = 0, cdam = 0, lineno = 0;
	char *line = NULL;
	size_t len = 0;
	int rc = 0;
	while (!rc && getline(&line, &len, f) > 0) {
		lineno++;
		uint64_t a, b, c, d;
		if (strstr(line, "vmreplay:anon_access:")) {
			if (sscanf(line, "[%" SCNu64 "]", &a) != 1 || field(line, "addr", &b) || field(line, "len", &c) ||
			    !c) {
				fprintf(stderr, "damon-check: %s:%zu: event anon_access: field addr or len: "
					"unreadable\n", argv[1], lineno);
				rc = 1;
				break;
			}
			acc = grow(acc, &cacc, nacc, sizeof(*acc));
			acc[nacc++] = (struct access){ a, b / PAGE, (b + c - 1) / PAGE - b / PAGE + 1 };
		} else if (strstr(line, "vmreplay_kernel:damon_aggregated:")) {
			if (field(line, "kts", &a) || field(line, "start", &b) || field(line, "end", &c) ||
			    field(line, "nr_accesses", &d) || c <= b) {
				fprintf(stderr, "damon-check: %s:%zu: event damon_aggregated: field kts, start, "
					"end or nr_accesses: unreadable\n", argv[1], lineno);
				rc = 1;
				break;
			}
			dam = grow(dam, &cdam, ndam, sizeof(*dam));
			dam[ndam++] = (struct region){ a, b / PAGE, c / PAGE, (unsigned)d };
		}
	}
	free(line);
	fclose(f);
	if (!rc && (!nacc || !ndam)) {
		fprintf(stderr, "damon-check: %s: no anon_access or no damon_aggregated events\n", argv[1]);
		rc = 1;
	}
	if (rc) {
		free(acc);
		free(dam);
		return rc;
	}
	qsort(acc, nacc, sizeof(*acc), cmp_access);
	/* the pages the stream touched: anon-storm's one working set, whose
	 * hot part is its first HOT_MB (from the lowest page touched) */
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < nacc; i++) {
		if (acc[i].first < lo)
			lo = acc[i].first;
		if (acc[i].first + acc[i].n > hi)
			hi = acc[i].first + acc[i].n;
	}
	uint64_t span = hi - lo, hot_end = lo + hot_pages;
	uint8_t *touched = calloc(span, 1);
	uint32_t *refs = calloc(span, sizeof(*refs));      /* in the current interval */
	uint64_t *lengths = calloc(ndam, sizeof(*lengths));
	if (!touched || !refs || !lengths) {
		fprintf(stderr, "damon-check: out of memory\n");
		exit(1);
	}
	uint32_t *seen = calloc(span, sizeof(*seen));    /* the interval a page was last scored in */
	if (!seen) {
		fprintf(stderr, "damon-check: out of memory\n");
		exit(1);
	}
	uint64_t exact = 0, exact_hot = 0, exact_pages = 0;
	struct score rule = { 0, 0, 0, 0 }, whole = { 0, 0, 0, 0 };
	size_t ia = 0, nint = 0, scored = 0, nlen = 0;
	uint64_t prev_end = 0;
	unsigned nr_max = 0;
	for (size_t i = 0; i < ndam; i++)
		if (dam[i].nr > nr_max)
			nr_max = dam[i].nr;
	/* Intervals: the regions of one aggregation's end come together; a
	 * gap of more than half an interval starts the next.  An interval runs
	 * from the previous one's end (the first: AGGR before its end): under
	 * UML kdamond's intervals run longer than asked. */
	for (size_t i = 0; i < ndam;) {
		size_t j = i + 1;
		while (j < ndam && dam[j].kts - dam[j - 1].kts <= at.aggr_ns / 2)
			j++;
		uint64_t end = dam[i].kts, start = nint ? prev_end : end - at.aggr_ns;
		if (nint)
			lengths[nlen++] = end - prev_end;
		prev_end = end;
		nint++;
		for (; ia < nacc && acc[ia].ts <= end; ia++)
			for (uint64_t p = acc[ia].first; p < acc[ia].first + acc[ia].n; p++) {
				if (acc[ia].ts > start)
					refs[p - lo]++;
				touched[p - lo] = 1;
			}
		if (start >= acc[0].ts) {
			scored++;
			for (size_t r = i; r < j; r++) {
				unsigned k = damon_passes(&at, dam[r].nr);
				uint64_t s = dam[r].start > lo ? dam[r].start : lo;
				uint64_t e = dam[r].end < hi ? dam[r].end : hi;
				for (uint64_t p = s; p < e; p++) {
					int hot = p < hot_end;
					if (refs[p - lo]) {
						exact += refs[p - lo];
						exact_hot += hot ? refs[p - lo] : 0;
						exact_pages++;
					}
					if (k && touched[p - lo])
						score_page(&whole, hot, k, 1, refs[p - lo] > 0);
				}
				/* the rule: pass j over the resident pages of its window */
				for (unsigned pj = 0; pj < k; pj++) {
					uint64_t wl, ws = damon_window(&at, dam[r].start, dam[r].end - dam[r].start, dam[r].nr,
								       damon_pass_time(&at, end, k, pj), &wl);
					for (uint64_t p = ws > s ? ws : s; p < ws + wl && p < e; p++) {
						if (!touched[p - lo])
							continue;
						int first = seen[p - lo] != nint;
						seen[p - lo] = (uint32_t)nint;
						score_page(&rule, p < hot_end, 1, first, refs[p - lo] > 0);
					}
				}
			}
		}
		memset(refs, 0, span * sizeof(*refs));
		i = j;
	}
	qsort(lengths, nlen, sizeof(*lengths), cmp_u64);
	printf("aggregation_intervals\t%zu (%zu scored)\n", nint, scored);
	if (nlen)
		printf("interval_ms_median\t%.1f\n", (double)lengths[nlen / 2] / 1e6);
	else
		printf("interval_ms_median\t-\n");
	printf("nr_accesses_max\t%u\n", nr_max);
	printf("damon_regions\t%zu\n", ndam);
	printf("checks_per_interval\t%u (sample %" PRIu64 " us, aggregation %" PRIu64 " us, max %u passes)\n",
	       damon_checks(&at), at.sample_ns / 1000, at.aggr_ns / 1000, at.max_passes);
	printf("stream_accesses\t%zu\n", nacc);
	printf("references_exact\t%" PRIu64 "\n", exact);
	pct("hot_share_exact_pct", exact_hot, exact, "");
	printf("pages_referenced_exact\t%" PRIu64 "\n", exact_pages);
	print_score("rule", &rule, exact, exact_pages,
		    "damon_window: k passes, each over ceil(S * a / N) pages of the region");
	print_score("whole_region", &whole, exact, exact_pages,
		    "the previous rule: k passes, each over every page of the region");
	free(seen);
	free(touched);
	free(refs);
	free(lengths);
	free(acc);
	free(dam);
	return 0;
}
