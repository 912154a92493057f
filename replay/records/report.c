/* report.c — results of a kernel-policy replay (see report.h). */
#include "report.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct metric {
	const char *name;
	double value;
	int integer;
};

#define MAX_METRICS REPORT_MAX_METRICS

/* Collects every metric of the run, in a fixed order. */
static int collect(const struct engine *e, struct metric *m)
{
	int n = 0;
#define PUT(nm, val, isint) (m[n++] = (struct metric){ (nm), (double)(val), (isint) })
	for (int i = 0; i < NR_VM_ITEMS; i++)
		PUT(vmstat_text[i], e->vm[i], 1);

	uint64_t accesses = 0, stall = 0, killed = 0;
	for (uint32_t t = 0; t < e->nr_tasks; t++) {
		accesses += e->tasks[t].accesses;
		stall += e->tasks[t].stall_ns;
		killed += e->tasks[t].killed;
	}
	PUT("accesses", accesses, 1);
	PUT("work_done", e->work_done, 1);
	PUT("deadline_ns", e->deadline, 1);
	PUT("makespan_ns", e->end_time, 1);
	PUT("stall_ns", stall, 1);
	PUT("tasks_killed", killed, 1);

	/* The over-reclaim review's measure: what get_scan_count asked for
	 * against what shrink_lruvec actually scanned, as the anon share. */
	uint64_t ta = e->records.sum.target_anon, tf = e->records.sum.target_file;
	uint64_t sa = e->records.sum.scanned_anon, sf = e->records.sum.scanned_file;
	PUT("scan_target_anon_share", ta + tf ? (double)ta / (ta + tf) : 0.0, 0);
	PUT("scan_achieved_anon_share", sa + sf ? (double)sa / (sa + sf) : 0.0, 0);

	/* The RFC's own measure: the 20 slowest direct reclaims. */
	uint64_t k = e->records.sum.nr_slowest, smax = 0, rmax = 0, ssum = 0, rsum = 0, lsum = 0;
	for (uint64_t i = 0; i < k; i++) {
		const struct reclaim_record *d = &e->records.sum.slowest[i];
		smax = d->nr_scanned > smax ? d->nr_scanned : smax;
		rmax = d->nr_reclaimed > rmax ? d->nr_reclaimed : rmax;
		ssum += d->nr_scanned;
		rsum += d->nr_reclaimed;
		lsum += d->duration;
	}
	PUT("direct_reclaims", e->records.sum.direct, 1);
	PUT("slow20_scanned_max", smax, 1);
	PUT("slow20_scanned_mean", k ? (double)ssum / k : 0.0, 0);
	PUT("slow20_reclaimed_max", rmax, 1);
	PUT("slow20_reclaimed_mean", k ? (double)rsum / k : 0.0, 0);
	PUT("slow20_latency_mean_ns", k ? (double)lsum / k : 0.0, 0);
#undef PUT
	return n;
}

int report_metrics(const struct engine *e, const char **names, double *values, int max)
{
	struct metric m[MAX_METRICS];
	int n = collect(e, m);
	for (int i = 0; i < n && i < max; i++) {
		names[i] = m[i].name;
		values[i] = m[i].value;
	}
	return n < max ? n : max;
}

/* A metric the run could not define (a ratio of nothing): "-", or null
 * in JSON, never "nan". */
static void put_value(FILE *f, const struct metric *m, int json)
{
	if (!isfinite(m->value))
		fputs(json ? "null" : "-", f);
	else if (m->integer)
		fprintf(f, "%.0f", m->value);
	else
		fprintf(f, "%.9g", m->value);
}

