/*
 * blk_latency.h — the session's device latencies, from the block layer's
 * own request events (block:block_rq_issue / block:block_rq_complete).
 *
 * A request is matched from its issue to its completion by device and
 * first sector (what the two tracepoints share: blk_rq_pos() of the
 * request, remapped to the whole disk, and the disk's dev_t).  It is swap
 * I/O when it starts inside the swap area: a swap device's whole disk
 * range, or one of the swap file's extents (FIEMAP, moved by the
 * partition's start); everything else on a disk is that disk's file I/O.
 * The latency of a request is its completion time minus its issue time:
 * what the device took once the request had left the I/O scheduler,
 * which is what the replay's device model (replay/sim/backing.h) charges
 * per request.  Per device, kind (swap or file) and direction the
 * latencies are kept and their median reported.
 */
#ifndef BLK_LATENCY_H
#define BLK_LATENCY_H

#include <stddef.h>
#include <stdint.h>

/* dev_t as the kernel encodes it in trace events (MKDEV: 12-bit major
 * above a 20-bit minor), not glibc's encoding. */
#define BLK_MKDEV(ma, mi) (((uint32_t)(ma) << 20) | ((uint32_t)(mi) & 0xfffff))

enum blk_kind { BLK_SWAP, BLK_FILE, NR_BLK_KINDS };
enum blk_dir { BLK_READ, BLK_WRITE, NR_BLK_DIRS };

/* A run of sectors [start, end) of a disk holding swap slots. */
struct blk_extent {
	uint64_t start, end;
};

struct blk_latency;

/* A matcher for swap area SWAP_DEV (kernel dev_t of its disk; 0: no swap
 * area on a block device, e.g. zram, whose I/O makes no requests) made of
 * the NR_EXT extents EXT, or all of SWAP_DEV where NR_EXT is 0.  NULL
 * when out of memory. */
struct blk_latency *blk_latency_new(uint32_t swap_dev, const struct blk_extent *ext, size_t nr_ext);
void blk_latency_free(struct blk_latency *b);

/* block_rq_issue and block_rq_complete of a request: time (ns), device,
 * first sector, sectors, the rwbs string (blk_fill_rwbs), and for a
 * completion its error.  Returns 0, or -1 when out of memory. */
int blk_latency_issue(struct blk_latency *b, uint64_t ts, uint32_t dev, uint64_t sector,
		      uint32_t nr_sector, const char *rwbs);
void blk_latency_complete(struct blk_latency *b, uint64_t ts, uint32_t dev, uint64_t sector,
			  uint32_t nr_sector, const char *rwbs, int error);

/* What was measured of one device and kind. */
struct blk_stat {
	uint64_t nr[NR_BLK_DIRS];       /* requests completed */
	uint64_t median_ns[NR_BLK_DIRS]; /* 0 when nr is 0 */
};

/* The latencies of KIND on device DEV (for BLK_SWAP the swap device's
 * disk; 0 there when there is none). */
void blk_latency_stat(struct blk_latency *b, uint32_t dev, enum blk_kind kind, struct blk_stat *st);

/* The direction of a request from its rwbs string: BLK_READ, BLK_WRITE,
 * or -1 for what is no data transfer (flush, discard, secure erase,
 * write-zeroes and the other 'N' operations). */
int blk_rwbs_dir(const char *rwbs);

#endif
