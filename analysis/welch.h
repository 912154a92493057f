/*
 * welch.h — Welch's two-sample t-test (unequal variances), on GSL.
 *
 * Compares the means of two independent samples a and b without assuming
 * equal variances. Conventions follow R's
 *
 *     t.test(x = a, y = b, var.equal = FALSE, mu = 0,
 *            alternative = "two.sided", conf.level = conf_level)
 *
 * so every number here can be checked against R: the difference is
 * mean_a - mean_b, t is that difference over its standard error, df is the
 * Welch–Satterthwaite approximation, p is two-sided, and the confidence
 * interval is for mean_a - mean_b.
 *
 * Usage:
 *
 *     struct welch_result r;
 *     int rc = welch_ttest(a, n_a, b, n_b, 0.95, &r);
 *     if (rc != WELCH_OK)
 *         fprintf(stderr, "welch: %s\n", welch_strerror(rc));
 *     else
 *         printf("t = %g, df = %g, p = %g\n", r.t, r.df, r.p);
 */
#ifndef VMREPLAY_WELCH_H
#define VMREPLAY_WELCH_H

#include <stddef.h>

/* Return codes of welch_ttest(). Zero is success; errors are negative. */
enum welch_status {
    WELCH_OK = 0,
    /* A sample has fewer than 2 observations: its variance is undefined. */
    WELCH_ETOOFEW = -1,
    /* Both samples are (essentially) constant, so the standard error of the
     * difference is zero and t is undefined. R stops here with "data are
     * essentially constant"; the same threshold is used (see welch.c). */
    WELCH_ECONSTANT = -2,
    /* NULL pointer, conf_level outside (0, 1), or a non-finite observation.
     * Unlike R, NA/Inf values are not dropped silently: filter them first. */
    WELCH_EINVAL = -3,
    /* The data are finite but the statistics overflowed (|x| near DBL_MAX). */
    WELCH_ERANGE = -4,
};

struct welch_result {
    size_t n_a, n_b;       /* sample sizes */
    double mean_a, mean_b; /* sample means */
    double var_a, var_b;   /* sample variances, denominator n - 1 */
    double diff;           /* mean_a - mean_b */
    double se;             /* standard error of diff: sqrt(var_a/n_a + var_b/n_b)
                              (not called "stderr": that is a stdio macro) */
    double t;              /* diff / se */
    double df;             /* Welch–Satterthwaite degrees of freedom */
    double p;              /* two-sided p-value, 2 * P(T_df <= -|t|) */
    double conf_level;     /* the level the interval was computed for */
    double ci_low, ci_high;/* conf_level interval for mean_a - mean_b */
};

/*
 * Runs the test on a[0..n_a) and b[0..n_b). conf_level is the confidence
 * level of the interval, e.g. 0.95; it must lie strictly between 0 and 1.
 *
 * Returns WELCH_OK and fills *out completely, or a negative welch_status.
 * On error *out (when out is not NULL) still holds the sizes, conf_level
 * and whatever descriptive statistics are defined (means and diff for
 * n >= 1, variances for n >= 2, all only once the arguments were valid);
 * se, t, df, p, ci_low and ci_high are NaN, so a caller that ignores the
 * return code gets NaN rather than a plausible-looking number.
 */
int welch_ttest(const double *a, size_t n_a, const double *b, size_t n_b,
                double conf_level, struct welch_result *out);

/* A short English description of a welch_status code. */
const char *welch_strerror(int status);

#endif /* VMREPLAY_WELCH_H */
