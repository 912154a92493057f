/*
 * vmreplay.c — the command: `vmreplay SUBCOMMAND [options]`, as git and
 * perf do it.  Each subcommand lives in the folder of its pipeline stage.
 */
#include "cli.h"
#include "ingest/ingest.h"
#include "vmr/vmr.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* Every subcommand: argv[0] is the subcommand's name. */
int cmd_ingest(int argc, char **argv);    /* replay/ingest/cmd_ingest.c */
int cmd_run(int argc, char **argv);       /* replay/cmd_run.c */
int cmd_sweep(int argc, char **argv);     /* replay/sweep/cmd_sweep.c */
int cmd_stats(int argc, char **argv);     /* analysis/cmd_stats.c */
int cmd_capture(int argc, char **argv);   /* capture/cmd_capture.c */
int cmd_analyze(int argc, char **argv);   /* analysis/cmd_analyze.c */
int cmd_compare(int argc, char **argv);   /* analysis/cmd_compare.c */
int cmd_validate(int argc, char **argv);  /* analysis/cmd_validate.c */
int cmd_plot(int argc, char **argv);      /* plots/cmd_plot.c */

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);   /* NULL: not built yet */
	const char *summary;
};

static const struct subcommand subcommands[] = {
	{ "capture", cmd_capture, "record a reclaim session of a command (LTTng + tracefs)" },
	{ "ingest",  cmd_ingest, "decode a CTF trace into a .vmr replay file" },
	{ "run",     cmd_run,    "replay a trace against one policy" },
	{ "sweep",   cmd_sweep,  "run traces x policies x swappiness x seeds" },
	{ "stats",   cmd_stats,  "Welch statistics and tables over a sweep's results" },
	{ "plot",    cmd_plot,   "draw a sweep's figures with gnuplot" },
	{ "analyze", cmd_analyze, "reclaim analysis of a captured trace or of a replay's records" },
	{ "compare", cmd_compare, "a captured session: what the kernel did against a replay" },
	{ "validate", cmd_validate, "the fidelity scoreboard: replays of many captures against their kernel" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: vmreplay [-V|--version] [-h|--help] SUBCOMMAND [options]\n\nSubcommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-9s %s%s\n", subcommands[i].name, subcommands[i].summary,
			subcommands[i].fn ? "" : " (not built yet)");
	fprintf(f, "\n'vmreplay SUBCOMMAND --help' describes each one.\n");
}

int main(int argc, char **argv)
{
	cli_guard_stdout();
	opterr = 0;                    /* cli_bad_option says it in one line */
	/* A .vmr's contents are checked once: the cache records those that
	 * passed (vmr_read.c). */
	vmr_verified_dir(ingest_cache_dir());
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
		usage(stdout);
		return cli_finish_stdout(NULL, EXIT_OK);
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
		printf("vmreplay %s\n", VMREPLAY_VERSION);
		return cli_finish_stdout(NULL, EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
		if (strcmp(name, subcommands[i].name) != 0)
			continue;
		if (!subcommands[i].fn) {
			fprintf(stderr, "vmreplay %s: not built yet in this version\n", name);
			return EXIT_USAGE;
		}
		return cli_finish_stdout(name, subcommands[i].fn(argc - 1, argv + 1));
	}
	fprintf(stderr, "vmreplay: '%s' is not a subcommand\nTry 'vmreplay --help'.\n", name);
	return EXIT_USAGE;
}
