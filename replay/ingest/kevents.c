/*
 * kevents.c — the kernel's own events in ingest, collected as the trace is
 * decoded (see kevents.h).
 *
 * Two vocabularies of the same tracepoints arrive here: LTTng's kernel
 * domain (lttng-modules names, no provider prefix, task ids in the
 * tid/pid contexts, tracing-notes.md section 2) and the capture agent's
 * bridge (`vmreplay_kernel:<same name>`, task ids and the kernel's own
 * timestamp kts in the payload).  One table maps both to one internal
 * event set.  A capture moves the bridged events into a kernel-domain
 * trace at their kts (capture/kernel_ctf.c), which reads as lttng-modules'
 * and gives the same .vmr as the old layout (tests/t_kernel_ctf.sh).  The capture agent's facts (`vmreplay_capture:*`) come too.
 *
 * Here events are only collected: reclaim and process events as struct
 * vmr_kev, demand events (faults, page-cache events, DAMON regions) in a
 * compact form, memory.stat snapshots, /proc/PID/maps snapshots (kmaps.c)
 * and the capture's session.  kevents_finish (kdemand.c) turns them into
 * the ground truth and the demand stream.  Left out on purpose: kernel
 * events no table names (the sink lists them in META skipped_events) and
 * fields the tables do not name (replay/vmr/FORMAT.md, KEVENTS).
 */
#include "kevents_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

enum origin { O_KERNEL, O_BRIDGE, O_CAPTURE };

#define MAX_KF 36

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
	{ "x86_exceptions_page_fault_kernel", KK_FAULT, { "address", "?ip", "error_code" } },
	{ "mm_filemap_add_to_page_cache", KK_FILEMAP_ADD, { "?pfn", "i_ino", "index", "s_dev", "?order" } },
	{ "mm_filemap_delete_from_page_cache", KK_FILEMAP_DELETE, { "?pfn", "i_ino", "index", "s_dev", "?order" } },
	{ "mm_filemap_get_pages", KK_FILEMAP_GET_PAGES, { "i_ino", "s_dev", "index", "last_index" } },
	/* lttng-modules' names for syscalls:sys_enter/sys_exit_madvise */
	{ "syscall_entry_madvise", KK_MADVISE, { "start", "len_in", "behavior" } },
	{ "syscall_exit_madvise", KK_MADVISE_EXIT, { "ret" } },
	{ "damon_aggregated", KK_DAMON, { "target_id", "?nr_regions", "start", "end", "nr_accesses", "?age" } },
	{ "sched_switch", KK_SCHED_SWITCH, { "prev_tid", "$next_comm", "next_tid" } },
	/* The memcg statistics' flushes (the capture records those of the
	 * session's cgroup and its ancestors): the memcg event (6.18), and
	 * the rstat lock where there is none (6.12), taken once per
	 * cgroup_rstat_flush (cpu -1; a CPU number when it was taken again
	 * inside the flush). */
	{ "memcg_flush_stats", KK_MEMCG_FLUSH, { "id", "?stats_updates", "force", "needs_flush" } },
	{ "cgroup_rstat_locked", KK_RSTAT_LOCKED, { "?root", "level", "id", "cpu" } },
};

