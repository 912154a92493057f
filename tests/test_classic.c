/*
 * test_classic.c — the classic LRU's mechanisms against expectations
 * computed by hand from mm/vmscan.c, mm/swap.c and mm/workingset.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim/engine.h"
#include "mm/mm_inline.h"
#include "mm/policy.h"
#include "mm/internal.h"
#include "vmr_fixture.h"
#include "engine_fixture.h"
#include "mm/vmscan.h"
#include "run.h"

/* ---- get_scan_count --------------------------------------------------- */

static void set_sizes(struct engine *e, int memcg, uint64_t ia, uint64_t aa, uint64_t inf, uint64_t af)
{
	/* Through update_lru_size, so that the ancestors' subtree sizes
	 * agree, then flushed, so that lruvec_page_state reads them (the
	 * box's machine has no CPU count: any pending update flushes). */
	struct lruvec *lv = &e->memcgs[memcg].lruvec;
	uint64_t want[NR_LRU_LISTS] = { ia, aa, inf, af };
	for (int l = 0; l < NR_LRU_LISTS; l++)
		update_lru_size(e, lv, l, (int64_t)(want[l] - lv->size[l]));
	mem_cgroup_flush_stats(e, 0);
}

static void expect_scan(struct engine *e, struct scan_control *sc, int memcg,
			uint64_t ia, uint64_t aa, uint64_t inf, uint64_t af)
{
	uint64_t nr[NR_LRU_LISTS];
	get_scan_count(e, memcg, sc, nr);
	assert_int_equal(nr[LRU_INACTIVE_ANON], ia);
	assert_int_equal(nr[LRU_ACTIVE_ANON], aa);
	assert_int_equal(nr[LRU_INACTIVE_FILE], inf);
	assert_int_equal(nr[LRU_ACTIVE_FILE], af);
}

/* Sizes 8192/4096/16384/8192 at priority 10 give 8/4/16/8 before the
 * split.  With costs 100 (anon) and 300 (file) and swappiness 60:
 *   total = 400, anon = 500, file = 700, total = 1200
 *   ap = 60 * 1201 / 501 = 143,  fp = 140 * 1201 / 701 = 239
 *   IA = 8*143/382 = 2, AA = 4*143/382 = 1, IF = 16*239/382 = 10,
 *   AF = 8*239/382 = 5. */
static void scan_count_fract(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 16, 8, 0, 1000, 60);
	set_sizes(&b.e, 0, 8192, 4096, 16384, 8192);
	struct scan_control sc = sc_for(10, -1);
	sc.anon_cost = 100;
	sc.file_cost = 300;
	expect_scan(&b.e, &sc, 0, 2, 1, 10, 5);

	/* No cost history: ap = sw, fp = 200 - sw.  60:140 of 8/4/16/8
	 * is 480/200=2, 240/200=1, 2240/200=11, 1120/200=5. */
	sc.anon_cost = sc.file_cost = 0;
	expect_scan(&b.e, &sc, 0, 2, 1, 11, 5);
	/* Swappiness 1: anon 8/200=0; file 16*199/200=15, 8*199/200=7. */
	b.e.memcgs[0].swappiness = 1;
	expect_scan(&b.e, &sc, 0, 0, 0, 15, 7);
	/* Swappiness 200: file gets nothing. */
	b.e.memcgs[0].swappiness = 200;
	expect_scan(&b.e, &sc, 0, 8, 4, 0, 0);
	box_free(&b);
}

static void scan_count_modes(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 16, 8, 0, 1000, 60);
	set_sizes(&b.e, 0, 8192, 4096, 16384, 8192);
	struct scan_control sc = sc_for(10, -1);

	/* SCAN_FILE: plenty of inactive file (cache_trim_mode). */
	sc.cache_trim_mode = 1;
	expect_scan(&b.e, &sc, 0, 0, 0, 16, 8);
	sc.cache_trim_mode = 0;
	/* SCAN_ANON: the file LRU is tiny. */
	sc.file_is_tiny = 1;
	expect_scan(&b.e, &sc, 0, 8, 4, 0, 0);
	sc.file_is_tiny = 0;
	/* SCAN_EQUAL at priority 0 (swappiness != 0): everything. */
	sc.priority = 0;
	expect_scan(&b.e, &sc, 0, 8192, 4096, 16384, 8192);
	sc.priority = 10;
	/* No swap left: SCAN_FILE. */
	b.e.swap_used = b.e.swap_slots;
	expect_scan(&b.e, &sc, 0, 0, 0, 16, 8);
	b.e.swap_used = 0;
	/* Cgroup reclaim with swappiness 0: SCAN_FILE.  Global reclaim with
	 * swappiness 0 stays FRACT with a zero anon share. */
	b.e.memcgs[0].swappiness = 0;
	sc.target_mem_cgroup = 0;
	expect_scan(&b.e, &sc, 0, 0, 0, 16, 8);
	sc.target_mem_cgroup = -1;
	expect_scan(&b.e, &sc, 0, 0, 0, 16, 8);
	/* ... but at priority 0 it does not go EQUAL either. */
	sc.priority = 0;
	expect_scan(&b.e, &sc, 0, 0, 0, 16384, 8192);
	box_free(&b);
}

/* ---- inactive_is_low ------------------------------------------------------ */

static void inactive_low(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 16, 8, 0, 0, 60);
	struct engine *e = &b.e;
	/* Under 1 GiB the ratio is 1. */
	set_sizes(e, 0, 100, 150, 0, 0);
	assert_true(inactive_is_low(e, 0, LRU_INACTIVE_ANON));
	set_sizes(e, 0, 200, 150, 0, 0);
	assert_false(inactive_is_low(e, 0, LRU_INACTIVE_ANON));
	/* 1 GiB (262144 pages): int_sqrt(10) = 3. */
	set_sizes(e, 0, 0, 0, 65536, 196608);
	assert_false(inactive_is_low(e, 0, LRU_INACTIVE_FILE));   /* 196608 < 196608 is false */
	set_sizes(e, 0, 0, 0, 65535, 196609);
	assert_true(inactive_is_low(e, 0, LRU_INACTIVE_FILE));
	/* 10 GiB: int_sqrt(100) = 10. */
	set_sizes(e, 0, 200000, 2421440, 0, 0);
	assert_true(inactive_is_low(e, 0, LRU_INACTIVE_ANON));
	set_sizes(e, 0, 240000, 2381440, 0, 0);
	assert_false(inactive_is_low(e, 0, LRU_INACTIVE_ANON));
	box_free(&b);
}

/* ---- folio_mark_accessed ---------------------------------------------------- */

static void two_touch(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 4, 0, 0, 0, 60);
	struct engine *e = &b.e;
	install(e, 1, 0);
	struct folio *f = &e->folio[1];
	assert_int_equal(f->lru, LRU_INACTIVE_FILE);
	folio_mark_accessed(e, 1);
	assert_true(f->flags & PG_referenced);
	assert_false(f->flags & PG_active);
	assert_int_equal(e->vm[VM_pgactivate], 0);
	folio_mark_accessed(e, 1);           /* second touch */
	assert_true(f->flags & PG_active);
	assert_false(f->flags & PG_referenced);
	assert_int_equal(f->lru, LRU_ACTIVE_FILE);
	assert_int_equal(e->vm[VM_pgactivate], 1);
	assert_int_equal(e->memcgs[0].lruvec.size[LRU_ACTIVE_FILE], 1);
	assert_int_equal(e->memcgs[0].lruvec.nonresident_age, 1);  /* workingset_activation */
	folio_mark_accessed(e, 1);           /* third: referenced, stays */
	assert_true(f->flags & PG_referenced);
	assert_int_equal(e->vm[VM_pgactivate], 1);
	box_free(&b);
}

/* ---- the statistics reclaim reads ------------------------------------------- */

/* lruvec_page_state reads the memcg statistics of the last flush: a
 * reader of memory.stat flushes once more updates are pending than the
 * CPUs' batches of 64 hold; the periodic flusher flushes everything; the
 * rate-limited flush of reclaim only when the periodic one is 4 s late. */
static void stale_statistics(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 16, 8, 0, 0, 60);
	struct engine *e = &b.e;
	e->p.nr_cpus = 2;                                 /* flush above 128 updates */
	struct lruvec *lv = &e->memcgs[0].lruvec;
	update_lru_size(e, lv, LRU_INACTIVE_ANON, 100);
	assert_int_equal(lruvec_page_state(e, 0, LRU_INACTIVE_ANON), 0);
	assert_int_equal(node_page_state(e, LRU_INACTIVE_ANON), 100);   /* exact */
	mem_cgroup_flush_stats(e, 0);                     /* 100 pending: no */
	assert_int_equal(lruvec_page_state(e, 0, LRU_INACTIVE_ANON), 0);
	update_lru_size(e, lv, LRU_INACTIVE_ANON, -29);   /* 129 pending: yes */
	mem_cgroup_flush_stats(e, 0);
	assert_int_equal(lruvec_page_state(e, 0, LRU_INACTIVE_ANON), 71);
	assert_int_equal(lv->stats_updates, 0);
	update_lru_size(e, lv, LRU_ACTIVE_FILE, 500);
	mem_cgroup_flush_stats_ratelimited(e, 0);         /* flushed at 0, now 0: no */
	assert_int_equal(lruvec_page_state(e, 0, LRU_ACTIVE_FILE), 0);
	e->sim.now = 4 * NSEC_PER_SEC + 1;                /* a full cycle late */
	mem_cgroup_flush_stats_ratelimited(e, 0);
	assert_int_equal(lruvec_page_state(e, 0, LRU_ACTIVE_FILE), 500);
	update_lru_size(e, lv, LRU_ACTIVE_FILE, 1);
	flush_memcg_stats_dwork(e);                       /* everything, whatever is pending */
	assert_int_equal(lruvec_page_state(e, 0, LRU_ACTIVE_FILE), 501);
	assert_int_equal(e->stats_flush_last, 4 * NSEC_PER_SEC + 1);
	box_free(&b);
}

/* Where the capture recorded the statistics' flushes (KEVENTS
 * stats_flush), the replay makes them at their times instead of the
 * periodic flusher's 2 s grid and the memory.stat reads' threshold rule.
 * One task reads file page 0 at 1 us and page 1 at 5 s + 1 us; the trace
 * has a fork at 0.1 s (not a flush), flushes of the session's cgroup at
 * 0.5 s and 3 s and one of the root at 1.25 s.  Recorded: the session's
 * flush shows page 0 although 1 update is pending, below the 64-per-CPU
 * batch a reader's threshold asks; the root's at 1.25 s is the last
 * flush of everything (the grid would have made 2 s and 4 s; the
 * session's at 3 s is not one), and page 1 comes after every flush: the
 * statistics say 1 inactive file page where the lists hold 2.  Without the record: the grid's flushes at 2 s and 4 s,
 * the last at 4 s. */
