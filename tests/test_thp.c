/*
 * test_thp.c — the anonymous THP fault (replay/mm/huge_memory.c
 * do_huge_pmd_anonymous_page, try_charge_memcg with nr_pages 512):
 * records flagged VMR_F_HUGE charge one 512-page folio, other faults one
 * page, and a THP charge that fails falls back to one base page.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>
#include "sim/engine.h"
#include "mm/policy.h"
#include "mm/internal.h"
#include "vmr_fixture.h"
#include "engine_fixture.h"

#define HPAGE 512u                     /* HPAGE_PMD_NR with 4 KiB pages */

/* A THP fault at page HEAD of the PMD range FIRST .. FIRST + 511, as
 * ingest writes it (kdemand.c thp_fault): the faulting page, then the
 * range's other pages, their ids after the faulting page's. */
static int thp_recs(struct vmr_rec *r, uint32_t head, uint32_t delta)
{
	r[0] = fixture_rec(head, VMR_OP_STORE | VMR_F_HUGE, 0, delta);
	r[1] = fixture_run(head + 1, VMR_OP_STORE | VMR_F_HUGE, 0, HPAGE - 1);
	return 2;
}

/* The memcg reclaims of the replay. */
static uint64_t memcg_reclaims(const struct engine *e)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < e->records.nr; i++)
		n += e->records.all[i].kind == RECLAIM_MEMCG;
	return n;
}

static void run(struct engine *e, struct vmr *v, const struct vmr_rec *r, uint64_t nr, uint64_t pages,
		uint64_t limit, unsigned gfp)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_thp.%d.vmr", (int)getpid());
	struct fixture_task t = { 0, r, nr };
	fixture_thp_gfp = gfp;
	fixture_keep_records = 1;
	replay_fixture(e, v, path, policy_find("classic"), &t, pages, NULL, limit, 0, "zram");
	unlink(path);
}

/* One THP fault and one ordinary write fault, room for both (limit 2048
 * pages): 512 + 1 pages allocated in two faults, no reclaim. */
static void thp_fault_charges_512(void **state)
{
	(void)state;
	struct vmr_rec r[3];
	int n = thp_recs(r, 0, 0);
	r[n++] = fixture_rec(HPAGE, VMR_OP_STORE, 0, 10);
	struct engine e;
	struct vmr v;
	run(&e, &v, r, (uint64_t)n, HPAGE + 1, 2048, GFP_DIRECT_RECLAIM);
	assert_int_equal(e.vm[VM_pgalloc], HPAGE + 1);
	assert_int_equal(e.vm[VM_pgfault], 2);
	assert_int_equal(memcg_reclaims(&e), 0);
	engine_free(&e);
	vmr_close(&v);
}

/* The same pages without the flag: a write fault each, one page each. */
static void fault_outside_charges_1(void **state)
{
	(void)state;
	struct vmr_rec r[2] = { fixture_rec(0, VMR_OP_STORE, 0, 0), fixture_rec(7, VMR_OP_STORE, 0, 10) };
	struct engine e;
	struct vmr v;
	run(&e, &v, r, 2, HPAGE, 2048, GFP_DIRECT_RECLAIM);
	assert_int_equal(e.vm[VM_pgalloc], 2);
	assert_int_equal(e.vm[VM_pgfault], 2);
	engine_free(&e);
	vmr_close(&v);
}

/* A THP fault in a memcg of 300 pages, the faulting page in the middle
 * of its range (ids: head 0, the rest 1..511): 512 never fit.  With
 * direct reclaim (defrag "madvise", a VM_HUGEPAGE VMA) try_charge_memcg
 * reclaims (nothing on the LRU), drains and reclaims again, then retries
 * MAX_RECLAIM_RETRIES (16) times without the free retry on progress that
 * costly orders do not get: 18 reclaims of nr_to_reclaim 512, no OOM
 * kill (mem_cgroup_oom refuses order 9), and the fault falls back to the
 * one base page.  The range's other pages stay out. */
static void thp_charge_fails_falls_back(void **state)
{
	(void)state;
	struct vmr_rec r[2];
	int n = thp_recs(r, 0, 0);
	struct engine e;
	struct vmr v;
	run(&e, &v, r, (uint64_t)n, HPAGE, 300, GFP_DIRECT_RECLAIM);
	assert_int_equal(e.vm[VM_pgalloc], 1);
	assert_int_equal(e.vm[VM_pgfault], 1);
	assert_int_equal(e.vm[VM_oom_kill], 0);
	assert_int_equal(memcg_reclaims(&e), 18);
	engine_free(&e);
	vmr_close(&v);

	/* Without __GFP_DIRECT_RECLAIM (defrag "madvise" outside a
	 * VM_HUGEPAGE VMA, "defer", "never") it fails at once. */
	run(&e, &v, r, (uint64_t)n, HPAGE, 300, 0);
	assert_int_equal(e.vm[VM_pgalloc], 1);
	assert_int_equal(e.vm[VM_pgfault], 1);
	assert_int_equal(memcg_reclaims(&e), 0);
	engine_free(&e);
	vmr_close(&v);
}

/* vma_thp_gfp_mask by defrag mode, madvised or not. */
static void thp_gfp_by_defrag(void **state)
{
	(void)state;
	assert_int_equal(vma_thp_gfp_mask("always", 1), GFP_DIRECT_RECLAIM);
	assert_int_equal(vma_thp_gfp_mask("always", 0), GFP_DIRECT_RECLAIM | GFP_NORETRY);
	assert_int_equal(vma_thp_gfp_mask("madvise", 1), GFP_DIRECT_RECLAIM);
	assert_int_equal(vma_thp_gfp_mask("madvise", 0), 0);
	assert_int_equal(vma_thp_gfp_mask("defer+madvise", 1), GFP_DIRECT_RECLAIM);
	assert_int_equal(vma_thp_gfp_mask("defer", 1), 0);
	assert_int_equal(vma_thp_gfp_mask("never", 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(thp_fault_charges_512),
		cmocka_unit_test(fault_outside_charges_1),
		cmocka_unit_test(thp_charge_fails_falls_back),
		cmocka_unit_test(thp_gfp_by_defrag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
