/*
 * test_swap_state.c — swap-in read-ahead (replay/mm/swap_state.c), against
 * the kernel's formulas worked by hand: __swapin_nr_pages, the window of
 * swap_ra_info and its PMD clamp, the slots the cluster allocator hands
 * out and swap_cluster_readahead's window over them, and what a swap-in
 * reads in the engine on a queued device (by address or by slot) and on
 * zram.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim/engine.h"
#include "mm/internal.h"
#include "mm/swap_state.h"
#include "vmr_fixture.h"
#include "engine_fixture.h"

static void nr_pages(void **state)
{
	(void)state;
	/* No hits: two pages for a neighbour of the last fault, else one. */
	assert_int_equal(swapin_nr_pages(4, 5, 0, 8, 0), 2);
	assert_int_equal(swapin_nr_pages(6, 5, 0, 8, 0), 2);
	assert_int_equal(swapin_nr_pages(100, 5, 0, 8, 0), 1);
	/* ... but never below half the last window. */
	assert_int_equal(swapin_nr_pages(100, 5, 0, 8, 8), 4);
	/* Hits: hits + 2 rounded up to a power of two, at least 4, at most
	 * the maximum (8 for page-cluster 3). */
	assert_int_equal(swapin_nr_pages(100, 5, 1, 8, 0), 4);     /* 3 -> 4 */
	assert_int_equal(swapin_nr_pages(100, 5, 2, 8, 0), 4);     /* 4 -> 4 */
	assert_int_equal(swapin_nr_pages(100, 5, 3, 8, 0), 8);     /* 5 -> 8 */
	assert_int_equal(swapin_nr_pages(100, 5, 10, 8, 0), 8);    /* 12 -> 16 -> 8 */
}

/* Every anon page of the box in swap (not resident). */
static void all_swapped(struct engine *e)
{
	for (uint32_t i = 0; i < e->nr_folios; i++)
		e->folio[i].flags |= PG_swapped;
}

static void window(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 600, 600, 0, 1000, 60);   /* 600 anon pages, page i at vpn i */
	struct engine *e = &b.e;
	/* The box swaps to zram, which reads nothing ahead: make it a
	 * queued SSD, which reads ahead by address, and build its index. */
	e->swap.p.sync = 0;
	assert_int_equal(swap_ra_init(e), 0);
	assert_non_null(e->anon_by_addr);
	all_swapped(e);
	uint32_t ids[SWAP_RA_MAX_WIN];
	struct swap_ra_info *ra = &e->procs[0].swap_ra;

	/* After a fault at 4, one at 5 with no hits: a window of 2 going
	 * up, [5, 7): page 6 besides the faulting one. */
	*ra = (struct swap_ra_info){ .addr = 4 };
	assert_int_equal(swap_ra_window(e, 0, 5, ids), 1);
	assert_int_equal(ids[0], 6);
	assert_int_equal(ra->addr, 5);
	assert_int_equal(ra->win, 2);
	assert_int_equal(ra->hits, 0);

	/* Going down (the last fault at 6): [fpfn - 1, fpfn + 1) = [4, 6). */
	*ra = (struct swap_ra_info){ .addr = 6 };
	assert_int_equal(swap_ra_window(e, 0, 5, ids), 1);
	assert_int_equal(ids[0], 4);

	/* Three hits elsewhere: a window of 8, left = 3: [2, 10) around 5;
	 * page 7 is resident and page 8 being read, so not read again. */
	*ra = (struct swap_ra_info){ .addr = 100, .hits = 3 };
	e->folio[7].flags = (e->folio[7].flags & ~PG_swapped) | PG_resident;
	e->folio[8].flags |= PG_locked;
	uint32_t n = swap_ra_window(e, 0, 5, ids);
	uint32_t want[] = { 2, 3, 4, 6, 9 };
	assert_int_equal(n, 5);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(ids[i], want[i]);

	/* The PMD clamp: around 513, [510, 518) becomes [512, 518). */
	*ra = (struct swap_ra_info){ .addr = 100, .hits = 3 };
	n = swap_ra_window(e, 0, 513, ids);
	uint32_t want2[] = { 512, 514, 515, 516, 517 };
	assert_int_equal(n, 5);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(ids[i], want2[i]);

	/* No hits, not a neighbour: no read-ahead at all. */
	*ra = (struct swap_ra_info){ .addr = 100 };
	assert_int_equal(swap_ra_window(e, 0, 5, ids), 0);
	assert_int_equal(ra->win, 1);
	box_free(&b);
}

/* A rotational swap device: read-ahead goes by slot.  Pages 0-15 swapped
 * out in order take slots 1-16 (slot 0 is the header); a freed slot is
 * not reused while the cluster has room further on. */
