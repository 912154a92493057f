/* cmd_run.c — `vmreplay run`: replay a trace against one policy. */
#include "atomic.h"
#include "cli.h"
#include "lru.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: vmreplay run --policy POLICY [options] INPUT\n"
	"\n"
	"Replays INPUT (a .vmr, or a trace directory, ingested through the\n"
	"cache) against a reclaim policy and reports its counters.\n"
	"\n"
	"  -p, --policy NAME     the policy (see below)\n"
	"  -m, --memory SIZE     memory for the pages, e.g. 64M, 1G\n"
	"  -n, --pages N         the same, in pages\n"
	"  -f, --format FMT      text (default), tsv or json\n"
	"  -o, --out FILE        write there (whole or not at all) instead of stdout\n"
	"  -q, --quiet           no progress line\n"
	"      --list-policies   print NAME, takes-swappiness, stochastic (tab-separated)\n"
	"  -h, --help            this help\n"
	"\n"
	"Policies:\n"
	"  lru        exact page-granular LRU of the given size: the reference\n"
	"             replay (misses, hits, evictions; no kernel model)\n"
	"\n"
	"Exit status: 0 ok, 1 bad input or I/O error, 2 usage.\n";

enum fmt { FMT_TEXT, FMT_TSV, FMT_JSON };

/*
 * What `vmreplay run --list-policies` prints, one line per policy:
 * NAME, whether it takes --swappiness, whether its result depends on
 * --seed.  `vmreplay sweep` expands its runs from this table, so a policy
 * added here is swept with no other change.
 */
static const struct policy_info {
	const char *name;
	int takes_swappiness, stochastic;
} policies[] = {
	{ "lru", 0, 0 },
};

static void list_policies(FILE *f)
{
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		fprintf(f, "%s\t%s\t%s\n", policies[i].name,
			policies[i].takes_swappiness ? "yes" : "no",
			policies[i].stochastic ? "yes" : "no");
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
		fprintf(f, "{\"meta\": {\"trace\": \"");
		for (const char *p = input; *p; p++)
			fprintf(f, (*p == '"' || *p == '\\') ? "\\%c" : "%c", *p);
		fprintf(f, "\", \"trace_hash\": \"%s\", \"policy\": \"%s\", \"swappiness\": null, "
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

int cmd_run(int argc, char **argv)
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
		{ 0, 0, 0, 0 }
	};
	const char *policy = NULL, *out = "-", *memory = NULL;
	uint64_t pages = 0;
	int have_pages = 0, progress = 1, c;
	enum fmt fmt = FMT_TEXT;
	while ((c = getopt_long(argc, argv, "p:m:n:f:o:qh", opts, NULL)) != -1) {
		switch (c) {
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
		case 'h': fputs(usage, stdout); return EXIT_OK;
		case 'L': list_policies(stdout); return EXIT_OK;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!policy)
		return cli_error(EXIT_USAGE, "run", "--policy is required (see vmreplay run --help)");
	if (strcmp(policy, "lru") != 0)
		return cli_error(EXIT_USAGE, "run", "--policy: unknown policy '%s' (see vmreplay run --help)", policy);
	if (!!memory + have_pages != 1)
		return cli_error(EXIT_USAGE, "run", "the lru policy needs its size: --memory or --pages");
	uint64_t mem_bytes = 0;
	if (memory && cli_parse_size(memory, &mem_bytes) != 0)
		return cli_error(EXIT_USAGE, "run", "--memory: '%s' is not a size (e.g. 512M, 2G)", memory);

	const char *input = argv[optind];
	struct vmr v;
	char path[4200], err[1024];
	if (cli_open_input(input, &v, path, sizeof(path), progress, err, sizeof(err)) != 0)
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
