/*
 * test_welch.c — analysis/welch.c against R's t.test(var.equal = FALSE).
 *
 * Reference values (t, df, p, CI low/high) were produced with
 *
 *     R version 4.2.2 Patched (2022-11-10 r83330) -- "Innocent and Trusting"
 *     (Debian 12 package r-base-core 4.2.2.20221110-2)
 *
 * by saving the script below as ref.R and running "Rscript ref.R"; its
 * output was pasted into the ref_case table. R is not a dependency of the
 * project: it is needed only to regenerate that table.
 *
 * ---- ref.R --------------------------------------------------------------
 * options(digits = 17)
 * sets <- list(
 *   sleep     = list(x = sleep$extra[sleep$group == 1],
 *                    y = sleep$extra[sleep$group == 2]),
 *   n3_vs_30  = list(x = c(7.74, 3.87, 5.73),
 *                    y = c(3.32, 3.20, 2.95, 3.76, 2.95, 4.01, 2.97, 3.65, 4.14, 2.31,
 *                          2.86, 2.93, 3.32, 2.86, 1.67, 1.78, 3.66, 2.85, 2.11, 2.91,
 *                          3.61, 3.95, 2.78, 2.87, 2.12, 3.23, 2.68, 3.23, 3.35, 3.52)),
 *   unequal   = list(x = c(0.9939, 1.0050, 0.9828, 0.9922, 0.9915, 0.9759, 1.0004, 1.0021),
 *                    y = c(3.9, 115.8, -32.7, -96.8, 83.3, -41.1)),
 *   tiny_p    = list(x = c(11.44, 9.57, 10.66, 10.32, 9.22, 11.58, 10.64, 10.09, 10.28, 10.68,
 *                          10.09, 7.01, 10.28, 9.63, 10.19, 10.58, 11.40, 9.27, 11.30, 10.34,
 *                          11.04, 10.92, 10.72, 8.96, 9.91),
 *                    y = c(0.62, -0.95, -0.54, 0.58, 0.77, 0.46, -0.89, -1.10, 1.51, 0.26,
 *                          0.09, -0.12, -1.19, 0.61, -0.22, -0.18, 0.93, 0.82, 1.39, -0.48,
 *                          0.65, 1.39, -1.11, -0.86, -1.13, -1.46, 0.08, 0.65, 1.20, 1.04)),
 *   negative  = list(x = c(-3.00, -0.15, -2.67, -1.89),
 *                    y = c(0.23, 1.13, 2.06, 1.86, 1.42, 1.82, 0.04)),
 *   one_const = list(x = c(2, 2, 2, 2),
 *                    y = c(1.5, 2.5, 3.1, 2.2, 4.0)),
 *   missratio = list(x = c(0.1307, 0.1185, 0.1048, 0.1246, 0.1351, 0.1159,
 *                          0.1304, 0.1018, 0.1997, 0.1804, 0.1087, 0.1870),
 *                    y = c(0.1555, 0.1421, 0.1068, 0.1561, 0.1071, 0.1211,
 *                          0.1550, 0.1482, 0.1159, 0.1150, 0.1499, 0.1941))
 * )
 * levels <- list(sleep = c(0.95, 0.99), n3_vs_30 = 0.95, unequal = c(0.95, 0.99),
 *                tiny_p = 0.95, negative = c(0.95, 0.90), one_const = 0.95,
 *                missratio = 0.95)
 * cat(R.version.string, "\n")
 * for (name in names(sets)) for (cl in levels[[name]]) {
 *   r <- t.test(sets[[name]]$x, sets[[name]]$y, var.equal = FALSE, conf.level = cl)
 *   cat(sprintf("%s %.2f: t=%.17g df=%.17g p=%.17g ci=%.17g %.17g\n", name, cl,
 *               r$statistic, r$parameter, r$p.value, r$conf.int[1], r$conf.int[2]))
 * }
 * -------------------------------------------------------------------------
 *
 * The sleep case is R's documented example (?t.test, ?sleep); its printed
 * summary "t = -1.8608, df = 17.776, p-value = 0.07939, 95 percent CI
 * -3.3654832 0.2054832" is also checked at that printed precision, so the
 * table cannot drift from the published numbers unnoticed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <float.h>
#include <string.h>
#include <cmocka.h>

#include "welch.h"

#define LEN(x) (sizeof(x) / sizeof((x)[0]))

/* R prints 17 significant digits; agreement to 1e-9 relative leaves room
 * for the different summation order of GSL and R, and for the different
 * t-distribution algorithms, while still catching any formula slip. */
