/* stats.c — gather a sweep's results; describe and test them (stats.h). */
#include "stats.h"
#include "derived.h"
#include "holm.h"
#include "paired.h"
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

const char *const stats_headline[] = {
	"pgscan_anon", "pgscan_file", "pgsteal_anon", "pgsteal_file",
	"workingset_refault_anon", "workingset_refault_file",
};
const size_t stats_nr_headline = sizeof(stats_headline) / sizeof(stats_headline[0]);

int stats_in_family(const struct stats *st, const char *metric)
{
	if (st->all_metrics || strcmp(metric, st->outcome) == 0)
		return 1;
	for (size_t i = 0; i < stats_nr_headline; i++)
		if (strcmp(stats_headline[i], metric) == 0)
			return 1;
	return 0;
}

const char *stats_rep_name(enum stats_replicates r)
{
	return r == STATS_REP_CAPTURES ? "captures" : "seeds";
}

const char *stats_method_name(enum stats_method m)
{
	return m == STATS_PAIRED ? "paired" : "welch";
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

/* Values of one (group, metric) while gathering, each with its capture. */
struct cell {
	double *x;
	size_t *cap;
	size_t n;
};

/* Per group, its cells indexed by metric; a group's row grows when a
 * result brings a metric its earlier results did not have. */
struct group_cells {
	struct cell *c;
	size_t n;
};

static int add_value(struct group_cells **gc, size_t *nr_gc, size_t group, size_t metric, double v,
		     size_t cap)
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
	size_t *k = grow(c->cap, c->n, sizeof(*k));
	if (!k)
		return -1;
	c->cap = k;
	c->x[c->n] = v;
	c->cap[c->n++] = cap;
	return 0;
}

/*
 * A cell's values as replicates: with two captures or more, one per
 * capture, the mean of its seeds, and the seeds' pooled within-capture
 * sd beside; with one, the seeds themselves.  Captures in name order, so
 * that both sides of a paired test list them alike.
 */
struct by_cap {
	const char *name;
	size_t cap;
	double v;
};

static int cmp_by_cap(const void *a, const void *b)
{
	const struct by_cap *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->v > y->v) - (x->v < y->v);
}

