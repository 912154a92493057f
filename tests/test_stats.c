/*
 * test_stats.c — analysis/stats.c, holm.c, derived.c and baseline.c
 * against R, on the fixed sweep in tests/data/stats-fixture.
 *
 * The fixture's kernel-policy results (pgscan_anon, pgsteal_anon for
 * classic, classic+x and mglru at swappiness 60 and 120, 4 seeds each)
 * are the data frame below.  vmreplay stats derives steal_scan_ratio_anon
 * from them, tests classic+x and mglru against classic (Welch), and
 * corrects the 12 p-values with Holm's method.  The reference values were
 * produced with
 *
 *     R version 4.2.2 Patched (2022-11-10 r83330) -- "Innocent and Trusting"
 *     (Debian 12 package r-base-core 4.2.2.20221110-2)
 *
 * by saving the script below as ref.R and running "Rscript ref.R"; its
 * output was pasted into the tables.  R is not a dependency of the project.
 *
 * ---- ref.R --------------------------------------------------------------
 * options(digits = 17)
 * d <- read.table(text = "<the 24 lines of make-fixture.sh's DATA>",
 *   col.names = c("policy", "swappiness", "seed", "pgscan_anon", "pgsteal_anon"))
 * d$steal_scan_ratio_anon <- d$pgsteal_anon / d$pgscan_anon
 * metrics <- c("pgscan_anon", "pgsteal_anon", "steal_scan_ratio_anon")
 * pairs <- list(c("classic+x", "classic"), c("mglru", "classic"))
 * rows <- list()
 * for (s in c(60, 120)) for (m in metrics) for (pr in pairs) {
 *   x <- d[d$policy == pr[1] & d$swappiness == s, m]
 *   y <- d[d$policy == pr[2] & d$swappiness == s, m]
 *   r <- t.test(x, y, var.equal = FALSE)
 *   rows[[length(rows) + 1]] <- data.frame(sw = s, metric = m, policy = pr[1],
 *     t = unname(r$statistic), df = unname(r$parameter), p = r$p.value,
 *     lo = r$conf.int[1], hi = r$conf.int[2],
 *     d = (mean(x) - mean(y)) / sqrt((var(x) + var(y)) / 2))
 * }
 * res <- do.call(rbind, rows)
 * res$p_holm <- p.adjust(res$p, method = "holm")
 * for (i in seq_len(nrow(res)))
 *   cat(sprintf("{ %d, \"%s\", \"%s\", %.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g },\n",
 *       res$sw[i], res$metric[i], res$policy[i], res$t[i], res$df[i], res$p[i],
 *       res$lo[i], res$hi[i], res$d[i], res$p_holm[i]))
 * x <- d[d$policy == "classic" & d$swappiness == 60, "pgscan_anon"]
 * ci <- t.test(x)$conf.int
 * cat(sprintf("mean=%.17g sd=%.17g ci=%.17g %.17g\n", mean(x), sd(x), ci[1], ci[2]))
 * cat(sprintf("holm: %s\n", paste(sprintf("%.17g",
 *     p.adjust(c(0.01, 0.04, 0.03, 0.005, NA), "holm")), collapse = " ")))
 * h <- res[res$metric != "steal_scan_ratio_anon", ]
 * cat(sprintf("%.17g", p.adjust(h$p, "holm")), sep = ", ")
 *
 * The last line is the default family, the headline metrics (the
 * fixture has two of them, pgscan_anon and pgsteal_anon, and no
 * work_done): 8 tests; steal_scan_ratio_anon is tested but not
 * corrected.  The ref table's p_holm is over all 12 (--holm all).
 * -------------------------------------------------------------------------
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "baseline.h"
#include "derived.h"
#include "holm.h"
#include "result.h"
#include "stats.h"

#define LEN(x) (sizeof(x) / sizeof((x)[0]))
#define FIXTURE "tests/data/stats-fixture"
#define REL_TOL 1e-9

static void assert_close(double got, double want, const char *what)
{
    double tol = REL_TOL * fmax(1.0, fabs(want));
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.17g, R says %.17g", what, got, want);
}

struct ref_test {
    int swappiness;
    const char *metric, *policy;
    double t, df, p, lo, hi, d, p_holm;
};

static const struct ref_test ref[] = {
{ 60, "pgscan_anon", "classic+x", -5.9829983610022062, 5.7846286084581298, 0.0011177857689495965, -1707.9507707277055, -710.0492292722945, -4.2306187128926602, 0.012295643458445561 },
{ 60, "pgscan_anon", "mglru", 7.0581843153717783, 5.0615293259255774, 0.00083895340198414316, 682.52430259005655, 1459.9756974099437, 4.9908899922639138, 0.010067440823809719 },
{ 60, "pgsteal_anon", "classic+x", -3.5564704032628489, 4.8485711833802556, 0.017139879334712893, -387.43778128441062, -60.56221871558936, -2.5148043392364157, 0.09067270436693195 },
{ 60, "pgsteal_anon", "mglru", 5.350446951042346, 4.2698000490205361, 0.0048828259584788886, 197.62777251322706, 602.87222748677289, 3.7833373214609307, 0.040579922223226615 },
{ 60, "steal_scan_ratio_anon", "classic+x", 4.4499953713741727, 5.9000858104650042, 0.0045088802470251797, 0.010916238226844472, 0.03783149280529078, 3.1466219033474268, 0.040579922223226615 },
{ 60, "steal_scan_ratio_anon", "mglru", -0.11330291754304987, 4.8623962185466887, 0.91431912420954797, -0.019237680889187574, 0.017626631556190969, -0.080117261322910804, 1 },
{ 120, "pgscan_anon", "classic+x", -6.2063148306282985, 4.552592922852166, 0.0022096047679186041, -1786.2731417353127, -717.72685826468717, -4.3885273029159091, 0.022096047679186041 },
{ 120, "pgscan_anon", "mglru", 4.158954169905126, 5.9478117271247752, 0.0060658010272805164, 411.7322764770613, 1594.7677235229389, 2.940824696183983, 0.042460607190963617 },
{ 120, "pgsteal_anon", "classic+x", -0.84618448832987614, 3.4851027718789256, 0.45161656206171369, -315.94216722237951, 174.94216722237954, -0.59834278983292455, 1 },
{ 120, "pgsteal_anon", "mglru", 3.5792174474272875, 3.4093518891700358, 0.030262764293525625, 54.361354343975975, 591.6386456560241, 2.5308889284170402, 0.1210510571741025 },
{ 120, "steal_scan_ratio_anon", "classic+x", 3.3683760210923728, 5.9896988203995978, 0.015112117394488658, 0.0098374368446618767, 0.062163024796911048, 2.3818015261005776, 0.09067270436693195 },
{ 120, "steal_scan_ratio_anon", "mglru", -0.33467394602093814, 5.9317699432451123, 0.7493877363843231, -0.030880284985132917, 0.023467621268820255, -0.23665021671786593, 1 },
};

static const struct stats_row *find_row(const struct stats *st, const char *policy, int swappiness,
                                        const char *metric)
{
    for (size_t i = 0; i < st->nr_rows; i++) {
        const struct stats_row *r = &st->rows[i];
        const struct stats_group *g = &st->groups[r->group];
        if (strcmp(g->policy, policy) == 0 && g->swappiness == swappiness &&
            strcmp(st->metrics[r->metric], metric) == 0)
            return r;
    }
    return NULL;
}

/* Holm over the default family: ref's first eight rows but the ratio's,
 * in ref's order. */
