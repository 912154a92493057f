/*
 * stats.h — a sweep's results summarised and tested.
 *
 * Runs that differ only in their seed are replicates of one condition
 * (trace, memory limit, node memory, swap, policy, swappiness): a group.
 * For each group and metric: n, mean, standard deviation and a confidence
 * interval of the mean; and, where the group's policy has a baseline
 * (baseline.h) measured in the same condition, Welch's t-test of the two
 * (welch.h), Cohen's d, and Holm's correction over every test of the
 * sweep (holm.h).
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"

struct stats_group {
	char trace[65];
	char policy[64];
	char swap[65];                 /* "-": the run's default */
	int swappiness;                /* -1: none               */
	uint64_t memory_limit;         /* bytes                  */
	uint64_t node_memory;          /* 0: the run's default   */
	size_t nr_runs;
};

enum stats_test {
	STATS_NO_BASELINE,             /* no baseline, or none measured here */
	STATS_TESTED,
	STATS_TOO_FEW,                 /* fewer than 2 values on a side      */
	STATS_CONSTANT,                /* both sides constant: t undefined   */
};

struct stats_row {                     /* one group, one metric */
	size_t group, metric;
	double *x;                     /* the values, one per run that has it */
	size_t n;
	double mean, sd, ci_low, ci_high;       /* NaN when undefined */
	/* Against the baseline: */
	long base;                     /* row index, or -1 */
	enum stats_test test;
	double diff, rel_diff;         /* mean - base mean; diff / |base mean| */
	double diff_lo, diff_hi;       /* conf_level interval of diff (Welch) */
	double t, df, p, p_holm, d;    /* d: Cohen's d on the mean variance  */
	int significant;               /* p_holm < alpha                     */
};

struct stats {
	struct stats_group *groups;
	size_t nr_groups;
	char **metrics;
	size_t nr_metrics;
	struct stats_row *rows;        /* by group, then metric order */
	size_t nr_rows;
	size_t nr_tests;               /* the size of Holm's family          */
	size_t nr_results, nr_missing;
	double conf_level, alpha;
};

struct stats_opts {
	double conf_level;             /* of the intervals, e.g. 0.95        */
	double alpha;                  /* significance after correction      */
	int partial;                   /* use what there is when runs miss   */
	const struct baseline_rules *baselines;
};

/*
 * Gathers the results of the sweeps in DIRS[0..n) (the runs of each
 * DIR/plan.tsv; one sweep may be split over several directories, and
 * runs of one condition in several are replicates of it) and computes
 * everything above.  0, or -1 with err set: a missing result (unless
 * opts->partial), a damaged one, or one run in two directories is an
 * error naming the file.
 */
int stats_gather(char *const *dirs, size_t n, const struct stats_opts *opts, struct stats *st,
		 char *err, size_t errlen);
void stats_free(struct stats *st);

/* Summary of a sample: mean, sd and the conf_level interval of the mean.
 * n < 2 leaves sd and the interval NaN. */
void stats_describe(const double *x, size_t n, double conf_level,
		    double *mean, double *sd, double *lo, double *hi);

/* Output (stats_out.c): TSV for gnuplot, JSON. */
#include <stdio.h>
void stats_write_tsv(FILE *f, const struct stats *st);
void stats_write_json(FILE *f, const struct stats *st);

/* The test's state as a word: "-", "ok", "too-few", "constant". */
const char *stats_test_name(enum stats_test t);

#endif
