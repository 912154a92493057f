/*
 * backing.h — swap devices and file storage, as latency models.
 *
 * A device has a per-page read and write latency and a queue depth; a
 * synchronous device (zram) completes inside the reclaimer's own time,
 * as swap_writepage on zram does.  A dm-delay preset holds every request
 * a fixed time before it reaches the device's queue: dm-delay keeps its
 * bios on a list of its own, with no limit, and submits each once its
 * delay has expired (delay_bio, flush_delayed_bios).  Presets are the cases the reclaim
 * patches were measured on; every parameter can be overridden:
 *   --swap PRESET[,size=SIZE][,read=NS][,write=NS][,depth=N][,jitter=PCT]
 *          [,rotational=0|1][,ra_base=NS][,ra_page=NS]
 */
#ifndef BACKING_H
#define BACKING_H

#include <stdint.h>
#include "sim.h"

struct backing_params {
	char name[32];
	int sync;                    /* completes in the caller's context */
	simtime_t read_ns;           /* one page read (swap-in, file miss) */
	simtime_t write_ns;          /* one page write */
	uint32_t depth;              /* requests in flight before queueing */
	uint32_t jitter_pct;         /* +- uniform jitter, seeded */
	int rotational;              /* queue/rotational: a spinning disk */
	simtime_t delay_ns;          /* held before the queue: dm-delay */
	/* A read-ahead window's read, ra_base_ns + ra_page_ns per page, as
	 * the capture's synchronous windows took it (ra_base_ns 0: one
	 * request's read_ns, whatever the window's size) */
	simtime_t ra_base_ns, ra_page_ns;
};

/* A device's queue: when each of its depth slots is next free. */
struct backing {
	struct backing_params p;
	simtime_t *slot_free;
	uint64_t reads, writes;
};

/* Fills P from "PRESET[,key=value...]"; SIZE (if given) into *size.
 * Returns 0, or -1 with a reason in err. */
int backing_parse(const char *spec, struct backing_params *p, uint64_t *size,
		  char *err, size_t errlen);
/* The presets, one per line "name: description", for --help. */
extern const char backing_presets_help[];

int backing_init(struct backing *b, const struct backing_params *p);
void backing_free(struct backing *b);
/* Completion time of a request issued at NOW taking BASE ns (jittered
 * by RAND in [0, 2^32)). */
simtime_t backing_submit(struct backing *b, simtime_t now, simtime_t base, uint32_t rand);

#endif
