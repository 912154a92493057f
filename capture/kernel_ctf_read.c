/*
 * kernel_ctf_read.c — the "split" filter of the kernel trace conversion
 * (kernel_ctf.c): it passes every message of the UST trace through except
 * the bridged vmreplay_kernel:* events, whose fields it copies into a
 * struct conv, with the UST trace's clock class and environment.
 */
#include "kernel_ctf_priv.h"
#include "array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (array_grow((void **)&cv->cls, &cv->cap_cls, cv->nr_cls + 1, sizeof(*cv->cls)) != 0) {
		kctf_fail(cv, "out of memory");
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
				kctf_fail(cv, "%s: event %s: field %s: not an integer", cv->trace, name, mn);
				return NULL;
			}
			*common[k] = i;
			found |= 1 << k;
			continue;
		}
		if (c->nf == MAX_FIELDS) {
			kctf_fail(cv, "%s: event %s: more than %d fields", cv->trace, name, MAX_FIELDS);
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
			kctf_fail(cv, "%s: event %s: field %s: neither an integer nor a string", cv->trace, name, mn);
			return NULL;
		}
		f->idx = i;
		if (!(f->name = strdup(mn))) {
			kctf_fail(cv, "out of memory");
			return NULL;
		}
		c->nf++;
	}
	for (int k = 0; k < 4; k++)
		if (!(found & 1 << k)) {
			kctf_fail(cv, "%s: event %s: field %s: missing", cv->trace, name, cname[k]);
			return NULL;
		}
	if (!(c->name = strdup(name + strlen(BRIDGE_PREFIX)))) {
		kctf_fail(cv, "out of memory");
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
	if (array_grow((void **)&cv->strs, &cv->cap_strs, cv->nr_strs + n, 1) != 0)
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
		return kctf_fail(cv, "%s: event %s: field kcpu: %llu is not a CPU number", cv->trace,
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
	if (array_grow((void **)&cv->vals, &cv->cap_vals, cv->nr_vals + (size_t)c->nf, sizeof(*cv->vals)) != 0 ||
	    array_grow((void **)&cv->rec, &cv->cap_rec, cv->nr_rec + 1, sizeof(*cv->rec)) != 0)
		return kctf_fail(cv, "out of memory");
	for (int i = 0; i < c->nf; i++) {
		const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(pl, c->f[i].idx);
		uint64_t v;
		if (c->f[i].type == F_STRING) {
			if (intern(cv, bt_field_string_get_value(f), &v) != 0)
				return kctf_fail(cv, "out of memory");
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
			}
			/* batches downstream are as large as upstream's (15 in 2.0) */
			if (n_out < capacity)
				out[n_out++] = m;
			else if (!failed) {
				kctf_fail(cv, "%s: a batch of more than %llu messages", cv->trace,
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


bt_component_class_filter *kctf_split_class(void)
{
	bt_message_iterator_class *ic = bt_message_iterator_class_create(split_next);
	bt_component_class_filter *fc = ic ? bt_component_class_filter_create("vmreplay-split", ic) : NULL;
	if (fc && (bt_message_iterator_class_set_initialize_method(ic, split_iter_init) ||
		   bt_message_iterator_class_set_finalize_method(ic, split_iter_fini) ||
		   bt_component_class_filter_set_initialize_method(fc, split_init))) {
		bt_component_class_filter_put_ref(fc);
		fc = NULL;
	}
	bt_message_iterator_class_put_ref(ic);
	return fc;
}
