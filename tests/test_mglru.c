/*
 * test_mglru.c — the multi-gen LRU and its variants against expectations
 * computed by hand from mm/vmscan.c, include/linux/mm_inline.h,
 * mm/workingset.c (reclaim-model.md §5.2, §6; variants.md §0-§5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/engine.h"
#include "mm/mm_inline.h"
#include "mm/policy.h"
#include "mm/lru_gen/lru_gen.h"
#include "mm/internal.h"
#include "vmr_fixture.h"
#include "engine_fixture.h"
#include "mm/vmscan.h"
#include "mm/swap_state.h"

static void box_check(struct box *b)
{
	char err[256];
	if (mglru_check(&b->e, err, sizeof(err)) != 0)
		fail_msg("mglru_check: %s", err);
}

static void box_close(struct box *b)
{
	box_check(b);
	box_free(b);
}

static int box_memcg(struct box *b)
{
	return b->e.nr_memcgs - 1;
}

/* The sequence number of the generation a folio's gen field names. */
static uint64_t folio_seq(struct engine *e, uint32_t pfn)
{
	const struct lru_gen_folio *lv = mglru_lruvec(e, e->folio[pfn].memcg);
	int gen = folio_lru_gen(&e->folio[pfn]);
	assert_true(gen >= 0);
	return lv->max_seq - (uint64_t)((lru_gen_from_seq(lv->max_seq) - gen + 4) % 4);
}

/* ---- generation arithmetic, tiers and refs ---------------------------------- */

static void gen_arithmetic(void **state)
{
	(void)state;
	/* gen = seq % MAX_NR_GENS; NR_HIST_GENS 1 */
	assert_int_equal(lru_gen_from_seq(0), 0);
	assert_int_equal(lru_gen_from_seq(3), 3);
	assert_int_equal(lru_gen_from_seq(4), 0);
	assert_int_equal(lru_gen_from_seq(1001), 1);
	assert_int_equal(lru_hist_from_seq(7), 0);
	/* tier = order_base_2(refs), workingset -> 3 */
	const int want[5] = { 0, 0, 1, 2, 2 };
	for (int refs = 0; refs <= 4; refs++) {
		assert_int_equal(lru_tier_from_refs(refs, 0), want[refs]);
		assert_int_equal(lru_tier_from_refs(refs, 1), 3);
	}

	struct box b;
	box_open(&b, policy_find("mglru"), 8, 4, 0, 0, 60);
	struct engine *e = &b.e;
	const struct lru_gen_folio *lv = mglru_lruvec(e, box_memcg(&b));
	/* lru_gen_init_lruvec: max_seq MIN_NR_GENS + 1, four live generations */
	assert_int_equal(lv->max_seq, 3);
	assert_int_equal(lv->min_seq[0], 0);
	assert_int_equal(lv->min_seq[1], 0);

	/* lru_gen_inc_refs: accesses 1..4 -> refs 1..4 (tiers 0,1,2,2); the
	 * fifth sets PG_workingset (tier 3); the sixth changes nothing. */
	install(e, 5, 0);
	struct folio *f = &e->folio[5];
	assert_int_equal(folio_lru_refs(f), 0);
	const int tiers[4] = { 0, 1, 2, 2 };
	for (int n = 1; n <= 4; n++) {
		folio_mark_accessed(e, 5);
		assert_int_equal(folio_lru_refs(f), n);
		assert_int_equal(lru_tier_from_refs(folio_lru_refs(f), !!(f->flags & PG_workingset)),
				 tiers[n - 1]);
		assert_false(f->flags & PG_workingset);
	}
	folio_mark_accessed(e, 5);
	assert_true(f->flags & PG_workingset);
	assert_int_equal(folio_lru_refs(f), 4);
	assert_int_equal(lru_tier_from_refs(4, 1), 3);
	folio_mark_accessed(e, 5);
	assert_int_equal(folio_lru_refs(f), 4);
	/* nothing moved, nothing counted */
	assert_int_equal(folio_seq(e, 5), 0);
	assert_int_equal(e->vm[VM_pgactivate], 0);
	box_close(&b);
}

/* ---- insertion ------------------------------------------------------------------ */

/* max_seq 3, min_seq 0: a fault adds with PG_active -> max_seq - 1 = 2;
 * a read adds without -> max_seq - 3 = 0 (the oldest); a read of a folio
 * whose refault restored the workingset -> max_seq - 2 = 1; a fault of
 * one -> max_seq = 3. */
static void insertion(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru"), 16, 8, 0, 1000, 60);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct lru_gen_folio *lv = mglru_lruvec(e, memcg);

	install(e, 0, 0);                         /* anon fault */
	assert_int_equal(folio_seq(e, 0), 2);
	assert_false(e->folio[0].flags & PG_active);
	install(e, 8, 0);                         /* file read */
	assert_int_equal(folio_seq(e, 8), 0);
	install(e, 9, PG_mapped);                 /* file fault */
	assert_int_equal(folio_seq(e, 9), 2);
	install(e, 10, PG_workingset);            /* file read, workingset restored */
	assert_int_equal(folio_seq(e, 10), 1);
	install(e, 11, PG_workingset | PG_mapped); /* file fault, restored */
	assert_int_equal(folio_seq(e, 11), 3);
	/* the active/inactive sizes: gens 2, 3 are active */
	assert_int_equal(e->memcgs[memcg].lruvec.size[LRU_ACTIVE_ANON], 1);
	assert_int_equal(e->memcgs[memcg].lruvec.size[LRU_INACTIVE_FILE], 2);
	assert_int_equal(e->memcgs[memcg].lruvec.size[LRU_ACTIVE_FILE], 2);

	/* lru_gen_folio_seq never goes below min_seq: with two generations
	 * left (min_seq 2), a read lands in 2. */
	struct folio probe = { .flags = 0 };
	lv->min_seq[1] = 2;
	assert_int_equal(lru_gen_folio_seq(lv, &probe, 0), 2);
	probe.flags = PG_workingset;
	assert_int_equal(lru_gen_folio_seq(lv, &probe, 0), 2);
	probe.flags = PG_active;
	assert_int_equal(lru_gen_folio_seq(lv, &probe, 0), 2);
	probe.flags = PG_active | PG_workingset;
	assert_int_equal(lru_gen_folio_seq(lv, &probe, 0), 3);
	lv->min_seq[1] = 0;
	/* reclaiming (writeback-end rotation): the oldest; an anon folio
	 * without a swap slot or a reclaim folio under writeback: max_seq - 1 */
	probe.flags = 0;
	assert_int_equal(lru_gen_folio_seq(lv, &probe, 1), 0);
	probe.flags = PG_reclaim | PG_writeback;
	assert_int_equal(lru_gen_folio_seq(lv, &probe, 0), 2);
	probe.flags = PG_swapbacked;
	assert_int_equal(lru_gen_folio_seq(lv, &probe, 0), 2);
	probe.flags = PG_swapbacked | PG_swapcache;
	assert_int_equal(lru_gen_folio_seq(lv, &probe, 0), 0);
	box_close(&b);
}

/* lru_gen_eviction / lru_gen_refault: the token carries min_seq and the
 * refs; a refault is recent within MAX_NR_GENS of max_seq; workingset_
 * activate counts only for a recent refault in a fault, restore only with
 * a workingset shadow. */
/* A major fault on anon page 5 from a queued swap device (an SSD, which
 * reads ahead by address) after a fault at 4: a window of two, so page 6
 * comes in too.  Both are added inside do_swap_page's fault: PG_active,
 * the generation max_seq - 1 = 2 (of 0..3), not the oldest (0) where a
 * swap-cache folio outside a fault would land.  A read-ahead outside any
 * fault still lands there. */
static void fault_readahead(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru"), 600, 600, 0, 1000, 60);
	struct engine *e = &b.e;
	e->swap.p.sync = 0;
	assert_int_equal(swap_ra_init(e), 0);
	for (uint32_t i = 0; i < e->nr_folios; i++)
		e->folio[i].flags |= PG_swapped;
	e->procs[0].swap_ra = (struct swap_ra_info){ .addr = 4 };
	assert_int_equal(fault_in(e, &e->tasks[0], 5, VMR_OP_LOAD, 0), 1);
	assert_true(e->folio[6].flags & PG_resident);
	assert_true(e->folio[6].flags & PG_readahead);
	assert_false(e->folio[7].flags & PG_resident);
	assert_int_equal(folio_seq(e, 5), 2);
	assert_int_equal(folio_seq(e, 6), 2);
	assert_false(e->folio[6].flags & PG_active);
	assert_false(e->in_lru_fault);
	/* swap read-ahead by offset outside a fault (as a test drives it) */
	assert_int_equal(fault_in(e, &e->tasks[0], 9, VMR_OP_READAHEAD, 0), 1);
	assert_int_equal(folio_seq(e, 9), 0);
	box_close(&b);
}

/* A READAHEAD record flagged VMR_F_FAULT (filemap_fault's read-ahead)
 * is added in the fault: active, max_seq - 1 = seq 2; an unflagged one
 * (a read()'s read-ahead) lands in the oldest generation, seq 0. */
static void fault_readahead_file(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_mglru_ra.%d.vmr", (int)getpid());
	struct vmr_rec r[2] = { fixture_rec(1, VMR_OP_READAHEAD, 1, 10), fixture_rec(2, VMR_OP_READAHEAD, 1, 10) };
	r[0].info |= VMR_F_FAULT;
	struct fixture_task t = { 0, r, 2 };
	const uint8_t kinds[4] = { 1, 1, 1, 1 };
	struct engine e;
	struct vmr v;
	replay_fixture(&e, &v, path, policy_find("mglru"), &t, 4, kinds, 100, 100, "zram");
	assert_int_equal(mglru_lruvec(&e, e.folio[1].memcg)->max_seq, 3);
	assert_true(e.folio[1].flags & PG_resident);
	assert_int_equal(folio_seq(&e, 1), 2);
	assert_int_equal(folio_seq(&e, 2), 0);
	assert_false(e.in_lru_fault);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* do_read_fault's fault-around (filemap_map_pages): a read fault on a file
 * page maps the cached pages of its aligned 16-page window, young and
 * without a fault of their own; a write fault does not fault around, and
 * pages of the next window stay unmapped until a read fault there.  Pages
 * 0-23 of one file (index = page id): read-ahead brings in 2, 4, 5, 17
 * and 19 unmapped; a read fault on 3, 200 us later (past the ssd's
 * 100 us read, which holds the read-ahead pages locked), maps 2, 4, 5
 * (window 0-15); a write fault on 18 maps only 18; a read fault on 16
 * maps 17 and 19 (18 was mapped already).  pgfault counts the three
 * faults only. */
static void fault_around(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_mglru_fa.%d.vmr", (int)getpid());
	struct vmr_rec r[] = {
		fixture_rec(2, VMR_OP_READAHEAD, 1, 10), fixture_rec(4, VMR_OP_READAHEAD, 1, 10),
		fixture_rec(5, VMR_OP_READAHEAD, 1, 10), fixture_rec(17, VMR_OP_READAHEAD, 1, 10),
		fixture_rec(19, VMR_OP_READAHEAD, 1, 10), fixture_rec(3, VMR_OP_LOAD, 1, 200000),
		fixture_rec(18, VMR_OP_STORE, 1, 10),
	};
	struct fixture_task t = { 0, r, sizeof(r) / sizeof(r[0]) };
	uint8_t kinds[24];
	memset(kinds, 1, sizeof(kinds));
	struct engine e;
	struct vmr v;
	replay_fixture(&e, &v, path, policy_find("mglru+k6.12+no-mm-walk"), &t, 24, kinds, 100, 100, "zram");
	/* Seen after the process's exit: its zap (zap_file_ptes) found
	 * every PTE young and marked the folio accessed, the first mark of
	 * each (lru_gen_inc_refs: PG_referenced); the cached pages no PTE
	 * mapped have none, and nothing is mapped any more. */
	const uint32_t mask = PG_resident | PG_mapped | PG_young | PG_referenced;
	const uint32_t mapped = PG_resident | PG_referenced;
	for (uint32_t p = 2; p <= 5; p++)
		assert_int_equal(e.folio[p].flags & mask, mapped);
	assert_int_equal(e.folio[18].flags & mask, mapped);
	assert_int_equal(e.folio[17].flags & mask, PG_resident);
	assert_int_equal(e.folio[19].flags & mask, PG_resident);
	assert_false(e.folio[1].flags & PG_resident);
	assert_int_equal(e.vm[VM_pgfault], 2);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);

	/* The same, then a read fault on 16: 17 and 19 mapped and young
	 * (referenced after the exit's zap). */
	struct vmr_rec r2[sizeof(r) / sizeof(r[0]) + 1];
	memcpy(r2, r, sizeof(r));
	r2[sizeof(r) / sizeof(r[0])] = fixture_rec(16, VMR_OP_LOAD, 1, 10);
	struct fixture_task t2 = { 0, r2, sizeof(r2) / sizeof(r2[0]) };
	replay_fixture(&e, &v, path, policy_find("mglru+k6.12+no-mm-walk"), &t2, 24, kinds, 100, 100, "zram");
	for (uint32_t p = 16; p <= 19; p++)
		assert_int_equal(e.folio[p].flags & mask, mapped);
	assert_int_equal(e.vm[VM_pgfault], 3);
	engine_free(&e);
	vmr_close(&v);
	unlink(path);
}