static const double p_holm_headline[] = {
    0.007824500382647176, 0.0067116272158731453, 0.051419638004138679, 0.024414129792394441,
    0.013257628607511625, 0.024414129792394441, 0.45161656206171369, 0.06052552858705125,
};

static int gather_family(void **state, int all)
{
    static struct stats st;
    struct baseline_rules none = { 0 };
    struct stats_opts o = { .conf_level = 0.95, .alpha = 0.05, .baselines = &none, .all_metrics = all };
    char err[4096];
    char *dirs[] = { FIXTURE };
    if (stats_gather(dirs, 1, &o, &st, err, sizeof(err)) != 0) {
        fprintf(stderr, "stats_gather: %s\n", err);
        return -1;
    }
    *state = &st;
    return 0;
}

static int gather(void **state)
{
    return gather_family(state, 1);
}

static int gather_headline(void **state)
{
    return gather_family(state, 0);
}

static int release(void **state)
{
    stats_free(*state);
    return 0;
}

/* Every Welch test of the sweep: t, df, p, the interval of the
 * difference, Cohen's d, and the Holm-adjusted p over all 12. */
static void test_welch_and_holm_against_r(void **state)
{
    const struct stats *st = *state;
    assert_int_equal(st->nr_tests, LEN(ref));
    for (size_t i = 0; i < LEN(ref); i++) {
        const struct ref_test *e = &ref[i];
        const struct stats_row *r = find_row(st, e->policy, e->swappiness, e->metric);
        char what[128];
        snprintf(what, sizeof(what), "%s %s sw=%d", e->policy, e->metric, e->swappiness);
        assert_non_null(r);
        assert_int_equal(r->test, STATS_TESTED);
        assert_true(r->base >= 0);
        assert_string_equal(st->groups[st->rows[r->base].group].policy, "classic");
        assert_close(r->t, e->t, what);
        assert_close(r->df, e->df, what);
        assert_close(r->p, e->p, what);
        assert_close(r->diff_lo, e->lo, what);
        assert_close(r->diff_hi, e->hi, what);
        assert_close(r->d, e->d, what);
        assert_close(r->p_holm, e->p_holm, what);
        assert_int_equal(r->significant, e->p_holm < 0.05);
    }
}

