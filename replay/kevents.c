/*
 * kevents.c — the kernel's own events in ingest (see kevents.h).
 *
 * Two vocabularies of the same tracepoints arrive here: LTTng's kernel
 * domain (lttng-modules names, no provider prefix, task ids in the
 * tid/pid contexts, tracing-notes.md section 2) and the capture agent's
 * bridge (`vmreplay_kernel:<same name>`, task ids and the kernel's own
 * timestamp kts in the payload).  One table maps both to one internal
 * event set.  The capture agent's facts (`vmreplay_capture:*`) come too.
 *
 * Everything is collected while the trace is decoded and put in time
 * order at the end (bridged events carry the kernel's timestamp, which
 * is not the order LTTng recorded them in).  Then:
 *   - the process tree is rebuilt (fork, exec, exit, task names), and
 *     events are kept only for the workload's tasks and kswapd when the
 *     capture named the workload's first process;
 *   - reclaim events are kept as they are: the ground truth;
 *   - unless the trace already holds an instrumented workload's exact
 *     access stream, faults, page-cache events and DAMON samples become
 *     the demand stream, by the rules of FORMAT.md.
 */
#include "kevents.h"
#include "damon.h"
#include "ingest_sink.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

enum kkind {
	/* 1..VMR_KEV_NR_TYPES-1: ground truth, as enum vmr_kev_type */
	KK_FAULT = 32, KK_FILEMAP_ADD, KK_FILEMAP_DELETE, KK_FILEMAP_GET_PAGES, KK_DAMON,
	KK_DAMON_PASS,                 /* made from KK_DAMON at the end */
	KK_SCHED_SWITCH,
	KK_CAPTURE_SESSION, KK_MEMCG_STAT, KK_PROC_MAPS, KK_TASK_COMM, KK_DAMON_TARGET,
	KK_CAPTURE_END,
};

enum origin { O_KERNEL, O_BRIDGE, O_CAPTURE };

#define MAX_KF 28

/* Field names: "a|b" alternatives, a leading '?' optional, '$' a string. */
struct kspec {
	const char *name;              /* without provider (O_KERNEL) */
	int kind;
	const char *f[MAX_KF];
};

static const struct kspec kernel_specs[] = {
	{ "mm_vmscan_direct_reclaim_begin", VMR_KEV_DIRECT_BEGIN, { "order", "gfp_flags" } },
	{ "mm_vmscan_direct_reclaim_end", VMR_KEV_DIRECT_END, { "nr_reclaimed" } },
	{ "mm_vmscan_memcg_reclaim_begin", VMR_KEV_MEMCG_BEGIN, { "order", "gfp_flags" } },
	{ "mm_vmscan_memcg_reclaim_end", VMR_KEV_MEMCG_END, { "nr_reclaimed" } },
	{ "mm_vmscan_kswapd_wake", VMR_KEV_KSWAPD_WAKE, { "nid", "?zid", "order" } },
	{ "mm_vmscan_kswapd_sleep", VMR_KEV_KSWAPD_SLEEP, { "nid" } },
	{ "mm_vmscan_wakeup_kswapd", VMR_KEV_WAKEUP_KSWAPD, { "nid", "?zid", "order", "?gfp_flags" } },
	{ "mm_vmscan_lru_isolate", VMR_KEV_LRU_ISOLATE,
	  { "?classzone_idx|highest_zoneidx", "order", "nr_requested", "nr_scanned", "?nr_skipped",
	    "nr_taken", "?lru", "?isolate_mode" } },
	{ "mm_vmscan_lru_shrink_inactive", VMR_KEV_SHRINK_INACTIVE,
	  { "nid", "nr_scanned", "nr_reclaimed", "?nr_dirty", "?nr_writeback", "?nr_congested",
	    "?nr_immediate", "?nr_activate_anon|nr_activate0", "?nr_activate_file|nr_activate1",
	    "?nr_ref_keep", "?nr_unmap_fail", "priority", "reclaim_flags|flags" } },
	{ "mm_vmscan_lru_shrink_active", VMR_KEV_SHRINK_ACTIVE,
	  { "nid", "nr_taken", "nr_active", "nr_deactivated", "nr_referenced", "priority",
	    "reclaim_flags|flags" } },
	{ "mm_vmscan_throttled", VMR_KEV_THROTTLED, { "nid", "usec_timeout", "usec_delayed", "reason" } },
	{ "mm_vmscan_write_folio", VMR_KEV_WRITE_FOLIO, { "?pfn", "reclaim_flags" } },
	{ "mm_vmscan_writepage", VMR_KEV_WRITE_FOLIO, { "?pfn", "reclaim_flags" } },
	{ "sched_process_fork", VMR_KEV_FORK,
	  { "parent_tid|parent_pid", "?parent_pid", "child_tid|child_pid", "?child_pid", "$child_comm" } },
	{ "sched_process_exec", VMR_KEV_EXEC, { "$filename", "?tid", "?old_tid" } },
	{ "sched_process_exit", VMR_KEV_EXIT, { "$comm", "?tid", "?prio" } },
	{ "x86_exceptions_page_fault_user", KK_FAULT, { "address", "?ip", "error_code" } },
	{ "mm_filemap_add_to_page_cache", KK_FILEMAP_ADD, { "?pfn", "i_ino", "index", "s_dev", "?order" } },
	{ "mm_filemap_delete_from_page_cache", KK_FILEMAP_DELETE, { "?pfn", "i_ino", "index", "s_dev", "?order" } },
	{ "mm_filemap_get_pages", KK_FILEMAP_GET_PAGES, { "i_ino", "s_dev", "index", "last_index" } },
	{ "damon_aggregated", KK_DAMON, { "target_id", "?nr_regions", "start", "end", "nr_accesses", "?age" } },
	{ "sched_switch", KK_SCHED_SWITCH, { "prev_tid", "$next_comm", "next_tid" } },
};

static const struct kspec capture_specs[] = {
	{ "capture_session", KK_CAPTURE_SESSION,
	  { "root_pid", "$cgroup", "cgroup_version", "memory_limit", "swappiness", "$swap_kind",
	    "$swap_device", "swap_size", "$kernel_source", "$lru_kind", "$thp", "period_ms", "damon",
	    "damon_sample_us", "damon_aggr_us", "damon_update_us", "$damon_note", "$filter",
	    "?lru_gen_enabled", "?lru_gen_min_ttl_ms", "$?kernel_version", "$?build_source",
	    "$?build_version", "$?build_tree", "$?build_config", "$?build_patches", "$?build_key" } },
	{ "memcg_stat", KK_MEMCG_STAT, { "kts", "$stat" } },
	{ "proc_maps", KK_PROC_MAPS, { "kts", "pid", "$maps" } },
	{ "task_comm", KK_TASK_COMM, { "kts", "tid", "pid", "$comm" } },
	{ "damon_target", KK_DAMON_TARGET, { "kts", "target_id", "pid" } },
	{ "capture_end", KK_CAPTURE_END, { "ftrace_lost", "bridged", "workload_status", "elapsed_ns" } },
};

#define BRIDGE_PREFIX  "vmreplay_kernel:"
#define CAPTURE_PREFIX "vmreplay_capture:"

enum scope { SC_PAYLOAD, SC_COMMON, SC_SPECIFIC, SC_PACKET };

struct kfield {
	uint8_t present, is_signed, is_str, scope;
	uint64_t idx;
};

struct kclass {
	const struct kspec *spec;
	enum origin origin;
	int nf;
	struct kfield f[MAX_KF];
	struct kfield kts, kcpu, ktid, kpid;       /* bridge */
	struct kfield ctid, cpid, cprocname, ccpu; /* kernel domain contexts */
	uint64_t count;
};

/* A demand-side event, compact (faults are most of a trace). */
struct kdem {
	uint64_t ts;
	uint32_t tid, pid;
	uint32_t seq;
	uint8_t kind;
	uint8_t order;
	uint16_t cpu;
	uint64_t dev;
	uint64_t a, b, c;
};

struct mreg {
	uint64_t start, end, pgoff, dev, ino;
	int file;                      /* page cache backed (not shmem/anon) */
	int priv;                      /* MAP_PRIVATE: written pages become anon */
};

