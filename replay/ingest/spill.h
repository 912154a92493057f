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
 * chunk is full: a small trace never touches it.
 */
#ifndef SPILL_H
#define SPILL_H

#include <stddef.h>
#include <stdint.h>
#include "vmr/vmr.h"

/* Records in a chunk: 64 KiB, a .vmr checksum block. */
#define SPILL_RECS 8192u
#define SPILL_BYTES (SPILL_RECS * sizeof(struct vmr_rec))

struct spill {
	int fd;                        /* -1 until the first chunk */
	uint32_t nr_chunks;
	char dir[4096];                /* where the file goes */
};

/* Spill chunks of the .vmr OUT go beside it; when OUT is not a file in
 * a directory (stdout, a device), to $TMPDIR or /tmp. */
void spill_init(struct spill *sp, const char *out);
/* Writes the SPILL_RECS records of RECS as the next chunk and returns
 * its number, or -1 with the reason in err. */
int64_t spill_put(struct spill *sp, const struct vmr_rec *recs, char *err, size_t errlen);
/* Reads NR consecutive chunks from chunk FIRST into BUF.  0 / -1. */
int spill_get(struct spill *sp, uint32_t first, uint32_t nr, struct vmr_rec *buf,
	      char *err, size_t errlen);
void spill_close(struct spill *sp);

#endif