/* The default family: the headline metrics only.  Every test is still
 * made; those outside keep their p and are never marked. */
static void test_headline_family(void **state)
{
    const struct stats *st = *state;
    assert_int_equal(st->nr_tests, 8);
    assert_int_equal(st->nr_tested, 12);
    size_t k = 0;
    for (size_t i = 0; i < LEN(ref); i++) {
        const struct ref_test *e = &ref[i];
        const struct stats_row *r = find_row(st, e->policy, e->swappiness, e->metric);
        assert_non_null(r);
        assert_close(r->p, e->p, e->metric);
        assert_int_equal(r->method, STATS_WELCH);
        assert_int_equal(r->rep, STATS_REP_SEEDS);
        if (strcmp(e->metric, "steal_scan_ratio_anon") == 0) {
            assert_false(r->in_family);
            assert_true(isnan(r->p_holm));
            assert_false(r->significant);
            continue;
        }
        assert_true(r->in_family);
        assert_close(r->p_holm, p_holm_headline[k++], e->metric);
        assert_int_equal(r->significant, r->p_holm < 0.05);
    }
    assert_int_equal(k, LEN(p_holm_headline));
}

/* The per-group summary: R's mean, sd() and t.test(x)$conf.int. */
static void test_group_summary_against_r(void **state)
{
    const struct stats *st = *state;
    const struct stats_row *r = find_row(st, "classic", 60, "pgscan_anon");
    assert_non_null(r);
    assert_int_equal(r->n, 4);
    assert_close(r->mean, 10977, "mean");
    assert_close(r->sd, 256.72683277496856, "sd");
    assert_close(r->ci_low, 10568.490319784058, "ci_low");
    assert_close(r->ci_high, 11385.509680215944, "ci_high");
    /* A baseline is not tested against anything. */
    assert_int_equal(r->base, -1);
    assert_true(isnan(r->p));
}

/* lru: one deterministic run per size, no baseline; sd and CI undefined. */
static void test_single_run_groups(void **state)
{
    const struct stats *st = *state;
    const struct stats_row *r = find_row(st, "lru", -1, "miss_ratio");
    assert_non_null(r);
    assert_int_equal(r->n, 1);
    assert_true(isnan(r->sd) && isnan(r->ci_low) && isnan(r->ci_high));
    assert_int_equal(r->test, STATS_NO_BASELINE);
    assert_int_equal(st->nr_results, 26);
}

/* Holm by hand: p = .01 .04 .03 .005 NA, m = 4.  Sorted .005 .01 .03 .04
 * times 4 3 2 1 = .02 .03 .06 .04, made non-decreasing: .02 .03 .06 .06.
 * R's p.adjust(..., "holm") agrees (the last line of ref.R). */
