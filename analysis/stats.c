/* stats.c — gather a sweep's results; describe and test them (stats.h). */
#include "stats.h"
#include "derived.h"
#include "holm.h"
#include "result.h"
#include "sweep/sweep.h"
#include "welch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

void stats_describe(const double *x, size_t n, double conf_level,
		    double *mean, double *sd, double *lo, double *hi)
{
	*mean = n ? gsl_stats_mean(x, 1, n) : NAN;
	*sd = *lo = *hi = NAN;
	if (n < 2)
		return;
	*sd = gsl_stats_sd_m(x, 1, n, *mean);
	/* Student's t interval of the mean, as R's t.test(x)$conf.int. */
	double q = gsl_cdf_tdist_Qinv((1 - conf_level) / 2, (double)(n - 1));
	double half = q * *sd / sqrt((double)n);
	*lo = *mean - half;
	*hi = *mean + half;
}

const char *stats_test_name(enum stats_test t)
{
	switch (t) {
	case STATS_TESTED: return "ok";
	case STATS_TOO_FEW: return "too-few";
	case STATS_CONSTANT: return "constant";
	default: return "-";
	}
}

static int same_condition(const struct stats_group *a, const struct stats_group *b)
{
	return strcmp(a->trace, b->trace) == 0 && a->memory_limit == b->memory_limit &&
	       a->node_memory == b->node_memory && strcmp(a->swap, b->swap) == 0 &&
	       a->swappiness == b->swappiness;
}

static long find_group(const struct stats *st, const struct stats_group *g)
{
	for (size_t i = 0; i < st->nr_groups; i++)
		if (same_condition(&st->groups[i], g) && strcmp(st->groups[i].policy, g->policy) == 0)
			return (long)i;
	return -1;
}

static long find_metric(const struct stats *st, const char *name)
{
	for (size_t i = 0; i < st->nr_metrics; i++)
		if (strcmp(st->metrics[i], name) == 0)
			return (long)i;
	return -1;
}

/* Growable arrays: capacity doubles at powers of two. */
static void *grow(void *p, size_t n, size_t size)
{
	if (n && (n & (n - 1)))
		return p;
	return realloc(p, (n ? 2 * n : 8) * size);
}

/* Values of one (group, metric) while gathering. */
struct cell {
	double *x;
	size_t n;
};

/* Per group, its cells indexed by metric; a group's row grows when a
 * result brings a metric its earlier results did not have. */
struct group_cells {
	struct cell *c;
	size_t n;
};

static int add_value(struct group_cells **gc, size_t *nr_gc, size_t group, size_t metric, double v)
{
	if (group >= *nr_gc) {
		struct group_cells *g = realloc(*gc, (group + 1) * sizeof(*g));
		if (!g)
			return -1;
		memset(g + *nr_gc, 0, (group + 1 - *nr_gc) * sizeof(*g));
		*gc = g;
		*nr_gc = group + 1;
	}
	struct group_cells *g = &(*gc)[group];
	if (metric >= g->n) {
		struct cell *c = realloc(g->c, (metric + 1) * sizeof(*c));
		if (!c)
			return -1;
		memset(c + g->n, 0, (metric + 1 - g->n) * sizeof(*c));
		g->c = c;
		g->n = metric + 1;
	}
	struct cell *c = &g->c[metric];
	double *x = grow(c->x, c->n, sizeof(*x));
	if (!x)
		return -1;
	c->x = x;
	c->x[c->n++] = v;
	return 0;
}

