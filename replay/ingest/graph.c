/*
 * graph.c — decoding one trace: the libbabeltrace2 graph, its run loop,
 * the watchdog, and ingest_decode(), which ties them to the sink.
 *
 * The graph is source.ctf.fs (one per trace UUID group) → utils.muxer →
 * a simple sink whose consume function hands each event to events.c.
 * ingest_decode() checks the traces' metadata first (tracedir.h), runs the
 * graph with the range worker beside it, lets kevents make the ground
 * truth and the kernel-event demand, and writes the .vmr.  Only traces
 * on disk are read (source.ctf.fs); live LTTng sessions are left out.
 */
#include "sink.h"
#include "ingest.h"
#include "kevents.h"
#include "tracedat.h"
#include "tracedir.h"

#include <babeltrace2/babeltrace.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
				sink_event(s, m);
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
/* A cause's message as a user can read it: one line, without the
 * library's object addresses ("query-exec-addr=0x55d0…, ") that say
 * nothing about the trace. */
static void clean_cause(const char *m, char *out, size_t len)
{
	size_t o = 0;
	int token_start = 1;
	while (*m && o + 1 < len) {
		size_t tok = strcspn(m, " ,()\n\t");
		const char *eq = token_start ? strstr(m, "addr=0x") : NULL;
		if (eq && (size_t)(eq - m) < tok) {
			/* skip "NAME-addr=0xHEX" and the ", " after it */
			m += tok;
			while (*m == ',' || *m == ' ')
				m++;
			continue;
		}
		char c = *m++;
		token_start = strchr(" ,(\n\t", c) != NULL;
		out[o++] = c == '\n' || c == '\t' ? ' ' : c;
	}
	out[o] = '\0';
	while (o && (out[o - 1] == ' ' || out[o - 1] == ',' || out[o - 1] == ':'))
		out[--o] = '\0';
}

static void bt_error_line(const char *trace, char *err, size_t errlen)
{
	const bt_error *e = bt_current_thread_take_error();
	const char *msg = "decoding failed";
	char buf[512];
	if (e && bt_error_get_cause_count(e) > 0) {
		/* Cause 0 is the first one appended: the deepest, which names
		 * the real problem (the others only say that a caller failed). */
		const bt_error_cause *cause = bt_error_borrow_cause_by_index(e, 0);
		clean_cause(bt_error_cause_get_message(cause), buf, sizeof(buf));
		if (buf[0])
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

/* The input kind: a trace-cmd recording (DAT) is its own source
 * (tracedat.c), a CTF trace one source.ctf.fs per UUID group. */
static int build_graph(struct sink *s, const struct tracedir_list *dirs, const char *dat, bt_graph **out)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	bt_graph *g = NULL;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) != BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &utils) != BT_PLUGIN_FIND_STATUS_OK) {
		sink_fail(s, "babeltrace2 plugins 'ctf' and 'utils' not found (is babeltrace2 installed?)");
		goto out;
	}
	const bt_component_class_source *fs = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	const bt_component_class_filter *mux = bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	if (!fs || !mux) {
		sink_fail(s, "babeltrace2 lacks source.ctf.fs or filter.utils.muxer");
		goto out;
	}
	g = bt_graph_create(0);
	const bt_component_filter *muxer = NULL;
	const bt_component_sink *sinkc = NULL;
	if (!g || bt_graph_add_filter_component(g, mux, "muxer", NULL, BT_LOGGING_LEVEL_NONE, &muxer) != 0 ||
	    bt_graph_add_simple_sink_component(g, "vmreplay", NULL, sink_consume, NULL, s, &sinkc) != 0) {
		sink_fail(s, "cannot build the babeltrace2 graph");
		goto out;
	}
	if (dat) {
		const bt_port_output *port = NULL;
		if (tracedat_add_source(g, dat, &port, s->err, s->errlen) != 0)
			s->failed = 1;
		else if (bt_graph_connect_ports(g, port, bt_component_filter_borrow_input_port_by_index_const(muxer, 0),
						NULL) != 0)
			sink_fail(s, "cannot connect the babeltrace2 graph");
		goto connect;
	}
	/* One source per UUID group, in directory order. */
	char **groups = calloc(dirs->nr, sizeof(*groups));
	int *done = calloc(dirs->nr, sizeof(*done));
	if (!groups || !done) {
		free(groups);
		free(done);
		sink_fail(s, "out of memory");
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
				sink_fail(s, "cannot connect the babeltrace2 graph");
		}
	}
	for (size_t i = 0; i < dirs->nr; i++)
		free(groups[i]);
	free(groups);
	free(done);
connect:
	if (!s->failed &&
	    bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sinkc, 0), NULL) != 0)
		sink_fail(s, "cannot connect the babeltrace2 graph");
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

/* The decoder's limit: 120 s without progress, or VMREPLAY_WATCHDOG's. */
static unsigned watchdog_seconds(void)
{
	const char *env = getenv("VMREPLAY_WATCHDOG");
	return env && atoi(env) > 0 ? (unsigned)atoi(env) : 120;
}

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
/* The trace's hash beside the decoding                                */

