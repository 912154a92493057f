/*
 * ingest.c — decode a CTF trace with libbabeltrace2 and write a .vmr.
 *
 * The graph is source.ctf.fs (one per trace UUID group) → utils.muxer →
 * a simple sink.  The sink resolves each event class once (field indices
 * and types, cached by class pointer: looking fields up by name on every
 * event costs a third of the decoder's speed, tracing-notes.md §1.6) and
 * then only reads integers by index.
 */
#include "ingest.h"
#include "atomic.h"
#include "ingest_sink.h"
#include "kevents.h"
#include "pagemap.h"
#include "spsc.h"
#include "progress.h"
#include "tracedir.h"
#include "vmr/vmr_write.h"

#include <babeltrace2/babeltrace.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#define PROVIDER "vmreplay"
/* A range event longer than this is not something a workload did. */
#define MAX_RANGE_BYTES (1ull << 40)

/* ------------------------------------------------------------------ */
/* What ingest understands                                             */

enum ev_kind {
	EV_SESSION, EV_VMSTAT, EV_TASK_BEGIN, EV_TASK_END,
	EV_ANON_ACCESS, EV_ANON_FREE, EV_FILE_ACCESS, EV_FILE_DROP,
	EV_CGROUP,
	EV_KERNEL_PAGE_ALLOC, EV_KERNEL_PAGE_FREE,
	EV_KERNEL,                     /* kevents.c reads it */
	EV_SKIP,
};

enum ftype { F_INT, F_STR };

#define MAX_FIELDS (VMR_NR_VMSTAT + 1)

struct event_spec {
	const char *name;
	enum ev_kind kind;
	int nr;
	struct { const char *name; enum ftype type; } f[12];
};

static const struct event_spec specs[] = {
	{ PROVIDER ":session", EV_SESSION, 10, {
		{ "workload", F_STR }, { "argv", F_STR }, { "memory_limit", F_INT },
		{ "swappiness", F_INT }, { "page_size", F_INT }, { "kernel_release", F_STR },
		{ "hostname", F_STR }, { "nr_cpus", F_INT }, { "mem_total", F_INT },
		{ "lru_kind", F_STR } } },
	{ PROVIDER ":vmstat", EV_VMSTAT, 0, { { 0 } } },   /* fields: vmr_vmstat_names */
	{ PROVIDER ":task_begin", EV_TASK_BEGIN, 4, {
		{ "pid", F_INT }, { "tid", F_INT }, { "ppid", F_INT }, { "comm", F_STR } } },
	{ PROVIDER ":task_end", EV_TASK_END, 3, {
		{ "pid", F_INT }, { "tid", F_INT }, { "status", F_INT } } },
	{ PROVIDER ":cgroup", EV_CGROUP, 5, {
		{ "pid", F_INT }, { "tid", F_INT }, { "path", F_STR }, { "limit", F_INT },
		{ "swappiness", F_INT } } },
	{ PROVIDER ":anon_access", EV_ANON_ACCESS, 5, {
		{ "pid", F_INT }, { "tid", F_INT }, { "addr", F_INT }, { "len", F_INT },
		{ "write", F_INT } } },
	{ PROVIDER ":anon_free", EV_ANON_FREE, 4, {
		{ "pid", F_INT }, { "tid", F_INT }, { "addr", F_INT }, { "len", F_INT } } },
	{ PROVIDER ":file_access", EV_FILE_ACCESS, 7, {
		{ "pid", F_INT }, { "tid", F_INT }, { "dev", F_INT }, { "ino", F_INT },
		{ "offset", F_INT }, { "len", F_INT }, { "op", F_INT } } },
	{ PROVIDER ":file_drop", EV_FILE_DROP, 4, {
		{ "pid", F_INT }, { "tid", F_INT }, { "dev", F_INT }, { "ino", F_INT } } },
	/* Kernel-domain page allocator events, under both lttng-modules names. */
	{ "kmem_mm_page_alloc", EV_KERNEL_PAGE_ALLOC, 1, { { "order", F_INT } } },
	{ "mm_page_alloc", EV_KERNEL_PAGE_ALLOC, 1, { { "order", F_INT } } },
	{ "kmem_mm_page_free", EV_KERNEL_PAGE_FREE, 1, { { "order", F_INT } } },
	{ "mm_page_free", EV_KERNEL_PAGE_FREE, 1, { { "order", F_INT } } },
};

/* One event class as met in the trace, resolved once. */
struct evclass {
	const bt_event_class *ec;      /* referenced */
	enum ev_kind kind;
	const char *name;              /* owned by ec */
	int nr;
	uint64_t idx[MAX_FIELDS];
	int is_signed[MAX_FIELDS];
	int kidx;                      /* EV_KERNEL: kevents' class */
	uint64_t count;
};

/* ------------------------------------------------------------------ */
/* Per-task record streams                                             */

struct task {
	struct vmr_task t;
	struct vmr_rec *recs;
	uint64_t cap;
	uint64_t last_ns;
	int live;                      /* no task_end seen yet */
};

struct sink {
	const char *trace;
	char *err;
	size_t errlen;
	int failed;

	struct evclass *classes;
	size_t nr_classes, cap_classes;

	struct task *tasks;
	size_t nr_tasks, cap_tasks;
	uint32_t *tid_slots;           /* tid → live task index + 1 */
	uint64_t nr_tid_slots;

	struct pagemap pm;
	uint64_t page_size;
	int page_shift;
	int saw_access;

	char *meta;                    /* "key\tvalue\n" lines */
	size_t meta_len, meta_cap;
	int saw_session;

	struct vmr_vmstat *vmstat;
	size_t nr_vmstat, cap_vmstat;

	uint64_t events, discarded, records, accesses;
	uint64_t kalloc_events, kalloc_pages, kfree_events, kfree_pages;

	struct kevents *kev;           /* kernel events and the capture's facts */
	uint8_t *resident;             /* by page id, when tracking residency */
	uint64_t cap_resident;
	int track_resident;

	struct progress progress;
	uint64_t heartbeat;            /* read by the watchdog (atomically) */

