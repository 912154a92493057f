/*
 * synth_vmr.h — synthetic .vmr traces at realistic scale, written with
 * the real writer (vmr_write.h) by whoever needs them (test_exit_mmap,
 * tests/vmrgen for the benchmarks), so that no large trace is kept in
 * git.  Deterministic: the same arguments give the same bytes.
 *
 *   synth_procs: NR_PROCS short processes, a new one every STAGGER_NS,
 *     each owning PAGES anonymous pages (a store, then a run of 15 more,
 *     THINK_NS after the previous ones),
 *     every fourth with a second thread that does half of them, every
 *     eighth freeing the first quarter of its pages before it ends, each
 *     first reading one of NR_FILE shared file pages.  A process's page
 *     ids are interleaved with the others' (blocks of 16), as a real
 *     trace's ids are in the order of first touch.
 *   synth_zipf: one task making NR_REQ requests to NR_PAGES anonymous
 *     pages, Zipf-distributed with exponent ALPHA (rank r has weight
 *     r^-ALPHA; ranks are placed on page ids by a seeded permutation), a
 *     quarter of them stores, 100 ns apart.
 */
#ifndef SYNTH_VMR_H
#define SYNTH_VMR_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vmr/vmr_write.h"

#define SYNTH_RUN      16u          /* pages of a process's block */
#define SYNTH_PID      1000u        /* pid of process 0; process i: + 2i */

static inline uint64_t synth_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);   /* splitmix64 */
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Page id of process I's page J (of NR_PROCS processes). */
static inline uint32_t synth_proc_page(uint32_t nr_procs, uint32_t i, uint32_t j)
{
	return (j / SYNTH_RUN) * SYNTH_RUN * nr_procs + i * SYNTH_RUN + j % SYNTH_RUN;
}

static inline uint32_t synth_proc_threads(uint32_t i) { return i % 4 == 3 ? 2 : 1; }
static inline int synth_proc_frees(uint32_t i) { return i % 8 == 5; }

/* Writes PATH from its parts: metadata, tasks (first_rec, nr_recs,
 * nr_accesses and end_ns filled in), the tasks' records back to back,
 * pages.  0, or -1 with the reason in ERR. */
static inline int synth_write(const char *path, const char *meta, const struct vmr_task *tasks,
			      uint64_t nr_tasks, const struct vmr_rec *recs, uint64_t nr_recs,
			      const struct vmr_page *pages, uint64_t nr_pages, char *err, size_t errlen)
{
	struct vmr_writer *w = vmr_writer_create(path, err, errlen);
	if (!w)
		return -1;
	struct vmr_header h = { .nr_tasks = nr_tasks, .nr_records = nr_recs, .nr_pages = nr_pages };
	memset(h.trace_hash, 0x5e, sizeof(h.trace_hash));
	for (uint64_t t = 0; t < nr_tasks; t++)
		h.nr_accesses += tasks[t].nr_accesses;
	const struct { enum vmr_section_kind kind; const void *data; size_t size; } sec[] = {
		{ VMR_SEC_META, meta, strlen(meta) },
		{ VMR_SEC_TASKS, tasks, nr_tasks * sizeof(*tasks) },
		{ VMR_SEC_RECORDS, recs, nr_recs * sizeof(*recs) },
		{ VMR_SEC_PAGES, pages, nr_pages * sizeof(*pages) },
		{ VMR_SEC_VMSTAT, NULL, 0 },
	};
	for (size_t i = 0; i < sizeof(sec) / sizeof(sec[0]); i++) {
		vmr_writer_begin(w, sec[i].kind);
		vmr_writer_append(w, sec[i].data, sec[i].size);
		vmr_writer_end(w);
	}
	return vmr_writer_finish(w, &h, err, errlen);
}

/* Fills in T's first_rec, nr_recs, end_ns and nr_accesses from its
 * records RECS[first..n). */
static inline void synth_task_close(struct vmr_task *t, const struct vmr_rec *recs, uint64_t first,
				    uint64_t n)
{
	uint64_t ts = t->begin_ns;
	t->first_rec = first;
	t->nr_recs = n - first;
	for (uint64_t r = first; r < n; r++) {
		ts += vmr_rec_delta(recs[r]);
		if (vmr_op_is_access(vmr_rec_op(recs[r])))
			t->nr_accesses += vmr_rec_count(recs[r]);
	}
	t->end_ns = ts;
}

/* Records OP of pages [FROM, TO) of process I, a block at a time. */
static inline uint64_t synth_blocks(struct vmr_rec *rec, uint64_t n, uint32_t nr_procs, uint32_t i,
				    uint32_t from, uint32_t to, unsigned op, uint32_t think_ns)
{
	for (uint32_t j = from; j < to; j += SYNTH_RUN) {
		uint32_t pg = synth_proc_page(nr_procs, i, j);
		rec[n++] = (struct vmr_rec){ pg, op | think_ns << VMR_DELTA_SHIFT };
		rec[n++] = (struct vmr_rec){ pg + 1, op | VMR_F_RUN | (SYNTH_RUN - 1) << VMR_DELTA_SHIFT };
	}
	return n;
}

/* PAGES must be a multiple of 32, NR_FILE at least 1, THINK_NS below
 * VMR_DELTA_MAX. */
