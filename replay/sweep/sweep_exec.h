/*
 * sweep_exec.h — run a sweep's runs as parallel child processes.
 *
 * Each run is `vmreplay run … -o staging/ID.tsv` (fork and exec of this
 * very binary, so a crash in a policy costs one run, not the sweep); when
 * it exits 0 and its result checks out, staging/ID.tsv is renamed to
 * results/ID.tsv — the commit point of the run.  The local sweep and each
 * Slurm array task use the same code.
 */
#ifndef SWEEP_EXEC_H
#define SWEEP_EXEC_H

#include <stddef.h>
#include "sweep.h"

struct sweep_exec_opts {
	const char *dir;               /* the sweep directory               */
	const char *exe;               /* absolute path of vmreplay         */
	unsigned jobs;                 /* runs at once                      */
	int progress;                  /* progress line (on a terminal)     */
};

struct sweep_exec_report {
	size_t done, failed;
	int interrupted;               /* the signal that stopped it, or 0  */
	double seconds;
	char first_error[1024];        /* the first failed run's message    */
};

/*
 * Runs plan->runs[todo[0..n)].  Stops starting runs at the first failure
 * or on SIGINT/SIGTERM/SIGHUP, waits for those running, and leaves no
 * staging file behind.  0 when every run succeeded, else -1.
 */
int sweep_exec(const struct sweep_plan *plan, const size_t *todo, size_t n,
	       const struct sweep_exec_opts *o, struct sweep_exec_report *rep);

/* Removes leftovers of a killed sweep: staging files, atomic.h's *.tmp. */
void sweep_exec_clean(const char *dir);

/* "1h02m", "3m07s", "12s". */
void sweep_format_duration(double s, char *buf, size_t len);

#endif
