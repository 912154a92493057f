/* blk_geometry.c — a swap area's and a file system's disk and sectors
 * (blk_geometry.h), from sysfs and FIEMAP. */
#include "blk_geometry.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int sysfs_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	unsigned long long x;
	int ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	if (ok)
		*v = x;
	return ok ? 0 : -1;
}

uint32_t blk_disk_of(unsigned major, unsigned minor, uint64_t *start)
{
	char p[192], disk[128];
	uint64_t s = 0;
	*start = 0;
	/* A partition has a "partition" file and its disk is the directory
	 * above it; block_rq_issue reports the disk and sectors on it
	 * (blk_rq_pos() after the partition's remap). */
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/partition", major, minor);
	int part = access(p, F_OK) == 0;
	if (part) {
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/start", major, minor);
		if (sysfs_u64(p, &s) != 0)
			return 0;
		snprintf(disk, sizeof(disk), "/sys/dev/block/%u:%u/..", major, minor);
	} else {
		snprintf(disk, sizeof(disk), "/sys/dev/block/%u:%u", major, minor);
	}
	/* Only a blk-mq disk makes requests: zram and the stacked devices
	 * (dm, md) are bio-based, the requests of the latter on the disks
	 * below in their own sectors. */
	snprintf(p, sizeof(p), "%s/mq", disk);
	if (access(p, F_OK) != 0)
		return 0;
	snprintf(p, sizeof(p), "%s/dev", disk);
	FILE *f = fopen(p, "r");
	unsigned ma, mi;
	int ok = f && fscanf(f, "%u:%u", &ma, &mi) == 2;
	if (f)
		fclose(f);
	if (!ok)
		return 0;
	*start = s;
	return BLK_MKDEV(ma, mi);
}

/* The file's extents on its file system's device, in 512-byte sectors
 * of the disk (START added). */
static int file_extents(int fd, uint64_t start, struct blk_extent **ext, size_t *nr_ext)
{
	enum { BATCH = 256 };
	size_t sz = sizeof(struct fiemap) + BATCH * sizeof(struct fiemap_extent);
	struct fiemap *fm = malloc(sz);
	struct blk_extent *e = NULL;
	size_t n = 0, cap = 0;
	uint64_t off = 0;
	int last = 0;
	while (fm && !last) {
		memset(fm, 0, sz);
		fm->fm_start = off;
		fm->fm_length = ~0ull - off;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) != 0 || !fm->fm_mapped_extents)
			break;
		for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
			const struct fiemap_extent *x = &fm->fm_extents[i];
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				struct blk_extent *ne = realloc(e, cap * sizeof(*ne));
				if (!ne)
					goto fail;
				e = ne;
			}
			e[n++] = (struct blk_extent){ start + x->fe_physical / 512,
						      start + (x->fe_physical + x->fe_length) / 512 };
			off = x->fe_logical + x->fe_length;
			if (x->fe_flags & FIEMAP_EXTENT_LAST)
				last = 1;
		}
	}
	free(fm);
	*ext = e;
	*nr_ext = n;
	return n ? 0 : -1;
fail:
	free(fm);
	free(e);
	return -1;
}

uint32_t blk_swap_area(const char *path, struct blk_extent **ext, size_t *nr_ext)
{
	*ext = NULL;
	*nr_ext = 0;
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	uint64_t start;
	if (S_ISBLK(st.st_mode)) {
		uint32_t disk = blk_disk_of(major(st.st_rdev), minor(st.st_rdev), &start);
		if (!disk || !start)
			return disk;    /* a whole disk: all of it */
		/* a partition: its sectors on the disk */
		char p[96];
		uint64_t size;
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/size", major(st.st_rdev), minor(st.st_rdev));
		if (sysfs_u64(p, &size) != 0 || !(*ext = malloc(sizeof(**ext))))
			return 0;
		**ext = (struct blk_extent){ start, start + size };
		*nr_ext = 1;
		return disk;
	}
	/* A swap file: swapon took its file system's device (i_sb->s_bdev)
	 * and the file's blocks on it (setup_swap_extents). */
	uint32_t disk = blk_disk_of(major(st.st_dev), minor(st.st_dev), &start);
	int fd = disk ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return 0;
	int r = file_extents(fd, start, ext, nr_ext);
	close(fd);
	return r == 0 ? disk : 0;
}
