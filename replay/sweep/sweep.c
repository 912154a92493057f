/* sweep.c — expand a sweep into runs, name them, keep the plan (sweep.h). */
#include "sweep.h"
#include "input.h"
#include "atomic.h"
#include "cli.h"
#include "result.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

static int add_run(struct sweep_plan *plan, const struct sweep_run *r, char *err, size_t errlen)
{
	if (plan->nr_runs >= SWEEP_MAX_RUNS) {
		snprintf(err, errlen, "the sweep expands to more than %d runs", SWEEP_MAX_RUNS);
		return -1;
	}
	/* Doubling keeps the expansion linear. */
	if ((plan->nr_runs & (plan->nr_runs - 1)) == 0) {
		size_t cap = plan->nr_runs ? 2 * plan->nr_runs : 16;
		struct sweep_run *g = realloc(plan->runs, cap * sizeof(*g));
		if (!g) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		plan->runs = g;
	}
	plan->runs[plan->nr_runs++] = *r;
	return 0;
}

/*
 * The ID hashes a canonical text of the run, not a struct, so it does not
 * depend on padding, endianness or field order.  The trace enters by its
 * content hash: renaming or moving a trace keeps its results.
 */
static void run_id(const struct sweep_plan *plan, struct sweep_run *r)
{
	char canon[512];
	int n = snprintf(canon, sizeof(canon), "vmreplay-run/1 %s %s %s %d %" PRIu64 " %" PRIu64
			 " %s %" PRId64 " %d %d", VMREPLAY_VERSION, plan->traces[r->trace].hash,
			 r->policy, r->swappiness, r->memory_limit, r->node_memory,
			 r->swap[0] ? r->swap : "-", r->seed, r->events, r->timeline);
	snprintf(r->id, sizeof(r->id), "%016" PRIx64, (uint64_t)XXH3_64bits(canon, n));
}

/* The bytes a sweep size stands for on trace TI: percentages of its
 * pages round up, as a share of pages must not become zero pages; fixed
 * sizes round down to whole pages, as memory.max does.  0: none, or a
 * size of no page at all. */
static uint64_t size_bytes(const struct sweep_size *z, const struct sweep_trace_info *ti)
{
	uint64_t ps = ti->page_size ? ti->page_size : 4096;
	if (z->is_none)
		return 0;
	if (z->is_captured)
		return ti->captured_limit / ps * ps;
	uint64_t pages = z->is_pct ? (uint64_t)(ti->pages * z->pct / 100.0 + 0.999999) : z->bytes / ps;
	return pages * ps;
}

static int expand_policy(const struct sweep_spec *s, const struct policy_desc *pd,
			 const int *swappiness, size_t nr_swappiness,
			 struct sweep_plan *plan, struct sweep_run base, char *err, size_t errlen)
{
	snprintf(base.policy, sizeof(base.policy), "%s", pd->name);
	base.kernel = pd->takes_swappiness;
	const struct sweep_trace_info *ti = &plan->traces[base.trace];
	if (!base.kernel && base.memory_limit == 0) {
		snprintf(err, errlen, "%s: memory-limit none: policy %s replays a memory of a given "
			 "size (give it a size or a percentage; captured is none for %s, a capture "
			 "without a limit)", s->file, pd->name, ti->name);
		return -1;
	}
	/* A reference policy (lru) has a size and nothing else to vary. */
	size_t nn = base.kernel && s->nr_node_memory ? s->nr_node_memory : 1;
	size_t nw = base.kernel && s->nr_swap ? s->nr_swap : 1;
	size_t ns = base.kernel ? nr_swappiness : 1;
	size_t nd = pd->stochastic ? s->nr_seeds : 1;