#define REL_TOL 1e-9

/* ---- data: literally the vectors in ref.R above -------------------------- */

static const double sleep_1[] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
static const double sleep_2[] = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

static const double n3_x[] = {7.74, 3.87, 5.73};
static const double n30_y[] = {
    3.32, 3.20, 2.95, 3.76, 2.95, 4.01, 2.97, 3.65, 4.14, 2.31,
    2.86, 2.93, 3.32, 2.86, 1.67, 1.78, 3.66, 2.85, 2.11, 2.91,
    3.61, 3.95, 2.78, 2.87, 2.12, 3.23, 2.68, 3.23, 3.35, 3.52};

static const double uneq_x[] = {0.9939, 1.0050, 0.9828, 0.9922, 0.9915, 0.9759, 1.0004, 1.0021};
static const double uneq_y[] = {3.9, 115.8, -32.7, -96.8, 83.3, -41.1};

static const double tiny_x[] = {
    11.44, 9.57, 10.66, 10.32, 9.22, 11.58, 10.64, 10.09, 10.28, 10.68,
    10.09, 7.01, 10.28, 9.63, 10.19, 10.58, 11.40, 9.27, 11.30, 10.34,
    11.04, 10.92, 10.72, 8.96, 9.91};
static const double tiny_y[] = {
    0.62, -0.95, -0.54, 0.58, 0.77, 0.46, -0.89, -1.10, 1.51, 0.26,
    0.09, -0.12, -1.19, 0.61, -0.22, -0.18, 0.93, 0.82, 1.39, -0.48,
    0.65, 1.39, -1.11, -0.86, -1.13, -1.46, 0.08, 0.65, 1.20, 1.04};

static const double neg_x[] = {-3.00, -0.15, -2.67, -1.89};
static const double neg_y[] = {0.23, 1.13, 2.06, 1.86, 1.42, 1.82, 0.04};

static const double const_x[] = {2, 2, 2, 2};
static const double const_y[] = {1.5, 2.5, 3.1, 2.2, 4.0};

static const double mr_x[] = {0.1307, 0.1185, 0.1048, 0.1246, 0.1351, 0.1159,
                              0.1304, 0.1018, 0.1997, 0.1804, 0.1087, 0.1870};
static const double mr_y[] = {0.1555, 0.1421, 0.1068, 0.1561, 0.1071, 0.1211,
                              0.1550, 0.1482, 0.1159, 0.1150, 0.1499, 0.1941};

/* ---- R's answers --------------------------------------------------------- */

struct ref_case {
    const double *x, *y;
    size_t nx, ny;
    double conf_level;
    double t, df, p, ci_low, ci_high;
};

#define DATA(x, y) (x), (y), LEN(x), LEN(y)

static const struct ref_case sleep_95 = {DATA(sleep_1, sleep_2), 0.95,
    -1.8608134674868531, 17.776473516178498, 0.079394140187358173,
    -3.3654832307117104, 0.20548323071171018};
static const struct ref_case sleep_99 = {DATA(sleep_1, sleep_2), 0.99,
    -1.8608134674868531, 17.776473516178498, 0.079394140187358173,
    -4.0276329199190402, 0.86763291991903957};
static const struct ref_case n3_vs_30_95 = {DATA(n3_x, n30_y), 0.95,
    2.4290301518191479, 2.0415906029414956, 0.13325399924956433,
    -2.01135779645977, 7.4680244631264365};
static const struct ref_case unequal_95 = {DATA(uneq_x, uneq_y), 0.95,
    -0.13427251573402171, 5.0000001130051013, 0.89842450853334432,
    -88.777368962462873, 79.963318962462864};
