/* cmd_run.c — `vmreplay run`: replay a trace against one policy. */
#include "atomic.h"
#include "cli.h"
#include "ingest/ingest.h"
#include "lru/lru.h"
#include "mm/policy.h"
#include "run.h"

#include "records/report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_head[] =
	"usage: vmreplay run --policy POLICY [options] INPUT\n"
	"\n"
	"Replays INPUT (a .vmr, or a trace directory, ingested through the\n"
	"cache) against a reclaim policy and reports its counters.\n"
	"\n"
	"  -p, --policy NAME       the policy (see below)\n"
	"  -f, --format FMT        text (default), tsv or json\n"
	"  -o, --out FILE          write there (whole or not at all) instead of stdout\n"
	"  -q, --quiet             no progress line\n"
	"      --list-policies     print NAME, takes-swappiness, stochastic (tab-separated)\n"
	"  -h, --help              this help\n"
	"\n"
	"The reference LRU:\n"
	"  -m, --memory SIZE       memory for the pages, e.g. 64M, 1G\n"
	"  -n, --pages N           the same, in pages\n"
	"\n"
	"Kernel policies:\n"
	"  -s, --swappiness N      0-200 (default: the capture's, else 60)\n"
	"      --memory-limit SIZE the memory cgroup's limit (default: the capture's;\n"
	"                          0 = no limit)\n"
	"      --node-memory SIZE  RAM of the simulated machine (default: the capture's)\n"
	"      --swap DEV          swap device: PRESET[,size=SIZE][,read=NS][,write=NS]\n"
	"                          [,depth=N][,jitter=PCT][,rotational=0|1], or none\n"
	"                          (default: like the capture's, with the latencies\n"
	"                          it measured; else zram,size=<node memory / 2>)\n"
	"      --file-device DEV   the file system's device, as --swap and with\n"
	"                          [,ra_base=NS][,ra_page=NS], a read-ahead window's\n"
	"                          read time (default: ssd, with the latencies the\n"
	"                          capture measured)\n"
	"      --cgroup-version N  the memory controller's, 1 or 2 (default: the\n"
	"                          capture's, else 2)\n"
	"      --seed N            seed of the I/O latency jitter (default 1)\n"
	"      --deadline NS       work_done counts accesses done by then (default:\n"
	"                          the trace's recorded span)\n"
	"      --events FILE       one TSV line per reclaim invocation\n"
	"      --timeline FILE     TSV of nr_isolated (anon, file) and throttles over time\n"
	"      --tasks FILE        TSV of per-task completion time, accesses, stall\n"
	"\n"
	"Devices:\n";

static const char usage_tail[] =
	"\n"
	"Exit status: 0 ok, 1 bad input or I/O error, 2 usage.\n";

static void usage(FILE *f)
{
	fputs(usage_head, f);
	fputs(backing_presets_help, f);
	fputs("\nPolicies:\n  lru                        exact page-granular LRU of the given size: the\n"
	      "                             reference replay (no kernel model)\n", f);
	for (int i = 0; reclaim_policies[i]; i++)
		fprintf(f, "  %-26s %s\n", reclaim_policies[i]->name, reclaim_policies[i]->summary);
	fputs(mglru_switches_help, f);
	fputs(usage_tail, f);
}

enum fmt { FMT_TEXT, FMT_TSV, FMT_JSON };

/*
 * What `vmreplay run --list-policies` prints, one line per policy:
 * NAME, whether it takes --swappiness, whether its result depends on
 * --seed.  `vmreplay sweep` expands its runs from this table, so a policy
 * added to reclaim_policies[] is swept with no other change.
 */
static void list_policies(FILE *f)
{
	fprintf(f, "lru\tno\tno\n");
	for (int i = 0; reclaim_policies[i]; i++)
		fprintf(f, "%s\t%s\tyes\n", reclaim_policies[i]->name,
			"yes");
}

