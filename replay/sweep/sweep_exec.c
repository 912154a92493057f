/* sweep_exec.c — the local executor of a sweep (sweep_exec.h). */
#include "sweep_exec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* SIGALRM only interrupts waitpid() so the progress line is redrawn. */
static void on_tick(int sig)
{
	(void)sig;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void sweep_format_duration(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%lds", t);
}

struct slot {
	pid_t pid;
	size_t run;
};

/* In the child, between fork and exec: only async-signal-safe calls. */
static void exec_run(const char *dir, const char *errlog, char **argv, pid_t parent)
{
	/* A sweep killed with SIGKILL cannot wait for its runs; this takes
	 * them down with it instead of leaving them writing into a sweep
	 * directory that a restarted sweep is cleaning up. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (chdir(dir) != 0)
		_exit(126);
	int in = open("/dev/null", O_RDONLY);
	int out = open("/dev/null", O_WRONLY);
	int err = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (in < 0 || out < 0 || err < 0)
		_exit(126);
	dup2(in, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	execv(argv[0], argv);
	_exit(127);
}

static void first_line(const char *path, char *buf, size_t len)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static void draw(const struct sweep_exec_opts *o, size_t done, size_t total, size_t running,
		 size_t failed, double start, int final)
{
	if (!o->progress)
		return;
	double el = now() - start;
	char eta[32] = "";
	if (done > 0 && done < total) {
		char d[24];
		sweep_format_duration(el / done * (total - done), d, sizeof(d));
		snprintf(eta, sizeof(eta), ", ETA %s", d);
	}
	fprintf(stderr, "\rsweep: %zu/%zu runs (%.0f%%), %zu running%s%s\033[K", done, total,
		total ? 100.0 * done / total : 100.0, running, eta,
		failed ? ", a run FAILED" : "");
	if (final)
		fputc('\n', stderr);
}

int sweep_exec(const struct sweep_plan *plan, const size_t *todo, size_t n,
	       const struct sweep_exec_opts *o, struct sweep_exec_report *rep)
{
	memset(rep, 0, sizeof(*rep));
	unsigned jobs = o->jobs ? o->jobs : 1;
	struct slot *slots = calloc(jobs, sizeof(*slots));
	if (!slots) {
		snprintf(rep->first_error, sizeof(rep->first_error), "out of memory");
		return -1;
	}
	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term, old_hup, old_alrm;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the signal must break waitpid() out of its sleep. */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sa.sa_handler = on_tick;
	sigaction(SIGALRM, &sa, &old_alrm);
	struct itimerval tick = { { 0, 250000 }, { 0, 250000 } }, off = { { 0, 0 }, { 0, 0 } };
	if (o->progress)
		setitimer(ITIMER_REAL, &tick, NULL);
	stop_signal = 0;

	double start = now();
	size_t next = 0, running = 0;
	pid_t self = getpid();
	while (next < n || running > 0) {
		/* Start runs while there are free slots and no reason to stop. */
		while (running < jobs && next < n && !stop_signal && rep->failed == 0) {
			const struct sweep_run *r = &plan->runs[todo[next]];
			char out[64], errlog[64], argbuf[4096], *argv[SWEEP_MAX_ARGS + 1];
			sweep_path("staging", r, out, sizeof(out));
			snprintf(errlog, sizeof(errlog), "logs/%s.err", r->id);
			sweep_run_argv(plan, r, o->exe, out, argv, argbuf, sizeof(argbuf));
			pid_t pid = fork();
			if (pid < 0) {
				snprintf(rep->first_error, sizeof(rep->first_error), "fork: %s",
					 strerror(errno));
				rep->failed++;
				break;
			}
			if (pid == 0)
				exec_run(o->dir, errlog, argv, self);
			unsigned s = 0;
			while (slots[s].pid)
				s++;
			slots[s].pid = pid;
			slots[s].run = todo[next++];
			running++;
		}
		if (running == 0)
			break;
		draw(o, rep->done, n, running, rep->failed, start, 0);
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;          /* ECHILD: nothing left to wait for */
		}
		unsigned s;
		for (s = 0; s < jobs && slots[s].pid != pid; s++)
			;
		if (s == jobs)
			continue;       /* not one of ours */
		const struct sweep_run *r = &plan->runs[slots[s].run];
		slots[s].pid = 0;
		running--;
		char staged[4200], final[4200], rel[64], why[1024] = "";
		sweep_path("staging", r, rel, sizeof(rel));
		snprintf(staged, sizeof(staged), "%s/%s", o->dir, rel);
		sweep_path("results", r, rel, sizeof(rel));
		snprintf(final, sizeof(final), "%s/%s", o->dir, rel);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			/* Check before committing, so results/ holds only
			 * results of the runs their names say. */
			if (sweep_result_check(staged, plan, r, why, sizeof(why)) == 0 &&
			    rename(staged, final) == 0) {
				rep->done++;
				continue;
			}
			if (!why[0])
				snprintf(why, sizeof(why), "%.900s: %s", final, strerror(errno));
		} else if (stop_signal && WIFSIGNALED(status)) {
			unlink(staged);
			continue;       /* killed with us: not a failure of the run */
		} else {
			char log[4200];
			snprintf(log, sizeof(log), "%s/logs/%s.err", o->dir, r->id);
			first_line(log, why, sizeof(why));
			if (!why[0])
				snprintf(why, sizeof(why), "%s %d", WIFEXITED(status) ? "exit status" : "signal",
					 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		}
		unlink(staged);
		if (rep->failed++ == 0)
			snprintf(rep->first_error, sizeof(rep->first_error), "run %s (%s, %s): %.800s",
				 r->id, plan->traces[r->trace].name, r->policy, why);
	}
	if (o->progress) {
		setitimer(ITIMER_REAL, &off, NULL);
		draw(o, rep->done, n, 0, rep->failed, start, 1);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGALRM, &old_alrm, NULL);
	rep->interrupted = stop_signal;
	rep->seconds = now() - start;
	free(slots);
	return rep->failed || rep->interrupted || rep->done < n ? -1 : 0;
}

static void clean_dir(const char *dir, const char *sub, int all)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' && (l == 1 || (l == 2 && e->d_name[1] == '.')))
			continue;
		if (all || (l > 4 && strcmp(e->d_name + l - 4, ".tmp") == 0)) {
			char f[4500];
			snprintf(f, sizeof(f), "%s/%s", path, e->d_name);
			unlink(f);
		}
	}
	closedir(d);
}

void sweep_exec_clean(const char *dir)
{
	clean_dir(dir, "staging", 1);
	clean_dir(dir, "results", 0);
	clean_dir(dir, "events", 0);
	clean_dir(dir, "timeline", 0);
	clean_dir(dir, "traces", 0);
}