static const struct ref_case unequal_99 = {DATA(uneq_x, uneq_y), 0.99,
    -0.13427251573402171, 5.0000001130051013, 0.89842450853334432,
    -136.74799312943222, 127.93394312943219};
static const struct ref_case tiny_p_95 = {DATA(tiny_x, tiny_y), 0.95,
    39.994600307566458, 49.352340010936189, 2.8550104946120915e-39,
    9.640853329553801, 10.6607466704462};
static const struct ref_case negative_95 = {DATA(neg_x, neg_y), 0.95,
    -4.4643853607910229, 4.414987468563389, 0.0088621206820935529,
    -5.0390605279391121, -1.2616537577751734};
static const struct ref_case negative_90 = {DATA(neg_x, neg_y), 0.90,
    -4.4643853607910229, 4.414987468563389, 0.0088621206820935529,
    -4.615002258110751, -1.685712027603534};
static const struct ref_case one_const_95 = {DATA(const_x, const_y), 0.95,
    -1.5617201301249937, 4, 0.19338171912463573,
    -1.8333560540606479, 0.51335605406064766};
static const struct ref_case missratio_95 = {DATA(mr_x, mr_y), 0.95,
    -0.19783154904732497, 20.768860085013827, 0.84510035011483331,
    -0.028029984100872228, 0.023163317434205601};

/* ---- helpers ------------------------------------------------------------- */

/* Fails with both numbers printed, which a bare assert_true would not do. */
static void check_close(const char *what, double got, double want, double rel)
{
    double err = fabs(got - want);
    if (!(err <= rel * fabs(want)))
        fail_msg("%s: got %.17g, want %.17g (rel err %.3g > %.3g)",
                 what, got, want, err / fabs(want), rel);
}

static void check_ref(void **state)
{
    const struct ref_case *c = *state;
    struct welch_result r;

    assert_int_equal(welch_ttest(c->x, c->nx, c->y, c->ny, c->conf_level, &r), WELCH_OK);
    assert_int_equal(r.n_a, c->nx);
    assert_int_equal(r.n_b, c->ny);
    check_close("t", r.t, c->t, REL_TOL);
    check_close("df", r.df, c->df, REL_TOL);
    check_close("p", r.p, c->p, REL_TOL);
    check_close("ci_low", r.ci_low, c->ci_low, REL_TOL);
    check_close("ci_high", r.ci_high, c->ci_high, REL_TOL);

    /* The fields that R does not print must still be consistent. */
    check_close("diff", r.diff, r.mean_a - r.mean_b, 1e-15);
    check_close("t = diff/se", r.t, r.diff / r.se, 1e-14);
    check_close("se", r.se * r.se, r.var_a / (double)r.n_a + r.var_b / (double)r.n_b, 1e-14);
    assert_true(r.conf_level == c->conf_level);
    assert_true(r.ci_low < r.diff && r.diff < r.ci_high);
}

/* ---- published numbers --------------------------------------------------- */

/* R's own printout for example(t.test): checks at the printed precision. */
static void test_sleep_published(void **state)
{
    (void)state;
    struct welch_result r;
    assert_int_equal(welch_ttest(sleep_1, LEN(sleep_1), sleep_2, LEN(sleep_2), 0.95, &r),
                     WELCH_OK);
    assert_float_equal(r.t, -1.8608, 0.5e-4);
    assert_float_equal(r.df, 17.776, 0.5e-3);
    assert_float_equal(r.p, 0.07939, 0.5e-5);
    assert_float_equal(r.ci_low, -3.3654832, 0.5e-7);
    assert_float_equal(r.ci_high, 0.2054832, 0.5e-7);
    assert_float_equal(r.mean_a, 0.75, 1e-15);
    assert_float_equal(r.mean_b, 2.33, 1e-15);
}

/* ---- properties ---------------------------------------------------------- */