static void write_result(FILE *f, enum fmt fmt, const struct vmr *v, const char *input,
			 const char *policy, const struct lru_result *r, uint64_t page_size)
{
	char hex[33];
	vmr_hash_hex(v->hdr->trace_hash, hex);
	double ratio = r->accesses ? (double)r->misses / r->accesses : 0.0;
	double mib = (double)r->capacity * page_size / (1024.0 * 1024.0);
	switch (fmt) {
	case FMT_TSV:
		/* Result contract (analysis/RESULTS.md): the run's identity
		 * first, then one numeric column per metric. */
		fprintf(f, "trace\ttrace_hash\tpolicy\tswappiness\tmemory_limit\tnode_memory\tswap\t"
			"seed\tversion\taccesses\thits\tmisses\tcold_misses\tevictions\tfrees\t"
			"miss_ratio\n");
		fprintf(f, "%s\t%s\t%s\t-\t%llu\t-\t-\t-\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%.9f\n",
			input, hex, policy, (unsigned long long)(r->capacity * page_size),
			VMREPLAY_VERSION, (unsigned long long)r->accesses, (unsigned long long)r->hits,
			(unsigned long long)r->misses, (unsigned long long)r->cold_misses,
			(unsigned long long)r->evictions, (unsigned long long)r->frees, ratio);
		break;
	case FMT_JSON:
		fprintf(f, "{\"meta\": {\"trace\": ");
		cli_json_str(f, input);
		fprintf(f, ", \"trace_hash\": \"%s\", \"policy\": \"%s\", \"swappiness\": null, "
			"\"memory_limit\": %llu, \"node_memory\": null, \"swap\": null, \"seed\": null, "
			"\"version\": \"%s\"}, \"metrics\": {"
			"\"accesses\": %llu, \"hits\": %llu, \"misses\": %llu, \"cold_misses\": %llu, "
			"\"evictions\": %llu, \"frees\": %llu, \"miss_ratio\": %.9f}}\n",
			hex, policy, (unsigned long long)(r->capacity * page_size), VMREPLAY_VERSION,
			(unsigned long long)r->accesses, (unsigned long long)r->hits,
			(unsigned long long)r->misses, (unsigned long long)r->cold_misses,
			(unsigned long long)r->evictions, (unsigned long long)r->frees, ratio);
		break;
	case FMT_TEXT:
		fprintf(f, "trace        %s (%s)\n", input, hex);
		fprintf(f, "policy       %s, %llu pages (%.1f MiB)\n", policy,
			(unsigned long long)r->capacity, mib);
		fprintf(f, "accesses     %llu\n", (unsigned long long)r->accesses);
		fprintf(f, "hits         %llu\n", (unsigned long long)r->hits);
		fprintf(f, "misses       %llu (%llu cold), miss ratio %.6f\n",
			(unsigned long long)r->misses, (unsigned long long)r->cold_misses, ratio);
		fprintf(f, "evictions    %llu\n", (unsigned long long)r->evictions);
		fprintf(f, "frees        %llu\n", (unsigned long long)r->frees);
		break;
	}
}

/* Options of a kernel-policy run. */
struct kernel_opts {
	const char *swappiness, *seed, *deadline;
	const char *events, *timeline, *tasks;
	struct run_request req;
	unsigned repeat;              /* hidden --repeat N (tests/bench.sh) */
};

