/*
 * fuzz_vmr.c — vmr_open on any file.
 *
 * Raw bytes rarely get past the checksums, so most inputs are built into a
 * .vmr by the real writer (vmr_write.c, checksums right): META, tasks,
 * records and pages come from the input, the header's counts too (they
 * may lie), and vmr_open must refuse or accept them without reading out
 * of bounds.  An accepted file is read as a replay would: every task's
 * records, every page, the META values.  Inputs whose first byte is odd
 * are opened as the raw file.
 */
#include "fuzz.h"
#include "vmr/vmr.h"
#include "vmr/vmr_write.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void build(struct fuzz_in *in, const char *path)
{
	char err[256];
	struct vmr_writer *w = vmr_writer_create(path, err, sizeof(err));
	if (!w)
		abort();
	struct vmr_header h = { 0 };
	size_t meta = fuzz_take(in, 1), nt = fuzz_take(in, 1) % 8, nr = fuzz_take(in, 2) % 512;
	size_t np = fuzz_take(in, 2) % 512, nk = fuzz_take(in, 1) % 8;
	meta = meta < in->n ? meta : in->n;
	vmr_writer_begin(w, VMR_SEC_META);
	vmr_writer_append(w, in->p, meta);
	in->p += meta;
	in->n -= meta;
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_TASKS);
	for (size_t i = 0; i < nt; i++) {
		struct vmr_task t = { 0 };
		t.pid = (uint32_t)fuzz_take(in, 2);
		t.begin_ns = fuzz_take(in, 2);
		t.end_ns = t.begin_ns + fuzz_take(in, 3);
		t.first_rec = fuzz_take(in, 2);
		t.nr_recs = fuzz_take(in, 2);
		t.nr_accesses = fuzz_take(in, 2);
		vmr_writer_append(w, &t, sizeof(t));
	}
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_RECORDS);
	for (size_t i = 0; i < nr; i++) {
		struct vmr_rec r = { (uint32_t)fuzz_take(in, 2), (uint32_t)fuzz_take(in, 4) };
		vmr_writer_append(w, &r, sizeof(r));
	}
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_PAGES);
	for (size_t i = 0; i < np; i++) {
		struct vmr_page pg = { (uint32_t)fuzz_take(in, 1) % 3, (uint32_t)fuzz_take(in, 1) % 3,
				       fuzz_take(in, 2), fuzz_take(in, 2), fuzz_take(in, 2) };
		vmr_writer_append(w, &pg, sizeof(pg));
	}
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_VMSTAT);
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_KEVENTS);
	uint64_t ts = 0;
	for (size_t i = 0; i < nk; i++) {
		struct vmr_kev k = { 0 };
		ts += fuzz_take(in, 1);
		k.ts_ns = ts;
		k.type = (uint16_t)(fuzz_take(in, 1) % (VMR_KEV_NR_TYPES + 1));
		vmr_writer_append(w, &k, sizeof(k));
	}
	vmr_writer_end(w);
	/* counts: right, or (a flag) from the input */
	int lie = (int)fuzz_take(in, 1);
	h.nr_tasks = lie & 1 ? fuzz_take(in, 8) : nt;
	h.nr_records = lie & 2 ? fuzz_take(in, 8) : nr;
	h.nr_pages = lie & 4 ? fuzz_take(in, 8) : np;
	h.nr_accesses = fuzz_take(in, 2);
	if (vmr_writer_finish(w, &h, err, sizeof(err)) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_path("vmr");
	struct fuzz_in in = { data, size };
	if (size && (data[0] & 1)) {
		fuzz_write(path, data + 1, size - 1);
	} else {
		fuzz_take(&in, 1);
		build(&in, path);
	}
	struct vmr v;
	char err[512], buf[256];
	if (vmr_open(&v, path, err, sizeof(err)) == 0) {
		/* what a replay reads of an accepted file */
		uint64_t sum = 0;
		for (uint64_t t = 0; t < v.hdr->nr_tasks; t++)
			for (uint64_t i = 0; i < v.tasks[t].nr_recs; i++) {
				struct vmr_rec r = v.recs[v.tasks[t].first_rec + i];
				if (vmr_rec_op(r) != VMR_OP_DELAY)
					sum += v.pages[r.page].kind;
				sum += vmr_rec_delta(r);
			}
		for (uint64_t i = 0; i < v.nr_kev; i++)
			sum += v.kev[i].type;
		if (vmr_meta_get(&v, "page_size", buf, sizeof(buf)) &&
		    strtoull(buf, NULL, 10) / 1024 == 0)
			abort();           /* the SIGFPE of issue 14: must be refused */
		(void)sum;
		vmr_close(&v);
	}
	unlink(path);
	return 0;
}
