/* cmd_plot.c — `vmreplay plot`: draw a sweep's figures with gnuplot. */
#include "cli.h"
#include "paths.h"
#include "plot.h"
#include "stats.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: vmreplay plot [options] DIR...\n"
	"\n"
	"Draws the figures of the sweep in DIR (or split over several DIRs) with\n"
	"gnuplot: each metric versus swappiness (one panel per policy against\n"
	"its baseline, y from 0, confidence intervals, a * where a policy\n"
	"differs from its baseline after Holm's correction, the captured\n"
	"kernel's own counters where the traces are captures) and an overview\n"
	"of them for the base policies; CDFs of pages scanned and latency per reclaim\n"
	"invocation and isolation/throttling time series where the sweep\n"
	"recorded events and timelines; miss ratio versus memory for lru.\n"
	"PDF, SVG, PNG and LaTeX (cairolatex), the data beside each, and\n"
	"index.html and README.md listing them with their captions.\n"
	"\n"
	"  -o, --out DIR2       where the figures go (default: the first DIR/figures)\n"
	"  -m, --metric NAME    a metric versus swappiness (repeatable; default:\n"
	"                       pgsteal_file pgsteal_anon pgscan_file pgscan_anon\n"
	"                       workingset_refault_file workingset_refault_anon)\n"
	"      --relative       each policy's change from its baseline (%), not\n"
	"                       both from 0\n"
	"      --at N           the swappiness of the CDFs and time series\n"
	"                       (default: the swept value nearest 60)\n"
	"  -j, --jobs N         gnuplot processes at once (default: online CPUs)\n"
	"      --scripts DIR3   the gnuplot scripts (default: $VMREPLAY_PLOTS, else\n"
	"                       the installed ones, else the source tree's plots/)\n"
	"      --conf LEVEL     confidence level (default 0.95)\n"
	"      --alpha A        significance after correction (default 0.05)\n"
	"      --partial        draw what there is when runs are missing\n"
	"  -h, --help           this help\n"
	"\n"
	"Exit status: 0 ok, 1 missing results or a gnuplot failure, 2 usage.\n";

/* $VMREPLAY_PLOTS, else the installed or in-tree plots/ (paths.h). */
static int find_scripts(char *buf, size_t len)
{
	const char *env = getenv("VMREPLAY_PLOTS");
	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return 0;
	}
	return paths_data("plots", "swappiness.gp", buf, len);
}

/* Every --metric a metric of the sweep, --at one of its swappiness
 * values; else a usage error naming what the sweep has.  0 or -1. */
static int check_request(const struct stats *st, const struct plot_opts *po, int user_metrics)
{
	char have[1024];
	size_t n = 0;
	for (size_t i = 0; user_metrics && i < po->nr_metrics; i++) {
		size_t m = 0;
		while (m < st->nr_metrics && strcmp(st->metrics[m], po->metrics[i]) != 0)
			m++;
		if (m < st->nr_metrics)
			continue;
		for (size_t k = 0; k < st->nr_metrics && n < sizeof(have); k++)
			n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%s", k ? " " : "", st->metrics[k]);
		cli_error(EXIT_USAGE, "plot", "--metric: the sweep has no metric '%s' (it has: %s)",
			  po->metrics[i], n ? have : "none");
		return -1;
	}
	if (po->cdf_swappiness < 0)
		return 0;
	int seen[201] = { 0 }, found = 0;
	for (size_t g = 0; g < st->nr_groups; g++) {
		int sw = st->groups[g].swappiness;
		if (sw >= 0 && sw <= 200)
			seen[sw] = 1;
		found |= sw == po->cdf_swappiness;
	}
	if (found)
		return 0;
	for (int sw = 0; sw <= 200 && n < sizeof(have); sw++)
		if (seen[sw])
			n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%d", n ? ", " : "", sw);
	cli_error(EXIT_USAGE, "plot", "--at: the sweep has no swappiness %d (it has: %s)", po->cdf_swappiness,
		  n ? have : "none");
	return -1;
}