/* mglru+k6.12-tiers: Linux 6.12.117's tiers and refault detection.  A
 * file folio read() four times: PG_referenced, PG_workingset, refs bits 1
 * and 2 — folio_lru_refs 3, tier 2 (the mm tree: PG_referenced and refs
 * bits 3, refs 4, tier 2).  Evicted at min_seq 0: token 0 << 2 | 2,
 * shadow workingset (refs > 0), evicted[0][file][2].  Read back while
 * min_seq is still 0: recent; refs 2 + 1 = 3, tier 2, refaulted[.][2];
 * workingset_activate counted though not in a fault (the mm tree: only in
 * one), and refs >= 3 restores every refs bit and PG_workingset: refs 4,
 * protected at its first sort (tier 3).  Evicted again at min_seq 0 and
 * read back after min_seq moved to 1: not recent (the mm tree's test,
 * within MAX_NR_GENS of max_seq 3, would call it recent). */
static void k612_tiers(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru+k6.12-tiers"), 16, 0, 1000, 0, 60);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
	struct folio *f = &e->folio[12];
	f->memcg = (uint16_t)memcg;
	for (int i = 0; i < 4; i++)
		lru_gen_inc_refs(e, 12);
	assert_true(f->flags & PG_referenced);
	assert_true(f->flags & PG_workingset);
	assert_int_equal(folio_refs_bits(f), 2);
	assert_int_equal(folio_lru_refs_612(f), 3);
	assert_int_equal(folio_lru_tier(e, f), 2);
	lru_gen_inc_refs(e, 12);
	lru_gen_inc_refs(e, 12);
	assert_int_equal(folio_refs_bits(f), 3);      /* saturated */
	f->gen_refs = (uint8_t)((f->gen_refs & 0xf0) | 2);
	workingset_eviction(e, 12, -1);
	assert_int_equal(f->shadow, (0u << 2) | 2);
	assert_true(f->flags & PG_shadow_ws);
	assert_int_equal(lv->evicted[0][1][2], 1);

	f->flags &= ~(PG_referenced | PG_workingset);
	f->flags |= PG_resident;
	workingset_refault(e, 12);
	assert_int_equal(e->vm[VM_workingset_refault_file], 1);
	assert_int_equal(lv->refaulted[0][1][2], 1);
	assert_int_equal(e->vm[VM_workingset_activate_file], 1);
	assert_int_equal(e->vm[VM_workingset_restore_file], 1);
	assert_int_equal(folio_refs_bits(f), 3);
	assert_true(f->flags & PG_workingset);
	assert_int_equal(folio_lru_tier(e, f), 3);

	/* evicted at min_seq 0 again; min_seq moves to 1 before the read */
	workingset_eviction(e, 12, -1);
	assert_int_equal(lv->evicted[0][1][3], 1);
	lv->min_seq[1] = 1;
	f->flags &= ~(PG_referenced | PG_workingset);
	f->flags |= PG_resident;
	workingset_refault(e, 12);
	assert_int_equal(e->vm[VM_workingset_refault_file], 2);
	assert_int_equal(e->vm[VM_workingset_activate_file], 1);
	assert_int_equal(lv->refaulted[0][1][3], 0);
	folio_add_lru(e, 12);
	box_close(&b);
}

static void refault(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru"), 16, 8, 1000, 1000, 60);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct lru_gen_folio *lv = mglru_lruvec(e, memcg);

	/* A file folio read three times (refs 3, tier 2) evicted at min_seq 0. */
	struct folio *f = &e->folio[12];
	f->memcg = (uint16_t)memcg;
	f->flags |= PG_referenced;
	f->gen_refs = 2;
	workingset_eviction(e, 12, -1);
	assert_true(f->flags & PG_shadow);
	assert_int_equal(f->shadow, (0u << 2) | 2);
	assert_int_equal(lv->evicted[0][1][2], 1);

	/* Read back (not in a fault) while max_seq is 3: recent, not ws. */
	f->flags &= ~(PG_referenced);
	f->flags |= PG_resident;
	workingset_refault(e, 12);
	assert_int_equal(e->vm[VM_workingset_refault_file], 1);
	assert_int_equal(lv->refaulted[0][1][2], 1);
	folio_add_lru(e, 12);
	assert_int_equal(e->vm[VM_workingset_activate_file], 0);
	assert_int_equal(e->vm[VM_workingset_restore_file], 0);
	assert_int_equal(folio_seq(e, 12), 0);          /* a read, not ws: the oldest */
	assert_int_equal(folio_refs_bits(f), 2);       /* refs - 1, inert without PG_referenced */
	assert_int_equal(folio_lru_refs(f), 0);

	/* A workingset anon folio evicted at min_seq 0, faulted back after
	 * three agings (max_seq 6 - 0 = 6 >= 4): not recent. */
	struct folio *a = &e->folio[3];
	a->memcg = (uint16_t)memcg;
	a->flags |= PG_workingset;
	workingset_eviction(e, 3, -1);
	assert_int_equal(lv->evicted[0][0][3], 1);
	a->flags &= ~PG_workingset;
	lv->max_seq = 6;
	lv->min_seq[0] = lv->min_seq[1] = 3;
	a->flags |= PG_resident | PG_mapped;
	e->in_lru_fault = 1;                            /* lru_gen_enter_fault */
	workingset_refault(e, 3);
	folio_add_lru(e, 3);
	e->in_lru_fault = 0;
	assert_int_equal(e->vm[VM_workingset_refault_anon], 1);
	assert_int_equal(e->vm[VM_workingset_activate_anon], 0);
	assert_false(a->flags & PG_workingset);
	assert_int_equal(folio_seq(e, 3), 5);           /* a fault: max_seq - 1 */

	/* Evicted at min_seq 3 with workingset, refaulted in a fault at
	 * max_seq 6 (distance 3): recent, activate and restore; lands in
	 * max_seq. */
	struct folio *w = &e->folio[4];
	w->memcg = (uint16_t)memcg;
	w->flags |= PG_workingset;
	workingset_eviction(e, 4, -1);
	assert_int_equal(w->shadow, 3u << 2);
	w->flags &= ~PG_workingset;
	w->flags |= PG_resident | PG_mapped;
	e->in_lru_fault = 1;
	workingset_refault(e, 4);
	folio_add_lru(e, 4);
	e->in_lru_fault = 0;
	assert_int_equal(e->vm[VM_workingset_refault_anon], 2);
	assert_int_equal(e->vm[VM_workingset_activate_anon], 1);
	assert_int_equal(e->vm[VM_workingset_restore_anon], 1);
	assert_true(w->flags & PG_workingset);
	assert_int_equal(folio_seq(e, 4), 6);
	assert_int_equal(lv->refaulted[0][0][3], 1);

	/* A refault into another memcg's lruvec counts nothing at all. */
	struct folio *o = &e->folio[5];
	o->memcg = (uint16_t)memcg;
	workingset_eviction(e, 5, -1);
	o->memcg = 0;
	workingset_refault(e, 5);
	assert_int_equal(e->vm[VM_workingset_refault_anon], 2);
	o->flags &= ~PG_resident;
	o->memcg = 0;
	box_close(&b);
}

/* ---- the PID controller ------------------------------------------------------------ */

/* Sets the current window of TYPE: REFAULTED of EVICTED in tier 0. */
static void set_stats(struct lru_gen_folio *lv, int type, uint64_t refaulted, uint64_t evicted)
{
	for (unsigned t = 0; t < MAX_NR_TIERS; t++)
		lv->refaulted[0][type][t] = lv->evicted[0][type][t] = lv->protected[0][type][t] =
			lv->avg_refaulted[type][t] = lv->avg_total[type][t] = 0;
	lv->refaulted[0][type][0] = refaulted;
	lv->evicted[0][type][0] = evicted;
}

static void type_to_scan(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru"), 8, 4, 0, 1000, 60);
	struct engine *e = &b.e;
	struct lru_gen_folio *lv = mglru_lruvec(e, box_memcg(&b));

	/* Anon refaults 10% of its evictions, file 30%.
	 * sw 1: file, whatever the statistics; sw 200: anon. */
	set_stats(lv, 0, 100, 1000);
	set_stats(lv, 1, 300, 1000);
	assert_int_equal(get_type_to_scan(e, lv, 1, 1), LRU_GEN_FILE);
	assert_int_equal(get_type_to_scan(e, lv, 200, 1), LRU_GEN_ANON);
	/* sw 100: 300 * (1000 + 64) * 100 = 31,920,000 > (100 + 1) * 1000 * 100
	 * = 10,100,000: file refaults too much -> anon. */
	assert_int_equal(get_type_to_scan(e, lv, 100, 1), LRU_GEN_ANON);
	/* The reverse (anon 30%, file 10%): 100 * 1064 * 100 = 10,640,000 <=
	 * 301 * 1000 * 100 = 30,100,000 -> file. */
	set_stats(lv, 0, 300, 1000);
	set_stats(lv, 1, 100, 1000);
	assert_int_equal(get_type_to_scan(e, lv, 100, 1), LRU_GEN_FILE);
	assert_int_equal(get_type_to_scan(e, lv, 1, 1), LRU_GEN_FILE);
	assert_int_equal(get_type_to_scan(e, lv, 200, 1), LRU_GEN_ANON);
	/* The gain: anon 10%, file 20%.  sw 60: 200 * 1064 * 60 = 12,768,000 <=
	 * 101 * 1000 * 140 = 14,140,000 -> file; sw 100: 21,280,000 >
	 * 10,100,000 -> anon. */
	set_stats(lv, 0, 100, 1000);
	set_stats(lv, 1, 200, 1000);
	assert_int_equal(get_type_to_scan(e, lv, 60, 1), LRU_GEN_FILE);
	assert_int_equal(get_type_to_scan(e, lv, 100, 1), LRU_GEN_ANON);
	/* Fewer than MIN_LRU_BATCH file refaults: file at any swappiness < 200. */
	set_stats(lv, 0, 0, 1000);
	set_stats(lv, 1, 63, 64);
	assert_int_equal(get_type_to_scan(e, lv, 100, 1), LRU_GEN_FILE);
	assert_int_equal(get_type_to_scan(e, lv, 199, 1), LRU_GEN_FILE);
	/* The moving averages count: avg 64 refaults of 100 makes the PV real. */
	lv->avg_refaulted[1][1] = 64;
	lv->avg_total[1][1] = 100;
	assert_int_equal(get_type_to_scan(e, lv, 100, 1), LRU_GEN_ANON);
	box_close(&b);
}

