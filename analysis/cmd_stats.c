/* cmd_stats.c — `vmreplay stats`: statistics and tables of a sweep. */
#include "atomic.h"
#include "cli.h"
#include "stats.h"
#include "table.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: vmreplay stats [options] DIR...\n"
	"\n"
	"Gathers the results of the sweep in DIR (or split over several DIRs)\n"
	"and, per trace, memory limit, policy, swappiness and metric (every\n"
	"vmstat counter and the derived ones): n, mean, standard deviation and\n"
	"confidence interval over the\n"
	"seeds; Welch's t-test of each policy against its baseline (X+patch vs X,\n"
	"mglru vs classic), Holm's correction over the whole sweep, Cohen's d.\n"
	"\n"
	"  -f, --format FMT     tsv (default; for gnuplot), json, or the tables:\n"
	"                       text, markdown, latex (booktabs)\n"
	"  -o, --out FILE       write there (whole or not at all), not to stdout\n"
	"  -O, --out-dir DIR2   write every form into DIR2: stats.tsv, stats.json,\n"
	"                       tables.txt, tables.md, tables.tex\n"
	"  -m, --metric NAME    tables of this metric only (repeatable)\n"
	"      --conf LEVEL     confidence level of the intervals (default 0.95)\n"
	"      --alpha A        significance after correction (default 0.05)\n"
	"      --baseline P=B   test policy P against B (B = none: do not);\n"
	"                       repeatable\n"
	"      --partial        use the results there are when runs are missing\n"
	"  -h, --help           this help\n"
	"\n"
	"Exit status: 0 ok, 1 missing or damaged results, 2 usage.\n";

enum fmt { F_TSV, F_JSON, F_TEXT, F_MARKDOWN, F_LATEX };

static const char *const fmt_names[] = { "tsv", "json", "text", "markdown", "latex" };

static void write_fmt(FILE *f, const struct stats *st, enum fmt fmt, char **metrics, size_t nm)
{
	switch (fmt) {
	case F_TSV: stats_write_tsv(f, st); break;
	case F_JSON: stats_write_json(f, st); break;
	case F_TEXT: table_write(f, st, TABLE_TEXT, metrics, nm); break;
	case F_MARKDOWN: table_write(f, st, TABLE_MARKDOWN, metrics, nm); break;
	case F_LATEX:
		fputs("% vmreplay stats: tables for \\usepackage{booktabs}\n", f);
		table_write(f, st, TABLE_LATEX, metrics, nm);
		break;
	}
}

static int write_file(const char *path, const struct stats *st, enum fmt fmt, char **metrics, size_t nm)
{
	struct atomic_file af;
	char err[4200];
	if (atomic_open(&af, path, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "stats", "%s", err);
	write_fmt(af.fp, st, fmt, metrics, nm);
	if (atomic_commit(&af, err, sizeof(err)) != 0)
		return cli_error(EXIT_FAIL, "stats", "%s", err);
	return EXIT_OK;
}

static int parse_prob(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !(v > 0 && v < 1))
		return -1;
	*out = v;
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	enum { OPT_CONF = 256, OPT_ALPHA, OPT_BASELINE, OPT_PARTIAL };
	static const struct option opts[] = {
		{ "format", required_argument, 0, 'f' },
		{ "out", required_argument, 0, 'o' },
		{ "out-dir", required_argument, 0, 'O' },
		{ "metric", required_argument, 0, 'm' },
		{ "conf", required_argument, 0, OPT_CONF },
		{ "alpha", required_argument, 0, OPT_ALPHA },
		{ "baseline", required_argument, 0, OPT_BASELINE },
		{ "partial", no_argument, 0, OPT_PARTIAL },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	struct baseline_rules rules = { 0 };
	struct stats_opts so = { .conf_level = 0.95, .alpha = 0.05, .baselines = &rules };
	enum fmt fmt = F_TSV;
	const char *out = "-", *out_dir = NULL;
	char **metrics = calloc(argc + 1, sizeof(*metrics));
	size_t nm = 0;
	int c, rc = EXIT_USAGE;
	if (!metrics)
		return cli_error(EXIT_FAIL, "stats", "out of memory");
	while ((c = getopt_long(argc, argv, "f:o:O:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': {
			size_t i;
			for (i = 0; i < sizeof(fmt_names) / sizeof(fmt_names[0]); i++)
				if (strcmp(optarg, fmt_names[i]) == 0)
					break;
			if (i == sizeof(fmt_names) / sizeof(fmt_names[0])) {
				cli_error(EXIT_USAGE, "stats", "--format: '%s' is not tsv, json, text, "
					  "markdown or latex", optarg);
				goto out;
			}
			fmt = (enum fmt)i;
			break;
		}
		case 'o': out = optarg; break;
		case 'O': out_dir = optarg; break;
		case 'm': metrics[nm++] = optarg; break;
		case OPT_CONF:
			if (parse_prob(optarg, &so.conf_level) != 0) {
				cli_error(EXIT_USAGE, "stats", "--conf: '%s' is not a level in (0, 1)", optarg);
				goto out;
			}
			break;
		case OPT_ALPHA:
			if (parse_prob(optarg, &so.alpha) != 0) {
				cli_error(EXIT_USAGE, "stats", "--alpha: '%s' is not in (0, 1)", optarg);
				goto out;
			}
			break;
		case OPT_BASELINE:
			if (baseline_add(&rules, optarg) != 0) {
				cli_error(EXIT_USAGE, "stats", "--baseline: '%s' is not POLICY=BASE", optarg);
				goto out;
			}
			break;
		case OPT_PARTIAL: so.partial = 1; break;
		case 'h': fputs(usage, stdout); rc = EXIT_OK; goto out;
		default: fputs(usage, stderr); goto out;
		}
	}
	if (optind >= argc) {
		fputs(usage, stderr);
		goto out;
	}
	struct stats st;
	char err[8192];
	if (stats_gather(argv + optind, (size_t)(argc - optind), &so, &st, err, sizeof(err)) != 0) {
		rc = cli_error(EXIT_FAIL, "stats", "%s", err);
		goto out;
	}
	for (size_t i = 0; i < nm; i++) {
		size_t j;
		for (j = 0; j < st.nr_metrics && strcmp(st.metrics[j], metrics[i]); j++)
			;
		if (j == st.nr_metrics) {
			rc = cli_error(EXIT_USAGE, "stats", "--metric: no result of %s has '%s'",
				       argv[optind], metrics[i]);
			stats_free(&st);
			goto out;
		}
	}
	if (out_dir) {
		static const char *const names[] = { "stats.tsv", "stats.json", "tables.txt",
						     "tables.md", "tables.tex" };
		rc = EXIT_OK;
		if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
			rc = cli_error(EXIT_FAIL, "stats", "%s: %s", out_dir, strerror(errno));
		for (int i = 0; i < 5 && rc == EXIT_OK; i++) {
			char path[4200];
			snprintf(path, sizeof(path), "%s/%s", out_dir, names[i]);
			rc = write_file(path, &st, (enum fmt)i, metrics, nm);
		}
	} else {
		rc = write_file(out, &st, fmt, metrics, nm);
	}
	stats_free(&st);
out:
	baseline_free(&rules);
	free(metrics);
	return rc;
}
