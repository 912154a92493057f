/* vmr_write.c — the .vmr writer: sections, per-block checksums, header. */
#include "vmr_write.h"
#include "atomic.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xxh.h"

struct vmr_writer {
	struct atomic_file out;
	struct vmr_header hdr;
	uint64_t pos;               /* bytes written so far, header included */
	int cur;                    /* index of the open section, -1 none    */
	XXH3_state_t *block;        /* checksum of the current block          */
	uint64_t block_fill;
	uint64_t *sums;
	size_t nr_sums, cap_sums;
	int failed;
	pthread_t unlinker;         /* removes an old file of the name */
	int unlinking;
};

/* Ends the current block: its checksum joins the list.  0 / -1 (OOM). */
static int push_sum(struct vmr_writer *w)
{
	if (w->nr_sums == w->cap_sums) {
		size_t cap = w->cap_sums ? 2 * w->cap_sums : 256;
		uint64_t *n = realloc(w->sums, cap * sizeof(*n));
		if (!n)
			return -1;
		w->sums = n;
		w->cap_sums = cap;
	}
	w->sums[w->nr_sums++] = XXH3_64bits_digest(w->block);
	XXH3_64bits_reset(w->block);
	w->block_fill = 0;
	return 0;
}

/* Feeds bytes to the block checksums.  0 / -1 (OOM). */
static int sum_bytes(struct vmr_writer *w, const unsigned char *p, size_t size)
{
	while (size) {
		size_t n = VMR_BLOCK_SIZE - w->block_fill;
		if (n > size)
			n = size;
		XXH3_64bits_update(w->block, p, n);
		w->block_fill += n;
		p += n;
		size -= n;
		if (w->block_fill == VMR_BLOCK_SIZE && push_sum(w) != 0)
			return -1;
	}
	return 0;
}

struct sum_job {
	struct vmr_writer *w;
	const unsigned char *p;
	size_t size;
	int rc;
};

static void *sum_main(void *arg)
{
	struct sum_job *j = arg;
	j->rc = sum_bytes(j->w, j->p, j->size);
	return NULL;
}

/* An append this large is checksummed on a second thread while this one
 * writes it: the write (the kernel copying it into the page cache) and
 * the hash then take the time of the write alone, where they took both
 * (a large ingest writes tens of MB). */
#define SUM_THREAD_MIN (1u << 20)

/* Writes bytes after the header, feeding the block checksums. */
static void put(struct vmr_writer *w, const void *data, size_t size)
{
	if (size == 0)
		return;         /* an empty section may come with a NULL pointer */
	struct sum_job job = { w, data, size, 0 };
	pthread_t th;
	int threaded = size >= SUM_THREAD_MIN && pthread_create(&th, NULL, sum_main, &job) == 0;
	if (fwrite(data, 1, size, w->out.fp) != size)
		w->failed = 1;
	w->pos += size;
	if (threaded)
		pthread_join(th, NULL);
	else
		sum_main(&job);
	if (job.rc)
		w->failed = 1;
}

static void pad8(struct vmr_writer *w)
{
	static const char zero[8];
	if (w->pos % 8)
		put(w, zero, 8 - w->pos % 8);
}

/* A file renamed over another is written out inside rename() on ext4
 * (auto_da_alloc: its delayed blocks are allocated and its pages queued
 * for writing, so that a crash does not leave the old name empty): 40 ms
 * for a 45 MB .vmr, 3% of its ingest.  A .vmr needs no such care
 * (atomic.h: it verifies itself), so the old one goes first and the
 * rename replaces nothing; the name holds the old file, no file, then the
 * new one, never part of one.  Removing the old file frees its page cache
 * and blocks (4 ms for the storm trace's 38 MB), so it is done on a thread
 * while the new one is written; a write that fails then leaves no file
 * of the name rather than the old one. */
static void *unlink_main(void *arg)
{
	unlink(arg);
	return NULL;
}

static void unlink_wait(struct vmr_writer *w)
{
	if (w->unlinking)
		pthread_join(w->unlinker, NULL);
	w->unlinking = 0;
}

