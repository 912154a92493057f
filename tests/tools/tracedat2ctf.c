/*
 * tracedat2ctf — a test tool: writes a trace-cmd recording as the CTF
 * trace babeltrace2's sink.ctf.fs makes of ingest's own trace.dat source
 * (replay/ingest/tracedat.c): the events under the names, fields and
 * contexts lttng-modules gives them (tid, pid, procname; cpu_id per
 * stream).  tests/t_lttng_plain.sh reads the result as a plain LTTng
 * kernel-domain session, through source.ctf.fs as any CTF trace, with
 * the reclaim of a real recording in it (this machine has no
 * lttng-modules to record one).  It is not lttng-modules' own output: no
 * LTTng environment (tracer, domain) is written.
 *
 * usage: tracedat2ctf TRACE.DAT OUTDIR
 */
#include "ingest/tracedat.h"

#include <babeltrace2/babeltrace.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: tracedat2ctf TRACE.DAT OUTDIR\n");
		return 2;
	}
	char err[1024] = "";
	const bt_plugin *ctf = NULL;
	bt_graph *g = bt_graph_create(0);
	const bt_port_output *out = NULL;
	const bt_component_sink *sink = NULL;
	bt_value *params = bt_value_map_create();
	int rc = 1;
	if (!g || !params ||
	    bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) != BT_PLUGIN_FIND_STATUS_OK) {
		fprintf(stderr, "tracedat2ctf: babeltrace2's ctf plugin not found\n");
		goto done;
	}
	const bt_component_class_sink *fs = bt_plugin_borrow_sink_component_class_by_name_const(ctf, "fs");
	bt_value_map_insert_string_entry(params, "path", argv[2]);
	bt_value_map_insert_bool_entry(params, "assume-single-trace", BT_TRUE);
	if (tracedat_add_source(g, argv[1], &out, err, sizeof(err)) != 0) {
		fprintf(stderr, "tracedat2ctf: %s\n", err);
		goto done;
	}
	if (!fs || bt_graph_add_sink_component(g, fs, "ctf", params, BT_LOGGING_LEVEL_NONE, &sink) != 0 ||
	    bt_graph_connect_ports(g, out, bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL) != 0) {
		fprintf(stderr, "tracedat2ctf: cannot build the graph\n");
		goto done;
	}
	bt_graph_run_status st;
	while ((st = bt_graph_run(g)) == BT_GRAPH_RUN_STATUS_AGAIN)
		;
	if (st != BT_GRAPH_RUN_STATUS_OK) {
		const bt_error *e = bt_current_thread_take_error();
		fprintf(stderr, "tracedat2ctf: %s\n", e && bt_error_get_cause_count(e) ?
			bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0)) : "writing failed");
		if (e)
			bt_error_release(e);
		goto done;
	}
	rc = 0;
done:
	bt_value_put_ref(params);
	bt_graph_put_ref(g);
	bt_plugin_put_ref(ctf);
	return rc;
}
