/* capture_sys.c — settings `vmreplay capture` changes and their journal
 * (see capture_sys.h). */
#include "capture_sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const jnames[J_NR] = {
	"tracefs-mount", "cgroup", "sysctl", "swapfile", "zram", "swapon", "damon",
	"tracefs-instance", "lttng-session", "agent",
};

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int sys_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = strlen(val);
	ssize_t w = write(fd, val, n);
	int e = errno;
	close(fd);
	errno = w == (ssize_t)n ? 0 : (w < 0 ? e : EIO);
	return w == (ssize_t)n ? 0 : -1;
}

int sys_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

void sys_cgroup_signal(const char *dir, int sig)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	int pid;
	while (fscanf(f, "%d", &pid) == 1)
		if (pid > 1 && pid != getpid())
			kill(pid, sig);
	fclose(f);
}

static int cgroup_empty(const char *dir)
{
	char path[4200], buf[64];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (sys_read(path, buf, sizeof(buf)) != 0)
		return 1;
	return buf[0] == '\0';
}

int sys_cgroup_kill_wait(const char *dir, int timeout_ms)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return 0;
	char path[4200];
	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	if (access(path, W_OK) == 0)
		sys_write(path, "1");
	for (int waited = 0;; waited += 20) {
		sys_cgroup_signal(dir, SIGKILL);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (cgroup_empty(dir))
			return 0;
		if (waited >= timeout_ms)
			return -1;
		msleep(20);
	}
}

int sys_cgroup_kill_rmdir(const char *dir, int timeout_ms)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	char path[4200];
	/* cgroup v2 kills the whole subtree at once where it can. */
	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	if (access(path, W_OK) == 0)
		sys_write(path, "1");
	for (int waited = 0;; waited += 20) {
		sys_cgroup_signal(dir, SIGKILL);
		/* Reap our own children among them, so that they leave. */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (cgroup_empty(dir) && rmdir(dir) == 0)
			return 0;
		if (waited >= timeout_ms)
			return -1;
		msleep(20);
	}
}

/* ------------------------------------------------------------------ */
/* Swap header                                                         */

int sys_mkswap(int fd, uint64_t size)
{
	long ps = sysconf(_SC_PAGESIZE);
	if (ps <= 0 || size < (uint64_t)ps * 10) {
		errno = EINVAL;
		return -1;
	}
	char *page = calloc(1, ps);
	if (!page)
		return -1;
	/* union swap_header: 1024 bytes of boot bits, then version 1,
	 * last_page, nr_badpages; the magic ends the first page. */
	uint32_t info[3] = { 1, (uint32_t)(size / ps - 1), 0 };
	memcpy(page + 1024, info, sizeof(info));
	memcpy(page + ps - 10, "SWAPSPACE2", 10);
	ssize_t w = pwrite(fd, page, ps, 0);
	int e = errno;
	free(page);
	if (w != ps) {
		errno = w < 0 ? e : EIO;
		return -1;
	}
	return fsync(fd);
}

/* ------------------------------------------------------------------ */
/* Running a command                                                   */

int sys_run(char *const argv[], char *out, size_t len, int timeout_ms)
{
	int p[2];
	if (out && len)
		out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	size_t n = 0;
	int waited = 0, status = -1, done = 0;
	for (;;) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		int r = poll(&pf, 1, 100);
		if (r > 0) {
			char buf[4096];
			ssize_t k = read(p[0], buf, sizeof(buf));
			if (k > 0) {
				if (out && n + 1 < len) {
					size_t c = (size_t)k < len - 1 - n ? (size_t)k : len - 1 - n;
					memcpy(out + n, buf, c);
					n += c;
					out[n] = '\0';
				}
				continue;
			}
			if (k == 0)
				done = 1;
		} else if (r == 0) {
			waited += 100;
		}
		if (done)
			break;
		if (timeout_ms > 0 && waited >= timeout_ms) {
			kill(-pid, SIGKILL);
			break;
		}
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return -1;
}

/* ------------------------------------------------------------------ */
/* The journal                                                         */

