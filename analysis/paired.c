/* paired.c — paired t-test and Wilcoxon signed-rank test (paired.h). */
#include "paired.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

static int finite_pairs(const double *a, const double *b, size_t n)
{
	if (n && (!a || !b))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(a[i]) || !isfinite(b[i]) || !isfinite(a[i] - b[i]))
			return 0;
	return 1;
}

int paired_ttest(const double *a, const double *b, size_t n, double conf_level, struct paired_t *r)
{
	r->n = n;
	r->diff = r->sd = r->t = r->df = r->p = r->ci_low = r->ci_high = NAN;
	if (!(conf_level > 0 && conf_level < 1) || !finite_pairs(a, b, n))
		return PAIRED_EINVAL;
	if (n < 2)
		return PAIRED_ETOOFEW;
	double *d = malloc(n * sizeof(*d));
	if (!d)
		return PAIRED_EINVAL;
	for (size_t i = 0; i < n; i++)
		d[i] = a[i] - b[i];
	r->diff = gsl_stats_mean(d, 1, n);
	r->sd = gsl_stats_sd_m(d, 1, n, r->diff);
	free(d);
	double se = r->sd / sqrt((double)n);
	/* R's test: a standard error below ten ulps of the mean difference. */
	if (se == 0 || se < 10 * DBL_EPSILON * fabs(r->diff))
		return PAIRED_ECONSTANT;
	r->t = r->diff / se;
	r->df = (double)(n - 1);
	r->p = 2 * gsl_cdf_tdist_P(-fabs(r->t), r->df);
	double q = gsl_cdf_tdist_Qinv((1 - conf_level) / 2, r->df);
	r->ci_low = (r->t - q) * se;
	r->ci_high = (r->t + q) * se;
	return PAIRED_OK;
}

#define WILCOXON_MAX_N 1000

/*
 * The number of subsets of {1..n} with each sum: the exact null
 * distribution of V, every sign pattern equally likely.  Counts reach
 * 2^n; in doubles they are exact to n = 53 and, past that, carry the
 * relative rounding of a double, far below what a p-value shows.
 */
double wilcoxon_cdf(double v, size_t n)
{
	if (n > WILCOXON_MAX_N)
		return NAN;
	size_t max = n * (n + 1) / 2;
	if (v < 0)
		return 0;
	if (v >= (double)max)
		return 1;
	double *c = calloc(max + 1, sizeof(*c));
	if (!c)
		return NAN;
	c[0] = 1;
	for (size_t k = 1; k <= n; k++)
		for (size_t s = k * (k + 1) / 2; s >= k; s--)
			c[s] += c[s - k];
	double below = 0, total = ldexp(1, (int)n);
	for (size_t s = 0; s <= (size_t)floor(v + 1e-7); s++)
		below += c[s];
	free(c);
	return below / total;
}

struct ranked {
	double abs;
	int positive;
};

static int by_abs(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->abs, b = ((const struct ranked *)y)->abs;
	return (a > b) - (a < b);
}

int wilcoxon_signed_rank(const double *a, const double *b, size_t n, struct wilcoxon *r)
{
	r->n = 0;
	r->v = r->p = NAN;
	r->exact = 0;
	if (!finite_pairs(a, b, n))
		return PAIRED_EINVAL;
	struct ranked *x = malloc((n + 1) * sizeof(*x));
	if (!x)
		return PAIRED_EINVAL;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		double d = a[i] - b[i];
		if (d != 0)
			x[m++] = (struct ranked){ fabs(d), d > 0 };
	}
	int zeroes = m < n;
	r->n = m;
	if (m == 0) {
		free(x);
		return PAIRED_ETOOFEW;
	}
	qsort(x, m, sizeof(*x), by_abs);
	/* Average ranks over ties; the tie correction of the variance. */
	double v = 0, ties = 0;
	int tied = 0;
	for (size_t i = 0; i < m;) {
		size_t j = i;
		while (j + 1 < m && x[j + 1].abs == x[i].abs)
			j++;
		double rank = (double)(i + j + 2) / 2, t = (double)(j - i + 1);
		for (size_t k = i; k <= j; k++)
			if (x[k].positive)
				v += rank;
		if (j > i) {
			tied = 1;
			ties += t * t * t - t;
		}
		i = j + 1;
	}
	free(x);
	r->v = v;
	double dm = (double)m, mid = dm * (dm + 1) / 4;
	if (m < 50 && !tied && !zeroes) {
		r->exact = 1;
		/* The upper tail by symmetry, P(V >= v) = P(V <= max - v), so a
		 * small p is not the difference of two numbers near 1. */
		double p = wilcoxon_cdf(v > mid ? dm * (dm + 1) / 2 - v : v, m);
		r->p = fmin(2 * p, 1);
		return PAIRED_OK;
	}
	double sigma = sqrt(dm * (dm + 1) * (2 * dm + 1) / 24 - ties / 48);
	double z = v - mid;
	if (!(sigma > 0))
		return PAIRED_ECONSTANT;
	z = (z - (z > 0 ? 0.5 : z < 0 ? -0.5 : 0)) / sigma;
	r->p = 2 * fmin(gsl_cdf_ugaussian_P(z), gsl_cdf_ugaussian_Q(z));
	return PAIRED_OK;
}