/* get_tier_idx: SP = tier 0 with gain 2, PV = tier t with gain 3; the
 * first tier whose refaults fail the test and every tier above it are
 * protected. */
static void tier_idx(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru"), 8, 4, 0, 1000, 60);
	struct engine *e = &b.e;
	struct lru_gen_folio *lv = mglru_lruvec(e, box_memcg(&b));
	set_stats(lv, 0, 100, 1000);
	/* Nothing refaults in tiers 1-3 -> 3 (no tier protected). */
	assert_int_equal(get_tier_idx(lv, 0), 3);
	/* Tier 1: 100 of 200: 100 * (1000 + 64) * 2 = 212,800 > 101 * 200 * 3
	 * = 60,600 -> protected from tier 1: index 0. */
	lv->refaulted[0][0][1] = 100;
	lv->evicted[0][0][1] = 200;
	assert_int_equal(get_tier_idx(lv, 0), 0);
	/* Tier 1 under MIN_LRU_BATCH refaults, tier 2 at 200 of 300:
	 * 425,600 > 90,900 -> index 1. */
	lv->refaulted[0][0][1] = 10;
	lv->refaulted[0][0][2] = 200;
	lv->evicted[0][0][2] = 300;
	assert_int_equal(get_tier_idx(lv, 0), 1);
	/* Tier 2 at 70 of 10000: 70 * 1064 * 2 = 148,960 <= 101 * 10000 * 3 ->
	 * fine; index 3. */
	lv->refaulted[0][0][2] = 70;
	lv->evicted[0][0][2] = 10000;
	assert_int_equal(get_tier_idx(lv, 0), 3);
	box_close(&b);
}

/* mglru+swappiness sw-boost: with sparse refaults a credit picks anon in
 * swappiness/200 of the decisions (sw 100: every other one; sw 60: 3 of
 * 10); peeking does not spend it.  sw-boost-gain squares the gains. */
static void swappiness_boost(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru+swappiness"), 8, 4, 0, 1000, 60);
	struct engine *e = &b.e;
	struct lru_gen_folio *lv = mglru_lruvec(e, box_memcg(&b));
	const int want100[4] = { LRU_GEN_FILE, LRU_GEN_ANON, LRU_GEN_FILE, LRU_GEN_ANON };
	for (int i = 0; i < 4; i++) {
		assert_int_equal(get_type_to_scan(e, lv, 100, 0), want100[i]);   /* peek */
		assert_int_equal(get_type_to_scan(e, lv, 100, 1), want100[i]);
	}
	lv->type_credit = 0;
	int anon = 0;
	for (int i = 0; i < 10; i++)
		anon += get_type_to_scan(e, lv, 60, 1) == LRU_GEN_ANON;
	assert_int_equal(anon, 3);
	/* Plenty of refaults: the PID decides as in the base (anon 10%, file
	 * 20%, sw 60 -> file). */
	set_stats(lv, 0, 100, 1000);
	set_stats(lv, 1, 200, 1000);
	assert_int_equal(get_type_to_scan(e, lv, 60, 1), LRU_GEN_FILE);
	box_close(&b);

	/* sw-boost-gain: anon 100/1000, file 70/1000 at sw 110.  Linear:
	 * 70 * 1064 * 110 = 8,192,800 <= 101 * 1000 * 90 = 9,090,000 -> file;
	 * squared: 70 * 1064 * 12100 = 901,208,000 > 101 * 1000 * 8100 =
	 * 818,100,000 -> anon. */
	const struct reclaim_policy *gain = policy_find("mglru+sw-boost-gain");
	assert_non_null(gain);
	box_open(&b, policy_find("mglru"), 8, 4, 0, 1000, 60);
	lv = mglru_lruvec(&b.e, box_memcg(&b));
	set_stats(lv, 0, 100, 1000);
	set_stats(lv, 1, 70, 1000);
	assert_int_equal(get_type_to_scan(&b.e, lv, 110, 1), LRU_GEN_FILE);
	box_close(&b);
	box_open(&b, gain, 8, 4, 0, 1000, 60);
	lv = mglru_lruvec(&b.e, box_memcg(&b));
	set_stats(lv, 0, 100, 1000);
	set_stats(lv, 1, 70, 1000);
	assert_int_equal(get_type_to_scan(&b.e, lv, 110, 1), LRU_GEN_ANON);
	box_close(&b);
}

/* ---- aging -------------------------------------------------------------------------- */

static void run_aging(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru"), 8, 4, 0, 1000, 60);
	struct engine *e = &b.e;
	struct lru_gen_folio *lv = mglru_lruvec(e, box_memcg(&b));
	struct scan_control sc = sc_for(DEF_PRIORITY, 1);

	/* max_seq 3.  Four generations (min 0): no aging at any priority. */
	assert_false(should_run_aging(e, lv, 3, &sc, 60));
	sc.priority = 11;
	assert_false(should_run_aging(e, lv, 3, &sc, 60));
	/* Three (min 1): not at DEF_PRIORITY (gentle), yes below it. */
	lv->min_seq[0] = lv->min_seq[1] = 1;
	assert_true(should_run_aging(e, lv, 3, &sc, 60));
	sc.priority = DEF_PRIORITY;
	assert_false(should_run_aging(e, lv, 3, &sc, 60));
	/* Two (min 2): must age, whatever the priority. */
	lv->min_seq[0] = lv->min_seq[1] = 2;
	assert_true(should_run_aging(e, lv, 3, &sc, 60));
	/* The older evictable type counts: anon at 2, file at 0 -> 4 gens. */
	lv->min_seq[1] = 0;
	assert_false(should_run_aging(e, lv, 3, &sc, 60));
	/* ... but with swappiness 0 only file is evictable; anon 0, file 2: must. */
	lv->min_seq[0] = 0;
	lv->min_seq[1] = 2;
	assert_true(should_run_aging(e, lv, 3, &sc, 0));
	assert_false(should_run_aging(e, lv, 3, &sc, 60));
	box_close(&b);

	/* mglru+swappiness: sw-no-gentle ages three generations at
	 * DEF_PRIORITY when swappiness is 1 or 200, not at 60; sw-age-pref
	 * ages when the preferred type (file at sw 1) has only two
	 * generations while anon has four. */
	box_open(&b, policy_find("mglru+swappiness"), 8, 4, 0, 1000, 60);
	e = &b.e;
	lv = mglru_lruvec(e, box_memcg(&b));
	sc = sc_for(DEF_PRIORITY, 1);
	lv->min_seq[0] = lv->min_seq[1] = 1;
	assert_true(should_run_aging(e, lv, 3, &sc, 1));
	assert_true(should_run_aging(e, lv, 3, &sc, 200));
	assert_false(should_run_aging(e, lv, 3, &sc, 60));
	lv->min_seq[0] = 0;
	lv->min_seq[1] = 2;
	sc.priority = 11;
	assert_false(should_run_aging(e, lv, 3, &sc, 1));      /* file has no folios */
	install(e, 6, 0);                                       /* file read: gen 2 */
	assert_true(should_run_aging(e, lv, 3, &sc, 1));
	assert_false(should_run_aging(e, lv, 3, &sc, 200));     /* anon preferred: 4 gens */
	box_close(&b);
}

/* inc_max_seq through try_to_inc_max_seq: the walk promotes young mapped
 * folios on their second sighting (lazily: the gen field moves, the list
 * does not); a full window retires the oldest generation first, counting
 * its folios as protected. */
static void aging_walk(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru"), 8, 8, 100, 1000, 60);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
	struct scan_control sc = sc_for(11, memcg);

	for (uint32_t p = 0; p < 4; p++)
		install(e, p, 0);                                /* gen of seq 2 */
	e->folio[0].flags |= PG_young;                           /* first sighting */
	e->folio[1].flags |= PG_young | PG_referenced;           /* second: promote */
	/* Four generations: inc_min_seq moves the (empty) oldest first. */
	assert_true(try_to_inc_max_seq(e, memcg, 3, 60, &sc));
	assert_int_equal(lv->max_seq, 4);
	assert_int_equal(lv->min_seq[0], 1);
	assert_int_equal(lv->min_seq[1], 1);
	assert_true(sc.sim.mm_walk);                         /* the walk context stays */
	assert_true(e->folio[0].flags & PG_referenced);
	assert_false(e->folio[0].flags & PG_young);
	assert_int_equal(folio_seq(e, 0), 2);
	assert_int_equal(folio_seq(e, 1), 3);                    /* max_seq at the walk */
	assert_true(e->folio[1].flags & PG_workingset);
	assert_false(e->folio[1].flags & PG_referenced);
	assert_int_equal(e->folio[1].lru >> 1, 2);               /* still on gen 2's list */
	/* The same seq again: someone aged already. */
	assert_false(try_to_inc_max_seq(e, memcg, 3, 60, &sc));
	/* Two more: 5 (window 1..4 is full: retire 1, empty), then 6 retires
	 * gen of seq 2 — folio 1 goes to its promoted gen, the others to seq 3
	 * as protected (folio 0: refs 1, tier 0; 2 and 3: tier 0 too). */
	assert_true(try_to_inc_max_seq(e, memcg, 4, 60, &sc));
	assert_int_equal(lv->min_seq[0], 2);
	assert_true(try_to_inc_max_seq(e, memcg, 5, 60, &sc));
	assert_int_equal(lv->max_seq, 6);
	assert_int_equal(lv->min_seq[0], 3);
	for (uint32_t p = 0; p < 4; p++)
		assert_int_equal(folio_seq(e, p), 3);
	/* protected was folded into the average when min_seq advanced:
	 * (0 + 3) / 2 = 1 in tier 0, and folio 1 (lazily promoted,
	 * workingset, refs 0 -> tier 3) counted too: (0 + 1) / 2 = 0. */
	assert_int_equal(lv->avg_total[0][0], 1);
	box_close(&b);
}

/* The physical order of the list of SEQ's generation, tail (coldest) first. */
static void list_from_tail(struct engine *e, int memcg, uint64_t seq, int type, uint32_t *out, int n)
{
	const struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
	int gen = lru_gen_from_seq(seq);
	const struct lru_ring *r = &lv->folios[gen][type];
	int i = 0;
	for (uint32_t k = 0; k < r->nr; k++) {
		uint32_t pos = lru_ring_wrap(r, r->tail + k);
		if (!lru_ring_alive(e, memcg, (unsigned)(gen * 2 + type), r->slot[pos], pos))
			continue;
		assert_true(i < n);
		out[i++] = r->slot[pos];
	}
	assert_int_equal(i, n);
}

/* sort_folio's protection in the mm tree and in Linux 6.12
 * (mglru+k6.12-tiers): four file folios read into seq 0 (folio 0 at the
 * tail, next to be scanned), folio 4 with PG_workingset into seq 1.
 * Folio 0 has PG_referenced, PG_workingset and refs bits 3: the mm
 * tree's lazily promoted workingset (refs 4 + workingset = BIT(2) + 1),
 * 6.12's refs 4 (3 + PG_workingset = BIT(2)); either way protected into
 * seq 1 by a one-folio scan that isolates nothing.  The mm tree's
 * list_move puts it at the head of seq 1 (folio 4 stays next in line),
 * 6.12's list_move_tail at the tail, ahead of folio 4. */
static void k612_protect_order(void **state)
{
	(void)state;
	const char *pols[2] = { "mglru", "mglru+k6.12-tiers" };
	for (int i = 0; i < 2; i++) {
		struct box b;
		box_open(&b, policy_find(pols[i]), 8, 0, 100, 0, 0);
		struct engine *e = &b.e;
		int memcg = box_memcg(&b);
		struct scan_control sc = sc_for(DEF_PRIORITY, memcg);
		for (uint32_t p = 0; p < 4; p++)
			install(e, p, 0);
		install(e, 4, PG_workingset);
		assert_int_equal(folio_seq(e, 0), 0);
		assert_int_equal(folio_seq(e, 4), 1);
		e->folio[0].flags |= PG_referenced | PG_workingset;
		e->folio[0].gen_refs |= 3;
		assert_int_equal(evict_folios(e, 1, memcg, &sc, 0), 1);
		assert_int_equal(e->vm[VM_pgscan_file], 0);
		assert_int_equal(folio_seq(e, 0), 1);
		uint32_t order[2];
		list_from_tail(e, memcg, 1, LRU_GEN_FILE, order, 2);
		assert_int_equal(order[0], i ? 0 : 4);
		assert_int_equal(order[1], i ? 4 : 0);
		box_close(&b);
	}
}