static void cluster(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 600, 600, 0, 1000, 60);
	struct engine *e = &b.e;
	e->swap.p.sync = 0;
	e->swap.p.rotational = 1;
	assert_false(swap_use_vma_readahead(e));
	assert_int_equal(swap_ra_init(e), 0);
	assert_non_null(e->si.swap_map);
	assert_int_equal(e->si.max, 1001);
	for (uint32_t i = 0; i < 16; i++) {
		assert_int_equal(folio_alloc_swap(e, i), 1);
		assert_int_equal(e->si.slot_of[i], i + 1);
		e->folio[i].flags |= PG_swapped;
	}
	folio_free_swap(e, 2);                        /* slot 3 */
	assert_int_equal(e->si.swap_map[3], 0);
	assert_int_equal(folio_alloc_swap(e, 2), 1);
	assert_int_equal(e->si.slot_of[2], 17);       /* on from the cursor */
	e->folio[2].flags |= PG_swapped;
	folio_free_swap(e, 2);
	assert_int_equal(folio_alloc_swap(e, 2), 1);
	assert_int_equal(e->si.slot_of[2], 18);
	e->folio[2].flags |= PG_swapped;

	uint32_t ids[SWAP_RA_MAX_WIN];
	/* The first fault (slot 10, page 9): no hits, not next to the last
	 * offset (0): a window of one, nothing read ahead. */
	assert_int_equal(swap_ra_window(e, 0, 9, ids), 0);
	assert_int_equal(e->swap_ra_cluster.prev_offset, 10);
	/* Then slot 11 (page 10): next to it, two pages: the aligned pair
	 * [10, 11], so page 9's slot. */
	assert_int_equal(swap_ra_window(e, 0, 10, ids), 1);
	assert_int_equal(ids[0], 9);
	assert_int_equal(e->swap_ra_cluster.last_readahead_pages, 2);
	/* Two read-ahead hits: 2 + 2 = 4 pages, the aligned block [4, 7]
	 * around slot 4 (page 3): slots 5-7, pages 4-6.  With hits the last
	 * offset stays. */
	swap_ra_hit(e, 0, 9, 1);
	swap_ra_hit(e, 0, 9, 1);
	swap_ra_hit(e, 0, 9, 0);                      /* not a read-ahead page */
	assert_int_equal(e->swap_ra_cluster.hits, 2);
	uint32_t n = swap_ra_window(e, 0, 3, ids);
	uint32_t want[] = { 4, 5, 6 };
	assert_int_equal(n, 3);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(ids[i], want[i]);
	assert_int_equal(e->swap_ra_cluster.hits, 0);
	assert_int_equal(e->swap_ra_cluster.prev_offset, 11);
	/* No hits, far away (slot 1, page 0): one page, but not below half
	 * the last window (4): two, the pair [0, 1] — whose slot 0 is the
	 * header: nothing else to read. */
	assert_int_equal(swap_ra_window(e, 0, 0, ids), 0);
	assert_int_equal(e->swap_ra_cluster.last_readahead_pages, 2);
	box_free(&b);
}

/* 64 anon pages stored, then loaded again in order, in a memcg of 32
 * pages with 1000 pages of swap on SWAP_DEV. */
static void reload(struct engine *e, struct vmr *v, const char *path, const char *swap_dev)
{
	struct vmr_rec r[2] = { fixture_run(0, VMR_OP_STORE, 0, 64), fixture_run(0, VMR_OP_LOAD, 0, 64) };
	struct fixture_task t = { 0, r, 2 };
	replay_fixture(e, v, path, policy_find("classic"), &t, 64, NULL, 32, 1000, swap_dev);
}

static void swapin(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_swap_state.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;

	/* zram swaps in synchronously, page by page: every swap-in is a
	 * major fault. */
	reload(&e, &v, path, "zram");
	assert_true(e.vm[VM_pswpin] > 0);
	assert_int_equal(e.vm[VM_pswpin], e.vm[VM_pgmajfault]);
	engine_free(&e);
	vmr_close(&v);

	/* A queued device reads the sequential reload ahead: more pages
	 * come in than faults wait for, and each one read counts.  (A
	 * cgroup v1 memcg, as on the capture machine: its reclaim waits for
	 * the SSD's writes where v2's would give up before they end.) */
	fixture_cgroup_v1 = 1;
	reload(&e, &v, path, "ssd");
	assert_true(e.vm[VM_pgmajfault] > 0);
	assert_true(e.vm[VM_pswpin] > e.vm[VM_pgmajfault]);
	assert_int_equal(e.vm[VM_pswpin], e.swap.reads);
	engine_free(&e);
	vmr_close(&v);

	/* A rotational one reads ahead too, by slot: the pages reclaim wrote
	 * out together come back together. */
	reload(&e, &v, path, "ssd,rotational=1");
	assert_non_null(e.si.swap_map);
	assert_true(e.vm[VM_pgmajfault] > 0);
	assert_true(e.vm[VM_pswpin] > e.vm[VM_pgmajfault]);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nr_pages),
		cmocka_unit_test(window),
		cmocka_unit_test(cluster),
		cmocka_unit_test(swapin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
