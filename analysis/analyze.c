/* analyze.c — reclaim analysis of a session (see analyze.h). */
#include "analyze.h"
#include "array.h"
#include "input.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const an_kind_names[AN_NR_KINDS] = { "direct", "memcg", "kswapd" };

#define RECLAIM_WB_ANON  0x1
#define RECLAIM_WB_FILE  0x2
#define RECLAIM_WB_SYNC  0x4

void analysis_free(struct analysis *a)
{
	free(a->tasks);
	free(a->rec);
	memset(a, 0, sizeof(*a));
}

static struct an_task *task_of(struct analysis *a, uint32_t tid)
{
	for (size_t i = a->nr_tasks; i-- > 0;)
		if (a->tasks[i].tid == tid)
			return &a->tasks[i];
	if (array_grow((void **)&a->tasks, &a->cap_tasks, a->nr_tasks + 1, sizeof(*a->tasks)) != 0)
		return NULL;
	struct an_task *t = &a->tasks[a->nr_tasks++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = tid;
	snprintf(t->name, sizeof(t->name), "%s-%u", a->simulated ? "task" : "UNKNOWN", tid);
	return t;
}

static void name_task(struct an_task *t, const uint64_t *packed)
{
	char comm[16];
	memcpy(comm, packed, 16);
	comm[15] = '\0';
	if (comm[0])
		snprintf(t->name, sizeof(t->name), "%s-%u", comm, t->tid);
	if (strncmp(comm, "kswapd", 6) == 0)
		t->kswapd = 1;
}

static struct an_reclaim *new_reclaim(struct analysis *a)
{
	if (array_grow((void **)&a->rec, &a->cap_rec, a->nr_rec + 1, sizeof(*a->rec)) != 0)
		return NULL;
	struct an_reclaim *r = &a->rec[a->nr_rec++];
	memset(r, 0, sizeof(*r));
	r->order = -1;
	r->priority = -1;
	return r;
}

static int order_slot(uint64_t order)
{
	return order < AN_MAX_ORDER ? (int)order : -1;
}

/* ------------------------------------------------------------------ */
/* From a trace's ground truth                                         */

/* Open reclaims per task: index into a->rec + 1, kept in a small map. */
struct open {
	uint32_t tid;
	size_t rec;                    /* index + 1, 0 = none */
};

static size_t *open_slot(struct open **o, size_t *n, size_t *cap, uint32_t tid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*o)[i].tid == tid)
			return &(*o)[i].rec;
	if (array_grow((void **)o, cap, *n + 1, sizeof(**o)) != 0)
		return NULL;
	(*o)[*n].tid = tid;
	(*o)[*n].rec = 0;
	return &(*o)[(*n)++].rec;
}