/* Swapping the samples negates t and mirrors the interval; df and p stay. */
static void test_swap_symmetry(void **state)
{
    (void)state;
    struct welch_result ab, ba;
    assert_int_equal(welch_ttest(neg_x, LEN(neg_x), neg_y, LEN(neg_y), 0.95, &ab), WELCH_OK);
    assert_int_equal(welch_ttest(neg_y, LEN(neg_y), neg_x, LEN(neg_x), 0.95, &ba), WELCH_OK);
    check_close("t", ba.t, -ab.t, 1e-14);
    check_close("df", ba.df, ab.df, 1e-14);
    check_close("p", ba.p, ab.p, 1e-14);
    check_close("ci_low", ba.ci_low, -ab.ci_high, 1e-14);
    check_close("ci_high", ba.ci_high, -ab.ci_low, 1e-14);
}

/* conf_level changes only the interval, and a higher level widens it. */
static void test_conf_level_nesting(void **state)
{
    (void)state;
    const double levels[] = {0.5, 0.8, 0.9, 0.95, 0.99, 0.999};
    struct welch_result prev, r;
    for (size_t i = 0; i < LEN(levels); i++) {
        assert_int_equal(welch_ttest(uneq_x, LEN(uneq_x), uneq_y, LEN(uneq_y),
                                     levels[i], &r), WELCH_OK);
        if (i > 0) {
            assert_true(r.ci_low < prev.ci_low);
            assert_true(r.ci_high > prev.ci_high);
            assert_true(r.t == prev.t && r.df == prev.df && r.p == prev.p);
        }
        prev = r;
    }
}

/* With a constant x, df collapses to n_y - 1 exactly (shown by R too). */
static void test_one_constant_sample_df(void **state)
{
    (void)state;
    struct welch_result r;
    assert_int_equal(welch_ttest(const_x, LEN(const_x), const_y, LEN(const_y), 0.95, &r),
                     WELCH_OK);
    assert_true(r.var_a == 0.0);
    check_close("df", r.df, (double)LEN(const_y) - 1.0, 1e-15);
}

/* ---- error cases ----------------------------------------------------------- */

/* Inferential fields must be NaN after any error (documented in welch.h). */
static void assert_no_result(const struct welch_result *r)
{
    assert_true(isnan(r->t));
    assert_true(isnan(r->df));
    assert_true(isnan(r->p));
    assert_true(isnan(r->se));
    assert_true(isnan(r->ci_low));
    assert_true(isnan(r->ci_high));
}

static void test_too_few_observations(void **state)
{
    (void)state;
    const double one[] = {3.5};
    struct welch_result r;

    assert_int_equal(welch_ttest(one, 1, sleep_2, LEN(sleep_2), 0.95, &r), WELCH_ETOOFEW);
    assert_no_result(&r);
    /* What is defined is still reported. */
    assert_int_equal(r.n_a, 1);
    assert_true(r.mean_a == 3.5);
    assert_true(isnan(r.var_a));
    assert_float_equal(r.mean_b, 2.33, 1e-15);

    assert_int_equal(welch_ttest(sleep_1, LEN(sleep_1), one, 1, 0.95, &r), WELCH_ETOOFEW);
    assert_no_result(&r);
    assert_int_equal(welch_ttest(sleep_1, LEN(sleep_1), NULL, 0, 0.95, &r), WELCH_ETOOFEW);
    assert_no_result(&r);
    assert_true(isnan(r.mean_b));
    assert_int_equal(welch_ttest(NULL, 0, NULL, 0, 0.95, &r), WELCH_ETOOFEW);
    assert_no_result(&r);
}

