/*
 * engine_fixture.h — a small simulated machine for the policy tests
 * (test_classic.c, test_mglru.c): a trivial trace, an engine around it,
 * and ways to put pages in memory and to reclaim at a chosen priority.
 * Include after cmocka.h and vmr_fixture.h.
 */
#ifndef ENGINE_FIXTURE_H
#define ENGINE_FIXTURE_H

#include <stdlib.h>
#include <unistd.h>

#include "sim/engine.h"
#include "mm/internal.h"
#include "mm/policy.h"

/* A machine around a trivial trace of NR_PAGES pages (FILE_FROM.. are
 * file pages; anon pages share one address space, page i at virtual page
 * i), with a memcg limit of LIMIT pages (0: none), SWAP pages of zram, a
 * 1 GiB node and an SSD for files. */
struct box {
	char path[64];
	struct vmr v;
	struct engine e;
};

static inline void box_open(struct box *b, const struct reclaim_policy *pol, uint32_t nr_pages,
			    uint32_t file_from, uint64_t limit, uint64_t swap, int swappiness)
{
	snprintf(b->path, sizeof(b->path), "/tmp/engine_fixture.%d.vmr", (int)getpid());
	uint8_t *file = calloc(nr_pages, 1);
	for (uint32_t i = file_from; i < nr_pages; i++)
		file[i] = 1;
	struct vmr_rec r = fixture_rec(0, file_from ? VMR_OP_STORE : VMR_OP_READ, !file_from, 0);
	struct fixture_task t = { 0, &r, 1 };
	assert_int_equal(fixture_vmr(b->path, &t, 1, nr_pages, file, "page_size\t4096\n"), 0);
	free(file);
	char err[256];
	assert_int_equal(vmr_open(&b->v, b->path, err, sizeof(err)), 0);
	struct engine_params p = { .policy = pol, .swappiness = swappiness, .page_cluster = 3, .vma_ra_enabled = 1,
				   .memory_limit = limit * 4096, .node_memory = 1ull << 30,
				   .swap_size = swap * 4096, .seed = 1 };
	assert_int_equal(backing_parse("zram", &p.swap, NULL, err, sizeof(err)), 0);
	assert_int_equal(backing_parse("ssd", &p.file, NULL, err, sizeof(err)), 0);
	assert_int_equal(engine_init(&b->e, &b->v, &p, err, sizeof(err)), 0);
}

static inline void box_free(struct box *b)
{
	engine_free(&b->e);
	vmr_close(&b->v);
	unlink(b->path);
}

/* Puts page PFN in memory on the trace's memcg as a fault (anon: mapped,
 * not young, dirty) or a read() (file: not mapped) would, then adds it to
 * the LRU through the policy. */
static inline void install(struct engine *e, uint32_t pfn, uint32_t extra_flags)
{
	struct folio *f = &e->folio[pfn];
	int memcg = e->nr_memcgs - 1;
	f->flags |= PG_resident | PG_seen | extra_flags;
	if (f->flags & PG_swapbacked)
		f->flags |= PG_mapped | PG_dirty;
	f->memcg = (uint16_t)memcg;
	f->owner = 0;
	e->procs[0].rss++;
	e->node.nr_free--;
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		e->memcgs[m].usage++;
	/* A fault maps the page (lru_gen_in_fault), a read() does not. */
	e->in_lru_fault = !!(f->flags & PG_mapped);
	folio_add_lru(e, pfn);
	e->in_lru_fault = 0;
}

/* A scan_control as the reclaim drivers set it up, at PRIORITY for
 * TARGET (-1: global reclaim), by no task. */
static inline struct scan_control sc_for(int priority, int target)
{
	struct scan_control sc = { 0 };
	sc.priority = priority;
	sc.target_mem_cgroup = target;
	sc.may_swap = sc.may_unmap = sc.may_writepage = sc.gfp_io_fs = 1;
	sc.nr_to_reclaim = SWAP_CLUSTER_MAX;
	sc.sim.task = UINT32_MAX;
	return sc;
}

/* A whole replay: writes PATH with task T over NR_PAGES pages (KINDS as
 * fixture_vmr's FILE_PAGES, may be NULL), opens it into V and runs it on
 * E with POL, swappiness 60, a memcg limit of LIMIT pages, SWAP pages of
 * SWAP_DEV, a 1 GiB node and an SSD for files. */
/* The memory controller of replay_fixture's machine: cgroup v2 unless a
 * test sets this (cgroup v1 has no dirty throttling: reclaim waits). */
static int fixture_cgroup_v1;
/* The file system's device of replay_fixture's machine (a test may set
 * a window's read time on it). */
static const char *fixture_file_dev = "ssd";
/* The gfp of a THP fault's charge on replay_fixture's machine (GFP_*,
 * mm/mm.h; 0: it may not reclaim), and whether it keeps every reclaim
 * record (engine.records.all). */
static unsigned fixture_thp_gfp;
static int fixture_keep_records;

static inline void replay_fixture(struct engine *e, struct vmr *v, const char *path,
				  const struct reclaim_policy *pol, const struct fixture_task *t,
				  uint64_t nr_pages, const uint8_t *kinds, uint64_t limit,
				  uint64_t swap, const char *swap_dev)
{
	assert_int_equal(fixture_vmr(path, t, 1, nr_pages, kinds, "page_size\t4096\n"), 0);
	char err[256];
	assert_int_equal(vmr_open(v, path, err, sizeof(err)), 0);
	struct engine_params p = { .policy = pol, .swappiness = 60, .page_cluster = 3, .vma_ra_enabled = 1,
				   .cgroup_v1 = fixture_cgroup_v1, .thp_gfp = fixture_thp_gfp,
				   .keep_records = fixture_keep_records,
				   .memory_limit = limit * 4096, .node_memory = 1ull << 30,
				   .swap_size = swap * 4096, .seed = 1 };
	assert_int_equal(backing_parse(swap_dev, &p.swap, NULL, err, sizeof(err)), 0);
	assert_int_equal(backing_parse(fixture_file_dev, &p.file, NULL, err, sizeof(err)), 0);
	assert_int_equal(engine_init(e, v, &p, err, sizeof(err)), 0);
	assert_int_equal(engine_run(e), 0);
}

#endif