int analyze_vmr(const struct vmr *v, struct analysis *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->have_detail = 1;
	char buf[256];
	const char *src = vmr_meta_get(v, "kernel_source", buf, sizeof(buf));
	if (!src)
		src = vmr_meta_get(v, "trace_format", buf, sizeof(buf));   /* trace-cmd */
	snprintf(a->source, sizeof(a->source), "kernel events (%s)",
		 src ? src : v->nr_kev ? "LTTng kernel domain" : "none in this trace");
	struct open *open = NULL;
	size_t nr_open = 0, cap_open = 0;
	a->events = v->nr_kev;
	a->first_ns = v->nr_kev ? v->kev[0].ts_ns : 0;
	for (uint64_t i = 0; i < v->nr_kev; i++) {
		const struct vmr_kev *e = &v->kev[i];
		struct an_task *t = task_of(a, e->tid);
		size_t *slot = open_slot(&open, &nr_open, &cap_open, e->tid);
		if (!t || !slot)
			goto oom;
		if (e->pid)
			t->pid = e->pid;
		struct an_reclaim *cur = *slot ? &a->rec[*slot - 1] : NULL;
		switch (e->type) {
		case VMR_KEV_DIRECT_BEGIN:
		case VMR_KEV_MEMCG_BEGIN: {
			int direct = e->type == VMR_KEV_DIRECT_BEGIN;
			if (direct)
				t->direct++;
			else
				t->memcg++;
			int o = order_slot(e->f[0]);
			if (direct && o >= 0)
				t->direct_order[o]++;
			struct an_reclaim *r = new_reclaim(a);
			if (!r)
				goto oom;
			r->kind = direct ? AN_DIRECT : AN_MEMCG;
			r->start_ns = e->ts_ns;
			r->task = e->tid;
			r->order = o >= 0 ? (int16_t)o : -1;
			*slot = a->nr_rec;
			break;
		}
		case VMR_KEV_DIRECT_END:
		case VMR_KEV_MEMCG_END:
			if (cur && cur->kind != AN_KSWAPD) {
				cur->duration_ns = e->ts_ns - cur->start_ns;
				cur->nr_reclaimed = e->f[0] == VMR_ABSENT ? 0 : e->f[0];
				cur->complete = 1;
				t->stall_ns += cur->duration_ns;
				*slot = 0;
			}
			break;
		case VMR_KEV_KSWAPD_WAKE: {
			t->kswapd = 1;
			int o = order_slot(e->f[2]);
			if (cur && cur->kind == AN_KSWAPD) {
				t->kswapd_rewakes++;
				break;
			}
			t->kswapd_wakes++;
			if (o >= 0)
				t->wake_order[o]++;
			struct an_reclaim *r = new_reclaim(a);
			if (!r)
				goto oom;
			r->kind = AN_KSWAPD;
			r->start_ns = e->ts_ns;
			r->task = e->tid;
			r->order = o >= 0 ? (int16_t)o : -1;
			*slot = a->nr_rec;
			break;
		}
		case VMR_KEV_KSWAPD_SLEEP:
			t->kswapd = 1;
			if (cur && cur->kind == AN_KSWAPD) {
				cur->duration_ns = e->ts_ns - cur->start_ns;
				cur->complete = 1;
				t->kswapd_awake_ns += cur->duration_ns;
				*slot = 0;
			}
			break;
		case VMR_KEV_WAKEUP_KSWAPD: {
			t->wakeup_kswapd++;
			int o = order_slot(e->f[2]);
			if (o >= 0)
				t->wakeup_order[o]++;
			break;
		}
		case VMR_KEV_LRU_ISOLATE:
			/* inactive lists only: active-list isolation is rotation */
			if (e->f[6] == VMR_ABSENT || (e->f[6] & 1) == 0)
				t->scanned += e->f[3];
			if (e->f[6] != VMR_ABSENT && (e->f[6] & 1) == 0 && e->f[5] != VMR_ABSENT) {
				*(e->f[6] >= 2 ? &a->file_isolated : &a->anon_isolated) += e->f[5];
				a->have_isolated = 1;
			}
			break;
		case VMR_KEV_SHRINK_INACTIVE: {
			uint64_t sc = e->f[1], rc = e->f[2], fl = e->f[12];
			t->reclaimed += rc;
			if (fl != VMR_ABSENT && (fl & RECLAIM_WB_FILE)) {
				a->file_scanned += sc;
				a->file_reclaimed += rc;
			} else {
				a->anon_scanned += sc;
				a->anon_reclaimed += rc;
			}
			if (t->kswapd || (cur && cur->kind == AN_KSWAPD)) {
				a->trace.kswapd_scanned += sc;
				a->trace.kswapd_reclaimed += rc;
			} else {
				a->trace.direct_scanned += sc;
				a->trace.direct_reclaimed += rc;
			}
			a->trace.have = 1;
			if (cur) {
				cur->nr_scanned += sc;
				if (cur->kind == AN_KSWAPD)
					cur->nr_reclaimed += rc;
			}
		}
			__attribute__((fallthrough));   /* and its priority */
		case VMR_KEV_SHRINK_ACTIVE: {
			uint64_t prio = e->type == VMR_KEV_SHRINK_ACTIVE ? e->f[5] : e->f[11];
			if (cur && prio != VMR_ABSENT && (int64_t)prio >= 0 &&
			    (cur->priority < 0 || (int64_t)prio < cur->priority))
				cur->priority = (int16_t)prio;
			break;
		}
		case VMR_KEV_THROTTLED:
			t->throttled++;
			if (e->f[2] != VMR_ABSENT && (int64_t)e->f[2] > 0)
				t->throttled_us += e->f[2];
			break;
		case VMR_KEV_WRITE_FOLIO: {
			uint64_t fl = e->f[1] == VMR_ABSENT ? 0 : e->f[1];
			int file = (fl & RECLAIM_WB_FILE) != 0, sync = (fl & RECLAIM_WB_SYNC) != 0;
			if (sync)
				*(file ? &t->write_sync_file : &t->write_sync_anon) += 1;
			else
				*(file ? &t->write_async_file : &t->write_async_anon) += 1;
			break;
		}
		case VMR_KEV_FILE_EVICT:
			t->file_evicted += e->f[3] == VMR_ABSENT ? 1 : 1ull << (e->f[3] & 31);
			break;
		case VMR_KEV_FORK: {
			struct an_task *ch = task_of(a, (uint32_t)e->f[2]);
			if (!ch)
				goto oom;
			t = task_of(a, e->tid);    /* task_of may have moved the array */
			ch->pid = (uint32_t)e->f[3];
			name_task(ch, &e->f[4]);
			break;
		}
		case VMR_KEV_EXEC:
		case VMR_KEV_COMM:
			name_task(t, e->f);
			break;
		}
	}
	/* Reclaims still open at the end of the trace: kept, marked incomplete. */
	for (size_t i = 0; i < nr_open; i++)
		if (open[i].rec) {
			struct an_reclaim *r = &a->rec[open[i].rec - 1];
			r->duration_ns = v->kev[v->nr_kev - 1].ts_ns - r->start_ns;
		}
	free(open);
	/* Tasks with no reclaim activity are not listed. */
	size_t keep = 0;
	for (size_t i = 0; i < a->nr_tasks; i++) {
		const struct an_task *t = &a->tasks[i];
		if (t->direct || t->memcg || t->wakeup_kswapd || t->scanned || t->reclaimed || t->kswapd_wakes ||
		    t->throttled || t->write_async_anon || t->write_async_file || t->write_sync_anon ||
		    t->write_sync_file || t->file_evicted)
			a->tasks[keep++] = *t;
	}
	a->nr_tasks = keep;

	/* The session's length: the workload's run time, else the vmstat
	 * snapshots' span, else the events'. */
	if (vmr_meta_get(v, "workload_elapsed_ns", buf, sizeof(buf)) && strtoull(buf, NULL, 10) > 0) {
		a->span_ns = strtoull(buf, NULL, 10);
		snprintf(a->span_from, sizeof(a->span_from), "workload run time");
	} else if (v->nr_vmstat >= 2) {
		a->span_ns = v->vmstat[v->nr_vmstat - 1].ts_ns - v->vmstat[0].ts_ns;
		snprintf(a->span_from, sizeof(a->span_from), "vmstat snapshots");
	} else if (v->nr_kev >= 2) {
		a->span_ns = v->kev[v->nr_kev - 1].ts_ns - v->kev[0].ts_ns;
		snprintf(a->span_from, sizeof(a->span_from), "first to last event");
	}
	if (v->nr_vmstat >= 2) {
		a->have_vm = 1;
		for (int i = 0; i < VMR_NR_VMSTAT; i++) {
			uint64_t x = v->vmstat[0].v[i], y = v->vmstat[v->nr_vmstat - 1].v[i];
			a->vm[i] = y >= x ? y - x : 0;
		}
		/* Memcg limit reclaim is counted in pgscan_anon/file but not in
		 * pgscan_direct (mm/vmscan.c counts PGSCAN_DIRECT only for
		 * global reclaim); "direct" here is every scan not kswapd's. */
		uint64_t scan = 0, steal = 0;
		for (int i = 0; i < VMR_NR_VMSTAT; i++) {
			const char *n = vmr_vmstat_names[i];
			if (!strcmp(n, "pgscan_kswapd")) a->vmstat.kswapd_scanned = a->vm[i];
			else if (!strcmp(n, "pgsteal_kswapd")) a->vmstat.kswapd_reclaimed = a->vm[i];
			else if (!strcmp(n, "pgscan_anon") || !strcmp(n, "pgscan_file")) scan += a->vm[i];
			else if (!strcmp(n, "pgsteal_anon") || !strcmp(n, "pgsteal_file")) steal += a->vm[i];
		}
		a->vmstat.direct_scanned = scan > a->vmstat.kswapd_scanned ? scan - a->vmstat.kswapd_scanned : 0;
		a->vmstat.direct_reclaimed = steal > a->vmstat.kswapd_reclaimed ? steal - a->vmstat.kswapd_reclaimed : 0;
		a->vmstat.have = 1;
	}
	(void)err;
	(void)errlen;
	return 0;
oom:
	free(open);
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* ------------------------------------------------------------------ */
/* From the replay's --events TSV                                      */

static int tsv_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int tsv_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* One reclaim record of a replay (analyze.h). */
int an_add_record(struct analysis *a, uint64_t start, uint64_t dur, int kind, uint32_t tid, int prio,
		  uint64_t scanned, uint64_t reclaimed, const char *comm)
{
	struct an_reclaim *r = new_reclaim(a);
	struct an_task *t = task_of(a, tid);
	if (!r || !t)
		return -1;
	r->start_ns = start;
	r->duration_ns = dur;
	r->kind = (uint8_t)kind;
	r->task = tid;
	r->priority = (int16_t)prio;
	r->nr_scanned = scanned;
	r->nr_reclaimed = reclaimed;
	r->complete = 1;
	if (kind == AN_KSWAPD) {
		t->kswapd = 1;
		if (strcmp(comm, "-") != 0)
			snprintf(t->name, sizeof(t->name), "%.16s", comm);
		else
			snprintf(t->name, sizeof(t->name), "kswapd-%u", t->tid);
		t->kswapd_wakes++;
		t->kswapd_awake_ns += r->duration_ns;
		a->trace.kswapd_scanned += r->nr_scanned;
		a->trace.kswapd_reclaimed += r->nr_reclaimed;
	} else {
		if (strcmp(comm, "-") != 0)
			snprintf(t->name, sizeof(t->name), "%.16s-%u", comm, t->tid);
		if (kind == AN_DIRECT)
			t->direct++;
		else
			t->memcg++;
		t->stall_ns += r->duration_ns;
		a->trace.direct_scanned += r->nr_scanned;
		a->trace.direct_reclaimed += r->nr_reclaimed;
	}
	t->scanned += r->nr_scanned;
	t->reclaimed += r->nr_reclaimed;
	a->trace.have = 1;
	if (!a->events || r->start_ns < a->first_ns)
		a->first_ns = r->start_ns;
	if (r->start_ns + r->duration_ns > a->last_end_ns)
		a->last_end_ns = r->start_ns + r->duration_ns;
	a->events++;
	return 0;
}

void an_records_begin(struct analysis *a)
{
	memset(a, 0, sizeof(*a));
	a->simulated = 1;
	snprintf(a->source, sizeof(a->source), "the replay's simulated reclaim records");
}

/* The session: from the first start to the last end. */
void an_records_done(struct analysis *a)
{
	if (a->events && a->last_end_ns > a->first_ns) {
		a->span_ns = a->last_end_ns - a->first_ns;
		snprintf(a->span_from, sizeof(a->span_from), "first to last reclaim record");
	}
}

int analyze_tsv(const char *path, struct analysis *a, char *err, size_t errlen)
{
	an_records_begin(a);
	FILE *f = input_open(path, err, errlen);
	if (!f)
		return -1;
	static const char *const need[] = { "start_ns", "duration_ns", "kind", "task", "priority",
					    "nr_scanned", "nr_reclaimed" };
	enum { C_START, C_DUR, C_KIND, C_TASK, C_PRIO, C_SCAN, C_RECL, NC };
	int col[NC];
	for (int i = 0; i < NC; i++)
		col[i] = -1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	int ncols = 0, rc = 0, ccomm = -1;    /* comm: optional (older files lack it) */
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len == 0 || line[len - 1] != '\n') {
			rc = tsv_fail(err, errlen, "%s: line %lu: the file ends in the middle of a line", path, lineno);
			break;
		}
		line[--len] = '\0';
		char *fields[64];
		int n = 0;
		for (char *save = NULL, *p = strtok_r(line, "\t", &save); p && n < 64; p = strtok_r(NULL, "\t", &save))
			fields[n++] = p;
		if (lineno == 1) {
			ncols = n;
			for (int i = 0; i < n; i++) {
				for (int c = 0; c < NC; c++)
					if (strcmp(fields[i], need[c]) == 0)
						col[c] = i;
				if (strcmp(fields[i], "comm") == 0)
					ccomm = i;
			}
			for (int c = 0; c < NC; c++)
				if (col[c] < 0) {
					rc = tsv_fail(err, errlen, "%s: line 1: field %s: missing from the header "
						      "(not a `vmreplay run --events` file?)", path, need[c]);
					goto out;
				}
			continue;
		}
		if (n != ncols) {
			rc = tsv_fail(err, errlen, "%s: line %lu: %d fields, the header has %d", path, lineno, n, ncols);
			break;
		}
		uint64_t v[NC];
		int kind = -1;
		for (int c = 0; c < NC; c++) {
			const char *s = fields[col[c]];
			if (c == C_KIND) {
				for (int k = 0; k < AN_NR_KINDS; k++)
					if (strcmp(s, an_kind_names[k]) == 0)
						kind = k;
				if (kind < 0) {
					rc = tsv_fail(err, errlen, "%s: line %lu: field kind: '%s' is not direct, "
						      "memcg or kswapd", path, lineno, s);
					goto out;
				}
				continue;
			}
			/* kswapd's records name no task (it is a kernel thread) */
			if ((c == C_PRIO || (c == C_TASK && kind == AN_KSWAPD)) && strcmp(s, "-") == 0) {
				v[c] = c == C_TASK ? 0 : AN_UNKNOWN;
				continue;
			}
			if (parse_u64(s, &v[c]) != 0 || (c == C_PRIO && v[c] > 12) ||
			    (c == C_TASK && v[c] > UINT32_MAX)) {
				rc = tsv_fail(err, errlen, "%s: line %lu: field %s: '%s' is not %s", path, lineno,
					      need[c], s, c == C_PRIO ? "a priority (0-12)" : "a whole number");
				goto out;
			}
		}
		if (an_add_record(a, v[C_START], v[C_DUR], kind, (uint32_t)v[C_TASK],
				  v[C_PRIO] == AN_UNKNOWN ? -1 : (int)v[C_PRIO], v[C_SCAN], v[C_RECL],
				  ccomm >= 0 ? fields[ccomm] : "-") != 0) {
			rc = tsv_fail(err, errlen, "out of memory");
			break;
		}
	}
	if (rc == 0 && lineno == 0)
		rc = tsv_fail(err, errlen, "%s: line 1: empty file (no header)", path);
	if (rc == 0 && ferror(f))
		rc = tsv_fail(err, errlen, "%s: read error", path);
