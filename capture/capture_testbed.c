/*
 * capture_testbed.c — `vmreplay capture --kernel K`: the whole capture
 * inside the test bed's User-Mode Linux guest.
 *
 * This is the host's side only.  It makes a job folder beside the output
 * directory and runs capture/testbed/run.sh, which boots the guest (the
 * host's / as its read-only root, the job folder read-write at
 * TESTBED_GUEST_JOB) and there runs the same `vmreplay capture` with the
 * trace going to the job folder.  When the guest is off, the trace is
 * renamed into the output directory: it appears whole or not at all.
 *
 * A Ctrl-C reaches run.sh too (same process group), which asks the guest
 * to stop the workload; this side only waits.  A SIGTERM or SIGHUP sent
 * to this process alone is passed on to run.sh.
 */
#include "capture_testbed.h"
#include "paths.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "vmreplay capture: %s %s: %s\n", what, path, strerror(errno));
	return -1;
}

/* The test bed's run.sh: in VMREPLAY_TESTBED, else where paths.h looks
 * (installed as DATADIR/vmreplay/capture/testbed, the source tree's
 * capture/testbed beside a build directory). */
static int runner_path(char *buf, size_t len)
{
	const char *e = getenv("VMREPLAY_TESTBED");
	char dir[PATH_MAX];
	if (e && *e)
		snprintf(dir, sizeof(dir), "%s", e);
	else if (paths_data("capture/testbed", "run.sh", dir, sizeof(dir)) != 0)
		return -1;
	return snprintf(buf, len, "%s/run.sh", dir) < (int)len ? 0 : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) != 0 && errno != ENOENT)
		fprintf(stderr, "vmreplay capture: cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Waits for run.sh; SIGTERM/SIGHUP sent to us go on to it. */
static int wait_runner(pid_t pid)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	sigaddset(&s, SIGCHLD);
	for (;;) {
		int status;
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status)
			     : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
		if (w < 0 && errno != EINTR)
			return 1;
		struct timespec ts = { 0, 200000000 };
		int sig = sigtimedwait(&s, NULL, &ts);
		if (sig == SIGTERM || sig == SIGHUP)
			kill(pid, SIGTERM);
	}
}

int testbed_capture(const struct testbed_run *t)
{
	char runner[PATH_MAX], job[PATH_MAX + 32], trace[PATH_MAX + 64], path[PATH_MAX + 64];
	if (runner_path(runner, sizeof(runner)) != 0 || access(runner, X_OK) != 0) {
		fprintf(stderr, "vmreplay capture: --kernel: cannot find the test bed's run.sh "
			"(DATADIR/vmreplay/capture/testbed, or capture/testbed of the source tree; or set "
			"VMREPLAY_TESTBED)\n");
		rmdir(t->outabs);
		return 1;
	}
	/* Beside the output, so that the trace is renamed, not copied; hostfs
	 * takes the folder as a mount option, so no commas or blanks. */
	if (strpbrk(t->outabs, ", \t\n")) {
		fprintf(stderr, "vmreplay capture: --kernel: the output path %s must have no commas "
			"or blanks (the guest mounts it through hostfs)\n", t->outabs);
		rmdir(t->outabs);
		return 1;
	}
	const char *slash = strrchr(t->outabs, '/');
	snprintf(job, sizeof(job), "%.*s/.%s.testbed-XXXXXX", (int)(slash - t->outabs), t->outabs,
		 slash + 1);
	if (!mkdtemp(job)) {
		fail("cannot create the job folder", job);
		rmdir(t->outabs);
		return 1;
	}

	char *argv[64 + 1];
	int n = 0;
	argv[n++] = "bash";
	argv[n++] = runner;
	argv[n++] = "--kernel";  argv[n++] = (char *)t->kernel;
	argv[n++] = "--mem";     argv[n++] = (char *)t->mem;
	argv[n++] = "--swap";    argv[n++] = (char *)t->swap;
	argv[n++] = "--job";     argv[n++] = job;
	if (t->lru_gen) {
		argv[n++] = "--lru-gen";
		argv[n++] = (char *)t->lru_gen;
	}
	if (t->quiet)
		argv[n++] = "--quiet";
	argv[n++] = "--";
	int first_inner = n;
	for (int i = 0; t->inner[i]; i++)
		n++;
	char **full = malloc((n + 1) * sizeof(*full));
	if (!full) {
		rm_tree(job);
		rmdir(t->outabs);
		fprintf(stderr, "vmreplay capture: out of memory\n");
		return 1;
	}
	memcpy(full, argv, first_inner * sizeof(*full));
	for (int i = 0; t->inner[i]; i++)
		full[first_inner + i] = t->inner[i];
	full[n] = NULL;

	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	/* A terminal's Ctrl-C is run.sh's to handle; we only wait. */
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	pid_t pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp("bash", full);
		fprintf(stderr, "vmreplay capture: cannot run bash %s: %s\n", runner, strerror(errno));
		_exit(127);
	}
	int rc = 1;
	if (pid < 0)
		fail("cannot fork for", runner);
	else
		rc = wait_runner(pid);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(full);

	/* The trace, whole, into the output directory (created empty). */
	struct stat st;
	snprintf(trace, sizeof(trace), "%s/trace", job);
	if (stat(trace, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (rmdir(t->outabs) != 0 || rename(trace, t->outabs) != 0) {
			fail("cannot move the guest's trace to", t->outabs);
			rc = rc ? rc : 1;
		} else {
			char log[PATH_MAX + 64];
			snprintf(path, sizeof(path), "%s/console.log", job);
			snprintf(log, sizeof(log), "%s/guest-console.log", t->outabs);
			if (rename(path, log) != 0 && errno != ENOENT)
				fail("cannot keep the guest's console log as", log);
		}
	} else {
		if (rc == 0) {
			fprintf(stderr, "vmreplay capture: the guest's capture ended well but left "
				"no trace in %s\n", trace);
			rc = 1;
		}
		rmdir(t->outabs);       /* whole or absent */
	}
	rm_tree(job);
	return rc;
}
