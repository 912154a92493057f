/*
 * test_paired.c — analysis/paired.c against R's t.test(paired = TRUE)
 * and wilcox.test(paired = TRUE).
 *
 * Reference values were produced with
 *
 *     R version 4.2.2 Patched (2022-11-10 r83330) -- "Innocent and Trusting"
 *     (Debian 12 package r-base-core 4.2.2.20221110-2)
 *
 * by saving the script below as ref.R and running "Rscript ref.R"; its
 * output was pasted into the ref table.  R is not a dependency of the
 * project: it is needed only to regenerate that table.
 *
 * ---- ref.R --------------------------------------------------------------
 * options(digits = 17)
 * sets <- list(
 *   sleep      = list(x = sleep$extra[sleep$group == 1], y = sleep$extra[sleep$group == 2]),
 *   depression = list(x = c(1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30),
 *                     y = c(0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29)),
 *   three_up   = list(x = c(12.5, 14.25, 13.0), y = c(10.0, 11.0, 12.5)),
 *   five       = list(x = c(4210, 4388, 4150, 4302, 4275), y = c(4000, 4400, 4101, 4180, 4199)),
 *   zero_tie   = list(x = c(5, 7, 7, 9, 3, 6, 8), y = c(5, 6, 5, 7, 4, 4, 6)),
 *   big        = list(x = c(0.73, 1.92, 0.04, -0.51, 2.26, 1.14, 0.38, -1.08, 0.95, 1.61,
 *                           0.22, 1.47, -0.33, 0.81, 1.05, 2.02, -0.12, 0.59, 1.33, 0.48,
 *                           1.78, -0.71, 0.66, 1.19, 0.09, 1.55, 0.31, -0.24, 1.01, 0.87,
 *                           2.11, 0.45, -0.92, 1.26, 0.18, 1.69, 0.56, 0.99, -0.05, 1.38,
 *                           0.77, 1.84, 0.27, -0.43, 1.12, 0.62, 1.41, 0.13, 0.93, 1.23,
 *                           -0.18, 0.70, 1.58, 0.35, 1.07, 0.51, -0.62, 1.30, 0.83, 0.42),
 *                     y = rep(0.5, 60))
 * )
 * cat(R.version.string, "\n")
 * for (name in names(sets)) {
 *   x <- sets[[name]]$x; y <- sets[[name]]$y
 *   t <- t.test(x, y, paired = TRUE)
 *   w <- suppressWarnings(wilcox.test(x, y, paired = TRUE))
 *   cat(sprintf("{ \"%s\", %.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g, \"%s\" },\n", name,
 *       t$estimate, t$statistic, t$parameter, t$p.value, t$conf.int[1], t$conf.int[2],
 *       w$statistic, w$p.value, w$method))
 * }
 * cat(sprintf("psignrank: %s\n", paste(sprintf("%.17g", c(psignrank(10, 9), psignrank(0, 3), psignrank(30, 20), psignrank(100, 25))), collapse = " ")))
 * w <- wilcox.test(sets$depression$x, sets$depression$y, paired = TRUE, alternative = "greater")
 * cat(sprintf("depression greater: V=%g p=%.17g\n", w$statistic, w$p.value))
 * -------------------------------------------------------------------------
 *
 * Two cases are R's documented examples, whose printed summaries are
 * also checked at that printed precision, so the table cannot drift from
 * the published numbers unnoticed: ?t.test's paired sleep test, "t =
 * -4.0621, df = 9, p-value = 0.002833", and ?wilcox.test's depression
 * data (Hollander & Wolfe, 1973, p. 29), "V = 40, p-value = 0.01953" for
 * alternative = "greater", 0.0390625 two-sided.  The cases cover the
 * exact distribution (no ties, no zero difference, n < 50), the smallest
 * n a capture set has (three: the exact p cannot go below 0.25), ties and
 * zero differences (the normal approximation with R's corrections), and
 * n = 60 (the approximation by size).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "paired.h"

#define LEN(x) (sizeof(x) / sizeof((x)[0]))
#define REL_TOL 1e-9

static void close_to(double got, double want, const char *what, const char *name)
{
	double tol = REL_TOL * fmax(1.0, fabs(want));
	if (!(fabs(got - want) <= tol))
		fail_msg("%s %s: got %.17g, R says %.17g", name, what, got, want);
}

/* ---- data: literally the vectors of ref.R ---------------------------- */

