/*
 * test_page_order.c — sort_pages_by_addr (replay/sim/page_order.c): page
 * ids in (space, ino, index) or (space, index) order, checked against
 * orders worked out by hand, with keys that differ in high bytes only, in
 * one field only, and equal keys (which keep their ids' order).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/page_order.h"

/* Page id i is pages[i]. */
static const struct vmr_page pages[] = {
	{ .space = 7, .ino = 0, .index = 1ull << 40 },      /* 0 */
	{ .space = 7, .ino = 0, .index = 3 },               /* 1 */
	{ .space = 1ull << 56, .ino = 0, .index = 0 },      /* 2 */
	{ .space = 7, .ino = 2, .index = 0 },               /* 3 */
	{ .space = 2, .ino = 9, .index = 0x100 },           /* 4 */
	{ .space = 2, .ino = 9, .index = 0xff },            /* 5 */
	{ .space = 7, .ino = 0, .index = 3 },               /* 6: same key as 1 */
	{ .space = 7, .ino = 1, .index = 5 },               /* 7 */
};

static void by_ino(void **state)
{
	(void)state;
	uint32_t ids[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	assert_int_equal(sort_pages_by_addr(pages, ids, 8, 1), 0);
	/* space 2: index 0xff, 0x100; space 7: ino 0 (index 3, 3, 2^40),
	 * ino 1, ino 2; space 2^56 */
	const uint32_t want[] = { 5, 4, 1, 6, 0, 7, 3, 2 };
	assert_memory_equal(ids, want, sizeof(want));
}

static void by_space_index(void **state)
{
	(void)state;
	uint32_t ids[] = { 6, 7, 3, 0, 1, 2, 5, 4 };
	assert_int_equal(sort_pages_by_addr(pages, ids, 8, 0), 0);
	/* ino ignored: space 7 is index 0 (3), 3 (6 before 1: their order
	 * in IDS), 5 (7), 2^40 (0) */
	const uint32_t want[] = { 5, 4, 3, 6, 1, 7, 0, 2 };
	assert_memory_equal(ids, want, sizeof(want));
}

static void trivial(void **state)
{
	(void)state;
	uint32_t one[] = { 3 };
	assert_int_equal(sort_pages_by_addr(pages, one, 1, 1), 0);
	assert_int_equal(one[0], 3);
	assert_int_equal(sort_pages_by_addr(pages, NULL, 0, 0), 0);
	uint32_t same[] = { 6, 1 };                      /* equal keys only */
	assert_int_equal(sort_pages_by_addr(pages, same, 2, 1), 0);
	assert_int_equal(same[0], 6);
	assert_int_equal(same[1], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(by_ino),
		cmocka_unit_test(by_space_index),
		cmocka_unit_test(trivial),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
