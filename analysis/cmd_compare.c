/*
 * cmd_compare.c — `vmreplay compare`: what the kernel did in a captured
 * session against what a replay of it does.
 *
 * The kernel's side is the trace's ground truth: counters (from the
 * kernel's reclaim events of the workload, the cgroup's memory.stat, or
 * /proc/vmstat — whichever is the most specific the trace has, per
 * counter) and the reclaims themselves (analyze.h).  The replay's side is
 * `vmreplay run --policy P` on the same trace, run in this process
 * (run_main with a hook): its counters as report.c names them (the
 * /proc/vmstat names, analysis/RESULTS.md) and its reclaim records, taken
 * from the engine, not from files.  Any kernel policy can be compared
 * (lru has no reclaim); options after `--` are run's, parsed by run.
 */
#include "analyze.h"
#include "atomic.h"
#include "cli.h"
#include "ingest/ingest.h"
#include "kcounter.h"
#include "mm/policy.h"
#include "records/records.h"
#include "records/report.h"
#include "result.h"
#include "run.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_compare(int argc, char **argv);

static const char usage[] =
	"usage: vmreplay compare --policy NAME [options] TRACE [-- RUN-OPTIONS...]\n"
	"\n"
	"Replays TRACE (a captured session: a trace directory or its .vmr) as\n"
	"`vmreplay run --policy NAME` would, in this process, and prints, per\n"
	"counter, what the kernel did against what the simulation did with the\n"
	"relative error (simulation - kernel) / kernel, then the distributions\n"
	"of reclaim latency, pages scanned and pages reclaimed per reclaim,\n"
	"side by side.\n"
	"\n"
	"  -p, --policy NAME     the kernel policy to replay (vmreplay run --list-policies)\n"
	"  -s, --swappiness N    the replay's swappiness (default: the capture's)\n"
	"  -f, --format FMT      text (default), tsv or json\n"
	"  -o, --out FILE        write there (whole or not at all) instead of stdout\n"
	"  -q, --quiet           no progress line\n"
	"  -h, --help            this help\n"
	"\n"
	"RUN-OPTIONS after -- are passed to `vmreplay run` (e.g. --swap ssd).\n"
	"Without --swap there, the replay swaps to a device like the capture's:\n"
	"zram for zram, ssd for a swap file or device, of the capture's size,\n"
	"with the latencies the capture measured (as run does).\n"
	"The kernel's value of each counter comes from the workload's own\n"
	"reclaim events where they define it (pgscan/pgsteal by type), else from\n"
	"the cgroup's memory.stat, else from /proc/vmstat (machine-wide): the\n"
	"source column says which.\n"
	"\n"
	"Exit status: 0 ok, 1 bad input, a failed replay or I/O error, 2 usage.\n";

/* The counters compared, by /proc/vmstat name. */
static const char *const counters[] = {
	"pgscan_anon", "pgscan_file", "pgsteal_anon", "pgsteal_file",
	"workingset_refault_anon", "workingset_refault_file",
	"workingset_activate_anon", "workingset_activate_file",
	"workingset_restore_anon", "workingset_restore_file",
	"pgrefill", "pgactivate", "pgdeactivate", "pswpin", "pswpout",
	"pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct",
	"allocstall", "pgfault", "pgmajfault", "oom_kill",
};
#define NR_COUNTERS (sizeof(counters) / sizeof(counters[0]))

/* The replay, handed over by run_main: its counters as a result and its
 * reclaim records as an analysis, as compare reads them. */
struct replay_out {
	struct result res;
	struct analysis sa;
	int swappiness;
};

static int take_replay(const struct engine *e, const struct engine_params *p, void *arg)
{
	struct replay_out *o = arg;
	const char *names[REPORT_MAX_METRICS];
	double values[REPORT_MAX_METRICS];
	int n = report_metrics(e, names, values, REPORT_MAX_METRICS);
	o->swappiness = p->swappiness;
	o->res.metric = calloc((size_t)n + 1, sizeof(*o->res.metric));
	o->res.value = calloc((size_t)n + 1, sizeof(*o->res.value));
	if (!o->res.metric || !o->res.value)
		goto oom;
	for (int i = 0; i < n; i++) {
		if (!isfinite(values[i]))
			continue;                  /* a result has only finite values */
		if (!(o->res.metric[o->res.nr_metrics] = strdup(names[i])))
			goto oom;
		o->res.value[o->res.nr_metrics++] = values[i];
	}
	/* The records, kind by kind as the --events TSV names them. */
	static const int kind_of[] = { [RECLAIM_DIRECT] = AN_DIRECT, [RECLAIM_KSWAPD] = AN_KSWAPD,
				       [RECLAIM_MEMCG] = AN_MEMCG };
	an_records_begin(&o->sa);
	for (uint64_t i = 0; i < e->records.nr; i++) {
		const struct reclaim_record *r = &e->records.all[i];
		const struct vmr_task *vt = r->task != UINT32_MAX ? &e->v->tasks[r->task] : NULL;
		char comm[17];
		snprintf(comm, sizeof(comm), "%.16s", vt ? (vt->comm[0] ? vt->comm : "-") : "kswapd0");
		if (an_add_record(&o->sa, r->start, r->duration, kind_of[r->kind], vt ? vt->tid : 0, r->priority,
				  r->nr_scanned, r->nr_reclaimed, comm) != 0)
			goto oom;
	}
	an_records_done(&o->sa);
	return EXIT_OK;
oom:
	return cli_error(EXIT_FAIL, "compare", "out of memory");
}

