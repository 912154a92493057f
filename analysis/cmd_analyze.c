/* cmd_analyze.c — `vmreplay analyze`: reclaim analysis of a session. */
#include "analyze.h"
#include "atomic.h"
#include "cli.h"
#include "input.h"
#include "ingest/ingest.h"
#include "ingest/tracedat.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cmd_analyze(int argc, char **argv);

static const char usage[] =
	"usage: vmreplay analyze [options] INPUT\n"
	"\n"
	"Reclaim analysis of a session, as the kernel's trace-vmscan-postprocess.pl\n"
	"computes it on today's tracepoints: per process the direct and memcg\n"
	"reclaims, kswapd wake requests, pages scanned and reclaimed, sync and\n"
	"async write I/O, stall time and the latency of each reclaim; per kswapd\n"
	"its wakeups, re-wakeups and awake time; the N slowest reclaims with\n"
	"pages scanned and reclaimed (worst and mean); efficiency (reclaimed /\n"
	"scanned) and velocity (scanned per second) as mmtests derives them.\n"
	"\n"
	"INPUT is a captured trace directory (LTTng kernel domain or the tracefs\n"
	"bridge; ingested through the cache), a `trace-cmd record` file, its\n"
	".vmr, or the replay's own reclaim records (`vmreplay run --events\n"
	"FILE`, TSV).\n"
	"\n"
	"  -n, --slowest N     how many slowest reclaims to list (default 20)\n"
	"  -f, --format FMT    text (default), tsv (table, row, metric, value) or json\n"
	"  -o, --out FILE      write there (whole or not at all) instead of stdout\n"
	"  -q, --quiet         no progress line\n"
	"  -h, --help          this help\n"
	"\n"
	"Exit status: 0 ok, 1 bad input or I/O error, 2 usage.\n";

/* A .vmr starts with its magic; anything else that is a file is TSV. */
static int is_vmr(const char *path)
{
	char err[16];
	FILE *f = input_open(path, err, sizeof(err));   /* never blocks on a FIFO */
	char magic[8] = { 0 };
	if (!f)
		return 0;
	size_t n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	return n == sizeof(magic) && memcmp(magic, VMR_MAGIC, 8) == 0;
}

int cmd_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "slowest", required_argument, 0, 'n' },
		{ "format", required_argument, 0, 'f' },
		{ "out", required_argument, 0, 'o' },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	enum an_fmt fmt = AN_TEXT;
	const char *out = "-";
	uint64_t top = 20;
	int progress = 1, c;
	while ((c = getopt_long(argc, argv, "n:f:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (cli_parse_u64(optarg, 1, 1000000, &top) != 0)
				return cli_error(EXIT_USAGE, "analyze", "--slowest: '%s' is not 1-1000000", optarg);
			break;
		case 'f':
			if (strcmp(optarg, "text") == 0) fmt = AN_TEXT;
			else if (strcmp(optarg, "tsv") == 0) fmt = AN_TSV;
			else if (strcmp(optarg, "json") == 0) fmt = AN_JSON;
			else return cli_error(EXIT_USAGE, "analyze", "--format: '%s' is not text, tsv or json", optarg);
			break;
		case 'o': out = optarg; break;
		case 'q': progress = 0; break;
		case 'h': fputs(usage, stdout); return EXIT_OK;
		default: return cli_bad_option("analyze", argv, "n:f:o:qh");
		}
	}
	if (optind >= argc)
		return cli_error(EXIT_USAGE, "analyze", "a trace, .vmr or events file is required");
	if (optind < argc - 1)
		return cli_error(EXIT_USAGE, "analyze", "'%s': one input only", argv[optind + 1]);
	const char *input = argv[optind];
	struct stat st;
	char err[1024], path[4200];
	if (stat(input, &st) != 0)
		return cli_error(EXIT_FAIL, "analyze", "%s: %s", input, strerror(errno));
	struct analysis a;
	if (S_ISDIR(st.st_mode) || is_vmr(input) || tracedat_is(input)) {
		struct vmr v;
		if (ingest_open_input(input, &v, path, sizeof(path), progress, 1, err, sizeof(err)) != 0)
			return cli_error(EXIT_FAIL, "analyze", "%s", err);
		int rc = analyze_vmr(&v, &a, err, sizeof(err));
		vmr_close(&v);
		if (rc != 0)
			return cli_error(EXIT_FAIL, "analyze", "%s", err);
	} else if (analyze_tsv(input, &a, err, sizeof(err)) != 0) {
		return cli_error(EXIT_FAIL, "analyze", "%s", err);
	}
	struct atomic_file af;
	if (atomic_open(&af, out, err, sizeof(err)) != 0) {
		analysis_free(&a);
		return cli_error(EXIT_FAIL, "analyze", "%s", err);
	}
	analysis_print(af.fp, &a, fmt, (unsigned)top, input);
	analysis_free(&a);
	if (atomic_commit(&af, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "analyze", "%s", err);
	return EXIT_OK;
}
