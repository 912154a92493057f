/*
 * kernel_ctf.c — the tracefs bridge's kernel events moved into a
 * kernel-domain CTF trace at the kernel's own timestamps (kernel_ctf.h).
 *
 * Two libbabeltrace2 graphs, both with our own in-process component
 * classes (no plugin file):
 *
 *   1. source.ctf.fs (the UST trace) -> utils.muxer -> split -> sink.ctf.fs
 *      split (kernel_ctf_read.c) passes every message through except the
 *      vmreplay_kernel:* events, whose fields it copies into memory: the
 *      UST trace is rewritten without them.
 *   2. ksrc -> sink.ctf.fs
 *      ksrc (kernel_ctf_write.c) writes them as lttng-modules lays out a
 *      kernel trace, each at its kts, on the UST trace's clock.
 *
 * A CTF stream's timestamps must not go back, but the bridge drains its
 * tracefs instances one after the other, so between the graphs the
 * events are sorted by (kts, CPU, order of arrival); how many arrived
 * behind a later kts of their CPU is counted.  Everything is written
 * into a temporary folder inside the session and renamed into place at
 * the end.
 */
#include "kernel_ctf.h"
#include "kernel_ctf_priv.h"
#include "ingest/tracedir.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define UST_REL "ust/uid/0/64-bit"

int kctf_fail(struct conv *cv, const char *fmt, ...)
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
	kctf_fail(cv, "%s: %s%s%s", cv->trace, what, cause[0] ? ": " : "", cause);
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
	bt_component_class_filter *fc = kctf_split_class();
	bt_graph *g = bt_graph_create(0);
	bt_value *params = bt_value_map_create(), *inputs = NULL;
	int rc = -1;
	if (!fc || !g || !params ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, ust_dir)) {
		kctf_fail(cv, "out of memory");
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
	return rc;
}

/* Graph 2: ksrc -> sink.ctf.fs (OUT). */
static int kernel_graph(struct conv *cv, const bt_plugin *ctf, const char *out)
{
	bt_component_class_source *sc = kctf_kernel_class();
	bt_graph *g = bt_graph_create(0);
	const bt_component_source *src = NULL;
	int rc = -1;
	if (!sc || !g) {
		kctf_fail(cv, "out of memory");
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

static int convert(const char *session, struct kernel_ctf_stats *st, char *err, size_t errlen)
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
		kctf_fail(cv, "cannot load babeltrace2's ctf and utils plugins (package babeltrace2)");
		goto out;
	}
	if (!mkdtemp(tmp)) {
		kctf_fail(cv, "%s: %s", tmp, strerror(errno));
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
	if (cv->clock_freq != 1000000000ull) {
		/* kts is in ns: on another clock it would need a rescale that
		 * LTTng's (always 1 GHz) never needed */
		kctf_fail(cv, "%s: clock %s runs at %llu Hz, not 1 GHz: kts cannot be its time", ust,
			  cv->clock_name, (unsigned long long)cv->clock_freq);
		goto out;
	}
	qsort(cv->rec, cv->nr_rec, sizeof(*cv->rec), cmp_rec);
	if (kernel_graph(cv, ctf, t_kernel) != 0)
		goto out;
	/* Into place: the new UST trace first (the old one kept until the
	 * kernel trace is in place too), so that an error leaves the session
	 * as it was. */
	if (rename(ust, t_old) != 0) {
		kctf_fail(cv, "%s: %s", ust, strerror(errno));
		goto out;
	}
	if (rename(t_ust, ust) != 0 || rename(t_kernel, kdir) != 0) {
		kctf_fail(cv, "%s: cannot move the new traces into place: %s", session, strerror(errno));
		if (stat(t_ust, &sb) != 0)
			rename(ust, t_ust);
		rename(t_old, ust);
		goto out;
	}
	st->events = cv->nr_rec;
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

/* What the library printed before it died: its assertion line, else its
 * first line. */
static void death_reason(char *text, char *out, size_t len)
{
	char *first = NULL, *why = NULL;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		while (*l == ' ' || *l == '\t')
			l++;
		if (!*l)
			continue;
		if (!first)
			first = l;
		if (!why && strstr(l, "Assertion"))
			why = l;
	}
	const char *r = why ? why : first;
	if (r && (why = strstr(r, "  ")) && why - r < 32)
		r = why + strspn(why, " ");    /* after babeltrace2's table-flip */
	snprintf(out, len, "%s", r ? r : "no message");
}

/* libbabeltrace2 2.0.4 calls abort() on some damaged traces (an index
 * entry with a negative offset, say), which must not end a capture before
 * it has restored the machine's settings: the conversion runs in a child,
 * whose stderr is kept for the reason, and a killed child's temporary
 * folder is undone here. */
int kernel_ctf_convert(const char *session, struct kernel_ctf_stats *st, char *err, size_t errlen)
{
	struct result { int rc; struct kernel_ctf_stats st; char err[8192]; } *r;
	int fd[2];
	memset(st, 0, sizeof(*st));
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED || pipe(fd) != 0) {
		snprintf(err, errlen, "%s: %s", session, strerror(errno));
		if (r != MAP_FAILED)
			munmap(r, sizeof(*r));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "%s: fork: %s", session, strerror(errno));
		close(fd[0]);
		close(fd[1]);
		munmap(r, sizeof(*r));
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], STDERR_FILENO);
		close(fd[1]);
		r->rc = convert(session, &r->st, r->err, sizeof(r->err));
		_exit(0);
	}
	close(fd[1]);
	char text[8192];
	size_t n = 0;
	for (;;) {
		ssize_t got = read(fd[0], text + n, sizeof(text) - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
		if (n == sizeof(text) - 1)
			n = 0;                 /* keep reading: the end says why */
	}
	text[n] = '\0';
	close(fd[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int rc;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = r->rc;
		*st = r->st;
		snprintf(err, errlen, "%s", r->err);
	} else {
		char why[512], ust[4096], kdir[4096];
		death_reason(text, why, sizeof(why));
		snprintf(ust, sizeof(ust), "%s/" UST_REL, session);
		snprintf(kdir, sizeof(kdir), "%s/kernel", session);
		recover(session, ust, kdir);
		if (WIFSIGNALED(status))
			snprintf(err, errlen, "%s: the CTF decoder (libbabeltrace2) died of SIG%s: %s", session,
				 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?", why);
		else
			snprintf(err, errlen, "%s: the conversion exited %d: %s", session, WEXITSTATUS(status), why);
		rc = -1;
	}
	munmap(r, sizeof(*r));
	return rc;
}
