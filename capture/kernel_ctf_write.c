/*
 * kernel_ctf_write.c — the "ksrc" source of the kernel trace conversion
 * (kernel_ctf.c): the events a struct conv collected, sorted, as a trace
 * laid out as lttng-modules writes one (env domain "kernel", tracer_name
 * "lttng-modules", a stream per CPU with cpu_id in its packet context,
 * pid and tid contexts, the event names without provider and the payload
 * after the bridge's kts, kcpu, ktid and kpid), on a clock class equal to
 * the UST trace's (name, UUID, frequency, offset, origin), each event at
 * its kts, so that a muxer reading both traces interleaves them at the
 * kernel's time.
 */
#include "kernel_ctf_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	kctf_fail(cv, "cannot make the kernel trace's classes (out of memory?)");
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
	kctf_fail(cv, "out of memory writing the kernel trace");
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
}


bt_component_class_source *kctf_kernel_class(void)
{
	bt_message_iterator_class *ic = bt_message_iterator_class_create(ksrc_next);
	bt_component_class_source *sc = ic ? bt_component_class_source_create("vmreplay-kernel", ic) : NULL;
	if (sc && (bt_message_iterator_class_set_initialize_method(ic, ksrc_iter_init) ||
		   bt_component_class_source_set_initialize_method(sc, ksrc_init) ||
		   bt_component_class_source_set_finalize_method(sc, ksrc_fini))) {
		bt_component_class_source_put_ref(sc);
		sc = NULL;
	}
	bt_message_iterator_class_put_ref(ic);
	return sc;
}