void report_write(FILE *f, enum report_format fmt, const struct engine *e,
		  const struct report_identity *id)
{
	struct metric m[MAX_METRICS];
	int n = collect(e, m);
	char hex[33], limit[32], sw[16], seed[32], node[32];
	vmr_hash_hex(e->v->hdr->trace_hash, hex);
	snprintf(limit, sizeof(limit), "%llu", (unsigned long long)id->memory_limit);
	snprintf(sw, sizeof(sw), "%d", id->swappiness);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)id->seed);
	snprintf(node, sizeof(node), "%llu", (unsigned long long)id->node_memory);

	switch (fmt) {
	case REPORT_TSV:
		fprintf(f, "trace\ttrace_hash\tpolicy\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tversion");
		for (int i = 0; i < n; i++)
			fprintf(f, "\t%s", m[i].name);
		fprintf(f, "\n%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", id->trace, hex, id->policy, sw,
			id->memory_limit ? limit : "-", node, id->swap, seed, VMREPLAY_VERSION);
		for (int i = 0; i < n; i++) {
			fputc('\t', f);
			put_value(f, &m[i], 0);
		}
		fputc('\n', f);
		break;
	case REPORT_JSON:
		fprintf(f, "{\"meta\": {\"trace\": ");
		cli_json_str(f, id->trace);
		fprintf(f, ", \"trace_hash\": \"%s\", \"policy\": \"%s\", \"swappiness\": %s, "
			"\"memory_limit\": %s, \"node_memory\": %s, \"swap\": \"%s\", \"seed\": %s, "
			"\"version\": \"%s\"}, \"metrics\": {", hex, id->policy, sw,
			id->memory_limit ? limit : "null", node, id->swap, seed, VMREPLAY_VERSION);
		for (int i = 0; i < n; i++) {
			fprintf(f, "%s\"%s\": ", i ? ", " : "", m[i].name);
			put_value(f, &m[i], 1);
		}
		fprintf(f, "}}\n");
		break;
	case REPORT_TEXT:
		fprintf(f, "trace        %s (%s)\n", id->trace, hex);
		fprintf(f, "policy       %s, swappiness %d, seed %llu\n", id->policy, id->swappiness,
			(unsigned long long)id->seed);
		/* one unit for every size of the text report */
		if (id->memory_limit)
			fprintf(f, "memory       node %.1f MiB, memcg limit %.1f MiB, swap %s\n",
				id->node_memory / 1048576.0, id->memory_limit / 1048576.0, id->swap);
		else
			fprintf(f, "memory       node %.1f MiB, memcg limit none, swap %s\n",
				id->node_memory / 1048576.0, id->swap);
		for (int i = 0; i < n; i++) {
			fprintf(f, "  %-30s ", m[i].name);
			put_value(f, &m[i], 0);
			fputc('\n', f);
		}
		break;
	}
}

static const char *const kind_name[] = { "direct", "kswapd", "memcg" };

void report_events(FILE *f, const struct engine *e)
{
	fprintf(f, "start_ns\tduration_ns\tkind\ttask\tpriority\tnr_scanned\tnr_reclaimed\t"
		"scanned_anon\tscanned_file\ttarget_anon\ttarget_file\tcomm\n");
	for (uint64_t i = 0; i < e->records.nr; i++) {
		const struct reclaim_record *r = &e->records.all[i];
		/* The task by thread id and name, as the kernel's reports name
		 * it (comm-pid); kswapd is node 0's kernel thread, kswapd0. */
		char task[16] = "-", comm[17] = "kswapd0";
		if (r->task != UINT32_MAX) {
			const struct vmr_task *vt = &e->v->tasks[r->task];
			snprintf(task, sizeof(task), "%u", vt->tid);
			snprintf(comm, sizeof(comm), "%.16s", vt->comm[0] ? vt->comm : "-");
			for (char *p = comm; *p; p++)
				if (*p == '\t' || *p == '\n')
					*p = ' ';
		}
		fprintf(f, "%llu\t%llu\t%s\t%s\t%d\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\n",
			(unsigned long long)r->start, (unsigned long long)r->duration,
			kind_name[r->kind], task, r->priority, (unsigned long long)r->nr_scanned,
			(unsigned long long)r->nr_reclaimed, (unsigned long long)r->scanned_anon,
			(unsigned long long)r->scanned_file, (unsigned long long)r->target_anon,
			(unsigned long long)r->target_file, comm);
	}
}

void report_tasks(FILE *f, const struct engine *e)
{
	fprintf(f, "pid\ttid\tcomm\tcompletion_ns\taccesses\tstall_ns\tkilled\n");
	for (uint32_t t = 0; t < e->nr_tasks; t++) {
		const struct vmr_task *vt = &e->v->tasks[t];
		const struct task_state *ts = &e->tasks[t];
		char comm[17];
		snprintf(comm, sizeof(comm), "%.16s", vt->comm[0] ? vt->comm : "-");
		for (char *p = comm; *p; p++)
			if (*p == '\t' || *p == '\n')
				*p = ' ';
		fprintf(f, "%u\t%u\t%s\t%llu\t%llu\t%llu\t%d\n", vt->pid, vt->tid, comm,
			(unsigned long long)ts->done, (unsigned long long)ts->accesses,
			(unsigned long long)ts->stall_ns, ts->killed);
	}
}