static void test_holm_by_hand(void **state)
{
    (void)state;
    double p[] = { 0.01, 0.04, 0.03, 0.005, NAN }, adj[5];
    assert_int_equal(holm_adjust(p, adj, 5), 0);
    assert_close(adj[0], 0.03, "p = .01");
    assert_close(adj[1], 0.06, "p = .04");
    assert_close(adj[2], 0.06, "p = .03");
    assert_close(adj[3], 0.02, "p = .005");
    assert_true(isnan(adj[4]));
    /* Capped at 1, in place. */
    double q[] = { 0.5, 0.9 };
    assert_int_equal(holm_adjust(q, q, 2), 0);
    assert_close(q[0], 1.0, "capped");
    assert_close(q[1], 1.0, "capped");
    assert_int_equal(holm_adjust(NULL, NULL, 0), 0);
}

static void test_baselines(void **state)
{
    (void)state;
    char b[64];
    assert_true(baseline_of(NULL, "classic+early-exit", b, sizeof(b)));
    assert_string_equal(b, "classic");
    assert_true(baseline_of(NULL, "mglru+swappiness+iso-throttle", b, sizeof(b)));
    assert_string_equal(b, "mglru");
    assert_true(baseline_of(NULL, "mglru", b, sizeof(b)));
    assert_string_equal(b, "classic");
    assert_false(baseline_of(NULL, "classic", b, sizeof(b)));
    assert_false(baseline_of(NULL, "lru", b, sizeof(b)));
    struct baseline_rules r = { 0 };
    assert_int_equal(baseline_add(&r, "mglru=none"), 0);
    assert_int_equal(baseline_add(&r, "mglru+a+b=mglru+a"), 0);
    assert_int_equal(baseline_add(&r, "bad"), -1);
    assert_int_equal(baseline_add(&r, "=x"), -1);
    assert_false(baseline_of(&r, "mglru", b, sizeof(b)));
    assert_true(baseline_of(&r, "mglru+a+b", b, sizeof(b)));
    assert_string_equal(b, "mglru+a");
    baseline_free(&r);
}

/*
 * The capture fixture (tests/data/stats-captures): a trace set of five
 * captures, two seeds each.  Each capture is one replicate, the mean of
 * its seeds; classic+x and mglru replayed the same captures as classic,
 * so they are tested paired, capture by capture (paired t, Wilcoxon's
 * signed-rank test beside), and Holm's family is the six tests of the
 * headline metrics (pgsteal_file, pgsteal_anon and the outcome,
 * work_done; pgsteal, derived, is tested but not corrected).  The same R
 * as above, running this ref-captures.R from the repository root:
 *
 * options(digits = 17)
 * d <- read.table(text = readLines("tests/data/stats-captures/make-fixture.sh")[
 *        (grep("^DATA$|<<'DATA'", readLines("tests/data/stats-captures/make-fixture.sh"))[1] + 1):
 *        (grep("^DATA$", readLines("tests/data/stats-captures/make-fixture.sh"))[1] - 1)],
 *   col.names = c("policy", "capture", "seed", "pgsteal_file", "pgsteal_anon", "work_done"))
 * m <- aggregate(cbind(pgsteal_file, pgsteal_anon, work_done) ~ policy + capture, data = d, FUN = mean)
 * rows <- list()
 * for (pol in c("classic+x", "mglru")) for (k in c("pgsteal_file", "pgsteal_anon", "work_done")) {
 *   x <- m[m$policy == pol, ][order(m[m$policy == pol, "capture"]), k]
 *   y <- m[m$policy == "classic", ][order(m[m$policy == "classic", "capture"]), k]
 *   t <- t.test(x, y, paired = TRUE)
 *   w <- suppressWarnings(wilcox.test(x, y, paired = TRUE))
 *   rows[[length(rows) + 1]] <- data.frame(policy = pol, metric = k, diff = unname(t$estimate),
 *     t = unname(t$statistic), p = t$p.value, lo = t$conf.int[1], hi = t$conf.int[2],
 *     d = mean(x - y) / sqrt((var(x) + var(y)) / 2), v = unname(w$statistic), wp = w$p.value)
 * }
 * r <- do.call(rbind, rows)
 * r$p_holm <- p.adjust(r$p, "holm")
 * r$wp_holm <- p.adjust(r$wp, "holm")
 * for (i in seq_len(nrow(r)))
 *   cat(sprintf("{ \"%s\", \"%s\", %.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g },\n",
 *       r$policy[i], r$metric[i], r$diff[i], r$t[i], r$p[i], r$lo[i], r$hi[i], r$d[i], r$v[i], r$wp[i],
 *       r$p_holm[i], r$wp_holm[i]))
 * x <- m[m$policy == "classic", "pgsteal_file"]
 * ci <- t.test(x)$conf.int
 * s <- sqrt(sum(tapply(d$pgsteal_file[d$policy == "classic"], d$capture[d$policy == "classic"],
 *                      function(v) sum((v - mean(v))^2))) / 5)
 * cat(sprintf("classic pgsteal_file: mean=%.17g sd=%.17g ci=%.17g %.17g seed_sd=%.17g\n", mean(x), sd(x), ci[1], ci[2], s))
 */
