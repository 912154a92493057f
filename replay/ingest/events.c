/*
 * events.c — each decoded event, as the sink takes it.
 *
 * An event class is resolved once (field indices and types, cached by
 * class pointer: looking fields up by name on every event costs a third of
 * the decoder's speed, tracing-notes.md §1.6); after that only integers are
 * read by index.  The vmreplay:* events (capture/EVENTS.md) become task
 * streams, metadata and vmstat rows; kernel and capture events that
 * kevents.c knows go there.  Left out on purpose: the page allocator's
 * events are only counted (META kernel_page_alloc/free, FORMAT.md), and
 * kernel events no table knows and lttng_ust_* events are skipped and
 * listed in META skipped_events; an unknown provider, or an unknown
 * vmreplay:* event, is an error rather than a guess.
 */
#include "sink.h"
#include "kevents.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROVIDER "vmreplay"
/* A range event longer than this is not something a workload did. */
#define MAX_RANGE_BYTES (1ull << 40)

enum ftype { F_INT, F_STR };

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

/* ------------------------------------------------------------------ */
/* Event classes                                                       */

static const char *ftype_name(enum ftype t)
{
	return t == F_INT ? "an integer" : "a string";
}

static struct evclass *class_resolve(struct sink *s, const bt_event_class *ec)
{
	if (s->last_class && s->last_class->ec == ec)
		return s->last_class;
	for (size_t i = 0; i < s->nr_classes; i++)
		if (s->classes[i].ec == ec)
			return s->last_class = &s->classes[i];
	if (s->nr_classes == s->cap_classes) {
		size_t cap = s->cap_classes ? 2 * s->cap_classes : 16;
		struct evclass *n = realloc(s->classes, cap * sizeof(*n));
		if (!n) {
			sink_fail(s, "out of memory");
			return NULL;
		}
		s->classes = n;
		s->cap_classes = cap;
		s->last_class = NULL;      /* it pointed into the old array */
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
			return s->last_class = c;
		}
	}
	const char *colon = strchr(c->name, ':');
	if (!spec && colon) {
		size_t plen = colon - c->name;
		if (plen == strlen(PROVIDER) && memcmp(c->name, PROVIDER, plen) == 0) {
			sink_fail(s, "%s: event %s: unknown event of the vmreplay provider "
				"(trace from a newer vmreplay?)", s->trace, c->name);
			return NULL;
		}
		if (strncmp(c->name, "lttng_ust", 9) != 0) {
			sink_fail(s, "%s: event %s: unknown provider '%.*s' (vmreplay reads the '"
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
				sink_fail(s, "%s: event %s: field %s: missing", s->trace, c->name, fname);
				return NULL;
			}
			bt_field_class_type type = bt_field_class_get_type(fc);
			int ok = want == F_STR ? type == BT_FIELD_CLASS_TYPE_STRING
					       : bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_INTEGER);
			if (!ok) {
				sink_fail(s, "%s: event %s: field %s: wrong type (expected %s)", s->trace,
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
	return s->last_class = c;
}

static uint64_t get_u(const struct evclass *c, const bt_field *payload, int f)
{
	const bt_field *fld = bt_field_structure_borrow_member_field_by_index_const(payload, c->idx[f]);
	/* the vmreplay provider's integers are unsigned (capture/EVENTS.md) */
	return __builtin_expect(c->is_signed[f], 0) ? (uint64_t)bt_field_integer_signed_get_value(fld)
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

/* A size field of a session: 0 (none) or at least one page, at most
 * VMR_BYTES_MAX; what the replay divides into pages. */
static int size_ok(struct sink *s, const struct evclass *c, const char *field, uint64_t v)
{
	if (v == 0 || (v >= s->page_size && v <= VMR_BYTES_MAX))
		return 1;
	sink_fail(s, "%s: event %s: field %s: %llu is not 0 or a size from one page (%llu) to 2^52",
		  s->trace, c->name, field, (unsigned long long)v, (unsigned long long)s->page_size);
	return 0;
}

static void on_session(struct sink *s, const struct evclass *c, const bt_field *p)
{
	if (s->saw_session++)
		return;                /* the first session event describes the trace */
	sink_set_page_size(s, get_u(c, p, 4), c->name);
	int64_t sw = get_s(c, p, 3);
	if (s->failed || !size_ok(s, c, "memory_limit", get_u(c, p, 2)) ||
	    !size_ok(s, c, "mem_total", get_u(c, p, 8)))
		return;
	if (sw < -1 || sw > 200) {
		sink_fail(s, "%s: event %s: field swappiness: %lld is not -1 (not known) or 0-200",
			  s->trace, c->name, (long long)sw);
		return;
	}
	s->mem_total = get_u(c, p, 8);
	if (get_u(c, p, 7) > 65536) {
		sink_fail(s, "%s: event %s: field nr_cpus: %llu is not a number of CPUs", s->trace,
			  c->name, (unsigned long long)get_u(c, p, 7));
		return;
	}
	sink_meta_add(s, "workload", "%s", get_str(c, p, 0));
	sink_meta_add(s, "argv", "%s", get_str(c, p, 1));
	sink_meta_add(s, "memory_limit", "%llu", (unsigned long long)get_u(c, p, 2));
	sink_meta_add(s, "swappiness", "%lld", (long long)get_s(c, p, 3));
	sink_meta_add(s, "page_size", "%llu", (unsigned long long)s->page_size);
	sink_meta_add(s, "kernel_release", "%s", get_str(c, p, 5));
	sink_meta_add(s, "hostname", "%s", get_str(c, p, 6));
	sink_meta_add(s, "nr_cpus", "%llu", (unsigned long long)get_u(c, p, 7));
	sink_meta_add(s, "mem_total", "%llu", (unsigned long long)get_u(c, p, 8));
	sink_meta_add(s, "lru_kind", "%s", get_str(c, p, 9));
}

static void on_vmstat(struct sink *s, const struct evclass *c, const bt_field *p, uint64_t ts)
{
	if (s->nr_vmstat == s->cap_vmstat) {
		size_t cap = s->cap_vmstat ? 2 * s->cap_vmstat : 16;
		struct vmr_vmstat *n = realloc(s->vmstat, cap * sizeof(*n));
		if (!n) {
			sink_fail(s, "out of memory");
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
		sink_fail(s, "%s: event %s: field len: %llu bytes is not a valid range", s->trace,
			  c->name, (unsigned long long)len);
		return -1;
	}
	/* One event touches at most the session's RAM: a longer one is a
	 * damaged length (a flipped bit makes 748 GiB of a 4 KiB touch), and
	 * would make billions of page ids of nothing. */
	if (s->mem_total && len > s->mem_total) {
		sink_fail(s, "%s: event %s: field len: %llu bytes is more than the session's memory "
			  "(mem_total %llu)", s->trace, c->name, (unsigned long long)len,
			  (unsigned long long)s->mem_total);
		return -1;
	}
	if (start > UINT64_MAX - len) {
		sink_fail(s, "%s: event %s: field %s: range wraps around", s->trace, c->name, start_field);
		return -1;
	}
	if (!s->page_size)
		sink_set_page_size(s, 4096, c->name);   /* no session event yet */
	s->saw_access = 1;
	*first = start >> s->page_shift;
	*last = (start + len - 1) >> s->page_shift;
	return 0;
}

/* A range event's pages, on this thread (no worker).  Out of line: the
 * page-id work inlined into sink_event gave it a frame of 500 bytes and
 * six saved registers, paid on every event. */
static __attribute__((noinline)) void range_here(struct sink *s, uint32_t pid, uint32_t tid,
						 uint64_t ts, enum vmr_page_kind kind, uint64_t space,
						 uint64_t ino, uint64_t first, uint64_t last, unsigned op)
{
	struct task *t = sink_task_get(s, pid, tid, ts);
	if (t)
		sink_add_pages(s, t, ts, kind, space, ino, first, last, op, 0);
}

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
				sink_fail(s, "%s: event %s: field write: %llu is not 0 or 1", s->trace, c->name,
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
			sink_fail(s, "%s: event %s: field op: %llu is not 0-3", s->trace, c->name,
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
	range_here(s, pid, tid, ts, kind, space, ino, first, last, op);
}

static void drop_one(void *arg, uint32_t id)
{
	sink_run_add(arg, id);
}

/* An event's time, or -1 (failed) when the clock cannot say it. */
static int event_ts(struct sink *s, const struct evclass *c, const bt_message *msg, uint64_t *ts)
{
	const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	int64_t ns;
	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) != BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK
	    || ns < 0) {
		sink_fail(s, "%s: event %s: timestamp out of range", s->trace, c->name);
		return -1;
	}
	*ts = (uint64_t)ns;
	return 0;
}

static void other_event(struct sink *s, const struct evclass *c, const bt_message *msg,
			const bt_event *ev);

/* Nearly every event is a range event: they take the short way, the
 * rest other_event, out of line so that its frame is not every event's. */
void sink_event(struct sink *s, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	struct evclass *c = class_resolve(s, bt_event_borrow_class_const(ev));
	if (!c)
		return;
	c->count++;
	if (c->kind == EV_SKIP)
		return;
	if (c->kind == EV_ANON_ACCESS || c->kind == EV_ANON_FREE || c->kind == EV_FILE_ACCESS) {
		uint64_t ts;
		if (event_ts(s, c, msg, &ts) == 0)
			on_range(s, c, bt_event_borrow_payload_field_const(ev), ts);
		return;
	}
	other_event(s, c, msg, ev);
}

static __attribute__((noinline)) void other_event(struct sink *s, const struct evclass *c,
						  const bt_message *msg, const bt_event *ev)
{
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
	if (c->kind != EV_KERNEL_PAGE_ALLOC && c->kind != EV_KERNEL_PAGE_FREE && event_ts(s, c, msg, &ts))
		return;
	switch (c->kind) {
	case EV_SESSION:
		on_session(s, c, p);
		break;
	case EV_VMSTAT:
		on_vmstat(s, c, p, ts);
		break;
	case EV_TASK_BEGIN: {
		uint32_t tid = (uint32_t)get_u(c, p, 1);
		struct task *old = sink_task_find(s, tid);
		if (old)
			old->live = 0;     /* tid reused without a task_end */
		struct task *t = sink_task_new(s, (uint32_t)get_u(c, p, 0), tid, ts);
		if (!t)
			return;
		t->t.ppid = (uint32_t)get_u(c, p, 2);
		snprintf(t->t.comm, sizeof(t->t.comm), "%s", get_str(c, p, 3));
		break;
	}
	case EV_TASK_END: {
		struct task *t = sink_task_find(s, (uint32_t)get_u(c, p, 1));
		if (!t)
			break;             /* never began in this trace: nothing to end */
		t->t.status = (int32_t)get_s(c, p, 2);
		t->t.end_ns = ts > t->t.end_ns ? ts : t->t.end_ns;
		t->live = 0;
		break;
	}
	case EV_CGROUP: {
		/* "pid limit swappiness path": the path last, it may hold spaces. */
		int64_t sw = get_s(c, p, 4);
		const char *path = get_str(c, p, 2);
		const char *why = vmr_cgroup_path_check(path, strlen(path));
		if (why) {
			sink_fail(s, "%s: event %s: field path: '%.60s' %s", s->trace, c->name, path, why);
			return;
		}
		if (sw < -1 || sw > 200) {
			sink_fail(s, "%s: event %s: field swappiness: %lld is not -1 (not known) or 0-200",
				  s->trace, c->name, (long long)sw);
			return;
		}
		if (!s->page_size)
			sink_set_page_size(s, 4096, c->name);   /* no session event yet */
		if (!size_ok(s, c, "limit", get_u(c, p, 3)))
			return;
		sink_meta_add(s, "cgroup", "%u %llu %lld %s", (unsigned)get_u(c, p, 0),
			      (unsigned long long)get_u(c, p, 3), (long long)sw, path);
		break;
	}
	case EV_FILE_DROP: {
		struct task *t = sink_task_get(s, (uint32_t)get_u(c, p, 0), (uint32_t)get_u(c, p, 1), ts);
		if (!t)
			return;
		struct run run = { s, t, ts, VMR_OP_FREE, VMR_F_FILE, 0, 0 };
		pagemap_file_pages(&s->pm, get_u(c, p, 2), get_u(c, p, 3), drop_one, &run);
		sink_run_flush(&run);
		break;
	}
	case EV_KERNEL_PAGE_ALLOC:
	case EV_KERNEL_PAGE_FREE: {
		uint64_t order = get_u(c, p, 0);
		if (order > 20) {
			sink_fail(s, "%s: event %s: field order: %llu is not a page order", s->trace,
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
	case EV_ANON_ACCESS:       /* sink_event's */
	case EV_ANON_FREE:
	case EV_FILE_ACCESS:
	case EV_KERNEL:
	case EV_SKIP:
		break;
	}
}
