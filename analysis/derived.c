/* derived.c — metrics derived from vmstat counters (derived.h). */
#include "derived.h"

#include <stdlib.h>
#include <string.h>

const struct derived_metric derived_metrics[] = {
	{ "pgscan", "pages scanned, anon + file",
	  { "pgscan_anon", "pgscan_file" }, { 0 } },
	{ "pgsteal", "pages reclaimed, anon + file",
	  { "pgsteal_anon", "pgsteal_file" }, { 0 } },
	{ "workingset_refault", "refaults of recently evicted pages, anon + file",
	  { "workingset_refault_anon", "workingset_refault_file" }, { 0 } },
	/* Reclaim efficiency, as vmscan's tracepoints are read on linux-mm:
	 * of the pages reclaim looked at, how many did it free. */
	{ "steal_scan_ratio", "pages reclaimed per page scanned",
	  { "pgsteal_anon", "pgsteal_file" }, { "pgscan_anon", "pgscan_file" } },
	{ "steal_scan_ratio_anon", "anon pages reclaimed per anon page scanned",
	  { "pgsteal_anon" }, { "pgscan_anon" } },
	{ "steal_scan_ratio_file", "file pages reclaimed per file page scanned",
	  { "pgsteal_file" }, { "pgscan_file" } },
	/* Refaults per reclaimed page: how much of what reclaim took was
	 * wanted back — the cost side of the efficiency above. */
	{ "refaults_per_steal", "refaults per page reclaimed",
	  { "workingset_refault_anon", "workingset_refault_file" },
	  { "pgsteal_anon", "pgsteal_file" } },
	{ "refaults_per_steal_anon", "anon refaults per anon page reclaimed",
	  { "workingset_refault_anon" }, { "pgsteal_anon" } },
	{ "refaults_per_steal_file", "file refaults per file page reclaimed",
	  { "workingset_refault_file" }, { "pgsteal_file" } },
	/* The work reclaim did: every page it isolated to scan, plus every
	 * page shrink_active_list moved to the inactive list. */
	{ "reclaim_work", "pages scanned plus pages deactivated (pgrefill)",
	  { "pgscan_anon", "pgscan_file", "pgrefill" }, { 0 } },
};
const size_t nr_derived_metrics = sizeof(derived_metrics) / sizeof(derived_metrics[0]);

/* Sum of the named counters; -1 when one is missing. */
static int sum(const struct result *r, const char *const *names, double *out)
{
	*out = 0;
	for (; *names; names++) {
		const double *v = result_metric(r, *names);
		if (!v)
			return -1;
		*out += *v;
	}
	return 0;
}

static int append(struct result *r, const char *name, double v)
{
	char **m = realloc(r->metric, (r->nr_metrics + 1) * sizeof(*m));
	if (!m)
		return -1;
	r->metric = m;
	double *val = realloc(r->value, (r->nr_metrics + 1) * sizeof(*val));
	if (!val)
		return -1;
	r->value = val;
	if (!(m[r->nr_metrics] = strdup(name)))
		return -1;
	val[r->nr_metrics++] = v;
	return 0;
}

int derived_add(struct result *r)
{
	for (size_t i = 0; i < nr_derived_metrics; i++) {
		const struct derived_metric *d = &derived_metrics[i];
		double num, den = 1;
		if (result_metric(r, d->name) || sum(r, d->num, &num) != 0)
			continue;
		if (d->den[0] && (sum(r, d->den, &den) != 0 || den == 0))
			continue;
		if (append(r, d->name, num / den) != 0)
			return -1;
	}
	return 0;
}