	for (size_t in = 0; in < nn; in++)
		for (size_t iw = 0; iw < nw; iw++)
			for (size_t is = 0; is < ns; is++)
				for (size_t id = 0; id < nd; id++) {
					struct sweep_run r = base;
					r.node_memory = base.kernel && s->nr_node_memory
						? size_bytes(&s->node_memory[in], ti) : 0;
					if (base.kernel && s->nr_node_memory && !r.node_memory) {
						snprintf(err, errlen, "%s: node-memory: %g%% of %s's %" PRIu64
							 " pages is no page at all", s->file,
							 s->node_memory[in].pct, ti->name, ti->pages);
						return -1;
					}
					if (base.kernel && s->nr_swap)
						snprintf(r.swap, sizeof(r.swap), "%s", s->swap[iw]);
					r.swappiness = base.kernel ? swappiness[is] : -1;
					r.seed = pd->stochastic ? (int64_t)s->seeds[id] : -1;
					/* Per-event outputs are large: a sweep may keep
					 * them for one seed of each condition only. */
					r.events = base.kernel && (s->events == SWEEP_RECORD_ALL ||
								   (s->events && id == 0));
					r.timeline = base.kernel && (s->timeline == SWEEP_RECORD_ALL ||
								     (s->timeline && id == 0));
					run_id(plan, &r);
					if (add_run(plan, &r, err, errlen) != 0)
						return -1;
				}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static const char *set_of(const struct sweep_trace_info *t)
{
	return t->set[0] ? t->set : t->name;
}

/* The swappiness values of trace T: the sweep file's, or the default
 * ones and every value a capture of T's set was captured at (the
 * replay comparable with the kernel's own counters), in order.  BUF has
 * room for the spec's values and one per trace. */
static size_t trace_swappiness(const struct sweep_spec *s, const struct sweep_trace_info *info,
			       size_t nr, size_t t, int *buf)
{
	size_t n = s->nr_swappiness;
	memcpy(buf, s->swappiness, n * sizeof(*buf));
	if (!s->default_swappiness)
		return n;
	for (size_t i = 0; i < nr; i++) {
		if (!info[i].has_swappiness || strcmp(set_of(&info[i]), set_of(&info[t])))
			continue;
		size_t k;
		for (k = 0; k < n && buf[k] != info[i].swappiness; k++)
			;
		if (k == n)
			buf[n++] = info[i].swappiness;
	}
	qsort(buf, n, sizeof(*buf), cmp_int);
	return n;
}

static int cmp_run_id(const void *a, const void *b)
{
	return strcmp((*(const struct sweep_run *const *)a)->id, (*(const struct sweep_run *const *)b)->id);
}

int sweep_expand(const struct sweep_spec *s, const struct policy_list *policies,
		 const struct sweep_trace_info *info, struct sweep_plan *plan,
		 char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	for (size_t i = 0; i < s->nr_policies; i++)
		if (!policy_list_find(policies, s->policies[i])) {
			char known[1024] = "";
			for (size_t j = 0; j < policies->n; j++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
					 j ? ", " : "", policies->p[j].name);
			snprintf(err, errlen, "%s:%d: policy: unknown policy '%s' (this vmreplay has: %s)",
				 s->file, s->policy_lines[i], s->policies[i], known);
			return -1;
		}
	plan->traces = calloc(s->nr_traces, sizeof(*plan->traces));
	if (!plan->traces) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	plan->nr_traces = s->nr_traces;
	memcpy(plan->traces, info, s->nr_traces * sizeof(*info));
	int *swappiness = malloc((s->nr_swappiness + s->nr_traces + 1) * sizeof(*swappiness));
	if (!swappiness) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (size_t t = 0; t < s->nr_traces; t++) {
		const struct sweep_trace_info *ti = &info[t];
		size_t ns = trace_swappiness(s, info, s->nr_traces, t, swappiness);
		for (size_t m = 0; m < s->nr_memory; m++) {
			const struct sweep_size *z = &s->memory[m];
			uint64_t bytes = size_bytes(z, ti);
			if (bytes == 0 && !z->is_none && !z->is_captured) {
				snprintf(err, errlen, "%s: memory-limit: %g%% of %s's %" PRIu64
					 " pages is no page at all", s->file, z->pct, ti->name, ti->pages);
				goto fail;
			}
			struct sweep_run base = { .trace = t, .memory_limit = bytes };
			size_t np = s->nr_policies ? s->nr_policies : policies->n;
			for (size_t p = 0; p < np; p++) {
				const struct policy_desc *pd = s->nr_policies
					? policy_list_find(policies, s->policies[p]) : &policies->p[p];
				if (expand_policy(s, pd, swappiness, ns, plan, base, err, errlen) != 0)
					goto fail;
			}
		}
	}
	free(swappiness);
	swappiness = NULL;
	/* The same run twice (two percentages that round to one size) would
	 * be one result counted twice in the statistics. */
	const struct sweep_run **sorted = malloc((plan->nr_runs + 1) * sizeof(*sorted));
	if (!sorted) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < plan->nr_runs; i++)
		sorted[i] = &plan->runs[i];
	qsort(sorted, plan->nr_runs, sizeof(*sorted), cmp_run_id);
	for (size_t i = 1; i < plan->nr_runs; i++)
		if (strcmp(sorted[i - 1]->id, sorted[i]->id) == 0) {
			snprintf(err, errlen, "%s: memory-limit: two limits give %s the same "
				 "size, %" PRIu64 " bytes", s->file,
				 plan->traces[sorted[i]->trace].name, sorted[i]->memory_limit);
			free(sorted);
			goto fail;
		}
	free(sorted);
	return 0;
fail:
	free(swappiness);
	sweep_plan_free(plan);
	return -1;
}

