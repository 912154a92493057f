/*
 * page_io.c — reads and writes of pages on their devices, after
 * mm/page_io.c (swap_read_folio, swap_writeout) and the file system's
 * read and writeback I/O: each is a request to a device model
 * (sim/backing.h) whose latency is jittered by the run's seed.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

simtime_t submit_read(struct engine *e, struct backing *dev)
{
	simtime_t done = backing_submit(dev, e->sim.now, dev->p.read_ns,
					(uint32_t)engine_rand(e, 1ull << 32));
	dev->reads++;
	return done;
}

/* The read of a read-ahead window of PAGES pages (read_pages: the file
 * system's bios for all its folios), which nobody here waits for and
 * which takes no slot in the device's queue, whose requests here are
 * single pages.  It completes, without jitter, after what the capture's
 * synchronous windows took for that many pages (ra_base_ns + ra_page_ns
 * a page: ingest's line through them, DEVIATIONS.md), or where the
 * capture measured none, one request's latency (its median). */
simtime_t submit_read_batched(struct engine *e, struct backing *dev, uint32_t pages)
{
	dev->reads++;
	simtime_t t = dev->p.ra_base_ns ? dev->p.ra_base_ns + dev->p.ra_page_ns * pages : dev->p.read_ns;
	return e->sim.now + dev->p.delay_ns + t;
}

static void submit_write_now(struct engine *e, uint32_t pfn)
{
	struct backing *dev = folio_is_file_lru(&e->folio[pfn]) ? &e->file : &e->swap;
	simtime_t done = backing_submit(dev, e->sim.now, dev->p.write_ns,
					(uint32_t)engine_rand(e, 1ull << 32));
	sim_at(&e->sim, done, EV_IO_DONE, pfn, 0);
}

/* A request's most: BLK_DEF_MAX_SECTORS_CAP (2560 sectors, 1280 KiB, the
 * max_sectors_kb of the capture machine's virtio disk). */
#define PLUG_RQ_MAX_PAGES (2560 * 512 / 4096)
/* BLK_MAX_REQUEST_COUNT (one hardware queue) and BLK_PLUG_FLUSH_SIZE. */
#define BLK_MAX_REQUEST_COUNT 32
#define BLK_PLUG_FLUSH_PAGES (128 * 1024 / 4096)

void blk_start_plug(struct blk_plug *plug)
{
	memset(plug, 0, sizeof(*plug));
}

/* blk_mq_flush_plug_list: every plugged write goes to its device. */
void blk_flush_plug(struct engine *e, struct blk_plug *plug)
{
	for (uint32_t i = 0; i < plug->nr; i++)
		if (e->folio[plug->pfn[i]].flags & PG_writeback)   /* not released meanwhile */
			submit_write_now(e, plug->pfn[i]);
	plug->nr = plug->rq_count = plug->first_pages = plug->last_pages = 0;
}

void blk_finish_plug(struct engine *e, struct blk_plug *plug)
{
	blk_flush_plug(e, plug);
	free(plug->pfn);
	plug->pfn = NULL;
	plug->cap = 0;
}

/* submit_bio of a plugged write, as blk_mq_submit_bio does it: the bio
 * merges into the plug's last request when its slot follows that
 * request's (blk_attempt_plug_merge tries mq_list.tail) and the request
 * has room; else it is a new request, and blk_add_rq_to_plug first
 * flushes a plug that holds BLK_MAX_REQUEST_COUNT requests or whose
 * "last" request reached BLK_PLUG_FLUSH_SIZE — rq_list_peek, the list's
 * head, which since requests are added at the tail (6.13) is the first
 * one.  Where the replay keeps no slot positions (a
 * non-rotational device) the cluster allocator's slots of one reclaimer
 * are taken as consecutive. */
static void blk_add_write(struct engine *e, struct blk_plug *plug, uint32_t pfn)
{
	uint32_t slot = e->si.swap_map ? e->si.slot_of[pfn] : plug->last_slot + 1;
	if (plug->rq_count && slot == plug->last_slot + 1 && plug->last_pages < PLUG_RQ_MAX_PAGES) {
		plug->last_pages++;
		if (plug->rq_count == 1)
			plug->first_pages++;
	} else {
		if (plug->rq_count >= BLK_MAX_REQUEST_COUNT || plug->first_pages >= BLK_PLUG_FLUSH_PAGES)
			blk_flush_plug(e, plug);
		if (!plug->rq_count)
			plug->first_pages = 1;
		plug->rq_count++;
		plug->last_pages = 1;
	}
	plug->last_slot = slot;
	if (plug->nr == plug->cap) {
		uint32_t cap = plug->cap ? 2 * plug->cap : 256;
		uint32_t *n = realloc(plug->pfn, cap * sizeof(*n));
		if (!n) {
			e->failed = 1;
			submit_write_now(e, pfn);
			return;
		}
		plug->pfn = n;
		plug->cap = cap;
	}
	plug->pfn[plug->nr++] = pfn;
}

void submit_write(struct engine *e, uint32_t pfn, struct blk_plug *plug)
{
	if (plug)
		blk_add_write(e, plug, pfn);
	else
		submit_write_now(e, pfn);
}

simtime_t submit_write_sync(struct engine *e, struct backing *dev)
{
	return backing_submit(dev, e->sim.now, dev->p.write_ns, (uint32_t)engine_rand(e, 1ull << 32));
}
