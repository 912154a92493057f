/*
 * test_kcounter.c — what the kernel counted in a captured session
 * (analysis/kcounter.h), from reclaim events whose sums are worked out
 * by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "analyze.h"
#include "kcounter.h"

#define ANON 0x1   /* trace_reclaim_flags: RECLAIM_WB_ANON */
#define FILE_ 0x2  /* RECLAIM_WB_FILE */

static struct vmr_kev isolate(uint64_t lru, uint64_t scanned, uint64_t taken)
{
	struct vmr_kev e = { .ts_ns = 1, .tid = 7, .pid = 7, .type = VMR_KEV_LRU_ISOLATE };
	e.f[3] = scanned;
	e.f[5] = taken;
	e.f[6] = lru;
	return e;
}

static struct vmr_kev shrink(uint64_t scanned, uint64_t reclaimed, uint64_t flags)
{
	struct vmr_kev e = { .ts_ns = 2, .tid = 7, .pid = 7, .type = VMR_KEV_SHRINK_INACTIVE };
	for (int i = 0; i < VMR_KEV_FIELDS; i++)
		e.f[i] = 0;
	e.f[1] = scanned;
	e.f[2] = reclaimed;
	e.f[11] = 4;    /* priority */
	e.f[12] = flags;
	return e;
}

/*
 * One MGLRU anon batch as 6.12's evict_folios reports it: scan_folios
 * scanned 40 folios and isolated 32 (lru_isolate nr_scanned 40,
 * nr_taken 32); shrink_folio_list reclaimed 20 (lru_shrink_inactive 40,
 * 20); the clean-retry pass reclaimed 5 more and fired the event again
 * with the same 40.  Then a file batch: 16 scanned, 10 isolated, 6
 * reclaimed, no retry.  The kernel's pgscan counted what was isolated
 * (32 anon, 10 file), pgsteal what was reclaimed (25, 6).  Under classic
 * the same events mean pgscan = shrink_inactive_list's nr_scanned: 80
 * and 16.
 */
static void counters(const char *lru_kind, double scan_anon, double scan_file)
{
	struct vmr_kev kev[] = {
		isolate(0, 40, 32), shrink(40, 20, ANON), shrink(40, 5, ANON),
		isolate(2, 16, 10), shrink(16, 6, FILE_),
	};
	char meta[64];
	snprintf(meta, sizeof(meta), "lru_kind\t%s\n", lru_kind);
	struct vmr v = { .meta = meta, .meta_size = strlen(meta), .kev = kev,
	                 .nr_kev = sizeof(kev) / sizeof(kev[0]) };
	struct analysis a;
	char err[128];
	assert_int_equal(analyze_vmr(&v, &a, err, sizeof(err)), 0);
	struct kcounter k = kernel_counter(&v, &a, "pgscan_anon");
	assert_true(k.have);
	assert_true(k.v == scan_anon);
	k = kernel_counter(&v, &a, "pgscan_file");
	assert_true(k.v == scan_file);
	k = kernel_counter(&v, &a, "pgsteal_anon");
	assert_true(k.v == 25);
	k = kernel_counter(&v, &a, "pgsteal_file");
	assert_true(k.v == 6);
	analysis_free(&a);
}

static void mglru_pgscan_is_isolated(void **state)
{
	(void)state;
	counters("mglru", 32, 10);
}

static void classic_pgscan_is_scanned(void **state)
{
	(void)state;
	counters("classic", 80, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mglru_pgscan_is_isolated),
		cmocka_unit_test(classic_pgscan_is_scanned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
