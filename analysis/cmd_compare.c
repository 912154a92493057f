/*
 * cmd_compare.c — `vmreplay compare`: what the kernel did in a captured
 * session against what a replay of it does.
 *
 * The kernel's side is the trace's ground truth: counters (from the
 * kernel's reclaim events of the workload, the cgroup's memory.stat, or
 * /proc/vmstat — whichever is the most specific the trace has, per
 * counter) and the reclaims themselves (analyze.h).  The replay's side is
 * `vmreplay run --policy P -f tsv --events FILE` on the same trace: its
 * counters carry /proc/vmstat names (analysis/RESULTS.md), its records
 * the same reclaim fields.  Any policy `run` knows can be compared; extra
 * options after `--` go to `run` unchanged.
 */
#include "analyze.h"
#include "atomic.h"
#include "cli.h"
#include "ingest/ingest.h"
#include "kcounter.h"
#include "result.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int cmd_compare(int argc, char **argv);

static const char usage[] =
	"usage: vmreplay compare --policy NAME [options] TRACE [-- RUN-OPTIONS...]\n"
	"\n"
	"Replays TRACE (a captured session: a trace directory or its .vmr) with\n"
	"`vmreplay run --policy NAME` and prints, per counter, what the kernel\n"
	"did against what the simulation did with the relative error\n"
	"(simulation - kernel) / kernel, then the distributions of reclaim\n"
	"latency, pages scanned and pages reclaimed per reclaim, side by side.\n"
	"\n"
	"  -p, --policy NAME     the policy to replay (vmreplay run --list-policies)\n"
	"  -s, --swappiness N    the replay's swappiness (default: the capture's)\n"
	"  -f, --format FMT      text (default), tsv or json\n"
	"  -o, --out FILE        write there (whole or not at all) instead of stdout\n"
	"  -q, --quiet           no progress line\n"
	"  -h, --help            this help\n"
	"\n"
	"RUN-OPTIONS after -- are passed to `vmreplay run` (e.g. --swap ssd).\n"
	"Without --swap there, the replay swaps to a device like the capture's:\n"
	"zram for zram, ssd for a swap file or device, of the capture's size.\n"
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

/* Runs `vmreplay run` (this very binary); 0, or -1 with its message. */
static int run_replay(char *const argv[], char *err, size_t errlen)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		dup2(p[1], 2);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, 1);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "cannot run vmreplay: %s\n", strerror(errno));
		_exit(127);
	}
	close(p[1]);
	char buf[2048];
	size_t n = 0;
	ssize_t k;
	while ((k = read(p[0], buf + n, sizeof(buf) - 1 - n)) > 0 && n + 1 < sizeof(buf))
		n += (size_t)k;
	buf[n] = '\0';
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(err, errlen, "the replay failed: %.900s", buf[0] ? buf : "no message");
	return -1;
}