/* inc_min_seq in the base and with sw-no-inversion: three anon folios in
 * seq 2 (installed 0, 1, 2: folio 0 the coldest, at the tail), the window
 * full at max_seq 5.  The base moves them tail first to the tail of seq 3,
 * reversing them (2 nearest eviction), counts all three protected, and at
 * swappiness 0 does not move them at all (they join the new youngest,
 * seq 6).  sw-no-inversion keeps 0 at the tail, moves them at swappiness
 * 0 too, and does not count folio 1, which aging had promoted. */
static void inc_min_seq_order(void **state)
{
	(void)state;
	const struct reclaim_policy *noinv = policy_find("mglru+sw-no-inversion");
	assert_non_null(noinv);
	for (int pass = 0; pass < 4; pass++) {
		const struct reclaim_policy *pol = pass & 1 ? noinv : policy_find("mglru");
		int sw = pass & 2 ? 0 : 60;
		struct box b;
		box_open(&b, pol, 8, 8, 100, 1000, sw);
		struct engine *e = &b.e;
		int memcg = box_memcg(&b);
		struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
		struct scan_control sc = sc_for(11, memcg);
		for (uint32_t p = 0; p < 3; p++)
			install(e, p, 0);
		e->folio[1].flags |= PG_young | PG_referenced;        /* promoted by the next walk */
		assert_true(try_to_inc_max_seq(e, memcg, 3, sw, &sc));   /* 4: folio 1 -> seq 3 */
		assert_true(try_to_inc_max_seq(e, memcg, 4, sw, &sc));   /* 5: min 2 */
		assert_int_equal(lv->min_seq[0], 2);
		assert_true(try_to_inc_max_seq(e, memcg, 5, sw, &sc));   /* 6: retires seq 2 */
		assert_int_equal(lv->min_seq[0], 3);
		uint32_t order[3];
		if (!(pass & 1) && sw == 0) {
			/* not moved: still on seq 2's list, which is now seq 6 */
			list_from_tail(e, memcg, 6, 0, order, 3);
			assert_int_equal(order[0], 0);
			assert_int_equal(folio_seq(e, 0), 6);
			assert_int_equal(folio_seq(e, 2), 6);
			assert_int_equal(lv->avg_total[0][0], 0);
		} else if (!(pass & 1)) {
			list_from_tail(e, memcg, 3, 0, order, 3);
			assert_int_equal(order[0], 2);                  /* reversed */
			assert_int_equal(order[1], 1);
			assert_int_equal(order[2], 0);
			/* protected 2 in tier 0 (folios 0, 2), 1 in tier 3 (folio 1) */
			assert_int_equal(lv->avg_total[0][0], 1);
			assert_int_equal(lv->avg_total[0][3], 0);
		} else {
			list_from_tail(e, memcg, 3, 0, order, 3);
			assert_int_equal(order[0], 0);                  /* kept */
			assert_int_equal(order[1], 1);
			assert_int_equal(order[2], 2);
			assert_int_equal(lv->avg_total[0][0], 1);       /* (0 + 2) / 2 */
			assert_int_equal(lv->avg_total[0][3], 0);
			assert_int_equal(lv->protected[0][0][3], 0);
		}
		box_close(&b);
	}
}

/* inc_min_seq across batches (sw-batched: MIN_LRU_BATCH = 64 a call, the
 * caller calling again), over a list with a dead entry, a folio aging
 * promoted into the next generation and one promoted past it.  Seventy
 * anon folios installed into seq 2 (0 at the tail); folio 10 taken off
 * and put back (its old entry stays behind, dead; it is now at the head);
 * the walk at max_seq 3 promotes folio 20 to seq 3, the one at 4 folio 30
 * to seq 4.  Retiring seq 2 (max_seq 5 -> 6) moves the 70 folios tail
 * first, 64 then 6: 30 to seq 4's list, the 69 others to the tail of seq
 * 3's, reversed (10 nearest eviction, then 69 down to 0, 30 left out),
 * seq 3's ring growing past its first 64 slots on the way.  Protected:
 * 68 in tier 0, and 20 and 30 (PG_workingset) in tier 3, folded into the
 * averages as min_seq moves on: 34 and 1. */
static void inc_min_seq_batches(void **state)
{
	(void)state;
	const struct reclaim_policy *pol = policy_find("mglru+sw-batched");
	assert_non_null(pol);
	struct box b;
	box_open(&b, pol, 80, 80, 1000, 1000, 60);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
	struct scan_control sc = sc_for(11, memcg);
	for (uint32_t p = 0; p < 70; p++)
		install(e, p, 0);
	assert_int_equal(folio_seq(e, 0), 2);
	assert_int_equal(lru_gen_del_folio(e, 10, 0), 1);
	assert_int_equal(lru_gen_add_folio(e, 10, 0), 1);
	assert_int_equal(folio_seq(e, 10), 2);
	e->folio[20].flags |= PG_young | PG_referenced;
	assert_true(try_to_inc_max_seq(e, memcg, 3, 60, &sc));       /* 4: folio 20 -> seq 3 */
	assert_int_equal(folio_seq(e, 20), 3);
	e->folio[30].flags |= PG_young | PG_referenced;
	assert_true(try_to_inc_max_seq(e, memcg, 4, 60, &sc));       /* 5: folio 30 -> seq 4 */
	assert_int_equal(folio_seq(e, 30), 4);
	assert_int_equal(lv->min_seq[0], 2);
	assert_true(try_to_inc_max_seq(e, memcg, 5, 60, &sc));       /* 6: retires seq 2 */
	assert_int_equal(lv->max_seq, 6);
	assert_int_equal(lv->min_seq[0], 3);
	uint32_t order[69];
	list_from_tail(e, memcg, 3, 0, order, 69);
	assert_int_equal(order[0], 10);
	for (int i = 1, p = 69; i < 69; i++, p--) {
		if (p == 30 || p == 10)
			p--;
		assert_int_equal(order[i], p);
	}
	list_from_tail(e, memcg, 4, 0, order, 1);
	assert_int_equal(order[0], 30);
	assert_int_equal(lv->nr_listed[lru_gen_from_seq(3)][0], 69);
	assert_int_equal(lv->nr_pages[lru_gen_from_seq(3)][0], 69);
	assert_int_equal(lv->nr_pages[lru_gen_from_seq(4)][0], 1);
	assert_int_equal(lv->nr_pages[lru_gen_from_seq(6)][0], 0);
	assert_int_equal(lv->avg_total[0][0], 34);
	assert_int_equal(lv->avg_total[0][3], 1);
	box_close(&b);
}

/* inc_min_seq's protected tier by key (PG_referenced, PG_workingset, the
 * refs bits), by hand: without PG_referenced refs is 0 (tier 0), with it
 * the refs bits + 1 (1 -> 0, 2 -> 1, 3 and 4 -> 2); PG_workingset is tier
 * 3, except with refs 4: the workingset being lazily promoted, not
 * counted (MAX_NR_TIERS).  And each the same as lru_tier_from_refs of
 * folio_lru_refs. */
static void inc_min_seq_tiers(void **state)
{
	(void)state;
	static const uint8_t want[16] = {
		0, 0, 3, 3,          /* refs bits 0 */
		0, 1, 3, 3,          /* refs bits 1 */
		0, 2, 3, 3,          /* refs bits 2 */
		0, 2, 3, 4,          /* refs bits 3 */
	};
	for (unsigned key = 0; key < 16; key++) {
		struct folio f = { 0 };
		if (key & 1)
			f.flags |= PG_referenced;
		if (key & 2)
			f.flags |= PG_workingset;
		f.gen_refs = (uint8_t)((2 << 4) | (key >> 2));
		assert_int_equal(INC_MIN_SEQ_TIER_KEY(f.flags, f.gen_refs), key);
		assert_int_equal(inc_min_seq_tier[key], want[key]);
		int refs = folio_lru_refs(&f), ws = !!(f.flags & PG_workingset);
		if (refs + ws == (1 << LRU_REFS_WIDTH) + 1)
			assert_int_equal(inc_min_seq_tier[key], MAX_NR_TIERS);
		else
			assert_int_equal(inc_min_seq_tier[key], lru_tier_from_refs(refs, ws));
	}
}

/* sw-imbalance: three generations at DEF_PRIORITY (no aging in the base);
 * the oldest holding 5 of 100 pages (< 1/8) ages; 30/30/40 does not. */
static void imbalance(void **state)
{
	(void)state;
	const struct reclaim_policy *pol = policy_find("mglru+sw-imbalance");
	assert_non_null(pol);
	struct box b;
	box_open(&b, pol, 8, 8, 100, 1000, 60);
	struct engine *e = &b.e;
	struct lru_gen_folio *lv = mglru_lruvec(e, box_memcg(&b));
	struct scan_control sc = sc_for(DEF_PRIORITY, box_memcg(&b));
	lv->min_seq[0] = lv->min_seq[1] = 1;
	lv->nr_pages[1][0] = 5;
	lv->nr_pages[2][0] = 10;
	lv->nr_pages[3][0] = 85;
	assert_true(should_run_aging(e, lv, 3, &sc, 60));
	lv->nr_pages[1][0] = 30;
	lv->nr_pages[2][0] = 30;
	lv->nr_pages[3][0] = 40;
	assert_false(should_run_aging(e, lv, 3, &sc, 60));
	/* too small to count */
	lv->nr_pages[1][0] = 1;
	lv->nr_pages[2][0] = 10;
	lv->nr_pages[3][0] = 40;
	assert_false(should_run_aging(e, lv, 3, &sc, 60));
	/* The fixed reading (oldest < 1/8, youngest > 7/8) against the
	 * pre-2025 bounds of sw-imbalance-prev (oldest < 1/4, youngest > 1/2):
	 * 20/40/40 and 20/20/60 are imbalanced only by the latter. */
	const struct reclaim_policy *prev = policy_find("mglru+sw-imbalance+sw-imbalance-prev");
	assert_non_null(prev);
	const int64_t spread[2][3] = { { 20, 40, 40 }, { 20, 20, 60 } };
	for (int k = 0; k < 2; k++) {
		for (int g = 0; g < 3; g++)
			lv->nr_pages[g + 1][0] = spread[k][g];
		assert_false(lru_gen_imbalanced(e, lv, 60));
		e->policy = prev;
		assert_true(lru_gen_imbalanced(e, lv, 60));
		e->policy = pol;
	}
	lv->nr_pages[1][0] = lv->nr_pages[2][0] = lv->nr_pages[3][0] = 0;
	box_close(&b);
}

/* sw-exhaustion: at swappiness 1 the preferred type is file, which has
 * four folios but only two generations.  The base scans nothing (no
 * fallback above priority 0, no aging since anon has more generations);
 * with sw-exhaustion try_to_shrink_lruvec ages and evicts file. */