out:
	free(line);
	fclose(f);
	if (rc != 0) {
		analysis_free(a);
		return -1;
	}
	an_records_done(a);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Statistics                                                          */

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* Nearest-rank quantile of sorted V. */
static double quantile(const double *v, size_t n, double q)
{
	if (!n)
		return 0;
	size_t k = (size_t)ceil(q * (double)n);
	if (k < 1)
		k = 1;
	return v[k - 1];
}

void an_dist_of(const struct analysis *a, int kind, enum an_what what, struct an_dist *d)
{
	memset(d, 0, sizeof(*d));
	double *v = malloc((a->nr_rec ? a->nr_rec : 1) * sizeof(*v));
	if (!v)
		return;
	size_t n = 0;
	double sum = 0;
	for (size_t i = 0; i < a->nr_rec; i++) {
		const struct an_reclaim *r = &a->rec[i];
		if (!r->complete || (kind >= 0 && r->kind != kind))
			continue;
		double x = what == AN_LATENCY ? (double)r->duration_ns
			 : what == AN_SCANNED ? (double)r->nr_scanned : (double)r->nr_reclaimed;
		v[n++] = x;
		sum += x;
	}
	qsort(v, n, sizeof(*v), cmp_dbl);
	d->n = n;
	if (n) {
		d->mean = sum / (double)n;
		d->p50 = quantile(v, n, 0.50);
		d->p90 = quantile(v, n, 0.90);
		d->p99 = quantile(v, n, 0.99);
		d->max = v[n - 1];
	}
	free(v);
}

/* Nothing scanned has no efficiency (0/0 is not 100 %), and a session of
 * no length no velocity: NAN, written "-" (text, TSV) or null (JSON). */
static double eff(uint64_t reclaimed, uint64_t scanned)
{
	return scanned ? 100.0 * (double)reclaimed / (double)scanned : NAN;
}

static double velocity(uint64_t scanned, uint64_t span_ns)
{
	return span_ns ? (double)scanned * 1e9 / (double)span_ns : NAN;
}

static double direct_share(const struct an_flow *x)
{
	uint64_t tot = x->direct_scanned + x->kswapd_scanned;
	return tot ? 100.0 * (double)x->direct_scanned / (double)tot : NAN;
}

