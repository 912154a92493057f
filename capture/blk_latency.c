/* blk_latency.c — request latencies per device and kind (blk_latency.h). */
#include "blk_latency.h"

#include <stdlib.h>
#include <string.h>

/* A request between its issue and its completion. */
struct inflight {
	uint64_t ts, sector;
	uint32_t dev;
	uint8_t kind, dir;
};

/* The latencies of one disk, by kind and direction. */
struct blk_dev {
	uint32_t dev;
	uint64_t *ns[NR_BLK_KINDS][NR_BLK_DIRS];
	size_t nr[NR_BLK_KINDS][NR_BLK_DIRS], cap[NR_BLK_KINDS][NR_BLK_DIRS];
};

/* More requests in flight than any queue holds (blk-mq's nr_requests is
 * at most a few thousand): past it the oldest is taken for one whose
 * completion the ring buffer did not keep, and forgotten. */
#define MAX_INFLIGHT 8192

struct blk_latency {
	uint32_t swap_dev;
	struct blk_extent *ext;
	size_t nr_ext;
	struct inflight *fl;
	size_t nr_fl, cap_fl;
	struct blk_dev *devs;
	size_t nr_devs;
};

struct blk_latency *blk_latency_new(uint32_t swap_dev, const struct blk_extent *ext, size_t nr_ext)
{
	struct blk_latency *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->swap_dev = swap_dev;
	if (nr_ext) {
		b->ext = malloc(nr_ext * sizeof(*ext));
		if (!b->ext) {
			free(b);
			return NULL;
		}
		memcpy(b->ext, ext, nr_ext * sizeof(*ext));
		b->nr_ext = nr_ext;
	}
	return b;
}

void blk_latency_free(struct blk_latency *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nr_devs; i++)
		for (int k = 0; k < NR_BLK_KINDS; k++)
			for (int d = 0; d < NR_BLK_DIRS; d++)
				free(b->devs[i].ns[k][d]);
	free(b->devs);
	free(b->fl);
	free(b->ext);
	free(b);
}

/* blk_fill_rwbs() writes 'F' for REQ_PREFLUSH, then the operation (W, D,
 * DE, F for REQ_OP_FLUSH, R, N), then the flags (F for FUA, A, S, M...):
 * the operation is the first letter, or the second after a preflush. */
int blk_rwbs_dir(const char *rwbs)
{
	const char *op = rwbs;
	if (op[0] == 'F' && (op[1] == 'W' || op[1] == 'R' || op[1] == 'D' || op[1] == 'N'))
		op++;
	return op[0] == 'R' ? BLK_READ : op[0] == 'W' ? BLK_WRITE : -1;
}

static int in_swap(const struct blk_latency *b, uint32_t dev, uint64_t sector)
{
	if (!b->swap_dev || dev != b->swap_dev)
		return 0;
	if (!b->nr_ext)
		return 1;
	for (size_t i = 0; i < b->nr_ext; i++)
		if (sector >= b->ext[i].start && sector < b->ext[i].end)
			return 1;
	return 0;
}

static struct inflight *find(struct blk_latency *b, uint32_t dev, uint64_t sector)
{
	for (size_t i = 0; i < b->nr_fl; i++)
		if (b->fl[i].dev == dev && b->fl[i].sector == sector)
			return &b->fl[i];
	return NULL;
}

int blk_latency_issue(struct blk_latency *b, uint64_t ts, uint32_t dev, uint64_t sector,
		      uint32_t nr_sector, const char *rwbs)
{
	int dir = blk_rwbs_dir(rwbs);
	if (dir < 0 || !nr_sector)
		return 0;
	/* A requeued request is issued again: its latency is from then. */
	struct inflight *f = find(b, dev, sector);
	if (!f) {
		if (b->nr_fl == MAX_INFLIGHT) {
			size_t old = 0;
			for (size_t i = 1; i < b->nr_fl; i++)
				if (b->fl[i].ts < b->fl[old].ts)
					old = i;
			b->fl[old] = b->fl[--b->nr_fl];
		}
		if (b->nr_fl == b->cap_fl) {
			size_t cap = b->cap_fl ? 2 * b->cap_fl : 64;
			struct inflight *n = realloc(b->fl, cap * sizeof(*n));
			if (!n)
				return -1;
			b->fl = n;
			b->cap_fl = cap;
		}
		f = &b->fl[b->nr_fl++];
	}
	*f = (struct inflight){ .ts = ts, .sector = sector, .dev = dev,
				.kind = in_swap(b, dev, sector) ? BLK_SWAP : BLK_FILE, .dir = (uint8_t)dir };
	return 0;
}

static struct blk_dev *dev_of(struct blk_latency *b, uint32_t dev, int create)
{
	for (size_t i = 0; i < b->nr_devs; i++)
		if (b->devs[i].dev == dev)
			return &b->devs[i];
	if (!create)
		return NULL;
	struct blk_dev *n = realloc(b->devs, (b->nr_devs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	b->devs = n;
	memset(&n[b->nr_devs], 0, sizeof(*n));
	n[b->nr_devs].dev = dev;
	return &n[b->nr_devs++];
}

void blk_latency_complete(struct blk_latency *b, uint64_t ts, uint32_t dev, uint64_t sector,
			  uint32_t nr_sector, const char *rwbs, int error)
{
	(void)nr_sector;
	if (blk_rwbs_dir(rwbs) < 0)
		return;
	struct inflight *f = find(b, dev, sector);
	if (!f)
		return;         /* issued before the capture began */
	struct inflight r = *f;
	*f = b->fl[--b->nr_fl];
	/* A failed request measured no service; a completion before its
	 * issue would be clock damage. */
	if (error || ts < r.ts)
		return;
	struct blk_dev *d = dev_of(b, dev, 1);
	if (!d)
		return;
	size_t *nr = &d->nr[r.kind][r.dir], *cap = &d->cap[r.kind][r.dir];
	if (*nr == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		uint64_t *n = realloc(d->ns[r.kind][r.dir], c * sizeof(*n));
		if (!n)
			return;     /* one sample fewer, not a wrong one */
		d->ns[r.kind][r.dir] = n;
		*cap = c;
	}
	d->ns[r.kind][r.dir][(*nr)++] = ts - r.ts;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void blk_latency_stat(struct blk_latency *b, uint32_t dev, enum blk_kind kind, struct blk_stat *st)
{
	memset(st, 0, sizeof(*st));
	struct blk_dev *d = dev ? dev_of(b, dev, 0) : NULL;
	for (int dir = 0; d && dir < NR_BLK_DIRS; dir++) {
		size_t n = d->nr[kind][dir];
		uint64_t *v = d->ns[kind][dir];
		if (!n)
			continue;
		qsort(v, n, sizeof(*v), cmp_u64);
		st->nr[dir] = n;
		/* The median; of an even number the mean of the middle two. */
		st->median_ns[dir] = n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
	}
}
