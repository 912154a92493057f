/* records.c — reclaim records, their sums, the isolation timeline (records.h). */
#include "records.h"
#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>

void record_reclaim_begin(struct engine *e, struct scan_control *sc, enum reclaim_kind kind)
{
	struct reclaim_record *r = &sc->sim.rec;
	memset(r, 0, sizeof(*r));
	r->start = e->sim.now;
	r->task = sc->sim.task;
	r->kind = (uint8_t)kind;
	r->priority = DEF_PRIORITY;
}

void record_priority(struct scan_control *sc)
{
	if (sc->priority < sc->sim.rec.priority)
		sc->sim.rec.priority = (int8_t)sc->priority;
}

void record_scanned(struct scan_control *sc, uint64_t nr)
{
	sc->sim.rec.nr_scanned += nr;
}

void record_lru_scan(struct scan_control *sc, uint64_t target_anon, uint64_t target_file,
		     uint64_t scanned_anon, uint64_t scanned_file)
{
	struct reclaim_record *r = &sc->sim.rec;
	r->target_anon += target_anon;
	r->target_file += target_file;
	r->scanned_anon += scanned_anon;
	r->scanned_file += scanned_file;
}

void record_isolated(struct engine *e)
{
	uint64_t total = e->node.nr_isolated[0] + e->node.nr_isolated[1];
	if (total > e->vm[VM_nr_isolated_peak])
		e->vm[VM_nr_isolated_peak] = total;
	if (e->records.timeline)
		fprintf(e->records.timeline, "%llu\t%llu\t%llu\t%llu\n", (unsigned long long)e->sim.now,
			(unsigned long long)e->node.nr_isolated[0],
			(unsigned long long)e->node.nr_isolated[1],
			(unsigned long long)e->vm[VM_mm_vmscan_throttled]);
}

/* Is A slower than B?  Ties go to the earlier one, for determinism. */
static int slower(const struct reclaim_record *a, const struct reclaim_record *b)
{
	return a->duration > b->duration || (a->duration == b->duration && a->start < b->start);
}

void record_reclaim_end(struct engine *e, struct scan_control *sc)
{
	struct records *rs = &e->records;
	struct reclaim_record *r = &sc->sim.rec;
	r->duration = e->sim.now - r->start;
	r->nr_reclaimed = sc->nr_reclaimed;

	rs->sum.target_anon += r->target_anon;
	rs->sum.target_file += r->target_file;
	rs->sum.scanned_anon += r->scanned_anon;
	rs->sum.scanned_file += r->scanned_file;
	if (r->kind == RECLAIM_DIRECT) {
		/* Insertion into the sorted top SLOWEST_DIRECT. */
		rs->sum.direct++;
		uint32_t n = rs->sum.nr_slowest, i = n < SLOWEST_DIRECT ? n : SLOWEST_DIRECT - 1;
		if (n == SLOWEST_DIRECT && !slower(r, &rs->sum.slowest[SLOWEST_DIRECT - 1]))
			goto keep;
		while (i > 0 && slower(r, &rs->sum.slowest[i - 1])) {
			rs->sum.slowest[i] = rs->sum.slowest[i - 1];
			i--;
		}
		rs->sum.slowest[i] = *r;
		if (n < SLOWEST_DIRECT)
			rs->sum.nr_slowest++;
	}
keep:
	if (!rs->keep)
		return;
	if (rs->nr == rs->cap) {
		uint64_t cap = rs->cap ? 2 * rs->cap : 1024;
		struct reclaim_record *n = realloc(rs->all, cap * sizeof(*n));
		if (!n) {
			rs->failed = 1;
			return;
		}
		rs->all = n;
		rs->cap = cap;
	}
	rs->all[rs->nr++] = *r;
}

void records_free(struct records *r)
{
	free(r->all);
	r->all = NULL;
	r->nr = r->cap = 0;
}
