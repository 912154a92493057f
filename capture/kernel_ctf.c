/*
 * kernel_ctf.c — the tracefs bridge's kernel events moved into a
 * kernel-domain CTF trace at the kernel's own timestamps (kernel_ctf.h).
 *
 * Two libbabeltrace2 graphs, both with our own in-process component
 * classes (no plugin file):
 *
 *   1. source.ctf.fs (the UST trace) -> utils.muxer -> "split" -> sink.ctf.fs
 *      split passes every message through except the vmreplay_kernel:*
 *      events, whose fields it copies into memory: the UST trace is
 *      rewritten without them.
 *   2. "ksrc" -> sink.ctf.fs
 *      ksrc makes a trace laid out as lttng-modules writes one (env
 *      domain "kernel", tracer_name "lttng-modules", a stream per CPU with
 *      cpu_id in its packet context, pid and tid contexts, the event names
 *      without provider and the payload after the bridge's kts, kcpu, ktid
 *      and kpid) on a clock class equal to the UST trace's (name, UUID,
 *      frequency, offset, origin), each event at its kts, so that a muxer
 *      reading both traces interleaves them at the kernel's time.
 *
 * A CTF stream's timestamps must not go back, but the bridge emits the
 * records of its two tracefs instances as its threads read them, so the
 * events are sorted by (kts, CPU, order of arrival) before they are
 * written; how many arrived behind a later kts of their CPU is counted.
 * Everything is written into a temporary folder inside the session and
 * renamed into place at the end.
 */
#include "kernel_ctf.h"
#include "ingest/tracedir.h"

#include <babeltrace2/babeltrace.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BRIDGE_PREFIX "vmreplay_kernel:"
#define UST_REL       "ust/uid/0/64-bit"
#define MAX_FIELDS    24
#define MAX_CPUS      4096
/* Events per packet: lttng-modules packets are sub-buffers; the number
 * only sets how often a packet (and its index entry) starts. */
#define PACKET_EVENTS 4096

enum ftype { F_UNSIGNED, F_SIGNED, F_STRING };

struct kfield {
	uint64_t idx;                 /* member index in the UST payload */
	char *name;
	enum ftype type;
	uint64_t bits;
	bt_field_class_integer_preferred_display_base base;
};

/* One bridged event class and the kernel event class made from it. */
struct kcls {
	const bt_event_class *ust;    /* reference held */
	char *name;                   /* without the provider */
	uint64_t kts, kcpu, ktid, kpid;
	int nf;
	struct kfield f[MAX_FIELDS];
	bt_event_class *out;          /* in the kernel trace class */
};

/* One event, its values in conv.vals (strings as offsets in conv.strs). */
struct krec {
	uint64_t kts, seq;
	uint32_t cls, cpu;
	int32_t tid, pid;
	uint64_t val;
};

struct conv {
	char err[512];
	const char *trace;            /* for messages */

	struct kcls *cls;
	size_t nr_cls, cap_cls;
	struct krec *rec;
	size_t nr_rec, cap_rec;
	uint64_t *vals;
	size_t nr_vals, cap_vals;
	char *strs;
	size_t nr_strs, cap_strs;
	uint64_t last_kts[MAX_CPUS];
	uint8_t cpu_seen[MAX_CPUS];
	uint64_t other, reordered, max_lag;

	/* the UST trace's clock class and environment */
	int have_clock;
	char clock_name[64], clock_desc[128];
	uint8_t clock_uuid[16];
	int clock_has_uuid, clock_unix;
	uint64_t clock_freq, clock_prec, clock_off_cycles;
	int64_t clock_off_s;
	char hostname[256], trace_name[256], trace_date[64];
	char kernel_release[128], kernel_version[512];

	bt_self_component_port_input *in_port;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 1024;
	while (c < need)
		c *= 2;
	void *n = realloc(*p, c * size);
	if (!n)
		return -1;
	*p = n;
	*cap = c;
	return 0;
}