struct vmr_writer *vmr_writer_create(const char *path, char *err, size_t errlen)
{
	struct vmr_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	w->block = XXH3_createState();
	if (!w->block || atomic_open(&w->out, path, err, errlen) != 0) {
		XXH3_freeState(w->block);
		free(w);
		return NULL;
	}
	XXH3_64bits_reset(w->block);
	if (w->out.path) {
		w->unlinking = pthread_create(&w->unlinker, NULL, unlink_main, w->out.path) == 0;
		if (!w->unlinking)
			unlink(w->out.path);
	}
	/* Room for the header; it is written last. */
	static const char zero[VMR_HEADER_SIZE] = {0};
	if (fwrite(zero, 1, sizeof(zero), w->out.fp) != sizeof(zero))
		w->failed = 1;
	w->pos = VMR_HEADER_SIZE;
	w->cur = -1;
	return w;
}

/* Sections a writer never began are written empty, where they belong. */
static void fill_skipped(struct vmr_writer *w, int upto)
{
	for (int i = 0; i < upto; i++)
		if (w->hdr.sec[i].kind == 0) {
			w->hdr.sec[i].kind = (uint32_t)(i + 1);
			w->hdr.sec[i].offset = w->pos;
			w->hdr.sec[i].size = 0;
		}
}

void vmr_writer_begin(struct vmr_writer *w, enum vmr_section_kind kind)
{
	pad8(w);
	fill_skipped(w, (int)kind - 1);
	w->cur = (int)kind - 1;
	w->hdr.sec[w->cur].kind = kind;
	w->hdr.sec[w->cur].offset = w->pos;
}

void vmr_writer_append(struct vmr_writer *w, const void *data, size_t size)
{
	put(w, data, size);
}

void vmr_writer_end(struct vmr_writer *w)
{
	w->hdr.sec[w->cur].size = w->pos - w->hdr.sec[w->cur].offset;
	w->cur = -1;
}

int vmr_writer_finish(struct vmr_writer *w, const struct vmr_header *counts,
		      char *err, size_t errlen)
{
	pad8(w);
	fill_skipped(w, VMR_SEC_SUMS - 1);
	if (w->block_fill && push_sum(w) != 0)
		w->failed = 1;
	/* The sums cover every byte from the header's end to here. */
	struct vmr_header *h = &w->hdr;
	int s = VMR_SEC_SUMS - 1;
	h->sec[s].kind = VMR_SEC_SUMS;
	h->sec[s].offset = w->pos;
	h->sec[s].size = w->nr_sums * sizeof(uint64_t);
	if (w->nr_sums && fwrite(w->sums, sizeof(uint64_t), w->nr_sums, w->out.fp) != w->nr_sums)
		w->failed = 1;
	w->pos += h->sec[s].size;

	memcpy(h->magic, VMR_MAGIC, 8);
	h->version = VMR_VERSION;
	h->header_size = VMR_HEADER_SIZE;
	h->file_size = w->pos;
	memcpy(h->trace_hash, counts->trace_hash, sizeof(h->trace_hash));
	h->nr_tasks = counts->nr_tasks;
	h->nr_records = counts->nr_records;
	h->nr_pages = counts->nr_pages;
	h->nr_accesses = counts->nr_accesses;
	h->block_size = VMR_BLOCK_SIZE;
	h->nr_sections = VMR_NR_SECTIONS;
	h->header_sum = 0;
	h->header_sum = XXH3_64bits(h, sizeof(*h));

	if (fseek(w->out.fp, 0, SEEK_SET) != 0 ||
	    fwrite(h, 1, sizeof(*h), w->out.fp) != sizeof(*h))
		w->failed = 1;
	if (w->failed) {
		snprintf(err, errlen, "%s: write failed", w->out.path);
		vmr_writer_abort(w);
		return -1;
	}
	unlink_wait(w);            /* the old file is gone before the rename */
	int rc = atomic_commit_nosync(&w->out, err, errlen);
	XXH3_freeState(w->block);
	free(w->sums);
	free(w);
	return rc;
}

void vmr_writer_abort(struct vmr_writer *w)
{
	if (!w)
		return;
	unlink_wait(w);
	atomic_abort(&w->out);
	XXH3_freeState(w->block);
	free(w->sums);
	free(w);
}