void sweep_plan_free(struct sweep_plan *plan)
{
	free(plan->traces);
	free(plan->runs);
	memset(plan, 0, sizeof(*plan));
}

void sweep_vmr_path(const struct sweep_plan *plan, size_t trace, char *buf, size_t len)
{
	snprintf(buf, len, "traces/%s.vmr", plan->traces[trace].name);
}

void sweep_path(const char *sub, const struct sweep_run *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.tsv", sub, r->id);
}

/* ---- plan.tsv ----------------------------------------------------------- */

/* The plan before trace sets had no set column: such a plan is read as
 * one whose every trace is its own set. */
#define PLAN_HEADER_1 "id\ttrace\ttrace_hash\tpages\tpage_size\tpolicy\tkernel\tswappiness\t" \
	"memory_limit\tnode_memory\tswap\tseed\tevents\ttimeline"
static const char plan_header[] = PLAN_HEADER_1 "\tset\n";
static const char plan_header_1[] = PLAN_HEADER_1 "\n";

static void dash_or_u64(FILE *f, int have, uint64_t v)
{
	if (have)
		fprintf(f, "\t%" PRIu64, v);
	else
		fputs("\t-", f);
}

int sweep_plan_write(const char *dir, const struct sweep_plan *plan, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/plan.tsv", dir);
	struct atomic_file af;
	if (atomic_open(&af, path, err, errlen) != 0)
		return -1;
	fputs(plan_header, af.fp);
	for (size_t i = 0; i < plan->nr_runs; i++) {
		const struct sweep_run *r = &plan->runs[i];
		const struct sweep_trace_info *t = &plan->traces[r->trace];
		fprintf(af.fp, "%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%s\t%d", r->id, t->name, t->hash,
			t->pages, t->page_size, r->policy, r->kernel);
		dash_or_u64(af.fp, r->swappiness >= 0, (uint64_t)r->swappiness);
		fprintf(af.fp, "\t%" PRIu64, r->memory_limit);
		dash_or_u64(af.fp, r->node_memory != 0, r->node_memory);
		fprintf(af.fp, "\t%s", r->swap[0] ? r->swap : "-");
		dash_or_u64(af.fp, r->seed >= 0, (uint64_t)r->seed);
		fprintf(af.fp, "\t%d\t%d\t%s\n", r->events, r->timeline, set_of(t));
	}
	return atomic_commit(&af, err, errlen);
}

static int field_u64(const char *s, uint64_t *v, int dash_ok, int *is_dash)
{
	if (dash_ok && strcmp(s, "-") == 0) {
		*is_dash = 1;
		*v = 0;
		return 0;
	}
	*is_dash = 0;
	return cli_parse_u64(s, 0, UINT64_MAX, v);
}

