/*
 * ingest_sink.h — what the sink (sink.c) lends to the kernel-event half of
 * ingest (kdemand.c): appending demand records to task streams, naming
 * tasks, and metadata.  The sink itself stays opaque to them; the
 * files that own it share sink.h.  Only ingest/ files include this.
 */
#ifndef INGEST_SINK_H
#define INGEST_SINK_H

#include <stdarg.h>
#include <stdint.h>
#include "vmr/vmr.h"

struct sink;

/* Appends OP (a VMR_OP_*) on pages FIRST..LAST of (KIND, SPACE, INO) to
 * the stream of task TID (of thread group PID) at TS.  Accesses give new
 * pages ids; FREE applies to pages that were touched before.  0 / -1. */
int ingest_sink_range(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts,
		      enum vmr_page_kind kind, uint64_t space, uint64_t ino,
		      uint64_t first, uint64_t last, unsigned op);
/* The same for accesses (OP: LOAD or STORE) of the pages of the range
 * that the streams already hold and that are resident (touched, not freed
 * since): no new pages.  Returns the number of pages referenced, -1 on
 * failure. */
int64_t ingest_sink_known(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts,
			  enum vmr_page_kind kind, uint64_t space, uint64_t ino,
			  uint64_t first, uint64_t last, unsigned op);
/* Whether no page of FIRST..LAST of (KIND, SPACE, INO) was ever in the
 * streams (has no page id): 1 or 0. */
int ingest_sink_untouched(struct sink *s, enum vmr_page_kind kind, uint64_t space, uint64_t ino,
			  uint64_t first, uint64_t last);
/* FREE of every resident anonymous page of address space SPACE, in the
 * stream of TID (an exit or an exec released that memory). */
int ingest_sink_free_space(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts, uint64_t space);
/* The task TID (if it has a stream) was in the kernel's reclaim from
 * BEGIN to END: the part after its last record is taken out of its next
 * gaps, never more than a gap (sink.c emit).  Returns that part, ns. */
uint64_t ingest_sink_stall(struct sink *s, uint32_t tid, uint64_t begin, uint64_t end);
/* The ns of reclaim taken out of the gaps so far. */
uint64_t ingest_sink_stall_subtracted(const struct sink *s);
/* The task TID (if it has a stream) ends at TS: a later task with the
 * same tid is a new one. */
void ingest_sink_task_end(struct sink *s, uint32_t tid, uint64_t ts);
/* Removes the streams of the tasks whose thread group PID FOREIGN says
 * is not the workload's; returns the accesses they held. */
uint64_t ingest_sink_drop_tasks(struct sink *s, int (*foreign)(void *arg, uint32_t pid), void *arg);
/* Fills in ppid and comm of every task whose stream kevents made. */
void ingest_sink_name_tasks(struct sink *s, void (*fn)(void *arg, uint32_t tid, uint32_t *ppid,
						       char comm[16]), void *arg);
/* Calls FN on every file page the streams hold (its flags may change). */
void ingest_sink_each_file_page(struct sink *s, void (*fn)(void *arg, struct vmr_page *p), void *arg);
/* Starts tracking which pages are resident (before the first range). */
int ingest_sink_track_residency(struct sink *s);

uint64_t ingest_sink_page_size(struct sink *s);
/* The session's RAM in bytes (its vmreplay:session event); 0 if unknown. */
uint64_t ingest_sink_mem_total(const struct sink *s);
/* Accesses the exact (UST) stream already holds. */
uint64_t ingest_sink_accesses(const struct sink *s);
int ingest_sink_failed(const struct sink *s);
void ingest_sink_fail(struct sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ingest_sink_meta(struct sink *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
