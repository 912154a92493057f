/*
 * test_damon.c — the DAMON expansion rule (replay/ingest/damon.h, replay/vmr/FORMAT.md):
 * how many passes a region gets for its nr_accesses, and when they
 * happen, worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ingest/damon.h"

/* DAMON's defaults: 5 ms sampling, 100 ms aggregation, so N = 20 checks;
 * K = 4 passes at most.  passes = min(K, ceil(a * K / N)). */
static void passes_default_intervals(void **state)
{
	(void)state;
	struct damon_attrs a = { 5000000, 100000000, 4 };
	assert_int_equal(damon_checks(&a), 20);
	assert_int_equal(damon_passes(&a, 0), 0);    /* never found accessed: nothing */
	assert_int_equal(damon_passes(&a, 1), 1);    /* ceil(4/20) = 1 */
	assert_int_equal(damon_passes(&a, 5), 1);    /* ceil(20/20) = 1 */
	assert_int_equal(damon_passes(&a, 6), 2);    /* ceil(24/20) = 2 */
	assert_int_equal(damon_passes(&a, 10), 2);   /* 40/20 = 2 */
	assert_int_equal(damon_passes(&a, 11), 3);   /* ceil(44/20) = 3 */
	assert_int_equal(damon_passes(&a, 16), 4);   /* ceil(64/20) = 4 */
	assert_int_equal(damon_passes(&a, 20), 4);   /* accessed at every check */
	assert_int_equal(damon_passes(&a, 25), 4);   /* more than N: clamped to N */
}

/* Fewer checks than passes: N = 2, K = 4: a = 1 gives ceil(4/2) = 2. */
static void passes_few_checks(void **state)
{
	(void)state;
	struct damon_attrs a = { 50000000, 100000000, 4 };
	assert_int_equal(damon_checks(&a), 2);
	assert_int_equal(damon_passes(&a, 1), 2);
	assert_int_equal(damon_passes(&a, 2), 4);
	/* a sampling interval longer than the aggregation one counts as one check */
	struct damon_attrs b = { 200000000, 100000000, 4 };
	assert_int_equal(damon_checks(&b), 1);
	assert_int_equal(damon_passes(&b, 1), 4);
	/* K = 0 is taken as 1 */
	struct damon_attrs c = { 5000000, 100000000, 0 };
	assert_int_equal(damon_passes(&c, 20), 1);
}

/* Passes are spread evenly over the interval that ended at the sample:
 * pass j of k at end - aggr + (2j + 1) * aggr / (2k). */
static void pass_times(void **state)
{
	(void)state;
	struct damon_attrs a = { 5000000, 100000000, 4 };
	uint64_t end = 1000000000;                   /* 1 s: the interval is 0.9-1.0 s */
	assert_int_equal(damon_pass_time(&a, end, 1, 0), 950000000);   /* the middle */
	assert_int_equal(damon_pass_time(&a, end, 2, 0), 925000000);
	assert_int_equal(damon_pass_time(&a, end, 2, 1), 975000000);
	assert_int_equal(damon_pass_time(&a, end, 4, 0), 912500000);
	assert_int_equal(damon_pass_time(&a, end, 4, 3), 987500000);
	/* an interval that would start before time 0 is cut there */
	assert_int_equal(damon_pass_time(&a, 40000000, 1, 0), 20000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(passes_default_intervals),
		cmocka_unit_test(passes_few_checks),
		cmocka_unit_test(pass_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