int sweep_plan_read(const char *dir, struct sweep_plan *plan, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	char path[4096];
	snprintf(path, sizeof(path), "%s/plan.tsv", dir);
	FILE *f = input_open(path, err, errlen);   /* a FIFO or device: refused, never waited on */
	if (!f) {
		if (errno == ENOENT)
			snprintf(err, errlen, "%s: %s (not a sweep directory? run vmreplay sweep first)",
				 path, strerror(ENOENT));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, rc = 0, nr_fields = 15;
	while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[n - 1] != '\n') {
			snprintf(err, errlen, "%s: line %d: truncated", path, lineno);
			rc = -1;
			break;
		}
		if (lineno == 1) {
			if (strcmp(line, plan_header_1) == 0) {
				nr_fields = 14;
			} else if (strcmp(line, plan_header) != 0) {
				snprintf(err, errlen, "%s: line 1: not a plan header", path);
				rc = -1;
			}
			continue;
		}
		line[n - 1] = 0;
		char *fld[16];
		int nf = 0;
		for (char *s = line, *tab; s && nf < 16; s = tab) {
			tab = strchr(s, '\t');
			if (tab)
				*tab++ = 0;
			fld[nf++] = s;
		}
		struct sweep_run r = { 0 };
		struct sweep_trace_info ti = { 0 };
		uint64_t v;
		int dash, bad = nf != nr_fields || strlen(fld[0]) != 16 || strlen(fld[1]) >= sizeof(ti.name) ||
			(nf == 15 && (strlen(fld[14]) >= sizeof(ti.set) || !fld[14][0])) ||
			strlen(fld[2]) != 32 || strlen(fld[5]) >= sizeof(r.policy) ||
			strlen(fld[10]) >= sizeof(r.swap);
		if (!bad) {
			strcpy(r.id, fld[0]);
			strcpy(ti.name, fld[1]);
			strcpy(ti.hash, fld[2]);
			strcpy(ti.set, nf == 15 ? fld[14] : fld[1]);
			strcpy(r.policy, fld[5]);
			if (strcmp(fld[10], "-") != 0)
				strcpy(r.swap, fld[10]);
			bad |= field_u64(fld[3], &ti.pages, 0, &dash) | field_u64(fld[4], &ti.page_size, 0, &dash);
			bad |= field_u64(fld[6], &v, 0, &dash);
			r.kernel = v != 0;
			bad |= field_u64(fld[7], &v, 1, &dash);
			r.swappiness = dash ? -1 : (int)v;
			bad |= field_u64(fld[8], &r.memory_limit, 0, &dash);
			bad |= field_u64(fld[9], &r.node_memory, 1, &dash);
			bad |= field_u64(fld[11], &v, 1, &dash);
			r.seed = dash ? -1 : (int64_t)v;
			bad |= field_u64(fld[12], &v, 0, &dash);
			r.events = v != 0;
			bad |= field_u64(fld[13], &v, 0, &dash);
			r.timeline = v != 0;
		}
		if (bad) {
			snprintf(err, errlen, "%s: line %d: not a plan line", path, lineno);
			rc = -1;
			break;
		}
		size_t t;
		for (t = 0; t < plan->nr_traces; t++)
			if (strcmp(plan->traces[t].name, ti.name) == 0)
				break;
		if (t == plan->nr_traces) {
			struct sweep_trace_info *g = realloc(plan->traces, (t + 1) * sizeof(*g));
			if (!g) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
				break;
			}
			plan->traces = g;
			plan->traces[plan->nr_traces++] = ti;
		}
		r.trace = t;
		rc = add_run(plan, &r, err, errlen);
	}
	free(line);
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -1;
	}
	if (rc == 0 && lineno == 0) {
		snprintf(err, errlen, "%s: empty", path);
		rc = -1;
	}
	fclose(f);
	if (rc)
		sweep_plan_free(plan);
	return rc;
}

/* ---- running ------------------------------------------------------------ */

void sweep_run_argv(const struct sweep_plan *plan, const struct sweep_run *r, const char *exe,
		    const char *out, char **argv, char *buf, size_t buflen)
{
	size_t used = 0;
	int n = 0;
	/* Each argument is copied into BUF so the caller can free nothing and
	 * fork-then-exec needs no allocation in the child. */
#define ARG(...) do { \
		int w_ = snprintf(buf + used, buflen - used, __VA_ARGS__); \
		argv[n++] = buf + used; \
		used += (size_t)w_ + 1 < buflen - used ? (size_t)w_ + 1 : buflen - used; \
	} while (0)
	ARG("%s", exe);
	ARG("run");
	ARG("-q");
	ARG("--policy");
	ARG("%s", r->policy);
	if (!r->kernel) {
		/* The reference policy's only parameter is its size. */
		ARG("--memory");
		ARG("%" PRIu64, r->memory_limit);
	} else {
		ARG("--memory-limit");
		ARG("%" PRIu64, r->memory_limit);
		ARG("--swappiness");
		ARG("%d", r->swappiness);
		if (r->node_memory) {
			ARG("--node-memory");
			ARG("%" PRIu64, r->node_memory);
		}
		if (r->swap[0]) {
			ARG("--swap");
			ARG("%s", r->swap);
		}
		if (r->events) {
			ARG("--events");
			ARG("events/%s.tsv", r->id);
		}
		if (r->timeline) {
			ARG("--timeline");
			ARG("timeline/%s.tsv", r->id);
		}
	}
	if (r->seed >= 0) {
		ARG("--seed");
		ARG("%" PRId64, r->seed);
	}
	ARG("-f");
	ARG("tsv");
	ARG("-o");
	ARG("%s", out);
	char vmr[128];
	sweep_vmr_path(plan, r->trace, vmr, sizeof(vmr));
	ARG("%s", vmr);