/* Does `vmreplay run` give POLICY a swappiness?  -1: unknown policy. */
static int takes_swappiness(const char *policy)
{
	int p[2];
	if (pipe(p) != 0)
		return 0;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		execl("/proc/self/exe", "vmreplay", "run", "--list-policies", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char buf[4096];
	size_t n = 0;
	ssize_t k;
	while (pid > 0 && (k = read(p[0], buf + n, sizeof(buf) - 1 - n)) > 0 && n + 1 < sizeof(buf))
		n += (size_t)k;
	buf[n] = '\0';
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char name[128], sw[8];
		if (sscanf(line, "%127[^\t]\t%7[^\t]", name, sw) == 2 && strcmp(name, policy) == 0)
			return strcmp(sw, "yes") == 0;
	}
	return -1;
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

/* The replay's swap device, like the capture's (swap_kind, swap_size):
 * zram for zram, an SSD for a swap file or device; "" when the trace does
 * not say (then `run`'s default).  zram swaps in synchronously and never
 * reads ahead; a queued device reads ahead, so the kind matters. */
static void capture_swap(const struct vmr *v, char *spec, size_t len)
{
	char kind[32], size[32];
	spec[0] = '\0';
	if (!vmr_meta_get(v, "swap_kind", kind, sizeof(kind)) ||
	    !vmr_meta_get(v, "swap_size", size, sizeof(size)) || atoll(size) <= 0)
		return;
	if (strcmp(kind, "zram") == 0)
		snprintf(spec, len, "zram,size=%s", size);
	else if (strcmp(kind, "file") == 0 || strcmp(kind, "device") == 0)
		snprintf(spec, len, "ssd,size=%s", size);
}

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
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind >= own) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	const char *input = argv[optind++];
	if (optind < own)
		return cli_error(EXIT_USAGE, "compare", "'%s': one trace only; options for the replay go "
				 "after --", argv[optind]);
	if (!policy)
		return cli_error(EXIT_USAGE, "compare", "--policy is required (see vmreplay run --list-policies)");
	int sw = takes_swappiness(policy);
	if (sw < 0)
		return cli_error(EXIT_USAGE, "compare", "--policy: unknown policy '%s' (see vmreplay run "
				 "--list-policies)", policy);

	struct vmr v;
	char path[4200], err[1024];
	if (ingest_open_input(input, &v, path, sizeof(path), progress, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "compare", "%s", err);
	if (v.nr_kev == 0 && v.nr_vmstat < 2) {
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "compare", "%s: the trace has no kernel events and no counter "
				 "snapshots: nothing to compare with (capture it with vmreplay capture)", input);
	}
	char buf[64];
	if (sw && swappiness < 0 && vmr_meta_get(&v, "swappiness", buf, sizeof(buf)) && atoi(buf) >= 0)
		swappiness = atoi(buf);
	struct analysis ka;
	if (analyze_vmr(&v, &ka, err, sizeof(err)) != 0) {
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "compare", "%s", err);
	}

	/* The replay, into temporary files. */
	char dir[] = "/tmp/vmreplay-compare.XXXXXX";
	if (!mkdtemp(dir)) {
		analysis_free(&ka);
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "compare", "mkdtemp: %s", strerror(errno));
	}
	char rpath[64], epath[64], swb[16], swap[64] = "";
	snprintf(rpath, sizeof(rpath), "%s/result.tsv", dir);
	snprintf(epath, sizeof(epath), "%s/events.tsv", dir);
	snprintf(swb, sizeof(swb), "%d", swappiness);
	char **rargv = calloc((size_t)nextra + 20, sizeof(*rargv));
	int n = 0;
	rargv[n++] = "vmreplay";
	rargv[n++] = "run";
	rargv[n++] = "-q";
	rargv[n++] = "--policy";
	rargv[n++] = (char *)policy;
	rargv[n++] = "-f";
	rargv[n++] = "tsv";
	rargv[n++] = "-o";
	rargv[n++] = rpath;
	if (sw) {
		rargv[n++] = "--events";
		rargv[n++] = epath;
		if (swappiness >= 0) {
			rargv[n++] = "--swappiness";
			rargv[n++] = swb;
		}
		int own_swap = 0;
		for (int i = 0; i < nextra; i++)
			own_swap |= strncmp(extra[i], "--swap", 6) == 0 && strncmp(extra[i], "--swappiness", 12) != 0;
		if (!own_swap)
			capture_swap(&v, swap, sizeof(swap));
		if (*swap) {
			rargv[n++] = "--swap";
			rargv[n++] = swap;
		}
	}
	for (int i = 0; i < nextra; i++)
		rargv[n++] = extra[i];
	rargv[n++] = path;
	rargv[n] = NULL;
	int rc = run_replay(rargv, err, sizeof(err));
	free(rargv);
	struct result res = { 0 };
	struct analysis sa = { 0 };
	if (rc == 0)
		rc = result_read(rpath, &res, err, sizeof(err));
	if (rc == 0 && sw)
		rc = analyze_tsv(epath, &sa, err, sizeof(err));
	else if (rc == 0)
		sa.simulated = 1;
	unlink(rpath);
	unlink(epath);
	rmdir(dir);
	if (rc != 0) {
		analysis_free(&ka);
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "compare", "%s", err);
	}
	struct atomic_file af;
	if (atomic_open(&af, out, err, sizeof(err)) == 0) {
		print(af.fp, fmt, input, policy, sw ? swappiness : -1, swap, &v, &ka, &sa, &res);
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