static const double sleep_1[] = { 0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0 };
static const double sleep_2[] = { 1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4 };
static const double dep_x[] = { 1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30 };
static const double dep_y[] = { 0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29 };
static const double three_x[] = { 12.5, 14.25, 13.0 };
static const double three_y[] = { 10.0, 11.0, 12.5 };
static const double five_x[] = { 4210, 4388, 4150, 4302, 4275 };
static const double five_y[] = { 4000, 4400, 4101, 4180, 4199 };
static const double zt_x[] = { 5, 7, 7, 9, 3, 6, 8 };
static const double zt_y[] = { 5, 6, 5, 7, 4, 4, 6 };
static const double big_x[] = {
	0.73, 1.92, 0.04, -0.51, 2.26, 1.14, 0.38, -1.08, 0.95, 1.61,
	0.22, 1.47, -0.33, 0.81, 1.05, 2.02, -0.12, 0.59, 1.33, 0.48,
	1.78, -0.71, 0.66, 1.19, 0.09, 1.55, 0.31, -0.24, 1.01, 0.87,
	2.11, 0.45, -0.92, 1.26, 0.18, 1.69, 0.56, 0.99, -0.05, 1.38,
	0.77, 1.84, 0.27, -0.43, 1.12, 0.62, 1.41, 0.13, 0.93, 1.23,
	-0.18, 0.70, 1.58, 0.35, 1.07, 0.51, -0.62, 1.30, 0.83, 0.42,
};
static double big_y[60];                 /* rep(0.5, 60), filled in main */

struct ref {
	const char *name;
	const double *x, *y;
	size_t n;
	double diff, t, df, p, lo, hi;   /* t.test(x, y, paired = TRUE) */
	double v, wp;                    /* wilcox.test(x, y, paired = TRUE) */
	int exact;
};

#define DATA(x, y) x, y, LEN(x)
static struct ref ref[] = {
	{ "sleep", DATA(sleep_1, sleep_2), -1.5800000000000001, -4.0621276833820366, 9, 0.0028328901973842702, -2.4598857632769824, -0.70011423672301754, 0, 0.0090906980159250559, 0 },
	{ "depression", DATA(dep_x, dep_y), 0.43188888888888888, 3.0353754156485913, 8, 0.016176627434908095, 0.10377871227216852, 0.75999906550560925, 40, 0.0390625, 1 },
	{ "three_up", DATA(three_x, three_y), 2.0833333333333335, 2.5383654128340476, 2, 0.12642930273173472, -1.4480179088176912, 5.6146845754843584, 6, 0.25000000000000006, 1 },
	{ "five", DATA(five_x, five_y), 89, 2.391471006307043, 4, 0.075047782285600065, -14.327037505750873, 192.32703750575089, 14, 0.125, 1 },
	{ "zero_tie", DATA(zt_x, zt_y), 1.1428571428571428, 2.4886840673530206, 6, 0.047246331111390087, 0.019182698315387679, 2.2665315873988985, 19.5, 0.065987372196147059, 0 },
	{ "big", big_x, big_y, 60, 0.21616666666666667, 2.1368796117708664, 59, 0.036764443876349799, 0.013746044318977564, 0.41858728901435577, 1201, 0.035572519403304921, 0 },
};

static void test_against_r(void **state)
{
	(void)state;
	for (size_t i = 0; i < LEN(ref); i++) {
		const struct ref *e = &ref[i];
		struct paired_t t;
		struct wilcoxon w;
		assert_int_equal(paired_ttest(e->x, e->y, e->n, 0.95, &t), PAIRED_OK);
		close_to(t.diff, e->diff, "mean difference", e->name);
		close_to(t.t, e->t, "t", e->name);
		close_to(t.df, e->df, "df", e->name);
		close_to(t.p, e->p, "p", e->name);
		close_to(t.ci_low, e->lo, "ci_low", e->name);
		close_to(t.ci_high, e->hi, "ci_high", e->name);
		assert_int_equal(wilcoxon_signed_rank(e->x, e->y, e->n, &w), PAIRED_OK);
		close_to(w.v, e->v, "V", e->name);
		close_to(w.p, e->wp, "Wilcoxon p", e->name);
		assert_int_equal(w.exact, e->exact);
	}
}

