/*
 * sweep.h — a sweep's runs: expansion, identity, the plan file, results.
 *
 * A sweep directory holds everything a sweep needs and makes, so that it
 * can be moved to a cluster's shared file system as it is:
 *
 *   plan.tsv             every run (written by `vmreplay sweep`)
 *   traces/NAME.vmr      each trace, ingested once
 *   results/ID.tsv       one result per finished run (RESULTS.md)
 *   events/ID.tsv        per-reclaim records, when the sweep asks for them
 *   timeline/ID.tsv      nr_isolated / throttling series, likewise
 *   staging/, logs/      a run's output before it is committed; its stderr
 *   slurm/               job scripts and Slurm's logs
 *
 * A run's ID is a hash of everything that determines its result (trace
 * contents, policy, parameters, seed, vmreplay version), so a restarted
 * sweep, a changed sweep file or another machine finds the same results
 * under the same names.  A run is done exactly when results/ID.tsv
 * exists: it is renamed there only after every other output of the run
 * is complete.
 */
#ifndef SWEEP_H
#define SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "policy_list.h"
#include "sweep_file.h"

struct sweep_trace_info {
	char name[65];
	char set[65];                  /* its trace set ("": its own name)    */
	char hash[33];                 /* trace_hash of RESULTS.md            */
	uint64_t pages, page_size;     /* distinct pages: the base of P%      */
	/* What the capture ran under, from the .vmr's metadata (not in
	 * plan.tsv: only expansion needs them). */
	int has_swappiness, swappiness;
	uint64_t captured_limit;       /* bytes; 0: no limit, or not known   */
};

struct sweep_run {
	char id[17];
	size_t trace;                  /* index into sweep_plan.traces        */
	char policy[64];
	int kernel;                    /* takes swappiness: a kernel model    */
	int swappiness;                /* -1: none                            */
	uint64_t memory_limit;         /* bytes, whole pages                  */
	uint64_t node_memory;          /* 0: the run's default                */
	char swap[65];                 /* "": the run's default               */
	int64_t seed;                  /* -1: deterministic                   */
	int events, timeline;
};

struct sweep_plan {
	struct sweep_trace_info *traces;
	size_t nr_traces;
	struct sweep_run *runs;
	size_t nr_runs;
};

/* Refuses sweeps this large: a typo, not an experiment. */
#define SWEEP_MAX_RUNS 1000000

/*
 * Expands SPEC over POLICIES for the traces described by INFO (one per
 * spec trace, same order).  Unknown policies and limits smaller than a
 * page are errors naming the sweep file's line.  0 or -1.
 */
int sweep_expand(const struct sweep_spec *spec, const struct policy_list *policies,
		 const struct sweep_trace_info *info, struct sweep_plan *plan,
		 char *err, size_t errlen);
void sweep_plan_free(struct sweep_plan *plan);

/* DIR/plan.tsv, written whole or not at all, and read back. */
int sweep_plan_write(const char *dir, const struct sweep_plan *plan, char *err, size_t errlen);
int sweep_plan_read(const char *dir, struct sweep_plan *plan, char *err, size_t errlen);

/* Paths relative to the sweep directory. */
void sweep_vmr_path(const struct sweep_plan *plan, size_t trace, char *buf, size_t len);
void sweep_path(const char *sub, const struct sweep_run *r, char *buf, size_t len);

/*
 * The `vmreplay run` command line of R, writing its result to OUT, all
 * paths relative to the sweep directory.  ARGV gets at most
 * SWEEP_MAX_ARGS entries and NULL; BUF holds their text.
 */
#define SWEEP_MAX_ARGS 32
void sweep_run_argv(const struct sweep_plan *plan, const struct sweep_run *r, const char *exe,
		    const char *out, char **argv, char *buf, size_t buflen);

/*
 * Checks that PATH is a whole result of run R (its identity columns name
 * R).  0 valid, -1 with the reason in err.
 */
int sweep_result_check(const char *path, const struct sweep_plan *plan,
		       const struct sweep_run *r, char *err, size_t errlen);

/* Indices of the runs without a valid result in DIR/results.  INVALID
 * counts results that exist but were refused (and will be redone). */
int sweep_missing(const char *dir, const struct sweep_plan *plan, size_t **todo, size_t *n,
		  size_t *invalid, int verbose);

/* Creates DIR and its subdirectories. */
int sweep_mkdirs(const char *dir, char *err, size_t errlen);

#endif
