/* slurm.c — submit a sweep as a Slurm job array (slurm.h). */
#include "slurm.h"
#include "atomic.h"
#include "sweep_exec.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Single-quotes S for sh. */
static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

static size_t count_results(const char *dir, const struct sweep_plan *plan,
			    const size_t *todo, size_t n)
{
	size_t done = 0;
	for (size_t i = 0; i < n; i++) {
		char rel[64], path[4200];
		sweep_path("results", &plan->runs[todo[i]], rel, sizeof(rel));
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		done += access(path, F_OK) == 0;
	}
	return done;
}

/* Runs ARGV with stdout into OUT (NUL-terminated, first line only).
 * Returns the exit status, or -1 if it could not run. */
static int capture(char **argv, char *out, size_t outlen)
{
	int fd[2];
	if (pipe(fd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "vmreplay sweep: cannot run %s: %s (is Slurm installed?)\n",
			argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	size_t len = 0;
	ssize_t r;
	char sink[4096];
	/* Read everything, keep what fits: a full pipe must not block it. */
	while ((r = read(fd[0], len + 1 < outlen ? out + len : sink,
			 len + 1 < outlen ? outlen - 1 - len : sizeof(sink))) > 0 || (r < 0 && errno == EINTR))
		if (r > 0 && len + 1 < outlen)
			len += r;
	close(fd[0]);
	out[len] = 0;
	out[strcspn(out, "\n")] = 0;
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Waits for JOBID to leave the queue, drawing progress from the results
 * that appear.  squeue lists a job's pending and running array tasks and
 * nothing once all have ended (or, after MinJobAge, fails on the unknown
 * id); either means the job is over.  Polling squeue rather than
 * `sbatch --wait` keeps the wait within a second of the job's end
 * instead of sbatch's growing poll interval.
 */
static void wait_job(const char *jobid, const struct slurm_opts *o, const struct sweep_plan *plan,
		     const size_t *todo, size_t n)
{
	char *argv[] = { "squeue", "-h", "-j", (char *)jobid, "-o", "%i", NULL };
	time_t start = time(NULL);
	for (;;) {
		char out[256];
		int rc = capture(argv, out, sizeof(out));
		if (rc != 0 || !out[0])
			break;
		if (o->progress)
			fprintf(stderr, "\rsweep (slurm job %s): %zu/%zu runs, %ld s\033[K", jobid,
				count_results(o->dir, plan, todo, n), n, (long)(time(NULL) - start));
		usleep(500000);
	}
	if (o->progress)
		fprintf(stderr, "\rsweep (slurm job %s): %zu/%zu runs, %ld s\033[K\n", jobid,
			count_results(o->dir, plan, todo, n), n, (long)(time(NULL) - start));
}

int slurm_submit(const struct sweep_plan *plan, const size_t *todo, size_t n,
		 const struct slurm_opts *o, char *jobid, size_t jobidlen,
		 char *err, size_t errlen)
{
	size_t chunk = o->chunk;
	if (!chunk)
		chunk = (n + SLURM_MAX_ARRAY - 1) / SLURM_MAX_ARRAY;
	if (!chunk)
		chunk = 1;
	size_t tasks = (n + chunk - 1) / chunk;
	if (tasks > SLURM_MAX_ARRAY) {
		snprintf(err, errlen, "--chunk %zu makes %zu array tasks; Slurm's default MaxArraySize "
			 "allows %d (use a larger --chunk)", chunk, tasks, SLURM_MAX_ARRAY);
		return -1;
	}

	/* A name per submission, so a resubmission never rewrites the list
	 * a still-running job reads. */
	char tag[64], todo_path[4200], script[4200];
	snprintf(tag, sizeof(tag), "%ld-%d", (long)time(NULL), (int)getpid());
	snprintf(todo_path, sizeof(todo_path), "%s/slurm/%s.todo", o->dir, tag);
	snprintf(script, sizeof(script), "%s/slurm/%s.sbatch", o->dir, tag);

	struct atomic_file af;
	if (atomic_open(&af, todo_path, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		fprintf(af.fp, "%s\n", plan->runs[todo[i]].id);
	if (atomic_commit(&af, err, errlen) != 0)
		return -1;

	if (atomic_open(&af, script, err, errlen) != 0)
		return -1;
	fprintf(af.fp, "#!/bin/sh\n"
		"# vmreplay sweep: %zu runs, %zu per array task (written by vmreplay sweep --slurm)\n"
		"#SBATCH --job-name=vmreplay-sweep\n"
		"#SBATCH --array=0-%zu\n"
		"#SBATCH --ntasks=1\n"
		"#SBATCH --output=", n, chunk, tasks - 1);
	fprintf(af.fp, "%s/slurm/%%A_%%a.out\n", o->dir);
	fputs("exec ", af.fp);
	sh_quote(af.fp, o->exe);
	fprintf(af.fp, " sweep --task \"$SLURM_ARRAY_TASK_ID\" --chunk %zu --todo ", chunk);
	sh_quote(af.fp, todo_path);
	fputc(' ', af.fp);
	sh_quote(af.fp, o->dir);
	fputc('\n', af.fp);
	if (atomic_commit(&af, err, errlen) != 0)
		return -1;
	chmod(script, 0755);

	char **argv = calloc(o->nr_sbatch_args + 4, sizeof(*argv));
	if (!argv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t a = 0;
	argv[a++] = "sbatch";
	argv[a++] = "--parsable";
	for (size_t i = 0; i < o->nr_sbatch_args; i++)
		argv[a++] = o->sbatch_args[i];
	argv[a++] = script;
	argv[a] = NULL;
	int rc = capture(argv, jobid, jobidlen);
	free(argv);
	jobid[strcspn(jobid, ";")] = 0;    /* "JOBID;CLUSTER" on multi-cluster setups */
	if (rc != 0 || !jobid[0]) {
		snprintf(err, errlen, "sbatch %s (see its message above; script %s)",
			 rc == 0 ? "printed no job id" : "failed", script);
		return -1;
	}
	if (!o->wait)
		return 0;
	if (o->progress)
		fprintf(stderr, "vmreplay sweep: submitted job %s (%zu runs); waiting for it\n", jobid, n);
	wait_job(jobid, o, plan, todo, n);
	size_t done = count_results(o->dir, plan, todo, n);
	if (done < n) {
		snprintf(err, errlen, "job %s ended with %zu of %zu runs without a result "
			 "(see %s/slurm/%s_*.out and %s/logs/)", jobid, n - done, n, o->dir, jobid, o->dir);
		return -1;
	}
	return 0;
}

int slurm_task_runs(const char *todo_file, size_t chunk, size_t task,
		    const struct sweep_plan *plan, size_t **runs, size_t *n,
		    char *err, size_t errlen)
{
	FILE *f = fopen(todo_file, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", todo_file, strerror(errno));
		return -1;
	}
	*runs = malloc((chunk + 1) * sizeof(**runs));
	*n = 0;
	if (!*runs) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	char line[64];
	size_t lineno = 0;
	int rc = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (lineno <= task * chunk || lineno > (task + 1) * chunk)
			continue;
		line[strcspn(line, "\n")] = 0;
		size_t i;
		for (i = 0; i < plan->nr_runs && strcmp(plan->runs[i].id, line) != 0; i++)
			;
		if (i == plan->nr_runs) {
			snprintf(err, errlen, "%s: line %zu: run '%s' is not in the plan (was the "
				 "sweep replanned while the job was queued?)", todo_file, lineno, line);
			rc = -1;
			break;
		}
		(*runs)[(*n)++] = i;
	}
	fclose(f);
	if (rc == 0 && *n == 0) {
		snprintf(err, errlen, "%s: array task %zu has no runs (%zu listed, %zu per task)",
			 todo_file, task, lineno, chunk);
		rc = -1;
	}
	if (rc) {
		free(*runs);
		*runs = NULL;
	}
	return rc;
}