static int cfail(struct conv *cv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfail(struct conv *cv, const char *fmt, ...)
{
	if (!cv->err[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(cv->err, sizeof(cv->err), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* Graph 1: collecting the bridged events                              */

static void env_string(const bt_trace *t, const char *key, char *dst, size_t len)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(t, key);
	if (v && bt_value_is_string(v))
		snprintf(dst, len, "%s", bt_value_string_get(v));
}

static void note_clock(struct conv *cv, const bt_clock_class *cc, const bt_stream *stream)
{
	if (cv->have_clock)
		return;
	cv->have_clock = 1;
	const char *s = bt_clock_class_get_name(cc);
	snprintf(cv->clock_name, sizeof(cv->clock_name), "%s", s ? s : "monotonic");
	s = bt_clock_class_get_description(cc);
	snprintf(cv->clock_desc, sizeof(cv->clock_desc), "%s", s ? s : "");
	bt_uuid u = bt_clock_class_get_uuid(cc);
	if ((cv->clock_has_uuid = u != NULL))
		memcpy(cv->clock_uuid, u, 16);
	cv->clock_unix = bt_clock_class_origin_is_unix_epoch(cc);
	cv->clock_freq = bt_clock_class_get_frequency(cc);
	cv->clock_prec = bt_clock_class_get_precision(cc);
	bt_clock_class_get_offset(cc, &cv->clock_off_s, &cv->clock_off_cycles);
	const bt_trace *t = bt_stream_borrow_trace_const(stream);
	env_string(t, "hostname", cv->hostname, sizeof(cv->hostname));
	env_string(t, "trace_name", cv->trace_name, sizeof(cv->trace_name));
	env_string(t, "trace_creation_datetime", cv->trace_date, sizeof(cv->trace_date));
}

/* The kernel's release and version, for lttng-modules' kernel_release and
 * kernel_version: from capture_session's kernel_version (/proc/version,
 * "Linux version RELEASE (...) #N ..."), else the release alone from the
 * agent's vmreplay:session (uname -r). */
static void note_kernel(struct conv *cv, const bt_event *ev, int session)
{
	const bt_field *p = bt_event_borrow_payload_field_const(ev);
	const bt_field *f = bt_field_structure_borrow_member_field_by_name_const(
		p, session ? "kernel_release" : "kernel_version");
	if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING)
		return;
	const char *v = bt_field_string_get_value(f);
	if (session) {
		if (!cv->kernel_release[0])
			snprintf(cv->kernel_release, sizeof(cv->kernel_release), "%s", v);
		return;
	}
	if (strncmp(v, "Linux version ", 14) != 0)
		return;
	v += 14;
	snprintf(cv->kernel_release, sizeof(cv->kernel_release), "%.*s", (int)strcspn(v, " "), v);
	const char *hash = strstr(v, " #");
	if (hash)
		snprintf(cv->kernel_version, sizeof(cv->kernel_version), "%.*s", (int)strcspn(hash + 1, "\n"),
			 hash + 1);
}

static struct kcls *class_of(struct conv *cv, const bt_event_class *ec)
{
	for (size_t i = 0; i < cv->nr_cls; i++)
		if (cv->cls[i].ust == ec)
			return &cv->cls[i];
	const char *name = bt_event_class_get_name(ec);
	if (grow((void **)&cv->cls, &cv->cap_cls, cv->nr_cls + 1, sizeof(*cv->cls)) != 0) {
		cfail(cv, "out of memory");
		return NULL;
	}
	struct kcls *c = &cv->cls[cv->nr_cls];
	memset(c, 0, sizeof(*c));
	const bt_field_class *pl = bt_event_class_borrow_payload_field_class_const(ec);
	uint64_t n = pl ? bt_field_class_structure_get_member_count(pl) : 0;
	uint64_t *common[] = { &c->kts, &c->kcpu, &c->ktid, &c->kpid };
	static const char *const cname[] = { "kts", "kcpu", "ktid", "kpid" };
	int found = 0;
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m = bt_field_class_structure_borrow_member_by_index_const(pl, i);
		const char *mn = bt_field_class_structure_member_get_name(m);
		const bt_field_class *fc = bt_field_class_structure_member_borrow_field_class_const(m);
		bt_field_class_type t = bt_field_class_get_type(fc);
		int is_int = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER);
		int k;
		for (k = 0; k < 4 && strcmp(mn, cname[k]) != 0; k++)
			;
		if (k < 4) {
			if (!is_int) {
				cfail(cv, "%s: event %s: field %s: not an integer", cv->trace, name, mn);
				return NULL;
			}
			*common[k] = i;
			found |= 1 << k;
			continue;
		}
		if (c->nf == MAX_FIELDS) {
			cfail(cv, "%s: event %s: more than %d fields", cv->trace, name, MAX_FIELDS);
			return NULL;
		}
		struct kfield *f = &c->f[c->nf];
		if (is_int) {
			f->type = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER) ? F_SIGNED : F_UNSIGNED;
			f->bits = bt_field_class_integer_get_field_value_range(fc);
			f->base = bt_field_class_integer_get_preferred_display_base(fc);
		} else if (t == BT_FIELD_CLASS_TYPE_STRING) {
			f->type = F_STRING;
		} else {
			cfail(cv, "%s: event %s: field %s: neither an integer nor a string", cv->trace, name, mn);
			return NULL;
		}
		f->idx = i;
		if (!(f->name = strdup(mn))) {
			cfail(cv, "out of memory");
			return NULL;
		}
		c->nf++;
	}
	for (int k = 0; k < 4; k++)
		if (!(found & 1 << k)) {
			cfail(cv, "%s: event %s: field %s: missing", cv->trace, name, cname[k]);
			return NULL;
		}
	if (!(c->name = strdup(name + strlen(BRIDGE_PREFIX)))) {
		cfail(cv, "out of memory");
		return NULL;
	}
	c->ust = ec;
	bt_event_class_get_ref(ec);
	cv->nr_cls++;
	return c;
}

static int intern(struct conv *cv, const char *s, uint64_t *off)
{
	size_t n = strlen(s) + 1;
	if (grow((void **)&cv->strs, &cv->cap_strs, cv->nr_strs + n, 1) != 0)
		return -1;
	memcpy(cv->strs + cv->nr_strs, s, n);
	*off = cv->nr_strs;
	cv->nr_strs += n;
	return 0;
}

static uint64_t uval(const bt_field *f)
{
	return bt_field_integer_unsigned_get_value(f);
}

