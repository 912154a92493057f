/*
 * plot.h — a sweep's figures: data files written here, drawn by gnuplot.
 *
 * For every condition (trace or trace set, memory limit, node memory,
 * swap) of the kernel policies: each metric of opts.metrics versus
 * swappiness, one panel per policy against its baseline, y from 0 (or,
 * with opts.relative, each policy's change from its baseline in %), the
 * captured kernel's own counters drawn where the condition is the one it
 * was captured in (plots/swappiness.gp); an overview of the metrics for
 * the base policies (plots/overview.gp); where the runs recorded them,
 * the CDF of pages scanned and of latency per reclaim invocation
 * (plots/cdf.gp) and the isolation/throttling time series
 * (plots/timeline.gp).  For policies without swappiness (lru): miss ratio
 * versus memory (plots/missratio.gp).  A metric that is 0 in every run of
 * a condition gets no figure; the index names it.  Every figure is PDF,
 * SVG and PNG plus a LaTeX (cairolatex) variant that \input works on from
 * its own folder, with the data file it was drawn from beside it; each is
 * drawn into a staging folder and moved into place only once every
 * output is whole, so none is ever empty.  OUT/index.html (a table of
 * contents per trace, PNG thumbnails) and OUT/README.md list them with
 * their captions.
 */
#ifndef PLOT_H
#define PLOT_H

#include <stddef.h>
#include "stats.h"

struct plot_opts {
	char *const *dirs;             /* the sweep directories              */
	size_t nr_dirs;
	const char *out;               /* where figures go                   */
	const char *scripts;           /* the folder of the gnuplot scripts  */
	char *const *metrics;          /* versus swappiness                  */
	size_t nr_metrics;
	int cdf_swappiness;            /* -1: the swept value nearest 60     */
	unsigned jobs;                 /* gnuplot processes at once          */
	int relative;                  /* change from the baseline, in %     */
	const struct baseline_rules *baselines;   /* NULL: the defaults      */
};

/* The metrics drawn versus swappiness unless told otherwise. */
extern const char *const plot_default_metrics[];
extern const size_t plot_nr_default_metrics;

struct figure {
	char stem[1024];               /* relative to out, no extension      */
	char data[1024];               /* its data file, relative to out     */
	char caption[1536];
	char trace[65];                /* "": not of one trace (missratio)   */
	char cond[512];                /* the condition, as text             */
	int latex;                     /* has latex/… variant                */
};

/* A metric left out of a condition's figures: 0 in every run. */
struct omitted {
	char trace[65];
	char cond[512];
	char metric[64];
};

struct figure_list {
	struct figure *f;
	size_t n;
	struct omitted *o;
	size_t no;
};

/*
 * Writes the data files, runs gnuplot, checks every output, writes the
 * index.  0, or -1 with err set (a gnuplot failure quotes its message).
 */
int plot_sweep(const struct stats *st, const struct plot_opts *o, struct figure_list *figs,
	       char *err, size_t errlen);
void figure_list_free(struct figure_list *l);

/* OUT/index.html and OUT/README.md (plots/index.c). */
int plot_write_index(const char *out, const struct figure_list *figs, char *err, size_t errlen);

#endif
