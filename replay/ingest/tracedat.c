/*
 * tracedat.c — a `trace-cmd record` file as a babeltrace2 source (see
 * tracedat.h).
 *
 * Nothing here interprets an event: each ftrace record becomes an event
 * of the same name and fields, shaped as lttng-modules shapes the kernel
 * domain, and kevents.c decodes it.  What the shapes differ in:
 *  - names: lttng-modules prefixes x86's exceptions:page_fault_user as
 *    x86_exceptions_page_fault_user and syscalls:sys_enter_X / sys_exit_X
 *    as syscall_entry_X / syscall_exit_X; every other event keeps its
 *    ftrace name (mm_vmscan_*, mm_filemap_*, sched_*, damon_aggregated);
 *  - task ids: ftrace's "pid" fields are thread ids, lttng-modules calls
 *    them tid and adds the thread group's pid.  ftrace records no tgid,
 *    so it is followed here as the agent follows it (capture/agent.c):
 *    task_newtask's clone_flags (CLONE_THREAD: the parent's group), exec
 *    (the task leads its group), else a task is its own group;
 *  - contexts: tid, pid and procname (trace-cmd's saved comm) in the
 *    event common context, the CPU as a stream per CPU with cpu_id in its
 *    packet context.
 * Records are merged across CPUs in time order (the smallest pending
 * timestamp first, as trace-cmd report does), over the top buffer and
 * every instance the file holds; events ftrace dropped come as
 * discarded-events messages.
 *
 * The side file FILE.session holds the session's setup as "key value"
 * lines ('#' starts a comment); it becomes the vmreplay:session and
 * vmreplay_capture:capture_session events a vmreplay capture records
 * (capture/EVENTS.md).
 */
#include "tracedat.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <trace-cmd.h>
#include <unistd.h>
#include "vmr/xxh.h"

#include "cli.h"

#define CLONE_THREAD_FLAG 0x00010000ull

static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

int tracedat_is(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	FILE *f = fopen(path, "rb");
	char buf[sizeof(magic)];
	int is = f && fread(buf, 1, sizeof(buf), f) == sizeof(buf) && memcmp(buf, magic, sizeof(buf)) == 0;
	if (f)
		fclose(f);
	return is;
}

/* ------------------------------------------------------------------ */
/* The side file                                                       */

/* Keys of FILE.session: the fields of vmreplay:session (S) and of
 * vmreplay_capture:capture_session (C) they fill. */
enum skey {
	K_MEMORY_LIMIT, K_SWAPPINESS, K_WORKLOAD, K_ARGV, K_KERNEL_RELEASE, K_HOSTNAME,
	K_MEM_TOTAL, K_LRU_KIND, K_ROOT_PID, K_CGROUP, K_CGROUP_VERSION, K_SWAP_KIND,
	K_SWAP_DEVICE, K_SWAP_SIZE, K_THP, NR_SKEYS
};

static const struct {
	const char *key;
	int is_str, is_size;
} skeys[NR_SKEYS] = {
	[K_MEMORY_LIMIT] = { "memory_limit", 0, 1 },
	[K_SWAPPINESS] = { "swappiness", 0, 0 },
	[K_WORKLOAD] = { "workload", 1, 0 },
	[K_ARGV] = { "argv", 1, 0 },
	[K_KERNEL_RELEASE] = { "kernel_release", 1, 0 },
	[K_HOSTNAME] = { "hostname", 1, 0 },
	[K_MEM_TOTAL] = { "mem_total", 0, 1 },
	[K_LRU_KIND] = { "lru_kind", 1, 0 },
	[K_ROOT_PID] = { "root_pid", 0, 0 },
	[K_CGROUP] = { "cgroup", 1, 0 },
	[K_CGROUP_VERSION] = { "cgroup_version", 0, 0 },
	[K_SWAP_KIND] = { "swap_kind", 1, 0 },
	[K_SWAP_DEVICE] = { "swap_device", 1, 0 },
	[K_SWAP_SIZE] = { "swap_size", 0, 1 },
	[K_THP] = { "thp", 1, 0 },
};

struct setup {
	int present;                   /* the side file exists */
	int set[NR_SKEYS];
	uint64_t u[NR_SKEYS];
	char s[NR_SKEYS][512];
};