static int64_t sval(const bt_field *f)
{
	return bt_field_integer_signed_get_value(f);
}

static uint64_t ival(const bt_field *f)
{
	return bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)
	       ? (uint64_t)sval(f) : uval(f);
}

/* Copies one bridged event; 0 or -1. */
static int collect(struct conv *cv, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	struct kcls *c = class_of(cv, ec);
	if (!c)
		return -1;
	const bt_field *pl = bt_event_borrow_payload_field_const(ev);
	struct krec r = { 0 };
	r.kts = ival(bt_field_structure_borrow_member_field_by_index_const(pl, c->kts));
	uint64_t cpu = ival(bt_field_structure_borrow_member_field_by_index_const(pl, c->kcpu));
	r.tid = (int32_t)ival(bt_field_structure_borrow_member_field_by_index_const(pl, c->ktid));
	r.pid = (int32_t)ival(bt_field_structure_borrow_member_field_by_index_const(pl, c->kpid));
	if (cpu >= MAX_CPUS)
		return cfail(cv, "%s: event %s: field kcpu: %llu is not a CPU number", cv->trace,
			     bt_event_class_get_name(ec), (unsigned long long)cpu);
	r.cpu = (uint32_t)cpu;
	r.cls = (uint32_t)(c - cv->cls);
	r.seq = cv->nr_rec;
	r.val = cv->nr_vals;
	const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	note_clock(cv, bt_clock_snapshot_borrow_clock_class_const(cs), bt_event_borrow_stream_const(ev));
	uint64_t t = bt_clock_snapshot_get_value(cs);
	if (cv->clock_freq == 1000000000ull && t > r.kts && t - r.kts > cv->max_lag)
		cv->max_lag = t - r.kts;
	if (cv->cpu_seen[r.cpu] && r.kts < cv->last_kts[r.cpu])
		cv->reordered++;
	else
		cv->last_kts[r.cpu] = r.kts;
	cv->cpu_seen[r.cpu] = 1;
	if (grow((void **)&cv->vals, &cv->cap_vals, cv->nr_vals + (size_t)c->nf, sizeof(*cv->vals)) != 0 ||
	    grow((void **)&cv->rec, &cv->cap_rec, cv->nr_rec + 1, sizeof(*cv->rec)) != 0)
		return cfail(cv, "out of memory");
	for (int i = 0; i < c->nf; i++) {
		const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(pl, c->f[i].idx);
		uint64_t v;
		if (c->f[i].type == F_STRING) {
			if (intern(cv, bt_field_string_get_value(f), &v) != 0)
				return cfail(cv, "out of memory");
		} else {
			v = ival(f);
		}
		cv->vals[cv->nr_vals++] = v;
	}
	cv->rec[cv->nr_rec++] = r;
	return 0;
}