/* Writes an optional side output (--events, --timeline, --tasks). */
static int side_output(const char *path, const struct engine *e,
		       void (*fn)(FILE *, const struct engine *))
{
	struct atomic_file af;
	char err[1024];
	if (!path)
		return 0;
	if (atomic_open(&af, path, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "run", "%s", err);
	fn(af.fp, e);
	if (atomic_commit(&af, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "run", "%s", err);
	return 0;
}

/* All-zero reclaim counters usually mean a setup that never pressed on
 * memory (a capture's default limit, a big node), not a policy that did
 * well: say so, with the trace's footprint beside the memory it had. */
static void warn_no_reclaim(const struct engine *e, const struct vmr *v, const struct report_identity *id)
{
	if (e->vm[VM_pgscan_anon] + e->vm[VM_pgscan_file] != 0)
		return;
	char buf[32];
	uint64_t page = vmr_meta_get(v, "page_size", buf, sizeof(buf)) ? strtoull(buf, NULL, 10) : 4096;
	double mib = 1024.0 * 1024.0;
	double foot = (double)v->hdr->nr_pages * (double)(page ? page : 4096) / mib;
	if (id->memory_limit)
		fprintf(stderr, "vmreplay run: warning: the replay saw no reclaim: the trace's footprint, "
			"%.1f MiB (%llu pages), fits in its %.1f MiB memory cgroup limit (node %.1f MiB); "
			"try a smaller --memory-limit\n", foot, (unsigned long long)v->hdr->nr_pages,
			(double)id->memory_limit / mib, (double)id->node_memory / mib);
	else
		fprintf(stderr, "vmreplay run: warning: the replay saw no reclaim: the trace's footprint, "
			"%.1f MiB (%llu pages), fits in the node's %.1f MiB (no memory cgroup limit); "
			"try --memory-limit or a smaller --node-memory\n", foot,
			(unsigned long long)v->hdr->nr_pages, (double)id->node_memory / mib);
}

static int run_kernel(const struct reclaim_policy *pol, struct kernel_opts *k,
		      const char *input, const char *out, enum fmt fmt, int progress,
		      const struct run_hook *hook)
{
	struct run_request *req = &k->req;
	uint64_t v64;
	req->policy = pol;
	req->progress = progress;
	req->keep_records = k->events != NULL || hook;     /* compare reads them */
	req->swappiness = -1;
	req->seed = 1;
	if (k->swappiness) {
		if (cli_parse_u64(k->swappiness, 0, MAX_SWAPPINESS, &v64) != 0)
			return cli_error(EXIT_USAGE, "run", "--swappiness: '%s' is not 0-200", k->swappiness);
		req->swappiness = (int)v64;
	}
	if (k->seed && cli_parse_u64(k->seed, 0, UINT64_MAX, &req->seed) != 0)
		return cli_error(EXIT_USAGE, "run", "--seed: '%s' is not a number", k->seed);
	if (k->deadline && cli_parse_u64(k->deadline, 1, UINT64_MAX, &req->deadline) != 0)
		return cli_error(EXIT_USAGE, "run", "--deadline: '%s' is not a time in ns", k->deadline);

	struct vmr v;
	char path[4200], err[1024];
	if (ingest_open_input(input, &v, path, sizeof(path), progress, 0, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "run", "%s", err);
	if (v.hdr->nr_accesses == 0) {
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "run", "%s: the trace holds no memory accesses to replay", input);
	}
	struct engine_params p;
	if (run_setup(&v, req, &p, err, sizeof(err)) != 0) {
		vmr_close(&v);
		return cli_error(EXIT_USAGE, "run", "%s", err);
	}

	struct atomic_file tl = { 0 };
	if (k->timeline) {
		if (atomic_open(&tl, k->timeline, err, sizeof(err)) != 0) {
			vmr_close(&v);
			return cli_error(EXIT_FAIL, "run", "%s", err);
		}
		fprintf(tl.fp, "time_ns\tnr_isolated_anon\tnr_isolated_file\tthrottled_total\n");
		p.timeline = tl.fp;
	}
	struct engine *e = malloc(sizeof(*e));
	int rc = EXIT_OK;
	/* --repeat N: the same replay N - 1 more times first, in this process
	 * (bench.sh times replays without process start and trace open). */
	for (unsigned i = 1; e && i < k->repeat; i++) {
		struct engine_params q = p;
		q.timeline = NULL;
		q.progress = 0;
		if (engine_init(e, &v, &q, err, sizeof(err)) != 0)
			break;
		engine_run(e);
		engine_free(e);
	}
	if (!e || engine_init(e, &v, &p, err, sizeof(err)) != 0) {
		free(e);
		if (k->timeline)
			atomic_abort(&tl);
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "run", "%s", e ? err : "out of memory");
	}
	if (engine_run(e) != 0) {
		rc = cli_error(EXIT_FAIL, "run", "out of memory during the replay");
		goto done;
	}
	struct report_identity id = {
		.trace = input, .policy = pol->name, .swappiness = p.swappiness,
		.memory_limit = e->nr_memcgs > 1 && e->memcgs[1].max != UINT64_MAX ?
				e->memcgs[1].max * 4096 : 0,
		.node_memory = p.node_memory, .swap = run_swap_name(&k->req, &p), .seed = p.seed,
	};
	if (hook) {
		/* in-process (compare): the replay itself instead of its report */
		rc = hook->done(e, &p, hook->arg);
		if (rc == EXIT_OK && (side_output(k->events, e, report_events) ||
				      side_output(k->tasks, e, report_tasks)))
			rc = EXIT_FAIL;
		goto done;
	}
	if (progress)
		warn_no_reclaim(e, &v, &id);
	struct atomic_file af;
	if (atomic_open(&af, out, err, sizeof(err)) != 0) {
		rc = cli_error(EXIT_FAIL, "run", "%s", err);
		goto done;
	}
	report_write(af.fp, fmt == FMT_TSV ? REPORT_TSV : fmt == FMT_JSON ? REPORT_JSON : REPORT_TEXT,
		     e, &id);
	if (atomic_commit(&af, err, sizeof(err)) != 0) {
		rc = cli_error(EXIT_FAIL, "run", "%s", err);
		goto done;
	}
	if (side_output(k->events, e, report_events) || side_output(k->tasks, e, report_tasks))
		rc = EXIT_FAIL;
done:
	if (k->timeline) {
		if (rc == EXIT_OK) {
			if (atomic_commit(&tl, err, sizeof(err)) != 0)
				rc = cli_error(EXIT_FAIL, "run", "%s", err);
		} else {
			atomic_abort(&tl);
		}
	}
	engine_free(e);
	free(e);
	vmr_close(&v);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	return run_main(argc, argv, NULL);
}

int run_main(int argc, char **argv, const struct run_hook *hook)
{
	static const struct option opts[] = {
		{ "policy", required_argument, 0, 'p' },
		{ "memory", required_argument, 0, 'm' },
		{ "pages", required_argument, 0, 'n' },
		{ "format", required_argument, 0, 'f' },
		{ "out", required_argument, 0, 'o' },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ "list-policies", no_argument, 0, 'L' },
		{ "swappiness", required_argument, 0, 's' },
		{ "memory-limit", required_argument, 0, 1 },
		{ "node-memory", required_argument, 0, 2 },
		{ "swap", required_argument, 0, 3 },
		{ "file-device", required_argument, 0, 4 },
		{ "seed", required_argument, 0, 5 },
		{ "deadline", required_argument, 0, 6 },
		{ "events", required_argument, 0, 7 },
		{ "timeline", required_argument, 0, 8 },
		{ "tasks", required_argument, 0, 9 },
		{ "repeat", required_argument, 0, 10 },
		{ "cgroup-version", required_argument, 0, 11 },
		{ 0, 0, 0, 0 }
	};
	struct kernel_opts k = { 0 };
	int kernel_opt = 0;
	const char *policy = NULL, *out = "-", *memory = NULL;
	uint64_t pages = 0;
	int have_pages = 0, progress = 1, c;
	enum fmt fmt = FMT_TEXT;
	while ((c = getopt_long(argc, argv, "p:m:n:f:o:qhs:", opts, NULL)) != -1) {
		switch (c) {
		case 's': k.swappiness = optarg; kernel_opt = 1; break;
		case 1: k.req.memory_limit = optarg; kernel_opt = 1; break;
		case 2: k.req.node_memory = optarg; kernel_opt = 1; break;
		case 3: k.req.swap = optarg; kernel_opt = 1; break;
		case 4: k.req.file_dev = optarg; kernel_opt = 1; break;
		case 5: k.seed = optarg; kernel_opt = 1; break;
		case 6: k.deadline = optarg; kernel_opt = 1; break;
		case 7: k.events = optarg; kernel_opt = 1; break;
		case 8: k.timeline = optarg; kernel_opt = 1; break;
		case 9: k.tasks = optarg; kernel_opt = 1; break;
		case 11: k.req.cgroup_version = optarg; kernel_opt = 1; break;
		case 10: {
			uint64_t n;
			if (cli_parse_u64(optarg, 1, 1000000, &n) != 0)
				return cli_error(EXIT_USAGE, "run", "--repeat: '%s' is not 1-1000000", optarg);
			k.repeat = (unsigned)n;
			break;
		}
		case 'p': policy = optarg; break;
		case 'm': memory = optarg; break;
		case 'n':
			if (cli_parse_u64(optarg, 0, UINT32_MAX, &pages) != 0)
				return cli_error(EXIT_USAGE, "run", "--pages: '%s' is not a page count "
						 "(0-%u)", optarg, UINT32_MAX);
			have_pages = 1;
			break;
		case 'f':
			if (strcmp(optarg, "text") == 0) fmt = FMT_TEXT;
			else if (strcmp(optarg, "tsv") == 0) fmt = FMT_TSV;
			else if (strcmp(optarg, "json") == 0) fmt = FMT_JSON;
			else return cli_error(EXIT_USAGE, "run", "--format: '%s' is not text, tsv or json", optarg);
			break;
		case 'o': out = optarg; break;
		case 'q': progress = 0; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'L': list_policies(stdout); return EXIT_OK;
		default: return cli_bad_option("run", argv, "p:m:n:f:o:qhs:");
		}
	}
	if (optind >= argc)
		return cli_error(EXIT_USAGE, "run", "a trace or .vmr is required");
	if (optind < argc - 1)
		return cli_error(EXIT_USAGE, "run", "'%s': one input only", argv[optind + 1]);
	if (!policy)
		return cli_error(EXIT_USAGE, "run", "--policy is required (see vmreplay run --help)");
	if (strcmp(policy, "lru") != 0) {
		const struct reclaim_policy *pol = policy_find(policy);
		if (!pol)
			return cli_error(EXIT_USAGE, "run", "--policy: unknown policy '%s' (see vmreplay run --help)", policy);
		if (memory || have_pages)
			return cli_error(EXIT_USAGE, "run", "--memory/--pages size the lru policy; "
					 "kernel policies take --memory-limit and --node-memory");
		return run_kernel(pol, &k, argv[optind], out, fmt, progress, hook);
	}
	if (hook)
		return cli_error(EXIT_USAGE, "run", "the lru policy has no reclaim to hand over");
	if (kernel_opt)
		return cli_error(EXIT_USAGE, "run", "the lru policy takes only --memory or --pages "
				 "(swappiness, limits, devices and seeds are for kernel policies)");
	if (!!memory + have_pages != 1)
		return cli_error(EXIT_USAGE, "run", "the lru policy needs its size: --memory or --pages");
	uint64_t mem_bytes = 0;
	if (memory && cli_parse_size(memory, &mem_bytes) != 0)
		return cli_error(EXIT_USAGE, "run", "--memory: '%s' is not a size (e.g. 512M, 2G)", memory);

	const char *input = argv[optind];
	struct vmr v;
	char path[4200], err[1024];
	if (ingest_open_input(input, &v, path, sizeof(path), progress, 0, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "run", "%s", err);
	char buf[64];
	uint64_t page_size = 4096;
	if (vmr_meta_get(&v, "page_size", buf, sizeof(buf)))
		page_size = strtoull(buf, NULL, 10);
	if (page_size == 0)
		page_size = 4096;
	if (memory) {
		pages = mem_bytes / page_size;
		if (pages > UINT32_MAX) {
			vmr_close(&v);
			return cli_error(EXIT_USAGE, "run", "--memory: %s is more pages than a replay holds", memory);
		}
	}
	if (v.hdr->nr_accesses == 0) {
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "run", "%s: the trace holds no memory accesses to replay", input);
	}
	struct lru_result r;
	for (unsigned i = 1; i < k.repeat; i++)       /* hidden --repeat N */
		if (lru_replay(&v, pages, &r) != 0)
			break;
	if (lru_replay(&v, pages, &r) != 0) {
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "run", "out of memory");
	}
	struct atomic_file af;
	if (atomic_open(&af, out, err, sizeof(err)) != 0) {
		vmr_close(&v);
		return cli_error(EXIT_FAIL, "run", "%s", err);
	}
	write_result(af.fp, fmt, &v, input, policy, &r, page_size);
	vmr_close(&v);
	if (atomic_commit(&af, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "run", "%s", err);
	return EXIT_OK;
}