	/* Page ids and records are made on a second thread, fed in order
	 * through Q, so decoding and page-id assignment overlap on two cores.
	 * Anything else that touches tasks or pages first drains Q. */
	struct spsc q;
	pthread_t worker;
	int worker_on;
	pthread_mutex_t fail_lock;
};

static void fail(struct sink *s, const char *fmt, ...)
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

static void meta_add(struct sink *s, const char *key, const char *fmt, ...)
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
			fail(s, "out of memory");
			return;
		}
		s->meta = m;
		s->meta_cap = cap;
	}
	s->meta_len += sprintf(s->meta + s->meta_len, "%s\t%s\n", key, val);
}

/* ------------------------------------------------------------------ */
/* Tasks                                                               */

static struct task *task_find(struct sink *s, uint32_t tid)
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
		fail(s, "out of memory");
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

static struct task *task_new(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts)
{
	if (s->nr_tasks == s->cap_tasks) {
		size_t cap = s->cap_tasks ? 2 * s->cap_tasks : 64;
		struct task *n = realloc(s->tasks, cap * sizeof(*n));
		if (!n) {
			fail(s, "out of memory");
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

static struct task *task_get(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts)
{
	struct task *t = task_find(s, tid);
	return t ? t : task_new(s, pid, tid, ts);
}

static void push_rec(struct sink *s, struct task *t, uint32_t page, uint32_t info)
{
	if (t->t.nr_recs == t->cap) {
		uint64_t cap = t->cap ? 2 * t->cap : 256;
		struct vmr_rec *r = realloc(t->recs, cap * sizeof(*r));
		if (!r) {
			fail(s, "out of memory");
			return;
		}
		t->recs = r;
		t->cap = cap;
	}
	t->recs[t->t.nr_recs++] = (struct vmr_rec){ page, info };
	s->records++;
}

/* Appends a record for COUNT consecutive page ids from PAGE at time TS.
 * The time since the task's previous record goes into the record itself
 * when it fits, else into a DELAY record before it; a run always takes
 * its time from a DELAY (runs have no delta field). */
static void emit(struct sink *s, struct task *t, uint64_t ts, uint32_t page, uint32_t count,
		 unsigned op, unsigned flags)
{
	uint64_t delta = ts > t->last_ns ? ts - t->last_ns : 0;
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

/* Collects the page ids of one range event into runs of consecutive ids. */
struct run {
	struct sink *s;
	struct task *t;
	uint64_t ts;
	unsigned op, flags;
	uint32_t first, count;
};

static void run_flush(struct run *r)
{
	if (r->count)
		emit(r->s, r->t, r->ts, r->first, r->count, r->op, r->flags);
	r->count = 0;
}

/* Adds N consecutive ids from ID. */
static void run_add_span(struct run *r, uint32_t id, uint32_t n)
{
	if (r->count && id == r->first + r->count && r->count + n <= VMR_RUN_MAX) {
		r->count += n;
		return;
	}
	run_flush(r);
	r->first = id;
	r->count = n;
}

static void run_add(struct run *r, uint32_t id)
{
	run_add_span(r, id, 1);
}

/* ------------------------------------------------------------------ */
/* Event classes                                                       */

static const char *ftype_name(enum ftype t)
{
	return t == F_INT ? "an integer" : "a string";
}

static struct evclass *class_resolve(struct sink *s, const bt_event_class *ec)
{
	for (size_t i = 0; i < s->nr_classes; i++)
		if (s->classes[i].ec == ec)
			return &s->classes[i];
	if (s->nr_classes == s->cap_classes) {
		size_t cap = s->cap_classes ? 2 * s->cap_classes : 16;
		struct evclass *n = realloc(s->classes, cap * sizeof(*n));
		if (!n) {
			fail(s, "out of memory");
			return NULL;
		}
		s->classes = n;
		s->cap_classes = cap;
	}
	struct evclass *c = &s->classes[s->nr_classes];
	memset(c, 0, sizeof(*c));
	c->ec = ec;
	c->name = bt_event_class_get_name(ec);
	if (!c->name)
		c->name = "(unnamed)";
	c->kind = EV_SKIP;

	const struct event_spec *spec = NULL;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (strcmp(specs[i].name, c->name) == 0)
			spec = &specs[i];
	if (!spec) {
		int r = kevents_resolve(s->kev, ec, c->name, s->trace, &c->kidx, s->err, s->errlen);
		if (r < 0) {
			s->failed = 1;
			return NULL;
		}
		if (r > 0) {
			c->kind = EV_KERNEL;
			bt_event_class_get_ref(ec);
			s->nr_classes++;
			return c;
		}
	}
	const char *colon = strchr(c->name, ':');
	if (!spec && colon) {
		size_t plen = colon - c->name;
		if (plen == strlen(PROVIDER) && memcmp(c->name, PROVIDER, plen) == 0) {
			fail(s, "%s: event %s: unknown event of the vmreplay provider "
				"(trace from a newer vmreplay?)", s->trace, c->name);
			return NULL;
		}
		if (strncmp(c->name, "lttng_ust", 9) != 0) {
			fail(s, "%s: event %s: unknown provider '%.*s' (vmreplay reads the '"
				PROVIDER "' provider and kernel events)", s->trace, c->name,
			     (int)plen, c->name);
			return NULL;
		}
	}
	if (spec) {
		c->kind = spec->kind;
		c->nr = spec->kind == EV_VMSTAT ? VMR_NR_VMSTAT : spec->nr;
		const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
		uint64_t members = payload ? bt_field_class_structure_get_member_count(payload) : 0;
		for (int f = 0; f < c->nr; f++) {
			const char *fname = spec->kind == EV_VMSTAT ? vmr_vmstat_names[f] : spec->f[f].name;
			enum ftype want = spec->kind == EV_VMSTAT ? F_INT : spec->f[f].type;
			uint64_t m;
			const bt_field_class *fc = NULL;
			for (m = 0; m < members; m++) {
				const bt_field_class_structure_member *mem =
					bt_field_class_structure_borrow_member_by_index_const(payload, m);
				if (strcmp(bt_field_class_structure_member_get_name(mem), fname) == 0) {
					fc = bt_field_class_structure_member_borrow_field_class_const(mem);
					break;
				}
			}
			if (!fc) {
				fail(s, "%s: event %s: field %s: missing", s->trace, c->name, fname);
				return NULL;
			}
			bt_field_class_type type = bt_field_class_get_type(fc);
			int ok = want == F_STR ? type == BT_FIELD_CLASS_TYPE_STRING
					       : bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_INTEGER);
			if (!ok) {
				fail(s, "%s: event %s: field %s: wrong type (expected %s)", s->trace,
				     c->name, fname, ftype_name(want));
				return NULL;
			}
			c->idx[f] = m;
			c->is_signed[f] = want == F_INT &&
				bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
		}
	}
	bt_event_class_get_ref(ec);   /* cached past the message's life (§1.6) */
	s->nr_classes++;
	return c;
}

static uint64_t get_u(const struct evclass *c, const bt_field *payload, int f)
{
	const bt_field *fld = bt_field_structure_borrow_member_field_by_index_const(payload, c->idx[f]);
	return c->is_signed[f] ? (uint64_t)bt_field_integer_signed_get_value(fld)
			       : bt_field_integer_unsigned_get_value(fld);
}

static int64_t get_s(const struct evclass *c, const bt_field *payload, int f)
{
	const bt_field *fld = bt_field_structure_borrow_member_field_by_index_const(payload, c->idx[f]);
	return c->is_signed[f] ? bt_field_integer_signed_get_value(fld)
			       : (int64_t)bt_field_integer_unsigned_get_value(fld);
}

static const char *get_str(const struct evclass *c, const bt_field *payload, int f)
{
	const bt_field *fld = bt_field_structure_borrow_member_field_by_index_const(payload, c->idx[f]);
	return bt_field_string_get_value(fld);
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

static void set_page_size(struct sink *s, uint64_t ps, const char *ev)
{
	if (ps < 512 || ps > (1u << 24) || (ps & (ps - 1))) {
		fail(s, "%s: event %s: field page_size: %llu is not a page size", s->trace, ev,
		     (unsigned long long)ps);
		return;
	}
	if (s->saw_access && ps != s->page_size) {
		fail(s, "%s: event %s: field page_size: %llu, but accesses before it assumed %llu",
		     s->trace, ev, (unsigned long long)ps, (unsigned long long)s->page_size);
		return;
	}
	s->page_size = ps;
	s->page_shift = __builtin_ctzll(ps);
}

static void on_session(struct sink *s, const struct evclass *c, const bt_field *p)
{
	if (s->saw_session++)
		return;                /* the first session event describes the trace */
	set_page_size(s, get_u(c, p, 4), c->name);
	meta_add(s, "workload", "%s", get_str(c, p, 0));
	meta_add(s, "argv", "%s", get_str(c, p, 1));
	meta_add(s, "memory_limit", "%llu", (unsigned long long)get_u(c, p, 2));
	meta_add(s, "swappiness", "%lld", (long long)get_s(c, p, 3));
	meta_add(s, "page_size", "%llu", (unsigned long long)s->page_size);
	meta_add(s, "kernel_release", "%s", get_str(c, p, 5));
	meta_add(s, "hostname", "%s", get_str(c, p, 6));
	meta_add(s, "nr_cpus", "%llu", (unsigned long long)get_u(c, p, 7));
	meta_add(s, "mem_total", "%llu", (unsigned long long)get_u(c, p, 8));
	meta_add(s, "lru_kind", "%s", get_str(c, p, 9));
}

static void on_vmstat(struct sink *s, const struct evclass *c, const bt_field *p, uint64_t ts)
{
	if (s->nr_vmstat == s->cap_vmstat) {
		size_t cap = s->cap_vmstat ? 2 * s->cap_vmstat : 16;
		struct vmr_vmstat *n = realloc(s->vmstat, cap * sizeof(*n));
		if (!n) {
			fail(s, "out of memory");
			return;
		}
		s->vmstat = n;
		s->cap_vmstat = cap;
	}
	struct vmr_vmstat *v = &s->vmstat[s->nr_vmstat++];
	v->ts_ns = ts;
	for (int i = 0; i < VMR_NR_VMSTAT; i++)
		v->v[i] = get_u(c, p, i);
}

/* Checks a byte range of a range event and returns its pages. */
static int range_pages(struct sink *s, const struct evclass *c, uint64_t start, uint64_t len,
		       const char *start_field, uint64_t *first, uint64_t *last)
{
	if (len == 0 || len > MAX_RANGE_BYTES) {
		fail(s, "%s: event %s: field len: %llu bytes is not a valid range", s->trace,
		     c->name, (unsigned long long)len);
		return -1;
	}
	if (start > UINT64_MAX - len) {
		fail(s, "%s: event %s: field %s: range wraps around", s->trace, c->name, start_field);
		return -1;
	}
	if (!s->page_size)
		set_page_size(s, 4096, c->name);   /* no session event yet */
	s->saw_access = 1;
	*first = start >> s->page_shift;
	*last = (start + len - 1) >> s->page_shift;
	return 0;
}

/* Appends OP on pages FIRST..LAST of (KIND, SPACE, INO) to T's stream at
 * TS.  KNOWN_ONLY: only pages that have ids and are resident (LOADs of a
 * DAMON pass).  Returns the pages referenced. */
static uint64_t add_pages(struct sink *s, struct task *t, uint64_t ts, enum vmr_page_kind kind,
			  uint64_t space, uint64_t ino, uint64_t first, uint64_t last, unsigned op,
			  int known_only)
{
	struct run run = { s, t, ts, op, kind == VMR_PAGE_FILE ? VMR_F_FILE : 0, 0, 0 };
	int create = op != VMR_OP_FREE && !known_only, oom = 0;
	uint64_t pages = 0;
	for (uint64_t pg = first; pg <= last && !s->failed;) {
		uint64_t chunk_end = (pg | (PAGEMAP_CHUNK - 1));
		if (chunk_end > last)
			chunk_end = last;
		struct pagemap_chunk *ch = pagemap_chunk(&s->pm, kind, space, ino, pg, create, &oom);
		if (oom) {
			fail(s, "out of memory (page table)");
			return pages;
		}
		if (!ch) {                     /* FREE of a never-touched chunk */
			pg = chunk_end + 1;
			continue;
		}
		unsigned j = pg & (PAGEMAP_CHUNK - 1), jend = chunk_end & (PAGEMAP_CHUNK - 1);
		if (create)
			for (unsigned k = j; k <= jend; k++)
				if (pagemap_id(&s->pm, ch, (pg & ~(uint64_t)(PAGEMAP_CHUNK - 1)) + k) == PAGEMAP_NONE) {
					fail(s, "out of memory (page ids)");
					return pages;
				}
		if (s->track_resident && s->cap_resident < s->pm.nr_pages) {
			uint64_t cap = s->cap_resident ? s->cap_resident : 4096;
			while (cap < s->pm.nr_pages)
				cap *= 2;
			uint8_t *r = realloc(s->resident, cap);
			if (!r) {
				fail(s, "out of memory");
				return pages;
			}
			memset(r + s->cap_resident, 0, cap - s->cap_resident);
			s->resident = r;
			s->cap_resident = cap;
		}
		/* Hand the chunk's ids over in spans of consecutive ids: pages
		 * first touched together got consecutive ids, so a range is
		 * usually one span, found without per-page calls. */
		while (j <= jend) {
			uint32_t first = ch->id[j];
			unsigned k = j + 1;
			if (first == PAGEMAP_NONE ||           /* FREE: never touched */
			    (s->track_resident && (known_only || op == VMR_OP_FREE) && !s->resident[first])) {
				j++;
				continue;
			}
			while (k <= jend && ch->id[k] == first + (k - j) &&
			       (!s->track_resident || !(known_only || op == VMR_OP_FREE) ||
				s->resident[first + (k - j)]))
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

/* One range event, handed from the decoding thread to the worker. */
struct range_cmd {
	uint64_t space, ino, first, last, ts;
	uint32_t pid, tid;
	uint8_t kind, op;
};

static void on_range(struct sink *s, const struct evclass *c, const bt_field *p, uint64_t ts)
{
	uint32_t pid = (uint32_t)get_u(c, p, 0), tid = (uint32_t)get_u(c, p, 1);
	enum vmr_page_kind kind = c->kind == EV_FILE_ACCESS ? VMR_PAGE_FILE : VMR_PAGE_ANON;
	uint64_t space = pid, ino = 0, start, len;
	unsigned op;
	if (kind == VMR_PAGE_ANON) {
		start = get_u(c, p, 2);
		len = get_u(c, p, 3);
		if (c->kind == EV_ANON_FREE) {
			op = VMR_OP_FREE;
		} else {
			uint64_t w = get_u(c, p, 4);
			if (w > 1) {
				fail(s, "%s: event %s: field write: %llu is not 0 or 1", s->trace, c->name,
				     (unsigned long long)w);
				return;
			}
			op = w ? VMR_OP_STORE : VMR_OP_LOAD;
		}
	} else {
		static const unsigned file_ops[] = { VMR_OP_READ, VMR_OP_WRITE, VMR_OP_LOAD, VMR_OP_STORE };
		space = get_u(c, p, 2);
		ino = get_u(c, p, 3);
		start = get_u(c, p, 4);
		len = get_u(c, p, 5);
		uint64_t o = get_u(c, p, 6);
		if (o > 3) {
			fail(s, "%s: event %s: field op: %llu is not 0-3", s->trace, c->name,
			     (unsigned long long)o);
			return;
		}
		op = file_ops[o];
	}
	uint64_t first, last;
	if (range_pages(s, c, start, len, kind == VMR_PAGE_ANON ? "addr" : "offset", &first, &last))
		return;
	if (s->worker_on) {
		struct range_cmd *cmd = spsc_slot(&s->q);
		*cmd = (struct range_cmd){ space, ino, first, last, ts, pid, tid, (uint8_t)kind, (uint8_t)op };
		spsc_push(&s->q);
		return;
	}
	struct task *t = task_get(s, pid, tid, ts);
	if (!t)
		return;
	add_pages(s, t, ts, kind, space, ino, first, last, op, 0);
}

/* The second thread: range events, in trace order, become records. */
static void *range_worker(void *arg)
{
	struct sink *s = arg;
	struct range_cmd *cmd;
	while ((cmd = spsc_next(&s->q))) {
		if (!__atomic_load_n(&s->failed, __ATOMIC_ACQUIRE)) {
			struct task *t = task_get(s, cmd->pid, cmd->tid, cmd->ts);
			if (t)
				add_pages(s, t, cmd->ts, cmd->kind, cmd->space, cmd->ino, cmd->first,
					  cmd->last, cmd->op, 0);
		}
		spsc_done(&s->q);
	}
	return NULL;
}

static void drop_one(void *arg, uint32_t id)
{
	run_add(arg, id);
}

/* ------------------------------------------------------------------ */
/* What kevents.c may do to the streams (ingest_sink.h)                */

int ingest_sink_range(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts,
		      enum vmr_page_kind kind, uint64_t space, uint64_t ino,
		      uint64_t first, uint64_t last, unsigned op)
{
	if (s->failed || last < first)
		return s->failed ? -1 : 0;
	if (!s->page_size)
		set_page_size(s, 4096, "(kernel events)");
	s->saw_access = 1;
	struct task *t = task_get(s, pid, tid, ts);
	if (!t)
		return -1;
	add_pages(s, t, ts, kind, space, ino, first, last, op, 0);
	return s->failed ? -1 : 0;
}

int64_t ingest_sink_known(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts,
			  enum vmr_page_kind kind, uint64_t space, uint64_t ino,
			  uint64_t first, uint64_t last)
{
	if (s->failed || last < first)
		return s->failed ? -1 : 0;
	struct task *t = task_find(s, tid);
	if (!t) {
		/* A pass over an address space whose tasks have no stream
		 * yet: it names no resident page, so it adds nothing. */
		return 0;
	}
	(void)pid;
	uint64_t n = add_pages(s, t, ts, kind, space, ino, first, last, VMR_OP_LOAD, 1);
	return s->failed ? -1 : (int64_t)n;
}

int ingest_sink_free_space(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts, uint64_t space)
{
	struct task *t = task_find(s, tid);
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
			run_add(&run, id);
		}
	}
	run_flush(&run);
	return s->failed ? -1 : 0;
}

void ingest_sink_task_end(struct sink *s, uint32_t tid, uint64_t ts)
{
	struct task *t = task_find(s, tid);
	if (!t)
		return;
	t->t.end_ns = ts > t->t.end_ns ? ts : t->t.end_ns;
	t->live = 0;
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

uint64_t ingest_sink_page_size(struct sink *s)
{
	if (!s->page_size)
		set_page_size(s, 4096, "(kernel events)");
	return s->page_size;
}

uint64_t ingest_sink_accesses(const struct sink *s) { return s->accesses; }
const char *ingest_sink_trace(const struct sink *s) { return s->trace; }
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
	meta_add(s, key, "%s", val);
}

static void on_event(struct sink *s, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	struct evclass *c = class_resolve(s, bt_event_borrow_class_const(ev));
	if (!c)
		return;
	c->count++;
	if (c->kind == EV_SKIP)
		return;
	/* Events that touch tasks or pages wait for the worker to catch up. */
	if (s->worker_on && c->kind != EV_ANON_ACCESS && c->kind != EV_ANON_FREE &&
	    c->kind != EV_FILE_ACCESS && c->kind != EV_VMSTAT && c->kind != EV_SESSION &&
	    c->kind != EV_CGROUP)
		spsc_drain(&s->q);
	if (c->kind == EV_KERNEL) {
		if (kevents_event(s->kev, c->kidx, msg, s->trace, s->err, s->errlen) != 0)
			s->failed = 1;
		return;
	}
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	uint64_t ts = 0;
	if (c->kind != EV_KERNEL_PAGE_ALLOC && c->kind != EV_KERNEL_PAGE_FREE) {
		const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
		int64_t ns;
		if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) != BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK
		    || ns < 0) {
			fail(s, "%s: event %s: timestamp out of range", s->trace, c->name);
			return;
		}
		ts = (uint64_t)ns;
	}
	switch (c->kind) {
	case EV_SESSION:
		on_session(s, c, p);
		break;
	case EV_VMSTAT:
		on_vmstat(s, c, p, ts);
		break;
	case EV_TASK_BEGIN: {
		uint32_t tid = (uint32_t)get_u(c, p, 1);
		struct task *old = task_find(s, tid);
		if (old)
			old->live = 0;     /* tid reused without a task_end */
		struct task *t = task_new(s, (uint32_t)get_u(c, p, 0), tid, ts);
		if (!t)
			return;
		t->t.ppid = (uint32_t)get_u(c, p, 2);
		snprintf(t->t.comm, sizeof(t->t.comm), "%s", get_str(c, p, 3));
		break;
	}
	case EV_TASK_END: {
		struct task *t = task_find(s, (uint32_t)get_u(c, p, 1));
		if (!t)
			break;             /* never began in this trace: nothing to end */
		t->t.status = (int32_t)get_s(c, p, 2);
		t->t.end_ns = ts > t->t.end_ns ? ts : t->t.end_ns;
		t->live = 0;
		break;
	}
	case EV_ANON_ACCESS:
	case EV_ANON_FREE:
	case EV_FILE_ACCESS:
		on_range(s, c, p, ts);
		break;
	case EV_CGROUP: {
		/* "pid limit swappiness path": the path last, it may hold spaces. */
		int64_t sw = get_s(c, p, 4);
		const char *path = get_str(c, p, 2);
		if (!path[0] || path[0] == '/' || strstr(path, "//") || sw < -1 || sw > 200) {
			fail(s, "%s: event %s: field %s: '%s' is not valid", s->trace, c->name,
			     sw < -1 || sw > 200 ? "swappiness" : "path", path);
			return;
		}
		meta_add(s, "cgroup", "%u %llu %lld %s", (unsigned)get_u(c, p, 0),
			 (unsigned long long)get_u(c, p, 3), (long long)sw, path);
		break;
	}
	case EV_FILE_DROP: {
		struct task *t = task_get(s, (uint32_t)get_u(c, p, 0), (uint32_t)get_u(c, p, 1), ts);
		if (!t)
			return;
		struct run run = { s, t, ts, VMR_OP_FREE, VMR_F_FILE, 0, 0 };
		pagemap_file_pages(&s->pm, get_u(c, p, 2), get_u(c, p, 3), drop_one, &run);
		run_flush(&run);
		break;
	}
	case EV_KERNEL_PAGE_ALLOC:
	case EV_KERNEL_PAGE_FREE: {
		uint64_t order = get_u(c, p, 0);
		if (order > 20) {
			fail(s, "%s: event %s: field order: %llu is not a page order", s->trace,
			     c->name, (unsigned long long)order);
			return;
		}
		if (c->kind == EV_KERNEL_PAGE_ALLOC) {
			s->kalloc_events++;
			s->kalloc_pages += 1ull << order;
		} else {
			s->kfree_events++;
			s->kfree_pages += 1ull << order;
		}
		break;
	}
	case EV_KERNEL:
	case EV_SKIP:
		break;
	}
}

/* ------------------------------------------------------------------ */
/* The graph                                                           */

static bt_graph_simple_sink_component_consume_func_status
sink_consume(bt_message_iterator *it, void *data)
{
	struct sink *s = data;
	bt_message_array_const msgs;
	uint64_t count;
	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	}
	for (uint64_t i = 0; i < count; i++) {
		const bt_message *m = msgs[i];
		switch (bt_message_get_type(m)) {
		case BT_MESSAGE_TYPE_EVENT:
			s->events++;
			if (!s->failed)
				on_event(s, m);
			break;
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS: {
			uint64_t n;
			if (bt_message_discarded_events_get_count(m, &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE)
				s->discarded += n;
			else
				s->discarded += 1;   /* at least one, count unknown */
			break;
		}
		case BT_MESSAGE_TYPE_DISCARDED_PACKETS: {
			uint64_t n;
			if (bt_message_discarded_packets_get_count(m, &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE)
				s->discarded += n;
			else
				s->discarded += 1;
			break;
		}
		default:
			break;
		}
		bt_message_put_ref(m);
	}
	__atomic_fetch_add(&s->heartbeat, 1, __ATOMIC_RELAXED);
	if (s->failed)
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	progress_update(&s->progress, s->events);
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* babeltrace2's own error causes, folded into one line. */
static void bt_error_line(const char *trace, char *err, size_t errlen)
{
	const bt_error *e = bt_current_thread_take_error();
	const char *msg = "decoding failed";
	char buf[512];
	if (e && bt_error_get_cause_count(e) > 0) {
		/* Cause 0 is the first one appended: the deepest, which names
		 * the real problem (the others only say that a caller failed). */
		const bt_error_cause *cause = bt_error_borrow_cause_by_index(e, 0);
		snprintf(buf, sizeof(buf), "%s", bt_error_cause_get_message(cause));
		for (char *p = buf; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		msg = buf;
	}
	snprintf(err, errlen, "%s: cannot decode the trace: %s", trace, msg);
	if (e)
		bt_error_release(e);
}

/* Groups the trace directories by trace UUID ("babeltrace.support-info"
 * query, as the babeltrace2 CLI does), so that rotation chunks and
 * snapshots of one trace become one source. */
static int group_of(const bt_component_class_source *fs, const char *dir, char *group, size_t len)
{
	group[0] = '\0';
	bt_value *params = bt_value_map_create();
	if (!params)
		return -1;
	bt_value_map_insert_string_entry(params, "input", dir);
	bt_value_map_insert_string_entry(params, "type", "directory");
	bt_query_executor *q = bt_query_executor_create(
		bt_component_class_source_as_component_class_const(fs), "babeltrace.support-info", params);
	bt_value_put_ref(params);
	if (!q)
		return -1;
	const bt_value *res = NULL;
	int rc = -1;
	if (bt_query_executor_query(q, &res) == BT_QUERY_EXECUTOR_QUERY_STATUS_OK) {
		const bt_value *g = bt_value_map_borrow_entry_value_const(res, "group");
		if (g && bt_value_is_string(g))
			snprintf(group, len, "%s", bt_value_string_get(g));
		rc = 0;
	}
	bt_value_put_ref(res);
	bt_query_executor_put_ref(q);
	return rc;
}

static int build_graph(struct sink *s, const struct tracedir_list *dirs, bt_graph **out)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	bt_graph *g = NULL;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) != BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &utils) != BT_PLUGIN_FIND_STATUS_OK) {
		fail(s, "babeltrace2 plugins 'ctf' and 'utils' not found (is babeltrace2 installed?)");
		goto out;
	}
	const bt_component_class_source *fs = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	const bt_component_class_filter *mux = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	if (!fs || !mux) {
		fail(s, "babeltrace2 lacks source.ctf.fs or filter.utils.muxer");
		goto out;
	}
	g = bt_graph_create(0);
	const bt_component_filter *muxer = NULL;
	const bt_component_sink *sinkc = NULL;
	if (!g || bt_graph_add_filter_component(g, mux, "muxer", NULL, BT_LOGGING_LEVEL_NONE, &muxer) != 0 ||
	    bt_graph_add_simple_sink_component(g, "vmreplay", NULL, sink_consume, NULL, s, &sinkc) != 0) {
		fail(s, "cannot build the babeltrace2 graph");
		goto out;
	}
	/* One source per UUID group, in directory order. */
	char **groups = calloc(dirs->nr, sizeof(*groups));
	int *done = calloc(dirs->nr, sizeof(*done));
	if (!groups || !done) {
		free(groups);
		free(done);
		fail(s, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < dirs->nr; i++) {
		char gbuf[256];
		if (group_of(fs, dirs->dirs[i], gbuf, sizeof(gbuf)) != 0) {
			bt_error_line(dirs->dirs[i], s->err, s->errlen);
			s->failed = 1;
			break;
		}
		groups[i] = strdup(gbuf);
	}
	for (size_t i = 0; i < dirs->nr && !s->failed; i++) {
		if (done[i])
			continue;
		bt_value *params = bt_value_map_create();
		bt_value *inputs = NULL;
		bt_value_map_insert_empty_array_entry(params, "inputs", &inputs);
		for (size_t j = i; j < dirs->nr; j++) {
			int same = j == i || (groups[i] && groups[j] && groups[i][0] &&
					      strcmp(groups[i], groups[j]) == 0);
			if (same && !done[j]) {
				bt_value_array_append_string_element(inputs, dirs->dirs[j]);
				done[j] = 1;
			}
		}
		char name[64];
		snprintf(name, sizeof(name), "src%zu", i);
		const bt_component_source *src = NULL;
		if (bt_graph_add_source_component(g, fs, name, params, BT_LOGGING_LEVEL_NONE, &src) != 0) {
			bt_error_line(dirs->dirs[i], s->err, s->errlen);
			s->failed = 1;
		}
		bt_value_put_ref(params);
		for (uint64_t p = 0; src && !s->failed && p < bt_component_source_get_output_port_count(src); p++) {
			uint64_t in = bt_component_filter_get_input_port_count(muxer) - 1;
			if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, p),
						   bt_component_filter_borrow_input_port_by_index_const(muxer, in),
						   NULL) != 0)
				fail(s, "cannot connect the babeltrace2 graph");
		}
	}
	for (size_t i = 0; i < dirs->nr; i++)
		free(groups[i]);
	free(groups);
	free(done);
	if (!s->failed &&
	    bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sinkc, 0), NULL) != 0)
		fail(s, "cannot connect the babeltrace2 graph");