/* (sim - kernel) / kernel; NAN when the kernel's value is 0 and the
 * simulation's is not (0 when both are 0). */
static double rel_error(double k, double s)
{
	if (k == 0)
		return s == 0 ? 0 : NAN;
	return (s - k) / k;
}

static const char *const what_names[3] = { "latency_ns", "nr_scanned", "nr_reclaimed" };

static void print(FILE *f, int fmt, const char *input, const char *policy, int swappiness,
		  const char *swap, const struct vmr *v, const struct analysis *ka,
		  const struct analysis *sa, const struct result *res)
{
	char hex[33];
	vmr_hash_hex(v->hdr->trace_hash, hex);
	if (fmt == 0) {
		fprintf(f, "vmreplay compare: %s (%s)\n", input, hex);
		fprintf(f, "kernel: %s; simulation: policy %s", ka->source, policy);
		if (swappiness >= 0)
			fprintf(f, ", swappiness %d", swappiness);
		if (*swap)
			fprintf(f, ", swap %s (as the capture's)", swap);
		fprintf(f, "\n\n%-26s %14s %14s %10s  %s\n", "counter", "kernel", "simulation", "rel.error",
			"kernel source");
	} else if (fmt == 1) {
		fprintf(f, "section\tname\tstat\tkernel\tsimulation\trel_error\tsource\n");
	} else {
		fprintf(f, "{\"input\": ");
		cli_json_str(f, input);
		fprintf(f, ", \"trace_hash\": \"%s\", \"policy\": ", hex);
		cli_json_str(f, policy);
		if (swappiness >= 0)
			fprintf(f, ", \"swappiness\": %d", swappiness);
		else
			fprintf(f, ", \"swappiness\": null");
		fprintf(f, ", \"swap\": ");
		if (*swap)
			cli_json_str(f, swap);
		else
			fprintf(f, "null");
		fprintf(f, ",\n \"counters\": [");
	}
	for (size_t i = 0; i < NR_COUNTERS; i++) {
		struct kcounter k = kernel_counter(v, ka, counters[i]);
		const double *sv = result_metric(res, counters[i]);
		double err = k.have && sv ? rel_error(k.v, *sv) : NAN;
		char kb[32], sb[32], eb[32];
		/* A value the trace or the replay does not have, and the
		 * relative error of a kernel's 0, are missing: "-" (null in
		 * JSON), one spelling in every format. */
		snprintf(kb, sizeof(kb), k.have ? "%.0f" : "-", k.v);
		if (sv)
			snprintf(sb, sizeof(sb), "%.0f", *sv);
		else
			snprintf(sb, sizeof(sb), "-");
		if (isnan(err))
			snprintf(eb, sizeof(eb), "-");
		else
			snprintf(eb, sizeof(eb), fmt == 0 ? "%+.1f%%" : "%.6f", fmt == 0 ? 100 * err : err);
		if (fmt == 0) {
			fprintf(f, "%-26s %14s %14s %10s  %s\n", counters[i], kb, sb, eb, k.have ? k.source : "-");
		} else if (fmt == 1) {
			fprintf(f, "counter\t%s\t-\t%s\t%s\t%s\t%s\n", counters[i], kb, sb, eb,
				k.have ? k.source : "-");
		} else {
			fprintf(f, "%s\n  {\"name\": \"%s\", \"kernel\": ", i ? "," : "", counters[i]);
			if (k.have) fprintf(f, "%.0f", k.v); else fprintf(f, "null");
			fprintf(f, ", \"simulation\": ");
			if (sv) fprintf(f, "%.17g", *sv); else fprintf(f, "null");
			fprintf(f, ", \"rel_error\": ");
			if (isnan(err)) fprintf(f, "null"); else fprintf(f, "%.6f", err);
			fprintf(f, ", \"source\": ");
			cli_json_str(f, k.have ? k.source : "");
			fprintf(f, "}");
		}
	}
	if (fmt == 0)
		fprintf(f, "\nPer reclaim, kernel | simulation (latency in us)\n%-22s %6s %6s | %10s %10s | "
			"%10s %10s | %10s %10s | %10s %10s\n", "", "n", "n", "mean", "mean", "p50", "p50",
			"p90", "p90", "max", "max");
	else if (fmt == 2)
		fprintf(f, "],\n \"distributions\": [");
	int first = 1;
	for (int kind = 0; kind < AN_NR_KINDS; kind++) {
		for (int w = 0; w < 3; w++) {
			struct an_dist kd, sd;
			an_dist_of(ka, kind, (enum an_what)w, &kd);
			an_dist_of(sa, kind, (enum an_what)w, &sd);
			if (!kd.n && !sd.n)
				continue;
			double sc = w == AN_LATENCY && fmt == 0 ? 1e-3 : 1;
			char label[48];
			snprintf(label, sizeof(label), "%s %s", an_kind_names[kind], what_names[w]);
			if (fmt == 0) {
				fprintf(f, "%-22s %6llu %6llu | %10.1f %10.1f | %10.1f %10.1f | %10.1f %10.1f | "
					"%10.1f %10.1f\n", label, (unsigned long long)kd.n, (unsigned long long)sd.n,
					kd.mean * sc, sd.mean * sc, kd.p50 * sc, sd.p50 * sc, kd.p90 * sc, sd.p90 * sc,
					kd.max * sc, sd.max * sc);
			} else if (fmt == 1) {
				const char *stat[] = { "n", "mean", "p50", "p90", "p99", "max" };
				double kv[] = { (double)kd.n, kd.mean, kd.p50, kd.p90, kd.p99, kd.max };
				double sv[] = { (double)sd.n, sd.mean, sd.p50, sd.p90, sd.p99, sd.max };
				for (int x = 0; x < 6; x++) {
					double e = rel_error(kv[x], sv[x]);
					fprintf(f, "distribution\t%s_%s\t%s\t%.6g\t%.6g\t", an_kind_names[kind],
						what_names[w], stat[x], kv[x], sv[x]);
					if (isnan(e))
						fputc('-', f);
					else
						fprintf(f, "%.6f", e);
					fprintf(f, "\t%s\n", "events");
				}
			} else {
				fprintf(f, "%s\n  {\"kind\": \"%s\", \"quantity\": \"%s\", "
					"\"kernel\": {\"n\": %llu, \"mean\": %.6g, \"p50\": %.6g, \"p90\": %.6g, "
					"\"p99\": %.6g, \"max\": %.6g}, "
					"\"simulation\": {\"n\": %llu, \"mean\": %.6g, \"p50\": %.6g, \"p90\": %.6g, "
					"\"p99\": %.6g, \"max\": %.6g}}", first ? "" : ",", an_kind_names[kind],
					what_names[w], (unsigned long long)kd.n, kd.mean, kd.p50, kd.p90, kd.p99,
					kd.max, (unsigned long long)sd.n, sd.mean, sd.p50, sd.p90, sd.p99, sd.max);
			}
			first = 0;
		}
	}
	if (fmt == 0 && first)
		fprintf(f, "(no reclaim on either side)\n");
	if (fmt == 2)
		fprintf(f, "]}\n");
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", required_argument, 0, 'p' },
		{ "swappiness", required_argument, 0, 's' },
		{ "format", required_argument, 0, 'f' },
		{ "out", required_argument, 0, 'o' },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	const char *policy = NULL, *out = "-";
	int fmt = 0, progress = 1, c, swappiness = -1;
	uint64_t v64;
	/* Everything after the first "--" is run's: compare's own options
	 * are parsed before it (getopt_long would otherwise permute the
	 * replay's options into compare's and swallow the "--"). */
	int own = argc;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			own = i;
			break;
		}
	char **extra = argv + own + (own < argc);
	int nextra = argc - own - (own < argc);
	while ((c = getopt_long(own, argv, "p:s:f:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': policy = optarg; break;
		case 's':
			if (cli_parse_u64(optarg, 0, 200, &v64) != 0)
				return cli_error(EXIT_USAGE, "compare", "--swappiness: '%s' is not 0-200", optarg);
			swappiness = (int)v64;
			break;
		case 'f':
			if (strcmp(optarg, "text") == 0) fmt = 0;
			else if (strcmp(optarg, "tsv") == 0) fmt = 1;
			else if (strcmp(optarg, "json") == 0) fmt = 2;
			else return cli_error(EXIT_USAGE, "compare", "--format: '%s' is not text, tsv or json", optarg);
			break;
		case 'o': out = optarg; break;
		case 'q': progress = 0; break;
		case 'h': fputs(usage, stdout); return EXIT_OK;
		default: return cli_bad_option("compare", argv, "p:s:f:o:qh");
		}
	}
	if (optind >= own)
		return cli_error(EXIT_USAGE, "compare", "a captured trace is required");
	const char *input = argv[optind++];
	if (optind < own)
		return cli_error(EXIT_USAGE, "compare", "'%s': one trace only; options for the replay go "
				 "after --", argv[optind]);
	if (!policy)
		return cli_error(EXIT_USAGE, "compare", "--policy is required (see vmreplay run --list-policies)");
	if (strcmp(policy, "lru") == 0)
		return cli_error(EXIT_USAGE, "compare", "--policy: lru has no reclaim to compare with the "
				 "kernel's; give a kernel policy (see vmreplay run --list-policies)");
	if (!policy_find(policy))
		return cli_error(EXIT_USAGE, "compare", "--policy: unknown policy '%s' (see vmreplay run "
				 "--list-policies)", policy);

	struct vmr v;
	char path[4200], err[1024];
	if (ingest_open_input(input, &v, path, sizeof(path), progress, 0, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "compare", "%s", err);
	if (v.nr_kev == 0 && v.nr_vmstat < 2) {
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "compare", "%s: the trace has no kernel events and no counter "
				 "snapshots: nothing to compare with (capture it with vmreplay capture)", input);
	}
	char buf[64];
	if (swappiness < 0 && vmr_meta_get(&v, "swappiness", buf, sizeof(buf)) && atoi(buf) >= 0)
		swappiness = atoi(buf);
	struct analysis ka;
	if (analyze_vmr(&v, &ka, err, sizeof(err)) != 0) {
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "compare", "%s", err);
	}

	/* The replay, in this process: run's own options and defaults
	 * (run_main), its replay handed to take_replay instead of reported. */
	char swb[16], swap[64] = "";
	snprintf(swb, sizeof(swb), "%d", swappiness);
	char **rargv = calloc((size_t)nextra + 10, sizeof(*rargv));
	if (!rargv) {
		analysis_free(&ka);
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "compare", "out of memory");
	}
	int n = 0;
	rargv[n++] = "run";
	rargv[n++] = "-q";
	rargv[n++] = "--policy";
	rargv[n++] = (char *)policy;
	if (swappiness >= 0) {
		rargv[n++] = "--swappiness";
		rargv[n++] = swb;
	}
	int own_swap = 0;
	for (int i = 0; i < nextra; i++)
		own_swap |= strncmp(extra[i], "--swap", 6) == 0 && strncmp(extra[i], "--swappiness", 12) != 0;
	/* Without --swap the replay sets up a device like the capture's
	 * itself (run_setup: with the latencies the capture measured); SWAP
	 * is only what the report says of it. */
	if (!own_swap)
		run_capture_swap(&v, swap, sizeof(swap));
	for (int i = 0; i < nextra; i++)
		rargv[n++] = extra[i];
	rargv[n++] = path;
	rargv[n] = NULL;
	struct replay_out ro = { .swappiness = -1 };
	struct run_hook hook = { take_replay, &ro };
	optind = 0;                        /* run_main parses from the start */
	int rc = run_main(n, rargv, &hook);
	free(rargv);
	if (rc != EXIT_OK) {
		/* run_main said why on stderr, as `vmreplay run` would */
		result_free(&ro.res);
		analysis_free(&ro.sa);
		analysis_free(&ka);
		vmr_close(&v);
		return rc;
	}
	struct result res = ro.res;
	struct analysis sa = ro.sa;
	swappiness = ro.swappiness;
	struct atomic_file af;
	if (atomic_open(&af, out, err, sizeof(err)) == 0) {
		print(af.fp, fmt, input, policy, swappiness, swap, &v, &ka, &sa, &res);
		rc = atomic_commit(&af, err, sizeof(err));
	} else {
		rc = -1;
	}
	result_free(&res);
	analysis_free(&ka);
	analysis_free(&sa);
	vmr_close(&v);
	return rc == 0 ? EXIT_OK : cli_error(EXIT_FAIL, "compare", "%s", err);
}