int cmd_plot(int argc, char **argv)
{
	enum { OPT_AT = 256, OPT_SCRIPTS, OPT_CONF, OPT_ALPHA, OPT_PARTIAL, OPT_RELATIVE };
	static const struct option opts[] = {
		{ "out", required_argument, 0, 'o' },
		{ "metric", required_argument, 0, 'm' },
		{ "at", required_argument, 0, OPT_AT },
		{ "jobs", required_argument, 0, 'j' },
		{ "scripts", required_argument, 0, OPT_SCRIPTS },
		{ "conf", required_argument, 0, OPT_CONF },
		{ "alpha", required_argument, 0, OPT_ALPHA },
		{ "partial", no_argument, 0, OPT_PARTIAL },
		{ "relative", no_argument, 0, OPT_RELATIVE },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	struct plot_opts po = { .cdf_swappiness = -1 };
	struct stats_opts so = { .conf_level = 0.95, .alpha = 0.05 };
	const char *scripts = NULL;
	char **metrics = calloc(argc + 1, sizeof(*metrics));
	size_t nm = 0;
	uint64_t v;
	int c, rc = EXIT_USAGE;
	if (!metrics)
		return cli_error(EXIT_FAIL, "plot", "out of memory");
	while ((c = getopt_long(argc, argv, "o:m:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': po.out = optarg; break;
		case 'm': metrics[nm++] = optarg; break;
		case OPT_AT:
			if (cli_parse_u64(optarg, 0, 200, &v) != 0) {
				cli_error(EXIT_USAGE, "plot", "--at: '%s' is not a swappiness (0-200)", optarg);
				goto out;
			}
			po.cdf_swappiness = (int)v;
			break;
		case 'j':
			if (cli_parse_u64(optarg, 1, 1024, &v) != 0) {
				cli_error(EXIT_USAGE, "plot", "--jobs: '%s' is not 1-1024", optarg);
				goto out;
			}
			po.jobs = (unsigned)v;
			break;
		case OPT_SCRIPTS: scripts = optarg; break;
		case OPT_CONF:
		case OPT_ALPHA: {
			char *end;
			errno = 0;
			double p = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(p > 0 && p < 1)) {
				cli_error(EXIT_USAGE, "plot", "%s: '%s' is not in (0, 1)",
					  c == OPT_CONF ? "--conf" : "--alpha", optarg);
				goto out;
			}
			*(c == OPT_CONF ? &so.conf_level : &so.alpha) = p;
			break;
		}
		case OPT_PARTIAL: so.partial = 1; break;
		case OPT_RELATIVE: po.relative = 1; break;
		case 'h': fputs(usage, stdout); rc = EXIT_OK; goto out;
		default: rc = cli_bad_option("plot", argv, "o:m:j:h"); goto out;
		}
	}
	if (optind >= argc) {
		rc = cli_error(EXIT_USAGE, "plot", "a sweep directory is required");
		goto out;
	}
	po.dirs = argv + optind;
	po.nr_dirs = (size_t)(argc - optind);
	char outbuf[PATH_MAX + 16], scriptbuf[PATH_MAX], err[8192];
	if (!po.out) {
		snprintf(outbuf, sizeof(outbuf), "%s/figures", po.dirs[0]);
		po.out = outbuf;
	}
	if (scripts)
		snprintf(scriptbuf, sizeof(scriptbuf), "%s", scripts);
	else if (find_scripts(scriptbuf, sizeof(scriptbuf)) != 0) {
		rc = cli_error(EXIT_FAIL, "plot", "cannot find the gnuplot scripts (swappiness.gp, installed or in plots/); "
			       "use --scripts or VMREPLAY_PLOTS");
		goto out;
	}
	po.scripts = scriptbuf;
	if (nm) {
		po.metrics = metrics;
		po.nr_metrics = nm;
	} else {
		po.metrics = (char *const *)plot_default_metrics;
		po.nr_metrics = plot_nr_default_metrics;
	}
	if (!po.jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		po.jobs = n > 0 ? (unsigned)n : 1;
	}
	struct stats st;
	if (stats_gather(po.dirs, po.nr_dirs, &so, &st, err, sizeof(err)) != 0) {
		rc = cli_error(EXIT_FAIL, "plot", "%s", err);
		goto out;
	}
	/* What the user asked for that the sweep does not have is a usage
	 * error, not a figure silently missing. */
	if (check_request(&st, &po, nm != 0) != 0) {
		stats_free(&st);
		goto out;
	}
	struct figure_list figs;
	if (plot_sweep(&st, &po, &figs, err, sizeof(err)) != 0) {
		rc = cli_error(EXIT_FAIL, "plot", "%s", err);
	} else {
		fprintf(stderr, "vmreplay plot: %zu figures in %s (index.html lists them)\n", figs.n, po.out);
		rc = EXIT_OK;
	}
	figure_list_free(&figs);
	stats_free(&st);
out:
	free(metrics);
	return rc;
}
