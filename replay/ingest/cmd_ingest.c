/* cmd_ingest.c — `vmreplay ingest`: decode a CTF trace into a .vmr. */
#include "cli.h"
#include "ingest.h"
#include "vmr/vmr.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: vmreplay ingest [options] TRACE\n"
	"\n"
	"Decodes the LTTng CTF trace under the directory TRACE (all its\n"
	"sub-traces) into a .vmr replay file.  TRACE may also be a tar archive\n"
	"of it (.tar.xz, .tar.zst, .tar.gz, .tar) or a folder holding one as\n"
	"ctf.tar.*: it is unpacked first and hashes as the directory would.\n"
	"TRACE may be a `trace-cmd record` file (trace.dat), with the session's\n"
	"setup in TRACE.session (vmreplay-ingest(1)).\n"
	"Results are cached by the trace's content hash, so a trace is\n"
	"decoded once.\n"
	"\n"
	"  -o, --output FILE   write the .vmr to FILE (default: only the cache)\n"
	"      --no-cache      decode even if the cache has this trace\n"
	"      --allow-empty   keep a trace with nothing to replay (no memory\n"
	"                      accesses, no reclaim events), for analysis\n"
	"  -f, --format FMT    report as text (default) or json\n"
	"  -q, --quiet         no progress line\n"
	"  -h, --help          this help\n"
	"\n"
	"The cache is $VMREPLAY_CACHE, else $XDG_CACHE_HOME/vmreplay, else\n"
	"~/.cache/vmreplay.  Exit status: 0 ok, 1 bad trace or I/O error, 2 usage.\n";

int cmd_ingest(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, 0, 'o' },
		{ "no-cache", no_argument, 0, 'N' },
		{ "allow-empty", no_argument, 0, 'E' },
		{ "format", required_argument, 0, 'f' },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	struct ingest_opts o = { .use_cache = 1, .progress = 1 };
	int json = 0, c;
	while ((c = getopt_long(argc, argv, "o:f:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o.output = optarg; break;
		case 'N': o.use_cache = 0; break;
		case 'E': o.allow_empty = 1; break;
		case 'q': o.progress = 0; break;
		case 'f':
			if (strcmp(optarg, "json") == 0)
				json = 1;
			else if (strcmp(optarg, "text") != 0)
				return cli_error(EXIT_USAGE, "ingest", "--format: '%s' is not text or json", optarg);
			break;
		case 'h': fputs(usage, stdout); return EXIT_OK;
		default: return cli_bad_option("ingest", argv, "o:f:qh");
		}
	}
	if (optind >= argc)
		return cli_error(EXIT_USAGE, "ingest", "a trace directory or archive is required");
	if (optind < argc - 1)
		return cli_error(EXIT_USAGE, "ingest", "'%s': one trace only", argv[optind + 1]);
	o.trace = argv[optind];
	struct ingest_report r;
	char path[4200], err[1024];
	if (ingest(&o, &r, path, sizeof(path), err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "ingest", "%s", err);

	char hex[33];
	vmr_hash_hex(r.hash, hex);
	int nothing = r.accesses == 0 && r.reclaim_events == 0;
	if (json) {
		printf("{\"trace\": ");
		cli_json_str(stdout, o.trace);
		printf(", \"trace_hash\": \"%s\", \"vmr\": ", hex);
		cli_json_str(stdout, path);
		printf(", \"cached\": %s, \"events\": %llu, \"discarded_events\": %llu, "
		       "\"tasks\": %llu, \"records\": %llu, \"accesses\": %llu, \"pages\": %llu, "
		       "\"kernel_page_alloc_events\": %llu, \"kernel_page_free_events\": %llu, "
		       "\"skipped\": ", r.cached ? "true" : "false",
		       (unsigned long long)r.events, (unsigned long long)r.discarded,
		       (unsigned long long)r.tasks, (unsigned long long)r.records,
		       (unsigned long long)r.accesses, (unsigned long long)r.pages,
		       (unsigned long long)r.kernel_alloc_events, (unsigned long long)r.kernel_free_events);
		cli_json_str(stdout, r.skipped);
		printf("}\n");
	} else {
		printf("trace       %s\n", o.trace);
		printf("hash        %s\n", hex);
		printf("vmr         %s%s\n", path, r.cached ? " (cached)" : "");
		printf("events      %llu decoded, %llu discarded\n", (unsigned long long)r.events,
		       (unsigned long long)r.discarded);
		printf("tasks       %llu\n", (unsigned long long)r.tasks);
		printf("accesses    %llu (%llu records)\n", (unsigned long long)r.accesses,
		       (unsigned long long)r.records);
		printf("pages       %llu distinct\n", (unsigned long long)r.pages);
		if (r.kernel_alloc_events || r.kernel_free_events)
			printf("kept        %llu page allocations, %llu page frees (kernel)\n",
			       (unsigned long long)r.kernel_alloc_events,
			       (unsigned long long)r.kernel_free_events);
		if (r.skipped[0])
			printf("skipped     %s\n", r.skipped);
		if (nothing)
			printf("note        this trace holds no memory-access stream to replay "
			       "and no reclaim events\n");
	}
	if (r.discarded)
		fprintf(stderr, "vmreplay ingest: warning: %s: LTTng discarded %llu events; "
			"the access stream is incomplete\n", o.trace, (unsigned long long)r.discarded);
	return EXIT_OK;
}