static const struct kspec capture_specs[] = {
	{ "capture_session", KK_CAPTURE_SESSION,
	  { "root_pid", "$cgroup", "cgroup_version", "memory_limit", "swappiness", "$swap_kind",
	    "$swap_device", "swap_size", "$kernel_source", "$lru_kind", "$thp", "period_ms", "damon",
	    "damon_sample_us", "damon_aggr_us", "damon_update_us", "$damon_note", "$filter",
	    "?lru_gen_enabled", "?lru_gen_min_ttl_ms", "$?kernel_version", "$?build_source",
	    "$?build_version", "$?build_tree", "$?build_config", "$?build_patches", "$?build_key",
	    "?swap_rotational", "?page_cluster", "?vma_ra_enabled", "$?stats_flush",
	    "$?dropped_inputs", "$?thp_defrag", "?dropped_caches", "?start_cached_kb",
	    "?start_workingset_nodes" } },
	{ "memcg_stat", KK_MEMCG_STAT, { "kts", "$stat" } },
	{ "proc_maps", KK_PROC_MAPS, { "kts", "pid", "$maps" } },
	{ "task_comm", KK_TASK_COMM, { "kts", "tid", "pid", "$comm" } },
	{ "damon_target", KK_DAMON_TARGET, { "kts", "target_id", "pid" } },
	{ "capture_end", KK_CAPTURE_END, { "ftrace_lost", "bridged", "workload_status", "elapsed_ns" } },
	{ "device_latency", KK_DEVICE_LATENCY,
	  { "$device", "$disk", "nr_read", "read_ns", "nr_write", "write_ns" } },
	{ "pte_young", KK_YOUNG, { "kts", "pid", "addr", "len", "?dirty" } },
	{ "pte_young_sampler", KK_YOUNG_SAMPLER,
	  { "period_ms", "polls", "observed", "lost", "resets", "?regions", "?full", "?poll_ns", "$note" } },
};

/* MAX_RW_COUNT (INT_MAX & PAGE_MASK) in 4 KiB pages: the most one read()
 * asks of the page cache. */
#define MAX_RW_PAGES   ((0x7fffffffull & ~4095ull) >> 12)
/* The end of the largest user address space of any Linux architecture
 * (5-level paging: 2^56 user; 2^57 leaves room): a DAMON region beyond
 * it is damage. */
#define USER_VA_END    (1ull << 57)
/* The end of the largest user address space (x86-64's 5-level paging). */
#define USER_ADDR_END  (1ull << 56)
/* The longest madvise(2) range taken: 1 TiB, as the exact stream's
 * ranges (events.c's MAX_RANGE_BYTES). */
#define MAX_MADVISE_BYTES (1ull << 40)

/* The largest page-cache folio: MAX_PAGECACHE_ORDER is at most
 * HPAGE_PMD_ORDER (include/linux/pagemap.h), 9 with 4 KiB pages and 13,
 * the largest, with arm64's 64 KiB pages.  Each of its pages is noted
 * (note_insertion), so a damaged order of 20 made a million per event. */
#define MAX_PAGECACHE_ORDER 13

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

/* ------------------------------------------------------------------ */
/* Growth                                                              */

/* ------------------------------------------------------------------ */
/* Tasks                                                               */

struct tinfo *kev_tinfo(struct kevents *k, uint32_t tid, int create)
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
	if (array_grow((void **)&k->t, &k->cap_t, k->nr_t + 1, sizeof(*k->t)) != 0)
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
		t = kev_tinfo(k, tid, 0);
	}
	return t;
}

/* Appends a kernel event of TYPE at TS in task TID of PID on CPU, its
 * fields zero, in arrival order (reserved: the tie-break of the sort);
 * NULL when out of memory. */
static struct vmr_kev *kev_append(struct kevents *k, uint64_t ts, uint32_t tid, uint32_t pid,
				  uint32_t cpu, uint16_t type)
{
	if (GROW(k, kev, nr_kev, cap_kev) != 0)
		return NULL;
	struct vmr_kev *e = &k->kev[k->nr_kev++];
	memset(e, 0, sizeof(*e));
	e->ts_ns = ts;
	e->tid = tid;
	e->pid = pid;
	e->type = type;
	e->cpu = (uint16_t)cpu;
	e->reserved = k->seq++;
	return e;
}

/* KTS, a kernel CLOCK_MONOTONIC stamp, in the trace's time: KTS + OFFSET,
 * which must be a time from the trace's origin (0 to INT64_MAX ns); -1 if
 * a damaged stamp would wrap. */