static void test_both_constant(void **state)
{
    (void)state;
    struct welch_result r;

    /* R: t.test(c(5,5,5), c(5,5)) stops with "data are essentially constant". */
    const double fives3[] = {5, 5, 5}, fives2[] = {5, 5};
    assert_int_equal(welch_ttest(fives3, 3, fives2, 2, 0.95, &r), WELCH_ECONSTANT);
    assert_no_result(&r);
    assert_true(r.var_a == 0.0 && r.var_b == 0.0);

    /* Different constants: the difference is obvious but t = d/0 is not a
     * number; R stops here too (t.test(c(1,1,1), c(2,2))). */
    const double ones[] = {1, 1, 1}, twos[] = {2, 2};
    assert_int_equal(welch_ttest(ones, 3, twos, 2, 0.95, &r), WELCH_ECONSTANT);
    assert_no_result(&r);

    /* All zeros: R's relative threshold is 0 here and it returns t = NaN
     * silently; welch_ttest reports the error instead. */
    const double zeros[] = {0, 0};
    assert_int_equal(welch_ttest(zeros, 2, zeros, 2, 0.95, &r), WELCH_ECONSTANT);
    assert_no_result(&r);

    /* Essentially constant: one ulp of spread at 1e6 is rounding noise.
     * R: t.test(c(1e6, 1e6 + 1.1641532182693481e-10, 1e6), c(1e6, 1e6))
     * stops with "data are essentially constant" as well. */
    const double big[] = {1e6, nextafter(1e6, 2e6), 1e6}, big2[] = {1e6, 1e6};
    assert_true(big[1] - big[0] == 1.1641532182693481e-10);
    assert_int_equal(welch_ttest(big, 3, big2, 2, 0.95, &r), WELCH_ECONSTANT);
    assert_no_result(&r);
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    struct welch_result r;
    const double with_nan[] = {1.0, NAN, 2.0}, with_inf[] = {1.0, INFINITY, 2.0};

    assert_int_equal(welch_ttest(sleep_1, 10, sleep_2, 10, 0.95, NULL), WELCH_EINVAL);
    assert_int_equal(welch_ttest(NULL, 10, sleep_2, 10, 0.95, &r), WELCH_EINVAL);
    assert_int_equal(welch_ttest(sleep_1, 10, NULL, 10, 0.95, &r), WELCH_EINVAL);

    const double bad_levels[] = {0.0, 1.0, -0.5, 1.5, 95.0, NAN, INFINITY};
    for (size_t i = 0; i < LEN(bad_levels); i++) {
        assert_int_equal(welch_ttest(sleep_1, 10, sleep_2, 10, bad_levels[i], &r),
                         WELCH_EINVAL);
        assert_no_result(&r);
    }

    /* Non-finite data is refused rather than dropped the way R drops NA. */
    assert_int_equal(welch_ttest(with_nan, 3, sleep_2, 10, 0.95, &r), WELCH_EINVAL);
    assert_no_result(&r);
    assert_int_equal(welch_ttest(sleep_1, 10, with_inf, 3, 0.95, &r), WELCH_EINVAL);
    assert_no_result(&r);
}

static void test_overflow(void **state)
{
    (void)state;
    struct welch_result r;
    /* Finite inputs whose squares overflow: no finite variance exists. */
    const double huge[] = {1e308, -1e308, 1e308}, small[] = {0.0, 1.0};
    assert_int_equal(welch_ttest(huge, 3, small, 2, 0.95, &r), WELCH_ERANGE);
    assert_no_result(&r);
}

static void test_strerror(void **state)
{
    (void)state;
    const int codes[] = {WELCH_OK, WELCH_ETOOFEW, WELCH_ECONSTANT, WELCH_EINVAL, WELCH_ERANGE};
    for (size_t i = 0; i < LEN(codes); i++) {
        assert_non_null(welch_strerror(codes[i]));
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(welch_strerror(codes[i]), welch_strerror(codes[j]));
    }
    assert_non_null(welch_strerror(12345));
}

/* One named test per reference case, so a failure says which data set. */
#define REF_TEST(c) {"r_" #c, check_ref, NULL, NULL, (void *)&(c)}

int main(void)
{
    const struct CMUnitTest tests[] = {
        REF_TEST(sleep_95),
        REF_TEST(sleep_99),
        REF_TEST(n3_vs_30_95),
        REF_TEST(unequal_95),
        REF_TEST(unequal_99),
        REF_TEST(tiny_p_95),
        REF_TEST(negative_95),
        REF_TEST(negative_90),
        REF_TEST(one_const_95),
        REF_TEST(missratio_95),
        cmocka_unit_test(test_sleep_published),
        cmocka_unit_test(test_swap_symmetry),
        cmocka_unit_test(test_conf_level_nesting),
        cmocka_unit_test(test_one_constant_sample_df),
        cmocka_unit_test(test_too_few_observations),
        cmocka_unit_test(test_both_constant),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_strerror),
    };
    return cmocka_run_group_tests_name("welch", tests, NULL, NULL);
}
