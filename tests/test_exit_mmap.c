/*
 * test_exit_mmap.c — an exiting process walks its own pages only: on a
 * trace of 10,000 short processes over 5 M pages, in a memcg too small
 * for two of them, exit_mmap looks at exactly the pages those processes
 * owned (a walk of all memory per exit would look at 10,000 x 5 M), and
 * frees every one of them; a page one
 * process faulted in from another's address space is freed by its new
 * owner's exit, not its old one's.
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
#include "mm/policy.h"
#include "synth_vmr.h"

#define NR_PROCS 10000u
#define PAGES    512u
#define NR_FILE  64u

static void params(struct engine_params *p, const char *policy, uint64_t limit_pages)
{
	char err[256];
	*p = (struct engine_params){ .policy = policy_find(policy), .swappiness = 60, .page_cluster = 3,
				     .vma_ra_enabled = 1, .memory_limit = limit_pages * 4096,
				     .node_memory = 32ull << 30, .swap_size = 1ull << 30, .seed = 1 };
	assert_int_equal(backing_parse("zram", &p->swap, NULL, err, sizeof(err)), 0);
	assert_int_equal(backing_parse("ssd", &p->file, NULL, err, sizeof(err)), 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The anonymous pages of the trace whose address space is one of its
 * processes', from the page table and the task table alone. */
static uint64_t owned_pages(const struct vmr *v)
{
	uint64_t nr = v->hdr->nr_tasks, n = 0;
	uint64_t *pid = malloc(nr * sizeof(*pid));
	assert_non_null(pid);
	for (uint64_t t = 0; t < nr; t++)
		pid[t] = v->tasks[t].pid;
	qsort(pid, nr, sizeof(*pid), cmp_u64);
	for (uint64_t i = 0; i < v->hdr->nr_pages; i++)
		if (v->pages[i].kind == VMR_PAGE_ANON &&
		    bsearch(&v->pages[i].space, pid, nr, sizeof(*pid), cmp_u64))
			n++;
	free(pid);
	return n;
}

static void replay_short_processes(const char *policy)
{
	char path[64], err[256];
	snprintf(path, sizeof(path), "/tmp/test_exit_mmap.%d.vmr", (int)getpid());
	assert_int_equal(synth_procs(path, NR_PROCS, PAGES, NR_FILE, 2000000, 100000, err, sizeof(err)), 0);
	struct vmr v;
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	assert_int_equal(v.hdr->nr_pages, (uint64_t)NR_PROCS * PAGES + NR_FILE);
	uint64_t owned = owned_pages(&v);
	assert_int_equal(owned, (uint64_t)NR_PROCS * PAGES);
	struct engine_params p;
	/* A process every 2 ms stores 512 pages in 3.2 ms, in a memcg of
	 * 768 pages: reclaim swaps some of each one's out (no OOM kill,
	 * which would end a process without exit_mmap), so exits find
	 * resident, swapped and shadowed pages. */
	params(&p, policy, 768);
	struct engine *e = malloc(sizeof(*e));
	assert_non_null(e);
	assert_int_equal(engine_init(e, &v, &p, err, sizeof(err)), 0);
	assert_int_equal(engine_run(e), 0);
	assert_int_equal(e->tasks_done, e->nr_tasks);
	assert_int_equal(e->nr_procs, NR_PROCS);
	assert_true(e->vm[VM_pswpout] > 0);
	assert_int_equal(e->vm[VM_oom_kill], 0);
	/* Every process's pages were looked at once, nothing else. */
	assert_int_equal(e->exit_mmap_visited, owned);
	/* And freed: nothing anonymous is left in memory or in swap. */
	for (uint32_t i = 0; i < NR_PROCS * PAGES; i++)
		if (e->folio[i].flags & (PG_resident | PG_swapped | PG_swapcache))
			fail_msg("page %u outlived its process (flags %#x)", i, e->folio[i].flags);
	assert_int_equal(e->swap_used, 0);
	for (uint32_t i = 0; i < e->nr_procs; i++) {
		/* rss: what it brought in and still holds; the file page it
		 * read stays cached after it (page cache outlives a reader) */
		uint64_t cached = 0;
		for (uint32_t q = NR_PROCS * PAGES; q < NR_PROCS * PAGES + NR_FILE; q++)
			cached += e->folio[q].owner == i && (e->folio[q].flags & PG_resident);
		assert_int_equal(e->procs[i].rss, cached);
		assert_int_equal(e->procs[i].swap, 0);
		assert_false(e->procs[i].alive);
	}
	engine_free(e);
	free(e);
	vmr_close(&v);
	unlink(path);
}