static bt_component_class_initialize_method_status
split_init(bt_self_component_filter *self, bt_self_component_filter_configuration *config,
	   const bt_value *params, void *data)
{
	(void)config;
	(void)params;
	struct conv *cv = data;
	if (bt_self_component_filter_add_input_port(self, "in", NULL, NULL) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK ||
	    bt_self_component_filter_add_output_port(self, "out", NULL, NULL) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	cv->in_port = bt_self_component_filter_borrow_input_port_by_name(self, "in");
	bt_self_component_set_data(bt_self_component_filter_as_self_component(self), cv);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_message_iterator_class_initialize_method_status
split_iter_init(bt_self_message_iterator *it, bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port)
{
	(void)config;
	(void)port;
	struct conv *cv = bt_self_component_get_data(bt_self_message_iterator_borrow_component(it));
	bt_message_iterator *up = NULL;
	if (bt_message_iterator_create_from_message_iterator(it, cv->in_port, &up) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	bt_self_message_iterator_set_data(it, up);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void split_iter_fini(bt_self_message_iterator *it)
{
	bt_message_iterator_put_ref((bt_message_iterator *)bt_self_message_iterator_get_data(it));
}

static bt_message_iterator_class_next_method_status
split_next(bt_self_message_iterator *it, bt_message_array_const out, uint64_t capacity, uint64_t *count)
{
	struct conv *cv = bt_self_component_get_data(bt_self_message_iterator_borrow_component(it));
	bt_message_iterator *up = bt_self_message_iterator_get_data(it);
	uint64_t n_out = 0;
	while (n_out == 0) {
		bt_message_array_const in;
		uint64_t n;
		switch (bt_message_iterator_next(up, &in, &n)) {
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK: break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_END: return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN: return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
		default: return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
		int failed = 0;
		for (uint64_t i = 0; i < n; i++) {
			const bt_message *m = in[i];
			if (bt_message_get_type(m) == BT_MESSAGE_TYPE_EVENT) {
				const bt_event *ev = bt_message_event_borrow_event_const(m);
				const char *name = bt_event_class_get_name(bt_event_borrow_class_const(ev));
				if (name && strncmp(name, BRIDGE_PREFIX, strlen(BRIDGE_PREFIX)) == 0) {
					if (!failed && collect(cv, m) != 0)
						failed = 1;
					bt_message_put_ref(m);
					continue;
				}
				if (name && strcmp(name, "vmreplay_capture:capture_session") == 0)
					note_kernel(cv, ev, 0);
				else if (name && strcmp(name, "vmreplay:session") == 0)
					note_kernel(cv, ev, 1);
				cv->other++;
			}
			/* batches downstream are as large as upstream's (15 in 2.0) */
			if (n_out < capacity)
				out[n_out++] = m;
			else if (!failed) {
				cfail(cv, "%s: a batch of more than %llu messages", cv->trace,
				      (unsigned long long)capacity);
				failed = 1;
				bt_message_put_ref(m);
			} else {
				bt_message_put_ref(m);
			}
		}
		if (failed) {
			for (uint64_t i = 0; i < n_out; i++)
				bt_message_put_ref(out[i]);
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}
	*count = n_out;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* Graph 2: the kernel trace                                           */

struct kstream {
	bt_stream *stream;
	bt_packet *packet;            /* open packet, or NULL */
	uint64_t in_packet;
};

struct ksrc {
	struct conv *cv;
	bt_trace *trace;
	struct kstream *s;            /* by CPU, MAX_CPUS */
	size_t next;                  /* next record */
	int phase;                    /* 0 begin streams, 1 events, 2 end, 3 done */
	uint64_t end_ts;
};

static bt_field_class *int_fc(bt_trace_class *tc, int is_signed, uint64_t bits,
			      bt_field_class_integer_preferred_display_base base)
{
	bt_field_class *fc = is_signed ? bt_field_class_integer_signed_create(tc)
				       : bt_field_class_integer_unsigned_create(tc);
	if (fc) {
		bt_field_class_integer_set_field_value_range(fc, bits);
		bt_field_class_integer_set_preferred_display_base(fc, base);
	}
	return fc;
}

/* Appends member NAME of class FC (whose reference it takes) to ST. */
static int member(bt_field_class *st, const char *name, bt_field_class *fc)
{
	if (!fc)
		return -1;
	int rc = bt_field_class_structure_append_member(st, name, fc) ==
		 BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK ? 0 : -1;
	bt_field_class_put_ref(fc);
	return rc;
}

static int make_classes(struct conv *cv, bt_self_component *self, bt_trace_class **tcp, bt_stream_class **scp)
{
	bt_trace_class *tc = bt_trace_class_create(self);
	bt_clock_class *cc = bt_clock_class_create(self);
	bt_stream_class *sc = tc ? bt_stream_class_create(tc) : NULL;
	bt_field_class *pc = tc ? bt_field_class_structure_create(tc) : NULL;
	bt_field_class *ctx = tc ? bt_field_class_structure_create(tc) : NULL;
	int rc = -1;
	if (!tc || !cc || !sc || !pc || !ctx)
		goto out;
	/* The UST trace's clock, so that a muxer puts both on one time line. */
	if (bt_clock_class_set_name(cc, cv->clock_name) != BT_CLOCK_CLASS_SET_NAME_STATUS_OK ||
	    (cv->clock_desc[0] && bt_clock_class_set_description(cc, cv->clock_desc) !=
	     BT_CLOCK_CLASS_SET_DESCRIPTION_STATUS_OK))
		goto out;
	bt_clock_class_set_frequency(cc, cv->clock_freq);
	bt_clock_class_set_precision(cc, cv->clock_prec);
	bt_clock_class_set_offset(cc, cv->clock_off_s, cv->clock_off_cycles);
	bt_clock_class_set_origin_is_unix_epoch(cc, cv->clock_unix ? BT_TRUE : BT_FALSE);
	if (cv->clock_has_uuid)
		bt_clock_class_set_uuid(cc, cv->clock_uuid);

	bt_stream_class_set_assigns_automatic_stream_id(sc, BT_FALSE);
	if (bt_stream_class_set_default_clock_class(sc, cc) != BT_STREAM_CLASS_SET_DEFAULT_CLOCK_CLASS_STATUS_OK)
		goto out;
	bt_stream_class_set_supports_packets(sc, BT_TRUE, BT_TRUE, BT_TRUE);
	/* lttng-modules: cpu_id in the packet context; contexts as
	 * `lttng add-context -k -t pid -t tid` records them. */
	if (member(pc, "cpu_id", int_fc(tc, 0, 32, BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_DECIMAL)) ||
	    bt_stream_class_set_packet_context_field_class(sc, pc) != BT_STREAM_CLASS_SET_FIELD_CLASS_STATUS_OK ||
	    member(ctx, "pid", int_fc(tc, 1, 32, BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_DECIMAL)) ||
	    member(ctx, "tid", int_fc(tc, 1, 32, BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_DECIMAL)) ||
	    bt_stream_class_set_event_common_context_field_class(sc, ctx) != BT_STREAM_CLASS_SET_FIELD_CLASS_STATUS_OK)
		goto out;
	for (size_t i = 0; i < cv->nr_cls; i++) {
		struct kcls *c = &cv->cls[i];
		bt_event_class *ec = bt_event_class_create(sc);
		bt_field_class *pl = bt_field_class_structure_create(tc);
		int ok = ec && pl && bt_event_class_set_name(ec, c->name) == BT_EVENT_CLASS_SET_NAME_STATUS_OK;
		for (int f = 0; ok && f < c->nf; f++) {
			const struct kfield *k = &c->f[f];
			ok = member(pl, k->name, k->type == F_STRING ? bt_field_class_string_create(tc)
					    : int_fc(tc, k->type == F_SIGNED, k->bits, k->base)) == 0;
		}
		ok = ok && bt_event_class_set_payload_field_class(ec, pl) == BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK;
		bt_field_class_put_ref(pl);
		if (!ok) {
			bt_event_class_put_ref(ec);
			goto out;
		}
		c->out = ec;
	}
	*tcp = tc;
	*scp = sc;
	tc = NULL;
	sc = NULL;
	rc = 0;
out:
	bt_field_class_put_ref(pc);
	bt_field_class_put_ref(ctx);
	bt_clock_class_put_ref(cc);
	bt_stream_class_put_ref(sc);
	bt_trace_class_put_ref(tc);
	return rc;
}

static int set_env(bt_trace *t, const char *key, const char *val)
{
	return val[0] && bt_trace_set_environment_entry_string(t, key, val) != BT_TRACE_SET_ENVIRONMENT_ENTRY_STATUS_OK
	       ? -1 : 0;
}

static bt_component_class_initialize_method_status
ksrc_init(bt_self_component_source *self, bt_self_component_source_configuration *config,
	  const bt_value *params, void *data)
{
	(void)config;
	(void)params;
	struct conv *cv = data;
	bt_self_component *sc_self = bt_self_component_source_as_self_component(self);
	struct ksrc *k = calloc(1, sizeof(*k));
	bt_trace_class *tc = NULL;
	bt_stream_class *sc = NULL;
	if (!k || !(k->s = calloc(MAX_CPUS, sizeof(*k->s))) || make_classes(cv, sc_self, &tc, &sc) != 0 ||
	    !(k->trace = bt_trace_create(tc)))
		goto fail;
	k->cv = cv;
	/* lttng-modules' environment, as LTTng 2.13 writes it for a kernel
	 * session; where the events came from is said beside. */
	if (set_env(k->trace, "hostname", cv->hostname) || set_env(k->trace, "domain", "kernel") ||
	    set_env(k->trace, "sysname", "Linux") || set_env(k->trace, "kernel_release", cv->kernel_release) ||
	    set_env(k->trace, "kernel_version", cv->kernel_version) ||
	    set_env(k->trace, "tracer_name", "lttng-modules") ||
	    bt_trace_set_environment_entry_integer(k->trace, "tracer_major", 2) ||
	    bt_trace_set_environment_entry_integer(k->trace, "tracer_minor", 13) ||
	    bt_trace_set_environment_entry_integer(k->trace, "tracer_patchlevel", 0) ||
	    set_env(k->trace, "trace_buffering_scheme", "global") ||
	    set_env(k->trace, "trace_name", cv->trace_name) ||
	    set_env(k->trace, "trace_creation_datetime", cv->trace_date) ||
	    set_env(k->trace, "vmreplay_kernel_source", "tracefs-bridge"))
		goto fail;
	for (size_t i = 0; i < cv->nr_rec; i++) {
		uint32_t cpu = cv->rec[i].cpu;
		if (k->s[cpu].stream)
			continue;
		char name[32];
		snprintf(name, sizeof(name), "kvmr_%u", cpu);
		if (!(k->s[cpu].stream = bt_stream_create_with_id(sc, k->trace, cpu)) ||
		    bt_stream_set_name(k->s[cpu].stream, name) != BT_STREAM_SET_NAME_STATUS_OK)
			goto fail;
	}
	if (bt_self_component_source_add_output_port(self, "out", NULL, NULL) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		goto fail;
	bt_stream_class_put_ref(sc);
	bt_trace_class_put_ref(tc);
	bt_self_component_set_data(sc_self, k);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
fail:
	if (k && k->s)
		for (size_t i = 0; i < MAX_CPUS; i++)
			bt_stream_put_ref(k->s[i].stream);
	if (k) {
		bt_trace_put_ref(k->trace);
		free(k->s);
	}
	free(k);
	bt_stream_class_put_ref(sc);
	bt_trace_class_put_ref(tc);
	cfail(cv, "cannot make the kernel trace's classes (out of memory?)");
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

static void ksrc_fini(bt_self_component_source *self)
{
	struct ksrc *k = bt_self_component_get_data(bt_self_component_source_as_self_component(self));
	if (!k)
		return;
	for (size_t i = 0; i < MAX_CPUS; i++) {
		bt_packet_put_ref(k->s[i].packet);
		bt_stream_put_ref(k->s[i].stream);
	}
	bt_trace_put_ref(k->trace);
	free(k->s);
	free(k);
}

static bt_message_iterator_class_initialize_method_status
ksrc_iter_init(bt_self_message_iterator *it, bt_self_message_iterator_configuration *config,
	       bt_self_component_port_output *port)
{
	(void)config;
	(void)port;
	bt_self_message_iterator_set_data(it, bt_self_component_get_data(bt_self_message_iterator_borrow_component(it)));
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

/* The event message of record R (in packet P of its stream). */
static bt_message *event_msg(struct ksrc *k, bt_self_message_iterator *it, const struct krec *r, bt_packet *p)
{
	struct conv *cv = k->cv;
	const struct kcls *c = &cv->cls[r->cls];
	bt_message *m = bt_message_event_create_with_packet_and_default_clock_snapshot(it, c->out, p, r->kts);
	if (!m)
		return NULL;
	bt_event *ev = bt_message_event_borrow_event(m);
	bt_field *ctx = bt_event_borrow_common_context_field(ev);
	bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_index(ctx, 0), r->pid);
	bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_index(ctx, 1), r->tid);
	bt_field *pl = bt_event_borrow_payload_field(ev);
	for (int i = 0; i < c->nf; i++) {
		bt_field *f = bt_field_structure_borrow_member_field_by_index(pl, (uint64_t)i);
		uint64_t v = cv->vals[r->val + (uint64_t)i];
		switch (c->f[i].type) {
		case F_UNSIGNED: bt_field_integer_unsigned_set_value(f, v); break;
		case F_SIGNED: bt_field_integer_signed_set_value(f, (int64_t)v); break;
		case F_STRING:
			if (bt_field_string_set_value(f, cv->strs + v) != BT_FIELD_STRING_SET_VALUE_STATUS_OK) {
				bt_message_put_ref(m);
				return NULL;
			}
			break;
		}
	}
	return m;
}

static bt_message_iterator_class_next_method_status
ksrc_next(bt_self_message_iterator *it, bt_message_array_const out, uint64_t capacity, uint64_t *count)
{
	struct ksrc *k = bt_self_message_iterator_get_data(it);
	struct conv *cv = k->cv;
	uint64_t n = 0;
	/* every message needs a slot; an event may need two (its packet's
	 * beginning) and a full packet three (its end) */
	while (n + 3 <= capacity && k->phase < 3) {
		bt_message *m = NULL;
		if (k->phase == 0) {
			for (; k->next < MAX_CPUS && n < capacity; k->next++)
				if (k->s[k->next].stream &&
				    !(out[n++] = bt_message_stream_beginning_create(it, k->s[k->next].stream)))
					goto oom;
			if (k->next == MAX_CPUS) {
				k->phase = 1;
				k->next = 0;
			}
			continue;
		}
		if (k->phase == 1) {
			if (k->next == cv->nr_rec) {
				k->phase = 2;
				k->end_ts = cv->nr_rec ? cv->rec[cv->nr_rec - 1].kts : 0;
				k->next = 0;
				continue;
			}
			const struct krec *r = &cv->rec[k->next];
			struct kstream *s = &k->s[r->cpu];
			if (!s->packet) {
				if (!(s->packet = bt_packet_create(s->stream)))
					goto oom;
				bt_field *pc = bt_packet_borrow_context_field(s->packet);
				bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(pc, 0),
								    r->cpu);
				if (!(out[n++] = bt_message_packet_beginning_create_with_default_clock_snapshot(
					      it, s->packet, r->kts)))
					goto oom;
			}
			if (!(m = event_msg(k, it, r, s->packet)))
				goto oom;
			out[n++] = m;
			k->next++;
			if (++s->in_packet == PACKET_EVENTS) {
				if (!(out[n++] = bt_message_packet_end_create_with_default_clock_snapshot(
					      it, s->packet, r->kts)))
					goto oom;
				bt_packet_put_ref(s->packet);
				s->packet = NULL;
				s->in_packet = 0;
			}
			continue;
		}
		/* phase 2: every stream's last packet ends at the last event's
		 * time (as LTTng's stop flushes them), then the streams */
		for (; k->next < MAX_CPUS && n + 2 <= capacity; k->next++) {
			struct kstream *s = &k->s[k->next];
			if (!s->stream)
				continue;
			if (s->packet) {
				if (!(out[n++] = bt_message_packet_end_create_with_default_clock_snapshot(
					      it, s->packet, k->end_ts)))
					goto oom;
				bt_packet_put_ref(s->packet);
				s->packet = NULL;
			}
			if (!(out[n++] = bt_message_stream_end_create(it, s->stream)))
				goto oom;
		}
		if (k->next == MAX_CPUS)
			k->phase = 3;
		break;
	}
	if (n == 0 && k->phase == 3)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	*count = n;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
oom:
	for (uint64_t i = 0; i < n; i++)
		bt_message_put_ref(out[i]);
	cfail(cv, "out of memory writing the kernel trace");
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
}

/* ------------------------------------------------------------------ */
/* Running the graphs                                                  */

static void take_bt_error(struct conv *cv, const char *what)
{
	const bt_error *e = bt_current_thread_take_error();
	char cause[400] = "";
	if (e) {
		uint64_t n = bt_error_get_cause_count(e);
		/* the first cause is the component's own, which says what is wrong */
		if (n)
			snprintf(cause, sizeof(cause), "%s",
				 bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0)));
		bt_error_release(e);
	}
	cause[strcspn(cause, "\n")] = '\0';
	cfail(cv, "%s: %s%s%s", cv->trace, what, cause[0] ? ": " : "", cause);
}

static int run_graph(struct conv *cv, bt_graph *g, const char *what)
{
	for (;;) {
		bt_graph_run_status st = bt_graph_run(g);
		if (st == BT_GRAPH_RUN_STATUS_OK)
			return 0;
		if (st != BT_GRAPH_RUN_STATUS_AGAIN)
			break;
	}
	if (!cv->err[0])
		take_bt_error(cv, what);
	else
		bt_current_thread_clear_error();
	return -1;
}

static const bt_component_sink *add_ctf_sink(struct conv *cv, bt_graph *g, const bt_plugin *ctf,
					     const char *path)
{
	const bt_component_class_sink *fs = bt_plugin_borrow_sink_component_class_by_name_const(ctf, "fs");
	bt_value *params = bt_value_map_create();
	const bt_component_sink *sink = NULL;
	if (!fs || !params || bt_value_map_insert_string_entry(params, "path", path) ||
	    bt_value_map_insert_bool_entry(params, "assume-single-trace", BT_TRUE) ||
	    bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE) ||
	    bt_graph_add_sink_component(g, fs, "sink", params, BT_LOGGING_LEVEL_NONE, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		sink = NULL;
		take_bt_error(cv, "cannot add sink.ctf.fs");
	}
	bt_value_put_ref(params);
	return sink;
}

/* Graph 1: UST_DIR -> muxer -> split -> sink.ctf.fs (OUT). */
static int split_graph(struct conv *cv, const bt_plugin *ctf, const bt_plugin *utils,
		       const char *ust_dir, const char *out)
{
	bt_message_iterator_class *ic = bt_message_iterator_class_create(split_next);
	bt_component_class_filter *fc = ic ? bt_component_class_filter_create("vmreplay-split", ic) : NULL;
	bt_graph *g = bt_graph_create(0);
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	int rc = -1;
	if (!ic || !fc || !g || !params ||
	    bt_message_iterator_class_set_initialize_method(ic, split_iter_init) ||
	    bt_message_iterator_class_set_finalize_method(ic, split_iter_fini) ||
	    bt_component_class_filter_set_initialize_method(fc, split_init) ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, ust_dir)) {
		cfail(cv, "out of memory");
		goto out;
	}
	const bt_component_class_source *fs = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	const bt_component_class_filter *mux = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	const bt_component_source *src = NULL;
	const bt_component_filter *muxer = NULL, *split = NULL;
	if (!fs || !mux ||
	    bt_graph_add_source_component(g, fs, "ust", params, BT_LOGGING_LEVEL_NONE, &src) ||
	    bt_graph_add_filter_component(g, mux, "muxer", NULL, BT_LOGGING_LEVEL_NONE, &muxer) ||
	    bt_graph_add_filter_component_with_initialize_method_data(g, fc, "split", NULL, cv,
								      BT_LOGGING_LEVEL_NONE, &split)) {
		take_bt_error(cv, "cannot open the trace");
		goto out;
	}
	const bt_component_sink *sink = add_ctf_sink(cv, g, ctf, out);
	if (!sink)
		goto out;
	for (uint64_t p = 0; p < bt_component_source_get_output_port_count(src); p++) {
		uint64_t in = bt_component_filter_get_input_port_count(muxer) - 1;
		if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, p),
					   bt_component_filter_borrow_input_port_by_index_const(muxer, in), NULL)) {
			take_bt_error(cv, "cannot connect the trace's streams");
			goto out;
		}
	}
	if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
				   bt_component_filter_borrow_input_port_by_index_const(split, 0), NULL) ||
	    bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(split, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		take_bt_error(cv, "cannot connect the graph");
		goto out;
	}
	rc = run_graph(cv, g, "cannot rewrite the UST trace");
out:
	bt_value_put_ref(params);
	bt_graph_put_ref(g);
	bt_component_class_filter_put_ref(fc);
	bt_message_iterator_class_put_ref(ic);
	return rc;
}