static void exhaustion(void **state)
{
	(void)state;
	const struct reclaim_policy *pols[2] = { policy_find("mglru"), policy_find("mglru+sw-exhaustion") };
	const uint64_t want[2] = { 0, 4 };
	assert_non_null(pols[1]);
	for (int i = 0; i < 2; i++) {
		struct box b;
		box_open(&b, pols[i], 8, 4, 100, 1000, 1);
		struct engine *e = &b.e;
		int memcg = box_memcg(&b);
		struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
		for (uint32_t p = 0; p < 4; p++)
			install(e, p, 0);                           /* anon, seq 2 */
		lv->min_seq[1] = 2;
		for (uint32_t p = 4; p < 8; p++)
			install(e, p, 0);                           /* file read: seq 2 */
		struct scan_control sc = sc_for(1, memcg);
		try_to_shrink_lruvec(e, memcg, &sc);
		assert_int_equal(e->vm[VM_pgscan_file], want[i]);
		assert_int_equal(e->vm[VM_pgsteal_file], want[i]);
		assert_int_equal(e->vm[VM_pgscan_anon], 0);
		/* exhausted: age to 4; then three generations below DEF_PRIORITY:
		 * should_run_aging ages to 5 before the eviction */
		assert_int_equal(lv->max_seq, i ? 5 : 3);
		box_close(&b);
	}
}

/* lru_gen/enabled 0x0001 (mglru+no-mm-walk): aging increments max_seq
 * without the page-table walk — the young PTE of folio 0 stays for
 * look-around to find, no first sighting is recorded, and the reclaimer
 * gets no walk context.  The default (0x0007) walks: PG_young cleared,
 * PG_referenced set, a walk context. */
static void no_mm_walk(void **state)
{
	(void)state;
	const char *pols[2] = { "mglru", "mglru+no-mm-walk" };
	for (int i = 0; i < 2; i++) {
		struct box b;
		box_open(&b, policy_find(pols[i]), 8, 8, 100, 1000, 60);
		struct engine *e = &b.e;
		int memcg = box_memcg(&b);
		struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
		struct scan_control sc = sc_for(11, memcg);
		install(e, 0, 0);
		e->folio[0].flags |= PG_young;
		assert_true(try_to_inc_max_seq(e, memcg, 3, 60, &sc));
		assert_int_equal(lv->max_seq, 4);
		assert_int_equal(!!(e->folio[0].flags & PG_young), i);
		assert_int_equal(!!(e->folio[0].flags & PG_referenced), !i);
		assert_int_equal(sc.sim.mm_walk, !i);
		/* a second aging for the same seq fails either way */
		assert_false(try_to_inc_max_seq(e, memcg, 3, 60, &sc));
		box_close(&b);
	}
}

/* ---- eviction ------------------------------------------------------------------------- */

static void evict_outcome(const struct reclaim_policy *pol, uint64_t scan_direct, uint64_t steal_direct);

/* Three anon folios in the oldest (seq 2) of four generations, a fourth
 * in seq 3; swappiness 200 (anon first), zram.  Folio 0 is young for the
 * first time: KEEP, back to max_seq - 1 with PG_referenced (no swap slot
 * yet).  Folio 1 is young and referenced: ACTIVATE, to max_seq with
 * PG_workingset (pgactivate).  Folio 2 is cold: swapped out and freed,
 * leaving a shadow.  pgscan counts the three isolated, pgsteal one; the
 * emptied oldest generation retires (min_seq 3). */
static void evict_outcomes(void **state)
{
	(void)state;
	/* the memcg reclaimer counts as direct (mod_lruvec_state); 6.12's
	 * global counters skip cgroup reclaim */
	const char *pols[2] = { "mglru", "mglru+k6.12-counters" };
	for (int i = 0; i < 2; i++)
		evict_outcome(policy_find(pols[i]), i ? 0 : 3, i ? 0 : 1);
}

static void evict_outcome(const struct reclaim_policy *pol, uint64_t scan_direct, uint64_t steal_direct)
{
	struct box b;
	assert_non_null(pol);
	box_open(&b, pol, 8, 8, 100, 1000, 200);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
	struct scan_control sc = sc_for(11, memcg);

	for (uint32_t p = 0; p < 3; p++)
		install(e, p, 0);                                   /* seq 2 */
	assert_true(try_to_inc_max_seq(e, memcg, 3, 200, &sc));     /* max_seq 4 */
	install(e, 3, 0);                                           /* seq 3 */
	assert_true(try_to_inc_max_seq(e, memcg, 4, 200, &sc));     /* max_seq 5 */
	e->folio[0].flags |= PG_young;
	e->folio[1].flags |= PG_young | PG_referenced;
	sc.sim.mm_walk = 0;
	int scanned = evict_folios(e, 64, memcg, &sc, 200);
	assert_int_equal(scanned, 3);
	assert_int_equal(lv->min_seq[0], 3);
	assert_int_equal(e->vm[VM_pgscan_anon], 3);
	assert_int_equal(e->vm[VM_pgsteal_anon], 1);
	assert_int_equal(e->vm[VM_pgscan_direct], scan_direct);
	assert_int_equal(e->vm[VM_pgsteal_direct], steal_direct);
	assert_int_equal(e->vm[VM_pgscan_kswapd] + e->vm[VM_pgrefill], 0);
	assert_int_equal(e->vm[VM_pgactivate], 1);
	assert_int_equal(e->vm[VM_pswpout], 1);
	assert_int_equal(sc.nr_reclaimed, 1);
	assert_int_equal(folio_seq(e, 0), 4);
	assert_true(e->folio[0].flags & PG_referenced);
	assert_int_equal(folio_seq(e, 1), 5);
	assert_true(e->folio[1].flags & PG_workingset);
	assert_false(e->folio[2].flags & PG_resident);
	assert_true(e->folio[2].flags & PG_shadow);
	assert_int_equal(lv->evicted[0][0][0], 1);
	/* the isolation window is over; it was 3 pages wide */
	assert_int_equal(e->node.nr_isolated[0], 0);
	assert_int_equal(lv->nr_isolated[0], 0);
	assert_int_equal(e->vm[VM_nr_isolated_peak], 3);
	box_close(&b);
}

/* Two file folios read() into the oldest generation (seq 0 of 0..3),
 * swappiness 0, folio 0 dirty (the tail, scanned first).  The mm tree
 * isolates both: shrink_folio_list reclaims the clean one and marks the
 * dirty one for immediate reclaim (PG_reclaim, activated: max_seq - 1 =
 * seq 2); handle_reclaim_writeback tallies dirty 1, taken 2, and leaves the
 * flushers alone (1 unqueued dirty of 2 taken).  mglru+k6.12-writeback
 * re-files the dirty one into seq 1 with PG_reclaim (a pgrefill) and
 * isolates the clean one only: nothing reaches the tallies, and the dirty
 * folio is counted for lru_gen_wakeup_flusher instead. */
static void writeback_sort(void **state)
{
	(void)state;
	/* A dirty file folio (0) and a clean one (1) in the oldest
	 * generation, memcg reclaim at priority 5, swappiness 0.  Both
	 * isolated (pgscan_file 2, file_taken 2) in the mm tree and in
	 * 6.12.117 alike — sort_folio re-files neither; shrink_folio_list
	 * frees 1 and activates 0 for the flushers (immediate reclaim,
	 * PG_reclaim, pgactivate 1, unqueued_dirty 1); it goes back active,
	 * to max_seq - 1 = 2 (the mm tree's lru_gen_folio_seq).  The mm
	 * tree's handle_reclaim_writeback fills sc->nr.dirty and taken;
	 * 6.12.117's evict_folios does not (its try_to_shrink_lruvec wakes
	 * the flushers from unqueued_dirty == file_taken). */
	const char *pols[2] = { "mglru", "mglru+k6.12-writeback" };
	for (int i = 0; i < 2; i++) {
		struct box b;
		box_open(&b, policy_find(pols[i]), 8, 0, 100, 0, 0);
		struct engine *e = &b.e;
		int memcg = box_memcg(&b);
		struct scan_control sc = sc_for(5, memcg);
		install(e, 0, PG_dirty);
		install(e, 1, 0);
		assert_int_equal(folio_seq(e, 0), 0);
		assert_int_equal(evict_folios(e, 64, memcg, &sc, 0), 2);
		assert_int_equal(e->vm[VM_pgscan_file], 2);
		assert_int_equal(e->vm[VM_pgsteal_file], 1);
		assert_int_equal(e->vm[VM_pgrefill], 0);
		assert_int_equal(e->vm[VM_nr_vmscan_immediate_reclaim], 1);
		assert_int_equal(e->vm[VM_pgactivate], 1);
		assert_int_equal(sc.nr.dirty, i ? 0 : 1);
		assert_int_equal(sc.nr.taken, i ? 0 : 2);
		assert_int_equal(sc.nr.unqueued_dirty, 1);
		assert_int_equal(sc.nr.file_taken, 2);
		assert_true(e->folio[0].flags & PG_reclaim);
		assert_true(e->folio[0].flags & PG_lru);
		assert_int_equal(folio_seq(e, 0), 2);
		assert_false(e->folio[1].flags & PG_resident);
		box_close(&b);
	}
}

/* A folio under read met by eviction (evict_folios has no lock test of
 * its own: isolate_folio takes it, shrink_folio_list's folio_trylock
 * fails).  File folios 0 and 1 read() into the oldest generation (seq 0
 * of 0..3), 0 still locked for its read (folio_start_read), memcg
 * reclaim at priority 5, swappiness 0: both isolated (pgscan_file 2);
 * shrink_folio_list frees 1 and keeps 0 unscanned (sc->nr_scanned 1);
 * 0, clean, inactive and unmapped, is retried once as a folio that may
 * have missed folio_rotate_reclaimable, kept again, and, as it would
 * rejoin the oldest generation (lru_gen_folio_seq: max_seq 3 + 1 -
 * MAX_NR_GENS = 0 = min_seq), goes back active: max_seq + 1 -
 * MIN_NR_GENS = seq 2 (lru_gen_add_folio clears PG_active as it files
 * it), still locked, with no pgactivate. */
static void evict_locked(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru"), 8, 0, 100, 0, 0);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct scan_control sc = sc_for(5, memcg);
	install(e, 0, 0);
	install(e, 1, 0);
	e->folio[0].flags |= PG_locked;
	assert_int_equal(folio_seq(e, 0), 0);
	assert_int_equal(evict_folios(e, 64, memcg, &sc, 0), 2);
	assert_int_equal(e->vm[VM_pgscan_file], 2);
	assert_int_equal(e->vm[VM_pgsteal_file], 1);
	assert_int_equal(e->vm[VM_pgactivate], 0);
	assert_int_equal(sc.nr_scanned, 1);
	assert_int_equal(sc.nr_reclaimed, 1);
	assert_false(e->folio[1].flags & PG_resident);
	assert_true((e->folio[0].flags & (PG_resident | PG_lru | PG_locked)) == (PG_resident | PG_lru | PG_locked));
	assert_false(e->folio[0].flags & PG_active);       /* lru_gen_add_folio clears it */
	assert_int_equal(folio_seq(e, 0), 2);
	assert_int_equal(e->node.nr_isolated[1], 0);
	box_close(&b);
}

/* 6.12.117's evict_folios (mglru+k6.12-gens): a survivor shrink_folio_list
 * wrote and left in writeback (PG_reclaim, not active: an asynchronous
 * swap write) keeps its flags and lands where lru_gen_add_folio puts a
 * writeback reclaim folio, max_seq - 1; a rejected one goes back active,
 * to max_seq.  Anon folios 0 and 1 faulted in (active: max_seq 3), aged
 * twice (max_seq 5, min_seq 3; 4 once the batch empties 3), swap on an
 * SSD (asynchronous writes),
 * swappiness 200: 0 is young (lru_gen_set_refs: KEEP; rejected, active:
 * seq 5), 1 not young and unmapped (a swap slot, pageout in flight:
 * PG_writeback and PG_reclaim, not active: seq 4). */
