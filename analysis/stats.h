/*
 * stats.h — a sweep's results summarised and tested.
 *
 * The runs of one condition (trace or trace set, memory limit, node
 * memory, swap, policy, swappiness) form a group.  What replicates it
 * depends on what the sweep replayed:
 *
 *   captures  a trace set (sweep_file.h) of two or more captures of the
 *             workload: each capture is one replicate, the mean of its
 *             seeds, so the spread is the workload's own, run to run;
 *             the seeds' spread within a capture is reported beside it
 *             (seed_sd) as what it is, the simulator's noise;
 *   seeds     one trace: the replicates are its seeds, which vary only
 *             the simulated I/O latencies, so the spread is the
 *             simulator's, not the workload's, and tables and figures
 *             say so.
 *
 * For each group and metric: n, mean, standard deviation and a confidence
 * interval of the mean; and, where the group's policy has a baseline
 * (baseline.h) measured in the same condition, a test of the two with
 * its effect size: where both replayed the same captures, the paired
 * t-test on the per-capture differences and Wilcoxon's signed-rank test
 * beside it (paired.h); otherwise Welch's t-test (welch.h).  Cohen's d is
 * the difference over the root mean of the two variances in both.
 * Holm's correction (holm.h) runs over the family of the headline
 * metrics — pgscan, pgsteal and workingset_refault, anon and file, and
 * the run's outcome (work_done unless told otherwise) — of every
 * condition and policy, or over every metric on request; tests outside
 * the family keep their p, uncorrected, and are never marked.
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"

struct stats_group {
	char trace[65];                /* the trace set, or the trace */
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

enum stats_replicates { STATS_REP_SEEDS, STATS_REP_CAPTURES };

enum stats_method { STATS_WELCH, STATS_PAIRED };

struct stats_row {                     /* one group, one metric */
	size_t group, metric;
	enum stats_replicates rep;
	double *x;                     /* the replicates: per capture, or per seed */
	size_t *cap;                   /* x[i]'s capture (index into stats.captures) */
	size_t n;                      /* replicates                          */
	size_t runs;                   /* runs that have the metric           */
	double mean, sd, ci_low, ci_high;       /* NaN when undefined */
	double seed_sd;                /* the seeds' sd within a capture, pooled */
	/* Against the baseline: */
	long base;                     /* row index, or -1 */
	enum stats_test test;
	enum stats_method method;      /* paired: the same captures on both sides */
	size_t pairs;                  /* captures both sides replayed (paired) */
	double diff, rel_diff;         /* mean difference; diff / |base mean| */
	double diff_lo, diff_hi;       /* conf_level interval of diff */
	double t, df, p, p_holm, d;    /* d: Cohen's d on the mean variance  */
	double w_v, w_p, w_p_holm;     /* Wilcoxon (paired only), else NaN   */
	int w_exact;
	int in_family;                 /* corrected by Holm with the others  */
	int significant;               /* p_holm < alpha                     */
};

struct stats {
	struct stats_group *groups;
	size_t nr_groups;
	char **metrics;
	size_t nr_metrics;
	struct stats_row *rows;        /* by group, then metric order */
	size_t nr_rows;
	char **captures;               /* the traces of the sweeps, by name  */
	size_t nr_captures;
	size_t nr_tests;               /* the size of Holm's family          */
	size_t nr_tested;              /* every test, in the family or not   */
	int all_metrics;               /* the family: every metric           */
	char outcome[64];              /* the outcome in the headline family */
	size_t nr_results, nr_missing;
	double conf_level, alpha;
};

struct stats_opts {
	double conf_level;             /* of the intervals, e.g. 0.95        */
	double alpha;                  /* significance after correction      */
	int partial;                   /* use what there is when runs miss   */
	const struct baseline_rules *baselines;
	/* Filters (n = 0: everything).  A trace is a set's name or one of
	 * its captures'; a policy brings its baseline along, which its
	 * tests need; metrics limit the rows, and Holm's family to them. */
	char *const *traces, *const *policies, *const *metrics;
	size_t nr_traces, nr_policies, nr_metrics;
	int all_metrics;               /* Holm over every metric             */
	const char *outcome;           /* NULL: work_done                    */
};

/* The headline metrics but the outcome: the counters the linux-mm
 * postings compare. */
extern const char *const stats_headline[];
extern const size_t stats_nr_headline;

/* Is METRIC one of ST's family? */
int stats_in_family(const struct stats *st, const char *metric);

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
/* "captures" or "seeds"; "welch" or "paired". */
const char *stats_rep_name(enum stats_replicates r);
const char *stats_method_name(enum stats_method m);

#endif
