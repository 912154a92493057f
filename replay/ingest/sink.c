/*
 * sink.c — the event sink's state and output: per-task record streams
 * (delays, runs of consecutive ids; all but their last records wait in
 * the spill file, spill.h), dense page ids (pagemap.h), page
 * residency for the kernel-event demand, the metadata lines, the range
 * worker that gives pages their ids on a second thread, what kevents may
 * do to the streams (ingest_sink.h), and the .vmr the sink finally writes
 * (replay/vmr/FORMAT.md: META, TASKS, RECORDS, PAGES, VMSTAT, KEVENTS,
 * MEMCG).  A page is kept as its identity only (kind, space, inode,
 * index): addresses and offsets within a page are left out.
 *
 * Which events feed it is events.c's business; decoding, graph.c's.
 */
#include "sink.h"
#include "ingest.h"
#include "kevents.h"
#include "array.h"
#include "vmr/vmr_write.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Failure and metadata                                                */

void sink_fail(struct sink *s, const char *fmt, ...)
{
	pthread_mutex_lock(&s->fail_lock);
	if (!__atomic_load_n(&s->failed, __ATOMIC_ACQUIRE)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(s->err, s->errlen, fmt, ap);
		va_end(ap);
		__atomic_store_n(&s->failed, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&s->fail_lock);
}

void sink_meta_add(struct sink *s, const char *key, const char *fmt, ...)
{
	char val[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	for (char *p = val; *p; p++)          /* the format is line-based */
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	size_t need = strlen(key) + strlen(val) + 2;
	if (s->meta_len + need + 1 > s->meta_cap) {
		size_t cap = (s->meta_cap + need) * 2;
		char *m = realloc(s->meta, cap);
		if (!m) {
			sink_fail(s, "out of memory");
			return;
		}
		s->meta = m;
		s->meta_cap = cap;
	}
	s->meta_len += sprintf(s->meta + s->meta_len, "%s\t%s\n", key, val);
}

/* ------------------------------------------------------------------ */
/* Tasks                                                               */

struct task *sink_task_find(struct sink *s, uint32_t tid)
{
	uint64_t mask = s->nr_tid_slots - 1, j = (tid * 0x9E3779B97F4A7C15ull) >> 40 & mask;
	for (; s->tid_slots[j]; j = (j + 1) & mask) {
		struct task *t = &s->tasks[s->tid_slots[j] - 1];
		if (t->t.tid == tid && t->live)
			return t;
	}
	return NULL;
}

static void tid_index_rebuild(struct sink *s, uint64_t nr_slots)
{
	uint32_t *slots = calloc(nr_slots, sizeof(*slots));
	if (!slots) {
		sink_fail(s, "out of memory");
		return;
	}
	free(s->tid_slots);
	s->tid_slots = slots;
	s->nr_tid_slots = nr_slots;
	for (size_t i = 0; i < s->nr_tasks; i++) {
		if (!s->tasks[i].live)
			continue;
		uint64_t mask = nr_slots - 1;
		uint64_t j = (s->tasks[i].t.tid * 0x9E3779B97F4A7C15ull) >> 40 & mask;
		while (slots[j])
			j = (j + 1) & mask;
		slots[j] = i + 1;
	}
}

struct task *sink_task_new(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts)
{
	if (s->nr_tasks == s->cap_tasks) {
		size_t cap = s->cap_tasks ? 2 * s->cap_tasks : 64;
		struct task *n = realloc(s->tasks, cap * sizeof(*n));
		if (!n) {
			sink_fail(s, "out of memory");
			return NULL;
		}
		s->tasks = n;
		s->cap_tasks = cap;
	}
	struct task *t = &s->tasks[s->nr_tasks++];
	memset(t, 0, sizeof(*t));
	t->t.pid = pid;
	t->t.tid = tid;
	t->t.begin_ns = t->t.end_ns = t->last_ns = ts;
	t->live = 1;
	/* Ended tasks stay in the index until it is rebuilt; keep it sparse. */
	if (s->nr_tasks * 2 > s->nr_tid_slots) {
		tid_index_rebuild(s, s->nr_tid_slots * 2);
	} else {
		uint64_t mask = s->nr_tid_slots - 1, j = (tid * 0x9E3779B97F4A7C15ull) >> 40 & mask;
		while (s->tid_slots[j])
			j = (j + 1) & mask;
		s->tid_slots[j] = s->nr_tasks;
	}
	return s->failed ? NULL : t;
}

struct task *sink_task_get(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts)
{
	struct task *t = sink_task_find(s, tid);
	return t ? t : sink_task_new(s, pid, tid, ts);
}

/* Out of line: rare, so that the appends that inline push_rec stay
 * small.  A stream's buffer grows by doubling up to a chunk; a full
 * chunk goes to the spill file (spill.h) and the buffer starts again. */
static __attribute__((noinline, cold)) int recs_make_room(struct sink *s, struct task *t)
{
	if (t->cap < SPILL_RECS) {
		uint32_t cap = t->cap ? 2 * t->cap : 256;
		struct vmr_rec *r = realloc(t->recs, cap * sizeof(*r));
		if (!r) {
			sink_fail(s, "out of memory");
			return -1;
		}
		t->recs = r;
		t->cap = cap;
		return 0;
	}
	char why[4400];
	int64_t chunk = spill_put(&s->spill, t->recs, why, sizeof(why));
	if (chunk < 0) {
		sink_fail(s, "%s", why);
		return -1;
	}
	if (array_grow((void **)&t->chunks, &t->cap_chunks, t->nr_chunks + 1, sizeof(*t->chunks))) {
		sink_fail(s, "out of memory");
		return -1;
	}
	t->chunks[t->nr_chunks++] = (uint32_t)chunk;
	t->nr_buf = 0;
	return 0;
}

static inline void push_rec(struct sink *s, struct task *t, uint32_t page, uint32_t info)
{
	if (__builtin_expect(t->nr_buf == t->cap, 0) && recs_make_room(s, t) != 0)
		return;
	t->recs[t->nr_buf++] = (struct vmr_rec){ page, info };
	t->t.nr_recs++;
	s->records++;
}

/* Appends a record for COUNT consecutive page ids from PAGE at time TS.
 * The time since the task's previous record goes into the record itself
 * when it fits, else into a DELAY record before it; a run always takes
 * its time from a DELAY (runs have no delta field). */
static inline void emit(struct sink *s, struct task *t, uint64_t ts, uint32_t page, uint32_t count,
			unsigned op, unsigned flags)
{
	uint64_t delta = ts > t->last_ns ? ts - t->last_ns : 0;
	if (__builtin_expect(t->stall_ns != 0, 0) && ts > t->stall_from) {
		/* the kernel's reclaim in the gap: the replay simulates its
		 * own.  A record at TS inside the span (a page-cache insertion
		 * resolved after the reclaim that came after it) takes what
		 * lies before TS, at most (exact for one bracket). */
		uint64_t sub = t->stall_ns;
		if (ts < t->stall_to && ts - t->stall_from < sub)
			sub = ts - t->stall_from;
		t->stall_from = ts;
		t->stall_ns -= sub;
		delta -= sub;          /* stall_from >= last_ns: sub <= delta */
		s->stall_subtracted += sub;
	}
	t->last_ns = ts > t->last_ns ? ts : t->last_ns;
	t->t.end_ns = t->last_ns;
	if (delta > VMR_DELTA_MAX || (count > 1 && delta)) {
		push_rec(s, t, (uint32_t)(delta >> 24),
			 VMR_OP_DELAY | (uint32_t)(delta & VMR_DELTA_MAX) << VMR_DELTA_SHIFT);
		delta = 0;
	}
	if (count > 1)
		push_rec(s, t, page, op | flags | VMR_F_RUN | count << VMR_DELTA_SHIFT);
	else
		push_rec(s, t, page, op | flags | (uint32_t)delta << VMR_DELTA_SHIFT);
	if (vmr_op_is_access(op)) {
		t->t.nr_accesses += count;
		s->accesses += count;
	}
}

static inline void run_flush(struct run *r)
{
	if (r->count)
		emit(r->s, r->t, r->ts, r->first, r->count, r->op, r->flags);
	r->count = 0;
}

void sink_run_flush(struct run *r)
{
	run_flush(r);
}

/* Adds N consecutive ids from ID. */
static inline void run_add_span(struct run *r, uint32_t id, uint32_t n)
{
	if (r->count && id == r->first + r->count && r->count + n <= VMR_RUN_MAX) {
		r->count += n;
		return;
	}
	run_flush(r);
	r->first = id;
	r->count = n;
}

void sink_run_add(struct run *r, uint32_t id)
{
	run_add_span(r, id, 1);
}

void sink_set_page_size(struct sink *s, uint64_t ps, const char *ev)
{
	if (ps < VMR_PAGE_SIZE_MIN || ps > VMR_PAGE_SIZE_MAX || (ps & (ps - 1))) {
		sink_fail(s, "%s: event %s: field page_size: %llu is not a page size (a power of two "
			  "from %u to %u)", s->trace, ev, (unsigned long long)ps, VMR_PAGE_SIZE_MIN,
			  VMR_PAGE_SIZE_MAX);
		return;
	}
	if (s->saw_access && ps != s->page_size) {
		sink_fail(s, "%s: event %s: field page_size: %llu, but accesses before it assumed %llu",
			  s->trace, ev, (unsigned long long)ps, (unsigned long long)s->page_size);
		return;
	}
	s->page_size = ps;
	s->page_shift = __builtin_ctzll(ps);
}

/* Residency bytes for ids below NEED (zero: not resident).  0 / -1. */
static int resident_reserve(struct sink *s, uint64_t need)
{
	if (s->cap_resident >= need)
		return 0;
	uint64_t cap = s->cap_resident ? s->cap_resident : 4096;
	while (cap < need)
		cap *= 2;
	uint8_t *r = realloc(s->resident, cap);
	if (!r) {
		sink_fail(s, "out of memory");
		return -1;
	}
	memset(r + s->cap_resident, 0, cap - s->cap_resident);
	s->resident = r;
	s->cap_resident = cap;
	return 0;
}

/* An access to pages J..JEND of chunk CH (whose first page is BASE):
 * the untouched ones get ids, in page order, and the ids go to R in
 * spans of consecutive ids, in one pass.  A page without an id extends
 * the span only if the id it gets next (the next free one) is the span's
 * next.  Pages first touched together got consecutive ids, so a range is
 * usually one span, found without per-page calls.  Adds the pages to
 * *PAGES; -1 when ids run out. */
static int access_spans(struct sink *s, struct run *r, struct pagemap_chunk *ch, uint64_t base,
			unsigned j, unsigned jend, uint64_t *pages)
{
	while (j <= jend) {
		uint32_t first = ch->id[j];
		if (first == PAGEMAP_NONE && (first = pagemap_new_id(&s->pm, ch, base + j)) == PAGEMAP_NONE)
			return -1;
		unsigned k = j + 1;
		for (uint32_t next = first + 1; k <= jend; k++, next++) {
			if (ch->id[k] == next)
				continue;
			if (ch->id[k] != PAGEMAP_NONE || s->pm.nr_pages != next)
				break;
			if (pagemap_new_id(&s->pm, ch, base + k) == PAGEMAP_NONE)
				return -1;
		}
		if (s->track_resident)
			memset(s->resident + first, 1, k - j);
		run_add_span(r, first, k - j);
		*pages += k - j;
		j = k;
	}
	return 0;
}

/* Appends OP on pages FIRST..LAST of (KIND, SPACE, INO) to T's stream at
 * TS.  KNOWN_ONLY: only pages that have ids and are resident (LOADs of a
 * DAMON pass).  Returns the pages referenced. */
uint64_t sink_add_pages(struct sink *s, struct task *t, uint64_t ts, enum vmr_page_kind kind,
			uint64_t space, uint64_t ino, uint64_t first, uint64_t last, unsigned op,
			int known_only)
{
	/* OP may carry VMR_F_FAULT (a read-ahead inside a fault) or
	 * VMR_F_UACCESS (a user copy) for its records */
	unsigned fault = op & (VMR_F_FAULT | VMR_F_UACCESS);
	op &= 0xfu;
	struct run run = { s, t, ts, op, (kind == VMR_PAGE_FILE ? VMR_F_FILE : 0) | fault, 0, 0 };
	int create = op != VMR_OP_FREE && !known_only, oom = 0;
	uint64_t pages = 0;
	for (uint64_t pg = first; pg <= last && !s->failed;) {
		uint64_t chunk_end = (pg | (PAGEMAP_CHUNK - 1));
		if (chunk_end > last)
			chunk_end = last;
		struct pagemap_chunk *ch = pagemap_chunk(&s->pm, kind, space, ino, pg, create, &oom);
		if (oom) {
			sink_fail(s, "out of memory (page table)");
			return pages;
		}
		if (!ch) {                     /* FREE of a never-touched chunk */
			pg = chunk_end + 1;
			continue;
		}
		unsigned j = pg & (PAGEMAP_CHUNK - 1), jend = chunk_end & (PAGEMAP_CHUNK - 1);
		/* Room for the ids this chunk may add (each page at most one). */
		if (s->track_resident && resident_reserve(s, s->pm.nr_pages + (create ? jend - j + 1 : 0)))
			return pages;
		if (create) {
			if (access_spans(s, &run, ch, pg & ~(uint64_t)(PAGEMAP_CHUNK - 1), j, jend, &pages)) {
				sink_fail(s, "out of memory (page ids)");
				return pages;
			}
			pg = chunk_end + 1;
			continue;
		}
		/* A FREE, or LOADs of known pages only: the pages that have
		 * ids (and, when tracked, are resident), in spans. */
		while (j <= jend) {
			uint32_t first = ch->id[j];
			unsigned k = j + 1;
			if (first == PAGEMAP_NONE ||           /* never touched */
			    (s->track_resident && !s->resident[first])) {
				j++;
				continue;
			}
			while (k <= jend && ch->id[k] == first + (k - j) &&
			       (!s->track_resident || s->resident[first + (k - j)]))
				k++;
			if (s->track_resident)
				memset(s->resident + first, op != VMR_OP_FREE, k - j);
			run_add_span(&run, first, k - j);
			pages += k - j;
			j = k;
		}
		pg = chunk_end + 1;
	}
	run_flush(&run);
	return pages;
}

/* Range events this far ahead have their chunks prefetched (the storm's
 * take the worker 300 ns each, a miss to memory 100 ns or more). */
#define PREFETCH_AHEAD 4

/* The second thread: range events, in trace order, become records. */
void *sink_range_worker(void *arg)
{
	struct sink *s = arg;
	struct range_cmd *cmd;
	while ((cmd = spsc_next(&s->q))) {
		const struct range_cmd *next = spsc_peek(&s->q, PREFETCH_AHEAD);
		if (next)
			pagemap_prefetch(&s->pm, next->kind, next->space, next->ino, next->first);
		if (!__atomic_load_n(&s->failed, __ATOMIC_ACQUIRE)) {
			struct task *t = sink_task_get(s, cmd->pid, cmd->tid, cmd->ts);
			if (t)
				sink_add_pages(s, t, cmd->ts, cmd->kind, cmd->space, cmd->ino, cmd->first,
					       cmd->last, cmd->op, 0);
		}
		spsc_done(&s->q);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* What kdemand.c may do to the streams (ingest_sink.h)                */

int ingest_sink_range(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts,
		      enum vmr_page_kind kind, uint64_t space, uint64_t ino,
		      uint64_t first, uint64_t last, unsigned op)
{
	if (s->failed || last < first)
		return s->failed ? -1 : 0;
	if (!s->page_size)
		sink_set_page_size(s, 4096, "(kernel events)");
	s->saw_access = 1;
	struct task *t = sink_task_get(s, pid, tid, ts);
	if (!t)
		return -1;
	sink_add_pages(s, t, ts, kind, space, ino, first, last, op, 0);
	return s->failed ? -1 : 0;
}

int64_t ingest_sink_known(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts,
			  enum vmr_page_kind kind, uint64_t space, uint64_t ino,
			  uint64_t first, uint64_t last, unsigned op)
{
	if (s->failed || last < first)
		return s->failed ? -1 : 0;
	struct task *t = sink_task_find(s, tid);
	if (!t) {
		/* A pass over an address space whose tasks have no stream
		 * yet: it names no resident page, so it adds nothing. */
		return 0;
	}
	(void)pid;
	uint64_t n = sink_add_pages(s, t, ts, kind, space, ino, first, last, op, 1);
	return s->failed ? -1 : (int64_t)n;
}

int ingest_sink_untouched(struct sink *s, enum vmr_page_kind kind, uint64_t space, uint64_t ino,
			  uint64_t first, uint64_t last)
{
	for (uint64_t pg = first; pg <= last;) {
		uint64_t chunk_end = pg | (PAGEMAP_CHUNK - 1);
		if (chunk_end > last)
			chunk_end = last;
		int oom = 0;
		const struct pagemap_chunk *ch = pagemap_chunk(&s->pm, kind, space, ino, pg, 0, &oom);
		for (uint64_t p = pg; ch && p <= chunk_end; p++)
			if (ch->id[p & (PAGEMAP_CHUNK - 1)] != PAGEMAP_NONE)
				return 0;
		pg = chunk_end + 1;
	}
	return 1;
}

int ingest_sink_free_space(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts, uint64_t space)
{
	struct task *t = sink_task_find(s, tid);
	if (!t || s->failed)
		return s->failed ? -1 : 0;
	(void)pid;
	struct run run = { s, t, ts, VMR_OP_FREE, 0, 0, 0 };
	for (uint32_t ci = 0; ci < s->pm.nr_chunks && !s->failed; ci++) {
		const struct pagemap_chunk *ch = &s->pm.chunks[ci];
		if ((ch->key >> 63) != VMR_PAGE_ANON || ch->space != space)
			continue;
		for (unsigned j = 0; j < PAGEMAP_CHUNK; j++) {
			uint32_t id = ch->id[j];
			if (id == PAGEMAP_NONE || (s->track_resident && !s->resident[id]))
				continue;
			if (s->track_resident)
				s->resident[id] = 0;
			sink_run_add(&run, id);
		}
	}
	sink_run_flush(&run);
	return s->failed ? -1 : 0;
}

uint64_t ingest_sink_stall(struct sink *s, uint32_t tid, uint64_t begin, uint64_t end)
{
	struct task *t = sink_task_find(s, tid);
	if (!t)
		return 0;
	/* only what lies after its last record: the gaps before that are
	 * written already */
	uint64_t from = begin > t->last_ns ? begin : t->last_ns;
	if (end <= from)
		return 0;
	if (!t->stall_ns)
		t->stall_from = from;
	t->stall_to = end;
	t->stall_ns += end - from;
	return end - from;
}

uint64_t ingest_sink_stall_subtracted(const struct sink *s) { return s->stall_subtracted; }

void ingest_sink_task_end(struct sink *s, uint32_t tid, uint64_t ts)
{
	struct task *t = sink_task_find(s, tid);
	if (!t)
		return;
	t->t.end_ns = ts > t->t.end_ns ? ts : t->t.end_ns;
	t->live = 0;
}

uint64_t ingest_sink_drop_tasks(struct sink *s, int (*foreign)(void *arg, uint32_t pid), void *arg)
{
	uint64_t dropped = 0;
	size_t kept = 0;
	for (size_t i = 0; i < s->nr_tasks; i++) {
		struct task *t = &s->tasks[i];
		if (!foreign(arg, t->t.pid)) {
			s->tasks[kept++] = *t;
			continue;
		}
		dropped += t->t.nr_accesses;
		s->records -= t->t.nr_recs;
		s->accesses -= t->t.nr_accesses;
		free(t->recs);
		free(t->chunks);   /* its spilled chunks stay in the file, never read */
	}
	if (kept == s->nr_tasks)
		return 0;
	s->nr_tasks = kept;
	tid_index_rebuild(s, s->nr_tid_slots);
	/* Nobody's stream is left: the page ids the dropped ones made go too,
	 * so that a demand stream from kernel events numbers its own from 0.
	 * (Where some remain, the dropped tasks' pages stay, never touched.) */
	if (!kept) {
		pagemap_free(&s->pm);
		if (pagemap_init(&s->pm) != 0)
			sink_fail(s, "out of memory");
	}
	return dropped;
}

void ingest_sink_name_tasks(struct sink *s, void (*fn)(void *arg, uint32_t tid, uint32_t *ppid,
						       char comm[16]), void *arg)
{
	for (size_t i = 0; i < s->nr_tasks; i++)
		fn(arg, s->tasks[i].t.tid, &s->tasks[i].t.ppid, s->tasks[i].t.comm);
}

void ingest_sink_each_file_page(struct sink *s, void (*fn)(void *arg, struct vmr_page *p), void *arg)
{
	for (uint32_t i = 0; i < s->pm.nr_pages; i++)
		if (s->pm.pages[i].kind == VMR_PAGE_FILE)
			fn(arg, &s->pm.pages[i]);
}

int ingest_sink_track_residency(struct sink *s)
{
	s->track_resident = 1;
	return 0;
}

uint64_t ingest_sink_mem_total(const struct sink *s)
{
	return s->mem_total;
}

uint64_t ingest_sink_page_size(struct sink *s)
{
	if (!s->page_size)
		sink_set_page_size(s, 4096, "(kernel events)");
	return s->page_size;
}

uint64_t ingest_sink_accesses(const struct sink *s) { return s->accesses; }
int ingest_sink_failed(const struct sink *s) { return s->failed; }

void ingest_sink_fail(struct sink *s, const char *fmt, ...)
{
	if (s->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, s->errlen, fmt, ap);
	va_end(ap);
	s->failed = 1;
}

void ingest_sink_meta(struct sink *s, const char *key, const char *fmt, ...)
{
	char val[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	sink_meta_add(s, key, "%s", val);
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

static int cmp_skip(const void *a, const void *b)
{
	const struct evclass *x = a, *y = b;
	return strcmp(x->name, y->name);
}

/* Events by provider ("vmreplay=9, kernel=31556"): what a trace holds,
 * said when it holds nothing to replay. */
static void summarise_providers(const struct sink *s, struct ingest_report *rep)
{
	struct { char name[64]; uint64_t n; } p[16];
	size_t np = 0, other = 0;
	for (size_t i = 0; i < s->nr_classes; i++) {
		const char *name = s->classes[i].name, *colon = strchr(name, ':');
		char prov[64];
		snprintf(prov, sizeof(prov), "%.*s", colon ? (int)(colon - name) : 6,
			 colon ? name : "kernel");
		size_t j;
		for (j = 0; j < np && strcmp(p[j].name, prov) != 0; j++)
			;
		if (j == np && np < sizeof(p) / sizeof(p[0])) {
			snprintf(p[np].name, sizeof(p[np].name), "%s", prov);
			p[np++].n = 0;
		}
		if (j < np)
			p[j].n += s->classes[i].count;
		else
			other += s->classes[i].count;
	}
	size_t len = 0;
	rep->providers[0] = '\0';
	for (size_t j = 0; j <= np; j++) {
		if (j == np && !other)
			break;
		int w = snprintf(rep->providers + len, sizeof(rep->providers) - len, "%s%s=%llu",
				 len ? ", " : "", j < np ? p[j].name : "others",
				 (unsigned long long)(j < np ? p[j].n : other));
		if (w < 0 || (size_t)w >= sizeof(rep->providers) - len)
			break;
		len += (size_t)w;
	}
}

void sink_summarise(struct sink *s, struct ingest_report *rep)
{
	rep->events = s->events;
	rep->discarded = s->discarded;
	rep->tasks = s->nr_tasks;
	rep->records = s->records;
	rep->accesses = s->accesses;
	rep->pages = s->pm.nr_pages;
	rep->kernel_alloc_events = s->kalloc_events;
	rep->kernel_free_events = s->kfree_events;
	uint64_t nr_kev;
	const struct vmr_kev *kev = kevents_ground(s->kev, &nr_kev);
	rep->reclaim_events = vmr_kev_reclaim_count(kev, nr_kev);
	summarise_providers(s, rep);
	/* Skipped names in a stable order, counts merged across classes. */
	struct evclass *sk = calloc(s->nr_classes ? s->nr_classes : 1, sizeof(*sk));
	size_t n = 0, len = 0;
	for (size_t i = 0; sk && i < s->nr_classes; i++)
		if (s->classes[i].kind == EV_SKIP && s->classes[i].count)
			sk[n++] = s->classes[i];
	if (sk)
		qsort(sk, n, sizeof(*sk), cmp_skip);
	rep->skipped[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		uint64_t cnt = sk[i].count;
		while (i + 1 < n && strcmp(sk[i].name, sk[i + 1].name) == 0)
			cnt += sk[++i].count;
		int w = snprintf(rep->skipped + len, sizeof(rep->skipped) - len, "%s%s=%llu",
				 len ? ", " : "", sk[i].name, (unsigned long long)cnt);
		if (w < 0 || (size_t)w >= sizeof(rep->skipped) - len) {
			snprintf(rep->skipped + sizeof(rep->skipped) - 5, 5, "…");
			break;
		}
		len += w;
	}
	free(sk);
}

/* Consecutive chunks of the spill file written at once, at most: an
 * append of 1 MiB is checksummed on a second thread (vmr_write.c), and
 * the process holds no more than this of the mapping at a time. */
#define SPILL_RUN 16

/* RECORDS: every task's stream, its spilled chunks then its buffer. */
static int write_records(struct sink *s, struct vmr_writer *w, char *err, size_t errlen)
{
	const struct vmr_rec *map = NULL;
	if (s->spill.nr_chunks && !(map = spill_map(&s->spill, err, errlen)))
		return -1;
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct task *t = &s->tasks[i];
		for (size_t c = 0, e; c < t->nr_chunks; c = e) {
			for (e = c + 1; e < t->nr_chunks && e - c < SPILL_RUN &&
				     t->chunks[e] == t->chunks[e - 1] + 1; e++)
				;
			vmr_writer_append(w, map + (size_t)t->chunks[c] * SPILL_RECS, (e - c) * SPILL_BYTES);
			spill_done(&s->spill, t->chunks[c], (uint32_t)(e - c));
		}
		vmr_writer_append(w, t->recs, t->nr_buf * sizeof(struct vmr_rec));
	}
	return 0;
}

int sink_write_vmr(struct sink *s, const char *path, const uint8_t hash[16], char *err, size_t errlen)
{
	/* The checks vmr_open makes, made before writing: a value from the
	 * trace that a replay could not trust fails here, naming the trace,
	 * rather than in every replay of it. */
	char why[256];
	if (vmr_meta_check(s->meta ? s->meta : "", s->meta_len, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "%s: %s (a value from the trace)", s->trace, why);
		return -1;
	}
	struct vmr_writer *w = vmr_writer_create(path, err, errlen);
	if (!w)
		return -1;
	uint64_t first = 0;
	for (size_t i = 0; i < s->nr_tasks; i++) {
		s->tasks[i].t.first_rec = first;
		first += s->tasks[i].t.nr_recs;
	}
	vmr_writer_begin(w, VMR_SEC_META);
	vmr_writer_append(w, s->meta, s->meta_len);
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_TASKS);
	for (size_t i = 0; i < s->nr_tasks; i++)
		vmr_writer_append(w, &s->tasks[i].t, sizeof(struct vmr_task));
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_RECORDS);
	if (write_records(s, w, err, errlen) != 0) {
		vmr_writer_abort(w);
		return -1;
	}
	vmr_writer_end(w);
	spill_close_start(&s->spill);
	vmr_writer_begin(w, VMR_SEC_PAGES);
	vmr_writer_append(w, s->pm.pages, (size_t)s->pm.nr_pages * sizeof(struct vmr_page));
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_VMSTAT);
	vmr_writer_append(w, s->vmstat, s->nr_vmstat * sizeof(struct vmr_vmstat));
	vmr_writer_end(w);
	uint64_t nr_kev, nr_memcg;
	const struct vmr_kev *kev = kevents_ground(s->kev, &nr_kev);
	const struct vmr_memcg *memcg = kevents_memcg(s->kev, &nr_memcg);
	vmr_writer_begin(w, VMR_SEC_KEVENTS);
	vmr_writer_append(w, kev, nr_kev * sizeof(*kev));
	vmr_writer_end(w);
	vmr_writer_begin(w, VMR_SEC_MEMCG);
	vmr_writer_append(w, memcg, nr_memcg * sizeof(*memcg));
	vmr_writer_end(w);
	struct vmr_header counts = { 0 };
	memcpy(counts.trace_hash, hash, 16);
	counts.nr_tasks = s->nr_tasks;
	counts.nr_records = s->records;
	counts.nr_pages = s->pm.nr_pages;
	counts.nr_accesses = s->accesses;
	return vmr_writer_finish(w, &counts, err, errlen);
}

void sink_free(struct sink *s)
{
	for (size_t i = 0; i < s->nr_classes; i++)
		bt_event_class_put_ref(s->classes[i].ec);
	free(s->classes);
	for (size_t i = 0; i < s->nr_tasks; i++) {
		free(s->tasks[i].recs);
		free(s->tasks[i].chunks);
	}
	spill_close(&s->spill);
	free(s->tasks);
	free(s->tid_slots);
	pagemap_free(&s->pm);
	free(s->meta);
	free(s->vmstat);
	kevents_free(s->kev);
	free(s->resident);
	pthread_mutex_destroy(&s->fail_lock);
}
