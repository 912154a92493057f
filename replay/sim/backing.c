/* backing.c — device presets and the queueing latency model (backing.h). */
#include "backing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Orders of magnitude of real devices, not measurements of one: zram
 * compresses on the CPU (a few us per page, synchronous); an NVMe SSD
 * answers in tens to a hundred us with a deep queue; the dm-delay cases
 * are that SSD behind a fixed delay, as in the isolation-throttle
 * patch's tests (10 ms for a build, 50 ms for the anon storm).  The delay
 * is not service time: drivers/md/dm-delay.c's delay_bio puts every bio
 * on its own list with an expiry and flush_delayed_bios submits it to
 * the device once that has passed, however many are waiting, so the
 * device's queue and throughput are the SSD's (depth 32 busy for 50 ms
 * each would pass 640 pages a second). */
static const struct backing_params presets[] = {
	{ "zram",          1,      3000,      10000,  1, 10, 0, 0, 0, 0 },
	{ "ssd",           0,    100000,      50000, 32, 10, 0, 0, 0, 0 },
	{ "hdd",           0,   8000000,    8000000,  1, 10, 1, 0, 0, 0 },
	{ "dm-delay-10ms", 0,    100000,      50000, 32, 10, 0, 10000000, 0, 0 },
	{ "dm-delay-50ms", 0,    100000,      50000, 32, 10, 0, 50000000, 0, 0 },
};

const char backing_presets_help[] =
	"  zram           synchronous, 3 us read, 10 us write (compression on the CPU)\n"
	"  ssd            100 us read, 50 us write, 32 requests in flight\n"
	"  hdd            8 ms per request, one at a time\n"
	"  dm-delay-10ms  an SSD behind dm-delay: every request held 10 ms, however\n"
	"                 many, before the SSD's queue (read=/write= set the SSD's)\n"
	"  dm-delay-50ms  the same with 50 ms\n"
	"  none           no swap (--swap only)\n";