struct ref_paired {
    const char *policy, *metric;
    double diff, t, p, lo, hi, d, v, wp, p_holm, wp_holm;
};

static const struct ref_paired ref_caps[] = {
{ "classic+x", "pgsteal_file", -1663, -4.5425630240727157, 0.01047666283900717, -2679.4367969086038, -646.56320309139664, -1.9112291384040321, 0, 0.0625, 0.020953325678014341, 0.34744359250378382 },
{ "classic+x", "pgsteal_anon", 96, 10.50577257915999, 0.00046414315711197038, 70.629307069932807, 121.37069293006719, 0.43473864895964398, 15, 0.0579072654172973, 0.0027848589426718224, 0.34744359250378382 },
{ "classic+x", "work_done", 295, 9.5087109754994881, 0.00068281391602542131, 208.8630558712166, 381.1369441287834, 0.18490851021827764, 15, 0.0625, 0.003026009459216768, 0.34744359250378382 },
{ "mglru", "pgsteal_file", -3609, -5.5343192787933759, 0.0052097868014098292, -5419.5551703629753, -1798.4448296370254, -4.2459851981188557, 0, 0.0625, 0.015629360404229489, 0.34744359250378382 },
{ "mglru", "pgsteal_anon", -323, -9.8104263385772086, 0.0006052018918433536, -414.41210973191482, -231.58789026808515, -1.5122130528361617, 0, 0.0625, 0.003026009459216768, 0.34744359250378382 },
{ "mglru", "work_done", 20, 0.48904287107153438, 0.65041475316641306, -93.546082334841813, 133.54608233484183, 0.012032867240494745, 11, 0.41636567790816531, 0.65041475316641306, 0.41636567790816531 },
};

static int gather_captures(void **state)
{
    static struct stats st;
    struct baseline_rules none = { 0 };
    struct stats_opts o = { .conf_level = 0.95, .alpha = 0.05, .baselines = &none };
    char err[4096];
    char *dirs[] = { "tests/data/stats-captures" };
    if (stats_gather(dirs, 1, &o, &st, err, sizeof(err)) != 0) {
        fprintf(stderr, "stats_gather: %s\n", err);
        return -1;
    }
    *state = &st;
    return 0;
}

