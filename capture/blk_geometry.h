/*
 * blk_geometry.h — where a swap area and a file system are in the block
 * layer's terms (the disk and sectors block_rq_issue reports), for the
 * device latencies of blk_latency.h.
 */
#ifndef BLK_GEOMETRY_H
#define BLK_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#include "blk_latency.h"

/* The disk (kernel dev_t) holding block device MAJOR:MINOR, and the
 * sector the device starts at on it (0 for a disk, the partition's
 * start for a partition).  0 when sysfs does not know the device. */
uint32_t blk_disk_of(unsigned major, unsigned minor, uint64_t *start);

/* The swap area PATH (a swap file or a block device) as the disk it is
 * on and its extents there (*ext, malloc'ed, *nr_ext of them; none for a
 * whole disk).  Returns the disk, or 0 (and no extents) when it cannot be
 * told: a file system on a stacked device (dm, md: its requests are on
 * the disks below, in their sectors), no FIEMAP. */
uint32_t blk_swap_area(const char *path, struct blk_extent **ext, size_t *nr_ext);

#endif