static inline int synth_procs(const char *path, uint32_t nr_procs, uint32_t pages, uint32_t nr_file,
			      uint64_t stagger_ns, uint32_t think_ns, char *err, size_t errlen)
{
	uint64_t nr_anon = (uint64_t)nr_procs * pages, nr_pages = nr_anon + nr_file, nr_tasks = 0;
	for (uint32_t i = 0; i < nr_procs; i++)
		nr_tasks += synth_proc_threads(i);
	uint64_t cap = nr_anon / SYNTH_RUN * 2 + nr_anon / SYNTH_RUN / 2 + 2 * nr_tasks;
	struct vmr_task *tasks = calloc(nr_tasks, sizeof(*tasks));
	struct vmr_rec *recs = malloc(cap * sizeof(*recs));
	struct vmr_page *pg = calloc(nr_pages, sizeof(*pg));
	int r = -1;
	if (!tasks || !recs || !pg || pages % (2 * SYNTH_RUN) || !nr_file || think_ns > VMR_DELTA_MAX ||
	    nr_pages > UINT32_MAX) {
		snprintf(err, errlen, "synth_procs: bad sizes or out of memory");
		goto out;
	}
	uint64_t n = 0, t = 0;
	for (uint32_t i = 0; i < nr_procs; i++) {
		uint32_t nr = synth_proc_threads(i), half = pages / 2;
		for (uint32_t th = 0; th < nr; th++, t++) {
			uint32_t from = nr == 1 ? 0 : th * half, to = nr == 1 ? pages : from + half;
			struct vmr_task *vt = &tasks[t];
			uint64_t first = n;
			vt->pid = SYNTH_PID + 2 * i;
			vt->tid = vt->pid + th;
			vt->ppid = 1;
			vt->begin_ns = i * stagger_ns;
			snprintf(vt->comm, sizeof(vt->comm), "p%u", (unsigned)(i % 100000));
			recs[n++] = (struct vmr_rec){ (uint32_t)nr_anon + i % nr_file,
						      VMR_OP_READ | VMR_F_FILE | think_ns << VMR_DELTA_SHIFT };
			n = synth_blocks(recs, n, nr_procs, i, from, to, VMR_OP_STORE, think_ns);
			if (synth_proc_frees(i) && th == 0)
				n = synth_blocks(recs, n, nr_procs, i, 0, pages / 4, VMR_OP_FREE, think_ns);
			synth_task_close(vt, recs, first, n);
		}
	}
	for (uint64_t p = 0; p < nr_anon; p++) {
		uint64_t block = p / SYNTH_RUN;
		pg[p] = (struct vmr_page){ .kind = VMR_PAGE_ANON, .space = SYNTH_PID + 2 * (block % nr_procs),
					   .index = block / nr_procs * SYNTH_RUN + p % SYNTH_RUN };
	}
	for (uint32_t k = 0; k < nr_file; k++)
		pg[nr_anon + k] = (struct vmr_page){ .kind = VMR_PAGE_FILE, .space = 1, .ino = 2, .index = k };
	r = synth_write(path, "page_size\t4096\n", tasks, nr_tasks, recs, n, pg, nr_pages, err, errlen);
out:
	free(tasks);
	free(recs);
	free(pg);
	return r;
}

static inline int synth_zipf(const char *path, uint64_t nr_req, uint32_t nr_pages, double alpha,
			     uint64_t seed, char *err, size_t errlen)
{
	double *cdf = malloc(nr_pages * sizeof(*cdf));
	uint32_t *perm = malloc(nr_pages * sizeof(*perm));
	struct vmr_rec *recs = malloc(nr_req * sizeof(*recs));
	struct vmr_page *pg = calloc(nr_pages, sizeof(*pg));
	int r = -1;
	if (!cdf || !perm || !recs || !pg || !nr_pages) {
		snprintf(err, errlen, "synth_zipf: out of memory");
		goto out;
	}
	double sum = 0;
	for (uint32_t k = 0; k < nr_pages; k++) {
		sum += pow(k + 1.0, -alpha);
		cdf[k] = sum;
		perm[k] = k;
	}
	uint64_t s = seed;
	for (uint32_t k = nr_pages - 1; k > 0; k--) {     /* Fisher-Yates */
		uint32_t j = (uint32_t)(synth_rand(&s) % (k + 1ull));
		uint32_t x = perm[k];
		perm[k] = perm[j];
		perm[j] = x;
	}
	for (uint64_t q = 0; q < nr_req; q++) {
		double u = (double)(synth_rand(&s) >> 11) * 0x1p-53 * sum;
		uint32_t lo = 0, hi = nr_pages - 1;              /* first rank with cdf >= u */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (cdf[mid] >= u)
				hi = mid;
			else
				lo = mid + 1;
		}
		unsigned op = synth_rand(&s) % 4 == 0 ? VMR_OP_STORE : VMR_OP_LOAD;
		recs[q] = (struct vmr_rec){ perm[lo], op | 100u << VMR_DELTA_SHIFT };
	}
	for (uint32_t k = 0; k < nr_pages; k++)
		pg[k] = (struct vmr_page){ .kind = VMR_PAGE_ANON, .space = SYNTH_PID, .index = k };
	struct vmr_task t = { .pid = SYNTH_PID, .tid = SYNTH_PID, .ppid = 1, .comm = "zipf" };
	synth_task_close(&t, recs, 0, nr_req);
	r = synth_write(path, "page_size\t4096\n", &t, 1, recs, nr_req, pg, nr_pages, err, errlen);
out:
	free(cdf);
	free(perm);
	free(recs);
	free(pg);
	return r;
}

#endif