static int kts_time(uint64_t kts, int64_t offset, uint64_t *ts)
{
	int64_t t;
	if (kts > INT64_MAX || __builtin_add_overflow((int64_t)kts, offset, &t) || t < 0)
		return -1;
	*ts = (uint64_t)t;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The kevents object and its results                                  */

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
	free(k->ra_wait);
	free(k->ins);
	free(k->exec);
	free(k->hpadv);
	free(k->evict);
	free(k);
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

static int parse_memcg(struct kevents *k, uint64_t ts, const char *text)
{
	if (array_grow((void **)&k->memcg, &k->cap_memcg, k->nr_memcg + 1, sizeof(*k->memcg)) != 0)
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

int kevents_event(struct kevents *k, int kidx, const bt_message *msg, const char *trace,
		  char *err, size_t errlen)
{
	struct kclass *c = &k->cls[kidx];
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const char *name = c->spec->name;
	c->count++;
	k->events++;
	k->trace = trace;
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
	if (!k->have_mono_offset) {
		k->mono_offset = offset;
		k->have_mono_offset = 1;
	}

	uint64_t v[MAX_KF];
	for (int i = 0; i < c->nf; i++)
		v[i] = c->f[i].is_str ? 0 : getu(ev, &c->f[i]);

	if (c->origin == O_CAPTURE) {
		int kind = c->spec->kind;
		uint64_t ts = (uint64_t)nsfo;
		if (kind != KK_CAPTURE_SESSION && kind != KK_CAPTURE_END && kind != KK_DEVICE_LATENCY &&
		    kind != KK_YOUNG_SAMPLER && kts_time(v[0], offset, &ts) != 0)
			return kfail(err, errlen, "%s: event %s: field kts: %llu is outside the trace's "
				     "clock", trace, name, (unsigned long long)v[0]);
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
			/* what swapin_readahead decided by: absent in older captures,
			 * -1 where the capture could not tell */
			k->cap.swap_rotational = v[27] == VMR_ABSENT ? -1 : (int64_t)(int32_t)v[27];
			k->cap.page_cluster = v[28] == VMR_ABSENT ? -1 : (int64_t)(int32_t)v[28];
			k->cap.vma_ra_enabled = v[29] == VMR_ABSENT ? -1 : (int64_t)(int32_t)v[29];
			snprintf(k->cap.stats_flush, sizeof(k->cap.stats_flush), "%s", gets(ev, &c->f[30]));
			snprintf(k->cap.dropped_inputs, sizeof(k->cap.dropped_inputs), "%s", gets(ev, &c->f[31]));
			snprintf(k->cap.thp_defrag, sizeof(k->cap.thp_defrag), "%s", gets(ev, &c->f[32]));
			/* --drop-caches and the page cache the session started
			 * with: absent in older captures, -1 unknown */
			k->cap.dropped_caches = v[33] == VMR_ABSENT ? -1 : (int64_t)(int32_t)v[33];
			k->cap.start_cached_kb = v[34] == VMR_ABSENT ? -1 : (int64_t)v[34];
			k->cap.start_ws_nodes = v[35] == VMR_ABSENT ? -1 : (int64_t)v[35];
			break;
		case KK_MEMCG_STAT:
			if (parse_memcg(k, ts, gets(ev, &c->f[1])) != 0)
				return kfail(err, errlen, "out of memory");
			break;
		case KK_PROC_MAPS:
			if (kev_parse_maps(k, (int32_t)v[1], ts, gets(ev, &c->f[2])) != 0)
				return kfail(err, errlen, "out of memory");
			break;
		case KK_TASK_COMM: {
			struct vmr_kev *e = kev_append(k, ts, (uint32_t)v[1], (uint32_t)v[2], 0, VMR_KEV_COMM);
			if (!e)
				return kfail(err, errlen, "out of memory");
			pack_comm(e->f, gets(ev, &c->f[3]));
			break;
		}
		case KK_DAMON_TARGET:
			if (GROW(k, dt, nr_dt, cap_dt) != 0)
				return kfail(err, errlen, "out of memory");
			k->dt[k->nr_dt++] = (struct dtarget){ ts, (uint32_t)v[1], (int32_t)v[2] };
			break;
		case KK_DEVICE_LATENCY: {
			const char *dev = gets(ev, &c->f[0]);
			int d = strcmp(dev, "swap") == 0 ? 0 : strcmp(dev, "file") == 0 ? 1 : -1;
			if (d < 0)
				return kfail(err, errlen, "%s: event %s: field device: '%.40s' is not swap or "
					     "file", trace, name, dev);
			/* what a device model takes (backing_parse: 1 ns to 10 s) */
			for (int i = 0; i < 2; i++)
				if (v[3 + 2 * i] > 10000000000ull || (v[2 + 2 * i] && !v[3 + 2 * i]))
					return kfail(err, errlen, "%s: event %s: field %s: %llu is not a "
						     "latency in ns (1-10^10)", trace, name,
						     i ? "write_ns" : "read_ns", (unsigned long long)v[3 + 2 * i]);
			snprintf(k->cap.dev_disk[d], sizeof(k->cap.dev_disk[d]), "%s", gets(ev, &c->f[1]));
			for (int i = 0; i < 2; i++) {
				k->cap.dev_nr[d][i] = v[2 + 2 * i];
				k->cap.dev_ns[d][i] = v[2 + 2 * i] ? v[3 + 2 * i] : 0;
			}
			break;
		}
		case KK_YOUNG: {
			/* a page (or a huge page) re-referenced since the previous
			 * poll: demand, placed at the poll that saw it */
			if (v[2] >= USER_ADDR_END || (v[3] != 4096 && v[3] != 2097152) || v[2] % v[3])
				return kfail(err, errlen, "%s: event %s: field addr: %#llx, len %llu is no user "
					     "page", trace, name, (unsigned long long)v[2], (unsigned long long)v[3]);
			if (array_grow((void **)&k->dem, &k->cap_dem, k->nr_dem + 1, sizeof(*k->dem)) != 0)
				return kfail(err, errlen, "out of memory");
			struct kdem *d = &k->dem[k->nr_dem++];
			memset(d, 0, sizeof(*d));
			d->ts = ts;
			d->tid = d->pid = (uint32_t)v[1];
			d->seq = k->seq++;
			d->kind = KK_YOUNG;
			d->a = v[2];
			d->b = v[3];
			d->c = v[4] == 1;       /* written (absent before 2026-12-04: no) */
			break;
		}
		case KK_YOUNG_SAMPLER:
			k->cap.have_young = 1;
			k->cap.young_period_ms = v[0];
			k->cap.young_polls = v[1];
			k->cap.young_lost = v[3];
			k->cap.young_resets = v[4];
			snprintf(k->cap.young_note, sizeof(k->cap.young_note), "%s", gets(ev, &c->f[8]));
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
		uint64_t kts = getu(ev, &c->kts);
		if (kts_time(kts, offset, &ts) != 0)
			return kfail(err, errlen, "%s: event %s: field kts: %llu is outside the trace's "
				     "clock", trace, name, (unsigned long long)kts);
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
			struct tinfo *ti = pn[0] ? kev_tinfo(k, tid, 1) : NULL;
			struct vmr_kev *e;
			if (ti && !ti->comm_seen && (e = kev_append(k, ts, tid, pid, 0, VMR_KEV_COMM))) {
				ti->comm_seen = 1;
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
	if (kind == KK_MEMCG_FLUSH || kind == KK_RSTAT_LOCKED) {
		/* __mem_cgroup_flush_stats flushes when forced (the periodic
		 * flusher) or when enough updates are pending; the rstat lock
		 * is a flush where it is first taken (cpu -1).  The root (level
		 * 0; memcg_flush_stats has no level: the root's kernfs id, 1)
		 * flushes everything. */
		int flushed = kind == KK_MEMCG_FLUSH ? v[2] == 1 || v[3] == 1 : (int32_t)v[3] == -1;
		if (!flushed)
			return 0;
		struct vmr_kev *e = kev_append(k, ts, tid, pid, cpu, VMR_KEV_STATS_FLUSH);
		if (!e)
			return kfail(err, errlen, "out of memory");
		for (int i = 0; i < VMR_KEV_FIELDS; i++)
			e->f[i] = VMR_ABSENT;
		e->f[0] = kind == KK_MEMCG_FLUSH ? v[0] : v[2];
		e->f[1] = kind == KK_MEMCG_FLUSH ? v[0] == 1 : v[1] == 0;
		return 0;
	}
	if (kind < VMR_KEV_NR_TYPES) {
		struct vmr_kev *e = kev_append(k, ts, tid, pid, cpu, (uint16_t)kind);
		if (!e)
			return kfail(err, errlen, "out of memory");
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
	/* Demand side.  A kernel-mode fault on a kernel address (a trace of
	 * every page_fault_kernel) is no page of the workload's. */
	if (kind == KK_FAULT && !(v[2] & 4) && v[0] >= USER_ADDR_END)
		return 0;
	if (array_grow((void **)&k->dem, &k->cap_dem, k->nr_dem + 1, sizeof(*k->dem)) != 0)
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
		if (v[4] != VMR_ABSENT && v[4] > MAX_PAGECACHE_ORDER)
			return kfail(err, errlen, "%s: event %s: field order: %llu is larger than a "
				     "page-cache folio can be (MAX_PAGECACHE_ORDER, at most %d)", trace,
				     name, (unsigned long long)v[4], MAX_PAGECACHE_ORDER);
		d->order = v[4] == VMR_ABSENT ? 0 : (uint8_t)v[4];
		break;
	case KK_FILEMAP_GET_PAGES:
		d->a = v[0];
		d->dev = kernel_dev(v[1]);
		d->b = v[2];
		d->c = v[3];
		/* one read(): filemap_read asks filemap_get_pages for at most
		 * MAX_RW_COUNT bytes (rw_verify_area, fs/read_write.c) */
		if (d->c < d->b || d->c - d->b > MAX_RW_PAGES)
			return kfail(err, errlen, "%s: event %s: field last_index: %llu is not a page range "
				     "from index %llu", trace, name, (unsigned long long)d->c,
				     (unsigned long long)d->b);
		break;
	case KK_MADVISE:
		/* madvise takes a page-aligned start and rounds len up; one
		 * call that moves pages covers at most what a range of the
		 * exact stream may (MAX_RANGE_BYTES): a longer one is a
		 * damaged length.  MADV_HUGEPAGE/NOHUGEPAGE only set VMA
		 * flags (hugepage_madvise), over any reserved range: ASan's
		 * runtime gives MADV_NOHUGEPAGE to its 14 TiB shadow. */
		if (v[1] > USER_VA_END || v[0] > USER_VA_END - v[1] ||
		    (v[1] > MAX_MADVISE_BYTES && v[2] != MADV_HUGEPAGE && v[2] != MADV_NOHUGEPAGE))
			return kfail(err, errlen, "%s: event %s: field len_in: %#llx bytes from %#llx is "
				     "beyond any user address space", trace, name, (unsigned long long)v[1],
				     (unsigned long long)v[0]);
		d->a = v[0];
		d->b = v[1];
		d->c = v[2];
		break;
	case KK_MADVISE_EXIT:
		d->a = v[0];
		break;
	case KK_DAMON:
		if (v[3] <= v[2])
			return kfail(err, errlen, "%s: event %s: field end: region %#llx-%#llx is empty",
				     trace, name, (unsigned long long)v[2], (unsigned long long)v[3]);
		if (v[3] > USER_VA_END)
			return kfail(err, errlen, "%s: event %s: field end: %#llx is beyond any user "
				     "address space (2^57)", trace, name, (unsigned long long)v[3]);
		d->a = v[2];
		d->b = v[3];
		d->c = (v[0] << 32) | (v[4] & 0xffffffffu);
		break;
	}
	return 0;
}