static void test_row(struct stats *st, struct stats_row *r)
{
	const struct stats_row *b = &st->rows[r->base];
	struct welch_result w;
	int rc = welch_ttest(r->x, r->n, b->x, b->n, st->conf_level, &w);
	r->diff = r->mean - b->mean;
	r->rel_diff = b->mean != 0 ? r->diff / fabs(b->mean) : NAN;
	if (rc == WELCH_OK) {
		r->test = STATS_TESTED;
		r->t = w.t;
		r->df = w.df;
		r->p = w.p;
		r->diff_lo = w.ci_low;
		r->diff_hi = w.ci_high;
		/* Cohen's d with the mean of the two variances: Welch does not
		 * assume them equal, so neither does its effect size. */
		r->d = w.diff / sqrt((w.var_a + w.var_b) / 2);
	} else {
		r->test = rc == WELCH_ECONSTANT ? STATS_CONSTANT : STATS_TOO_FEW;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A run counted twice would pass for two replicates. */
static int unique_runs(char *const *dirs, const struct sweep_plan *plans, size_t n,
		       char *err, size_t errlen)
{
	size_t total = 0;
	for (size_t d = 0; d < n; d++)
		total += plans[d].nr_runs;
	const char **ids = malloc((total + 1) * sizeof(*ids));
	if (!ids)
		return snprintf(err, errlen, "out of memory"), -1;
	size_t k = 0;
	for (size_t d = 0; d < n; d++)
		for (size_t i = 0; i < plans[d].nr_runs; i++)
			ids[k++] = plans[d].runs[i].id;
	qsort(ids, total, sizeof(*ids), cmp_str);
	for (size_t i = 1; i < total; i++)
		if (strcmp(ids[i - 1], ids[i]) == 0) {
			snprintf(err, errlen, "run %s is in more than one of the sweeps given (%s, ...): "
				 "give each directory once", ids[i], dirs[0]);
			free(ids);
			return -1;
		}
	free(ids);
	return 0;
}

int stats_gather(char *const *dirs, size_t nr_dirs, const struct stats_opts *o, struct stats *st,
		 char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	st->conf_level = o->conf_level;
	st->alpha = o->alpha;
	struct sweep_plan *plans = calloc(nr_dirs + 1, sizeof(*plans));
	if (!plans)
		return snprintf(err, errlen, "out of memory"), -1;
	size_t nr_plans = 0;
	struct group_cells *gc = NULL;
	size_t nr_gc = 0;
	int rc = -1;
	for (; nr_plans < nr_dirs; nr_plans++)
		if (sweep_plan_read(dirs[nr_plans], &plans[nr_plans], err, errlen) != 0)
			goto out;
	if (unique_runs(dirs, plans, nr_dirs, err, errlen) != 0)
		goto out;
	for (size_t d = 0; d < nr_dirs; d++) {
	const char *dir = dirs[d];
	const struct sweep_plan *pl = &plans[d];
	for (size_t i = 0; i < pl->nr_runs; i++) {
		const struct sweep_run *run = &pl->runs[i];
		char rel[64], path[4200];
		sweep_path("results", run, rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		if (access(path, F_OK) != 0) {
			if (!o->partial) {
				snprintf(err, errlen, "%.3000s: missing: run %s (%s, %s) has no result yet; "
					 "finish the sweep, or use --partial", path, run->id,
					 pl->traces[run->trace].name, run->policy);
				goto out;
			}
			st->nr_missing++;
			continue;
		}
		struct result res;
		if (sweep_result_check(path, pl, run, err, errlen) != 0 ||
		    result_read(path, &res, err, errlen) != 0)
			goto out;
		if (derived_add(&res) != 0) {
			result_free(&res);
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		st->nr_results++;
		struct stats_group key = { .swappiness = run->swappiness,
					   .memory_limit = run->memory_limit,
					   .node_memory = run->node_memory };
		snprintf(key.trace, sizeof(key.trace), "%s", pl->traces[run->trace].name);
		snprintf(key.policy, sizeof(key.policy), "%s", run->policy);
		snprintf(key.swap, sizeof(key.swap), "%s", run->swap[0] ? run->swap : "-");
		long g = find_group(st, &key);
		if (g < 0) {
			struct stats_group *ng = grow(st->groups, st->nr_groups, sizeof(*ng));
			if (!ng)
				goto oom_res;
			st->groups = ng;
			g = (long)st->nr_groups;
			st->groups[st->nr_groups++] = key;
		}
		st->groups[g].nr_runs++;
		for (size_t k = 0; k < res.nr_metrics; k++) {
			long m = find_metric(st, res.metric[k]);
			if (m < 0) {
				char **nm = grow(st->metrics, st->nr_metrics, sizeof(*nm));
				if (!nm)
					goto oom_res;
				st->metrics = nm;
				if (!(nm[st->nr_metrics] = strdup(res.metric[k])))
					goto oom_res;
				m = (long)st->nr_metrics++;
			}
			if (add_value(&gc, &nr_gc, (size_t)g, (size_t)m, res.value[k]) != 0)
				goto oom_res;
		}
		result_free(&res);
		continue;
oom_res:
		result_free(&res);
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	}

	/* One row per (group, metric) that has values. */
	st->rows = calloc(st->nr_groups * st->nr_metrics + 1, sizeof(*st->rows));
	if (!st->rows) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t g = 0; g < st->nr_groups; g++)
		for (size_t m = 0; m < st->nr_metrics; m++) {
			struct cell *c = g < nr_gc && m < gc[g].n ? &gc[g].c[m] : NULL;
			if (!c || !c->n)
				continue;
			struct stats_row *r = &st->rows[st->nr_rows++];
			r->group = g;
			r->metric = m;
			r->x = c->x;
			r->n = c->n;
			c->x = NULL;
			stats_describe(r->x, r->n, o->conf_level, &r->mean, &r->sd, &r->ci_low, &r->ci_high);
			r->base = -1;
			r->diff = r->rel_diff = r->t = r->df = r->p = r->p_holm = r->d = NAN;
			r->diff_lo = r->diff_hi = NAN;
		}
	/* Pair each row with its baseline's row in the same condition. */
	double *p = malloc((st->nr_rows + 1) * sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < st->nr_rows; i++) {
		struct stats_row *r = &st->rows[i];
		struct stats_group key = st->groups[r->group];
		char base[sizeof(key.policy)];
		p[i] = NAN;
		if (!baseline_of(o->baselines, key.policy, base, sizeof(base)))
			continue;
		memcpy(key.policy, base, sizeof(base));
		long bg = find_group(st, &key);
		if (bg < 0)
			continue;
		for (size_t j = 0; j < st->nr_rows; j++)
			if (st->rows[j].group == (size_t)bg && st->rows[j].metric == r->metric) {
				r->base = (long)j;
				break;
			}
		if (r->base < 0)
			continue;
		test_row(st, r);
		p[i] = r->p;
		st->nr_tests += r->test == STATS_TESTED;
	}
	if (holm_adjust(p, p, st->nr_rows) != 0) {
		free(p);
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < st->nr_rows; i++) {
		st->rows[i].p_holm = p[i];
		st->rows[i].significant = !isnan(p[i]) && p[i] < o->alpha;
	}
	free(p);
	rc = 0;
out:
	for (size_t g = 0; g < nr_gc; g++) {
		for (size_t m = 0; m < gc[g].n; m++)
			free(gc[g].c[m].x);
		free(gc[g].c);
	}
	free(gc);
	for (size_t d = 0; d < nr_plans; d++)
		sweep_plan_free(&plans[d]);
	free(plans);
	if (rc)
		stats_free(st);
	return rc;
}

void stats_free(struct stats *st)
{
	for (size_t i = 0; i < st->nr_rows; i++)
		free(st->rows[i].x);
	free(st->rows);
	for (size_t i = 0; i < st->nr_metrics; i++)
		free(st->metrics[i]);
	free(st->metrics);
	free(st->groups);
	memset(st, 0, sizeof(*st));
}
