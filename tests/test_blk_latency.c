/*
 * test_blk_latency.c — capture/blk_latency.c, the device latencies the
 * capture agent measures, on a crafted stream of block_rq_issue and
 * block_rq_complete records whose medians are worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "blk_latency.h"

#define DISK BLK_MKDEV(254, 0)
#define OTHER BLK_MKDEV(8, 16)

static void rwbs(void **state)
{
	(void)state;
	/* blk_fill_rwbs: [F preflush] op [F fua] [A] [S] [M] */
	assert_int_equal(blk_rwbs_dir("R"), BLK_READ);
	assert_int_equal(blk_rwbs_dir("RA"), BLK_READ);
	assert_int_equal(blk_rwbs_dir("RSM"), BLK_READ);
	assert_int_equal(blk_rwbs_dir("W"), BLK_WRITE);
	assert_int_equal(blk_rwbs_dir("WS"), BLK_WRITE);
	assert_int_equal(blk_rwbs_dir("WFS"), BLK_WRITE);
	assert_int_equal(blk_rwbs_dir("FWS"), BLK_WRITE);
	assert_int_equal(blk_rwbs_dir("F"), -1);      /* REQ_OP_FLUSH */
	assert_int_equal(blk_rwbs_dir("FF"), -1);     /* a flush with a preflush */
	assert_int_equal(blk_rwbs_dir("D"), -1);
	assert_int_equal(blk_rwbs_dir("DE"), -1);
	assert_int_equal(blk_rwbs_dir("FN"), -1);
	assert_int_equal(blk_rwbs_dir(""), -1);
}

static void swap_file(void **state)
{
	(void)state;
	/* A swap file of two extents on DISK: sectors [1000, 2000) and
	 * [5000, 5008). */
	const struct blk_extent ext[] = { { 1000, 2000 }, { 5000, 5008 } };
	struct blk_latency *b = blk_latency_new(DISK, ext, 2);
	assert_non_null(b);

	/* swap reads: 300, 100 (the extent's last sector), 100 (requeued:
	 * from the second issue, 2500 -> 2600) */
	assert_int_equal(blk_latency_issue(b, 100, DISK, 1000, 8, "R"), 0);
	assert_int_equal(blk_latency_issue(b, 150, DISK, 3000, 256, "RA"), 0);   /* file */
	assert_int_equal(blk_latency_issue(b, 160, DISK, 5000, 8, "WS"), 0);     /* swap write */
	blk_latency_complete(b, 400, DISK, 1000, 8, "R", 0);                    /* 300 */
	blk_latency_complete(b, 1150, DISK, 3000, 256, "RA", 0);                /* file 1000 */
	assert_int_equal(blk_latency_issue(b, 500, DISK, 1999, 1, "R"), 0);
	blk_latency_complete(b, 600, DISK, 1999, 1, "R", 0);                    /* 100 */
	/* sector 2000 is past the extent: file */
	assert_int_equal(blk_latency_issue(b, 700, DISK, 2000, 8, "R"), 0);
	blk_latency_complete(b, 1000, DISK, 2000, 8, "R", 0);                   /* file 300 */
	blk_latency_complete(b, 900, DISK, 5000, 8, "WS", 0);                   /* swap write 740 */
	/* a flush and a discard carry no data: not measured */
	assert_int_equal(blk_latency_issue(b, 950, DISK, 0, 0, "FF"), 0);
	blk_latency_complete(b, 990, DISK, 0, 0, "FF", 0);
	assert_int_equal(blk_latency_issue(b, 960, DISK, 1200, 8, "D"), 0);
	blk_latency_complete(b, 5000, DISK, 1200, 8, "D", 0);
	/* a write with a preflush: swap write 60 */
	assert_int_equal(blk_latency_issue(b, 1000, DISK, 5004, 4, "FWS"), 0);
	blk_latency_complete(b, 1060, DISK, 5004, 4, "WS", 0);
	/* a completion of a request issued before the capture: nothing */
	blk_latency_complete(b, 1100, DISK, 7777, 8, "R", 0);
	/* requeued: issued at 2000 and again at 2500, done at 2600 */
	assert_int_equal(blk_latency_issue(b, 2000, DISK, 1500, 8, "R"), 0);
	assert_int_equal(blk_latency_issue(b, 2500, DISK, 1500, 8, "R"), 0);
	blk_latency_complete(b, 2600, DISK, 1500, 8, "R", 0);                   /* 100 */
	/* a failed request measured no service */
	assert_int_equal(blk_latency_issue(b, 3000, DISK, 1600, 8, "R"), 0);
	blk_latency_complete(b, 3100, DISK, 1600, 8, "R", -5);
	/* the same sector on another disk is that disk's file I/O: 50 */
	assert_int_equal(blk_latency_issue(b, 10, OTHER, 1000, 8, "R"), 0);
	blk_latency_complete(b, 60, OTHER, 1000, 8, "R", 0);

	struct blk_stat st;
	/* swap reads 100 100 300: median 100; writes 60 740: (60 + 740) / 2 */
	blk_latency_stat(b, DISK, BLK_SWAP, &st);
	assert_int_equal(st.nr[BLK_READ], 3);
	assert_int_equal(st.median_ns[BLK_READ], 100);
	assert_int_equal(st.nr[BLK_WRITE], 2);
	assert_int_equal(st.median_ns[BLK_WRITE], 400);
	/* file reads 300 1000: 650; no file write */
	blk_latency_stat(b, DISK, BLK_FILE, &st);
	assert_int_equal(st.nr[BLK_READ], 2);
	assert_int_equal(st.median_ns[BLK_READ], 650);
	assert_int_equal(st.nr[BLK_WRITE], 0);
	assert_int_equal(st.median_ns[BLK_WRITE], 0);
	blk_latency_stat(b, OTHER, BLK_FILE, &st);
	assert_int_equal(st.nr[BLK_READ], 1);
	assert_int_equal(st.median_ns[BLK_READ], 50);
	blk_latency_stat(b, OTHER, BLK_SWAP, &st);
	assert_int_equal(st.nr[BLK_READ] + st.nr[BLK_WRITE], 0);
	/* no disk at all (zram's swap): nothing */
	blk_latency_stat(b, 0, BLK_SWAP, &st);
	assert_int_equal(st.nr[BLK_READ] + st.nr[BLK_WRITE], 0);
	blk_latency_free(b);
}