static void short_processes_classic(void **state)
{
	(void)state;
	replay_short_processes("classic");
}

static void short_processes_mglru(void **state)
{
	(void)state;
	replay_short_processes("mglru");
}

/* Process A (pid 10) stores its pages 0-3 and frees page 1; process B
 * (pid 20), 1 ms later, stores its pages 4-7 and then page 1, which a
 * fault brings back in for B; B exits at once, A at 10 ms.  B's exit
 * looks at 4, 5, 6, 7 and 1 and frees them; A's at 0-3 and frees 0, 2
 * and 3 (page 1 is B's).  Frees: 1 (A's FREE) + 5 + 3. */
static void adopted_page(void **state)
{
	(void)state;
	char path[64], err[256];
	snprintf(path, sizeof(path), "/tmp/test_exit_mmap.%d.small.vmr", (int)getpid());
	struct vmr_rec r[] = {
		{ 0, VMR_OP_STORE }, { 1, VMR_OP_STORE | VMR_F_RUN | 3 << VMR_DELTA_SHIFT },
		{ 1, VMR_OP_FREE | 100 << VMR_DELTA_SHIFT }, { 0, VMR_OP_LOAD | 10000000u << VMR_DELTA_SHIFT },
		{ 4, VMR_OP_STORE }, { 5, VMR_OP_STORE | VMR_F_RUN | 3 << VMR_DELTA_SHIFT },
		{ 1, VMR_OP_STORE | 100 << VMR_DELTA_SHIFT },
	};
	struct vmr_task t[2] = { { .pid = 10, .tid = 10, .comm = "a" },
				 { .pid = 20, .tid = 20, .begin_ns = 1000000, .comm = "b" } };
	synth_task_close(&t[0], r, 0, 4);
	synth_task_close(&t[1], r, 4, 7);
	struct vmr_page pg[8];
	for (uint32_t i = 0; i < 8; i++)
		pg[i] = (struct vmr_page){ .kind = VMR_PAGE_ANON, .space = i < 4 ? 10 : 20, .index = i };
	assert_int_equal(synth_write(path, "page_size\t4096\n", t, 2, r, 7, pg, 8, err, sizeof(err)), 0);
	struct vmr v;
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	struct engine_params p;
	params(&p, "classic", 0);
	struct engine *e = malloc(sizeof(*e));
	assert_non_null(e);
	assert_int_equal(engine_init(e, &v, &p, err, sizeof(err)), 0);
	assert_int_equal(engine_run(e), 0);
	assert_int_equal(e->exit_mmap_visited, 5 + 4);
	assert_int_equal(e->vm[VM_pgalloc], 4 + 5);
	assert_int_equal(e->vm[VM_pgfree], 1 + 5 + 3);
	assert_int_equal(e->folio[1].owner, 1);
	for (uint32_t i = 0; i < 8; i++)
		assert_false(e->folio[i].flags & PG_resident);
	assert_int_equal(e->procs[0].rss, 0);
	assert_int_equal(e->procs[1].rss, 0);
	engine_free(e);
	free(e);
	vmr_close(&v);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(adopted_page),
		cmocka_unit_test(short_processes_classic),
		cmocka_unit_test(short_processes_mglru),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