static void k612_writeback_survivor(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru+k6.12-gens"), 8, 8, 100, 100, 200);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
	struct scan_control sc = sc_for(5, memcg);
	char err[256];
	struct backing_params ssd;
	assert_int_equal(backing_parse("ssd", &ssd, NULL, err, sizeof(err)), 0);
	backing_free(&e->swap);            /* the box's zram, for an SSD */
	assert_int_equal(backing_init(&e->swap, &ssd), 0);
	install(e, 0, PG_swapbacked);
	install(e, 1, PG_swapbacked);
	e->folio[1].flags &= ~PG_mapped;
	assert_int_equal(folio_seq(e, 0), 3);
	assert_true(try_to_inc_max_seq(e, memcg, 3, 200, &sc));
	assert_true(try_to_inc_max_seq(e, memcg, 4, 200, &sc));
	assert_int_equal(lv->max_seq, 5);
	e->folio[0].flags |= PG_young;     /* touched since the agings */
	assert_int_equal(evict_folios(e, 64, memcg, &sc, 200), 2);
	assert_int_equal(lv->min_seq[LRU_GEN_ANON], 4);     /* seq 3 emptied */
	assert_int_equal(e->vm[VM_pgscan_anon], 2);
	assert_int_equal(e->vm[VM_pgsteal_anon], 0);
	assert_int_equal(e->vm[VM_pswpout], 1);
	assert_int_equal(e->folio[1].flags & (PG_writeback | PG_reclaim | PG_active),
			 PG_writeback | PG_reclaim);
	assert_int_equal(folio_seq(e, 1), 4);
	assert_int_equal(folio_seq(e, 0), 5);
	box_close(&b);
}

/* 200 clean file folios read() into the oldest of four generations,
 * memcg reclaim at priority 1 for 32 pages, swappiness 0.  The mm tree:
 * 200 >> 1 = 100 to scan, a batch isolates MIN_LRU_BATCH = 64 and frees
 * them, the goal is met: 64 stolen.  mglru+k6.12-loop (6.12.118 on): 100
 * to scan, 64 scanned, then should_abort_scan stops at the goal: 64
 * stolen.  With k6.12-no-abort (6.12 up to .117) memcg reclaim does not
 * stop at its goal; the scan number is recomputed, (200 - 64) >> 1 = 68,
 * and the second batch of 64 reaches it: 128 stolen.  No aging in any
 * (four generations). */
static void k612_loop(void **state)
{
	(void)state;
	const char *pols[3] = { "mglru", "mglru+k6.12-loop", "mglru+k6.12-loop+k6.12-no-abort" };
	for (int i = 0; i < 3; i++) {
		struct box b;
		box_open(&b, policy_find(pols[i]), 256, 0, 1000, 0, 0);
		struct engine *e = &b.e;
		int memcg = box_memcg(&b);
		struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
		struct scan_control sc = sc_for(1, memcg);
		for (uint32_t p = 0; p < 200; p++)
			install(e, p, 0);
		assert_false(try_to_shrink_lruvec(e, memcg, &sc));
		assert_int_equal(e->vm[VM_pgsteal_file], i == 2 ? 128 : 64);
		assert_int_equal(sc.nr_reclaimed, i == 2 ? 128 : 64);
		assert_int_equal(lv->max_seq, 3);
		box_close(&b);
	}
}

/* mglru+k6.12-refs: Linux 6.12's PG_referenced for shrink_folio_list.
 * 200 anon folios of one address space in seq 2 (max_seq 4), swappiness
 * 200; folios 0 and 1 young, 2 with PG_referenced from before, 50 young
 * and left on the LRU; a batch of three: 0, 1, 2.  isolate_folio clears
 * PG_referenced (2's too).  Folio 0 is young: look-around over [0, 64)
 * marks the isolated young 1 referenced (its young bit cleared) and,
 * without a walk context, activates 50 at once (pgactivate 1, refs
 * cleared; active, it lands where the mm tree's lru_gen_folio_seq puts an
 * active folio, max_seq - 1 = 3 — k6.12-gens would make it 4); 0 itself is a first sighting: PG_referenced, KEEP.  Folio
 * 1, mapped and referenced: kept unexamined ("folio_update_gen() tried to
 * promote this page?").  Folio 2: not young, no PG_referenced any more:
 * reclaimed (pgsteal_anon 1).  The mm tree: 50 only marked (first
 * sighting, pgactivate 0, still seq 2), 1 examined itself; 2 reclaimed. */
static void k612_refs(void **state)
{
	(void)state;
	const char *pols[2] = { "mglru", "mglru+k6.12-refs" };
	for (int i = 0; i < 2; i++) {
		struct box b;
		box_open(&b, policy_find(pols[i]), 200, 200, 1000, 1000, 200);
		struct engine *e = &b.e;
		int memcg = box_memcg(&b);
		struct scan_control sc = sc_for(11, memcg);
		for (uint32_t p = 0; p < 200; p++)
			install(e, p, 0);
		assert_true(try_to_inc_max_seq(e, memcg, 3, 200, &sc));
		e->folio[0].flags |= PG_young;
		e->folio[1].flags |= PG_young;
		e->folio[2].flags |= PG_referenced;
		e->folio[50].flags |= PG_young;
		sc.sim.mm_walk = 0;       /* lru_gen/enabled 0x0001: no walk context */
		assert_int_equal(evict_folios(e, 3, memcg, &sc, 200), 3);
		assert_int_equal(e->vm[VM_pgscan_anon], 3);
		assert_int_equal(e->vm[VM_pgsteal_anon], 1);
		assert_false(e->folio[2].flags & PG_resident);
		assert_true(e->folio[0].flags & PG_referenced);
		assert_true(e->folio[1].flags & PG_referenced);
		assert_false(e->folio[1].flags & PG_young);
		assert_false(e->folio[50].flags & PG_young);
		assert_int_equal(e->vm[VM_pgactivate], i ? 1 : 0);
		assert_int_equal(folio_seq(e, 50), i ? 3 : 2);
		assert_int_equal(!!(e->folio[50].flags & PG_referenced), !i);
		box_close(&b);
	}
}

/* mglru+k6.12-gens: Linux 6.12's lru_gen_add_folio ("four common cases",
 * from mm-mglru-fix-underprotected-page-cache).  Four generations (min_seq
 * 0, max_seq 3): a fault (active) lands in the youngest, 3, where the mm
 * tree puts it in max_seq - 1 = 2; a read() in min_seq + 1 = 1 (the mm
 * tree: the oldest, 0), PG_workingset changing nothing; under reclaim in
 * the oldest, 0; an anon folio outside the swap cache or a reclaim folio
 * under writeback in max_seq - 1 = 2; an anon folio in the swap cache is
 * "everything else": 1.  With three generations (file min_seq 1:
 * 1 + MIN_NR_GENS >= 3) a read lands in the oldest, 1; with two (2), in 2. */
static void k612_gens(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru+k6.12-gens"), 16, 8, 0, 0, 60);
	struct engine *e = &b.e;
	struct lru_gen_folio *lv = mglru_lruvec(e, box_memcg(&b));
	install(e, 0, 0);                         /* anon fault */
	assert_int_equal(folio_seq(e, 0), 3);
	install(e, 8, 0);                         /* file read */
	assert_int_equal(folio_seq(e, 8), 1);
	install(e, 9, PG_mapped);                 /* file fault */
	assert_int_equal(folio_seq(e, 9), 3);
	install(e, 10, PG_workingset);            /* file read, workingset restored */
	assert_int_equal(folio_seq(e, 10), 1);

	struct folio probe = { .flags = 0 };
	assert_int_equal(lru_gen_folio_seq_612(lv, &probe, 1), 0);
	probe.flags = PG_reclaim | PG_writeback;
	assert_int_equal(lru_gen_folio_seq_612(lv, &probe, 0), 2);
	probe.flags = PG_swapbacked;
	assert_int_equal(lru_gen_folio_seq_612(lv, &probe, 0), 2);
	probe.flags = PG_swapbacked | PG_swapcache;
	assert_int_equal(lru_gen_folio_seq_612(lv, &probe, 0), 1);
	probe.flags = PG_active | PG_workingset;
	assert_int_equal(lru_gen_folio_seq_612(lv, &probe, 0), 3);
	probe.flags = 0;
	lv->min_seq[1] = 1;
	assert_int_equal(lru_gen_folio_seq_612(lv, &probe, 0), 1);
	lv->min_seq[1] = 2;
	assert_int_equal(lru_gen_folio_seq_612(lv, &probe, 0), 2);
	lv->min_seq[1] = 0;
	box_close(&b);
}

/* mglru+k6.12-types: Linux 6.12's type selection and coupled min_seq.
 * get_type_to_scan (6.12) compares tier 0 only, anon at gain swappiness
 * and file at 200 - swappiness; anon refaulting 10% (100 of 1000), file
 * 30%: 300 * (1000 + 64) * 100 = 31,920,000 > 101 * 1000 * 100 =
 * 10,100,000 -> anon; then anon's tiers 1-3 against file's tier 0: no
 * refaults there -> every tier evictable (3).  Anon's tier 1 refaulting
 * 160 of 1000: 160 * 1064 * 100 = 17,024,000 > 301 * 1000 * 100 =
 * 30,100,000 is false -> tier 1 still evictable.  get_tier_idx (6.12, 1:2)
 * against tier 0 (100 of 1000): 160 * 1064 * 1 = 170,240 <= 101 * 1000 * 2
 * = 202,000 -> tier 1 evictable, tiers 2-3 without refaults too -> 3;
 * the mm tree's 2:3: 160 * 1064 * 2 = 340,480 > 303,000 -> 0.
 *
 * Then four anon folios faulted (max_seq - 1 = 2) and four file folios
 * read (the oldest, 0), max_seq 3.  try_to_inc_min_seq at 60: anon's 0
 * and 1 are empty (anon 2), file's 0 is not; 6.12 couples: anon =
 * min(2, 0) = 0, file = max(0, 0) = 0; the mm tree keeps the two within
 * one generation of max_seq - MIN_NR_GENS = 1: anon 1, file 0.  A file
 * eviction at swappiness 0 frees the four and retires file's 0 and 1
 * (file 2: anon stays, no coupling without swap); 6.12 reports 0 scanned
 * since file is down to MIN_NR_GENS, the mm tree the 4 it examined.  At
 * swappiness 1 6.12 takes anon first (its min_seq 0 is older than
 * file's 2), finds nothing there nor in file (MIN_NR_GENS), and the flush
 * moves anon to min(2, 2) = 2; the mm tree's flush moves anon from 1 to 2
 * as well.  After aging (max_seq 4) swappiness 1 scans file's empty
 * oldest generation first and falls back to anon in both: 4 isolated. */
static void k612_types(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru+k6.12-types"), 8, 4, 0, 1000, 60);
	struct lru_gen_folio *lv = mglru_lruvec(&b.e, box_memcg(&b));
	int tier = -1;
	set_stats(lv, 0, 100, 1000);
	set_stats(lv, 1, 300, 1000);
	assert_int_equal(get_type_to_scan_612(lv, 100, &tier), LRU_GEN_ANON);
	assert_int_equal(tier, 3);
	lv->refaulted[0][0][1] = 160;
	lv->evicted[0][0][1] = 1000;
	assert_int_equal(get_type_to_scan_612(lv, 100, &tier), LRU_GEN_ANON);
	assert_int_equal(tier, 3);
	assert_int_equal(get_tier_idx_612(lv, LRU_GEN_ANON), 3);
	assert_int_equal(get_tier_idx(lv, LRU_GEN_ANON), 0);
	set_stats(lv, 0, 0, 0);
	set_stats(lv, 1, 0, 0);
	box_close(&b);

	const char *pols[2] = { "mglru", "mglru+k6.12-types" };
	for (int i = 0; i < 2; i++) {
		box_open(&b, policy_find(pols[i]), 8, 4, 100, 1000, 60);
		struct engine *e = &b.e;
		int memcg = box_memcg(&b);
		lv = mglru_lruvec(e, memcg);
		struct scan_control sc = sc_for(5, memcg);
		for (uint32_t p = 0; p < 8; p++)
			install(e, p, 0);
		assert_int_equal(folio_seq(e, 0), 2);
		assert_int_equal(folio_seq(e, 4), 0);
		assert_int_equal(try_to_inc_min_seq(e, lv, 60), !i);
		assert_int_equal(lv->min_seq[LRU_GEN_ANON], i ? 0 : 1);
		assert_int_equal(lv->min_seq[LRU_GEN_FILE], 0);

		assert_int_equal(evict_folios(e, 64, memcg, &sc, 0), i ? 0 : 4);
		assert_int_equal(e->vm[VM_pgsteal_file], 4);
		assert_int_equal(lv->min_seq[LRU_GEN_ANON], i ? 0 : 1);
		assert_int_equal(lv->min_seq[LRU_GEN_FILE], 2);

		assert_int_equal(evict_folios(e, 64, memcg, &sc, 1), 0);
		assert_int_equal(e->vm[VM_pgscan_anon], 0);
		assert_int_equal(lv->min_seq[LRU_GEN_ANON], 2);
		assert_int_equal(lv->min_seq[LRU_GEN_FILE], 2);

		assert_true(try_to_inc_max_seq(e, memcg, 3, 1, &sc));
		evict_folios(e, 64, memcg, &sc, 1);
		assert_int_equal(e->vm[VM_pgscan_anon], 4);
		box_close(&b);
	}
}

