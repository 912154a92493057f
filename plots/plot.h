/*
 * plot.h — a sweep's figures: data files written here, drawn by gnuplot.
 *
 * For every condition (trace, memory limit, node memory, swap) of the
 * kernel policies: each metric of opts.metrics versus swappiness
 * (plots/swappiness.gp) and a six-panel overview of them
 * (plots/overview.gp); where the runs recorded them, the CDF of pages
 * scanned and of latency per reclaim invocation (plots/cdf.gp) and the
 * isolation/throttling time series (plots/timeline.gp).  For policies
 * without swappiness (lru): miss ratio versus memory (plots/missratio.gp).
 * Every figure is PDF, SVG and PNG plus a LaTeX (cairolatex) variant,
 * with the data file it was drawn from beside it, and is listed with its
 * caption in OUT/index.html and OUT/README.md.
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
};

/* The metrics drawn versus swappiness unless told otherwise. */
extern const char *const plot_default_metrics[];
extern const size_t plot_nr_default_metrics;

struct figure {
	char stem[1024];               /* relative to out, no extension      */
	char data[1024];               /* its data file, relative to out     */
	char caption[1024];
	int latex;                     /* has latex/… variant                */
};

struct figure_list {
	struct figure *f;
	size_t n;
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