static int mkdir_journal_dir(void)
{
	if (mkdir(CAPTURE_JOURNAL_DIR, 0700) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int supervise(struct journal *j);
static int journal_lock(const char *path);
static int restore_locked(const char *path, int verbose);

int journal_open(struct journal *j, char *err, size_t errlen)
{
	j->supervisor = -1;
	if (mkdir_journal_dir() != 0) {
		snprintf(err, errlen, "%s: %s", CAPTURE_JOURNAL_DIR, strerror(errno));
		return -1;
	}
	snprintf(j->path, sizeof(j->path), "%s/capture-%d", CAPTURE_JOURNAL_DIR, (int)getpid());
	j->fd = open(j->path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (j->fd < 0) {
		snprintf(err, errlen, "%s: %s", j->path, strerror(errno));
		return -1;
	}
	/* The start time of this process tells a reused pid from us. */
	char line[128], stat[64];
	snprintf(stat, sizeof(stat), "/proc/%d/stat", (int)getpid());
	FILE *f = fopen(stat, "r");
	unsigned long long start = 0;
	if (f) {
		char buf[1024];
		if (fgets(buf, sizeof(buf), f)) {
			char *p = strrchr(buf, ')');
			/* field 22 (starttime) is the 20th after ')' */
			for (int i = 0; p && i < 20; i++)
				p = strchr(p + 1, ' ');
			if (p)
				start = strtoull(p + 1, NULL, 10);
		}
		fclose(f);
	}
	int n = snprintf(line, sizeof(line), "owner\t%d\t%llu\n", (int)getpid(), start);
	if (write(j->fd, line, n) != n) {
		snprintf(err, errlen, "%s: %s", j->path, strerror(errno));
		return -1;
	}
	fsync(j->fd);
	if (supervise(j) != 0) {
		snprintf(err, errlen, "cannot start the capture's supervisor: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int journal_add(struct journal *j, enum jkind kind, const char *a, const char *b)
{
	char line[8400];
	int n = snprintf(line, sizeof(line), "%s\t%s\t%s\n", jnames[kind], a, b ? b : "");
	if (n >= (int)sizeof(line) || write(j->fd, line, n) != n) {
		fprintf(stderr, "vmreplay capture: %s: cannot record a change: %s\n", j->path,
			strerror(errno));
		return -1;
	}
	fdatasync(j->fd);
	return 0;
}

void journal_done(struct journal *j, enum jkind kind, const char *a)
{
	char line[8400];
	int n = snprintf(line, sizeof(line), "done\t%s\t%s\n", jnames[kind], a);
	if (n < (int)sizeof(line) && write(j->fd, line, n) == n)
		fdatasync(j->fd);
}

struct jentry {
	enum jkind kind;
	char a[4200], b[256];
	int done;
};

static int undo(const struct jentry *e, int verbose)
{
	char buf[256];
	switch (e->kind) {
	case J_AGENT: {
		pid_t pid = (pid_t)atoi(e->a);
		if (pid <= 1 || kill(pid, 0) != 0)
			return 0;
		/* Only if it still is our agent (pids get reused). */
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if (sys_read(path, buf, sizeof(buf)) != 0 || strncmp(buf, "vmreplay-captur", 15) != 0)
			return 0;
		kill(pid, SIGTERM);
		for (int i = 0; i < 100 && kill(pid, 0) == 0; i++) {
			waitpid(pid, NULL, WNOHANG);
			msleep(20);
		}
		if (kill(pid, 0) == 0)
			kill(pid, SIGKILL);
		waitpid(pid, NULL, WNOHANG);
		return 0;
	}
	case J_LTTNG: {
		char *argv[] = { "lttng", "destroy", (char *)e->a, NULL };
		char out[1024];
		int rc = sys_run(argv, out, sizeof(out), 30000);
		if (rc != 0 && !strstr(out, "not found") && !strstr(out, "does not exist")) {
			fprintf(stderr, "vmreplay capture: restore: lttng destroy %s failed: %s\n", e->a, out);
			return -1;
		}
		return 0;
	}
	case J_INSTANCE: {
		char path[4300];
		snprintf(path, sizeof(path), "/sys/kernel/tracing/instances/%s", e->a);
		for (int i = 0; i < 50; i++) {
			if (rmdir(path) == 0 || errno == ENOENT)
				return 0;
			msleep(100);        /* the agent may still hold it open */
		}
		fprintf(stderr, "vmreplay capture: restore: rmdir %s: %s\n", path, strerror(errno));
		return -1;
	}
	case J_DAMON: {
		char path[4300];
		snprintf(path, sizeof(path), "%s/0/state", e->a);
		sys_write(path, "off");
		snprintf(path, sizeof(path), "%s/nr_kdamonds", e->a);
		for (int i = 0; i < 50; i++) {
			if (sys_write(path, e->b[0] ? e->b : "0") == 0)
				return 0;
			msleep(100);        /* the kdamond takes a moment to stop */
		}
		fprintf(stderr, "vmreplay capture: restore: %s: %s\n", path, strerror(errno));
		return -1;
	}
	case J_SWAPON:
		if (swapoff(e->a) != 0 && errno != EINVAL && errno != ENOENT) {
			fprintf(stderr, "vmreplay capture: restore: swapoff %s: %s\n", e->a, strerror(errno));
			return -1;
		}
		return 0;
	case J_ZRAM: {
		char path[4300];
		snprintf(path, sizeof(path), "/sys/block/zram%s/reset", e->a);
		sys_write(path, "1");
		if (sys_write("/sys/class/zram-control/hot_remove", e->a) != 0 && errno != ENODEV &&
		    errno != ENOENT) {
			fprintf(stderr, "vmreplay capture: restore: zram%s hot_remove: %s\n", e->a,
				strerror(errno));
			return -1;
		}
		return 0;
	}
	case J_SWAPFILE:
		if (unlink(e->a) != 0 && errno != ENOENT) {
			fprintf(stderr, "vmreplay capture: restore: unlink %s: %s\n", e->a, strerror(errno));
			return -1;
		}
		return 0;
	case J_SYSCTL:
		if (sys_write(e->a, e->b) != 0) {
			fprintf(stderr, "vmreplay capture: restore: write %s to %s: %s\n", e->b, e->a,
				strerror(errno));
			return -1;
		}
		return 0;
	case J_CGROUP:
		if (sys_cgroup_kill_rmdir(e->a, 10000) != 0) {
			fprintf(stderr, "vmreplay capture: restore: cannot remove cgroup %s: %s\n", e->a,
				strerror(errno));
			return -1;
		}
		return 0;
	case J_TRACEFS_MOUNT:
		if (umount2(e->a, MNT_DETACH) != 0 && errno != EINVAL) {
			fprintf(stderr, "vmreplay capture: restore: umount %s: %s\n", e->a, strerror(errno));
			return -1;
		}
		return 0;
	case J_NR:
		break;
	}
	(void)verbose;
	return 0;
}

/* The supervisor: forked when the journal is made, in a session of its
 * own (a Ctrl-C to the capture's process group leaves it be), holding
 * only the read end of a pipe whose write end is the capture's alone
 * (O_CLOEXEC: children lose it at exec).  "d" on the pipe: the capture
 * restored everything itself.  End of file without it: the capture died
 * (SIGKILL, a crash), and the supervisor undoes the journal at once:
 * it kills the cgroup's tasks, so the workload dies with the capture,
 * and swapoff, tracefs and the LTTng session follow. */
static int supervise(struct journal *j)
{
	int p[2];
	j->supervisor = -1;
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid_t owner = getpid(), pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		setsid();
		/* hold nothing of the capture's: not its output (a reader of it
		 * would wait for us), not its files; stderr is kept for one line */
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		if (dup2(p[0], 3) != 3)
			_exit(1);
		close_range(4, ~0U, 0);
		char c;
		ssize_t n;
		while ((n = read(3, &c, 1)) < 0 && errno == EINTR)
			;
		if (n == 1)
			_exit(0);
		int lk = journal_lock(j->path);
		if (lk < 0)
			_exit(0);          /* undone already */
		fprintf(stderr, "vmreplay capture: the capture (pid %d) ended without restoring; its "
			"supervisor undoes %s\n", (int)owner, j->path);
		int failed = restore_locked(j->path, 0);
		if (failed)
			fprintf(stderr, "vmreplay capture: %d step(s) of %s could not be undone; it is kept "
				"(vmreplay capture --cleanup)\n", failed, j->path);
		_exit(failed ? 1 : 0);
	}
	close(p[0]);
	j->supervisor = p[1];
	char line[64];
	int n = snprintf(line, sizeof(line), "supervisor\t%d\n", (int)pid);
	if (write(j->fd, line, n) == n)
		fdatasync(j->fd);
	return 0;
}

/* Reads a journal file; returns the number of entries (-1 if unreadable). */
static int journal_load(const char *path, struct jentry **out, int *owner,
			unsigned long long *start)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	struct jentry *e = NULL;
	int n = 0, cap = 0;
	char line[8400];
	*owner = 0;
	*start = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *f1 = line, *f2 = strchr(f1, '\t'), *f3 = NULL;
		if (f2) {
			*f2++ = '\0';
			f3 = strchr(f2, '\t');
			if (f3)
				*f3++ = '\0';
		}
		if (strcmp(f1, "owner") == 0 && f2) {
			*owner = atoi(f2);
			*start = f3 ? strtoull(f3, NULL, 10) : 0;
			continue;
		}
		if (strcmp(f1, "done") == 0 && f2 && f3) {
			for (int i = n - 1; i >= 0; i--)
				if (!e[i].done && strcmp(jnames[e[i].kind], f2) == 0 && strcmp(e[i].a, f3) == 0) {
					e[i].done = 1;
					break;
				}
			continue;
		}
		int k;
		for (k = 0; k < J_NR; k++)
			if (strcmp(f1, jnames[k]) == 0)
				break;
		if (k == J_NR || !f2)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			struct jentry *ne = realloc(e, cap * sizeof(*ne));
			if (!ne)
				break;
			e = ne;
		}
		memset(&e[n], 0, sizeof(e[n]));
		e[n].kind = (enum jkind)k;
		snprintf(e[n].a, sizeof(e[n].a), "%s", f2);
		snprintf(e[n].b, sizeof(e[n].b), "%s", f3 ? f3 : "");
		n++;
	}
	fclose(f);
	*out = e;
	return n;
}

/* Undoes the journal at PATH, which the caller holds locked. */
static int restore_locked(const char *path, int verbose)
{
	struct jentry *e = NULL;
	int owner;
	unsigned long long start;
	int n = journal_load(path, &e, &owner, &start);
	int failed = 0;
	/* Stop the agent first (it holds tracefs instances) and end every
	 * task of the cgroup (swapoff cannot bring a live cgroup's pages back
	 * under its limit), then undo the rest, newest first. */
	for (int i = n - 1; i >= 0; i--)
		if (!e[i].done && e[i].kind == J_AGENT)
			failed += undo(&e[i], verbose) != 0;
	for (int i = n - 1; i >= 0; i--)
		if (!e[i].done && e[i].kind == J_CGROUP)
			sys_cgroup_kill_wait(e[i].a, 10000);
	for (int i = n - 1; i >= 0; i--) {
		if (e[i].done || e[i].kind == J_AGENT)
			continue;
		if (verbose)
			fprintf(stderr, "vmreplay capture: restore: %s %s\n", jnames[e[i].kind], e[i].a);
		failed += undo(&e[i], verbose) != 0;
	}
	free(e);
	if (!failed)
		unlink(path);
	return failed;
}

/* Locks the journal at PATH against the others that may undo it (this
 * capture, its supervisor, another capture's recovery): the fd, or -1
 * when it is gone already (undone by another). */
static int journal_lock(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
		;
	if (fstat(fd, &st) != 0 || st.st_nlink == 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int restore_file(const char *path, int verbose)
{
	int lk = journal_lock(path);
	if (lk < 0)
		return 0;
	int failed = restore_locked(path, verbose);
	close(lk);
	return failed;
}

int journal_restore(struct journal *j)
{
	if (j->fd >= 0) {
		close(j->fd);
		j->fd = -1;
	}
	int failed = restore_file(j->path, j->verbose);
	if (j->supervisor >= 0) {
		/* done: what is left (a step that failed) is --cleanup's */
		if (write(j->supervisor, "d", 1) != 1)
			fprintf(stderr, "vmreplay capture: lost the supervisor: %s\n", strerror(errno));
		close(j->supervisor);
		j->supervisor = -1;
	}
	return failed;
}

int journal_recover_stale(int verbose)
{
	DIR *d = opendir(CAPTURE_JOURNAL_DIR);
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "capture-", 8) != 0)
			continue;
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", CAPTURE_JOURNAL_DIR, de->d_name);
		struct jentry *e = NULL;
		int owner;
		unsigned long long start;
		int n = journal_load(path, &e, &owner, &start);
		free(e);
		if (n < 0 || owner == getpid())
			continue;
		/* Alive, and the same process (same start time)?  Leave it. */
		char stat[64], buf[1024];
		snprintf(stat, sizeof(stat), "/proc/%d/stat", owner);
		FILE *f = owner > 0 ? fopen(stat, "r") : NULL;
		int alive = 0;
		if (f) {
			if (fgets(buf, sizeof(buf), f)) {
				char *p = strrchr(buf, ')');
				for (int i = 0; p && i < 20; i++)
					p = strchr(p + 1, ' ');
				alive = p && strtoull(p + 1, NULL, 10) == start;
			}
			fclose(f);
		}
		if (alive)
			continue;
		/* its supervisor may be undoing it right now: wait for it */
		int lk = journal_lock(path);
		if (lk < 0)
			continue;
		found++;
		fprintf(stderr, "vmreplay capture: undoing what capture %d left behind (%s)\n", owner, path);
		int failed = restore_locked(path, verbose);
		close(lk);
		if (failed)
			fprintf(stderr, "vmreplay capture: %d step(s) of %s could not be undone; it is kept\n",
				failed, path);
	}
	closedir(d);
	return found;
}