int backing_parse(const char *spec, struct backing_params *p, uint64_t *size,
		  char *err, size_t errlen)
{
	char buf[256];
	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf)) {
		snprintf(err, errlen, "the device specification is too long");
		return -1;
	}
	/* strtok_r would pass over an empty key=value ("ssd," "ssd,,depth=2") */
	if (spec[0] == ',' || (spec[0] && spec[strlen(spec) - 1] == ',') || strstr(spec, ",,")) {
		snprintf(err, errlen, "'%s' has an empty key=value", spec);
		return -1;
	}
	char *save = NULL, *tok = strtok_r(buf, ",", &save);
	char seen[256] = ",";      /* ",key1,key2,": the keys given, to refuse repeats */
	if (!tok) {
		snprintf(err, errlen, "empty device specification");
		return -1;
	}
	const struct backing_params *pre = NULL;
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (strcmp(presets[i].name, tok) == 0)
			pre = &presets[i];
	if (!pre) {
		snprintf(err, errlen, "'%s' is not a device preset (zram, ssd, hdd, dm-delay-10ms, "
			 "dm-delay-50ms)", tok);
		return -1;
	}
	*p = *pre;
	while ((tok = strtok_r(NULL, ",", &save))) {
		char *eq = strchr(tok, '=');
		uint64_t v;
		if (!eq) {
			snprintf(err, errlen, "'%s' is not key=value", tok);
			return -1;
		}
		*eq = '\0';
		const char *val = eq + 1;
		char key[64];
		snprintf(key, sizeof(key), ",%.60s,", tok);
		if (strstr(seen, key)) {
			snprintf(err, errlen, "%s: given twice", tok);
			return -1;
		}
		size_t used = strlen(seen);    /* spec < 256 bytes: the keys fit */
		snprintf(seen + used, sizeof(seen) - used, "%s", key + 1);
		if (strcmp(tok, "size") == 0) {
			if (!size || cli_parse_size(val, &v) != 0) {
				snprintf(err, errlen, "size: '%s' is not a size", val);
				return -1;
			}
			*size = v;
		} else if (strcmp(tok, "read") == 0 || strcmp(tok, "write") == 0) {
			if (cli_parse_u64(val, 1, 10 * NSEC_PER_SEC, &v) != 0) {
				snprintf(err, errlen, "%s: '%s' is not a latency in ns (1-10^10)", tok, val);
				return -1;
			}
			if (tok[0] == 'r')
				p->read_ns = v;
			else
				p->write_ns = v;
		} else if (strcmp(tok, "depth") == 0) {
			if (cli_parse_u64(val, 1, 4096, &v) != 0) {
				snprintf(err, errlen, "depth: '%s' is not 1-4096", val);
				return -1;
			}
			p->depth = (uint32_t)v;
		} else if (strcmp(tok, "jitter") == 0) {
			if (cli_parse_u64(val, 0, 90, &v) != 0) {
				snprintf(err, errlen, "jitter: '%s' is not a percentage 0-90", val);
				return -1;
			}
			p->jitter_pct = (uint32_t)v;
		} else if (strcmp(tok, "rotational") == 0) {
			if (cli_parse_u64(val, 0, 1, &v) != 0) {
				snprintf(err, errlen, "rotational: '%s' is not 0 or 1", val);
				return -1;
			}
			p->rotational = (int)v;
		} else if (strcmp(tok, "ra_base") == 0 || strcmp(tok, "ra_page") == 0) {
			/* a window's base is a latency, its per-page part may be 0 */
			int base = strcmp(tok, "ra_base") == 0;
			if (cli_parse_u64(val, (uint64_t)base, 10 * NSEC_PER_SEC, &v) != 0) {
				snprintf(err, errlen, "%s: '%s' is not a time in ns (%d-10^10)", tok, val, base);
				return -1;
			}
			*(base ? &p->ra_base_ns : &p->ra_page_ns) = v;
		} else {
			snprintf(err, errlen, "'%s' is not a device parameter (size, read, write, depth, "
				 "jitter, rotational, ra_base, ra_page)", tok);
			return -1;
		}
	}
	return 0;
}

int backing_init(struct backing *b, const struct backing_params *p)
{
	memset(b, 0, sizeof(*b));
	b->p = *p;
	if (b->p.depth == 0)
		b->p.depth = 1;
	b->slot_free = calloc(b->p.depth, sizeof(*b->slot_free));
	return b->slot_free ? 0 : -1;
}

void backing_free(struct backing *b)
{
	free(b->slot_free);
	b->slot_free = NULL;
}

simtime_t backing_submit(struct backing *b, simtime_t now, simtime_t base, uint32_t rand)
{
	/* dm-delay's list: the request reaches the queue after the delay,
	 * in the order it was issued (one delay for all keeps FIFO). */
	now += b->p.delay_ns;
	/* A synchronous device works on the caller's CPU: no queue. */
	if (b->p.sync) {
		simtime_t span = base * b->p.jitter_pct / 100;
		return now + base - span + (span ? (simtime_t)((uint64_t)rand * (2 * span + 1) >> 32) : 0);
	}
	/* The request takes the slot that frees first (a FIFO of DEPTH
	 * servers).  slot_free is a min-heap: its root is that slot, and
	 * only the earliest time matters, not which server has it. */
	simtime_t *slot = b->slot_free;
	simtime_t start = slot[0] > now ? slot[0] : now;
	/* Jitter in integer arithmetic, so results are the same everywhere. */
	simtime_t span = base * b->p.jitter_pct / 100;
	simtime_t lat = base - span + (span ? (simtime_t)((uint64_t)rand * (2 * span + 1) >> 32) : 0);
	simtime_t done = start + lat;
	uint32_t i = 0, n = b->p.depth;
	for (;;) {              /* sift the root's new time down */
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && slot[c + 1] < slot[c])
			c++;
		if (slot[c] >= done)
			break;
		slot[i] = slot[c];
		i = c;
	}
	slot[i] = done;
	return done;
}