/* Graph 2: ksrc -> sink.ctf.fs (OUT). */
static int kernel_graph(struct conv *cv, const bt_plugin *ctf, const char *out)
{
	bt_message_iterator_class *ic = bt_message_iterator_class_create(ksrc_next);
	bt_component_class_source *sc = ic ? bt_component_class_source_create("vmreplay-kernel", ic) : NULL;
	bt_graph *g = bt_graph_create(0);
	const bt_component_source *src = NULL;
	int rc = -1;
	if (!ic || !sc || !g || bt_message_iterator_class_set_initialize_method(ic, ksrc_iter_init) ||
	    bt_component_class_source_set_initialize_method(sc, ksrc_init) ||
	    bt_component_class_source_set_finalize_method(sc, ksrc_fini)) {
		cfail(cv, "out of memory");
		goto out;
	}
	if (bt_graph_add_source_component_with_initialize_method_data(g, sc, "kernel", NULL, cv,
								      BT_LOGGING_LEVEL_NONE, &src)) {
		take_bt_error(cv, "cannot make the kernel trace");
		goto out;
	}
	const bt_component_sink *sink = add_ctf_sink(cv, g, ctf, out);
	if (!sink)
		goto out;
	if (bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		take_bt_error(cv, "cannot connect the graph");
		goto out;
	}
	rc = run_graph(cv, g, "cannot write the kernel trace");
out:
	bt_graph_put_ref(g);
	bt_component_class_source_put_ref(sc);
	bt_message_iterator_class_put_ref(ic);
	return rc;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct krec *x = a, *y = b;
	if (x->kts != y->kts)
		return x->kts < y->kts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void conv_free(struct conv *cv)
{
	for (size_t i = 0; i < cv->nr_cls; i++) {
		bt_event_class_put_ref(cv->cls[i].ust);
		bt_event_class_put_ref(cv->cls[i].out);
		free(cv->cls[i].name);
		for (int f = 0; f < cv->cls[i].nf; f++)
			free(cv->cls[i].f[f].name);
	}
	free(cv->cls);
	free(cv->rec);
	free(cv->vals);
	free(cv->strs);
	free(cv);
}

/* A conversion killed half-way left SESSION/.kernel-ctf.*: if it had
 * moved the old UST trace aside (ust-old) but not put the kernel trace in
 * place, the old one comes back; then the folder goes. */
static void recover(const char *session, const char *ust, const char *kdir)
{
	DIR *d = opendir(session);
	struct dirent *e;
	struct stat sb;
	while (d && (e = readdir(d))) {
		char tmp[4200], old[4300], aside[4300];
		if (strncmp(e->d_name, ".kernel-ctf.", 12) != 0 ||
		    snprintf(tmp, sizeof(tmp), "%s/%s", session, e->d_name) >= (int)sizeof(tmp))
			continue;
		snprintf(old, sizeof(old), "%s/ust-old", tmp);
		snprintf(aside, sizeof(aside), "%s/ust-new", tmp);
		if (stat(old, &sb) == 0 && stat(kdir, &sb) != 0) {
			if (stat(ust, &sb) == 0)
				rename(ust, aside);
			rename(old, ust);
		}
		rm_tree(tmp);
	}
	if (d)
		closedir(d);
}

int kernel_ctf_convert(const char *session, struct kernel_ctf_stats *st, char *err, size_t errlen)
{
	char ust[4096], kdir[4096], tmp[4096], t_ust[4200], t_kernel[4200], t_old[4200];
	struct stat sb;
	memset(st, 0, sizeof(*st));
	if (snprintf(ust, sizeof(ust), "%s/" UST_REL, session) >= (int)sizeof(ust) ||
	    snprintf(kdir, sizeof(kdir), "%s/kernel", session) >= (int)sizeof(kdir) ||
	    snprintf(tmp, sizeof(tmp), "%s/.kernel-ctf.XXXXXX", session) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", session);
		return -1;
	}
	recover(session, ust, kdir);
	if (stat(kdir, &sb) == 0) {
		snprintf(err, errlen, "%s: has a kernel trace already: left as it is", session);
		return 0;
	}
	if (stat(ust, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s: %s", ust, stat(ust, &sb) != 0 ? strerror(errno) : "not a directory");
		return -1;
	}
	/* babeltrace2 2.0 spins forever on a truncated packetized metadata
	 * file (tracing-notes.md 1.9): refuse one first. */
	if (tracedir_check_metadata(ust, err, errlen) != 0)
		return -1;
	struct conv *cv = calloc(1, sizeof(*cv));
	if (!cv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cv->trace = ust;
	const bt_plugin *ctf = NULL, *utils = NULL;
	int rc = -1, made_tmp = 0;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) != BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &utils) != BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		cfail(cv, "cannot load babeltrace2's ctf and utils plugins (package babeltrace2)");
		goto out;
	}
	if (!mkdtemp(tmp)) {
		cfail(cv, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	made_tmp = 1;
	snprintf(t_ust, sizeof(t_ust), "%s/ust", tmp);
	snprintf(t_kernel, sizeof(t_kernel), "%s/kernel", tmp);
	snprintf(t_old, sizeof(t_old), "%s/ust-old", tmp);
	if (split_graph(cv, ctf, utils, ust, t_ust) != 0)
		goto out;
	if (cv->nr_rec == 0) {
		snprintf(err, errlen, "%s: no bridged kernel event (vmreplay_kernel:*): left as it is", ust);
		rc = 0;
		goto out;
	}
	qsort(cv->rec, cv->nr_rec, sizeof(*cv->rec), cmp_rec);
	if (kernel_graph(cv, ctf, t_kernel) != 0)
		goto out;
	/* Into place: the new UST trace first (the old one kept until the
	 * kernel trace is in place too), so that an error leaves the session
	 * as it was. */
	if (rename(ust, t_old) != 0) {
		cfail(cv, "%s: %s", ust, strerror(errno));
		goto out;
	}
	if (rename(t_ust, ust) != 0 || rename(t_kernel, kdir) != 0) {
		cfail(cv, "%s: cannot move the new traces into place: %s", session, strerror(errno));
		if (stat(t_ust, &sb) != 0)
			rename(ust, t_ust);
		rename(t_old, ust);
		goto out;
	}
	st->events = cv->nr_rec;
	st->other = cv->other;
	st->reordered = cv->reordered;
	st->max_lag_ns = cv->max_lag;
	for (size_t i = 0; i < MAX_CPUS; i++)
		st->cpus += cv->cpu_seen[i];
	rc = 1;
out:
	if (rc < 0)
		snprintf(err, errlen, "%s", cv->err[0] ? cv->err : "conversion failed");
	if (made_tmp)
		rm_tree(tmp);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	conv_free(cv);
	return rc;
}