/* Without a cache to look in first, the trace's hash is needed only for
 * what is written (META trace_hash, the header), so it is taken on a
 * thread of its own while the graph decodes: it read the whole trace
 * (38 MB for the bench's storm) before the first event otherwise. */
struct hash_job {
	pthread_t thread;
	int started, joined, rc;
	const char *trace;
	uint8_t hash[16];
	char err[1024];
};

static void *hash_main(void *arg)
{
	struct hash_job *j = arg;
	j->rc = trace_hash(j->trace, j->hash, j->err, sizeof(j->err));
	return NULL;
}

/* The hash, once taken: 0, or -1 with its error in j->err. */
static int hash_wait(struct hash_job *j)
{
	if (!j->started)
		return j->rc;
	if (!j->joined)
		pthread_join(j->thread, NULL);
	j->joined = 1;
	return j->rc;
}

static int decode(const char *trace, struct hash_job *hj, const char *out, int show_progress,
		  int allow_empty, struct ingest_report *rep, char *err, size_t errlen);

int ingest_decode(const char *trace, const uint8_t hash[16], const char *out, int show_progress,
		  int allow_empty, struct ingest_report *rep, char *err, size_t errlen)
{
	/* A trace-cmd recording is probed in a child first, before this
	 * process has a thread beside it (tracedat.h). */
	int probed = tracedat_is(trace) ? tracedat_probe(trace, watchdog_seconds(), err, errlen) : 0;
	struct hash_job hj = { .trace = trace };
	if (hash)
		memcpy(hj.hash, hash, sizeof(hj.hash));
	else if (pthread_create(&hj.thread, NULL, hash_main, &hj) == 0)
		hj.started = 1;
	else
		hash_main(&hj);
	int rc = probed != 0 ? -1 : decode(trace, &hj, out, show_progress, allow_empty, rep, err, errlen);
	/* A trace that cannot be hashed (an unreadable file) is refused for
	 * that, as when the hash came first, whatever decoding said. */
	if (hash_wait(&hj) != 0) {
		snprintf(err, errlen, "%s", hj.err);
		rc = -1;
	}
	memcpy(rep->hash, hj.hash, sizeof(rep->hash));
	return rc;
}

/* ------------------------------------------------------------------ */
/* Decoding one trace                                                  */

static int decode(const char *trace, struct hash_job *hj, const char *out, int show_progress,
		  int allow_empty, struct ingest_report *rep, char *err, size_t errlen)
{
	struct tracedir_list dirs = { 0 };
	const char *dat = tracedat_is(trace) ? trace : NULL;
	if (!dat && tracedir_find(trace, &dirs, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < dirs.nr; i++)
		if (tracedir_check_metadata(dirs.dirs[i], err, errlen) != 0 ||
		    tracedir_check_streams(dirs.dirs[i], err, errlen) != 0) {
			tracedir_free(&dirs);
			return -1;
		}

	struct sink s = { 0 };
	pthread_mutex_init(&s.fail_lock, NULL);
	s.trace = trace;
	s.err = err;
	s.errlen = errlen;
	spill_init(&s.spill, out);
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

	struct watchdog wd = { .s = &s, .seconds = watchdog_seconds() };
	pthread_mutex_init(&wd.lock, NULL);
	pthread_cond_init(&wd.cond, NULL);
	int wd_running = pthread_create(&wd.thread, NULL, watchdog_main, &wd) == 0;

	bt_graph *g = NULL;
	int rc = build_graph(&s, &dirs, dat, &g), bt_failed = 0;
	if (rc == 0 && spsc_init(&s.q, sizeof(struct range_cmd), 1u << 14) == 0) {
		s.worker_on = pthread_create(&s.worker, NULL, sink_range_worker, &s) == 0;
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

	if (rc == 0 && hash_wait(hj) != 0)
		rc = -1;                 /* ingest_decode says why */
	if (rc == 0) {
		char hex[33];
		vmr_hash_hex(hj->hash, hex);
		sink_meta_add(&s, "trace_hash", "%s", hex);
		if (dat)
			sink_meta_add(&s, "trace_format", "trace-cmd");
		sink_meta_add(&s, "events", "%llu", (unsigned long long)s.events);
		sink_meta_add(&s, "discarded_events", "%llu", (unsigned long long)s.discarded);
		sink_meta_add(&s, "kernel_page_alloc", "%llu events, %llu pages",
			      (unsigned long long)s.kalloc_events, (unsigned long long)s.kalloc_pages);
		sink_meta_add(&s, "kernel_page_free", "%llu events, %llu pages",
			      (unsigned long long)s.kfree_events, (unsigned long long)s.kfree_pages);
		sink_summarise(&s, rep);
		sink_meta_add(&s, "skipped_events", "%s", rep->skipped);
		/* Nothing written of a trace with nothing to replay (an empty,
		 * foreign or damaged one), unless asked to keep it. */
		if (!s.failed && !allow_empty && !rep->accesses && !rep->reclaim_events)
			rc = ingest_nothing_to_replay(trace, rep, err, errlen);
		/* Ended tasks keep their end time; the others end at their last event. */
		else
			rc = s.failed ? -1 : sink_write_vmr(&s, out, hj->hash, err, errlen);
	}
	sink_free(&s);
	return rc;
}