out:
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	if (s->failed) {
		bt_graph_put_ref(g);
		return -1;
	}
	*out = g;
	return 0;
}

/* babeltrace2 can spin forever on some corrupt inputs (§1.9); metadata is
 * checked up front, and this watchdog ends the process if decoding makes
 * no progress at all for VMREPLAY_WATCHDOG seconds (default 120). */
struct watchdog {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;
	struct sink *s;
	unsigned seconds;
};

static void *watchdog_main(void *arg)
{
	struct watchdog *w = arg;
	uint64_t last = __atomic_load_n(&w->s->heartbeat, __ATOMIC_RELAXED);
	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += w->seconds;
		int rc = 0;
		while (!w->stop && rc == 0)
			rc = pthread_cond_timedwait(&w->cond, &w->lock, &until);
		if (w->stop)
			break;
		uint64_t now = __atomic_load_n(&w->s->heartbeat, __ATOMIC_RELAXED);
		if (now == last) {
			fprintf(stderr, "vmreplay: %s: the trace decoder made no progress for %u s "
				"(corrupt trace?); giving up\n", w->s->trace, w->seconds);
			_exit(1);
		}
		last = now;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

static int cmp_skip(const void *a, const void *b)
{
	const struct evclass *x = a, *y = b;
	return strcmp(x->name, y->name);
}

static void summarise(struct sink *s, struct ingest_report *rep)
{
	rep->events = s->events;
	rep->discarded = s->discarded;
	rep->tasks = s->nr_tasks;
	rep->records = s->records;
	rep->accesses = s->accesses;
	rep->pages = s->pm.nr_pages;
	rep->kernel_alloc_events = s->kalloc_events;
	rep->kernel_free_events = s->kfree_events;
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

static int write_vmr(struct sink *s, const char *path, const uint8_t hash[16], char *err, size_t errlen)
{
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
	for (size_t i = 0; i < s->nr_tasks; i++)
		vmr_writer_append(w, s->tasks[i].recs, s->tasks[i].t.nr_recs * sizeof(struct vmr_rec));
	vmr_writer_end(w);
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

static void sink_free(struct sink *s)
{
	for (size_t i = 0; i < s->nr_classes; i++)
		bt_event_class_put_ref(s->classes[i].ec);
	free(s->classes);
	for (size_t i = 0; i < s->nr_tasks; i++)
		free(s->tasks[i].recs);
	free(s->tasks);
	free(s->tid_slots);
	pagemap_free(&s->pm);
	free(s->meta);
	free(s->vmstat);
	kevents_free(s->kev);
	free(s->resident);
	pthread_mutex_destroy(&s->fail_lock);
}

static int decode(const char *trace, const uint8_t hash[16], const char *out, int show_progress,
		  struct ingest_report *rep, char *err, size_t errlen)
{
	struct tracedir_list dirs;
	if (tracedir_find(trace, &dirs, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < dirs.nr; i++)
		if (tracedir_check_metadata(dirs.dirs[i], err, errlen) != 0) {
			tracedir_free(&dirs);
			return -1;
		}

	struct sink s = { 0 };
	pthread_mutex_init(&s.fail_lock, NULL);
	s.trace = trace;
	s.err = err;
	s.errlen = errlen;
	s.nr_tid_slots = 64;
	s.tid_slots = calloc(s.nr_tid_slots, sizeof(*s.tid_slots));
	s.kev = kevents_new();
	if (!s.tid_slots || !s.kev || pagemap_init(&s.pm) != 0) {
		snprintf(err, errlen, "out of memory");
		free(s.tid_slots);
		kevents_free(s.kev);
		pagemap_free(&s.pm);
		tracedir_free(&dirs);
		return -1;
	}
	progress_init(&s.progress, show_progress, "ingest", "events");

	struct watchdog wd = { .s = &s, .seconds = 120 };
	const char *env = getenv("VMREPLAY_WATCHDOG");
	if (env && atoi(env) > 0)
		wd.seconds = (unsigned)atoi(env);
	pthread_mutex_init(&wd.lock, NULL);
	pthread_cond_init(&wd.cond, NULL);
	int wd_running = pthread_create(&wd.thread, NULL, watchdog_main, &wd) == 0;

	bt_graph *g = NULL;
	int rc = build_graph(&s, &dirs, &g), bt_failed = 0;
	if (rc == 0 && spsc_init(&s.q, sizeof(struct range_cmd), 1u << 14) == 0) {
		s.worker_on = pthread_create(&s.worker, NULL, range_worker, &s) == 0;
		if (!s.worker_on)
			spsc_free(&s.q);
	}
	while (rc == 0) {
		bt_graph_run_status st = bt_graph_run(g);
		if (st == BT_GRAPH_RUN_STATUS_OK)      /* every sink has ended */
			break;
		if (st == BT_GRAPH_RUN_STATUS_AGAIN) {
			usleep(1000);      /* a source has nothing yet (never for files) */
			continue;
		}
		bt_failed = 1;
		rc = -1;
	}
	if (s.worker_on) {
		spsc_stop(&s.q);
		pthread_join(s.worker, NULL);
		spsc_free(&s.q);
		s.worker_on = 0;
	}
	if (bt_failed) {
		if (!s.failed)
			bt_error_line(trace, err, errlen);
		else
			bt_current_thread_clear_error();
	}
	bt_graph_put_ref(g);
	if (wd_running) {
		pthread_mutex_lock(&wd.lock);
		wd.stop = 1;
		pthread_cond_signal(&wd.cond);
		pthread_mutex_unlock(&wd.lock);
		pthread_join(wd.thread, NULL);
	}
	pthread_mutex_destroy(&wd.lock);
	pthread_cond_destroy(&wd.cond);
	progress_done(&s.progress, s.events);
	tracedir_free(&dirs);
	if (rc == 0 && s.failed)
		rc = -1;
	/* The kernel's events: ground truth, and demand when the trace has
	 * no exact access stream (kevents.c). */
	if (rc == 0 && kevents_finish(s.kev, &s) != 0)
		rc = -1;

	if (rc == 0) {
		char hex[33];
		vmr_hash_hex(hash, hex);
		meta_add(&s, "trace_hash", "%s", hex);
		meta_add(&s, "events", "%llu", (unsigned long long)s.events);
		meta_add(&s, "discarded_events", "%llu", (unsigned long long)s.discarded);
		meta_add(&s, "kernel_page_alloc", "%llu events, %llu pages",
			 (unsigned long long)s.kalloc_events, (unsigned long long)s.kalloc_pages);
		meta_add(&s, "kernel_page_free", "%llu events, %llu pages",
			 (unsigned long long)s.kfree_events, (unsigned long long)s.kfree_pages);
		summarise(&s, rep);
		meta_add(&s, "skipped_events", "%s", rep->skipped);
		/* Ended tasks keep their end time; the others end at their last event. */
		rc = s.failed ? -1 : write_vmr(&s, out, hash, err, errlen);
	}
	sink_free(&s);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Hash and cache                                                      */

int trace_hash(const char *path, uint8_t hash[16], char *err, size_t errlen)
{
	char **files;
	size_t nr;
	if (tracedir_files(path, &files, &nr, err, errlen) != 0)
		return -1;
	XXH3_state_t *st = XXH3_createState();
	char *buf = malloc(1 << 20);
	int rc = st && buf ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "out of memory");
	else
		XXH3_128bits_reset(st);
	for (size_t i = 0; i < nr && rc == 0; i++) {
		char full[8192];
		snprintf(full, sizeof(full), "%s/%s", path, files[i]);
		FILE *f = fopen(full, "rb");
		if (!f) {
			snprintf(err, errlen, "%s: %s", full, strerror(errno));
			rc = -1;
			break;
		}
		XXH3_128bits_update(st, files[i], strlen(files[i]) + 1);
		size_t n;
		uint64_t total = 0;
		while ((n = fread(buf, 1, 1 << 20, f)) > 0) {
			XXH3_128bits_update(st, buf, n);
			total += n;
		}
		if (ferror(f)) {
			snprintf(err, errlen, "%s: read error", full);
			rc = -1;
		}
		XXH3_128bits_update(st, &total, sizeof(total));
		fclose(f);
	}
	if (rc == 0) {
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
		memcpy(hash, c.digest, 16);
	}
	for (size_t i = 0; i < nr; i++)
		free(files[i]);
	free(files);
	free(buf);
	XXH3_freeState(st);
	return rc;
}

const char *ingest_cache_dir(void)
{
	static char dir[4096];
	const char *e = getenv("VMREPLAY_CACHE");
	if (e && *e)
		snprintf(dir, sizeof(dir), "%s", e);
	else if ((e = getenv("XDG_CACHE_HOME")) && *e)
		snprintf(dir, sizeof(dir), "%s/vmreplay", e);
	else if ((e = getenv("HOME")) && *e)
		snprintf(dir, sizeof(dir), "%s/.cache/vmreplay", e);
	else
		snprintf(dir, sizeof(dir), "/tmp/vmreplay-cache-%u", (unsigned)getuid());
	return dir;
}

static int mkdir_p(const char *dir)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* A cached .vmr is used only if it verifies and is of this trace. */
/* Is PATH a sound .vmr of the trace with HASH?  Fills REP from it; with
 * KEEP, a sound one is left open (verified) there. */
static int cache_valid(const char *path, const uint8_t hash[16], struct ingest_report *rep,
		       struct vmr *keep)
{
	struct vmr v;
	char err[256];
	if (access(path, R_OK) != 0 || vmr_open(&v, path, err, sizeof(err)) != 0)
		return 0;
	int ok = memcmp(v.hdr->trace_hash, hash, 16) == 0;
	if (ok) {
		char buf[1024];
		rep->tasks = v.hdr->nr_tasks;
		rep->records = v.hdr->nr_records;
		rep->accesses = v.hdr->nr_accesses;
		rep->pages = v.hdr->nr_pages;
		if (vmr_meta_get(&v, "events", buf, sizeof(buf)))
			rep->events = strtoull(buf, NULL, 10);
		if (vmr_meta_get(&v, "discarded_events", buf, sizeof(buf)))
			rep->discarded = strtoull(buf, NULL, 10);
		if (vmr_meta_get(&v, "kernel_page_alloc", buf, sizeof(buf)))
			rep->kernel_alloc_events = strtoull(buf, NULL, 10);
		if (vmr_meta_get(&v, "kernel_page_free", buf, sizeof(buf)))
			rep->kernel_free_events = strtoull(buf, NULL, 10);
		if (vmr_meta_get(&v, "skipped_events", rep->skipped, sizeof(rep->skipped)) == NULL)
			rep->skipped[0] = '\0';
	}
	if (ok && keep)
		*keep = v;
	else
		vmr_close(&v);
	return ok;
}

static int copy_file(const char *from, const char *to, char *err, size_t errlen)
{
	struct vmr v;
	/* Re-verify on the way out: a copy is only as good as its source. */
	if (vmr_open(&v, from, err, errlen) != 0)
		return -1;
	struct atomic_file af;
	int rc = -1;
	if (atomic_open(&af, to, err, errlen) == 0) {
		if (fwrite(v.map, 1, v.map_size, af.fp) == v.map_size)
			rc = atomic_commit(&af, err, errlen);
		else {
			snprintf(err, errlen, "%s: write failed", to);
			atomic_abort(&af);
		}
	}
	vmr_close(&v);
	return rc;
}

int ingest(const struct ingest_opts *o, struct ingest_report *rep,
	   char *vmr_path, size_t vmr_path_len, char *err, size_t errlen)
{
	memset(rep, 0, sizeof(*rep));
	if (trace_hash(o->trace, rep->hash, err, errlen) != 0)
		return -1;
	char hex[33], cached[4096 + 64];
	vmr_hash_hex(rep->hash, hex);
	const char *dir = ingest_cache_dir();
	snprintf(cached, sizeof(cached), "%s/v%d-%s.vmr", dir, VMR_VERSION, hex);

	struct vmr *keep = o->output ? NULL : o->opened;
	if (o->use_cache && cache_valid(cached, rep->hash, rep, keep)) {
		rep->cached = 1;
		if (o->output) {
			if (copy_file(cached, o->output, err, errlen) != 0)
				return -1;
			snprintf(vmr_path, vmr_path_len, "%s", o->output);
		} else {
			snprintf(vmr_path, vmr_path_len, "%s", cached);
		}
		return keep ? 1 : 0;
	}
	const char *target = o->output;
	if (!target) {
		if (mkdir_p(dir) != 0) {
			snprintf(err, errlen, "%s: cannot create the cache directory: %s", dir, strerror(errno));
			return -1;
		}
		target = cached;
	}
	if (decode(o->trace, rep->hash, target, o->progress, rep, err, errlen) != 0)
		return -1;
	snprintf(vmr_path, vmr_path_len, "%s", target);
	/* Keep a copy in the cache too, so the next run decodes nothing. */
	if (o->use_cache && o->output && mkdir_p(dir) == 0) {
		char e2[256];
		copy_file(o->output, cached, e2, sizeof(e2));
	}
	return 0;
}
