/*
 * page_io.c — reads and writes of pages on their devices, after
 * mm/page_io.c (swap_read_folio, swap_writeout) and the file system's
 * read and writeback I/O: each is a request to a device model
 * (sim/backing.h) whose latency is jittered by the run's seed.
 */
#include "internal.h"

simtime_t submit_read(struct engine *e, struct backing *dev)
{
	simtime_t done = backing_submit(dev, e->sim.now, dev->p.read_ns,
					(uint32_t)engine_rand(e, 1ull << 32));
	dev->reads++;
	return done;
}

/* The read of a read-ahead window (read_pages: one request for all its
 * folios), which nobody here waits for: it completes one request's
 * latency on (the capture's median, without jitter) and takes no slot
 * in the device's queue, whose requests here are single pages. */
simtime_t submit_read_batched(struct engine *e, struct backing *dev)
{
	dev->reads++;
	return e->sim.now + dev->p.delay_ns + dev->p.read_ns;
}

void submit_write(struct engine *e, uint32_t pfn)
{
	struct backing *dev = folio_is_file_lru(&e->folio[pfn]) ? &e->file : &e->swap;
	simtime_t done = backing_submit(dev, e->sim.now, dev->p.write_ns,
					(uint32_t)engine_rand(e, 1ull << 32));
	sim_at(&e->sim, done, EV_IO_DONE, pfn, 0);
}

simtime_t submit_write_sync(struct engine *e, struct backing *dev)
{
	return backing_submit(dev, e->sim.now, dev->p.write_ns, (uint32_t)engine_rand(e, 1ull << 32));
}