/* The published summaries, at the precision R prints them. */
static void test_published_examples(void **state)
{
	(void)state;
	struct paired_t t;
	assert_int_equal(paired_ttest(sleep_1, sleep_2, 10, 0.95, &t), PAIRED_OK);
	assert_true(fabs(t.t - -4.0621) < 5e-5 && t.df == 9 && fabs(t.p - 0.002833) < 5e-7);
	struct wilcoxon w;
	assert_int_equal(wilcoxon_signed_rank(dep_x, dep_y, 9, &w), PAIRED_OK);
	assert_true(w.v == 40 && w.exact);
	/* One-sided "greater" is the upper tail: P(V >= 40) = 1 - P(V <= 39). */
	assert_true(fabs((1 - wilcoxon_cdf(39, 9)) - 0.01953) < 5e-6);
	close_to(w.p, 0.0390625, "two-sided p", "depression");
	/* n pairs all the same sign: the smallest exact two-sided p, 2 / 2^n. */
	assert_int_equal(wilcoxon_signed_rank(three_x, three_y, 3, &w), PAIRED_OK);
	close_to(w.p, 0.25, "n = 3", "three_up");
}

/* psignrank(q, n) of the last lines of ref.R. */
static void test_null_distribution(void **state)
{
	(void)state;
	close_to(wilcoxon_cdf(10, 9), 0.08203125, "psignrank(10, 9)", "cdf");
	close_to(wilcoxon_cdf(0, 3), 0.12500000000000003, "psignrank(0, 3)", "cdf");
	close_to(wilcoxon_cdf(30, 20), 0.001827239990234375, "psignrank(30, 20)", "cdf");
	close_to(wilcoxon_cdf(100, 25), 0.04786673188209533, "psignrank(100, 25)", "cdf");
	assert_true(wilcoxon_cdf(-1, 5) == 0 && wilcoxon_cdf(15, 5) == 1);
	assert_true(isnan(wilcoxon_cdf(3, 5000)));
}

/* What R refuses: constant differences, too few pairs, bad data. */
static void test_refusals(void **state)
{
	(void)state;
	const double a[] = { 3, 4, 5 }, b[] = { 2, 3, 4 }, nan[] = { 1, NAN, 2 };
	struct paired_t t;
	struct wilcoxon w;
	assert_int_equal(paired_ttest(a, b, 3, 0.95, &t), PAIRED_ECONSTANT);
	assert_true(isnan(t.t) && isnan(t.p) && t.diff == 1);
	assert_int_equal(paired_ttest(a, b, 1, 0.95, &t), PAIRED_ETOOFEW);
	assert_int_equal(paired_ttest(a, nan, 3, 0.95, &t), PAIRED_EINVAL);
	assert_int_equal(paired_ttest(a, b, 3, 1.0, &t), PAIRED_EINVAL);
	assert_int_equal(wilcoxon_signed_rank(a, a, 3, &w), PAIRED_ETOOFEW);
	assert_true(w.n == 0 && isnan(w.p));
	assert_int_equal(wilcoxon_signed_rank(a, nan, 3, &w), PAIRED_EINVAL);
	/* Constant non-zero differences: all ranks tied, still a test. */
	assert_int_equal(wilcoxon_signed_rank(a, b, 3, &w), PAIRED_OK);
	assert_true(w.v == 6 && !w.exact);
}

int main(void)
{
	for (size_t i = 0; i < LEN(big_y); i++)
		big_y[i] = 0.5;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_r),
		cmocka_unit_test(test_published_examples),
		cmocka_unit_test(test_null_distribution),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