static int make_replicates(const struct stats *st, struct cell *c, struct stats_row *r)
{
	struct by_cap *v = malloc((c->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < c->n; i++)
		v[i] = (struct by_cap){ st->captures[c->cap[i]], c->cap[i], c->x[i] };
	qsort(v, c->n, sizeof(*v), cmp_by_cap);
	size_t caps = 0;
	for (size_t i = 0; i < c->n; i++)
		caps += i == 0 || v[i].cap != v[i - 1].cap;
	r->runs = c->n;
	r->seed_sd = NAN;
	if (caps < 2) {
		r->rep = STATS_REP_SEEDS;
		r->x = c->x;
		r->cap = c->cap;
		r->n = c->n;
		c->x = NULL;
		c->cap = NULL;
		free(v);
		if (r->n >= 2)
			r->seed_sd = gsl_stats_sd(r->x, 1, r->n);
		return 0;
	}
	r->rep = STATS_REP_CAPTURES;
	r->x = malloc(caps * sizeof(*r->x));
	r->cap = malloc(caps * sizeof(*r->cap));
	if (!r->x || !r->cap) {
		free(v);
		return -1;
	}
	double ss = 0;
	size_t dof = 0;
	r->n = 0;
	for (size_t i = 0, j; i < c->n; i = j) {
		for (j = i; j < c->n && v[j].cap == v[i].cap; j++)
			;
		double sum = 0;
		for (size_t k = i; k < j; k++)
			sum += v[k].v;
		double m = sum / (double)(j - i);
		for (size_t k = i; k < j; k++)
			ss += (v[k].v - m) * (v[k].v - m);
		dof += j - i - 1;
		r->x[r->n] = m;
		r->cap[r->n++] = v[i].cap;
	}
	if (dof)
		r->seed_sd = sqrt(ss / (double)dof);
	free(v);
	return 0;
}

/* Cohen's d with the mean of the two variances: Welch does not assume
 * them equal, so neither does its effect size; the paired test uses the
 * same d (d_av), so that effects compare across designs. */
static double cohens_d(double diff, const double *a, size_t na, const double *b, size_t nb)
{
	if (na < 2 || nb < 2)
		return NAN;
	return diff / sqrt((gsl_stats_variance(a, 1, na) + gsl_stats_variance(b, 1, nb)) / 2);
}

/* The captures both rows replayed, as two parallel arrays.  Returns
 * their number. */
static size_t common_captures(const struct stats *st, const struct stats_row *r,
			      const struct stats_row *b, double *x, double *y)
{
	size_t k = 0;
	for (size_t i = 0, j = 0; i < r->n && j < b->n;) {
		int c = strcmp(st->captures[r->cap[i]], st->captures[b->cap[j]]);
		if (c == 0) {
			x[k] = r->x[i++];
			y[k++] = b->x[j++];
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	return k;
}

static int test_row(struct stats *st, struct stats_row *r)
{
	const struct stats_row *b = &st->rows[r->base];
	r->diff = r->mean - b->mean;
	r->rel_diff = b->mean != 0 ? r->diff / fabs(b->mean) : NAN;
	if (r->rep == STATS_REP_CAPTURES && b->rep == STATS_REP_CAPTURES) {
		double *x = malloc((r->n + 1) * sizeof(*x)), *y = malloc((r->n + 1) * sizeof(*y));
		if (!x || !y) {
			free(x);
			free(y);
			return -1;
		}
		size_t k = common_captures(st, r, b, x, y);
		if (k >= 2) {
			struct paired_t t;
			struct wilcoxon w;
			int rc = paired_ttest(x, y, k, st->conf_level, &t);
			r->method = STATS_PAIRED;
			r->pairs = k;
			r->diff = t.diff;
			double bm = gsl_stats_mean(y, 1, k);
			r->rel_diff = bm != 0 ? r->diff / fabs(bm) : NAN;
			r->d = cohens_d(r->diff, x, k, y, k);
			if (rc == PAIRED_OK) {
				r->test = STATS_TESTED;
				r->t = t.t;
				r->df = t.df;
				r->p = t.p;
				r->diff_lo = t.ci_low;
				r->diff_hi = t.ci_high;
			} else {
				r->test = rc == PAIRED_ECONSTANT ? STATS_CONSTANT : STATS_TOO_FEW;
			}
			if (wilcoxon_signed_rank(x, y, k, &w) == PAIRED_OK) {
				r->w_v = w.v;
				r->w_p = w.p;
				r->w_exact = w.exact;
			}
			free(x);
			free(y);
			return 0;
		}
		free(x);
		free(y);
	}
	struct welch_result w;
	int rc = welch_ttest(r->x, r->n, b->x, b->n, st->conf_level, &w);
	r->method = STATS_WELCH;
	if (rc == WELCH_OK) {
		r->test = STATS_TESTED;
		r->t = w.t;
		r->df = w.df;
		r->p = w.p;
		r->diff_lo = w.ci_low;
		r->diff_hi = w.ci_high;
		r->d = w.diff / sqrt((w.var_a + w.var_b) / 2);
	} else {
		r->test = rc == WELCH_ECONSTANT ? STATS_CONSTANT : STATS_TOO_FEW;
	}
	return 0;
}

static int listed(const char *s, char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

/* --policy P keeps P and the baseline it is tested against. */
static int policy_wanted(const struct stats_opts *o, const char *policy)
{
	if (!o->nr_policies || listed(policy, o->policies, o->nr_policies))
		return 1;
	char base[64];
	for (size_t i = 0; i < o->nr_policies; i++)
		if (baseline_of(o->baselines, o->policies[i], base, sizeof(base)) &&
		    strcmp(base, policy) == 0)
			return 1;
	return 0;
}

static long find_capture(const struct stats *st, const char *name)
{
	for (size_t i = 0; i < st->nr_captures; i++)
		if (strcmp(st->captures[i], name) == 0)
			return (long)i;
	return -1;
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
	st->all_metrics = o->all_metrics;
	snprintf(st->outcome, sizeof(st->outcome), "%s", o->outcome ? o->outcome : "work_done");
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
		const struct sweep_trace_info *ti = &pl->traces[run->trace];
		char rel[64], path[4200];
		if ((o->nr_traces && !listed(ti->set, o->traces, o->nr_traces) &&
		     !listed(ti->name, o->traces, o->nr_traces)) || !policy_wanted(o, run->policy))
			continue;
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
		snprintf(key.trace, sizeof(key.trace), "%s", ti->set);
		long cap = find_capture(st, ti->name);
		if (cap < 0) {
			char **nc = grow(st->captures, st->nr_captures, sizeof(*nc));
			if (!nc)
				goto oom_res;
			st->captures = nc;
			if (!(nc[st->nr_captures] = strdup(ti->name)))
				goto oom_res;
			cap = (long)st->nr_captures++;
		}
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
			if (add_value(&gc, &nr_gc, (size_t)g, (size_t)m, res.value[k], (size_t)cap) != 0)
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
			if (!c || !c->n || (o->nr_metrics && !listed(st->metrics[m], o->metrics, o->nr_metrics)))
				continue;
			struct stats_row *r = &st->rows[st->nr_rows++];
			r->group = g;
			r->metric = m;
			if (make_replicates(st, c, r) != 0) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			r->w_v = r->w_p = r->w_p_holm = NAN;
			stats_describe(r->x, r->n, o->conf_level, &r->mean, &r->sd, &r->ci_low, &r->ci_high);
			r->base = -1;
			r->diff = r->rel_diff = r->t = r->df = r->p = r->p_holm = r->d = NAN;
			r->diff_lo = r->diff_hi = NAN;
		}
	/* Pair each row with its baseline's row in the same condition. */
	double *p = malloc((st->nr_rows + 1) * sizeof(*p)), *wp = malloc((st->nr_rows + 1) * sizeof(*wp));
	if (!p || !wp) {
		free(p);
		free(wp);
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < st->nr_rows; i++) {
		struct stats_row *r = &st->rows[i];
		struct stats_group key = st->groups[r->group];
		char base[sizeof(key.policy)];
		p[i] = wp[i] = NAN;
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
		if (test_row(st, r) != 0) {
			free(p);
			free(wp);
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		st->nr_tested += r->test == STATS_TESTED;
		r->in_family = r->test == STATS_TESTED &&
			(o->nr_metrics || stats_in_family(st, st->metrics[r->metric]));
		if (!r->in_family)
			continue;
		p[i] = r->p;
		wp[i] = r->w_p;
		st->nr_tests++;
	}
	if (o->nr_metrics)
		st->all_metrics = 1;    /* the family is what was asked for */
	if (holm_adjust(p, p, st->nr_rows) != 0 || holm_adjust(wp, wp, st->nr_rows) != 0) {
		free(p);
		free(wp);
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < st->nr_rows; i++) {
		st->rows[i].p_holm = p[i];
		st->rows[i].w_p_holm = wp[i];
		st->rows[i].significant = !isnan(p[i]) && p[i] < o->alpha;
	}
	free(p);
	free(wp);
	rc = 0;
out:
	for (size_t g = 0; g < nr_gc; g++) {
		for (size_t m = 0; m < gc[g].n; m++) {
			free(gc[g].c[m].x);
			free(gc[g].c[m].cap);
		}
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
	for (size_t i = 0; i < st->nr_rows; i++) {
		free(st->rows[i].x);
		free(st->rows[i].cap);
	}
	free(st->rows);
	for (size_t i = 0; i < st->nr_captures; i++)
		free(st->captures[i]);
	free(st->captures);
	for (size_t i = 0; i < st->nr_metrics; i++)
		free(st->metrics[i]);
	free(st->metrics);
	free(st->groups);
	memset(st, 0, sizeof(*st));
}
