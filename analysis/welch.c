/*
 * welch.c — Welch's two-sample t-test; see welch.h for the interface.
 *
 * The formulas are written in the same order as R's t.test.default so that
 * results agree with R to rounding error, which is how tests/test_welch.c
 * checks them.
 */
#include "welch.h"

#include <float.h>
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

/* Fields that are only meaningful on success start out as NaN, so that an
 * error return never leaves a plausible value (such as 0) behind. */
static void result_reset(struct welch_result *r, size_t n_a, size_t n_b,
                         double conf_level)
{
    r->n_a = n_a;
    r->n_b = n_b;
    r->mean_a = r->mean_b = NAN;
    r->var_a = r->var_b = NAN;
    r->diff = r->se = r->t = r->df = r->p = NAN;
    r->conf_level = conf_level;
    r->ci_low = r->ci_high = NAN;
}

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

int welch_ttest(const double *a, size_t n_a, const double *b, size_t n_b,
                double conf_level, struct welch_result *out)
{
    if (out == NULL)
        return WELCH_EINVAL;
    result_reset(out, n_a, n_b, conf_level);

    /* The negated comparison also rejects a NaN conf_level. */
    if (!(conf_level > 0.0 && conf_level < 1.0))
        return WELCH_EINVAL;
    if ((n_a > 0 && a == NULL) || (n_b > 0 && b == NULL))
        return WELCH_EINVAL;
    /* R would drop NA here; a trace analysis that produced NaN or Inf has a
     * bug upstream, and dropping values would hide it. */
    if (!all_finite(a, n_a) || !all_finite(b, n_b))
        return WELCH_EINVAL;

    /* Means are well defined from one observation on; report them even when
     * the test itself cannot run, as documented in welch.h. */
    if (n_a >= 1)
        out->mean_a = gsl_stats_mean(a, 1, n_a);
    if (n_b >= 1)
        out->mean_b = gsl_stats_mean(b, 1, n_b);
    out->diff = out->mean_a - out->mean_b;   /* NaN if a mean is missing */
    if (n_a < 2 || n_b < 2)
        return WELCH_ETOOFEW;

    /* gsl_stats_variance divides by n - 1, like R's var(). Passing the mean
     * we already have avoids a second pass to recompute it. */
    out->var_a = gsl_stats_variance_m(a, 1, n_a, out->mean_a);
    out->var_b = gsl_stats_variance_m(b, 1, n_b, out->mean_b);

    /* The inferential numbers live in locals until they are known to be
     * good, so an error return leaves them NaN as welch.h promises. */
    const double na = (double)n_a, nb = (double)n_b;
    const double se2_a = out->var_a / na;   /* squared SE of mean_a */
    const double se2_b = out->var_b / nb;   /* squared SE of mean_b */
    const double se2 = se2_a + se2_b;
    const double se = sqrt(se2);

    /* Same test as R: a standard error below ten ulps of the larger mean is
     * indistinguishable from rounding noise, so t would be meaningless even
     * if it were finite. R's check misses se == 0 with both means zero and
     * then returns NaN; the explicit se == 0 test closes that hole. */
    const double scale = fmax(fabs(out->mean_a), fabs(out->mean_b));
    if (se == 0.0 || se < 10.0 * DBL_EPSILON * scale)
        return WELCH_ECONSTANT;

    const double t = out->diff / se;

    /* Welch–Satterthwaite: df = se^4 / (se_a^4/(n_a-1) + se_b^4/(n_b-1)).
     * It lies between min(n_a, n_b) - 1 and n_a + n_b - 2; when one sample
     * is constant it reduces to the other sample's n - 1. */
    const double df = se2 * se2 / (se2_a * se2_a / (na - 1.0) + se2_b * se2_b / (nb - 1.0));

    /* Huge inputs can overflow the variances (Inf) and then t or df become
     * 0, Inf or NaN; none of those is a test result. */
    if (!isfinite(se) || !isfinite(t) || !isfinite(df) || !(df > 0.0))
        return WELCH_ERANGE;

    out->se = se;
    out->t = t;
    out->df = df;

    /* Two-sided p from the lower tail at -|t|: computing 1 - P(|T| < |t|)
     * instead would cancel to 0 for large |t| and lose tiny p-values. */
    out->p = 2.0 * gsl_cdf_tdist_P(-fabs(t), df);

    /* The interval uses the upper alpha/2 quantile. Qinv works from the
     * upper tail directly, which stays accurate when alpha is small. */
    const double alpha = 1.0 - conf_level;
    const double q = gsl_cdf_tdist_Qinv(alpha / 2.0, df);
    /* (t -/+ q) * se, the order R uses, so rounding matches R's too. */
    out->ci_low = (t - q) * se;
    out->ci_high = (t + q) * se;
    return WELCH_OK;
}

const char *welch_strerror(int status)
{
    switch (status) {
    case WELCH_OK:        return "success";
    case WELCH_ETOOFEW:   return "each sample needs at least 2 observations";
    case WELCH_ECONSTANT: return "both samples are essentially constant; t is undefined";
    case WELCH_EINVAL:    return "invalid argument (NULL, non-finite data, or conf_level not in (0,1))";
    case WELCH_ERANGE:    return "statistics overflowed; data too large in magnitude";
    default:              return "unknown welch status";
    }
}