/* isolate_folios: swappiness 60 with no refaults picks file; a memcg
 * with no file folios scans nothing there and falls back to anon at once
 * (priority 5) in the baseline and in mglru+swappiness (which falls back
 * from a type with no folios at all); mglru+high-prio-fallback (the RFC)
 * scans nothing above priority 0 and falls back only there. */
static void fallback_priority(void **state)
{
	(void)state;
	const struct reclaim_policy *pols[4] = { policy_find("mglru"), policy_find("mglru+swappiness"),
						 policy_find("mglru+high-prio-fallback"),
						 policy_find("mglru+swappiness+high-prio-fallback") };
	const int want[4] = { 2, 2, 0, 2 };
	for (int i = 0; i < 4; i++) {
		assert_non_null(pols[i]);
		struct box b;
		box_open(&b, pols[i], 8, 8, 100, 1000, 60);
		struct engine *e = &b.e;
		int memcg = box_memcg(&b);
		struct scan_control sc = sc_for(5, memcg);
		install(e, 0, 0);
		install(e, 1, 0);
		assert_true(try_to_inc_max_seq(e, memcg, 3, 60, &sc));
		evict_folios(e, 64, memcg, &sc, 60);
		assert_int_equal(e->vm[VM_pgscan_anon], want[i]);
		sc.priority = 0;
		evict_folios(e, 64, memcg, &sc, 60);
		assert_int_equal(e->vm[VM_pgscan_anon], 2);
		box_close(&b);
	}
}

/* lru_gen_look_around: the evicted folio's young PTE is the reference
 * shrink_folio_list sees; young neighbours of the same memcg within the
 * 64-page window are treated as the walk would.  Without a walk context a
 * neighbour seen before (PG_referenced) is promoted with folio_activate
 * (PGACTIVATE); with one (kswapd) its gen field moves in place. */
static void look_around(void **state)
{
	(void)state;
	for (int walk = 0; walk <= 1; walk++) {
		struct box b;
		box_open(&b, policy_find("mglru"), 200, 200, 1000, 1000, 200);
		struct engine *e = &b.e;
		int memcg = box_memcg(&b);
		struct scan_control sc = sc_for(11, memcg);
		for (uint32_t p = 0; p < 200; p++)
			install(e, p, 0);
		assert_true(try_to_inc_max_seq(e, memcg, 3, 200, &sc));   /* all in seq 2, max 4 */
		e->folio[50].flags |= PG_young;                  /* in the window: first sighting */
		e->folio[51].flags |= PG_young | PG_referenced;  /* second: promote */
		e->folio[150].flags |= PG_young | PG_referenced; /* out of the window */
		e->folio[0].flags |= PG_young;                   /* the folio evicted first */
		sc.sim.mm_walk = walk;
		/* evict exactly folio 0 (the tail of the oldest list: installed first) */
		assert_int_equal(evict_folios(e, 1, memcg, &sc, 200), 1);
		/* folio 0: first sighting, KEEP */
		assert_true(e->folio[0].flags & PG_referenced);
		/* window of folio 0 (page 0): [0, 64) */
		assert_false(e->folio[50].flags & PG_young);
		assert_true(e->folio[50].flags & PG_referenced);
		assert_false(e->folio[51].flags & PG_young);
		assert_true(e->folio[51].flags & PG_workingset);
		assert_int_equal(folio_seq(e, 51), 4);
		assert_true(e->folio[150].flags & PG_young);
		if (walk) {
			assert_int_equal(e->vm[VM_pgactivate], 0);
			assert_int_equal(e->folio[51].lru >> 1, 2);     /* lazily: still on gen 2 */
		} else {
			assert_int_equal(e->vm[VM_pgactivate], 1);
			assert_int_equal(e->folio[51].lru >> 1, 0);     /* moved to gen 4 % 4 */
		}
		box_close(&b);
	}
}

/* lru_gen_look_around runs in the address space whose PTE was young
 * (folio_referenced_one, for each VMA mapping the folio): 200 file pages,
 * all cached and aged, mapped by process A (proc 0) and B (proc 1).  The
 * folio evicted first, 199 (the page cache's oldest list's tail: the last
 * installed), is young in B's PTE only, so look-around walks B's page
 * table, the window [167, 231) around it: page 180, young in both, loses
 * B's accessed bit and is marked (first sighting: PG_referenced), A's bit
 * untouched; page 190, young in A's PTE only, is not young in B's page
 * table and stays as it was. */
static void look_around_own_mm(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru"), 200, 0, 1000, 1000, 1);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct scan_control sc = sc_for(11, memcg);
	for (uint32_t p = 0; p < 200; p++) {
		install(e, p, 0);
		assert_int_equal(folio_add_file_rmap_pte(e, p, 0), 1);   /* A's PTE */
		assert_int_equal(folio_add_file_rmap_pte(e, p, 1), 1);   /* B's */
		folio_pte_mkold(e, p, 0);
		folio_pte_mkold(e, p, 1);
	}
	assert_true(try_to_inc_max_seq(e, memcg, 3, 1, &sc));
	assert_true(folio_pte_mkyoung(e, 199, 1));
	assert_true(folio_pte_mkyoung(e, 180, 0));
	assert_true(folio_pte_mkyoung(e, 180, 1));
	assert_true(folio_pte_mkyoung(e, 190, 0));
	assert_int_equal(evict_folios(e, 1, memcg, &sc, 1), 1);
	assert_true(e->folio[199].flags & PG_resident);           /* kept */
	assert_false(folio_pte_young(e, 199, 1));
	assert_false(folio_pte_young(e, 180, 1));
	assert_true(folio_pte_young(e, 180, 0));
	assert_true(e->folio[180].flags & PG_referenced);
	assert_true(folio_pte_young(e, 190, 0));
	assert_false(e->folio[190].flags & PG_referenced);
	box_close(&b);
}

/* ---- mglru+iso-throttle ----------------------------------------------------------------- */

struct throttle_case {
	struct engine *e;
	int memcg, swappiness;
	struct scan_control sc;
	unsigned allowed;
	int fatal;
};

static void throttle_thread(void *arg)
{
	struct throttle_case *c = arg;
	c->allowed = throttle_evictable_types(c->e, c->memcg, c->swappiness, &c->sc, &c->fatal);
}

/* Runs the throttle in a coroutine (reclaim_throttle sleeps only there). */
static unsigned throttle_in_thread(struct throttle_case *c)
{
	struct sim_thread th = { 0 };
	struct sim_event ev;
	assert_int_equal(sim_thread_start(&c->e->sim, &th, throttle_thread, c), 0);
	while (th.running && sim_next(&c->e->sim, &ev))
		if (ev.kind == 0 && (struct sim_thread *)(uintptr_t)ev.arg == &th)
			sim_thread_resume(&c->e->sim, &th, ev.id);
	sim_thread_free(&th);
	return c->allowed;
}

static void iso_throttle(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru+iso-throttle"), 8, 4, 0, 1000, 60);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
	struct throttle_case c = { .e = e, .memcg = memcg, .swappiness = 60, .sc = sc_for(11, memcg) };
	const unsigned both = 3, anon = 1, file = 2;

	/* 1600 anon pages, 800 file pages on the lists (sizes only). */
	lv->nr_pages[2][0] = 1600;
	lv->nr_pages[2][1] = 800;
	/* The threshold with IO and FS: (1600 >> 3) / 2 = 100; (800 >> 3) / 2 = 50. */
	lv->nr_isolated[0] = 100;
	lv->nr_isolated[1] = 50;
	assert_false(lru_gen_too_many_isolated(e, lv, 0, &c.sc));
	assert_int_equal(throttle_in_thread(&c), both);
	lv->nr_isolated[0] = 101;
	assert_true(lru_gen_too_many_isolated(e, lv, 0, &c.sc));
	assert_int_equal(throttle_in_thread(&c), file);
	/* GFP_NOIO/NOFS: the unshifted threshold, 800. */
	c.sc.gfp_io_fs = 0;
	assert_false(lru_gen_too_many_isolated(e, lv, 0, &c.sc));
	c.sc.gfp_io_fs = 1;
	assert_int_equal(e->vm[VM_mm_vmscan_throttled], 0);

	/* Every evictable type over-isolated: one sleep (HZ/50), then 0. */
	lv->nr_isolated[1] = 51;
	simtime_t t0 = e->sim.now;
	assert_int_equal(throttle_in_thread(&c), 0);
	assert_int_equal(e->vm[VM_mm_vmscan_throttled], 1);
	assert_int_equal(e->sim.now - t0, NSEC_PER_SEC / 50);
	assert_false(c.fatal);

	/* kswapd is exempt: both allowed, no sleep. */
	c.sc.sim.kswapd = 1;
	assert_int_equal(throttle_in_thread(&c), both);
	c.sc.sim.kswapd = 0;

	/* A type with nothing evictable is never allowed (file empty). */
	lv->nr_pages[2][1] = 0;
	lv->nr_isolated[1] = 0;
	lv->nr_isolated[0] = 0;
	assert_int_equal(throttle_in_thread(&c), anon);
	/* ... and if that leaves the only evictable type over-isolated, sleep. */
	lv->nr_isolated[0] = 101;
	assert_int_equal(throttle_in_thread(&c), 0);
	assert_int_equal(e->vm[VM_mm_vmscan_throttled], 2);
	/* Swappiness 0: only file is evictable, and it is empty: 0 at once. */
	c.swappiness = 0;
	t0 = e->sim.now;
	assert_int_equal(throttle_in_thread(&c), 0);
	assert_int_equal(e->sim.now, t0);
	assert_int_equal(e->vm[VM_mm_vmscan_throttled], 2);
	/* Nothing evictable at all: 0 at once, kswapd included. */
	c.swappiness = 60;
	lv->nr_pages[2][0] = 0;
	c.sc.sim.kswapd = 1;
	assert_int_equal(throttle_in_thread(&c), 0);
	c.sc.sim.kswapd = 0;
	assert_int_equal(throttle_in_thread(&c), 0);
	assert_int_equal(e->vm[VM_mm_vmscan_throttled], 2);
	assert_int_equal(e->sim.now, t0);
	lv->nr_isolated[0] = 0;
	box_close(&b);
}

/* ---- mglru+scan-balance ---------------------------------------------------------------------- */

/* Anon 4096 pages (96 isolated), file 8192 (192 isolated), priority 6:
 * 4000 >> 6 = 62 and 8000 >> 6 = 125.  Swappiness 60, no costs: 60:140,
 * 62 * 60 / 200 = 18, 125 * 140 / 200 = 87.  Costs 100/300: ap 143, fp
 * 239: 62 * 143 / 382 = 23, 125 * 239 / 382 = 78.  Priority 0: equal.  No
 * swap (swappiness 0 from get_swappiness): file only. */
