/*
 * paired.h — tests of paired samples: the same captures replayed under
 * two policies, compared capture by capture.
 *
 * The paired t-test is R's t.test(a, b, paired = TRUE) and the Wilcoxon
 * signed-rank test R's wilcox.test(a, b, paired = TRUE) (two-sided,
 * mu = 0, the defaults): tests/test_paired.c checks both against R.
 * GSL has the t distribution but no signed-rank test, so the latter is
 * written here.
 */
#ifndef PAIRED_H
#define PAIRED_H

#include <stddef.h>

enum paired_status {
	PAIRED_OK = 0,
	PAIRED_ETOOFEW = -1,           /* fewer than 2 pairs (t); no non-zero difference (Wilcoxon) */
	PAIRED_ECONSTANT = -2,         /* the differences are (essentially) constant: t undefined */
	PAIRED_EINVAL = -3,            /* NULL, a non-finite value, conf_level not in (0, 1) */
};

struct paired_t {
	size_t n;
	double diff;                   /* mean of a[i] - b[i] */
	double sd;                     /* their standard deviation */
	double t, df, p;               /* two-sided */
	double ci_low, ci_high;        /* conf_level interval of diff */
};

/* Paired t on a[0..n) - b[0..n).  On error the fields it could not
 * compute are NaN. */
int paired_ttest(const double *a, const double *b, size_t n, double conf_level, struct paired_t *r);

struct wilcoxon {
	size_t n;                      /* pairs whose difference is not 0 (R drops zeros) */
	double v;                      /* R's V: the sum of the ranks of the positive differences */
	double p;                      /* two-sided */
	int exact;                     /* p from the exact null distribution (n < 50, no ties
					  and no zero difference), else the normal approximation
					  with continuity and tie corrections, as R */
};

/* Wilcoxon's signed-rank test on a[0..n) - b[0..n). */
int wilcoxon_signed_rank(const double *a, const double *b, size_t n, struct wilcoxon *r);

/* P(V <= v) for n pairs under the null hypothesis (R's psignrank(v, n)),
 * exactly; n at most 1000.  NaN for a larger n. */
double wilcoxon_cdf(double v, size_t n);

#endif