struct msnap {
	int32_t pid;
	uint32_t epoch;
	uint64_t ts;
	size_t first, nr;
};

struct dtarget {
	uint64_t ts;
	uint32_t id;
	int32_t pid;
};

struct tinfo {
	uint32_t tid, pid, ppid;
	char comm[16];
	uint8_t used, in_tree, kswapd, in_reclaim, last_fault_file, named, comm_seen;
	int32_t threads;               /* of the thread group, when tid == pid */
	uint64_t last_fault_dev, last_fault_ino;
	size_t pend_first, pend_nr;    /* pending page-cache adds (in k->pend) */
};

struct kevents {
	struct kclass *cls;
	size_t nr_cls, cap_cls;

	struct vmr_kev *kev;
	size_t nr_kev, cap_kev;
	struct kdem *dem;
	size_t nr_dem, cap_dem;
	struct vmr_memcg *memcg;
	size_t nr_memcg, cap_memcg;
	struct mreg *reg;
	size_t nr_reg, cap_reg;
	struct msnap *snap;
	size_t nr_snap, cap_snap;
	struct dtarget *dt;
	size_t nr_dt, cap_dt;
	struct vmr_kev *out;           /* ground truth after finish */
	size_t nr_out, cap_out;
	uint32_t seq;
	uint64_t events;

	/* kernel domain: current task per CPU, from sched_switch */
	uint32_t *cur_tid;
	size_t nr_cpus;

	/* tasks */
	struct tinfo *t;
	size_t nr_t, cap_t;
	uint32_t *tslot;
	size_t nr_tslot;

	/* pending filemap adds, by task */
	struct kdem *pend;
	size_t nr_pend, cap_pend;
	/* file pages the workload inserted into the page cache */
	struct pkey { uint64_t dev, ino, index; } *ins;
	size_t nr_ins, cap_ins;

	/* capture facts: the capture's session event, kept whole */
	struct {
		char cgroup[512], swap_kind[32], swap_device[512], kernel_source[32], lru_kind[16];
		char thp[32], damon_note[512], filter[512];
		/* the kernel's LRU and how it was built (test bed), if recorded */
		int64_t lru_gen_enabled, lru_gen_min_ttl_ms;
		char kernel_version[512], build_source[64], build_version[128], build_tree[1024];
		char build_config[80], build_patches[1024], build_key[256];
		uint64_t cgroup_version, limit, swap_size, period_ms, damon, update_us;
		int64_t swappiness;
		uint64_t end_lost, end_bridged, end_elapsed;
		int64_t end_status;
		int have_end;
	} cap;
	struct vmr_kev *evict;         /* file folios evicted, found by the walk */
	size_t nr_evict, cap_evict;
	uint32_t root_pid;
	struct damon_attrs damon;
	int saw_session;

	/* counts for the metadata */
	uint64_t n_fault_anon, n_fault_file, n_fault_unmapped, n_fault_cow;
	uint64_t n_read_pages, n_write_pages, n_free_pages, n_evict, n_readahead, n_precached;
	uint64_t n_damon_regions, n_damon_passes, n_damon_refs, n_damon_lost;
	uint64_t n_filtered;
};

/* ------------------------------------------------------------------ */
/* Growth                                                              */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *n = realloc(*p, c * size);
	if (!n)
		return -1;
	*p = n;
	*cap = c;
	return 0;
}
#define GROW(k, arr, nr, cap) grow((void **)&(k)->arr, &(k)->cap, (k)->nr + 1, sizeof(*(k)->arr))

struct kevents *kevents_new(void)
{
	struct kevents *k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->damon.sample_ns = DAMON_DEFAULT_SAMPLE_NS;
	k->damon.aggr_ns = DAMON_DEFAULT_AGGR_NS;
	k->damon.max_passes = DAMON_DEFAULT_MAX_PASSES;
	return k;
}

void kevents_free(struct kevents *k)
{
	if (!k)
		return;
	free(k->cls);
	free(k->kev);
	free(k->dem);
	free(k->memcg);
	free(k->reg);
	free(k->snap);
	free(k->dt);
	free(k->out);
	free(k->cur_tid);
	free(k->t);
	free(k->tslot);
	free(k->pend);
	free(k->ins);
	free(k->evict);
	free(k);
}

uint64_t kevents_count(const struct kevents *k)
{
	return k->events;
}

const struct vmr_kev *kevents_ground(const struct kevents *k, uint64_t *nr)
{
	*nr = k->nr_out;
	return k->out;
}

const struct vmr_memcg *kevents_memcg(const struct kevents *k, uint64_t *nr)
{
	*nr = k->nr_memcg;
	return k->memcg;
}

/* ------------------------------------------------------------------ */
/* Resolving an event class                                            */

/* Finds member NAME in struct field class FC; its index, or -1. */
static int64_t member(const bt_field_class *fc, const char *name, const bt_field_class **out)
{
	if (!fc || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return -1;
	uint64_t n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);
		if (strcmp(bt_field_class_structure_member_get_name(m), name) == 0) {
			*out = bt_field_class_structure_member_borrow_field_class_const(m);
			return (int64_t)i;
		}
	}
	return -1;
}

/* Resolves FIELD (alternatives separated by '|') in the scopes given. */
static int resolve_field(const bt_event_class *ec, const char *spec, const int *scopes, int nscopes,
			 struct kfield *kf, const char **why)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_field_class *roots[4] = {
		bt_event_class_borrow_payload_field_class_const(ec),
		bt_stream_class_borrow_event_common_context_field_class_const(sc),
		bt_event_class_borrow_specific_context_field_class_const(ec),
		bt_stream_class_borrow_packet_context_field_class_const(sc),
	};
	int want_str = spec[0] == '$';
	if (spec[0] == '$' || spec[0] == '?')
		spec++;
	if (spec[0] == '$' || spec[0] == '?')
		spec++;
	memset(kf, 0, sizeof(*kf));
	char names[128];
	snprintf(names, sizeof(names), "%s", spec);
	for (char *save = NULL, *n = strtok_r(names, "|", &save); n; n = strtok_r(NULL, "|", &save)) {
		for (int s = 0; s < nscopes; s++) {
			const bt_field_class *fc = NULL;
			int64_t i = member(roots[scopes[s]], n, &fc);
			if (i < 0)
				continue;
			bt_field_class_type t = bt_field_class_get_type(fc);
			if (want_str ? t != BT_FIELD_CLASS_TYPE_STRING
				     : !bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER)) {
				*why = want_str ? "wrong type (expected a string)" : "wrong type (expected an integer)";
				return -1;
			}
			kf->present = 1;
			kf->is_str = want_str;
			kf->is_signed = !want_str && bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
			kf->scope = (uint8_t)scopes[s];
			kf->idx = (uint64_t)i;
			return 1;
		}
	}
	return 0;
}

