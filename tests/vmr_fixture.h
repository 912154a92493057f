/*
 * vmr_fixture.h — builds small .vmr files for the tests with the real
 * writer, so tests of readers and replays start from known records.
 */
#ifndef VMR_FIXTURE_H
#define VMR_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "vmr/vmr_write.h"

struct fixture_task {
	uint64_t begin_ns;
	const struct vmr_rec *recs;
	uint64_t nr;
};

/* A task's ids where they matter (fixture_vmr_ids). */
struct fixture_ids {
	uint32_t pid, tid, ppid;
};

/* Writes PATH with the given tasks; every page below NR_PAGES is anon
 * unless FILE_PAGES marks it (may be NULL): bit 0 makes it a file page,
 * the bits above are its vmr_page.flags.  The tasks are threads of pid
 * 100 (tid 100 + their index) unless IDS (may be NULL) says otherwise.
 * Returns 0 on success. */
static inline int fixture_vmr_ids(const char *path, const struct fixture_task *t, const struct fixture_ids *ids,
				  size_t nr_tasks, uint64_t nr_pages, const uint8_t *file_pages, const char *meta)
{
	char err[256];
	struct vmr_writer *w = vmr_writer_create(path, err, sizeof(err));
	if (!w)
		return -1;
	struct vmr_header h = { 0 };
	memset(h.trace_hash, 0xab, sizeof(h.trace_hash));
	vmr_writer_begin(w, VMR_SEC_META);
	vmr_writer_append(w, meta, strlen(meta));
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_TASKS);
	uint64_t first = 0;
	for (size_t i = 0; i < nr_tasks; i++) {
		struct vmr_task vt = { .pid = ids ? ids[i].pid : 100, .tid = ids ? ids[i].tid : 100 + (uint32_t)i,
				       .ppid = ids ? ids[i].ppid : 0, .begin_ns = t[i].begin_ns,
				       .first_rec = first, .nr_recs = t[i].nr };
		uint64_t ts = t[i].begin_ns;
		for (uint64_t r = 0; r < t[i].nr; r++) {
			unsigned op = vmr_rec_op(t[i].recs[r]);
			ts += vmr_rec_delta(t[i].recs[r]);
			vt.nr_accesses += vmr_op_is_access(op) ? vmr_rec_count(t[i].recs[r]) : 0;
		}
		vt.end_ns = ts;
		snprintf(vt.comm, sizeof(vt.comm), "task%u", (unsigned)(i % 1000));
		vmr_writer_append(w, &vt, sizeof(vt));
		first += t[i].nr;
		h.nr_accesses += vt.nr_accesses;
	}
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_RECORDS);
	for (size_t i = 0; i < nr_tasks; i++)
		vmr_writer_append(w, t[i].recs, t[i].nr * sizeof(struct vmr_rec));
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_PAGES);
	for (uint64_t p = 0; p < nr_pages; p++) {
		struct vmr_page pg = { .kind = file_pages && (file_pages[p] & 1) ? VMR_PAGE_FILE : VMR_PAGE_ANON,
				       .flags = file_pages ? file_pages[p] >> 1 : 0,
				       .space = 100, .index = p };
		vmr_writer_append(w, &pg, sizeof(pg));
	}
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_VMSTAT);
	vmr_writer_end(w);
	h.nr_tasks = nr_tasks;
	h.nr_records = first;
	h.nr_pages = nr_pages;
	return vmr_writer_finish(w, &h, err, sizeof(err));
}

static inline int fixture_vmr(const char *path, const struct fixture_task *t, size_t nr_tasks,
			      uint64_t nr_pages, const uint8_t *file_pages, const char *meta)
{
	return fixture_vmr_ids(path, t, NULL, nr_tasks, nr_pages, file_pages, meta);
}

static inline struct vmr_rec fixture_run(uint32_t page, unsigned op, int file, uint32_t count)
{
	return (struct vmr_rec){ page, op | VMR_F_RUN | (file ? VMR_F_FILE : 0) | count << VMR_DELTA_SHIFT };
}

static inline struct vmr_rec fixture_rec(uint32_t page, unsigned op, int file, uint32_t delta)
{
	return (struct vmr_rec){ page, op | (file ? VMR_F_FILE : 0) | delta << VMR_DELTA_SHIFT };
}

#endif