static simtime_t flushes_replayed(int recorded, unsigned hz, uint64_t *session_stat, uint64_t *root_stat,
				  uint64_t *exact)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_flush.%d.vmr", (int)getpid());
	struct vmr_rec r[3] = {
		fixture_rec(0, VMR_OP_READ, 1, 1000),
		fixture_rec(298, VMR_OP_DELAY, 0, 389632),        /* 298 << 24 + 389632 = 5 s */
		fixture_rec(1, VMR_OP_READ, 1, 0),
	};
	struct fixture_task t = { 0, r, 3 };
	uint8_t file[2] = { 1, 1 };
	assert_int_equal(fixture_vmr(path, &t, 1, 2, file, "page_size\t4096\n"), 0);
	struct vmr v;
	char err[256];
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	struct vmr_kev kev[4] = {
		{ .ts_ns = NSEC_PER_SEC / 10, .tid = 100, .pid = 100, .type = VMR_KEV_FORK },
		{ .ts_ns = NSEC_PER_SEC / 2, .tid = 7, .type = VMR_KEV_STATS_FLUSH, .f = { 4094, 0 } },
		{ .ts_ns = NSEC_PER_SEC + NSEC_PER_SEC / 4, .tid = 8, .type = VMR_KEV_STATS_FLUSH, .f = { 1, 1 } },
		{ .ts_ns = 3 * NSEC_PER_SEC, .tid = 7, .type = VMR_KEV_STATS_FLUSH, .f = { 4094, 0 } },
	};
	struct vmr with = v;
	with.kev = kev;
	with.nr_kev = 4;
	struct engine_params p = { .policy = policy_find("classic"), .swappiness = 60, .page_cluster = 3,
				   .vma_ra_enabled = 1, .memory_limit = 8 * 4096, .node_memory = 1ull << 30,
				   .nr_cpus = 1, .stats_flush_recorded = recorded, .seed = 1,
				   /* the trace's time 0 is 3.596 s after boot */
				   .hz = hz, .boot_offset_ns = -3596000000ll };
	assert_int_equal(backing_parse("zram", &p.swap, NULL, err, sizeof(err)), 0);
	assert_int_equal(backing_parse("ssd", &p.file, NULL, err, sizeof(err)), 0);
	struct engine e;
	assert_int_equal(engine_init(&e, &with, &p, err, sizeof(err)), 0);
	assert_int_equal(e.nr_memcgs, 2);
	assert_int_equal(engine_run(&e), 0);
	*session_stat = lruvec_page_state(&e, 1, LRU_INACTIVE_FILE);
	*root_stat = lruvec_page_state(&e, 0, LRU_INACTIVE_FILE);
	*exact = e.memcgs[1].lruvec.size[LRU_INACTIVE_FILE];
	simtime_t last = e.stats_flush_last;
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
	return last;
}

static void recorded_flushes(void **state)
{
	(void)state;
	uint64_t session, root, exact;
	assert_int_equal(flushes_replayed(1, 0, &session, &root, &exact), NSEC_PER_SEC + NSEC_PER_SEC / 4);
	assert_int_equal(session, 1);
	assert_int_equal(root, 1);
	assert_int_equal(exact, 2);
	assert_int_equal(flushes_replayed(0, 0, &session, &root, &exact), 4 * NSEC_PER_SEC);
	assert_int_equal(session, 1);
	assert_int_equal(root, 1);
	assert_int_equal(exact, 2);
	/* A recorded flush wins over the kernel's timers where both are known. */
	assert_int_equal(flushes_replayed(1, 100, &session, &root, &exact), NSEC_PER_SEC + NSEC_PER_SEC / 4);
}

/* The periodic flusher re-queues itself FLUSH_TIME = 2 * HZ jiffies
 * ahead; the timer wheel files that in level 1 (63..503 jiffies, buckets
 * of 8) at HZ 100 and 250, in level 2 (504..4031, buckets of 64) at HZ
 * 1000, and rounds up past the next bucket boundary (calc_index): 200 ->
 * (200 / 8 + 1) * 8 = 208, 500 -> (62 + 1) * 8 = 504, 2000 -> (31 + 1) *
 * 64 = 2048.  In a guest whose trace starts 3.596 s after boot (HZ 100:
 * runs at 2.08, 4.16, 6.24, 8.32 s since boot), the first run in the
 * trace is 4.16 - 3.596 = 0.564 s in, the next 2.644 s and 4.724 s; the
 * fixture's task ends at 5 s, so the last flush of everything is 4.724 s
 * in (without the kernel's timers: the 2 s grid's 4 s, above). */
static void flusher_since_boot(void **state)
{
	(void)state;
	assert_int_equal(flush_time_jiffies(100), 208);
	assert_int_equal(flush_time_jiffies(250), 504);
	assert_int_equal(flush_time_jiffies(1000), 2048);
	struct box b;
	box_open(&b, policy_find("classic"), 16, 8, 0, 0, 60);
	struct engine *e = &b.e;
	e->trace_t0 = 10 * NSEC_PER_SEC;
	assert_int_equal(flush_memcg_stats_first(e), 2 * NSEC_PER_SEC);   /* HZ not known */
	e->p.hz = 100;
	e->p.boot_offset_ns = 10 * (int64_t)NSEC_PER_SEC - 3596000000ll;
	assert_int_equal(flush_memcg_stats_first(e), 564000000);
	e->p.boot_offset_ns = 10 * (int64_t)NSEC_PER_SEC - 4160000000ll;   /* on a run: the next */
	assert_int_equal(flush_memcg_stats_first(e), 2080000000);
	box_free(&b);
	uint64_t session, root, exact;
	assert_int_equal(flushes_replayed(0, 100, &session, &root, &exact), 4724000000ull);
	assert_int_equal(session, 1);
	assert_int_equal(exact, 2);
}

/* ---- workingset_refault ----------------------------------------------------- */

static void refault_distance(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 8, 4, 0, 0, 60);   /* no swap: anon lists don't count */
	struct engine *e = &b.e;
	struct lruvec *lv = &e->memcgs[0].lruvec;
	set_sizes(e, 0, 0, 1000, 50, 100);

	/* A file page evicted when the clock read 900. */
	lv->nonresident_age = 900;
	workingset_eviction(e, 5, -1);
	assert_int_equal(lv->nonresident_age, 901);       /* the eviction ages it */
	/* 99 more evictions/activations: distance 100 <= active file (100). */
	lv->nonresident_age = 1000;
	workingset_refault(e, 5);
	assert_true(e->folio[5].flags & PG_active);
	assert_int_equal(e->vm[VM_workingset_refault_file], 1);
	assert_int_equal(e->vm[VM_workingset_activate_file], 1);

	/* Distance 101: outside the workingset size, stays inactive. */
	e->folio[6].flags &= ~PG_active;
	lv->nonresident_age = 900;
	workingset_eviction(e, 6, -1);
	lv->nonresident_age = 1001;
	workingset_refault(e, 6);
	assert_false(e->folio[6].flags & PG_active);
	assert_int_equal(e->vm[VM_workingset_refault_file], 2);
	assert_int_equal(e->vm[VM_workingset_activate_file], 1);

	/* An anon refault also competes with the inactive file list:
	 * 100 + 50 = 150 >= distance 150. */
	lv->nonresident_age = 500;
	workingset_eviction(e, 1, -1);
	lv->nonresident_age = 650;
	workingset_refault(e, 1);
	assert_true(e->folio[1].flags & PG_active);
	assert_int_equal(e->vm[VM_workingset_activate_anon], 1);
	/* A page that was in the workingset when evicted is restored. */
	e->folio[7].flags |= PG_workingset;
	lv->nonresident_age = 10;
	workingset_eviction(e, 7, -1);
	e->folio[7].flags &= ~PG_workingset;
	lv->nonresident_age = 20;
	workingset_refault(e, 7);
	assert_true(e->folio[7].flags & PG_workingset);
	assert_int_equal(e->vm[VM_workingset_restore_file], 1);
	box_free(&b);
}

/* ---- shrink_lruvec ------------------------------------------------------------ */

/* 2000 anon and 2000 clean, unmapped file pages in the memcg; zram swap;
 * priority 4; swappiness 60, no cost history.  get_scan_count asks for
 * IA = 125*60/200 = 37 and IF = 125*140/200 = 87.  First batch: 32 of
 * each, 64 reclaimed >= 32.  Not proportional (cgroup reclaim), so the
 * smaller (anon: 5 left) stops at percentage 5*100/38 = 13, and file is
 * cut to 87*87/100 = 75 minus the 32 done = 43 left.  The next round
 * scans 32 more file pages; then anon is at zero, and "it's just
 * vindictive to attack the larger once the smaller has gone to zero":
 * the loop ends.  Scanned in all: anon 32, file 64. */
static void proportional_stop(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 4000, 2000, 100000, 100000, 60);
	struct engine *e = &b.e;
	for (uint32_t p = 0; p < 4000; p++)
		install(e, p, 0);
	struct scan_control sc = sc_for(4, 1);
	shrink_lruvec(e, 1, &sc);
	assert_int_equal(e->vm[VM_pgscan_anon], 32);
	assert_int_equal(e->vm[VM_pgscan_file], 64);
	assert_int_equal(e->vm[VM_pgsteal_anon], 32);
	assert_int_equal(e->vm[VM_pgsteal_file], 64);
	assert_int_equal(e->vm[VM_pswpout], 32);
	assert_int_equal(e->vm[VM_pgscan_direct], 0);     /* cgroup reclaim: no global event */
	assert_int_equal(sc.nr_reclaimed, 96);
	box_free(&b);
}

/* The same lists in the root memcg under global direct reclaim at
 * priority 4 (not proportional: only DEF_PRIORITY is).  Mainline makes
 * the same nudge (anon 32, file 64: 1:2 against the 37:87 asked for);
 * classic+early-exit stops right after the first batch pair, at the
 * goal, scanning 1:1 — the review's point. */
static void early_exit_goal(void **state)
{
	(void)state;
	const struct reclaim_policy *pols[2] = { policy_find("classic"), policy_find("classic+early-exit") };
	const uint64_t want_file[2] = { 64, 32 };
	for (int i = 0; i < 2; i++) {
		struct box b;
		box_open(&b, pols[i], 4000, 2000, 0, 100000, 60);
		struct engine *e = &b.e;
		for (uint32_t p = 0; p < 4000; p++)
			install(e, p, 0);
		struct scan_control sc = sc_for(4, -1);
		shrink_lruvec(e, 0, &sc);
		assert_int_equal(e->vm[VM_pgscan_anon], 32);
		assert_int_equal(e->vm[VM_pgscan_file], want_file[i]);
		assert_int_equal(e->vm[VM_pgscan_direct], 32 + want_file[i]);
		assert_int_equal(sc.nr_reclaimed, 32 + want_file[i]);
		box_free(&b);
	}
}

/* Replays the .vmr at PATH under classic in a memcg of LIMIT pages, on a
 * 1 GiB machine with 256 pages of zram and an ssd for the files. */
static void classic_run(struct engine *e, struct vmr *v, const char *path, uint64_t limit)
{
	char err[256];
	assert_int_equal(vmr_open(v, path, err, sizeof(err)), 0);
	struct engine_params p = { .policy = policy_find("classic"), .swappiness = 60, .page_cluster = 3, .vma_ra_enabled = 1,
				   .memory_limit = limit * 4096, .node_memory = 1ull << 30,
				   .swap_size = 1 << 20, .seed = 1 };
	assert_int_equal(backing_parse("zram", &p.swap, NULL, err, sizeof(err)), 0);
	assert_int_equal(backing_parse("ssd", &p.file, NULL, err, sizeof(err)), 0);
	assert_int_equal(engine_init(e, v, &p, err, sizeof(err)), 0);
	assert_int_equal(engine_run(e), 0);
}

/* A streaming read of 3000 file pages, each read once, through a memcg
 * of 1000 pages: use-once pages are reclaimed and never activated. */
static void use_once_stream(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_s.%d.vmr", (int)getpid());
	enum { N = 3000 };
	uint8_t *file = malloc(N);
	memset(file, 1, N);
	struct vmr_rec *r = calloc(N, sizeof(*r));
	for (uint32_t i = 0; i < N; i++)
		r[i] = fixture_rec(i, VMR_OP_READ, 1, 1000);
	struct fixture_task t = { 0, r, N };
	assert_int_equal(fixture_vmr(path, &t, 1, N, file, "page_size\t4096\n"), 0);
	struct vmr v;
	struct engine e;
	classic_run(&e, &v, path, 1000);
	assert_true(e.vm[VM_pgsteal_file] >= N - 1000);
	assert_int_equal(e.vm[VM_pgactivate], 0);
	assert_int_equal(e.vm[VM_workingset_activate_file], 0);
	assert_int_equal(e.vm[VM_pgscan_anon], 0);
	assert_int_equal(e.tasks[0].accesses, N);
	engine_free(&e);
	vmr_close(&v);
	free(r);
	free(file);
	unlink(path);
}