#undef ARG
	argv[n] = NULL;
}

static int id_is(const char *got, int have, uint64_t want)
{
	if (!have)
		return 1;       /* the run chose its own default */
	char s[32];
	snprintf(s, sizeof(s), "%" PRIu64, want);
	return strcmp(got, s) == 0;
}

int sweep_result_check(const char *path, const struct sweep_plan *plan,
		       const struct sweep_run *r, char *err, size_t errlen)
{
	struct result res;
	if (result_read(path, &res, err, errlen) != 0)
		return -1;
	char vmr[128];
	sweep_vmr_path(plan, r->trace, vmr, sizeof(vmr));
	const char *bad = NULL;
	if (strcmp(res.id[RES_TRACE], vmr) != 0)
		bad = "trace";
	else if (strcmp(res.id[RES_TRACE_HASH], plan->traces[r->trace].hash) != 0)
		bad = "trace_hash";
	else if (strcmp(res.id[RES_POLICY], r->policy) != 0)
		bad = "policy";
	else if (r->swappiness >= 0 ? !id_is(res.id[RES_SWAPPINESS], 1, (uint64_t)r->swappiness)
				    : strcmp(res.id[RES_SWAPPINESS], "-") != 0)
		bad = "swappiness";
	else if (r->memory_limit ? !id_is(res.id[RES_MEMORY_LIMIT], 1, r->memory_limit)
				 : strcmp(res.id[RES_MEMORY_LIMIT], "-") != 0)
		bad = "memory_limit";     /* no limit: the run says "-" */
	else if (!id_is(res.id[RES_NODE_MEMORY], r->node_memory != 0, r->node_memory))
		bad = "node_memory";
	else if (r->swap[0] && strcmp(res.id[RES_SWAP], r->swap) != 0)
		bad = "swap";
	else if (r->seed >= 0 ? !id_is(res.id[RES_SEED], 1, (uint64_t)r->seed)
			      : strcmp(res.id[RES_SEED], "-") != 0)
		bad = "seed";
	if (bad)
		snprintf(err, errlen, "%s: line 2: %s: does not match run %s of the plan",
			 path, bad, r->id);
	result_free(&res);
	return bad ? -1 : 0;
}

int sweep_missing(const char *dir, const struct sweep_plan *plan, size_t **todo, size_t *n,
		  size_t *invalid, int verbose)
{
	*todo = malloc((plan->nr_runs + 1) * sizeof(**todo));
	*n = 0;
	*invalid = 0;
	if (!*todo)
		return -1;
	for (size_t i = 0; i < plan->nr_runs; i++) {
		char rel[64], path[4200], err[1024];
		sweep_path("results", &plan->runs[i], rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		if (access(path, F_OK) != 0) {
			(*todo)[(*n)++] = i;
			continue;
		}
		if (sweep_result_check(path, plan, &plan->runs[i], err, sizeof(err)) != 0) {
			/* Only a file damaged outside vmreplay can get here:
			 * say so, set it aside, and run it again. */
			if (verbose)
				fprintf(stderr, "vmreplay sweep: %s; running it again\n", err);
			char aside[4300];
			snprintf(aside, sizeof(aside), "%s.invalid", path);
			rename(path, aside);
			(*invalid)++;
			(*todo)[(*n)++] = i;
		}
	}
	return 0;
}

int sweep_mkdirs(const char *dir, char *err, size_t errlen)
{
	static const char *const subs[] = { "", "traces", "results", "events", "timeline",
					    "staging", "logs", "slurm" };
	char path[4200];
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, subs[i]);
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}