static int read_setup(const char *trace, struct setup *su, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s.session", trace);
	memset(su, 0, sizeof(*su));
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	su->present = 1;
	char line[1024];
	int rc = 0;
	for (unsigned n = 1; rc == 0 && fgets(line, sizeof(line), f); n++) {
		line[strcspn(line, "\n")] = '\0';
		char *p = line + strspn(line, " \t");
		if (!*p || *p == '#')
			continue;
		char *val = p + strcspn(p, " \t");
		if (*val)
			*val++ = '\0';
		val += strspn(val, " \t");
		val[strcspn(val, "#")] = '\0';
		for (char *e = val + strlen(val); e > val && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		int k = 0;
		while (k < NR_SKEYS && strcmp(skeys[k].key, p) != 0)
			k++;
		if (k == NR_SKEYS) {
			snprintf(err, errlen, "%s: line %u: unknown key '%s' (keys: memory_limit, swappiness, "
				 "workload, argv, kernel_release, hostname, mem_total, lru_kind, root_pid, cgroup, "
				 "cgroup_version, swap_kind, swap_device, swap_size, thp)", path, n, p);
			rc = -1;
		} else if (skeys[k].is_str) {
			snprintf(su->s[k], sizeof(su->s[k]), "%s", val);
			su->set[k] = 1;
		} else if (k == K_SWAPPINESS) {
			if (cli_parse_u64(val, 0, 200, &su->u[k]) != 0) {
				snprintf(err, errlen, "%s: line %u: swappiness: '%s' is not 0 to 200", path, n, val);
				rc = -1;
			}
			su->set[k] = 1;
		} else if (skeys[k].is_size ? cli_parse_size(val, &su->u[k]) != 0
					    : cli_parse_u64(val, 0, UINT32_MAX, &su->u[k]) != 0) {
			snprintf(err, errlen, "%s: line %u: %s: '%s' is not %s", path, n, skeys[k].key, val,
				 skeys[k].is_size ? "a size" : "a number");
			rc = -1;
		} else {
			su->set[k] = 1;
		}
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -1;
	}
	fclose(f);
	/* Without them a replay would guess the very setup it is about. */
	if (rc == 0 && (!su->set[K_MEMORY_LIMIT] || !su->set[K_SWAPPINESS])) {
		snprintf(err, errlen, "%s: needs memory_limit and swappiness (0 = no limit)", path);
		rc = -1;
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* Hash                                                                */

static int hash_file(XXH3_state_t *st, const char *path, const char *name, int optional, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (optional && errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	XXH3_128bits_update(st, name, strlen(name) + 1);
	char buf[1 << 16] __attribute__((aligned(4096)));   /* on a page, as trace_hash's */
	size_t n;
	uint64_t total = 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		XXH3_128bits_update(st, buf, n);
		total += n;
	}
	int rc = ferror(f) ? -1 : 0;
	if (rc)
		snprintf(err, errlen, "%s: read error", path);
	XXH3_128bits_update(st, &total, sizeof(total));
	fclose(f);
	return rc;
}

int tracedat_hash(const char *path, uint8_t hash[16], char *err, size_t errlen)
{
	XXH3_state_t *st = XXH3_createState();
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	char side[4200];
	snprintf(side, sizeof(side), "%s.session", path);
	XXH3_128bits_reset(st);
	/* Fixed names: the key is the content alone, not where it lies. */
	int rc = hash_file(st, path, "trace.dat", 0, err, errlen);
	if (rc == 0)
		rc = hash_file(st, side, "trace.dat.session", 1, err, errlen);
	if (rc == 0) {
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
		memcpy(hash, c.digest, 16);
	}
	XXH3_freeState(st);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The source                                                          */

enum task_field { TF_NONE, TF_TID, TF_OLD_TID, TF_PARENT, TF_CHILD };

struct dfield {
	struct tep_format_field *f;
	int is_str;
	enum task_field task;          /* a thread id also given as its group */
};

struct dclass {
	bt_event_class *ec;
	struct dfield *fl;
	int nf;
	int is_newtask, is_exec;
	struct tep_format_field *newtask_pid, *newtask_flags;
};

struct dsrc {
	char path[4096];
	struct setup setup;
	struct tracecmd_input *in;
	struct tep_handle *tep;
	int ncpu;                      /* the machine's */
	/* The ring buffers: the top one's CPUs, then each instance's
	 * (trace-cmd record -B, trace-cmd extract -B): handle and CPU. */
	int nbuf, ninst;
	struct tracecmd_input **inst;
	struct tracecmd_input **bin;
	int *bcpu;
	struct tep_record **pend;      /* the next record of each buffer */
	bt_trace_class *tc;
	bt_stream_class *sc;
	bt_clock_class *cc;
	bt_trace *trace;
	bt_stream **stream;
	bt_packet **packet;
	struct dclass *cls;            /* by tep event id */
	int nr_cls;
	bt_event_class *ec_session, *ec_capture;
	int state;                     /* 0 begin, 1 events, 2 end, 3 done */
	int step;                      /* messages of states 0 and 2 so far */
	uint64_t last_ts;
	int32_t *tgid;                 /* by tid; 0 unknown */
	size_t nr_tgid;
};

static void dsrc_free(struct dsrc *d)
{
	if (!d)
		return;
	for (int c = 0; c < d->nbuf; c++) {
		if (d->pend && d->pend[c])
			tracecmd_free_record(d->pend[c]);
		if (d->packet)
			bt_packet_put_ref(d->packet[c]);
		if (d->stream)
			bt_stream_put_ref(d->stream[c]);
	}
	for (int i = 0; i < d->nr_cls; i++) {
		bt_event_class_put_ref(d->cls[i].ec);
		free(d->cls[i].fl);
	}
	free(d->cls);
	free(d->pend);
	free(d->packet);
	free(d->stream);
	free(d->tgid);
	free(d->bin);
	free(d->bcpu);
	for (int i = 0; i < d->ninst; i++)
		if (d->inst[i])
			tracecmd_close(d->inst[i]);
	free(d->inst);
	bt_event_class_put_ref(d->ec_session);
	bt_event_class_put_ref(d->ec_capture);
	bt_trace_put_ref(d->trace);
	bt_clock_class_put_ref(d->cc);
	bt_stream_class_put_ref(d->sc);
	bt_trace_class_put_ref(d->tc);
	if (d->in)
		tracecmd_close(d->in);
	free(d);
}

/* The group of TID, or TID itself if none is known yet. */
static int32_t *tgid_slot(struct dsrc *d, uint32_t tid)
{
	if (tid >= (1u << 22))             /* PID_MAX_LIMIT */
		return NULL;
	if (tid >= d->nr_tgid) {
		size_t n = d->nr_tgid ? d->nr_tgid : 1024;
		while (n <= tid)
			n *= 2;
		int32_t *t = realloc(d->tgid, n * sizeof(*t));
		if (!t)
			return NULL;
		memset(t + d->nr_tgid, 0, (n - d->nr_tgid) * sizeof(*t));
		d->tgid = t;
		d->nr_tgid = n;
	}
	return &d->tgid[tid];
}

static int64_t tgid_of(struct dsrc *d, uint32_t tid)
{
	int32_t *s = tgid_slot(d, tid);
	return s && *s ? *s : (int64_t)tid;
}

static bt_field_class *member(bt_trace_class *tc, bt_field_class *st, const char *name, int kind)
{
	bt_field_class *fc = kind == 's' ? bt_field_class_string_create(tc)
			     : kind == 'i' ? bt_field_class_integer_signed_create(tc)
					   : bt_field_class_integer_unsigned_create(tc);
	if (!fc || bt_field_class_structure_append_member(st, name, fc) != BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK) {
		bt_field_class_put_ref(fc);
		return NULL;
	}
	bt_field_class_put_ref(fc);
	return st;
}

/* The ftrace name of a thread-id field, as lttng-modules names it. */
static const char *task_name(const struct tep_event *ev, const char *f, enum task_field *tf)
{
	static const struct { const char *ev, *f, *to; enum task_field tf; } ren[] = {
		{ "sched_process_fork", "parent_pid", "parent_tid", TF_PARENT },
		{ "sched_process_fork", "child_pid", "child_tid", TF_CHILD },
		{ "sched_process_exec", "pid", "tid", TF_TID },
		{ "sched_process_exec", "old_pid", "old_tid", TF_OLD_TID },
		{ "sched_process_exit", "pid", "tid", TF_TID },
	};
	*tf = TF_NONE;
	for (size_t i = 0; i < sizeof(ren) / sizeof(ren[0]); i++)
		if (strcmp(ev->name, ren[i].ev) == 0 && strcmp(f, ren[i].f) == 0) {
			*tf = ren[i].tf;
			return ren[i].to;
		}
	return f;
}

static int make_class(struct dsrc *d, struct tep_event *ev, struct dclass *c)
{
	char name[256];
	if (strcmp(ev->system, "exceptions") == 0)
		snprintf(name, sizeof(name), "x86_exceptions_%s", ev->name);
	else if (strcmp(ev->system, "syscalls") == 0 && strncmp(ev->name, "sys_enter_", 10) == 0)
		snprintf(name, sizeof(name), "syscall_entry_%s", ev->name + 10);
	else if (strcmp(ev->system, "syscalls") == 0 && strncmp(ev->name, "sys_exit_", 9) == 0)
		snprintf(name, sizeof(name), "syscall_exit_%s", ev->name + 9);
	else
		snprintf(name, sizeof(name), "%s", ev->name);
	bt_field_class *st = bt_field_class_structure_create(d->tc);
	c->ec = bt_event_class_create(d->sc);
	c->fl = calloc((size_t)ev->format.nr_fields + 1, sizeof(*c->fl));
	if (!st || !c->ec || !c->fl || bt_event_class_set_name(c->ec, name) != BT_EVENT_CLASS_SET_NAME_STATUS_OK)
		goto fail;
	c->is_newtask = strcmp(ev->name, "task_newtask") == 0;
	c->is_exec = strcmp(ev->name, "sched_process_exec") == 0;
	int has_parent = 0, has_child = 0;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		int is_str = (f->flags & TEP_FIELD_IS_STRING) != 0;
		int is_int = !(f->flags & TEP_FIELD_IS_ARRAY) &&
			     (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
		if (c->is_newtask && strcmp(f->name, "pid") == 0)
			c->newtask_pid = f;
		if (c->is_newtask && strcmp(f->name, "clone_flags") == 0)
			c->newtask_flags = f;
		if (!is_str && !is_int)
			continue;                  /* arrays of numbers: no kernel_specs field */
		enum task_field tf;
		const char *fname = task_name(ev, f->name, &tf);
		has_parent |= tf == TF_PARENT;
		has_child |= tf == TF_CHILD;
		if (!member(d->tc, st, fname, is_str ? 's' : (f->flags & TEP_FIELD_IS_SIGNED) ? 'i' : 'u'))
			goto fail;
		c->fl[c->nf++] = (struct dfield){ f, is_str, tf };
	}
	/* The groups of fork's tasks, after the fields (names as lttng-modules). */
	if ((has_parent && !member(d->tc, st, "parent_pid", 'i')) ||
	    (has_child && !member(d->tc, st, "child_pid", 'i')))
		goto fail;
	if (bt_event_class_set_payload_field_class(c->ec, st) != BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK)
		goto fail;
	bt_field_class_put_ref(st);
	return 0;
fail:
	bt_field_class_put_ref(st);
	return -1;
}

static bt_event_class *make_fixed_class(struct dsrc *d, const char *name, const char *const *f,
					const char *kinds)
{
	bt_field_class *st = bt_field_class_structure_create(d->tc);
	bt_event_class *ec = bt_event_class_create(d->sc);
	int ok = st && ec && bt_event_class_set_name(ec, name) == BT_EVENT_CLASS_SET_NAME_STATUS_OK;
	for (int i = 0; ok && f[i]; i++)
		ok = member(d->tc, st, f[i], kinds[i]) != NULL;
	ok = ok && bt_event_class_set_payload_field_class(ec, st) == BT_EVENT_CLASS_SET_FIELD_CLASS_STATUS_OK;
	bt_field_class_put_ref(st);
	if (!ok) {
		bt_event_class_put_ref(ec);
		return NULL;
	}
	return ec;
}

/* The capture's two session events (capture/EVENTS.md), in field order. */
static const char *const session_f[] = { "workload", "argv", "memory_limit", "swappiness", "page_size",
	"kernel_release", "hostname", "nr_cpus", "mem_total", "lru_kind", NULL };
static const char session_k[] = "ssuiussuus";
static const char *const capture_f[] = { "root_pid", "cgroup", "cgroup_version", "memory_limit",
	"swappiness", "swap_kind", "swap_device", "swap_size", "kernel_source", "lru_kind", "thp",
	"period_ms", "damon", "damon_sample_us", "damon_aggr_us", "damon_update_us", "damon_note",
	"filter", NULL };
static const char capture_k[] = "usuuissusssuuuuuss";

static int build_classes(struct dsrc *d, bt_self_component *self)
{
	d->tc = bt_trace_class_create(self);
	d->cc = bt_clock_class_create(self);
	if (!d->tc || !d->cc)
		return -1;
	/* trace-cmd's clock (local unless -C): ns, origin unknown. */
	bt_clock_class_set_frequency(d->cc, 1000000000ull);
	bt_clock_class_set_origin_is_unix_epoch(d->cc, BT_FALSE);
	d->sc = bt_stream_class_create(d->tc);
	if (!d->sc || bt_stream_class_set_default_clock_class(d->sc, d->cc) != BT_STREAM_CLASS_SET_DEFAULT_CLOCK_CLASS_STATUS_OK)
		return -1;
	bt_stream_class_set_supports_packets(d->sc, BT_TRUE, BT_FALSE, BT_FALSE);
	bt_stream_class_set_supports_discarded_events(d->sc, BT_TRUE, BT_FALSE);
	bt_field_class *pc = bt_field_class_structure_create(d->tc), *cc = bt_field_class_structure_create(d->tc);
	int ok = pc && cc && member(d->tc, pc, "cpu_id", 'u') && member(d->tc, cc, "tid", 'i') &&
		 member(d->tc, cc, "pid", 'i') && member(d->tc, cc, "procname", 's') &&
		 bt_stream_class_set_packet_context_field_class(d->sc, pc) == BT_STREAM_CLASS_SET_FIELD_CLASS_STATUS_OK &&
		 bt_stream_class_set_event_common_context_field_class(d->sc, cc) == BT_STREAM_CLASS_SET_FIELD_CLASS_STATUS_OK;
	bt_field_class_put_ref(pc);
	bt_field_class_put_ref(cc);
	if (!ok)
		return -1;

	struct tep_event **evs = tep_list_events(d->tep, TEP_EVENT_SORT_ID);
	int max_id = -1;
	for (int i = 0; evs && evs[i]; i++)
		if (evs[i]->id > max_id)
			max_id = evs[i]->id;
	d->cls = calloc((size_t)max_id + 1, sizeof(*d->cls));
	if (max_id >= 0 && !d->cls)
		return -1;
	d->nr_cls = max_id + 1;
	for (int i = 0; evs && evs[i]; i++)
		if (strcmp(evs[i]->system, "ftrace") != 0 && make_class(d, evs[i], &d->cls[evs[i]->id]) != 0)
			return -1;
	if (d->setup.present) {
		d->ec_session = make_fixed_class(d, "vmreplay:session", session_f, session_k);
		d->ec_capture = make_fixed_class(d, "vmreplay_capture:capture_session", capture_f, capture_k);
		if (!d->ec_session || !d->ec_capture)
			return -1;
	}
	d->trace = bt_trace_create(d->tc);
	d->stream = calloc((size_t)d->nbuf, sizeof(*d->stream));
	d->packet = calloc((size_t)d->nbuf, sizeof(*d->packet));
	d->pend = calloc((size_t)d->nbuf, sizeof(*d->pend));
	if (!d->trace || !d->stream || !d->packet || !d->pend)
		return -1;
	for (int c = 0; c < d->nbuf; c++) {
		d->stream[c] = bt_stream_create(d->sc, d->trace);
		d->packet[c] = d->stream[c] ? bt_packet_create(d->stream[c]) : NULL;
		if (!d->packet[c])
			return -1;
		bt_field *ctx = bt_packet_borrow_context_field(d->packet[c]);
		bt_field_integer_unsigned_set_value(bt_field_structure_borrow_member_field_by_index(ctx, 0),
						    (uint64_t)d->bcpu[c]);
		d->pend[c] = tracecmd_read_cpu_first(d->bin[c], d->bcpu[c]);
	}
	return 0;
}

static bt_component_class_initialize_method_status
src_init(bt_self_component_source *self, bt_self_component_source_configuration *cfg,
	 const bt_value *params, void *init_data)
{
	(void)cfg;
	(void)params;
	struct dsrc *d = init_data;
	bt_self_component *comp = bt_self_component_source_as_self_component(self);
	/* D is the caller's until this succeeds (it frees D on failure). */
	if (build_classes(d, comp) != 0 ||
	    bt_self_component_source_add_output_port(self, "out", NULL, NULL) != BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(comp, "%s: cannot describe the recording "
								    "to babeltrace2 (out of memory?)", d->path);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_component_set_data(comp, d);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void src_finalize(bt_self_component_source *self)
{
	dsrc_free(bt_self_component_get_data(bt_self_component_source_as_self_component(self)));
}

static bt_message_iterator_class_initialize_method_status
it_init(bt_self_message_iterator *it, bt_self_message_iterator_configuration *cfg,
	bt_self_component_port_output *port)
{
	(void)cfg;
	(void)port;
	bt_self_message_iterator_set_data(it, bt_self_component_get_data(bt_self_message_iterator_borrow_component(it)));
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void set_int(bt_field *f, uint64_t v, int is_signed)
{
	if (is_signed)
		bt_field_integer_signed_set_value(f, (int64_t)v);
	else
		bt_field_integer_unsigned_set_value(f, v);
}

static int set_str(bt_field *f, const char *s, size_t max)
{
	char buf[4096];
	size_t n = strnlen(s, max < sizeof(buf) - 1 ? max : sizeof(buf) - 1);
	memcpy(buf, s, n);
	buf[n] = '\0';
	return bt_field_string_set_value(f, buf) == BT_FIELD_STRING_SET_VALUE_STATUS_OK ? 0 : -1;
}

/* The session's two events from the side file; FIRST is the recording's
 * first timestamp. */
static const bt_message *session_msg(struct dsrc *d, bt_self_message_iterator *it, bt_event_class *ec,
				     uint64_t first)
{
	const struct setup *su = &d->setup;
	bt_message *m = bt_message_event_create_with_packet_and_default_clock_snapshot(it, ec, d->packet[0], first);
	if (!m)
		return NULL;
	bt_field *p = bt_event_borrow_payload_field(bt_message_event_borrow_event(m));
	bt_field *cc = bt_event_borrow_common_context_field(bt_message_event_borrow_event(m));
	set_int(bt_field_structure_borrow_member_field_by_index(cc, 0), su->u[K_ROOT_PID], 1);
	set_int(bt_field_structure_borrow_member_field_by_index(cc, 1), su->u[K_ROOT_PID], 1);
	set_str(bt_field_structure_borrow_member_field_by_index(cc, 2), "", 1);
	int rc = 0;
	if (ec == d->ec_session) {
		const char *s[] = { su->s[K_WORKLOAD], su->s[K_ARGV], su->s[K_KERNEL_RELEASE], su->s[K_HOSTNAME],
				    su->s[K_LRU_KIND] };
		const int si[] = { 0, 1, 5, 6, 9 };
		for (int i = 0; i < 5; i++)
			rc |= set_str(bt_field_structure_borrow_member_field_by_index(p, (uint64_t)si[i]), s[i], 511);
		set_int(bt_field_structure_borrow_member_field_by_index(p, 2), su->u[K_MEMORY_LIMIT], 0);
		set_int(bt_field_structure_borrow_member_field_by_index(p, 3), su->u[K_SWAPPINESS], 1);
		/* The ring buffer's pages are the kernel's (trace.dat keeps
		 * their size as the sub-buffer size; older files as page size). */
		int ps = tep_get_page_size(d->tep);
		if (ps <= 0)
			ps = tep_get_sub_buffer_size(d->tep);
		set_int(bt_field_structure_borrow_member_field_by_index(p, 4), (uint64_t)(ps > 0 ? ps : 0), 0);
		set_int(bt_field_structure_borrow_member_field_by_index(p, 7), (uint64_t)d->ncpu, 0);
		set_int(bt_field_structure_borrow_member_field_by_index(p, 8), su->u[K_MEM_TOTAL], 0);
	} else {
		/* What a trace.dat cannot say (DAMON, a period) is off or 0. */
		const char *s[] = { su->s[K_CGROUP], su->s[K_SWAP_KIND], su->s[K_SWAP_DEVICE], "trace-cmd",
				    su->s[K_LRU_KIND], su->s[K_THP], "", "" };
		const int si[] = { 1, 5, 6, 8, 9, 10, 16, 17 };
		for (int i = 0; i < 8; i++)
			rc |= set_str(bt_field_structure_borrow_member_field_by_index(p, (uint64_t)si[i]), s[i], 511);
		const uint64_t u[] = { su->u[K_ROOT_PID], su->set[K_CGROUP_VERSION] ? su->u[K_CGROUP_VERSION] : 0,
				       su->u[K_MEMORY_LIMIT], su->u[K_SWAPPINESS], su->u[K_SWAP_SIZE], 0, 0, 0, 0, 0 };
		const int ui[] = { 0, 2, 3, 4, 7, 11, 12, 13, 14, 15 };
		for (int i = 0; i < 10; i++)
			set_int(bt_field_structure_borrow_member_field_by_index(p, (uint64_t)ui[i]), u[i], ui[i] == 4);
	}
	if (rc) {
		bt_message_put_ref(m);
		return NULL;
	}
	return m;
}

static uint64_t read_num(struct tep_format_field *f, const void *data, int is_signed)
{
	unsigned long long v = 0;
	tep_read_number_field(f, data, &v);
	if (is_signed && f->size < 8) {
		unsigned sh = 64u - 8u * (unsigned)f->size;
		return (uint64_t)((int64_t)(v << sh) >> sh);
	}
	return v;
}

/* A string field: fixed char[] or __data_loc / __rel_loc char[]. */
static const char *read_str(struct tep_format_field *f, const struct tep_record *r, size_t *max)
{
	const char *data = r->data;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		*max = (size_t)f->size;
		return data + f->offset;
	}
	unsigned long long loc = 0;
	tep_read_number_field(f, data, &loc);
	size_t off = loc & 0xffff, len = (loc >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (size_t)f->offset + (size_t)f->size;
	if (off >= (size_t)r->size)
		return *max = 0, "";
	*max = len < (size_t)r->size - off ? len : (size_t)r->size - off;
	return data + off;
}

static bt_message *event_msg(struct dsrc *d, bt_self_message_iterator *it, struct tep_record *r, int buf,
			     int *skip)
{
	int id = tep_data_type(d->tep, r);
	*skip = id < 0 || id >= d->nr_cls || !d->cls[id].ec;
	if (*skip)
		return NULL;
	struct dclass *c = &d->cls[id];
	uint32_t tid = (uint32_t)tep_data_pid(d->tep, r);
	if (c->is_newtask && c->newtask_pid && c->newtask_flags) {
		uint32_t child = (uint32_t)read_num(c->newtask_pid, r->data, 0);
		int32_t *s = tgid_slot(d, child);
		if (s)
			*s = (int32_t)((read_num(c->newtask_flags, r->data, 0) & CLONE_THREAD_FLAG)
				       ? tgid_of(d, tid) : child);
	}
	bt_message *m = bt_message_event_create_with_packet_and_default_clock_snapshot(it, c->ec, d->packet[buf],
										       r->ts);
	if (!m)
		return NULL;
	bt_event *ev = bt_message_event_borrow_event(m);
	bt_field *cc = bt_event_borrow_common_context_field(ev), *p = bt_event_borrow_payload_field(ev);
	const char *comm = tid ? tep_data_comm_from_pid(d->tep, (int)tid) : "swapper";
	set_int(bt_field_structure_borrow_member_field_by_index(cc, 0), tid, 1);
	set_int(bt_field_structure_borrow_member_field_by_index(cc, 1), (uint64_t)tgid_of(d, tid), 1);
	int rc = set_str(bt_field_structure_borrow_member_field_by_index(cc, 2),
			 comm && strcmp(comm, "<...>") != 0 ? comm : "", 16);
	uint64_t i = 0;
	for (int k = 0; k < c->nf; k++, i++) {
		struct dfield *f = &c->fl[k];
		bt_field *bf = bt_field_structure_borrow_member_field_by_index(p, i);
		if (f->is_str) {
			size_t max;
			const char *s = read_str(f->f, r, &max);
			rc |= set_str(bf, s, max);
		} else {
			set_int(bf, read_num(f->f, r->data, (f->f->flags & TEP_FIELD_IS_SIGNED) != 0),
				(f->f->flags & TEP_FIELD_IS_SIGNED) != 0);
		}
	}
	/* fork: the groups; exec: the task leads its group from now on. */
	for (int k = 0; k < c->nf; k++) {
		struct dfield *f = &c->fl[k];
		uint32_t t = f->task != TF_NONE ? (uint32_t)read_num(f->f, r->data, 0) : 0;
		if (f->task == TF_PARENT || f->task == TF_CHILD)
			set_int(bt_field_structure_borrow_member_field_by_index(p, i++),
				(uint64_t)tgid_of(d, t), 1);
		if (c->is_exec && f->task == TF_TID) {
			int32_t *s = tgid_slot(d, t);
			if (s)
				*s = (int32_t)t;
		}
	}
	if (rc) {
		bt_message_put_ref(m);
		return NULL;
	}
	return m;
}

static bt_message_iterator_class_next_method_status
it_next(bt_self_message_iterator *it, bt_message_array_const msgs, uint64_t capacity, uint64_t *count)
{
	struct dsrc *d = bt_self_message_iterator_get_data(it);
	uint64_t n = 0;
	if (d->state == 3)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	/* Stream and packet beginnings, then the session: as many per
	 * call as there is room for (d->step counts them). */
	while (d->state == 0 && n < capacity) {
		int c = d->step / 2;
		if (c < d->nbuf) {
			msgs[n] = d->step % 2 ? bt_message_packet_beginning_create(it, d->packet[c])
					      : bt_message_stream_beginning_create(it, d->stream[c]);
			if (!msgs[n++])
				goto oom;
			d->step++;
			continue;
		}
		if (d->setup.present && d->step < 2 * d->nbuf + 2) {
			if (d->step == 2 * d->nbuf) {
				uint64_t first = UINT64_MAX;
				for (int b = 0; b < d->nbuf; b++)
					if (d->pend[b] && d->pend[b]->ts < first)
						first = d->pend[b]->ts;
				d->last_ts = first == UINT64_MAX ? 0 : first;
			}
			msgs[n] = session_msg(d, it, d->step == 2 * d->nbuf ? d->ec_session : d->ec_capture,
					      d->last_ts);
			if (!msgs[n++])
				goto oom;
			d->step++;
			continue;
		}
		d->state = 1;
		d->step = 0;
	}
	while (d->state == 1 && n + 2 <= capacity) {
		int best = -1;
		for (int c = 0; c < d->nbuf; c++)
			if (d->pend[c] && (best < 0 || d->pend[c]->ts < d->pend[best]->ts))
				best = c;
		if (best < 0) {
			d->state = 2;
			break;
		}
		struct tep_record *r = d->pend[best];
		d->pend[best] = tracecmd_read_data(d->bin[best], d->bcpu[best]);
		if (r->ts < d->last_ts)
			r->ts = d->last_ts;        /* never back in time (muxer) */
		d->last_ts = r->ts;
		if (r->missed_events) {
			bt_message *m = bt_message_discarded_events_create(it, d->stream[best]);
			if (!m) {
				tracecmd_free_record(r);
				goto oom;
			}
			if (r->missed_events > 0)
				bt_message_discarded_events_set_count(m, (uint64_t)r->missed_events);
			msgs[n++] = m;
		}
		int skip;
		bt_message *m = event_msg(d, it, r, best, &skip);
		tracecmd_free_record(r);
		if (!skip && !m)
			goto oom;
		if (m)
			msgs[n++] = m;
	}
	while (d->state == 2 && n < capacity) {
		int c = d->step / 2;
		if (c == d->nbuf) {
			d->state = 3;
			break;
		}
		msgs[n] = d->step % 2 ? bt_message_stream_end_create(it, d->stream[c])
				      : bt_message_packet_end_create(it, d->packet[c]);
		if (!msgs[n++])
			goto oom;
		d->step++;
	}
	*count = n;
	return n ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK
		 : d->state == 3 ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END
				 : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
oom:
	for (uint64_t i = 0; i < n; i++)
		bt_message_put_ref(msgs[i]);
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it, "%s: cannot make a babeltrace2 message "
								   "(out of memory, or a string not UTF-8?)", d->path);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

/* libtracecmd 3.1.6 can crash on a damaged file (a NULL dereference in
 * tracecmd_buffer_instance_handle's error path, seen on a trace.dat with
 * 16 bytes overwritten), and writes its complaints to stderr.  So the
 * recording is first read whole in a child, with stderr closed: a child
 * that dies, or cannot read it, makes the file refused in one line.  The
 * child dies with its parent (the decoder, which its watchdog may end):
 * left behind, it would hold the decoder's result pipe open, and the
 * command would wait for that pipe's end for ever. */
int tracedat_probe(const char *path, unsigned seconds, char *err, size_t errlen)
{
	fflush(NULL);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(5);
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		tracecmd_set_loglevel(TEP_LOG_NONE);
		struct tracecmd_input *in = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS |
							 TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
		struct tep_handle *tep = in ? tracecmd_get_tep(in) : NULL;
		if (!tep)
			_exit(3);
		int ncpu = tep_get_cpus(tep), ninst = tracecmd_buffer_instances(in);
		for (int i = -1; i < ninst; i++) {
			struct tracecmd_input *h = i < 0 ? in : tracecmd_buffer_instance_handle(in, i);
			if (!h)
				_exit(4);
			for (int c = 0; c < ncpu; c++)
				for (struct tep_record *r = tracecmd_read_cpu_first(h, c); r;
				     r = tracecmd_read_data(h, c)) {
					tep_data_type(tep, r);
					tracecmd_free_record(r);
				}
		}
		_exit(0);                  /* no cleanup: the parent reads it again */
	}
	/* No thread watches this wait (the decoder's watchdog starts after
	 * it), so it watches itself: a child still reading after SECONDS is
	 * stuck in the recording, as the watchdog would have found it. */
	int st;
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	for (uint64_t waited = 0;; waited += 10) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(err, errlen, "waitpid: %s", strerror(errno));
			return -1;
		}
		if (waited >= (uint64_t)seconds * 1000) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			snprintf(err, errlen, "%s: libtracecmd made no progress reading it for %u s "
				 "(corrupt trace?); giving up", path, seconds);
			return -1;
		}
		nanosleep(&tick, NULL);
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFSIGNALED(st))
		snprintf(err, errlen, "%s: a damaged trace-cmd recording (libtracecmd died reading it: %s)",
			 path, strsignal(WTERMSIG(st)));
	else
		snprintf(err, errlen, "%s: not a readable trace-cmd recording (libtracecmd refused %s)", path,
			 WEXITSTATUS(st) == 4 ? "one of its buffer instances" : "it");
	return -1;
}

int tracedat_add_source(bt_graph *g, const char *path, const bt_port_output **port, char *err, size_t errlen)
{
	struct dsrc *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(d->path, sizeof(d->path), "%s", path);
	if (read_setup(path, &d->setup, err, errlen) != 0) {
		free(d);
		return -1;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	d->in = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!d->in) {
		snprintf(err, errlen, "%s: not a readable trace-cmd recording (libtracecmd refused it)", path);
		free(d);
		return -1;
	}
	d->tep = tracecmd_get_tep(d->in);
	d->ncpu = d->tep ? tep_get_cpus(d->tep) : 0;
	if (d->ncpu <= 0 || d->ncpu > 8192) {
		snprintf(err, errlen, "%s: the recording holds no CPU buffers", path);
		dsrc_free(d);
		return -1;
	}
	d->ninst = tracecmd_buffer_instances(d->in);
	d->ninst = d->ninst > 0 && d->ninst < 256 ? d->ninst : 0;
	d->inst = calloc((size_t)d->ninst + 1, sizeof(*d->inst));
	d->bin = calloc((size_t)d->ncpu * ((size_t)d->ninst + 1), sizeof(*d->bin));
	d->bcpu = calloc((size_t)d->ncpu * ((size_t)d->ninst + 1), sizeof(*d->bcpu));
	if (!d->inst || !d->bin || !d->bcpu) {
		snprintf(err, errlen, "out of memory");
		dsrc_free(d);
		return -1;
	}
	for (int i = -1; i < d->ninst; i++) {
		struct tracecmd_input *h = i < 0 ? d->in : tracecmd_buffer_instance_handle(d->in, i);
		if (!h) {
			snprintf(err, errlen, "%s: buffer %s: libtracecmd cannot read it", path,
				 tracecmd_buffer_instance_name(d->in, i));
			dsrc_free(d);
			return -1;
		}
		if (i >= 0)
			d->inst[i] = h;
		for (int c = 0; c < d->ncpu; c++) {
			d->bin[d->nbuf] = h;
			d->bcpu[d->nbuf++] = c;
		}
	}
	bt_message_iterator_class *itc = bt_message_iterator_class_create(it_next);
	bt_component_class_source *cls = itc ? bt_component_class_source_create("tracedat", itc) : NULL;
	const bt_component_source *src = NULL;
	int rc = -1;
	if (cls && bt_message_iterator_class_set_initialize_method(itc, it_init) == BT_MESSAGE_ITERATOR_CLASS_SET_METHOD_STATUS_OK &&
	    bt_component_class_source_set_initialize_method(cls, src_init) == BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK &&
	    bt_component_class_source_set_finalize_method(cls, src_finalize) == BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK) {
		if (bt_graph_add_source_component_with_initialize_method_data(g, cls, "tracedat", NULL, d,
				BT_LOGGING_LEVEL_NONE, &src) == BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
			*port = bt_component_source_borrow_output_port_by_index_const(src, 0);
			rc = 0;
		} else {
			/* src_init failed: D was not handed over */
			snprintf(err, errlen, "%s: cannot read the recording into babeltrace2", path);
			bt_current_thread_clear_error();
			dsrc_free(d);
		}
	} else {
		snprintf(err, errlen, "out of memory");
		dsrc_free(d);
	}
	bt_component_class_source_put_ref(cls);
	bt_message_iterator_class_put_ref(itc);
	return rc;
}
