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
	"and, per trace (or trace set), memory limit, policy, swappiness and\n"
	"metric (every vmstat counter and the derived ones): n, mean, standard\n"
	"deviation and confidence interval over the replicates (the captures of\n"
	"a trace set, each the mean of its seeds; else the seeds); each policy\n"
	"tested against its baseline (X+patch vs X, mglru vs classic): paired t\n"
	"and Wilcoxon's signed-rank test on the same captures, else Welch's\n"
	"t-test; Cohen's d; Holm's correction over the headline metrics\n"
	"(pgscan, pgsteal, workingset_refault, anon and file, and the outcome).\n"
	"\n"
	"  -f, --format FMT     tsv (default; for gnuplot), json, or the tables:\n"
	"                       text, markdown, latex (booktabs)\n"
	"  -o, --out FILE       write there (whole or not at all), not to stdout\n"
	"  -O, --out-dir DIR2   write every form into DIR2: stats.tsv, stats.json,\n"
	"                       tables.txt, tables.md, tables.tex\n"
	"  -m, --metric NAME    this metric only (repeatable; Holm's family is\n"
	"                       then the metrics named; default tables: the\n"
	"                       headline metrics)\n"
	"  -t, --trace NAME     this trace or trace set only (repeatable)\n"
	"  -p, --policy NAME    this policy and its baseline only (repeatable)\n"
	"      --holm all       correct over every metric, not the headline ones\n"
	"      --outcome NAME   the run's outcome in the family (default work_done)\n"
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
	/* The tables of the family unless told: a table per counter is a
	 * book, not a paper. */
	if (!nm && !st->all_metrics && fmt >= F_TEXT) {
		static char *headline[16];
		for (nm = 0; nm < stats_nr_headline; nm++)
			headline[nm] = (char *)stats_headline[nm];
		headline[nm++] = (char *)st->outcome;
		metrics = headline;
	}
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
	enum { OPT_CONF = 256, OPT_ALPHA, OPT_BASELINE, OPT_PARTIAL, OPT_HOLM, OPT_OUTCOME };
	static const struct option opts[] = {
		{ "format", required_argument, 0, 'f' },
		{ "out", required_argument, 0, 'o' },
		{ "out-dir", required_argument, 0, 'O' },
		{ "metric", required_argument, 0, 'm' },
		{ "conf", required_argument, 0, OPT_CONF },
		{ "alpha", required_argument, 0, OPT_ALPHA },
		{ "baseline", required_argument, 0, OPT_BASELINE },
		{ "partial", no_argument, 0, OPT_PARTIAL },
		{ "trace", required_argument, 0, 't' },
		{ "policy", required_argument, 0, 'p' },
		{ "holm", required_argument, 0, OPT_HOLM },
		{ "outcome", required_argument, 0, OPT_OUTCOME },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	struct baseline_rules rules = { 0 };
	struct stats_opts so = { .conf_level = 0.95, .alpha = 0.05, .baselines = &rules };
	enum fmt fmt = F_TSV;
	const char *out = "-", *out_dir = NULL;
	char **metrics = calloc(argc + 1, sizeof(*metrics));
	char **traces = calloc(argc + 1, sizeof(*traces)), **policies = calloc(argc + 1, sizeof(*policies));
	size_t nm = 0, nt = 0, np = 0;
	int c, rc = EXIT_USAGE;
	if (!metrics || !traces || !policies) {
		free(metrics);
		free(traces);
		free(policies);
		return cli_error(EXIT_FAIL, "stats", "out of memory");
	}
	while ((c = getopt_long(argc, argv, "f:o:O:m:t:p:h", opts, NULL)) != -1) {
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
		case 't': traces[nt++] = optarg; break;
		case 'p': policies[np++] = optarg; break;
		case OPT_HOLM:
			if (strcmp(optarg, "all") && strcmp(optarg, "headline")) {
				cli_error(EXIT_USAGE, "stats", "--holm: '%s' is not all or headline", optarg);
				goto out;
			}
			so.all_metrics = strcmp(optarg, "all") == 0;
			break;
		case OPT_OUTCOME: so.outcome = optarg; break;
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
		default: rc = cli_bad_option("stats", argv, "f:o:O:m:t:p:h"); goto out;
		}
	}
	if (optind >= argc) {
		rc = cli_error(EXIT_USAGE, "stats", "a sweep directory is required");
		goto out;
	}
	so.traces = traces;
	so.nr_traces = nt;
	so.policies = policies;
	so.nr_policies = np;
	so.metrics = metrics;
	so.nr_metrics = nm;
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
	/* A filter that matches nothing is a typo, not an empty table. */
	for (size_t i = 0; i < nt + np; i++) {
		const char *want = i < nt ? traces[i] : policies[i - nt];
		size_t g;
		for (g = 0; g < st.nr_groups; g++)
			if (strcmp(i < nt ? st.groups[g].trace : st.groups[g].policy, want) == 0)
				break;
		for (size_t k = 0; i < nt && g == st.nr_groups && k < st.nr_captures; k++)
			if (strcmp(st.captures[k], want) == 0)
				g = 0;
		if (g == st.nr_groups) {
			rc = cli_error(EXIT_USAGE, "stats", "--%s: no result of %s has '%s'",
				       i < nt ? "trace" : "policy", argv[optind], want);
			stats_free(&st);
			goto out;
		}
	}
	/* A baseline rule naming a policy the sweep did not run is a typo
	 * too: it would silently test nothing. */
	for (size_t i = 0; i < 2 * rules.n; i++) {
		const char *want = i % 2 ? rules.base[i / 2] : rules.policy[i / 2];
		size_t g;
		for (g = 0; g < st.nr_groups && strcmp(st.groups[g].policy, want) != 0; g++)
			;
		if (g == st.nr_groups && strcmp(want, "none") != 0) {
			rc = cli_error(EXIT_USAGE, "stats", "--baseline: no result of %s has policy '%s'",
				       argv[optind], want);
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
	free(traces);
	free(policies);
	return rc;
}
