/*
 * slurm.h — a sweep as one Slurm job array.
 *
 * The submitting host plans the sweep and ingests its traces into the
 * sweep directory (which must be on a file system the compute nodes
 * share, as must the vmreplay binary).  The runs still missing are
 * listed in slurm/JOB.todo; array task I runs entries [I*chunk,
 * (I+1)*chunk) of it with `vmreplay sweep --task I`, through the same
 * executor as a local sweep, so results, their names and their commit
 * are identical.  Gathering is then `vmreplay stats DIR`, as locally.
 */
#ifndef SLURM_H
#define SLURM_H

#include <stddef.h>
#include "sweep.h"

/* sbatch --array accepts indices below MaxArraySize, 1001 by default. */
#define SLURM_MAX_ARRAY 1000

struct slurm_opts {
	const char *dir;               /* absolute */
	const char *exe;               /* absolute */
	size_t chunk;                  /* runs per array task; 0: automatic */
	char **sbatch_args;            /* passed to sbatch as they are      */
	size_t nr_sbatch_args;
	int wait;                      /* wait for the job to end           */
	int progress;
};

/*
 * Submits runs todo[0..n) of PLAN.  Writes the job id to JOBID.  With
 * o->wait, returns once the job has ended (0 if every run has a result).
 * 0, or -1 with err set.
 */
int slurm_submit(const struct sweep_plan *plan, const size_t *todo, size_t n,
		 const struct slurm_opts *o, char *jobid, size_t jobidlen,
		 char *err, size_t errlen);

/* The runs array task TASK of the job whose list is TODO_FILE must do.
 * 0, or -1 with err set. */
int slurm_task_runs(const char *todo_file, size_t chunk, size_t task,
		    const struct sweep_plan *plan, size_t **runs, size_t *n,
		    char *err, size_t errlen);

#endif