/* A task stores to 2000 anon pages twice over in a memcg of 1000 pages
 * with no swap: nothing can be reclaimed, the memcg OOM killer kills it. */
static void oom_below_working_set(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_o.%d.vmr", (int)getpid());
	enum { N = 2000 };
	struct vmr_rec r[2] = { fixture_run(0, VMR_OP_STORE, 0, N), fixture_run(0, VMR_OP_STORE, 0, N) };
	struct fixture_task t = { 0, r, 2 };
	struct vmr v;
	struct engine e;
	replay_fixture(&e, &v, path, policy_find("classic"), &t, N, NULL, 1000, 0, "zram");
	assert_int_equal(e.vm[VM_oom_kill], 1);
	assert_int_equal(e.tasks[0].killed, 1);
	assert_int_equal(e.tasks[0].accesses, 1000);       /* the limit's worth */
	assert_int_equal(e.vm[VM_pgsteal_anon], 0);
	/* Everything it had is back. */
	assert_int_equal(e.memcgs[1].usage, 0);
	assert_int_equal(e.node.nr_free, e.node.present_pages);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* try_charge_memcg's way to the OOM killer: a memcg of 1000 pages, all
 * anonymous, no swap, and a 1001st page to charge.  Reclaim frees
 * nothing; the kernel reclaims once, drains the charge stocks and
 * reclaims again (drained), then retries while nr_retries-- is
 * non-zero: 16 more, and a last one whose nr_retries-- is 0 calls
 * mem_cgroup_oom.  18 memcg reclaims, then the kill; with the
 * process's only task its victim, no charge after. */
static void oom_after_retries(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_r.%d.vmr", (int)getpid());
	enum { N = 1001 };
	struct vmr_rec r[1] = { fixture_run(0, VMR_OP_STORE, 0, N) };
	struct fixture_task t = { 0, r, 1 };
	struct vmr v;
	struct engine e;
	char err[256];
	assert_int_equal(fixture_vmr(path, &t, 1, N, NULL, "page_size\t4096\n"), 0);
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	struct engine_params p = { .policy = policy_find("classic"), .swappiness = 60, .page_cluster = 3,
				   .vma_ra_enabled = 1, .memory_limit = 1000 * 4096,
				   .node_memory = 1ull << 30, .seed = 1 };
	assert_int_equal(backing_parse("zram", &p.swap, NULL, err, sizeof(err)), 0);
	assert_int_equal(backing_parse("ssd", &p.file, NULL, err, sizeof(err)), 0);
	assert_int_equal(engine_init(&e, &v, &p, err, sizeof(err)), 0);
	e.records.keep = 1;
	assert_int_equal(engine_run(&e), 0);
	assert_int_equal(e.records.nr, 18);
	for (uint64_t i = 0; i < e.records.nr; i++) {
		assert_int_equal(e.records.all[i].kind, RECLAIM_MEMCG);
		assert_int_equal(e.records.all[i].nr_reclaimed, 0);
	}
	assert_int_equal(e.vm[VM_oom_kill], 1);
	assert_int_equal(e.tasks[0].accesses, 1000);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* try_charge_memcg's inline first attempt (page_counter_try_charge):
 * a memcg of 4 pages, empty.  3 pages fit and are charged to it and to
 * every ancestor; 2 more would make 5 > 4: without
 * __GFP_DIRECT_RECLAIM that is ALLOC_NOMEM at once, and the charges made
 * on the way up are cancelled (every usage back at 3); 1 more fits
 * exactly (4); a killed task charges nothing (0). */
static void charge_first_attempt(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 16, 8, 4, 1000, 60);
	struct engine *e = &b.e;
	struct task_state *t = &e->tasks[0];
	int memcg = e->nr_memcgs - 1;
	assert_true(memcg > 0);
	assert_int_equal(e->memcgs[memcg].max, 4);
	uint64_t base[8];
	int depth = 0;
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		base[depth++] = e->memcgs[m].usage;
	assert_true(depth >= 2);
	assert_int_equal(base[0], 0);
	static const struct { uint64_t nr; int killed, want; uint64_t usage; } step[] = {
		{ 3, 0, 1, 3 }, { 2, 0, ALLOC_NOMEM, 3 }, { 1, 0, 1, 4 }, { 1, 1, 0, 4 },
	};
	for (unsigned i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
		t->killed = step[i].killed;
		assert_int_equal(try_charge_memcg(e, t, memcg, step[i].nr, 0), step[i].want);
		int d = 0;
		for (int m = memcg; m >= 0; m = e->memcgs[m].parent, d++)
			assert_int_equal(e->memcgs[m].usage, base[d] + step[i].usage);
	}
	t->killed = 0;
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		e->memcgs[m].usage -= 4;
	box_free(&b);
}

/* ---- VM_EXEC ------------------------------------------------------------------ */

/* folio_check_references: a mapped file folio whose PTE is young is
 * kept for another trip (FOLIOREF_KEEP, PG_referenced set), unless its
 * vma is VM_EXEC: then it is activated at once.  Four file pages mapped
 * and touched once (page 0 first, the oldest) fill a memcg of 4; a fifth
 * needs one reclaimed.  Page 0 is scanned first; without VM_EXEC it is
 * kept like the others, and reclaimed first when the scan comes back to
 * it unreferenced; with VM_EXEC (the trace's VMR_PAGE_EXEC) it goes to
 * the active list and stays: the only activation. */
static void exec_run(struct engine *e, struct vmr *v, const char *path, int exec)
{
	uint8_t kind[5] = { 1, 1, 1, 1, 1 };
	if (exec)
		kind[0] |= VMR_PAGE_EXEC << 1;
	static const struct vmr_rec r[1] = { { 0, VMR_OP_LOAD | VMR_F_RUN | VMR_F_FILE | 5u << VMR_DELTA_SHIFT } };
	struct fixture_task t = { 0, r, 1 };
	replay_fixture(e, v, path, policy_find("classic"), &t, 5, kind, 4, 0, "zram");
}

static void exec_activated(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_x.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;

	exec_run(&e, &v, path, 0);
	assert_int_equal(e.vm[VM_pgactivate], 0);
	assert_false(e.folio[0].flags & PG_resident);
	assert_true(e.folio[4].flags & PG_resident);
	engine_free(&e);
	vmr_close(&v);

	exec_run(&e, &v, path, 1);
	assert_int_equal(e.vm[VM_pgactivate], 1);
	assert_true(e.folio[0].flags & PG_resident);
	assert_true(e.folio[0].flags & PG_active);
	assert_true(e.folio[4].flags & PG_resident);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* ---- fault-around ---------------------------------------------------------- */

/* do_fault_around + filemap_map_pages: 40 pages of one file are read()
 * into the cache (cached, not mapped), then a read fault on page 20 maps
 * its 16-page window, 16..31, the faulting page included; a write fault
 * on page 5 (do_shared_fault) maps page 5 only; a read fault on page 37
 * maps 32..39, its window 32..47 clamped to the file's pages.  Each fault
 * counts once in pgfault (3), the pages mapped around it not at all, and
 * every page mapped has a young PTE, which the process's exit zaps
 * (zap_file_ptes), activating the 25 mapped pages.  A memcg of 100
 * pages: no reclaim. */
static void fault_around_window(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_fa.%d.vmr", (int)getpid());
	enum { N = 40 };
	uint8_t kind[N];
	memset(kind, 1, sizeof(kind));
	struct vmr_rec r[4] = { fixture_run(0, VMR_OP_READ, 1, N), fixture_rec(20, VMR_OP_LOAD, 1, 10),
				fixture_rec(5, VMR_OP_STORE, 1, 10), fixture_rec(37, VMR_OP_LOAD, 1, 10) };
	struct fixture_task t = { 0, r, 4 };
	struct vmr v;
	struct engine e;
	replay_fixture(&e, &v, path, policy_find("classic"), &t, N, kind, 100, 0, "zram");
	assert_int_equal(e.vm[VM_pgfault], 3);
	assert_int_equal(e.vm[VM_pgscan_file], 0);
	/* What was mapped shows after the exit: exit_mmap's zap marked each
	 * young PTE's folio accessed, the second time after its read(), so
	 * those are active (folio_mark_accessed), the others referenced
	 * once; none is mapped any more. */
	assert_int_equal(e.vm[VM_pgactivate], 25);
	for (uint32_t p = 0; p < N; p++) {
		int mapped = p == 5 || p >= 16;
		assert_true(e.folio[p].flags & PG_resident);
		assert_false(e.folio[p].flags & (PG_mapped | PG_young));
		assert_int_equal(!!(e.folio[p].flags & PG_active), mapped);
		assert_int_equal(!!(e.folio[p].flags & PG_referenced), !mapped);
	}
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* filemap_map_pages maps the window with the faulting VMA's PTEs
 * (set_pte_range on vmf->vma): 20 pages of one file are read() into the
 * cache, then a read fault on page 3 maps its window 0..15.  When page 3
 * was faulted through a VM_EXEC mapping (the trace's VMR_PAGE_EXEC), the
 * 15 pages mapped around it are executable too — folio_referenced_one
 * then hands VM_EXEC to folio_check_references, which activates such
 * text at its first young sighting (exec_activated) —; pages 16..19,
 * outside the window, are neither mapped nor executable.  Without
 * VM_EXEC on page 3 no page is. */
static void fault_around_exec_run(struct engine *e, struct vmr *v, const char *path, int exec)
{
	enum { N = 20 };
	uint8_t kind[N];
	memset(kind, 1, sizeof(kind));
	if (exec)
		kind[3] |= VMR_PAGE_EXEC << 1;
	struct vmr_rec r[2] = { fixture_run(0, VMR_OP_READ, 1, N), fixture_rec(3, VMR_OP_LOAD, 1, 10) };
	struct fixture_task t = { 0, r, 2 };
	replay_fixture(e, v, path, policy_find("classic"), &t, N, kind, 100, 0, "zram");
	assert_int_equal(e->vm[VM_pgfault], 1);
	/* mapped young, then zapped at the exit: read() and the zap's
	 * folio_mark_accessed activate what was mapped */
	for (uint32_t p = 0; p < N; p++) {
		assert_false(e->folio[p].flags & PG_mapped);
		assert_int_equal(!!(e->folio[p].flags & PG_active), p < 16);
	}
}

static void fault_around_exec(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_fx.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;

	fault_around_exec_run(&e, &v, path, 1);
	for (uint32_t p = 0; p < 20; p++)
		assert_int_equal(!!(e.folio[p].flags & PG_exec), p < 16);
	engine_free(&e);
	vmr_close(&v);

	fault_around_exec_run(&e, &v, path, 0);
	for (uint32_t p = 0; p < 20; p++)
		assert_false(e.folio[p].flags & PG_exec);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* The retried read fault (filemap_map_retry): a read fault on page 20 of
 * a file nothing has cached does its read-around, pages 4..35 (ra_pages
 * 32 from pgoff - 16: do_sync_mmap_readahead), after dropping the mmap
 * lock, so filemap_fault returns VM_FAULT_RETRY and the retried
 * do_read_fault's do_fault_around maps what that read brought into page
 * 20's window, 16..31: young, no fault counted (pgfault 1), and with
 * page 20's VM_EXEC when it has one.  4..15 and 32..35 are cached but
 * not mapped, 36..39 not cached.  The same read-ahead from a read()
 * (not flagged VMR_F_FAULT) maps nothing: page 20 alone is mapped.  The
 * PTEs are seen after the process's exit: its zap (zap_file_ptes) marks
 * each young one's folio accessed, so the pages mapped, and only they,
 * are referenced. */
static void fault_retry_run(struct engine *e, struct vmr *v, const char *path, int in_fault, int exec)
{
	enum { N = 40 };
	uint8_t kind[N];
	memset(kind, 1, sizeof(kind));
	if (exec)
		kind[20] |= VMR_PAGE_EXEC << 1;
	struct vmr_rec r[2] = { fixture_rec(20, VMR_OP_LOAD, 1, 10), fixture_run(4, VMR_OP_READAHEAD, 1, 32) };
	if (in_fault)
		r[1].info |= VMR_F_FAULT;
	struct fixture_task t = { 0, r, 2 };
	replay_fixture(e, v, path, policy_find("classic"), &t, N, kind, 100, 0, "zram");
	assert_int_equal(e->vm[VM_pgfault], 1);
	assert_int_equal(e->vm[VM_pgscan_file], 0);
	for (uint32_t p = 0; p < N; p++) {
		int mapped = p == 20 || (in_fault && p >= 16 && p < 32);
		assert_int_equal(!!(e->folio[p].flags & PG_resident), p >= 4 && p < 36);
		/* the exit zapped the young PTEs: what was mapped is
		 * referenced once (folio_mark_accessed), unmapped now */
		assert_false(folio_pte_present(e, p, e->tasks[0].proc));
		assert_false(e->folio[p].flags & (PG_young | PG_active));
		assert_int_equal(!!(e->folio[p].flags & PG_referenced), mapped);
		assert_int_equal(!!(e->folio[p].flags & PG_exec), exec && mapped);
	}
}

static void fault_retry_maps_readaround(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_fr.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;
	for (int in_fault = 0; in_fault < 2; in_fault++)
		for (int exec = 0; exec < 2; exec++) {
			fault_retry_run(&e, &v, path, in_fault, exec);
			engine_free(&e);
			vmr_close(&v);
		}
	unlink(path);
}

/* ---- PTEs in several address spaces (rmap.c) ------------------------------ */

/* folio_check_references: a folio young in more than one PTE is
 * activated at its first sighting (referenced_ptes > 1).  Process A (pid
 * 100) faults file pages 0, 16, 32 and 48 (one per fault-around window,
 * so no fault maps another), process B (pid 200) then faults page 0 (its
 * own PTE: a minor fault), and A faults page 64 into the memcg of 4.
 * Reclaim scans 0 first: two young PTEs, activated; 16, 32 and 48 are
 * kept once (one young PTE, PG_referenced) and freed when the scan comes
 * back to them unreferenced.  Without B's fault page 0 is one of the four
 * kept and freed: no activation, one fault fewer. */
static void shared_run(struct engine *e, struct vmr *v, const char *path, int shared)
{
	enum { N = 65 };
	uint8_t kind[N];
	memset(kind, 1, sizeof(kind));
	struct vmr_rec a[5] = { fixture_rec(0, VMR_OP_LOAD, 1, 10), fixture_rec(16, VMR_OP_LOAD, 1, 10),
				fixture_rec(32, VMR_OP_LOAD, 1, 10), fixture_rec(48, VMR_OP_LOAD, 1, 10),
				fixture_rec(64, VMR_OP_LOAD, 1, 1000000) };
	struct vmr_rec b[1] = { fixture_rec(0, VMR_OP_LOAD, 1, 10) };
	struct fixture_task t[2] = { { 0, a, 5 }, { 1000, b, shared } };
	struct fixture_ids ids[2] = { { 100, 100, 0 }, { 200, 200, 0 } };
	assert_int_equal(fixture_vmr_ids(path, t, ids, 2, N, kind, "page_size\t4096\n"), 0);
	classic_run(e, v, path, 4);
}

static void shared_mapping_activated(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_sh.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;

	shared_run(&e, &v, path, 1);
	assert_int_equal(e.vm[VM_pgfault], 6);
	assert_int_equal(e.vm[VM_pgactivate], 1);
	assert_true(e.folio[0].flags & PG_resident);
	assert_true(e.folio[0].flags & PG_active);
	for (uint32_t p = 16; p < 64; p += 16)
		assert_false(e.folio[p].flags & PG_resident);
	assert_true(e.folio[64].flags & PG_resident);
	engine_free(&e);
	vmr_close(&v);

	shared_run(&e, &v, path, 0);
	assert_int_equal(e.vm[VM_pgfault], 5);
	assert_int_equal(e.vm[VM_pgactivate], 0);
	assert_false(e.folio[0].flags & PG_resident);
	assert_true(e.folio[64].flags & PG_resident);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* filemap_map_pages maps into the faulting process's page table: 20
 * pages of one file are read() into the cache by A (pid 100), A's read
 * fault on page 3 maps 0..15 (A's PTEs), then B's (pid 200) read fault on
 * page 5 maps B's PTEs over the same window, young, where A's are already
 * there; pages 16..19 are in neither table.  Two faults.  A third
 * process's fault (C, pid 300, on page 9) joins B's PTE (struct
 * folio_ptes): no fault of its own counted, no fault-around.  The three
 * live on (a DELAY each) and exit in turn, A at 10 us, B at 20 us, C at
 * 30 us; the replay's end shows the PTEs through their zaps
 * (zap_file_ptes): A's exit finds its PTEs young and marks 0..15
 * accessed, the second time after the read(), so they are activated (16)
 * and B's PTE becomes the first; B's exit finds it young too, and marks
 * them referenced again; C's, part of B's, went with it.  Nothing is
 * mapped at the end; 16..19 are referenced by the read() alone. */
static void fault_around_second_mapping(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_fm.%d.vmr", (int)getpid());
	enum { N = 20 };
	uint8_t kind[N];
	memset(kind, 1, sizeof(kind));
	struct vmr_rec a[3] = { fixture_run(0, VMR_OP_READ, 1, N), fixture_rec(3, VMR_OP_LOAD, 1, 10),
				fixture_rec(0, VMR_OP_DELAY, 0, 10000 - 10) };
	struct vmr_rec b[2] = { fixture_rec(5, VMR_OP_LOAD, 1, 10), fixture_rec(0, VMR_OP_DELAY, 0, 19000 - 10) };
	struct vmr_rec c[2] = { fixture_rec(9, VMR_OP_LOAD, 1, 10), fixture_rec(0, VMR_OP_DELAY, 0, 28000 - 10) };
	struct fixture_task t[3] = { { 0, a, 3 }, { 1000, b, 2 }, { 2000, c, 2 } };
	struct fixture_ids ids[3] = { { 100, 100, 0 }, { 200, 200, 0 }, { 300, 300, 0 } };
	assert_int_equal(fixture_vmr_ids(path, t, ids, 3, N, kind, "page_size\t4096\n"), 0);
	struct vmr v;
	struct engine e;
	classic_run(&e, &v, path, 100);
	assert_int_not_equal(e.tasks[0].proc, e.tasks[1].proc);
	assert_int_equal(e.tasks[0].done, 10000);
	assert_int_equal(e.tasks[1].done, 20000);
	assert_int_equal(e.tasks[2].done, 30000);
	assert_int_equal(e.vm[VM_pgfault], 2);
	assert_int_equal(e.vm[VM_pgactivate], 16);
	for (uint32_t p = 0; p < N; p++) {
		assert_false(e.folio[p].flags & (PG_mapped | PG_young));
		assert_int_equal(e.ptes[p].other, 0);
		assert_int_equal(!!(e.folio[p].flags & PG_active), p < 16);
		assert_true(e.folio[p].flags & PG_referenced);
	}
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* ---- a parent waits for its child (engine.c's task_wait) ---------------- */

/* The reader's shape in small: a shell (tid 100) forks a child (pid 200)
 * that reads 8 file pages through a memcg of 4, then the first 4 again;
 * the shell's exit path (its next task, tid 100 again) truncates the 8
 * pages (closing the files it held open) at 100 us of trace time, after
 * the child ended there.  In the replay the child's second pass waits for
 * 4 reads from the file device (ssd: 100 us each, give or take its
 * jitter), so it ends long after 100 us: the truncation must wait for it,
 * and every re-read page is a refault of a shadow the first pass left
 * (4).  Were the truncation replayed at its trace time, it would free
 * pages and shadows in the middle of the second pass. */
static void parent_waits_for_child(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_w.%d.vmr", (int)getpid());
	uint8_t kind[8];
	memset(kind, 1, sizeof(kind));
	struct vmr_rec shell[1] = { fixture_rec(0, VMR_OP_DELAY, 0, 100000) };
	struct vmr_rec child[2] = { fixture_run(0, VMR_OP_READ, 1, 8), fixture_run(0, VMR_OP_READ, 1, 4) };
	struct vmr_rec exit_path[1] = { fixture_run(0, VMR_OP_FREE, 1, 8) };
	struct fixture_task t[3] = { { 0, shell, 1 }, { 10, child, 2 }, { 100001, exit_path, 1 } };
	struct fixture_ids ids[3] = { { 100, 100, 0 }, { 200, 200, 100 }, { 100, 100, 0 } };
	assert_int_equal(fixture_vmr_ids(path, t, ids, 3, 8, kind, "page_size\t4096\n"), 0);
	struct vmr v;
	struct engine e;
	classic_run(&e, &v, path, 4);
	assert_int_equal(e.tasks[0].nr_waits, 1);        /* the shell: its child */
	assert_int_equal(e.tasks[2].nr_waits, 1);        /* the exit path: the shell */
	assert_int_equal(e.tasks[1].nr_waits, 0);
	assert_true(e.tasks[1].done > 2 * 100000);
	/* The shell ends at the child's end, its exit path there too (its
	 * record was due at 100 us, long before). */
	assert_int_equal(e.tasks[0].done, e.tasks[1].done);
	assert_int_equal(e.tasks[2].done, e.tasks[1].done);
	assert_int_equal(e.vm[VM_workingset_refault_file], 4);
	assert_int_equal(e.memcgs[1].usage, 0);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* ---- a child starts when its parent forks it (engine.c's task_fork) ------ */

/* xargs -P1 in small: a parent (tid 100) forks child A (pid 200) at 10 ns,
 * waits for it (its next record, at 100 us of trace time, comes after A's
 * end at 10 ns), forks child B (pid 300) at 100,001 ns, and ends at 200 us.
 * A reads 8 file pages through a memcg of 4, then the first 4 again: 4
 * refaults from the file device (ssd), so in the replay it ends long after
 * 100 us, at T.  The parent goes on at T; B, forked 1 ns of trace time
 * after the parent's wait, starts at T + 1 and, with nothing to do but
 * its one record, ends there; the parent's last record is due 100 us
 * after T.  Started at its trace time, B would have ended at 100,001 ns,
 * beside A. */
static void child_starts_at_fork(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_f.%d.vmr", (int)getpid());
	uint8_t kind[8];
	memset(kind, 1, sizeof(kind));
	struct vmr_rec parent[2] = { fixture_rec(0, VMR_OP_DELAY, 0, 100000), fixture_rec(0, VMR_OP_DELAY, 0, 100000) };
	struct vmr_rec a[2] = { fixture_run(0, VMR_OP_READ, 1, 8), fixture_run(0, VMR_OP_READ, 1, 4) };
	struct vmr_rec b[1] = { fixture_rec(0, VMR_OP_DELAY, 0, 0) };
	struct fixture_task t[3] = { { 0, parent, 2 }, { 10, a, 2 }, { 100001, b, 1 } };
	struct fixture_ids ids[3] = { { 100, 100, 0 }, { 200, 200, 100 }, { 300, 300, 100 } };
	assert_int_equal(fixture_vmr_ids(path, t, ids, 3, 8, kind, "page_size\t4096\n"), 0);
	struct vmr v;
	struct engine e;
	classic_run(&e, &v, path, 4);
	assert_int_equal(e.tasks[0].nr_forks, 2);
	assert_int_equal(e.tasks[0].forks[0], 1);
	assert_int_equal(e.tasks[0].forks[1], 2);
	assert_false(e.tasks[0].forked);
	assert_true(e.tasks[1].forked && e.tasks[2].forked);
	assert_int_equal(e.vm[VM_workingset_refault_file], 4);
	simtime_t t_a = e.tasks[1].done;
	assert_true(t_a > 200000);
	assert_int_equal(e.tasks[2].done, t_a + 1);
	assert_int_equal(e.tasks[0].done, t_a + 100000);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* make in small: a parent (tid 100) reads 8 file pages through a memcg
 * of 4, then the first 4 again (4 refaults from the file device, ssd, the
 * last one's read ending at R in the replay), forks child B (pid 300) at
 * 10 ns of trace time, 10 ns after those records, and goes on 1 ms after
 * them (a DELAY: make's wait for its jobs).  B starts from where the
 * parent is in that gap, R + 10, and, with nothing to do but its one
 * record, ends there; the parent ends at R + 1 ms.  Placed when the
 * parent came to its next record, B would have started at R + 1 ms, a
 * whole gap late: the parent's read wait ended its step (task_step's
 * wait for a read) before task_wait placed the forks of that gap. */
static void child_forked_after_read_wait(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_r.%d.vmr", (int)getpid());
	uint8_t kind[8];
	memset(kind, 1, sizeof(kind));
	struct vmr_rec parent[3] = { fixture_run(0, VMR_OP_READ, 1, 8), fixture_run(0, VMR_OP_READ, 1, 4),
				     fixture_rec(0, VMR_OP_DELAY, 0, 1000000) };
	struct vmr_rec b[1] = { fixture_rec(0, VMR_OP_DELAY, 0, 0) };
	struct fixture_task t[2] = { { 0, parent, 3 }, { 10, b, 1 } };
	struct fixture_ids ids[2] = { { 100, 100, 0 }, { 300, 300, 100 } };
	assert_int_equal(fixture_vmr_ids(path, t, ids, 2, 8, kind, "page_size\t4096\n"), 0);
	struct vmr v;
	struct engine e;
	classic_run(&e, &v, path, 4);
	assert_int_equal(e.tasks[0].nr_forks, 1);
	assert_true(e.tasks[1].forked);
	assert_int_equal(e.vm[VM_workingset_refault_file], 4);
	simtime_t r = e.tasks[0].done - 1000000;
	assert_true(r > 4 * 50000);          /* four reads of the ssd waited for */
	assert_int_equal(e.tasks[1].done, r + 10);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* ---- file pages cached before the session ---------------------------------- */

/* Replays TASK's records over 64 file pages (the first 32 found cached
 * when PRECACHED) with a memcg limit of 40 pages. */
static void precached_run(struct engine *e, struct vmr *v, const char *path, int precached,
			  const struct fixture_task *task)
{
	uint8_t kind[64];
	for (int i = 0; i < 64; i++)
		kind[i] = 1 | (precached && i < 32 ? VMR_PAGE_PRECACHED << 1 : 0);
	replay_fixture(e, v, path, policy_find("classic"), task, 64, kind, 40, 0, "zram");
}

static void precached_charged_outside(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_p.%d.vmr", (int)getpid());
	struct vmr_rec r[2] = { fixture_run(0, VMR_OP_READ, 1, 32), fixture_run(32, VMR_OP_READ, 1, 32) };
	struct fixture_task t = { 0, r, 2 };
	struct engine e;
	struct vmr v;

	/* Found cached: the 32 pages stay charged outside (to the root), the
	 * session holds only the 32 it inserted, below its 40: no reclaim. */
	precached_run(&e, &v, path, 1, &t);
	assert_int_equal(e.memcgs[1].usage, 32);
	assert_int_equal(e.memcgs[0].usage, 64);
	assert_int_equal(e.folio[0].memcg, 0);
	assert_int_equal(e.folio[32].memcg, 1);
	assert_int_equal(e.vm[VM_pgscan_file], 0);
	assert_int_equal(e.vm[VM_pgmajfault], 0);
	engine_free(&e);
	vmr_close(&v);

	/* The same pages inserted by the workload: 64 over a limit of 40,
	 * limit reclaim takes at least the 24 over it. */
	precached_run(&e, &v, path, 0, &t);
	assert_true(e.memcgs[1].usage <= 40);
	assert_true(e.vm[VM_pgsteal_file] >= 24);
	assert_int_equal(e.memcgs[1].usage + e.vm[VM_pgsteal_file], 64);
	engine_free(&e);
	vmr_close(&v);

	/* Once a cached page has left memory (here truncated), its next
	 * insertion is the workload's own. */
	struct vmr_rec r2[3] = { fixture_rec(0, VMR_OP_READ, 1, 0), fixture_rec(0, VMR_OP_FREE, 1, 0),
				 fixture_rec(0, VMR_OP_READ, 1, 0) };
	struct fixture_task t2 = { 0, r2, 3 };
	precached_run(&e, &v, path, 1, &t2);
	assert_int_equal(e.folio[0].memcg, 1);
	assert_int_equal(e.memcgs[1].usage, 1);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* ---- read-ahead ------------------------------------------------------------- */

/* Replays RECS over 4 anon pages then 4 file pages with a memcg limit of
 * LIMIT pages and no swap. */
static void readahead_run(struct engine *e, struct vmr *v, const char *path, const struct vmr_rec *recs,
			  uint64_t nr, uint64_t limit)
{
	static const uint8_t kind[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	struct fixture_task t = { 0, recs, nr };
	replay_fixture(e, v, path, policy_find("classic"), &t, 8, kind, limit, 0, "zram");
}

/* The two outcomes of the window tests below, then the replay freed: a
 * reclaim that met pages 4-6 still locked under their read (LOCKED:
 * pgscan_file 16, nothing stolen, page 7 never read), or one that freed
 * them once read (3 scanned, 3 stolen, page 7 in). */
static void window_outcome(struct engine *e, struct vmr *v, int locked)
{
	assert_int_equal(e->vm[VM_pgscan_file], locked ? 16 : 3);
	assert_int_equal(e->vm[VM_pgsteal_file], locked ? 0 : 3);
	for (int p = 4; !locked && p < 7; p++)
		assert_false(e->folio[p].flags & PG_resident);
	assert_int_equal(!!(e->folio[7].flags & PG_resident), !locked);
	engine_free(e);
	vmr_close(v);
}

static void readahead_pages(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_r.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;

	/* Four pages read ahead, then one of them read: all four are charged
	 * and on the inactive file list, one access, only the read page
	 * referenced; read-ahead of a cached page changes nothing. */
	struct vmr_rec r1[3] = { fixture_run(4, VMR_OP_READAHEAD, 1, 4), fixture_rec(4, VMR_OP_READ, 1, 0),
				 fixture_rec(4, VMR_OP_READAHEAD, 1, 0) };
	readahead_run(&e, &v, path, r1, 3, 16);
	assert_int_equal(e.memcgs[1].usage, 4);
	assert_int_equal(e.memcgs[1].lruvec.size[LRU_INACTIVE_FILE], 4);
	assert_int_equal(e.tasks[0].accesses, 1);
	assert_int_equal(e.vm[VM_pgfault], 0);
	assert_true(e.folio[4].flags & PG_referenced);
	for (int i = 5; i < 8; i++)
		assert_false(e.folio[i].flags & (PG_referenced | PG_young | PG_mapped));
	engine_free(&e);
	vmr_close(&v);

	/* The limit full of anon pages that cannot go (no swap): read-ahead
	 * gives up after one reclaim (__GFP_NORETRY), no OOM kill ... */
	struct vmr_rec r2[2] = { fixture_run(0, VMR_OP_STORE, 0, 4), fixture_run(4, VMR_OP_READAHEAD, 1, 2) };
	readahead_run(&e, &v, path, r2, 2, 4);
	assert_int_equal(e.vm[VM_oom_kill], 0);
	assert_int_equal(e.tasks[0].killed, 0);
	assert_int_equal(e.memcgs[1].usage, 0);              /* the anon pages left at exit */
	assert_false(e.folio[4].flags & PG_resident);
	assert_false(e.folio[5].flags & PG_resident);
	engine_free(&e);
	vmr_close(&v);

	/* ... where a read of the same page ends in the memcg OOM killer. */
	struct vmr_rec r3[2] = { fixture_run(0, VMR_OP_STORE, 0, 4), fixture_rec(4, VMR_OP_READ, 1, 0) };
	readahead_run(&e, &v, path, r3, 2, 4);
	assert_int_equal(e.vm[VM_oom_kill], 1);
	assert_int_equal(e.tasks[0].killed, 1);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* A read-ahead window's folios are locked until its read completes
 * (read_pages issues it after the task's run of read-ahead records; the
 * ssd's 100 us), and shrink_folio_list's folio_trylock fails on them:
 * pages 4-6 read ahead fill a memcg of 3, and read-ahead of page 7 in
 * the same run reclaims with no swap, so file only: get_scan_count gives
 * 3 >> priority, nothing down to priority 2, 1 page at priority 1 and 3
 * at 0, every one locked and kept; do_try_to_free_pages, with nothing
 * reclaimed, walks again (memcg_full_walk): 8 scanned; try_charge_memcg
 * reclaims once more after drain_all_stock, then gives up
 * (__GFP_NORETRY): pgscan_file 16, pgsteal_file 0, and page 7 is not
 * read.  When the read() of page 4 ends the window and page 7 comes
 * 200 us later, the read is done: reclaim frees page 4 at priority 1
 * and, short of its SWAP_CLUSTER_MAX goal, pages 5 and 6 at priority 0
 * (3 scanned, 3 stolen), and page 7 comes in. */
static void readahead_locked(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_rl.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;
	struct vmr_rec now[2] = { fixture_run(4, VMR_OP_READAHEAD, 1, 3), fixture_rec(7, VMR_OP_READAHEAD, 1, 0) };
	readahead_run(&e, &v, path, now, 2, 3);
	window_outcome(&e, &v, 1);

	struct vmr_rec later[3] = { fixture_run(4, VMR_OP_READAHEAD, 1, 3), fixture_rec(4, VMR_OP_READ, 1, 0),
				    fixture_rec(7, VMR_OP_READAHEAD, 1, 200000) };
	readahead_run(&e, &v, path, later, 3, 3);
	window_outcome(&e, &v, 0);
	unlink(path);
}

/* A window of large folios (page_cache_ra_order: ra_alloc_folio inserts
 * every folio of the window, locked, then read_pages reads them all) is
 * recorded as run records, each after a DELAY that carries its time (a
 * run has no delta field): a DELAY of 1 ms between the folio 4-6 and
 * page 7 is the window going on, as the same 1 ms in page 7's own delta
 * would be, so page 7's reclaim meets 4-6 locked, their read not issued
 * (were it issued at 4-6, it would be done after the ssd's 100 us), as
 * in readahead_locked: pgscan_file 16, pgsteal_file 0, page 7 not read.
 * A DELAY longer than a record's delta field can hold (2^24 ns,
 * 16.8 ms) ends the window, as a single page's DELAY does: 4-6 are read
 * 100 us after their insertion, and page 7's reclaim frees 4 at
 * priority 1 and 5-6 at priority 0 (3 scanned, 3 stolen). */
static void readahead_locked_folio(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_rf.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;
	struct vmr_rec near[3] = { fixture_run(4, VMR_OP_READAHEAD, 1, 3), fixture_rec(0, VMR_OP_DELAY, 0, 1000000),
				   fixture_run(7, VMR_OP_READAHEAD, 1, 1) };
	readahead_run(&e, &v, path, near, 3, 3);
	window_outcome(&e, &v, 1);

	struct vmr_rec far[3] = { fixture_run(4, VMR_OP_READAHEAD, 1, 3), fixture_rec(1, VMR_OP_DELAY, 0, 0),
				  fixture_run(7, VMR_OP_READAHEAD, 1, 1) };
	readahead_run(&e, &v, path, far, 3, 3);
	window_outcome(&e, &v, 0);
	unlink(path);
}

/* page_cache_ra_unbounded reads the batch it has inserted whenever it
 * meets a page already in the cache (read_pages), so a window is read in
 * pieces.  The trace leaves out the pages the kernel found cached: pages
 * 4-5 read ahead, then 7 (6 was there) in the same run, in a memcg of 3
 * with no swap; 4-5 are read when 7 comes (the ssd's 100 us), and page
 * 8's read-ahead 200 us later reclaims: get_scan_count gives 3 >> priority,
 * nothing down to priority 2, then page 4 at priority 1 (read, clean:
 * freed) and, short of SWAP_CLUSTER_MAX, 5 (freed) and 7 (its own batch
 * not read yet: kept) at priority 0: pgscan_file 3, pgsteal_file 2, page
 * 8 in.  Read as one window, 4, 5 and 7 would all still be locked
 * (readahead_locked: 16 scanned, none stolen, page 8 not read).  The same
 * where the replay has the page the kernel read ahead: page 6 read (so
 * cached, referenced), 4-5 read ahead, then 6's read-ahead record finds
 * it cached and 4-5 are read; page 7's reclaim 200 us later frees 6 at
 * priority 1 (referenced but clean: FOLIOREF_RECLAIM_CLEAN) and 4 and 5
 * at priority 0: 3 scanned, 3 stolen (4-5 locked: 3 scanned, 1 stolen). */
static void readahead_split(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_rs.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;
	static const uint8_t kind[9] = { 0, 0, 0, 0, 1, 1, 1, 1, 1 };
	struct vmr_rec gap[3] = { fixture_run(4, VMR_OP_READAHEAD, 1, 2), fixture_rec(7, VMR_OP_READAHEAD, 1, 0),
				  fixture_rec(8, VMR_OP_READAHEAD, 1, 200000) };
	struct fixture_task t = { 0, gap, 3 };
	replay_fixture(&e, &v, path, policy_find("classic"), &t, 9, kind, 3, 0, "zram");
	assert_int_equal(e.vm[VM_pgscan_file], 3);
	assert_int_equal(e.vm[VM_pgsteal_file], 2);
	assert_false(e.folio[4].flags & PG_resident);
	assert_false(e.folio[5].flags & PG_resident);
	assert_true(e.folio[7].flags & PG_resident);
	assert_true(e.folio[8].flags & PG_resident);
	engine_free(&e);
	vmr_close(&v);

	struct vmr_rec cached[4] = { fixture_rec(6, VMR_OP_READ, 1, 0), fixture_run(4, VMR_OP_READAHEAD, 1, 2),
				     fixture_rec(6, VMR_OP_READAHEAD, 1, 0), fixture_rec(7, VMR_OP_READAHEAD, 1, 200000) };
	readahead_run(&e, &v, path, cached, 4, 3);
	assert_int_equal(e.vm[VM_pgscan_file], 3);
	assert_int_equal(e.vm[VM_pgsteal_file], 3);
	for (int p = 4; p < 7; p++)
		assert_false(e.folio[p].flags & PG_resident);
	assert_true(e.folio[7].flags & PG_resident);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* A window is read in bios of BIO_MAX_VECS (256) folios, done in order,
 * each when the window's pages up to its last are read: 300 pages read
 * ahead (4-303, 300 records: order-0 folios) at ra_base 50 us and ra_page
 * 1 us fill a memcg of 300, and a store to an anonymous page 320 us later
 * reclaims (no swap: file only).  The first bio (4-259) was done at
 * 306 us, the second (260-303) is due at 350 us.  get_scan_count gives
 * the list's size >> priority: nothing down to priority 9, then 300 >> 8
 * = 1, 299 >> 7 = 2, 297 >> 6 = 4, 293 >> 5 = 9 and 284 >> 4 = 17 pages,
 * 33 from the list's tail (4-36, all of the first bio, read and clean)
 * until SWAP_CLUSTER_MAX is reached: pgscan_file 33, pgsteal_file 33.
 * The same 300 pages as 75 folios of 4 (run records) are one bio, due at
 * 350 us: the reclaim meets them locked at priorities 8-3 (1, 2, 4, 9, 18
 * and the first 32 of 37; a batch is checked once its CPU time, 450 ns a
 * page (cost.h), has passed, the 32-page one at 349.7 us) and reads them
 * from the next batch on, 351.9 us: 5 freed at priority 3, 32 at priority
 * 2, whose first batch reaches SWAP_CLUSTER_MAX: pgscan_file 103 (71 +
 * 32), pgsteal_file 37. */
static void readahead_bios(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_rb.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;
	uint8_t kind[304];
	for (int p = 0; p < 304; p++)
		kind[p] = p >= 4;
	struct vmr_rec r[301];
	for (int i = 0; i < 300; i++)
		r[i] = fixture_rec(4 + i, VMR_OP_READAHEAD, 1, 0);
	r[300] = fixture_rec(0, VMR_OP_STORE, 0, 320000);
	struct fixture_task t = { 0, r, 301 };
	fixture_file_dev = "ssd,ra_base=50000,ra_page=1000";
	replay_fixture(&e, &v, path, policy_find("classic"), &t, 304, kind, 300, 0, "zram");
	assert_int_equal(e.vm[VM_pgscan_file], 33);
	assert_int_equal(e.vm[VM_pgsteal_file], 33);
	for (int p = 4; p < 304; p++)
		assert_int_equal(!!(e.folio[p].flags & PG_resident), p >= 37);
	engine_free(&e);
	vmr_close(&v);

	for (int i = 0; i < 75; i++)
		r[i] = fixture_run(4 + 4 * i, VMR_OP_READAHEAD, 1, 4);
	r[75] = fixture_rec(0, VMR_OP_STORE, 0, 320000);
	t.nr = 76;
	replay_fixture(&e, &v, path, policy_find("classic"), &t, 304, kind, 300, 0, "zram");
	fixture_file_dev = "ssd";
	assert_int_equal(e.vm[VM_pgscan_file], 103);
	assert_int_equal(e.vm[VM_pgsteal_file], 37);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* A window's read takes what the capture's synchronous windows took for
 * its size (ra_base + ra_page a page; ingest's line): pages 4-6 read
 * ahead fill a memcg of 3, the read() of page 4 ends the window, and
 * page 7's read-ahead 200 us later reclaims.  With ra_base 50 us and
 * ra_page 100 us the three pages' read takes 350 us: 4-6 are still
 * locked, as in readahead_locked (pgscan_file 16, pgsteal_file 0, page
 * 7 not read); at 400 us they have been read and page 7's reclaim frees
 * them (3 scanned, 3 stolen, page 7 in); so too at 200 us with ra_page 0
 * (50 us for any size). */
static void readahead_read_time(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_rt.%d.vmr", (int)getpid());
	struct engine e;
	struct vmr v;
	static const struct {
		const char *dev;
		uint64_t delta;
		int locked;
	} c[] = {
		{ "ssd,ra_base=50000,ra_page=100000", 200000, 1 },
		{ "ssd,ra_base=50000,ra_page=100000", 400000, 0 },
		{ "ssd,ra_base=50000,ra_page=0", 200000, 0 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct vmr_rec r[3] = { fixture_run(4, VMR_OP_READAHEAD, 1, 3), fixture_rec(4, VMR_OP_READ, 1, 0),
					fixture_rec(7, VMR_OP_READAHEAD, 1, c[i].delta) };
		fixture_file_dev = c[i].dev;
		readahead_run(&e, &v, path, r, 3, 3);
		assert_int_equal(e.file.p.ra_base_ns, 50000);
		window_outcome(&e, &v, c[i].locked);
	}
	fixture_file_dev = "ssd";
	unlink(path);
}

/* A read() that misses charges with readahead's gfp first: its page
 * comes through page_cache_sync_readahead (page_cache_ra_unbounded's
 * filemap_add_folio with readahead_gfp_mask, __GFP_NORETRY), and only
 * when that inserted nothing does filemap_create_folio charge with the
 * mapping's mask.  A memcg of 4 pages full of anonymous ones, no swap,
 * and a read of a file page: the NORETRY charge reclaims twice (once,
 * then again after drain_all_stock) and gives up; the second charge
 * reclaims 18 times, as oom_after_retries, and the OOM killer comes:
 * 20 memcg reclaims, none freeing anything. */
static void read_miss_noretry(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_rn.%d.vmr", (int)getpid());
	static const uint8_t kind[5] = { 0, 0, 0, 0, 1 };
	struct vmr_rec r[2] = { fixture_run(0, VMR_OP_STORE, 0, 4), fixture_rec(4, VMR_OP_READ, 1, 0) };
	struct fixture_task t = { 0, r, 2 };
	struct vmr v;
	struct engine e;
	char err[256];
	assert_int_equal(fixture_vmr(path, &t, 1, 5, kind, "page_size\t4096\n"), 0);
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	struct engine_params p = { .policy = policy_find("classic"), .swappiness = 60, .page_cluster = 3,
				   .vma_ra_enabled = 1, .memory_limit = 4 * 4096,
				   .node_memory = 1ull << 30, .seed = 1 };
	assert_int_equal(backing_parse("zram", &p.swap, NULL, err, sizeof(err)), 0);
	assert_int_equal(backing_parse("ssd", &p.file, NULL, err, sizeof(err)), 0);
	assert_int_equal(engine_init(&e, &v, &p, err, sizeof(err)), 0);
	e.records.keep = 1;
	assert_int_equal(engine_run(&e), 0);
	assert_int_equal(e.records.nr, 20);
	for (uint64_t i = 0; i < e.records.nr; i++) {
		assert_int_equal(e.records.all[i].kind, RECLAIM_MEMCG);
		assert_int_equal(e.records.all[i].nr_reclaimed, 0);
	}
	assert_int_equal(e.vm[VM_oom_kill], 1);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* The reclaim of a file page as __remove_mapping does it: off the LRU, a
 * shadow, the folio freed. */
static void evict_file(struct engine *e, uint32_t pfn)
{
	lruvec_del_folio(e, folio_lruvec(e, pfn), pfn);
	workingset_eviction(e, pfn, -1);
	free_unref_folio(e, pfn);
}

/* The shadow shrinker: a node of 64 slots joins the memcg's
 * shadow_nodes list when its last folio leaves a shadow and leaves it at
 * a refault; count_shadow_nodes allows LRU pages / 8 nodes (the stale
 * local statistics); do_shrink_slab scans half the excess, in batches of
 * 128 or all of a smaller excess, deferring what it did not scan to
 * later calls, scaled down by their priority (mm/shrinker.c). */
static void shadow_shrinker(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 320, 0, 0, 0, 60);   /* 5 nodes of file pages */
	struct engine *e = &b.e;
	struct mem_cgroup *mc = &e->memcgs[0];
	for (uint32_t p = 0; p < 320; p++)
		install(e, p, 0);
	for (uint32_t p = 0; p < 63; p++)
		evict_file(e, p);
	assert_int_equal(mc->nr_shadow_nodes, 0);         /* page 63 is still in node 0 */
	evict_file(e, 63);
	assert_int_equal(mc->nr_shadow_nodes, 1);
	/* A refault puts a folio back in the node: off the list. */
	lruvec_del_folio(e, folio_lruvec(e, 5), 5);        /* (install adds it again) */
	e->folio[5].flags &= ~PG_lru;
	workingset_refault(e, 5);
	install(e, 5, 0);
	assert_int_equal(mc->nr_shadow_nodes, 0);
	evict_file(e, 5);
	assert_int_equal(mc->nr_shadow_nodes, 1);
	for (uint32_t p = 64; p < 320; p++)
		evict_file(e, p);
	assert_int_equal(mc->nr_shadow_nodes, 5);

	/* 16 LRU pages as last flushed: 16 >> 3 = 2 nodes allowed, 3 freeable. */
	memset(mc->lruvec.stat_local, 0, sizeof(mc->lruvec.stat_local));
	mc->lruvec.stat_local[LRU_INACTIVE_FILE] = 16;
	assert_int_equal(count_shadow_nodes(e, 0), 3);
	/* Priority 12: delta 3 / 2 = 1, total 1 < 3 and < 128: nothing
	 * scanned, 1 deferred. */
	assert_int_equal(shrink_slab(e, 0, 12), 0);
	assert_int_equal(mc->shadow_nr_deferred, 1);
	/* Priority 0: 1 + 1 = 2 < 3: still nothing, 2 deferred. */
	assert_int_equal(shrink_slab(e, 0, 0), 0);
	assert_int_equal(mc->shadow_nr_deferred, 2);
	/* 2 + 1 = 3 >= 3: the 3 oldest nodes (0, re-listed when page 5 left
	 * again, then 1 and 2) go with their shadows; 2 + 1 - 3 = 0 deferred. */
	assert_int_equal(shrink_slab(e, 0, 0), 3);
	assert_int_equal(mc->shadow_nr_deferred, 0);
	assert_int_equal(mc->nr_shadow_nodes, 2);
	assert_false(e->folio[0].flags & PG_shadow);
	assert_false(e->folio[64].flags & PG_shadow);
	assert_false(e->folio[191].flags & PG_shadow);
	assert_true(e->folio[192].flags & PG_shadow);      /* node 3 */
	assert_true(e->folio[319].flags & PG_shadow);      /* node 4 */
	/* Their refaults are no refaults any more. */
	uint64_t before = e->vm[VM_workingset_refault_file];
	workingset_refault(e, 100);
	assert_int_equal(e->vm[VM_workingset_refault_file], before);
	/* 2 nodes left, 2 allowed: nothing freeable. */
	assert_int_equal(count_shadow_nodes(e, 0), 0);
	box_free(&b);
}

/* run_setup of RQ on a one-record trace whose metadata is META. */
static int setup_with_meta(const char *meta, const struct run_request *rq, struct engine_params *p)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_classic_meta.%d.vmr", (int)getpid());
	struct vmr_rec r = fixture_rec(0, VMR_OP_READ, 1, 1000);
	struct fixture_task t = { 0, &r, 1 };
	uint8_t file = 1;
	assert_int_equal(fixture_vmr(path, &t, 1, 1, &file, meta), 0);
	struct vmr v;
	char err[256];
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	int rc = run_setup(&v, rq, p, err, sizeof(err));
	vmr_close(&v);
	unlink(path);
	return rc;
}

/* run_setup: the capture's swappiness is the default; a capture that
 * could not read it records -1, which replays at the kernel's 60 (it
 * once became -1: strtoull's wrap, cast back to int, passed the range
 * check); an explicit -s wins. */
static int swappiness_of(const char *meta, int requested)
{
	struct run_request rq = { .policy = policy_find("classic"), .swappiness = requested, .seed = 1 };
	struct engine_params p;
	assert_int_equal(setup_with_meta(meta, &rq, &p), 0);
	return p.swappiness;
}

static void capture_swappiness(void **state)
{
	(void)state;
	assert_int_equal(swappiness_of("page_size\t4096\nswappiness\t150\n", -1), 150);
	assert_int_equal(swappiness_of("page_size\t4096\nswappiness\t-1\n", -1), 60);
	assert_int_equal(swappiness_of("page_size\t4096\n", -1), 60);
	assert_int_equal(swappiness_of("page_size\t4096\nswappiness\t-1\n", 1), 1);
}

/* run_setup: the memory controller is the capture's (its
 * capture_cgroup_version; v2 for a trace of no capture) unless
 * --cgroup-version says otherwise; anything but 1 or 2 is refused.
 * -1: refused. */
static int cgroup_v1_of(const char *meta, const char *requested)
{
	struct run_request rq = { .policy = policy_find("mglru"), .swappiness = -1, .seed = 1,
				  .cgroup_version = requested };
	struct engine_params p;
	return setup_with_meta(meta, &rq, &p) ? -1 : p.cgroup_v1;
}

static void capture_cgroup_version(void **state)
{
	(void)state;
	assert_int_equal(cgroup_v1_of("page_size\t4096\ncapture_cgroup_version\t1\n", NULL), 1);
	assert_int_equal(cgroup_v1_of("page_size\t4096\n", NULL), 0);
	assert_int_equal(cgroup_v1_of("page_size\t4096\ncapture_cgroup_version\t1\n", "2"), 0);
	assert_int_equal(cgroup_v1_of("page_size\t4096\n", "1"), 1);
	assert_int_equal(cgroup_v1_of("page_size\t4096\n", "3"), -1);
	assert_int_equal(cgroup_v1_of("page_size\t4096\n", "12"), -1);
}

/* A memory.stat snapshot at TS: USAGE pages charged, LRU of them on the
 * LRU lists (all active_file). */
static struct vmr_memcg memcg_snap(uint64_t ts, uint64_t usage, uint64_t lru)
{
	struct vmr_memcg m = { .ts_ns = ts };
	for (int i = 0; i < VMR_NR_MEMCG; i++) {
		const char *n = vmr_memcg_names[i];
		if (strcmp(n, "usage") == 0)
			m.v[i] = usage * 4096;
		else if (strcmp(n, "active_file") == 0)
			m.v[i] = lru * 4096;
		else if (strcmp(n, "inactive_anon") == 0 || strcmp(n, "active_anon") == 0 ||
			 strcmp(n, "inactive_file") == 0 || strcmp(n, "unevictable") == 0)
			m.v[i] = 0;
		else
			m.v[i] = VMR_ABSENT;
	}
	return m;
}

/* run_nonlru_pages: the charge off the LRU is the median of usage minus
 * the LRU sizes over the snapshots made while the workload ran (its tasks
 * span 1,000-9,000 ns): the ones before and after it (62 and 52 pages, the
 * charge stock alone, as the capture's first and last) are left out, so
 * 169 (usage 10,000, 9,831 on the LRU) and, with a second snapshot inside
 * (200), the upper median 200 — where the median of all was 62 and 169.
 * Without a snapshot inside: the median of all (52, 62: the upper one). */
static void nonlru_while_running(void **state)
{
	(void)state;
	struct vmr_task tasks[2] = { { .begin_ns = 1000, .end_ns = 5000 }, { .begin_ns = 3000, .end_ns = 9000 } };
	struct vmr_header h = { .nr_tasks = 2 };
	struct vmr_memcg snaps[4] = { memcg_snap(500, 64, 2), memcg_snap(6000, 10000, 9831),
				      memcg_snap(9500, 52, 0), memcg_snap(0, 0, 0) };
	struct vmr v = { .hdr = &h, .tasks = tasks, .memcg = snaps, .nr_memcg = 3 };
	assert_int_equal(run_nonlru_pages(&v, 4096), 169);
	/* a second one inside, 1,000 ns after the last task began */
	snaps[3] = snaps[2];
	snaps[2] = memcg_snap(4000, 9000, 8800);
	v.nr_memcg = 4;
	assert_int_equal(run_nonlru_pages(&v, 4096), 200);
	/* none inside: the snapshots before and after the workload */
	snaps[1] = snaps[3];
	v.nr_memcg = 2;
	assert_int_equal(run_nonlru_pages(&v, 4096), 62);
	/* a snapshot at a task's first or last event is inside */
	snaps[1] = memcg_snap(9000, 300, 100);
	assert_int_equal(run_nonlru_pages(&v, 4096), 200);
	v.nr_memcg = 0;
	assert_int_equal(run_nonlru_pages(&v, 4096), 0);
}

/* dm-delay holds every bio on its own list for the delay, however many
 * (delay_bio, flush_delayed_bios), then the SSD queues them: 64 writes
 * issued at 0 on dm-delay-50ms without jitter reach the SSD's 32 slots at
 * 50 ms and finish at 50 ms + 50 us (the first 32) and + 100 us (the
 * next 32); one issued at 1 ms finishes at 51 ms + 50 us, as the slots
 * are free by then.  (The delay as service time had the second 32 at
 * 100.1 ms.) */
static void dm_delay_queue(void **state)
{
	(void)state;
	struct backing_params p;
	struct backing b;
	char err[128];
	assert_int_equal(backing_parse("dm-delay-50ms,jitter=0", &p, NULL, err, sizeof(err)), 0);
	assert_int_equal(backing_init(&b, &p), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(backing_submit(&b, 0, p.write_ns, 0), 50000000 + (i / 32 + 1) * 50000);
	assert_int_equal(backing_submit(&b, 1000000, p.write_ns, 0), 51050000);
	backing_free(&b);
	/* The SSD alone is unchanged: 33 reads at 0 finish at 100 and 200 us. */
	assert_int_equal(backing_parse("ssd,jitter=0", &p, NULL, err, sizeof(err)), 0);
	assert_int_equal(backing_init(&b, &p), 0);
	for (int i = 0; i < 33; i++)
		assert_int_equal(backing_submit(&b, 0, p.read_ns, 0), (i / 32 + 1) * 100000);
	backing_free(&b);
}

/* ---- the reclaimer's plug ---------------------------------------------------- */

/* shrink_lruvec's blk_start_plug: reclaim's swap writes wait in the plug
 * (folio_start_writeback sets PG_writeback at once) and go to the device
 * when it is flushed (blk_add_rq_to_plug, blk_attempt_plug_merge).  Slots
 * 100..132 (folios 1..33): one request of 33 pages, nothing issued.
 * Folio 34 at slot 200 does not merge: a new request, and the last one
 * holds 33 pages >= BLK_PLUG_FLUSH_SIZE (128 KiB = 32 pages), so the plug
 * is flushed first: 33 writes issued.  Folios 35..65 at slots 300, 302,
 * ...: 31 one-page requests (32 with folio 34's), none of them 32 pages:
 * nothing issued.  Folio 66 (slot 400) would be the 33rd request:
 * BLK_MAX_REQUEST_COUNT is 32, so the 32 are flushed.  Folio 67 (slot
 * 500) is a second request, 68..100 (slots 501..533) merge into it (34
 * pages), and folio 101 (slot 600) is a third without a flush: the size
 * blk_add_rq_to_plug checks is the first request's (rq_list_peek: the
 * head), folio 66's one page.  Folio 66 is then released (PG_writeback
 * gone) before blk_finish_plug, which issues 67..101 (35) and nothing
 * for it. */
static void plugged_swap_writes(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 200, 200, 0, 1000, 60);
	struct engine *e = &b.e;
	/* the slot positions a rotational swap device's replay keeps */
	assert_null(e->si.swap_map);
	e->si.swap_map = calloc(1, sizeof(*e->si.swap_map));
	e->si.slot_of = calloc(e->nr_folios, sizeof(*e->si.slot_of));
	assert_non_null(e->si.swap_map);
	assert_non_null(e->si.slot_of);
	for (uint32_t pfn = 1; pfn <= 33; pfn++)
		e->si.slot_of[pfn] = 99 + pfn;
	e->si.slot_of[34] = 200;
	for (uint32_t pfn = 35; pfn <= 65; pfn++)
		e->si.slot_of[pfn] = 300 + 2 * (pfn - 35);
	e->si.slot_of[66] = 400;
	for (uint32_t pfn = 67; pfn <= 100; pfn++)
		e->si.slot_of[pfn] = 500 + (pfn - 67);
	e->si.slot_of[101] = 600;
	for (uint32_t pfn = 1; pfn <= 102; pfn++)
		e->folio[pfn].flags |= PG_swapbacked | PG_swapcache;    /* swap writes */

	struct blk_plug plug;
	blk_start_plug(&plug);
	uint32_t queued = b.e.sim.nr;
	for (uint32_t pfn = 1; pfn <= 33; pfn++)
		folio_start_writeback(e, pfn, &plug);
	assert_int_equal(e->node.nr_writeback, 33);
	assert_int_equal(e->sim.nr - queued, 0);
	folio_start_writeback(e, 34, &plug);
	assert_int_equal(e->sim.nr - queued, 33);
	for (uint32_t pfn = 35; pfn <= 65; pfn++)
		folio_start_writeback(e, pfn, &plug);
	assert_int_equal(e->sim.nr - queued, 33);
	folio_start_writeback(e, 66, &plug);
	assert_int_equal(e->sim.nr - queued, 33 + 32);
	for (uint32_t pfn = 67; pfn <= 101; pfn++)
		folio_start_writeback(e, pfn, &plug);
	assert_int_equal(e->sim.nr - queued, 33 + 32);
	e->folio[66].flags &= ~PG_writeback;
	blk_finish_plug(e, &plug);
	assert_int_equal(e->sim.nr - queued, 33 + 32 + 35);
	assert_null(plug.pfn);
	/* Without a plug (the flusher's writes) the write is issued at once. */
	folio_start_writeback(e, 102, NULL);
	assert_int_equal(e->sim.nr - queued, 33 + 32 + 35 + 1);
	box_free(&b);
}

/* ---- the list's storage (struct lru_ring) ------------------------------------ */

/* A classic list is a ring with dead entries left behind by deletions,
 * dropped when it fills (and grows): the order from the tail is still the
 * list's.  671 file folios: 0..447 added at the head (the ring grows at
 * 0, 64 and 192 entries, to 64, 192 and 448 slots: twice the live ones
 * and 64), full; the even ones of those taken off; 0 put back at the
 * tail finds the ring full: the 224 dead entries are dropped (224 of 448
 * free, half: no growth), the odd ones closed up from slot 0; 0 then 2
 * at the tail (around the ring's end: slots 447, 446); then 448..670 at
 * the head: full again at 670's turn, all alive: grows to 960, the two
 * entries that wrapped around moved to the new end.  From the tail: 2,
 * 0, the odd ones below 448, then 448..670. */
static void lru_ring_order(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 671, 0, 0, 0, 60);
	struct engine *e = &b.e;
	struct lruvec *lv = &e->memcgs[e->nr_memcgs - 1].lruvec;
	struct lru_ring *r = &lv->list[LRU_INACTIVE_FILE];
	for (uint32_t pfn = 0; pfn < 448; pfn++)
		install(e, pfn, 0);
	assert_int_equal(r->size, 448);
	assert_int_equal(r->nr, 448);
	for (uint32_t pfn = 0; pfn < 448; pfn += 2)
		lruvec_del_folio(e, lv, pfn);
	lruvec_add_folio_tail(e, lv, 0);
	assert_int_equal(r->size, 448);
	assert_int_equal(r->nr, 225);
	assert_int_equal(e->folio[1].prev, 0);
	assert_int_equal(e->folio[447].prev, 223);
	lruvec_add_folio_tail(e, lv, 2);
	assert_int_equal(r->tail, 446);
	for (uint32_t pfn = 448; pfn < 670; pfn++)
		install(e, pfn, 0);
	assert_int_equal(r->size, 448);
	assert_int_equal(r->nr, 448);
	install(e, 670, 0);
	assert_false(e->failed);
	assert_int_equal(r->size, 960);
	assert_int_equal(r->tail, 958);
	assert_int_equal(r->nr, 449);
	assert_int_equal(lv->size[LRU_INACTIVE_FILE], 449);
	uint32_t want[449], n = 0;
	want[n++] = 2;
	want[n++] = 0;
	for (uint32_t pfn = 0; pfn < 671; pfn++)
		if (pfn >= 448 || pfn % 2)
			want[n++] = pfn;
	assert_int_equal(n, 449);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(lru_ring_pop_tail(e, r, lv->memcg, LRU_INACTIVE_FILE), want[i]);
	assert_int_equal(lru_ring_pop_tail(e, r, lv->memcg, LRU_INACTIVE_FILE), NIL);
	box_free(&b);
}

/* lru_ring_make_room_for: room for NEED entries at once (inc_min_seq's
 * batch).  Ten file folios installed (one ring of 64 slots), 0..4 taken
 * off: room for 100 drops the five dead entries (5 live, 59 free, under
 * 100) and grows the ring, twice the live ones and 64 (74 slots, 69
 * free) being short, to the live ones and twice NEED: 205 slots.  Room
 * for 100 again, and for 1, find it (200 free, over half): no change.
 * The order from the tail is the list's: 5..9. */
static void lru_ring_room_for(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 10, 0, 0, 0, 60);
	struct engine *e = &b.e;
	struct lruvec *lv = &e->memcgs[e->nr_memcgs - 1].lruvec;
	struct lru_ring *r = &lv->list[LRU_INACTIVE_FILE];
	for (uint32_t pfn = 0; pfn < 10; pfn++)
		install(e, pfn, 0);
	assert_int_equal(r->size, 64);
	for (uint32_t pfn = 0; pfn < 5; pfn++)
		lruvec_del_folio(e, lv, pfn);
	assert_int_equal(r->nr, 10);
	assert_int_equal(lru_ring_make_room_for(e, r, lv->memcg, LRU_INACTIVE_FILE, UINT32_MAX, 100), 0);
	assert_int_equal(r->size, 205);
	assert_int_equal(r->nr, 5);
	assert_int_equal(lru_ring_make_room_for(e, r, lv->memcg, LRU_INACTIVE_FILE, 5, 100), 0);
	assert_int_equal(r->size, 205);
	assert_int_equal(lru_ring_make_room_for(e, r, lv->memcg, LRU_INACTIVE_FILE, 5, 1), 0);
	assert_int_equal(r->size, 205);
	assert_int_equal(r->nr, 5);
	for (uint32_t pfn = 5; pfn < 10; pfn++)
		assert_int_equal(lru_ring_pop_tail(e, r, lv->memcg, LRU_INACTIVE_FILE), pfn);
	assert_int_equal(lru_ring_pop_tail(e, r, lv->memcg, LRU_INACTIVE_FILE), NIL);
	box_free(&b);
}

/* ---- UML's user copies ------------------------------------------------------ */

/* A kernel-mode fault of a UML capture (VMR_F_UACCESS): uaccess faults
 * only for a missing PTE (maybe_map) and copies through the kernel's
 * mapping of the page, so a page the task has a PTE for keeps its
 * accessed bit as it was; a page without one is mapped, young, as any
 * fault maps it.  Anonymous page 0 is mapped and old (install): a user
 * copy stores to it and leaves it old, dirty, no fault counted; an
 * ordinary store makes it young.  Unmapped (a swap-cache page), a copy
 * maps it: young, one minor fault.  File page 1, cached by a read(), no
 * PTE: a copy from it maps it (a fault, young); made old, a second copy
 * leaves it old. */
static void uaccess_leaves_pte_old(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("classic"), 2, 1, 0, 0, 60);
	struct engine *e = &b.e;
	struct task_state *t = &e->tasks[0];
	install(e, 0, 0);
	install(e, 1, 0);
	struct folio *a = &e->folio[0], *f = &e->folio[1];
	a->flags &= ~PG_dirty;
	assert_int_equal(t->proc, 0);
	assert_false(a->flags & PG_young);

	e->uaccess = 1;
	assert_int_equal(access_page(e, t, 0, VMR_OP_STORE, 0), 1);
	assert_false(a->flags & PG_young);
	assert_true(a->flags & PG_dirty);
	assert_int_equal(e->vm[VM_pgfault], 0);
	e->uaccess = 0;
	assert_int_equal(access_page(e, t, 0, VMR_OP_STORE, 0), 1);
	assert_true(a->flags & PG_young);

	a->flags &= ~(PG_mapped | PG_young);
	e->uaccess = 1;
	assert_int_equal(access_page(e, t, 0, VMR_OP_LOAD, 0), 1);
	assert_true(a->flags & PG_mapped);
	assert_true(a->flags & PG_young);
	assert_int_equal(e->vm[VM_pgfault], 1);

	assert_false(folio_pte_present(e, 1, t->proc));
	assert_int_equal(access_page(e, t, 1, VMR_OP_LOAD, 1), 1);
	assert_true(folio_pte_young(e, 1, t->proc));
	assert_int_equal(e->vm[VM_pgfault], 2);
	folio_pte_mkold(e, 1, t->proc);
	assert_int_equal(access_page(e, t, 1, VMR_OP_LOAD, 1), 1);
	assert_false(folio_pte_young(e, 1, t->proc));
	assert_true(f->flags & PG_mapped);
	assert_int_equal(e->vm[VM_pgfault], 2);
	e->uaccess = 0;
	box_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scan_count_fract),
		cmocka_unit_test(scan_count_modes),
		cmocka_unit_test(inactive_low),
		cmocka_unit_test(stale_statistics),
		cmocka_unit_test(recorded_flushes),
		cmocka_unit_test(flusher_since_boot),
		cmocka_unit_test(two_touch),
		cmocka_unit_test(lru_ring_order),
		cmocka_unit_test(lru_ring_room_for),
		cmocka_unit_test(refault_distance),
		cmocka_unit_test(proportional_stop),
		cmocka_unit_test(early_exit_goal),
		cmocka_unit_test(use_once_stream),
		cmocka_unit_test(oom_below_working_set),
		cmocka_unit_test(oom_after_retries),
		cmocka_unit_test(charge_first_attempt),
		cmocka_unit_test(parent_waits_for_child),
		cmocka_unit_test(child_starts_at_fork),
		cmocka_unit_test(child_forked_after_read_wait),
		cmocka_unit_test(exec_activated),
		cmocka_unit_test(fault_around_window),
		cmocka_unit_test(fault_around_exec),
		cmocka_unit_test(fault_retry_maps_readaround),
		cmocka_unit_test(shared_mapping_activated),
		cmocka_unit_test(fault_around_second_mapping),
		cmocka_unit_test(precached_charged_outside),
		cmocka_unit_test(readahead_pages),
		cmocka_unit_test(readahead_locked),
		cmocka_unit_test(readahead_locked_folio),
		cmocka_unit_test(readahead_split),
		cmocka_unit_test(readahead_bios),
		cmocka_unit_test(readahead_read_time),
		cmocka_unit_test(read_miss_noretry),
		cmocka_unit_test(shadow_shrinker),
		cmocka_unit_test(capture_swappiness),
		cmocka_unit_test(capture_cgroup_version),
		cmocka_unit_test(nonlru_while_running),
		cmocka_unit_test(dm_delay_queue),
		cmocka_unit_test(uaccess_leaves_pte_old),
		cmocka_unit_test(plugged_swap_writes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