static void swap_device(void **state)
{
	(void)state;
	/* no extents: the whole disk is swap, every other disk file I/O */
	struct blk_latency *b = blk_latency_new(DISK, NULL, 0);
	assert_non_null(b);
	assert_int_equal(blk_latency_issue(b, 0, DISK, 123456789, 8, "R"), 0);
	assert_int_equal(blk_latency_issue(b, 0, OTHER, 8, 8, "W"), 0);
	blk_latency_complete(b, 70, DISK, 123456789, 8, "R", 0);
	blk_latency_complete(b, 90, OTHER, 8, 8, "W", 0);
	struct blk_stat st;
	blk_latency_stat(b, DISK, BLK_SWAP, &st);
	assert_int_equal(st.nr[BLK_READ], 1);
	assert_int_equal(st.median_ns[BLK_READ], 70);
	blk_latency_stat(b, DISK, BLK_FILE, &st);
	assert_int_equal(st.nr[BLK_READ] + st.nr[BLK_WRITE], 0);
	blk_latency_stat(b, OTHER, BLK_FILE, &st);
	assert_int_equal(st.nr[BLK_WRITE], 1);
	assert_int_equal(st.median_ns[BLK_WRITE], 90);
	blk_latency_free(b);
}

/* Completions the ring buffer lost do not make the table grow without
 * end: past 8192 requests in flight the oldest is forgotten. */
static void lost_completions(void **state)
{
	(void)state;
	struct blk_latency *b = blk_latency_new(0, NULL, 0);
	assert_non_null(b);
	for (uint64_t i = 0; i <= 8192; i++)
		assert_int_equal(blk_latency_issue(b, 1000 + i, DISK, 8 * i, 8, "R"), 0);
	blk_latency_complete(b, 100000, DISK, 0, 8, "R", 0);          /* forgotten */
	blk_latency_complete(b, 100000, DISK, 8 * 8192, 8, "R", 0);   /* 100000 - 9192 */
	struct blk_stat st;
	blk_latency_stat(b, DISK, BLK_FILE, &st);
	assert_int_equal(st.nr[BLK_READ], 1);
	assert_int_equal(st.median_ns[BLK_READ], 100000 - 9192);
	blk_latency_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rwbs),
		cmocka_unit_test(swap_file),
		cmocka_unit_test(swap_device),
		cmocka_unit_test(lost_completions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