static void test_capture_replicates_paired_against_r(void **state)
{
    const struct stats *st = *state;
    assert_int_equal(st->nr_tests, LEN(ref_caps));
    for (size_t i = 0; i < LEN(ref_caps); i++) {
        const struct ref_paired *e = &ref_caps[i];
        const struct stats_row *r = find_row(st, e->policy, 60, e->metric);
        char what[128];
        snprintf(what, sizeof(what), "%s %s", e->policy, e->metric);
        assert_non_null(r);
        assert_int_equal(r->rep, STATS_REP_CAPTURES);
        assert_int_equal(r->n, 5);
        assert_int_equal(r->runs, 10);
        assert_int_equal(r->method, STATS_PAIRED);
        assert_int_equal(r->pairs, 5);
        assert_int_equal(r->test, STATS_TESTED);
        assert_true(r->in_family);
        assert_close(r->diff, e->diff, what);
        assert_close(r->t, e->t, what);
        assert_close(r->df, 4, what);
        assert_close(r->p, e->p, what);
        assert_close(r->diff_lo, e->lo, what);
        assert_close(r->diff_hi, e->hi, what);
        assert_close(r->d, e->d, what);
        assert_close(r->w_v, e->v, what);
        assert_close(r->w_p, e->wp, what);
        assert_close(r->p_holm, e->p_holm, what);
        assert_close(r->w_p_holm, e->wp_holm, what);
        assert_int_equal(r->significant, e->p_holm < 0.05);
    }
    /* A replicate is a capture: the mean, sd and CI over the five
     * capture means; the seeds' own spread, pooled, beside. */
    const struct stats_row *r = find_row(st, "classic", 60, "pgsteal_file");
    assert_non_null(r);
    assert_close(r->mean, 11045, "mean");
    assert_close(r->sd, 1163.9158045150859, "sd");
    assert_close(r->ci_low, 9599.807648593247, "ci_low");
    assert_close(r->ci_high, 12490.192351406751, "ci_high");
    assert_close(r->seed_sd, 31.144823004794873, "seed_sd");
    /* A derived metric is tested but outside the family. */
    r = find_row(st, "mglru", 60, "pgsteal");
    assert_non_null(r);
    assert_int_equal(r->test, STATS_TESTED);
    assert_false(r->in_family);
    assert_true(isnan(r->p_holm));
    /* Constant on both sides: no test. */
    r = find_row(st, "mglru", 60, "pgrotated");
    assert_non_null(r);
    assert_int_equal(r->test, STATS_CONSTANT);
}

static struct result make_result(const char *const *names, const double *v, size_t n)
{
    struct result r = { 0 };
    r.metric = calloc(n + 1, sizeof(*r.metric));
    r.value = calloc(n + 1, sizeof(*r.value));
    for (size_t i = 0; i < n; i++) {
        r.metric[i] = strdup(names[i]);
        r.value[i] = v[i];
    }
    r.nr_metrics = n;
    return r;
}

/* Derived metrics exist only when all their counters do, ratios only
 * with a non-zero denominator; a column the run wrote wins. */
static void test_derived(void **state)
{
    (void)state;
    const char *names[] = { "pgscan_anon", "pgscan_file", "pgsteal_anon", "pgsteal_file", "steal_scan_ratio_file" };
    double v[] = { 100, 0, 40, 7, 0.123 };
    struct result r = make_result(names, v, LEN(names));
    assert_int_equal(derived_add(&r), 0);
    assert_close(*result_metric(&r, "pgscan"), 100, "pgscan");
    assert_close(*result_metric(&r, "pgsteal"), 47, "pgsteal");
    assert_close(*result_metric(&r, "steal_scan_ratio"), 0.47, "steal_scan_ratio");
    assert_close(*result_metric(&r, "steal_scan_ratio_anon"), 0.4, "anon ratio");
    assert_close(*result_metric(&r, "steal_scan_ratio_file"), 0.123, "kept as written");
    assert_null(result_metric(&r, "workingset_refault"));   /* no refault counters */
    assert_null(result_metric(&r, "refaults_per_steal"));
    assert_null(result_metric(&r, "reclaim_work"));         /* no pgrefill */
    result_free(&r);

    const char *n2[] = { "pgscan_file", "pgsteal_file" };
    double v2[] = { 0, 0 };
    r = make_result(n2, v2, 2);
    assert_int_equal(derived_add(&r), 0);
    assert_null(result_metric(&r, "steal_scan_ratio_file"));   /* 0 / 0 */
    result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_welch_and_holm_against_r, gather, release),
        cmocka_unit_test_setup_teardown(test_headline_family, gather_headline, release),
        cmocka_unit_test_setup_teardown(test_group_summary_against_r, gather, release),
        cmocka_unit_test_setup_teardown(test_single_run_groups, gather, release),
        cmocka_unit_test_setup_teardown(test_capture_replicates_paired_against_r, gather_captures, release),
        cmocka_unit_test(test_holm_by_hand),
        cmocka_unit_test(test_baselines),
        cmocka_unit_test(test_derived),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