/* Indices of complete reclaims, slowest first (ties: earlier first). */
static const struct analysis *sort_a;
static int cmp_slow(const void *x, const void *y)
{
	const struct an_reclaim *a = &sort_a->rec[*(const size_t *)x], *b = &sort_a->rec[*(const size_t *)y];
	if (a->duration_ns != b->duration_ns)
		return a->duration_ns > b->duration_ns ? -1 : 1;
	return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

static size_t slowest(const struct analysis *a, size_t **out)
{
	size_t *idx = malloc((a->nr_rec ? a->nr_rec : 1) * sizeof(*idx)), n = 0;
	if (!idx) {
		*out = NULL;
		return 0;
	}
	for (size_t i = 0; i < a->nr_rec; i++)
		if (a->rec[i].complete)
			idx[n++] = i;
	sort_a = a;
	qsort(idx, n, sizeof(*idx), cmp_slow);
	*out = idx;
	return n;
}

struct wm {                            /* worst and mean */
	uint64_t n;
	uint64_t max_lat, max_scan, max_recl;
	double mean_lat, mean_scan, mean_recl;
};

static void worst_mean(const struct analysis *a, const size_t *idx, size_t n, struct wm *w)
{
	memset(w, 0, sizeof(*w));
	w->n = n;
	for (size_t i = 0; i < n; i++) {
		const struct an_reclaim *r = &a->rec[idx[i]];
		if (r->duration_ns > w->max_lat) w->max_lat = r->duration_ns;
		if (r->nr_scanned > w->max_scan) w->max_scan = r->nr_scanned;
		if (r->nr_reclaimed > w->max_recl) w->max_recl = r->nr_reclaimed;
		w->mean_lat += (double)r->duration_ns;
		w->mean_scan += (double)r->nr_scanned;
		w->mean_recl += (double)r->nr_reclaimed;
	}
	if (n) {
		w->mean_lat /= (double)n;
		w->mean_scan /= (double)n;
		w->mean_recl /= (double)n;
	}
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

struct totals {
	uint64_t direct, memcg, wakeup, d_scanned, d_reclaimed, d_wsf, d_wsa, d_waf, d_waa, stall_ns;
	uint64_t k_wakes, k_rewakes, k_scanned, k_reclaimed, k_wsf, k_wsa, k_waf, k_waa, awake_ns;
	uint64_t throttled, throttled_us, evicted;
};

static void sum_totals(const struct analysis *a, struct totals *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < a->nr_tasks; i++) {
		const struct an_task *t = &a->tasks[i];
		s->throttled += t->throttled;
		s->throttled_us += t->throttled_us;
		s->evicted += t->file_evicted;
		if (t->kswapd) {
			s->k_wakes += t->kswapd_wakes;
			s->k_rewakes += t->kswapd_rewakes;
			s->k_scanned += t->scanned;
			s->k_reclaimed += t->reclaimed;
			s->k_wsf += t->write_sync_file;
			s->k_wsa += t->write_sync_anon;
			s->k_waf += t->write_async_file;
			s->k_waa += t->write_async_anon;
			s->awake_ns += t->kswapd_awake_ns;
			continue;
		}
		s->direct += t->direct;
		s->memcg += t->memcg;
		s->wakeup += t->wakeup_kswapd;
		s->d_scanned += t->scanned;
		s->d_reclaimed += t->reclaimed;
		s->d_wsf += t->write_sync_file;
		s->d_wsa += t->write_sync_anon;
		s->d_waf += t->write_async_file;
		s->d_waa += t->write_async_anon;
		s->stall_ns += t->stall_ns;
	}
}

/* "n" or "-" when the input cannot tell */
static const char *num(const struct analysis *a, uint64_t v, char *buf, size_t len)
{
	if (!a->have_detail)
		return "-";
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static void orders(FILE *f, const char *what, const uint64_t *hist)
{
	for (int o = 0; o < AN_MAX_ORDER; o++)
		if (hist[o])
			fprintf(f, " %s-%d=%llu", what, o, (unsigned long long)hist[o]);
}

static void print_text(FILE *f, const struct analysis *a, unsigned top, const char *input)
{
	struct totals s;
	sum_totals(a, &s);
	char b1[32], b2[32], b3[32], b4[32];
	fprintf(f, "vmreplay analyze: %s\n", input);
	fprintf(f, "source: %s; %llu events; session %.3f s (%s)\n", a->source,
		(unsigned long long)a->events, (double)a->span_ns / 1e9, a->span_from[0] ? a->span_from : "unknown");

	/* trace-vmscan-postprocess.pl's order-latency pairs; a reclaim whose
	 * order is not known (the replay's records carry none) shows its
	 * latency alone, never a made-up order. */
	int no_order = 0;
	for (size_t r = 0; r < a->nr_rec; r++)
		no_order |= a->rec[r].complete && a->rec[r].order < 0;
	fprintf(f, "\nReclaim latencies expressed as order-latency_in_ms%s\n",
		no_order ? " (latency_in_ms alone where the order is not known)" : "");
	for (size_t i = 0; i < a->nr_tasks; i++) {
		const struct an_task *t = &a->tasks[i];
		int any = 0;
		for (size_t r = 0; r < a->nr_rec; r++)
			if (a->rec[r].task == t->tid && a->rec[r].complete)
				any = 1;
		if (!any)
			continue;
		fprintf(f, "%-24s", t->name);
		int col = 0;
		for (size_t r = 0; r < a->nr_rec; r++) {
			const struct an_reclaim *x = &a->rec[r];
			if (x->task != t->tid || !x->complete)
				continue;
			if (col && col % 8 == 0)
				fprintf(f, "\n%-24s", "");
			if (x->order < 0)
				fprintf(f, " %.3f", (double)x->duration_ns / 1e6);
			else
				fprintf(f, " %d-%.3f", x->order, (double)x->duration_ns / 1e6);
			col++;
		}
		fputc('\n', f);
	}

	fprintf(f, "\n%-24s %8s %8s %8s %9s %9s %8s %8s %11s\n", "Process", "Direct", "Memcg", "Wokeup",
		"Pages", "Pages", "Pages", "Pages", "Time");
	fprintf(f, "%-24s %8s %8s %8s %9s %9s %8s %8s %11s\n", "details", "Rclms", "Rclms", "Kswapd",
		"Scanned", "Rclmed", "Sync-IO", "ASync-IO", "Stalled(s)");
	for (size_t i = 0; i < a->nr_tasks; i++) {
		const struct an_task *t = &a->tasks[i];
		if (t->kswapd || !(t->direct || t->memcg || t->wakeup_kswapd || t->scanned || t->reclaimed))
			continue;
		fprintf(f, "%-24s %8llu %8llu %8s %9llu %9llu %8s %8s %11.3f", t->name,
			(unsigned long long)t->direct, (unsigned long long)t->memcg,
			num(a, t->wakeup_kswapd, b1, sizeof(b1)), (unsigned long long)t->scanned,
			(unsigned long long)t->reclaimed,
			num(a, t->write_sync_file + t->write_sync_anon, b2, sizeof(b2)),
			num(a, t->write_async_file + t->write_async_anon, b3, sizeof(b3)),
			(double)t->stall_ns / 1e9);
		orders(f, "direct", t->direct_order);
		orders(f, "wakeup", t->wakeup_order);
		fputc('\n', f);
	}

	fprintf(f, "\n%-24s %8s %10s %9s %9s %8s %8s %11s\n", "Kswapd", "Kswapd", "Order", "Pages", "Pages",
		"Pages", "Pages", "Time");
	fprintf(f, "%-24s %8s %10s %9s %9s %8s %8s %11s\n", "Instance", "Wakeups", "Re-wakeup", "Scanned",
		"Rclmed", "Sync-IO", "ASync-IO", "Awake(s)");
	for (size_t i = 0; i < a->nr_tasks; i++) {
		const struct an_task *t = &a->tasks[i];
		if (!t->kswapd)
			continue;
		fprintf(f, "%-24s %8llu %10s %9llu %9llu %8s %8s %11.3f", t->name,
			(unsigned long long)t->kswapd_wakes, num(a, t->kswapd_rewakes, b1, sizeof(b1)),
			(unsigned long long)t->scanned, (unsigned long long)t->reclaimed,
			num(a, t->write_sync_file + t->write_sync_anon, b2, sizeof(b2)),
			num(a, t->write_async_file + t->write_async_anon, b3, sizeof(b3)),
			(double)t->kswapd_awake_ns / 1e9);
		orders(f, "wake", t->wake_order);
		fputc('\n', f);
	}

	fprintf(f, "\nSummary\n");
	fprintf(f, "Direct reclaims:                        %llu\n", (unsigned long long)s.direct);
	fprintf(f, "Memcg reclaims:                         %llu\n", (unsigned long long)s.memcg);
	fprintf(f, "Direct+memcg reclaim pages scanned:     %llu\n", (unsigned long long)s.d_scanned);
	fprintf(f, "Direct+memcg reclaim pages reclaimed:   %llu\n", (unsigned long long)s.d_reclaimed);
	fprintf(f, "Direct+memcg reclaim write file sync I/O:  %s\n", num(a, s.d_wsf, b1, sizeof(b1)));
	fprintf(f, "Direct+memcg reclaim write anon sync I/O:  %s\n", num(a, s.d_wsa, b1, sizeof(b1)));
	fprintf(f, "Direct+memcg reclaim write file async I/O: %s\n", num(a, s.d_waf, b1, sizeof(b1)));
	fprintf(f, "Direct+memcg reclaim write anon async I/O: %s\n", num(a, s.d_waa, b1, sizeof(b1)));
	fprintf(f, "Wake kswapd requests:                   %s\n", num(a, s.wakeup, b1, sizeof(b1)));
	fprintf(f, "Time stalled direct+memcg reclaim:      %.6f seconds\n", (double)s.stall_ns / 1e9);
	fprintf(f, "Throttled (mm_vmscan_throttled):        %s times, %s us\n", num(a, s.throttled, b1, sizeof(b1)),
		num(a, s.throttled_us, b2, sizeof(b2)));
	fprintf(f, "File pages evicted by reclaim:          %s\n", num(a, s.evicted, b1, sizeof(b1)));
	fprintf(f, "\n");
	fprintf(f, "Kswapd wakeups:                         %llu\n", (unsigned long long)s.k_wakes);
	fprintf(f, "Kswapd re-wakeups:                      %s\n", num(a, s.k_rewakes, b1, sizeof(b1)));
	fprintf(f, "Kswapd pages scanned:                   %llu\n", (unsigned long long)s.k_scanned);
	fprintf(f, "Kswapd pages reclaimed:                 %llu\n", (unsigned long long)s.k_reclaimed);
	fprintf(f, "Kswapd reclaim write file sync I/O:     %s\n", num(a, s.k_wsf, b1, sizeof(b1)));
	fprintf(f, "Kswapd reclaim write anon sync I/O:     %s\n", num(a, s.k_wsa, b1, sizeof(b1)));
	fprintf(f, "Kswapd reclaim write file async I/O:    %s\n", num(a, s.k_waf, b1, sizeof(b1)));
	fprintf(f, "Kswapd reclaim write anon async I/O:    %s\n", num(a, s.k_waa, b1, sizeof(b1)));
	fprintf(f, "Time kswapd awake:                      %.6f seconds\n", (double)s.awake_ns / 1e9);

	fprintf(f, "\nEfficiency and velocity (as mmtests derives them; direct includes memcg)\n");
	fprintf(f, "%-28s %16s %16s\n", "", a->simulated ? "from the records" : "from the events",
		"from /proc/vmstat");
	const struct an_flow *fl[2] = { &a->trace, &a->vmstat };
	struct { const char *name; int pct; } rows[] = {
		{ "Direct pages scanned", 0 }, { "Kswapd pages scanned", 0 }, { "Kswapd pages reclaimed", 0 },
		{ "Direct pages reclaimed", 0 }, { "Kswapd efficiency %", 1 }, { "Kswapd velocity", 2 },
		{ "Direct efficiency %", 1 }, { "Direct velocity", 2 }, { "Percentage direct scans", 1 },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		fprintf(f, "%-28s", rows[r].name);
		for (int c = 0; c < 2; c++) {
			const struct an_flow *x = fl[c];
			char cell[32];
			if (!x->have) {
				snprintf(cell, sizeof(cell), "-");
			} else {
				double val = 0;
				switch (r) {
				case 0: val = (double)x->direct_scanned; break;
				case 1: val = (double)x->kswapd_scanned; break;
				case 2: val = (double)x->kswapd_reclaimed; break;
				case 3: val = (double)x->direct_reclaimed; break;
				case 4: val = eff(x->kswapd_reclaimed, x->kswapd_scanned); break;
				case 5: val = velocity(x->kswapd_scanned, a->span_ns); break;
				case 6: val = eff(x->direct_reclaimed, x->direct_scanned); break;
				case 7: val = velocity(x->direct_scanned, a->span_ns); break;
				case 8: val = direct_share(x); break;
				}
				if (isnan(val))
					snprintf(cell, sizeof(cell), "-");
				else if (rows[r].pct == 0)
					snprintf(cell, sizeof(cell), "%.0f", val);
				else if (rows[r].pct == 1)
					snprintf(cell, sizeof(cell), "%.2f%%", val);
				else
					snprintf(cell, sizeof(cell), "%.3f", val);
			}
			fprintf(f, " %16s", cell);
		}
		fputc('\n', f);
	}
	fprintf(f, "(velocity: pages scanned per second of the session, %.3f s)\n", (double)a->span_ns / 1e9);
	if (!a->simulated && (a->anon_scanned || a->file_scanned))
		fprintf(f, "From the events: anon %llu scanned, %llu reclaimed; file %llu scanned, %llu reclaimed\n",
			(unsigned long long)a->anon_scanned, (unsigned long long)a->anon_reclaimed,
			(unsigned long long)a->file_scanned, (unsigned long long)a->file_reclaimed);

	size_t *idx;
	size_t n = slowest(a, &idx);
	size_t shown = n < top ? n : top;
	fprintf(f, "\nThe %zu slowest reclaims (of %zu)\n", shown, n);
	fprintf(f, "%4s %12s %-7s %-24s %5s %5s %12s %9s %9s\n", "#", "start(s)", "kind", "task", "order",
		"prio", "latency(ms)", "scanned", "reclaimed");
	for (size_t i = 0; i < shown; i++) {
		const struct an_reclaim *r = &a->rec[idx[i]];
		const struct an_task *t = NULL;
		for (size_t k = 0; k < a->nr_tasks; k++)
			if (a->tasks[k].tid == r->task)
				t = &a->tasks[k];
		char tn[40];
		snprintf(tn, sizeof(tn), "%s", t ? t->name : "?");
		snprintf(b1, sizeof(b1), "%d", r->order);
		snprintf(b2, sizeof(b2), "%d", r->priority);
		fprintf(f, "%4zu %12.6f %-7s %-24s %5s %5s %12.3f %9llu %9llu\n", i + 1,
			(double)(r->start_ns - a->first_ns) / 1e9, an_kind_names[r->kind], tn,
			r->order < 0 ? "-" : b1, r->priority < 0 ? "-" : b2, (double)r->duration_ns / 1e6,
			(unsigned long long)r->nr_scanned, (unsigned long long)r->nr_reclaimed);
	}
	struct wm w, all;
	worst_mean(a, idx, shown, &w);
	worst_mean(a, idx, n, &all);
	fprintf(f, "%-46s %12.3f %9llu %9llu\n", "worst of these", (double)w.max_lat / 1e6,
		(unsigned long long)w.max_scan, (unsigned long long)w.max_recl);
	fprintf(f, "%-46s %12.3f %9.1f %9.1f\n", "mean of these", w.mean_lat / 1e6, w.mean_scan, w.mean_recl);
	snprintf(b4, sizeof(b4), "worst of all %llu", (unsigned long long)all.n);
	fprintf(f, "%-46s %12.3f %9llu %9llu\n", b4, (double)all.max_lat / 1e6,
		(unsigned long long)all.max_scan, (unsigned long long)all.max_recl);
	snprintf(b4, sizeof(b4), "mean of all %llu", (unsigned long long)all.n);
	fprintf(f, "%-46s %12.3f %9.1f %9.1f\n", b4, all.mean_lat / 1e6, all.mean_scan, all.mean_recl);
	free(idx);
}

/* TSV: one "table row metric value" line per number. */
static void tsv_line(FILE *f, const char *table, const char *row, const char *metric, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void tsv_line(FILE *f, const char *table, const char *row, const char *metric, const char *fmt, ...)
{
	va_list ap;
	fprintf(f, "%s\t%s\t%s\t", table, row, metric);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

/* A ratio with nothing to divide by: "-" (one spelling of missing). */
static void tsv_real(FILE *f, const char *table, const char *row, const char *metric, double v)
{
	if (isnan(v))
		tsv_line(f, table, row, metric, "-");
	else
		tsv_line(f, table, row, metric, "%.4f", v);
}

static void jreal(FILE *f, const char *key, double v, const char *sep)
{
	if (isnan(v))
		fprintf(f, "\"%s\": null%s", key, sep);
	else
		fprintf(f, "\"%s\": %.4f%s", key, v, sep);
}

/* A metric the input cannot tell is left out (TSV) or null (JSON). */
#define TSV_DETAIL(f, a, table, row, metric, v) \
	do { if ((a)->have_detail) tsv_line(f, table, row, metric, "%llu", (unsigned long long)(v)); } while (0)

static void print_tsv(FILE *f, const struct analysis *a, unsigned top)
{
	struct totals s;
	sum_totals(a, &s);
	fprintf(f, "table\trow\tmetric\tvalue\n");
	tsv_line(f, "summary", "-", "events", "%llu", (unsigned long long)a->events);
	tsv_line(f, "summary", "-", "session_ns", "%llu", (unsigned long long)a->span_ns);
	tsv_line(f, "summary", "-", "direct_reclaims", "%llu", (unsigned long long)s.direct);
	tsv_line(f, "summary", "-", "memcg_reclaims", "%llu", (unsigned long long)s.memcg);
	tsv_line(f, "summary", "-", "direct_pages_scanned", "%llu", (unsigned long long)s.d_scanned);
	tsv_line(f, "summary", "-", "direct_pages_reclaimed", "%llu", (unsigned long long)s.d_reclaimed);
	TSV_DETAIL(f, a, "summary", "-", "direct_write_file_sync", s.d_wsf);
	TSV_DETAIL(f, a, "summary", "-", "direct_write_anon_sync", s.d_wsa);
	TSV_DETAIL(f, a, "summary", "-", "direct_write_file_async", s.d_waf);
	TSV_DETAIL(f, a, "summary", "-", "direct_write_anon_async", s.d_waa);
	TSV_DETAIL(f, a, "summary", "-", "wakeup_kswapd", s.wakeup);
	tsv_line(f, "summary", "-", "stall_ns", "%llu", (unsigned long long)s.stall_ns);
	TSV_DETAIL(f, a, "summary", "-", "throttled", s.throttled);
	TSV_DETAIL(f, a, "summary", "-", "throttled_us", s.throttled_us);
	TSV_DETAIL(f, a, "summary", "-", "file_evicted", s.evicted);
	tsv_line(f, "summary", "-", "kswapd_wakeups", "%llu", (unsigned long long)s.k_wakes);
	TSV_DETAIL(f, a, "summary", "-", "kswapd_rewakeups", s.k_rewakes);
	tsv_line(f, "summary", "-", "kswapd_pages_scanned", "%llu", (unsigned long long)s.k_scanned);
	tsv_line(f, "summary", "-", "kswapd_pages_reclaimed", "%llu", (unsigned long long)s.k_reclaimed);
	TSV_DETAIL(f, a, "summary", "-", "kswapd_write_file_sync", s.k_wsf);
	TSV_DETAIL(f, a, "summary", "-", "kswapd_write_anon_sync", s.k_wsa);
	TSV_DETAIL(f, a, "summary", "-", "kswapd_write_file_async", s.k_waf);
	TSV_DETAIL(f, a, "summary", "-", "kswapd_write_anon_async", s.k_waa);
	tsv_line(f, "summary", "-", "kswapd_awake_ns", "%llu", (unsigned long long)s.awake_ns);
	const struct an_flow *fl[2] = { &a->trace, &a->vmstat };
	const char *fln[2] = { a->simulated ? "records" : "events", "vmstat" };
	for (int c = 0; c < 2; c++) {
		const struct an_flow *x = fl[c];
		if (!x->have)
			continue;
		tsv_line(f, "efficiency", fln[c], "direct_pages_scanned", "%llu", (unsigned long long)x->direct_scanned);
		tsv_line(f, "efficiency", fln[c], "direct_pages_reclaimed", "%llu", (unsigned long long)x->direct_reclaimed);
		tsv_line(f, "efficiency", fln[c], "kswapd_pages_scanned", "%llu", (unsigned long long)x->kswapd_scanned);
		tsv_line(f, "efficiency", fln[c], "kswapd_pages_reclaimed", "%llu", (unsigned long long)x->kswapd_reclaimed);
		tsv_real(f, "efficiency", fln[c], "kswapd_efficiency_pct", eff(x->kswapd_reclaimed, x->kswapd_scanned));
		tsv_real(f, "efficiency", fln[c], "kswapd_velocity", velocity(x->kswapd_scanned, a->span_ns));
		tsv_real(f, "efficiency", fln[c], "direct_efficiency_pct", eff(x->direct_reclaimed, x->direct_scanned));
		tsv_real(f, "efficiency", fln[c], "direct_velocity", velocity(x->direct_scanned, a->span_ns));
		tsv_real(f, "efficiency", fln[c], "percentage_direct_scans", direct_share(x));
	}
	for (size_t i = 0; i < a->nr_tasks; i++) {
		const struct an_task *t = &a->tasks[i];
		const char *tab = t->kswapd ? "kswapd" : "process";
		if (t->kswapd) {
			tsv_line(f, tab, t->name, "wakeups", "%llu", (unsigned long long)t->kswapd_wakes);
			TSV_DETAIL(f, a, tab, t->name, "rewakeups", t->kswapd_rewakes);
			tsv_line(f, tab, t->name, "awake_ns", "%llu", (unsigned long long)t->kswapd_awake_ns);
		} else {
			tsv_line(f, tab, t->name, "direct_reclaims", "%llu", (unsigned long long)t->direct);
			tsv_line(f, tab, t->name, "memcg_reclaims", "%llu", (unsigned long long)t->memcg);
			TSV_DETAIL(f, a, tab, t->name, "wakeup_kswapd", t->wakeup_kswapd);
			tsv_line(f, tab, t->name, "stall_ns", "%llu", (unsigned long long)t->stall_ns);
		}
		tsv_line(f, tab, t->name, "pages_scanned", "%llu", (unsigned long long)t->scanned);
		tsv_line(f, tab, t->name, "pages_reclaimed", "%llu", (unsigned long long)t->reclaimed);
		TSV_DETAIL(f, a, tab, t->name, "sync_io", t->write_sync_file + t->write_sync_anon);
		TSV_DETAIL(f, a, tab, t->name, "async_io", t->write_async_file + t->write_async_anon);
	}
	char row[32];
	for (size_t i = 0; i < a->nr_rec; i++) {
		const struct an_reclaim *r = &a->rec[i];
		snprintf(row, sizeof(row), "%zu", i + 1);
		tsv_line(f, "reclaim", row, "start_ns", "%llu", (unsigned long long)r->start_ns);
		tsv_line(f, "reclaim", row, "kind", "%s", an_kind_names[r->kind]);
		tsv_line(f, "reclaim", row, "task", "%u", r->task);
		tsv_line(f, "reclaim", row, "order", "%d", r->order);
		tsv_line(f, "reclaim", row, "priority", "%d", r->priority);
		tsv_line(f, "reclaim", row, "latency_ns", "%llu", (unsigned long long)r->duration_ns);
		tsv_line(f, "reclaim", row, "nr_scanned", "%llu", (unsigned long long)r->nr_scanned);
		tsv_line(f, "reclaim", row, "nr_reclaimed", "%llu", (unsigned long long)r->nr_reclaimed);
		tsv_line(f, "reclaim", row, "complete", "%d", r->complete);
	}
	size_t *idx;
	size_t n = slowest(a, &idx), shown = n < top ? n : top;
	for (size_t i = 0; i < shown; i++) {
		snprintf(row, sizeof(row), "%zu", i + 1);
		tsv_line(f, "slowest", row, "reclaim", "%zu", idx[i] + 1);
		tsv_line(f, "slowest", row, "latency_ns", "%llu", (unsigned long long)a->rec[idx[i]].duration_ns);
		tsv_line(f, "slowest", row, "nr_scanned", "%llu", (unsigned long long)a->rec[idx[i]].nr_scanned);
		tsv_line(f, "slowest", row, "nr_reclaimed", "%llu", (unsigned long long)a->rec[idx[i]].nr_reclaimed);
	}
	struct wm w, all;
	worst_mean(a, idx, shown, &w);
	worst_mean(a, idx, n, &all);
	const struct wm *ws[2] = { &w, &all };
	const char *wn[2] = { "slowest", "all" };
	for (int k = 0; k < 2; k++) {
		tsv_line(f, "worst_mean", wn[k], "n", "%llu", (unsigned long long)ws[k]->n);
		tsv_line(f, "worst_mean", wn[k], "latency_ns_max", "%llu", (unsigned long long)ws[k]->max_lat);
		tsv_line(f, "worst_mean", wn[k], "latency_ns_mean", "%.1f", ws[k]->mean_lat);
		tsv_line(f, "worst_mean", wn[k], "nr_scanned_max", "%llu", (unsigned long long)ws[k]->max_scan);
		tsv_line(f, "worst_mean", wn[k], "nr_scanned_mean", "%.3f", ws[k]->mean_scan);
		tsv_line(f, "worst_mean", wn[k], "nr_reclaimed_max", "%llu", (unsigned long long)ws[k]->max_recl);
		tsv_line(f, "worst_mean", wn[k], "nr_reclaimed_mean", "%.3f", ws[k]->mean_recl);
	}
	free(idx);
}

static void jnum(FILE *f, const struct analysis *a, const char *key, uint64_t v, int detail, int comma)
{
	if (detail && !a->have_detail)
		fprintf(f, "\"%s\": null", key);
	else
		fprintf(f, "\"%s\": %llu", key, (unsigned long long)v);
	if (comma)
		fprintf(f, ", ");
}

static void print_json(FILE *f, const struct analysis *a, unsigned top, const char *input)
{
	struct totals s;
	sum_totals(a, &s);
	fprintf(f, "{\"input\": ");
	cli_json_str(f, input);
	fprintf(f, ", \"source\": ");
	cli_json_str(f, a->source);
	fprintf(f, ", \"simulated\": %s, \"events\": %llu, \"session_ns\": %llu, \"session_from\": ",
		a->simulated ? "true" : "false", (unsigned long long)a->events, (unsigned long long)a->span_ns);
	cli_json_str(f, a->span_from);
	fprintf(f, ",\n \"summary\": {");
	jnum(f, a, "direct_reclaims", s.direct, 0, 1);
	jnum(f, a, "memcg_reclaims", s.memcg, 0, 1);
	jnum(f, a, "direct_pages_scanned", s.d_scanned, 0, 1);
	jnum(f, a, "direct_pages_reclaimed", s.d_reclaimed, 0, 1);
	jnum(f, a, "direct_write_file_sync", s.d_wsf, 1, 1);
	jnum(f, a, "direct_write_anon_sync", s.d_wsa, 1, 1);
	jnum(f, a, "direct_write_file_async", s.d_waf, 1, 1);
	jnum(f, a, "direct_write_anon_async", s.d_waa, 1, 1);
	jnum(f, a, "wakeup_kswapd", s.wakeup, 1, 1);
	jnum(f, a, "stall_ns", s.stall_ns, 0, 1);
	jnum(f, a, "throttled", s.throttled, 1, 1);
	jnum(f, a, "throttled_us", s.throttled_us, 1, 1);
	jnum(f, a, "file_evicted", s.evicted, 1, 1);
	jnum(f, a, "kswapd_wakeups", s.k_wakes, 0, 1);
	jnum(f, a, "kswapd_rewakeups", s.k_rewakes, 1, 1);
	jnum(f, a, "kswapd_pages_scanned", s.k_scanned, 0, 1);
	jnum(f, a, "kswapd_pages_reclaimed", s.k_reclaimed, 0, 1);
	jnum(f, a, "kswapd_write_file_sync", s.k_wsf, 1, 1);
	jnum(f, a, "kswapd_write_anon_sync", s.k_wsa, 1, 1);
	jnum(f, a, "kswapd_write_file_async", s.k_waf, 1, 1);
	jnum(f, a, "kswapd_write_anon_async", s.k_waa, 1, 1);
	jnum(f, a, "kswapd_awake_ns", s.awake_ns, 0, 0);
	fprintf(f, "},\n \"efficiency\": {");
	const struct an_flow *fl[2] = { &a->trace, &a->vmstat };
	const char *fln[2] = { a->simulated ? "records" : "events", "vmstat" };
	int first = 1;
	for (int c = 0; c < 2; c++) {
		const struct an_flow *x = fl[c];
		if (!x->have)
			continue;
		fprintf(f, "%s\"%s\": {\"direct_pages_scanned\": %llu, \"direct_pages_reclaimed\": %llu, "
			"\"kswapd_pages_scanned\": %llu, \"kswapd_pages_reclaimed\": %llu, ", first ? "" : ", ", fln[c],
			(unsigned long long)x->direct_scanned, (unsigned long long)x->direct_reclaimed,
			(unsigned long long)x->kswapd_scanned, (unsigned long long)x->kswapd_reclaimed);
		jreal(f, "kswapd_efficiency_pct", eff(x->kswapd_reclaimed, x->kswapd_scanned), ", ");
		jreal(f, "kswapd_velocity", velocity(x->kswapd_scanned, a->span_ns), ", ");
		jreal(f, "direct_efficiency_pct", eff(x->direct_reclaimed, x->direct_scanned), ", ");
		jreal(f, "direct_velocity", velocity(x->direct_scanned, a->span_ns), ", ");
		jreal(f, "percentage_direct_scans", direct_share(x), "}");
		first = 0;
	}
	fprintf(f, "},\n \"processes\": [");
	first = 1;
	for (size_t i = 0; i < a->nr_tasks; i++) {
		const struct an_task *t = &a->tasks[i];
		if (t->kswapd)
			continue;
		fprintf(f, "%s{\"name\": ", first ? "" : ", ");
		cli_json_str(f, t->name);
		fprintf(f, ", \"tid\": %u, \"pid\": %u, ", t->tid, t->pid);
		jnum(f, a, "direct_reclaims", t->direct, 0, 1);
		jnum(f, a, "memcg_reclaims", t->memcg, 0, 1);
		jnum(f, a, "wakeup_kswapd", t->wakeup_kswapd, 1, 1);
		jnum(f, a, "pages_scanned", t->scanned, 0, 1);
		jnum(f, a, "pages_reclaimed", t->reclaimed, 0, 1);
		jnum(f, a, "sync_io", t->write_sync_file + t->write_sync_anon, 1, 1);
		jnum(f, a, "async_io", t->write_async_file + t->write_async_anon, 1, 1);
		jnum(f, a, "stall_ns", t->stall_ns, 0, 0);
		fprintf(f, "}");
		first = 0;
	}
	fprintf(f, "],\n \"kswapd\": [");
	first = 1;
	for (size_t i = 0; i < a->nr_tasks; i++) {
		const struct an_task *t = &a->tasks[i];
		if (!t->kswapd)
			continue;
		fprintf(f, "%s{\"name\": ", first ? "" : ", ");
		cli_json_str(f, t->name);
		fprintf(f, ", ");
		jnum(f, a, "wakeups", t->kswapd_wakes, 0, 1);
		jnum(f, a, "rewakeups", t->kswapd_rewakes, 1, 1);
		jnum(f, a, "pages_scanned", t->scanned, 0, 1);
		jnum(f, a, "pages_reclaimed", t->reclaimed, 0, 1);
		jnum(f, a, "sync_io", t->write_sync_file + t->write_sync_anon, 1, 1);
		jnum(f, a, "async_io", t->write_async_file + t->write_async_anon, 1, 1);
		jnum(f, a, "awake_ns", t->kswapd_awake_ns, 0, 0);
		fprintf(f, "}");
		first = 0;
	}
	size_t *idx;
	size_t n = slowest(a, &idx), shown = n < top ? n : top;
	fprintf(f, "],\n \"slowest\": [");
	for (size_t i = 0; i < shown; i++) {
		const struct an_reclaim *r = &a->rec[idx[i]];
		fprintf(f, "%s{\"start_ns\": %llu, \"kind\": \"%s\", \"task\": %u, \"order\": %d, \"priority\": %d, "
			"\"latency_ns\": %llu, \"nr_scanned\": %llu, \"nr_reclaimed\": %llu}", i ? ", " : "",
			(unsigned long long)r->start_ns, an_kind_names[r->kind], r->task, r->order, r->priority,
			(unsigned long long)r->duration_ns, (unsigned long long)r->nr_scanned,
			(unsigned long long)r->nr_reclaimed);
	}
	struct wm w, all;
	worst_mean(a, idx, shown, &w);
	worst_mean(a, idx, n, &all);
	const struct wm *ws[2] = { &w, &all };
	const char *wn[2] = { "slowest", "all" };
	fprintf(f, "],\n \"worst_mean\": {");
	for (int k = 0; k < 2; k++)
		fprintf(f, "%s\"%s\": {\"n\": %llu, \"latency_ns_max\": %llu, \"latency_ns_mean\": %.1f, "
			"\"nr_scanned_max\": %llu, \"nr_scanned_mean\": %.3f, \"nr_reclaimed_max\": %llu, "
			"\"nr_reclaimed_mean\": %.3f}", k ? ", " : "", wn[k], (unsigned long long)ws[k]->n,
			(unsigned long long)ws[k]->max_lat, ws[k]->mean_lat, (unsigned long long)ws[k]->max_scan,
			ws[k]->mean_scan, (unsigned long long)ws[k]->max_recl, ws[k]->mean_recl);
	free(idx);
	fprintf(f, "},\n \"reclaims\": [");
	for (size_t i = 0; i < a->nr_rec; i++) {
		const struct an_reclaim *r = &a->rec[i];
		fprintf(f, "%s\n  {\"start_ns\": %llu, \"kind\": \"%s\", \"task\": %u, \"order\": %d, "
			"\"priority\": %d, \"latency_ns\": %llu, \"nr_scanned\": %llu, \"nr_reclaimed\": %llu, "
			"\"complete\": %s}", i ? "," : "", (unsigned long long)r->start_ns, an_kind_names[r->kind],
			r->task, r->order, r->priority, (unsigned long long)r->duration_ns,
			(unsigned long long)r->nr_scanned, (unsigned long long)r->nr_reclaimed,
			r->complete ? "true" : "false");
	}
	fprintf(f, "]}\n");
}

void analysis_print(FILE *f, const struct analysis *a, enum an_fmt fmt, unsigned top, const char *input)
{
	switch (fmt) {
	case AN_TEXT: print_text(f, a, top, input); break;
	case AN_TSV: print_tsv(f, a, top); break;
	case AN_JSON: print_json(f, a, top, input); break;
	}
}
