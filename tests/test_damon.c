/*
 * test_damon.c — the DAMON expansion rule (replay/ingest/damon.h, replay/vmr/FORMAT.md):
 * how many passes a region gets for its nr_accesses, when they happen,
 * and which of its pages each covers, worked out by hand.
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

/* A pass covers the pages one sample interval's check supports:
 * m = ceil(S * a / N), a clamped to N (N = 20 here). */
static void window_pages(void **state)
{
	(void)state;
	struct damon_attrs a = { 5000000, 100000000, 4 };
	assert_int_equal(damon_pages(&a, 100, 0), 0);     /* never found accessed */
	assert_int_equal(damon_pages(&a, 100, 1), 5);     /* 100 / 20 */
	assert_int_equal(damon_pages(&a, 100, 3), 15);    /* 300 / 20 */
	assert_int_equal(damon_pages(&a, 100, 7), 35);    /* 700 / 20 */
	assert_int_equal(damon_pages(&a, 7, 1), 1);       /* ceil(7 / 20) */
	assert_int_equal(damon_pages(&a, 7, 3), 2);       /* ceil(21 / 20) */
	assert_int_equal(damon_pages(&a, 100, 20), 100);  /* every check: the whole region */
	assert_int_equal(damon_pages(&a, 100, 25), 100);  /* more than N: clamped to N */
	/* a damaged region of 2^60 pages: S * a would overflow; the result
	 * is 2^60 / 20 * 7 + ceil((2^60 mod 20) * 7 / 20) = ... + ceil(112 / 20):
	 * 2^k mod 20 runs 16, 12, 4, 8 from k = 4 on, so 2^60 mod 20 = 16 */
	assert_true(damon_pages(&a, 1ull << 60, 7) == (1ull << 60) / 20 * 7 + 6);
	/* one check per interval (sample >= aggregation): found accessed, all of it */
	struct damon_attrs b = { 200000000, 100000000, 4 };
	assert_int_equal(damon_pages(&b, 100, 1), 100);
}

/* The window's place: splitmix64's finaliser of start * 0x9e3779b97f4a7c15
 * ^ ts, modulo the S - m + 1 places an m-page window has.  Its values,
 * computed apart (Python, 64-bit wrap-around): phase(0, 0) = 0,
 * phase(1, 0) = 0xe220a8397b1dcdaf; phase(0x10000, 150000000) is 3 mod 4
 * and 35 mod 96, phase(0x10000, 125000000) 68 mod 71, phase(0x10000,
 * 175000000) 24 mod 71. */
static void window_place(void **state)
{
	(void)state;
	struct damon_attrs a = { 5000000, 100000000, 4 };
	uint64_t len = 99;
	assert_true(damon_phase(0, 0) == 0);
	assert_true(damon_phase(1, 0) == 0xe220a8397b1dcdafull);
	/* 4 pages found accessed once of 20: one page, the last of the four */
	assert_int_equal(damon_window(&a, 0x10000, 4, 1, 150000000, &len), 0x10003);
	assert_int_equal(len, 1);
	/* 100 pages at a = 1: five pages, at 35 of the 96 places */
	assert_int_equal(damon_window(&a, 0x10000, 100, 1, 150000000, &len), 0x10000 + 35);
	assert_int_equal(len, 5);
	/* another pass, another place: a = 6 gives 2 passes (at 125 and 175
	 * ms of the 100-200 ms interval), each over ceil(600 / 20) = 30 pages,
	 * at 68 and at 24 of the 71 places */
	assert_int_equal(damon_passes(&a, 6), 2);
	assert_int_equal(damon_pass_time(&a, 200000000, 2, 0), 125000000);
	assert_int_equal(damon_pass_time(&a, 200000000, 2, 1), 175000000);
	assert_int_equal(damon_window(&a, 0x10000, 100, 6, 125000000, &len), 0x10000 + 68);
	assert_int_equal(len, 30);
	assert_int_equal(damon_window(&a, 0x10000, 100, 6, 175000000, &len), 0x10000 + 24);
	assert_int_equal(len, 30);
	/* found accessed at every check: the whole region, from its start */
	assert_int_equal(damon_window(&a, 0x10000, 100, 20, 150000000, &len), 0x10000);
	assert_int_equal(len, 100);
	/* never found accessed: nothing */
	damon_window(&a, 0x10000, 100, 0, 150000000, &len);
	assert_int_equal(len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(passes_default_intervals),
		cmocka_unit_test(passes_few_checks),
		cmocka_unit_test(pass_times),
		cmocka_unit_test(window_pages),
		cmocka_unit_test(window_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
