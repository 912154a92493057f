/*
 * spill.h — where the task streams' records wait for the .vmr.
 *
 * RECORDS holds each task's stream whole, one after another, but a trace
 * interleaves its tasks, so no stream is final before the trace has been
 * read.  Holding them all in memory made ingest's memory grow with the
 * trace's events (8 bytes a record); instead a stream keeps only its last
 * SPILL_RECS records in memory, and every full chunk of them goes to an
 * unlinked temporary file beside the output, to be read back, in stream
 * order, when the .vmr is written.  The file is made only when a first
 * chunk is full: a small trace never touches it.  It is read back through
 * a mapping, so the records go from its page cache to the output's in
 * one copy (write()'s) where pread() and write() made two, and a chunk
 * leaves the process's memory once written (madvise), so that reading
 * them back does not grow it with the trace either.
 */
#ifndef SPILL_H
#define SPILL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "vmr/vmr.h"

/* Records in a chunk: 64 KiB, a .vmr checksum block. */
#define SPILL_RECS 8192u
#define SPILL_BYTES (SPILL_RECS * sizeof(struct vmr_rec))

struct spill {
	int fd;                        /* -1 until the first chunk */
	uint32_t nr_chunks;
	struct vmr_rec *map;           /* spill_map's, NULL before */
	pthread_t closer;              /* spill_close_start's */
	int closing;
	char dir[4096];                /* where the file goes */
};

/* Spill chunks of the .vmr OUT go beside it; when OUT is not a file in
 * a directory (stdout, a device), to $TMPDIR or /tmp. */
void spill_init(struct spill *sp, const char *out);
/* Writes the SPILL_RECS records of RECS as the next chunk and returns
 * its number, or -1 with the reason in err. */
int64_t spill_put(struct spill *sp, const struct vmr_rec *recs, char *err, size_t errlen);
/* Maps every chunk (chunk I's records start at I * SPILL_RECS), read
 * only, once no more are put.  The mapping, or NULL with the reason in
 * err (a spill file with no chunk is never mapped). */
const struct vmr_rec *spill_map(struct spill *sp, char *err, size_t errlen);
/* Chunks FIRST..FIRST+NR-1 of the mapping have been used: their pages
 * leave the process's memory (the file keeps them). */
void spill_done(struct spill *sp, uint32_t first, uint32_t nr);
/* No chunk is needed any more: the file is closed on a thread of its
 * own (freeing its page cache and blocks takes milliseconds), while the
 * rest of the .vmr is written. */
void spill_close_start(struct spill *sp);
/* Closes the file (or waits for spill_close_start's thread). */
void spill_close(struct spill *sp);

#endif