static void scan_balance(void **state)
{
	(void)state;
	struct box b;
	box_open(&b, policy_find("mglru+scan-balance"), 8, 4, 0, 1000, 60);
	struct engine *e = &b.e;
	int memcg = box_memcg(&b);
	struct lru_gen_folio *lv = mglru_lruvec(e, memcg);
	struct scan_control sc = sc_for(6, memcg);
	uint64_t nr[2];

	lv->nr_pages[2][0] = 4096;
	lv->nr_pages[2][1] = 8192;
	lv->nr_isolated[0] = 96;
	lv->nr_isolated[1] = 192;
	lru_gen_scan_balance(e, memcg, &sc, 60, nr);
	assert_int_equal(nr[0], 18);
	assert_int_equal(nr[1], 87);
	e->memcgs[memcg].lruvec.anon_cost = 100;
	e->memcgs[memcg].lruvec.file_cost = 300;
	lru_gen_scan_balance(e, memcg, &sc, 60, nr);
	assert_int_equal(nr[0], 23);
	assert_int_equal(nr[1], 78);
	sc.priority = 0;
	lru_gen_scan_balance(e, memcg, &sc, 60, nr);
	assert_int_equal(nr[0], 4000);
	assert_int_equal(nr[1], 8000);
	sc.priority = 6;
	lru_gen_scan_balance(e, memcg, &sc, 0, nr);
	assert_int_equal(nr[0], 0);
	assert_int_equal(nr[1], 125);
	/* swappiness 200 still splits by the fraction: file gets nothing. */
	e->memcgs[memcg].lruvec.anon_cost = e->memcgs[memcg].lruvec.file_cost = 0;
	lru_gen_scan_balance(e, memcg, &sc, 200, nr);
	assert_int_equal(nr[0], 62);
	assert_int_equal(nr[1], 0);
	lv->nr_pages[2][0] = lv->nr_pages[2][1] = 0;
	lv->nr_isolated[0] = lv->nr_isolated[1] = 0;
	box_close(&b);
}

/* ---- policy names ------------------------------------------------------------------------------ */

static void policy_names(void **state)
{
	(void)state;
	/* A composition that names a listed policy is that policy. */
	const struct reclaim_policy *named = NULL;
	for (int i = 0; reclaim_policies[i]; i++)
		if (strcmp(reclaim_policies[i]->name, "mglru+swappiness+iso-throttle") == 0)
			named = reclaim_policies[i];
	assert_non_null(named);
	assert_true(policy_find("mglru")->lru_gen);
	assert_int_equal(policy_find("mglru")->variants, 0);
	assert_false(policy_find("classic")->lru_gen);
	assert_ptr_equal(policy_find("mglru+swappiness+iso-throttle"), named);
	assert_ptr_equal(policy_find("mglru+iso-throttle+swappiness"), named);
	const struct reclaim_policy *p = policy_find("mglru+scan-balance+iso-throttle+swappiness");
	assert_non_null(p);
	assert_string_equal(p->name, "mglru+swappiness+iso-throttle+scan-balance");
	assert_ptr_equal(policy_find("mglru+iso-throttle+scan-balance+swappiness"), p);
	p = policy_find("mglru+sw-boost+sw-age-pref");
	assert_non_null(p);
	assert_string_equal(p->name, "mglru+sw-age-pref+sw-boost");
	assert_int_equal(p->variants, PATCH_SW_AGE_PREF | PATCH_SW_BOOST);
	assert_true(p->lru_gen);
	/* every sub-rule named is the full set */
	assert_ptr_equal(policy_find("mglru+sw-age-pref+sw-no-gentle+sw-boost+sw-exhaustion+"
				     "sw-retry-race+sw-no-inversion+sw-batched+sw-imbalance"),
			 policy_find("mglru+swappiness"));
	/* the kernel readings: k6.12 is its eight parts; "as captured" */
	p = policy_find("mglru+k6.12-loop+k6.12-counters+k6.12-writeback+k6.12-types+k6.12-gens+"
			"k6.12-refs+k6.12-tiers+k6.12-no-abort");
	assert_non_null(p);
	assert_string_equal(p->name, "mglru+k6.12");
	assert_ptr_equal(p, policy_find("mglru+k6.12"));
	assert_int_equal(p->variants, PATCH_K612_COUNTERS | PATCH_K612_WRITEBACK | PATCH_K612_LOOP |
				      PATCH_K612_TYPES | PATCH_K612_GENS | PATCH_K612_REFS |
				      PATCH_K612_TIERS | PATCH_K612_NO_ABORT);
	/* 6.12.118 on: everything of k6.12 but the memcg reclaim past its goal */
	p = policy_find("mglru+k6.12-no-abort+k6.12.118");
	assert_non_null(p);
	assert_string_equal(p->name, "mglru+k6.12");
	p = policy_find("mglru+no-mm-walk+k6.12.118");
	assert_non_null(p);
	assert_string_equal(p->name, "mglru+k6.12.118+no-mm-walk");
	assert_false(p->variants & PATCH_K612_NO_ABORT);
	assert_ptr_equal(mglru_policy_as_captured("6.12.118", "0x0001"), p);
	assert_ptr_equal(mglru_policy_as_captured("6.12.120-vmreplay", "0x0001"), p);
	p = policy_find("mglru+k6.12-gens+k6.12-refs");
	assert_non_null(p);
	assert_string_equal(p->name, "mglru+k6.12-gens+k6.12-refs");
	p = policy_find("mglru+no-mm-walk+k6.12");
	assert_non_null(p);
	assert_string_equal(p->name, "mglru+k6.12+no-mm-walk");
	assert_ptr_equal(mglru_policy_as_captured("6.12.117", "0x0001"), p);
	assert_ptr_equal(mglru_policy_as_captured("6.1.0-28-amd64", "0x0007"), policy_find("mglru+k6.12"));
	assert_ptr_equal(mglru_policy_as_captured("6.18.4", "0x0007"), policy_find("mglru"));
	assert_ptr_equal(mglru_policy_as_captured("7.0", "0x0001"), policy_find("mglru+no-mm-walk"));
	assert_ptr_equal(mglru_policy_as_captured(NULL, NULL), policy_find("mglru"));
	assert_ptr_equal(mglru_policy_as_captured("?", "none"), policy_find("mglru"));
	assert_ptr_equal(mglru_policy_as_captured("6.12.1", "0x0003"), policy_find("mglru+k6.12"));
	assert_null(policy_find("mglru+"));
	assert_null(policy_find("mglru+bogus"));
	assert_null(policy_find("mglru+swappiness+swappiness"));
	assert_null(policy_find("mglruish"));
	assert_null(policy_find("classic+swappiness"));
}

/* ---- whole replays ---------------------------------------------------------------------------- */

/* Four tasks store to 3000 anon pages twice over (then re-read a hot
 * thousand) in a memcg of 1000 pages with zram: every MGLRU policy keeps
 * its invariants, reclaims through the generations and finishes. */
static void replay_invariants(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_mglru_r.%d.vmr", (int)getpid());
	enum { N = 3000 };
	struct vmr_rec r[4][4];
	struct fixture_task t[4];
	uint8_t *file = calloc(N + 600, 1);
	for (uint32_t i = N; i < N + 600; i++)
		file[i] = 1;
	for (int i = 0; i < 4; i++) {
		r[i][0] = fixture_run((uint32_t)i * 750, VMR_OP_STORE, 0, 750);
		r[i][1] = fixture_run(N + (uint32_t)i * 150, VMR_OP_READ, 1, 150);
		r[i][2] = fixture_run((uint32_t)i * 750, VMR_OP_STORE, 0, 750);
		r[i][3] = fixture_run((uint32_t)i * 250, VMR_OP_LOAD, 0, 250);
		t[i] = (struct fixture_task){ (uint64_t)i * 1000, r[i], 4 };
	}
	assert_int_equal(fixture_vmr(path, t, 4, N + 600, file, "page_size\t4096\n"), 0);
	free(file);
	struct vmr v;
	char err[256];
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	const char *names[] = { "mglru", "mglru+swappiness", "mglru+iso-throttle", "mglru+scan-balance",
				"mglru+swappiness+iso-throttle", "mglru+swappiness+scan-balance+sw-boost-gain" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct engine_params p = { .policy = policy_find(names[i]), .swappiness = 100, .page_cluster = 3, .vma_ra_enabled = 1,
					   .memory_limit = 1000 * 4096, .node_memory = 1ull << 30,
					   .swap_size = 8192 * 4096, .seed = 1 };
		assert_non_null(p.policy);
		backing_parse("zram", &p.swap, NULL, err, sizeof(err));
		backing_parse("ssd", &p.file, NULL, err, sizeof(err));
		struct engine e;
		assert_int_equal(engine_init(&e, &v, &p, err, sizeof(err)), 0);
		assert_int_equal(engine_run(&e), 0);
		if (mglru_check(&e, err, sizeof(err)) != 0)
			fail_msg("%s: %s", names[i], err);
		if (getenv("MGLRU_TEST_DEBUG"))
			for (int k = 0; k < NR_VM_ITEMS; k++)
				fprintf(stderr, "%s %s %llu\n", names[i], vmstat_text[k], (unsigned long long)e.vm[k]);
		assert_int_equal(e.vm[VM_oom_kill], 0);
		uint64_t acc = 0;
		for (uint32_t k = 0; k < e.nr_tasks; k++)
			acc += e.tasks[k].accesses;
		assert_int_equal(acc, 4 * (750 + 150 + 750 + 250));
		assert_true(e.vm[VM_pgsteal_anon] > 0);
		assert_true(e.vm[VM_pgscan_anon] >= e.vm[VM_pgsteal_anon]);
		assert_true(e.vm[VM_pgscan_file] >= e.vm[VM_pgsteal_file]);
		/* memcg reclaim only: every scan is a direct reclaimer's */
		assert_int_equal(e.vm[VM_pgscan_kswapd], 0);
		assert_int_equal(e.vm[VM_pgscan_direct], e.vm[VM_pgscan_anon] + e.vm[VM_pgscan_file]);
		assert_int_equal(e.vm[VM_pgsteal_direct], e.vm[VM_pgsteal_anon] + e.vm[VM_pgsteal_file]);
		assert_true(e.vm[VM_nr_isolated_peak] > 0);
		assert_int_equal(e.node.nr_isolated[0] + e.node.nr_isolated[1], 0);
		engine_free(&e);
	}
	vmr_close(&v);
	if (!getenv("MGLRU_TEST_DEBUG"))
		unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gen_arithmetic),
		cmocka_unit_test(insertion),
		cmocka_unit_test(refault),
		cmocka_unit_test(fault_readahead),
		cmocka_unit_test(fault_readahead_file),
		cmocka_unit_test(fault_around),
		cmocka_unit_test(type_to_scan),
		cmocka_unit_test(tier_idx),
		cmocka_unit_test(swappiness_boost),
		cmocka_unit_test(run_aging),
		cmocka_unit_test(aging_walk),
		cmocka_unit_test(no_mm_walk),
		cmocka_unit_test(inc_min_seq_order),
		cmocka_unit_test(inc_min_seq_batches),
		cmocka_unit_test(inc_min_seq_tiers),
		cmocka_unit_test(imbalance),
		cmocka_unit_test(exhaustion),
		cmocka_unit_test(evict_outcomes),
		cmocka_unit_test(writeback_sort),
		cmocka_unit_test(evict_locked),
		cmocka_unit_test(k612_writeback_survivor),
		cmocka_unit_test(k612_loop),
		cmocka_unit_test(k612_types),
		cmocka_unit_test(k612_gens),
		cmocka_unit_test(k612_refs),
		cmocka_unit_test(k612_tiers),
		cmocka_unit_test(k612_protect_order),
		cmocka_unit_test(fallback_priority),
		cmocka_unit_test(look_around),
		cmocka_unit_test(look_around_own_mm),
		cmocka_unit_test(iso_throttle),
		cmocka_unit_test(scan_balance),
		cmocka_unit_test(policy_names),
		cmocka_unit_test(replay_invariants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