int kevents_resolve(struct kevents *k, const bt_event_class *ec, const char *name,
		    const char *trace, int *kidx, char *err, size_t errlen)
{
	const struct kspec *spec = NULL;
	enum origin origin = O_KERNEL;
	const char *bare = name;
	if (strncmp(name, BRIDGE_PREFIX, strlen(BRIDGE_PREFIX)) == 0) {
		origin = O_BRIDGE;
		bare = name + strlen(BRIDGE_PREFIX);
	} else if (strncmp(name, CAPTURE_PREFIX, strlen(CAPTURE_PREFIX)) == 0) {
		origin = O_CAPTURE;
		bare = name + strlen(CAPTURE_PREFIX);
	} else if (strchr(name, ':')) {
		return 0;                      /* another provider */
	}
	const struct kspec *tab = origin == O_CAPTURE ? capture_specs : kernel_specs;
	size_t n = origin == O_CAPTURE ? sizeof(capture_specs) / sizeof(capture_specs[0])
				       : sizeof(kernel_specs) / sizeof(kernel_specs[0]);
	for (size_t i = 0; i < n; i++)
		if (strcmp(tab[i].name, bare) == 0)
			spec = &tab[i];
	if (!spec) {
		if (origin == O_KERNEL)
			return 0;              /* a kernel event we do not use: skipped */
		snprintf(err, errlen, "%s: event %s: unknown event of the %.*s provider "
			 "(trace from a newer vmreplay?)", trace, name, (int)(bare - name - 1), name);
		return -1;
	}
	if (GROW(k, cls, nr_cls, cap_cls) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct kclass *c = &k->cls[k->nr_cls];
	memset(c, 0, sizeof(*c));
	c->spec = spec;
	c->origin = origin;
	const int payload[] = { SC_PAYLOAD };
	const char *why = "missing";
	for (int i = 0; i < MAX_KF && spec->f[i]; i++) {
		int r = resolve_field(ec, spec->f[i], payload, 1, &c->f[i], &why);
		const char *fname = spec->f[i] + strspn(spec->f[i], "?$");
		if (r < 0 || (r == 0 && spec->f[i][0] != '?' && !(spec->f[i][0] == '$' && spec->f[i][1] == '?'))) {
			snprintf(err, errlen, "%s: event %s: field %.*s: %s", trace, name,
				 (int)strcspn(fname, "|"), fname, r < 0 ? why : "missing");
			return -1;
		}
		c->nf = i + 1;
	}
	if (origin == O_BRIDGE) {
		struct { struct kfield *f; const char *n; } common[] = {
			{ &c->kts, "kts" }, { &c->kcpu, "kcpu" }, { &c->ktid, "ktid" }, { &c->kpid, "kpid" } };
		for (int i = 0; i < 4; i++)
			if (resolve_field(ec, common[i].n, payload, 1, common[i].f, &why) <= 0) {
				snprintf(err, errlen, "%s: event %s: field %s: %s", trace, name, common[i].n,
					 "missing or not an integer");
				return -1;
			}
	} else if (origin == O_KERNEL) {
		const int ctx[] = { SC_COMMON, SC_SPECIFIC };
		const int pkt[] = { SC_PACKET };
		resolve_field(ec, "tid|vtid", ctx, 2, &c->ctid, &why);
		resolve_field(ec, "pid|vpid", ctx, 2, &c->cpid, &why);
		resolve_field(ec, "$procname", ctx, 2, &c->cprocname, &why);
		resolve_field(ec, "cpu_id", pkt, 1, &c->ccpu, &why);
	}
	*kidx = (int)k->nr_cls++;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Reading one event                                                   */

static const bt_field *field_of(const bt_event *ev, const struct kfield *f)
{
	const bt_field *root = NULL;
	switch (f->scope) {
	case SC_PAYLOAD: root = bt_event_borrow_payload_field_const(ev); break;
	case SC_COMMON: root = bt_event_borrow_common_context_field_const(ev); break;
	case SC_SPECIFIC: root = bt_event_borrow_specific_context_field_const(ev); break;
	case SC_PACKET: {
		const bt_packet *p = bt_event_borrow_packet_const(ev);
		root = p ? bt_packet_borrow_context_field_const(p) : NULL;
		break;
	}
	}
	return root ? bt_field_structure_borrow_member_field_by_index_const(root, f->idx) : NULL;
}

static uint64_t getu(const bt_event *ev, const struct kfield *f)
{
	if (!f->present)
		return VMR_ABSENT;
	const bt_field *fl = field_of(ev, f);
	if (!fl)
		return VMR_ABSENT;
	return f->is_signed ? (uint64_t)bt_field_integer_signed_get_value(fl)
			    : bt_field_integer_unsigned_get_value(fl);
}

static const char *gets(const bt_event *ev, const struct kfield *f)
{
	if (!f->present)
		return "";
	const bt_field *fl = field_of(ev, f);
	return fl ? bt_field_string_get_value(fl) : "";
}

static void pack_comm(uint64_t *dst, const char *s)
{
	char c[16] = { 0 };
	const char *base = strrchr(s, '/');
	snprintf(c, sizeof(c), "%s", base ? base + 1 : s);
	memcpy(dst, c, 16);
}

static void unpack_comm(char out[16], const uint64_t *src)
{
	memcpy(out, src, 16);
	out[15] = '\0';
}

static struct tinfo *tinfo(struct kevents *k, uint32_t tid, int create);

static int kfail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int kfail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t kernel_dev(uint64_t s_dev)
{
	return makedev((unsigned)(s_dev >> 20), (unsigned)(s_dev & 0xfffff));
}

/* Parses one /proc/PID/maps snapshot into regions. */
static int parse_maps(struct kevents *k, int32_t pid, uint64_t ts, const char *text)
{
	if (grow((void **)&k->snap, &k->cap_snap, k->nr_snap + 1, sizeof(*k->snap)) != 0)
		return -1;
	struct msnap *sn = &k->snap[k->nr_snap++];
	sn->pid = pid;
	sn->ts = ts;
	sn->epoch = 0;
	sn->first = k->nr_reg;
	sn->nr = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int used = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min,
			   &ino, &used) >= 7) {
			char path[64] = "";
			if (used > 0) {
				size_t n = nl ? (size_t)(nl - line) - (size_t)used : strlen(line + used);
				if (n >= sizeof(path))
					n = sizeof(path) - 1;
				memcpy(path, line + used, n);
				path[n] = '\0';
			}
			if (grow((void **)&k->reg, &k->cap_reg, k->nr_reg + 1, sizeof(*k->reg)) != 0)
				return -1;
			struct mreg *r = &k->reg[k->nr_reg++];
			r->start = start;
			r->end = end;
			r->pgoff = off;
			r->dev = makedev(maj, min);
			r->ino = ino;
			/* shmem, SysV shm and memfd are swap-backed: anon LRU */
			r->file = ino != 0 && path[0] == '/' && strncmp(path, "/dev/zero", 9) != 0 &&
				  strncmp(path, "/SYSV", 5) != 0 && strncmp(path, "/memfd:", 7) != 0 &&
				  strncmp(path, "/dev/shm/", 9) != 0;
			r->priv = perms[3] == 'p';
			sn->nr++;
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

static int parse_memcg(struct kevents *k, uint64_t ts, const char *text)
{
	if (grow((void **)&k->memcg, &k->cap_memcg, k->nr_memcg + 1, sizeof(*k->memcg)) != 0)
		return -1;
	struct vmr_memcg *m = &k->memcg[k->nr_memcg++];
	m->ts_ns = ts;
	for (int i = 0; i < VMR_NR_MEMCG; i++)
		m->v[i] = VMR_ABSENT;
	for (const char *line = text; line && *line;) {
		const char *sp = strchr(line, ' '), *nl = strchr(line, '\n');
		if (sp && (!nl || sp < nl)) {
			size_t kl = (size_t)(sp - line);
			for (int i = 0; i < VMR_NR_MEMCG; i++)
				if (strlen(vmr_memcg_names[i]) == kl && memcmp(vmr_memcg_names[i], line, kl) == 0) {
					m->v[i] = strtoull(sp + 1, NULL, 10);
					break;
				}
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

static void meta_session(struct kevents *k, struct sink *s);

int kevents_event(struct kevents *k, int kidx, const bt_message *msg, const char *trace,
		  char *err, size_t errlen)
{
	struct kclass *c = &k->cls[kidx];
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const char *name = c->spec->name;
	c->count++;
	k->events++;
	int64_t nsfo = 0;
	uint64_t cycles = 0;
	const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	if (!cs || bt_clock_snapshot_get_ns_from_origin(cs, &nsfo) != BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK ||
	    nsfo < 0)
		return kfail(err, errlen, "%s: event %s: timestamp out of range", trace, name);
	cycles = bt_clock_snapshot_get_value(cs);
	const bt_clock_class *cc = bt_clock_snapshot_borrow_clock_class_const(cs);
	uint64_t freq = bt_clock_class_get_frequency(cc);
	/* ns from origin minus the clock's own value: what turns a kernel
	 * CLOCK_MONOTONIC stamp (kts) into this trace's time. */
	uint64_t value_ns = freq == 1000000000ull ? cycles
			  : (uint64_t)((long double)cycles * 1e9L / (long double)(freq ? freq : 1));
	int64_t offset = nsfo - (int64_t)value_ns;

	uint64_t v[MAX_KF];
	for (int i = 0; i < c->nf; i++)
		v[i] = c->f[i].is_str ? 0 : getu(ev, &c->f[i]);

	if (c->origin == O_CAPTURE) {
		int kind = c->spec->kind;
		uint64_t ts = kind == KK_CAPTURE_SESSION || kind == KK_CAPTURE_END
			      ? (uint64_t)nsfo : (uint64_t)((int64_t)v[0] + offset);
		switch (kind) {
		case KK_CAPTURE_SESSION:
			if (k->saw_session++)
				break;
			k->root_pid = (uint32_t)v[0];
			snprintf(k->cap.cgroup, sizeof(k->cap.cgroup), "%s", gets(ev, &c->f[1]));
			k->cap.cgroup_version = v[2];
			k->cap.limit = v[3];
			k->cap.swappiness = (int64_t)v[4];
			snprintf(k->cap.swap_kind, sizeof(k->cap.swap_kind), "%s", gets(ev, &c->f[5]));
			snprintf(k->cap.swap_device, sizeof(k->cap.swap_device), "%s", gets(ev, &c->f[6]));
			k->cap.swap_size = v[7];
			snprintf(k->cap.kernel_source, sizeof(k->cap.kernel_source), "%s", gets(ev, &c->f[8]));
			snprintf(k->cap.lru_kind, sizeof(k->cap.lru_kind), "%s", gets(ev, &c->f[9]));
			snprintf(k->cap.thp, sizeof(k->cap.thp), "%s", gets(ev, &c->f[10]));
			k->cap.period_ms = v[11];
			k->cap.damon = v[12];
			if (v[12] && v[13] && v[14] >= v[13]) {
				k->damon.sample_ns = v[13] * 1000;
				k->damon.aggr_ns = v[14] * 1000;
			}
			k->cap.update_us = v[15];
			snprintf(k->cap.damon_note, sizeof(k->cap.damon_note), "%s", gets(ev, &c->f[16]));
			snprintf(k->cap.filter, sizeof(k->cap.filter), "%s", gets(ev, &c->f[17]));
			k->cap.lru_gen_enabled = v[18] == VMR_ABSENT ? INT64_MIN : (int64_t)v[18];
			k->cap.lru_gen_min_ttl_ms = v[19] == VMR_ABSENT ? INT64_MIN : (int64_t)v[19];
			snprintf(k->cap.kernel_version, sizeof(k->cap.kernel_version), "%s", gets(ev, &c->f[20]));
			snprintf(k->cap.build_source, sizeof(k->cap.build_source), "%s", gets(ev, &c->f[21]));
			snprintf(k->cap.build_version, sizeof(k->cap.build_version), "%s", gets(ev, &c->f[22]));
			snprintf(k->cap.build_tree, sizeof(k->cap.build_tree), "%s", gets(ev, &c->f[23]));
			snprintf(k->cap.build_config, sizeof(k->cap.build_config), "%s", gets(ev, &c->f[24]));
			snprintf(k->cap.build_patches, sizeof(k->cap.build_patches), "%s", gets(ev, &c->f[25]));
			snprintf(k->cap.build_key, sizeof(k->cap.build_key), "%s", gets(ev, &c->f[26]));
			break;
		case KK_MEMCG_STAT:
			if (parse_memcg(k, ts, gets(ev, &c->f[1])) != 0)
				return kfail(err, errlen, "out of memory");
			break;
		case KK_PROC_MAPS:
			if (parse_maps(k, (int32_t)v[1], ts, gets(ev, &c->f[2])) != 0)
				return kfail(err, errlen, "out of memory");
			break;
		case KK_TASK_COMM: {
			if (GROW(k, kev, nr_kev, cap_kev) != 0)
				return kfail(err, errlen, "out of memory");
			struct vmr_kev *e = &k->kev[k->nr_kev++];
			memset(e, 0, sizeof(*e));
			e->ts_ns = ts;
			e->tid = (uint32_t)v[1];
			e->pid = (uint32_t)v[2];
			e->type = VMR_KEV_COMM;
			e->reserved = k->seq++;
			pack_comm(e->f, gets(ev, &c->f[3]));
			break;
		}
		case KK_DAMON_TARGET:
			if (GROW(k, dt, nr_dt, cap_dt) != 0)
				return kfail(err, errlen, "out of memory");
			k->dt[k->nr_dt++] = (struct dtarget){ ts, (uint32_t)v[1], (int32_t)v[2] };
			break;
		case KK_CAPTURE_END:
			k->cap.have_end = 1;
			k->cap.end_lost = v[0];
			k->cap.end_bridged = v[1];
			k->cap.end_status = (int64_t)v[2];
			k->cap.end_elapsed = v[3];
			break;
		}
		return 0;
	}

	/* Kernel events: time, CPU and task. */
	uint64_t ts;
	uint32_t tid, pid, cpu;
	if (c->origin == O_BRIDGE) {
		ts = (uint64_t)((int64_t)getu(ev, &c->kts) + offset);
		cpu = (uint32_t)getu(ev, &c->kcpu);
		tid = (uint32_t)getu(ev, &c->ktid);
		pid = (uint32_t)getu(ev, &c->kpid);
	} else {
		ts = (uint64_t)nsfo;
		uint64_t cu = getu(ev, &c->ccpu);
		cpu = cu == VMR_ABSENT ? 0 : (uint32_t)cu;
		uint64_t t = getu(ev, &c->ctid), p = getu(ev, &c->cpid);
		if (t == VMR_ABSENT) {         /* no context: who runs on this CPU */
			t = cpu < k->nr_cpus ? k->cur_tid[cpu] : 0;
		}
		tid = (uint32_t)t;
		pid = p == VMR_ABSENT ? 0 : (uint32_t)p;
		if (c->cprocname.present && tid) {
			/* the kernel domain's procname context names the task */
			const char *pn = gets(ev, &c->cprocname);
			struct tinfo *ti = pn[0] ? tinfo(k, tid, 1) : NULL;
			if (ti && !ti->comm_seen && GROW(k, kev, nr_kev, cap_kev) == 0) {
				ti->comm_seen = 1;
				struct vmr_kev *e = &k->kev[k->nr_kev++];
				memset(e, 0, sizeof(*e));
				e->ts_ns = ts;
				e->tid = tid;
				e->pid = pid;
				e->type = VMR_KEV_COMM;
				e->reserved = k->seq++;
				pack_comm(e->f, pn);
			}
		}
	}
	int kind = c->spec->kind;
	if (kind == KK_SCHED_SWITCH) {
		if (cpu >= k->nr_cpus) {
			size_t n = cpu + 1;
			uint32_t *t = realloc(k->cur_tid, n * sizeof(*t));
			if (!t)
				return kfail(err, errlen, "out of memory");
			memset(t + k->nr_cpus, 0, (n - k->nr_cpus) * sizeof(*t));
			k->cur_tid = t;
			k->nr_cpus = n;
		}
		k->cur_tid[cpu] = (uint32_t)v[2];
		return 0;
	}
	if (kind < VMR_KEV_NR_TYPES) {
		if (GROW(k, kev, nr_kev, cap_kev) != 0)
			return kfail(err, errlen, "out of memory");
		struct vmr_kev *e = &k->kev[k->nr_kev++];
		memset(e, 0, sizeof(*e));
		e->ts_ns = ts;
		e->tid = tid;
		e->pid = pid;
		e->type = (uint16_t)kind;
		e->cpu = (uint16_t)cpu;
		e->reserved = k->seq++;
		for (int i = 0; i < c->nf && i < VMR_KEV_FIELDS; i++)
			e->f[i] = v[i];
		if (kind == VMR_KEV_FORK) {
			/* parent_tid, parent_pid, child_tid, child_pid, child comm */
			if (e->f[1] == VMR_ABSENT)
				e->f[1] = e->f[0];
			if (e->f[3] == VMR_ABSENT)
				e->f[3] = e->f[2];
			pack_comm(&e->f[4], gets(ev, &c->f[4]));
		} else if (kind == VMR_KEV_EXEC) {
			/* the exec'ing task is the thread-group leader afterwards */
			if (v[1] != VMR_ABSENT)
				e->tid = (uint32_t)v[1];
			e->pid = e->tid;
			memset(e->f, 0, sizeof(e->f));
			pack_comm(e->f, gets(ev, &c->f[0]));
		} else if (kind == VMR_KEV_EXIT) {
			if (v[1] != VMR_ABSENT)
				e->tid = (uint32_t)v[1];
			memset(e->f, 0, sizeof(e->f));
			pack_comm(e->f, gets(ev, &c->f[0]));
		}
		for (int i = c->nf; i < VMR_KEV_FIELDS && kind != VMR_KEV_FORK && kind != VMR_KEV_EXEC &&
				   kind != VMR_KEV_EXIT; i++)
			e->f[i] = VMR_ABSENT;
		return 0;
	}
	/* Demand side. */
	if (grow((void **)&k->dem, &k->cap_dem, k->nr_dem + 1, sizeof(*k->dem)) != 0)
		return kfail(err, errlen, "out of memory");
	struct kdem *d = &k->dem[k->nr_dem++];
	memset(d, 0, sizeof(*d));
	d->ts = ts;
	d->tid = tid;
	d->pid = pid;
	d->seq = k->seq++;
	d->kind = (uint8_t)kind;
	d->cpu = (uint16_t)cpu;
	switch (kind) {
	case KK_FAULT:
		d->a = v[0];
		d->b = v[2];
		d->c = v[1];
		break;
	case KK_FILEMAP_ADD:
	case KK_FILEMAP_DELETE:
		d->a = v[1];
		d->b = v[2];
		d->dev = kernel_dev(v[3]);
		d->c = v[0];
		d->order = v[4] == VMR_ABSENT ? 0 : (uint8_t)(v[4] > 20 ? 20 : v[4]);
		break;
	case KK_FILEMAP_GET_PAGES:
		d->a = v[0];
		d->dev = kernel_dev(v[1]);
		d->b = v[2];
		d->c = v[3];
		if (d->c < d->b || d->c - d->b > (1ull << 28))
			return kfail(err, errlen, "%s: event %s: field last_index: %llu is not a page range "
				     "from index %llu", trace, name, (unsigned long long)d->c,
				     (unsigned long long)d->b);
		break;
	case KK_DAMON:
		if (v[3] <= v[2])
			return kfail(err, errlen, "%s: event %s: field end: region %#llx-%#llx is empty",
				     trace, name, (unsigned long long)v[2], (unsigned long long)v[3]);
		d->a = v[2];
		d->b = v[3];
		d->c = (v[0] << 32) | (v[4] & 0xffffffffu);
		break;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Tasks                                                               */

static struct tinfo *tinfo(struct kevents *k, uint32_t tid, int create)
{
	if (!k->nr_tslot) {
		k->nr_tslot = 1024;
		k->tslot = calloc(k->nr_tslot, sizeof(*k->tslot));
		if (!k->tslot)
			return NULL;
	}
	size_t mask = k->nr_tslot - 1, j = ((uint64_t)tid * 0x9E3779B97F4A7C15ull) >> 40 & mask;
	for (; k->tslot[j]; j = (j + 1) & mask)
		if (k->t[k->tslot[j] - 1].tid == tid)
			return &k->t[k->tslot[j] - 1];
	if (!create)
		return NULL;
	if (grow((void **)&k->t, &k->cap_t, k->nr_t + 1, sizeof(*k->t)) != 0)
		return NULL;
	struct tinfo *t = &k->t[k->nr_t++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = tid;
	k->tslot[j] = (uint32_t)k->nr_t;
	if (k->nr_t * 2 > k->nr_tslot) {
		free(k->tslot);
		k->nr_tslot *= 2;
		k->tslot = calloc(k->nr_tslot, sizeof(*k->tslot));
		if (!k->tslot)
			return NULL;
		for (size_t i = 0; i < k->nr_t; i++) {
			size_t m = ((uint64_t)k->t[i].tid * 0x9E3779B97F4A7C15ull) >> 40 & (k->nr_tslot - 1);
			while (k->tslot[m])
				m = (m + 1) & (k->nr_tslot - 1);
			k->tslot[m] = (uint32_t)i + 1;
		}
		t = tinfo(k, tid, 0);
	}
	return t;
}

static int cmp_kev(const void *a, const void *b)
{
	const struct vmr_kev *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->reserved < y->reserved ? -1 : x->reserved > y->reserved;
}

static int cmp_dem(const void *a, const void *b)
{
	const struct kdem *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_snap(const void *a, const void *b)
{
	const struct msnap *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_dt(const void *a, const void *b)
{
	const struct dtarget *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* ------------------------------------------------------------------ */
/* Maps                                                                */

/* exec times per pid, for telling address spaces apart */
struct execs {
	struct { uint32_t pid; uint64_t ts; } *e;
	size_t n;
};

static int cmp_exec(const void *a, const void *b)
{
	const uint32_t *pa = a, *pb = b;
	if (*pa != *pb)
		return *pa < *pb ? -1 : 1;
	const uint64_t *ta = (const uint64_t *)((const char *)a + 8), *tb = (const uint64_t *)((const char *)b + 8);
	return *ta < *tb ? -1 : *ta > *tb;
}

static uint32_t epoch_of(const struct execs *x, uint32_t pid, uint64_t ts)
{
	size_t lo = 0, hi = x->n;
	while (lo < hi) {                  /* first entry of pid */
		size_t mid = (lo + hi) / 2;
		if (x->e[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t n = 0;
	for (size_t i = lo; i < x->n && x->e[i].pid == pid && x->e[i].ts <= ts; i++)
		n++;
	return n;
}

/* The snapshot of PID's address space in force at TS: the last one
 * before TS in the same exec epoch, else the first one after it. */
static const struct msnap *snap_at(const struct kevents *k, uint32_t pid, uint32_t epoch, uint64_t ts)
{
	size_t lo = 0, hi = k->nr_snap;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if ((uint32_t)k->snap[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct msnap *before = NULL, *after = NULL;
	for (size_t i = lo; i < k->nr_snap && (uint32_t)k->snap[i].pid == pid; i++) {
		const struct msnap *s = &k->snap[i];
		if (s->epoch != epoch)
			continue;
		if (s->ts <= ts)
			before = s;
		else if (!after)
			after = s;
	}
	return before ? before : after;
}

static const struct mreg *region_at(const struct kevents *k, const struct msnap *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr;
	const struct mreg *r = k->reg + s->first;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nr && r[lo].start <= addr ? &r[lo] : NULL;
}

/* ------------------------------------------------------------------ */
/* Demand                                                              */

struct walk {
	struct kevents *k;
	struct sink *s;
	struct execs ex;
	int shift;
};

/* Page-cache adds a task made since its last demand event are resolved
 * by what it does next: the read they were read-ahead for (a get_pages of
 * the same file) or the fault they came after drops them (the read or
 * fault names the pages it used); otherwise they were a buffered write's
 * new pages: WRITE. */
/* Pages LO..HI of insertion A were read ahead: they enter the page cache
 * (and the session's memory) without being referenced. */
static int readahead_range(struct walk *w, const struct kdem *a, uint64_t lo, uint64_t hi)
{
	w->k->n_readahead += hi - lo + 1;
	return ingest_sink_range(w->s, a->pid, a->tid, a->ts, VMR_PAGE_FILE, a->dev, a->a, lo, hi,
				 VMR_OP_READAHEAD);
}

static int resolve_pending(struct walk *w, struct tinfo *t, const struct kdem *next)
{
	struct kevents *k = w->k;
	int rc = 0;
	for (size_t i = 0; i < t->pend_nr; i++) {
		const struct kdem *a = &k->pend[t->pend_first + i];
		int readahead = a->order & 0x80;   /* flagged: after a fault on this file */
		unsigned order = a->order & 0x7f;
		uint64_t lo = a->b, hi = a->b + (1ull << order) - 1;
		if (next && next->kind == KK_FILEMAP_GET_PAGES && next->dev == a->dev && next->a == a->a) {
			/* pages the read itself uses are its READs; the rest were
			 * read ahead and not (yet) referenced */
			uint64_t in_lo = lo > next->b ? lo : next->b, in_hi = hi < next->c ? hi : next->c;
			if (in_hi < in_lo) {
				rc |= readahead_range(w, a, lo, hi);
			} else {
				if (lo < in_lo)
					rc |= readahead_range(w, a, lo, in_lo - 1);
				if (in_hi < hi)
					rc |= readahead_range(w, a, in_hi + 1, hi);
			}
			continue;
		}
		if (readahead) {
			rc |= readahead_range(w, a, lo, hi);
			continue;
		}
		rc |= ingest_sink_range(w->s, a->pid, a->tid, a->ts, VMR_PAGE_FILE, a->dev, a->a, a->b,
					a->b + (1ull << order) - 1, VMR_OP_WRITE);
		k->n_write_pages += 1ull << order;
	}
	t->pend_nr = 0;
	return rc;
}

/* ---- file pages cached before the session ------------------------------ */

/* In both cgroup versions a page-cache page is charged to the cgroup of
 * the task that inserted it and stays there however often others use
 * it.  A file page the workload used but never inserted (a compiler's
 * text, shared libraries, headers read by an earlier build) was already
 * cached: the session's limit reclaim never sees it.  Such pages are
 * flagged VMR_PAGE_PRECACHED and the replay charges them outside the
 * session (engine.c, fault_in).  A page inserted by the workload at any
 * time counts as its own from its first use (DEVIATIONS.md). */
static int note_insertion(struct kevents *k, const struct kdem *d)
{
	uint64_t n = 1ull << (d->order & 0x7f);
	if (grow((void **)&k->ins, &k->cap_ins, k->nr_ins + n, sizeof(*k->ins)) != 0)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		k->ins[k->nr_ins++] = (struct pkey){ d->dev, d->a, d->b + i };
	return 0;
}

static int cmp_pkey(const void *a, const void *b)
{
	const struct pkey *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static void flag_if_not_inserted(void *arg, struct vmr_page *p)
{
	struct kevents *k = arg;
	struct pkey key = { p->space, p->ino, p->index };
	if (!k->nr_ins || !bsearch(&key, k->ins, k->nr_ins, sizeof(*k->ins), cmp_pkey)) {
		p->flags |= VMR_PAGE_PRECACHED;
		k->n_precached++;
	}
}

static void mark_precached(struct kevents *k, struct sink *s)
{
	if (k->nr_ins)
		qsort(k->ins, k->nr_ins, sizeof(*k->ins), cmp_pkey);
	ingest_sink_each_file_page(s, flag_if_not_inserted, k);
}

static int add_pending(struct walk *w, struct tinfo *t, const struct kdem *d)
{
	struct kevents *k = w->k;
	if (t->pend_nr && t->pend_first + t->pend_nr != k->nr_pend) {
		/* keep each task's pending adds contiguous: move them to the end */
		if (grow((void **)&k->pend, &k->cap_pend, k->nr_pend + t->pend_nr + 1, sizeof(*k->pend)) != 0)
			return -1;
		memmove(k->pend + k->nr_pend, k->pend + t->pend_first, t->pend_nr * sizeof(*k->pend));
		t->pend_first = k->nr_pend;
		k->nr_pend += t->pend_nr;
	}
	if (!t->pend_nr)
		t->pend_first = k->nr_pend;
	if (grow((void **)&k->pend, &k->cap_pend, k->nr_pend + 1, sizeof(*k->pend)) != 0)
		return -1;
	struct kdem p = *d;
	p.order &= 0x7f;
	if (t->last_fault_file && t->last_fault_dev == d->dev && t->last_fault_ino == d->a)
		p.order |= 0x80;
	k->pend[k->nr_pend++] = p;
	t->pend_nr++;
	return 0;
}

static int on_fault(struct walk *w, struct tinfo *t, const struct kdem *d)
{
	struct kevents *k = w->k;
	uint64_t addr = d->a, ec = d->b;
	int write = (ec & 2) != 0;
	unsigned op = write ? VMR_OP_STORE : VMR_OP_LOAD;
	const struct msnap *sn = snap_at(k, d->pid, epoch_of(&w->ex, d->pid, d->ts), d->ts);
	const struct mreg *r = sn ? region_at(k, sn, addr) : NULL;
	t->last_fault_file = 0;
	if (r && r->file && !(write && r->priv)) {
		uint64_t index = (addr - r->start + r->pgoff) >> w->shift;
		t->last_fault_file = 1;
		t->last_fault_dev = r->dev;
		t->last_fault_ino = r->ino;
		k->n_fault_file++;
		return ingest_sink_range(w->s, d->pid, d->tid, d->ts, VMR_PAGE_FILE, r->dev, r->ino,
					 index, index, op);
	}
	if (!r)
		k->n_fault_unmapped++;
	else if (r->file)
		k->n_fault_cow++;
	k->n_fault_anon++;
	uint64_t page = addr >> w->shift;
	return ingest_sink_range(w->s, d->pid, d->tid, d->ts, VMR_PAGE_ANON, d->pid, 0, page, page, op);
}

/* One DAMON pass over a region: every resident page already known. */
static int on_damon_pass(struct walk *w, const struct kdem *d)
{
	struct kevents *k = w->k;
	uint32_t pid = d->pid;
	struct tinfo *t = tinfo(k, pid, 0);
	uint32_t tid = pid;
	if (t && t->pend_nr && resolve_pending(w, t, NULL) != 0)
		return -1;
	const struct msnap *sn = snap_at(k, pid, epoch_of(&w->ex, pid, d->ts), d->ts);
	uint64_t start = d->a, end = d->b;
	int64_t n = 0;
	if (!sn) {                     /* no maps: the region is anonymous memory */
		n = ingest_sink_known(w->s, pid, tid, d->ts, VMR_PAGE_ANON, pid, 0, start >> w->shift,
				      (end - 1) >> w->shift);
	} else {
		const struct mreg *r = k->reg + sn->first;
		for (size_t i = 0; i < sn->nr && n >= 0; i++) {
			if (r[i].end <= start || r[i].start >= end)
				continue;
			uint64_t a = r[i].start > start ? r[i].start : start;
			uint64_t b = r[i].end < end ? r[i].end : end;
			int64_t m;
			if (r[i].file) {
				m = ingest_sink_known(w->s, pid, tid, d->ts, VMR_PAGE_FILE, r[i].dev, r[i].ino,
						      (a - r[i].start + r[i].pgoff) >> w->shift,
						      (b - 1 - r[i].start + r[i].pgoff) >> w->shift);
				if (m >= 0 && r[i].priv) {     /* written pages became anon */
					int64_t m2 = ingest_sink_known(w->s, pid, tid, d->ts, VMR_PAGE_ANON, pid, 0,
								       a >> w->shift, (b - 1) >> w->shift);
					m = m2 < 0 ? -1 : m + m2;
				}
			} else {
				m = ingest_sink_known(w->s, pid, tid, d->ts, VMR_PAGE_ANON, pid, 0,
						      a >> w->shift, (b - 1) >> w->shift);
			}
			n = m < 0 ? -1 : n + m;
		}
	}
	if (n < 0)
		return -1;
	k->n_damon_refs += (uint64_t)n;
	return 0;
}

static int push_out(struct kevents *k, const struct vmr_kev *e)
{
	if (grow((void **)&k->out, &k->cap_out, k->nr_out + 1, sizeof(*k->out)) != 0)
		return -1;
	k->out[k->nr_out++] = *e;
	return 0;
}

static void name_task(void *arg, uint32_t tid, uint32_t *ppid, char comm[16])
{
	struct kevents *k = arg;
	struct tinfo *t = tinfo(k, tid, 0);
	if (!t)
		return;
	if (!*ppid)
		*ppid = t->ppid;
	if (!comm[0] && t->comm[0])
		memcpy(comm, t->comm, 16);
}

/* DAMON samples → passes (demand entries of kind KK_DAMON_PASS). */
static int expand_damon(struct kevents *k)
{
	size_t nr = k->nr_dem;
	for (size_t i = 0; i < nr; i++) {
		if (k->dem[i].kind != KK_DAMON)
			continue;
		struct kdem d = k->dem[i];
		uint32_t target = (uint32_t)(d.c >> 32), acc = (uint32_t)d.c;
		/* the pid DAMON monitored as TARGET at that time */
		int32_t pid = -1;
		for (size_t j = 0; j < k->nr_dt && k->dt[j].ts <= d.ts; j++)
			if (k->dt[j].id == target)
				pid = k->dt[j].pid;
		if (pid < 0 && k->nr_dt == 0 && target == 0 && k->root_pid)
			pid = (int32_t)k->root_pid;
		k->n_damon_regions++;
		if (pid <= 0) {
			k->n_damon_lost++;
			continue;
		}
		unsigned passes = damon_passes(&k->damon, acc);
		for (unsigned j = 0; j < passes; j++) {
			if (grow((void **)&k->dem, &k->cap_dem, k->nr_dem + 1, sizeof(*k->dem)) != 0)
				return -1;
			struct kdem *p = &k->dem[k->nr_dem++];
			*p = d;
			p->kind = KK_DAMON_PASS;
			p->pid = (uint32_t)pid;
			p->tid = (uint32_t)pid;
			p->ts = damon_pass_time(&k->damon, d.ts, passes, j);
			p->seq = k->seq++;
			k->n_damon_passes++;
		}
	}
	return 0;
}

int kevents_finish(struct kevents *k, struct sink *s)
{
	if (k->nr_kev)
		qsort(k->kev, k->nr_kev, sizeof(*k->kev), cmp_kev);
	if (k->nr_dt)
		qsort(k->dt, k->nr_dt, sizeof(*k->dt), cmp_dt);

	/* The process tree, from the first process the capture started. */
	struct tinfo *root = k->root_pid ? tinfo(k, k->root_pid, 1) : NULL;
	if (k->root_pid && !root)
		goto oom;
	if (root) {
		root->in_tree = 1;
		root->pid = k->root_pid;
		root->threads = 1;
	}
	for (size_t i = 0; i < k->nr_kev; i++) {
		const struct vmr_kev *e = &k->kev[i];
		struct tinfo *t = tinfo(k, e->tid, 1);
		if (!t)
			goto oom;
		if (e->pid && !t->named)
			t->pid = e->pid;
		switch (e->type) {
		case VMR_KEV_FORK: {
			struct tinfo *p = tinfo(k, (uint32_t)e->f[0], 1), *ch = tinfo(k, (uint32_t)e->f[2], 1);
			if (!p || !ch)
				goto oom;
			ch->pid = (uint32_t)e->f[3];
			ch->ppid = (uint32_t)e->f[0];
			unpack_comm(ch->comm, &e->f[4]);
			ch->in_tree = p->in_tree || !k->root_pid;
			ch->named = 1;
			break;
		}
		case VMR_KEV_EXEC:
			unpack_comm(t->comm, e->f);
			t->pid = t->tid;
			break;
		case VMR_KEV_COMM:
			if (!t->comm[0])
				unpack_comm(t->comm, e->f);
			if (strncmp(t->comm, "kswapd", 6) == 0)
				t->kswapd = 1;
			break;
		case VMR_KEV_KSWAPD_WAKE:
		case VMR_KEV_KSWAPD_SLEEP:
			t->kswapd = 1;
			break;
		}
	}
	/* Ground truth: the workload's tasks and kswapd (all tasks when the
	 * trace does not say which process the workload started with). */
	for (size_t i = 0; i < k->nr_kev; i++) {
		struct vmr_kev e = k->kev[i];
		struct tinfo *t = tinfo(k, e.tid, 0);
		int keep = !k->root_pid || (t && (t->in_tree || t->kswapd));
		if (e.type == VMR_KEV_FORK) {
			struct tinfo *ch = tinfo(k, (uint32_t)e.f[2], 0);
			keep = keep || (ch && ch->in_tree);
		}
		if (!keep) {
			k->n_filtered++;
			continue;
		}
		if (t && e.pid == 0)
			e.pid = t->pid;
		e.reserved = 0;
		if (push_out(k, &e) != 0)
			goto oom;
	}

	/* Demand, unless the trace has an exact stream (an instrumented
	 * workload's own events say more than faults can). */
	uint64_t ps = ingest_sink_page_size(s);
	int exact = ingest_sink_accesses(s) > 0;
	size_t nr_fault = 0;
	for (size_t i = 0; i < k->nr_dem; i++)
		nr_fault += k->dem[i].kind == KK_FAULT;
	if (!exact && k->nr_dem) {
		struct walk w = { .k = k, .s = s, .shift = __builtin_ctzll(ps) };
		if (expand_damon(k) != 0)
			goto oom;
		qsort(k->dem, k->nr_dem, sizeof(*k->dem), cmp_dem);
		/* exec epochs and maps snapshots in (pid, time) order */
		size_t nex = 0;
		for (size_t i = 0; i < k->nr_kev; i++)
			nex += k->kev[i].type == VMR_KEV_EXEC;
		w.ex.e = calloc(nex ? nex : 1, sizeof(*w.ex.e));
		if (!w.ex.e)
			goto oom;
		for (size_t i = 0; i < k->nr_kev; i++)
			if (k->kev[i].type == VMR_KEV_EXEC) {
				w.ex.e[w.ex.n].pid = k->kev[i].pid;
				w.ex.e[w.ex.n].ts = k->kev[i].ts_ns;
				w.ex.n++;
			}
		if (w.ex.n)
			qsort(w.ex.e, w.ex.n, sizeof(*w.ex.e), cmp_exec);
		for (size_t i = 0; i < k->nr_snap; i++)
			k->snap[i].epoch = epoch_of(&w.ex, (uint32_t)k->snap[i].pid, k->snap[i].ts);
		if (k->nr_snap)
			qsort(k->snap, k->nr_snap, sizeof(*k->snap), cmp_snap);
		ingest_sink_track_residency(s);

		/* One walk over demand and process/reclaim events in time order. */
		size_t i = 0, j = 0;
		int rc = 0;
		while (rc == 0 && (i < k->nr_out || j < k->nr_dem)) {
			int take_kev = j >= k->nr_dem || (i < k->nr_out && k->out[i].ts_ns <= k->dem[j].ts);
			if (take_kev) {
				const struct vmr_kev *e = &k->out[i++];
				struct tinfo *t = tinfo(k, e->tid, 0);
				if (!t)
					continue;
				switch (e->type) {
				case VMR_KEV_DIRECT_BEGIN:
				case VMR_KEV_MEMCG_BEGIN:
					t->in_reclaim = 1;
					break;
				case VMR_KEV_DIRECT_END:
				case VMR_KEV_MEMCG_END:
					t->in_reclaim = 0;
					break;
				case VMR_KEV_FORK: {
					struct tinfo *ch = tinfo(k, (uint32_t)e->f[2], 0);
					struct tinfo *leader = ch ? tinfo(k, ch->pid, 1) : NULL;
					if (leader)
						leader->threads++;
					break;
				}
				case VMR_KEV_EXEC:
					/* the old address space is gone */
					rc |= resolve_pending(&w, t, NULL);
					rc |= ingest_sink_free_space(s, e->pid, e->tid, e->ts_ns, e->pid);
					ingest_sink_task_end(s, e->tid, e->ts_ns);
					break;
				case VMR_KEV_EXIT: {
					rc |= resolve_pending(&w, t, NULL);
					struct tinfo *leader = tinfo(k, t->pid, 0);
					if (leader && --leader->threads <= 0)
						rc |= ingest_sink_free_space(s, t->pid, e->tid, e->ts_ns, t->pid);
					ingest_sink_task_end(s, e->tid, e->ts_ns);
					break;
				}
				}
				continue;
			}
			const struct kdem *d = &k->dem[j++];
			struct tinfo *t = tinfo(k, d->tid, 1);
			if (!t)
				goto oom;
			if (k->root_pid && !t->in_tree && d->kind != KK_DAMON_PASS) {
				k->n_filtered++;
				continue;
			}
			if (!d->pid) {
				struct kdem *dd = (struct kdem *)d;
				dd->pid = t->pid;
			}
			switch (d->kind) {
			case KK_FAULT:
				rc |= resolve_pending(&w, t, d);
				rc |= on_fault(&w, t, d);
				break;
			case KK_FILEMAP_GET_PAGES:
				rc |= resolve_pending(&w, t, d);
				t->last_fault_file = 0;
				rc |= ingest_sink_range(s, d->pid, d->tid, d->ts, VMR_PAGE_FILE, d->dev, d->a,
							d->b, d->c, VMR_OP_READ);
				k->n_read_pages += d->c - d->b + 1;
				break;
			case KK_FILEMAP_ADD:
				if (add_pending(&w, t, d) != 0 || note_insertion(k, d) != 0)
					goto oom;
				break;
			case KK_FILEMAP_DELETE:
				if (t->kswapd || t->in_reclaim) {
					/* reclaim evicted it: ground truth, kept after the walk */
					if (grow((void **)&k->evict, &k->cap_evict, k->nr_evict + 1,
						 sizeof(*k->evict)) != 0)
						goto oom;
					struct vmr_kev *e = &k->evict[k->nr_evict++];
					memset(e, 0, sizeof(*e));
					e->ts_ns = d->ts;
					e->tid = d->tid;
					e->pid = d->pid;
					e->type = VMR_KEV_FILE_EVICT;
					e->cpu = d->cpu;
					for (int f = 0; f < VMR_KEV_FIELDS; f++)
						e->f[f] = VMR_ABSENT;
					e->f[0] = d->dev;
					e->f[1] = d->a;
					e->f[2] = d->b;
					e->f[3] = d->order;
					k->n_evict++;
				} else {
					rc |= resolve_pending(&w, t, d);
					rc |= ingest_sink_range(s, d->pid, d->tid, d->ts, VMR_PAGE_FILE, d->dev, d->a,
								d->b, d->b + (1ull << d->order) - 1, VMR_OP_FREE);
					k->n_free_pages += 1ull << d->order;
				}
				break;
			case KK_DAMON_PASS:
				rc |= on_damon_pass(&w, d);
				break;
			}
		}
		for (size_t n = 0; n < k->nr_t && rc == 0; n++)
			if (k->t[n].pend_nr)
				rc |= resolve_pending(&w, &k->t[n], NULL);
		free(w.ex.e);
		if (rc != 0 || ingest_sink_failed(s))
			return -1;
		mark_precached(k, s);
		/* evictions into the ground truth, in time order */
		for (size_t n = 0; n < k->nr_evict; n++)
			if (push_out(k, &k->evict[n]) != 0)
				goto oom;
		for (size_t n = 0; n < k->nr_out; n++)
			k->out[n].reserved = (uint32_t)n;
		if (k->nr_out)
			qsort(k->out, k->nr_out, sizeof(*k->out), cmp_kev);
		for (size_t n = 0; n < k->nr_out; n++)
			k->out[n].reserved = 0;
		ingest_sink_name_tasks(s, name_task, k);
	}

	/* Metadata. */
	if (k->events) {
		meta_session(k, s);
		ingest_sink_meta(s, "kernel_events", "%llu", (unsigned long long)k->events);
		ingest_sink_meta(s, "ground_truth_events", "%llu", (unsigned long long)k->nr_out);
		ingest_sink_meta(s, "memcg_snapshots", "%llu", (unsigned long long)k->nr_memcg);
		if (k->n_filtered)
			ingest_sink_meta(s, "kernel_events_not_of_the_workload", "%llu",
					 (unsigned long long)k->n_filtered);
		ingest_sink_meta(s, "demand_source", "%s",
				 exact ? "ust (the workload's own events; kernel demand events not used)"
				       : k->nr_dem ? "kernel (faults, page-cache events, DAMON)" : "none");
		if (!exact && k->nr_dem) {
			ingest_sink_meta(s, "demand_faults",
					 "%llu (%llu anon incl. %llu copy-on-write and %llu outside any known "
					 "mapping, %llu file)",
					 (unsigned long long)nr_fault,
					 (unsigned long long)k->n_fault_anon, (unsigned long long)k->n_fault_cow,
					 (unsigned long long)k->n_fault_unmapped,
					 (unsigned long long)k->n_fault_file);
			ingest_sink_meta(s, "demand_page_cache",
					 "%llu pages read, %llu pages written, %llu freed, %llu read-ahead "
					 "(inserted, not referenced), %llu evicted by reclaim, %llu file pages found "
					 "cached (charged outside the session)",
					 (unsigned long long)k->n_read_pages, (unsigned long long)k->n_write_pages,
					 (unsigned long long)k->n_free_pages, (unsigned long long)k->n_readahead,
					 (unsigned long long)k->n_evict, (unsigned long long)k->n_precached);
			ingest_sink_meta(s, "demand_damon",
					 "%llu regions, %llu passes, %llu page references (sample %llu us, "
					 "aggregation %llu us, max %u passes)%s",
					 (unsigned long long)k->n_damon_regions,
					 (unsigned long long)k->n_damon_passes, (unsigned long long)k->n_damon_refs,
					 (unsigned long long)(k->damon.sample_ns / 1000),
					 (unsigned long long)(k->damon.aggr_ns / 1000), k->damon.max_passes,
					 k->n_damon_lost ? " (some of unknown targets)" : "");
			ingest_sink_meta(s, "maps_snapshots", "%llu", (unsigned long long)k->nr_snap);
		}
	}
	return ingest_sink_failed(s) ? -1 : 0;
oom:
	ingest_sink_fail(s, "out of memory (kernel events)");
	return -1;
}

static void meta_session(struct kevents *k, struct sink *s)
{
	if (k->saw_session) {
		ingest_sink_meta(s, "capture_root_pid", "%u", k->root_pid);
		ingest_sink_meta(s, "capture_cgroup", "%s", k->cap.cgroup);
		ingest_sink_meta(s, "capture_cgroup_version", "%llu", (unsigned long long)k->cap.cgroup_version);
		ingest_sink_meta(s, "capture_memory_limit", "%llu", (unsigned long long)k->cap.limit);
		ingest_sink_meta(s, "capture_swappiness", "%lld", (long long)k->cap.swappiness);
		ingest_sink_meta(s, "swap_kind", "%s", k->cap.swap_kind);
		ingest_sink_meta(s, "swap_device", "%s", k->cap.swap_device);
		ingest_sink_meta(s, "swap_size", "%llu", (unsigned long long)k->cap.swap_size);
		ingest_sink_meta(s, "kernel_source", "%s", k->cap.kernel_source);
		ingest_sink_meta(s, "capture_lru_kind", "%s", k->cap.lru_kind);
		ingest_sink_meta(s, "thp", "%s", k->cap.thp);
		ingest_sink_meta(s, "capture_period_ms", "%llu", (unsigned long long)k->cap.period_ms);
		ingest_sink_meta(s, "damon", "%s: %s", k->cap.damon ? "on" : "off", k->cap.damon_note);
		ingest_sink_meta(s, "capture_filter", "%s", k->cap.filter);
		if (k->cap.lru_gen_enabled != INT64_MIN && k->cap.lru_gen_enabled < 0)
			ingest_sink_meta(s, "capture_lru_gen_enabled", "none");
		else if (k->cap.lru_gen_enabled != INT64_MIN)
			ingest_sink_meta(s, "capture_lru_gen_enabled", "0x%04llx",
					 (unsigned long long)k->cap.lru_gen_enabled);
		if (k->cap.lru_gen_min_ttl_ms != INT64_MIN && k->cap.lru_gen_min_ttl_ms >= 0)
			ingest_sink_meta(s, "capture_lru_gen_min_ttl_ms", "%lld", (long long)k->cap.lru_gen_min_ttl_ms);
		if (k->cap.kernel_version[0])
			ingest_sink_meta(s, "kernel_version", "%s", k->cap.kernel_version);
		if (k->cap.build_source[0]) {
			ingest_sink_meta(s, "kernel_build_source", "%s", k->cap.build_source);
			ingest_sink_meta(s, "kernel_build_version", "%s", k->cap.build_version);
			if (k->cap.build_tree[0])
				ingest_sink_meta(s, "kernel_build_tree", "%s", k->cap.build_tree);
			ingest_sink_meta(s, "kernel_build_config", "%s", k->cap.build_config);
			ingest_sink_meta(s, "kernel_build_patches", "%s", k->cap.build_patches);
			ingest_sink_meta(s, "kernel_build_key", "%s", k->cap.build_key);
		}
	}
	if (k->cap.have_end) {
		ingest_sink_meta(s, "ftrace_lost_events", "%llu", (unsigned long long)k->cap.end_lost);
		ingest_sink_meta(s, "bridged_events", "%llu", (unsigned long long)k->cap.end_bridged);
		ingest_sink_meta(s, "workload_status", "%lld", (long long)k->cap.end_status);
		ingest_sink_meta(s, "workload_elapsed_ns", "%llu", (unsigned long long)k->cap.end_elapsed);
	}
}
