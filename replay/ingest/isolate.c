/*
 * isolate.c — decoding in a child process, so that libbabeltrace2's
 * aborts end the child and not vmreplay.
 *
 * libbabeltrace2 2.0.4 asserts and calls abort() on inputs it cannot
 * handle: two flipped bytes of an index file (ds_file_mmap(): Assertion
 * `requested_offset_in_file >= 0'), a valid trace with a sequence in an
 * event context (babeltrace's meta-ctx-sequence).  No check before the
 * library sees the trace can know every such case, so ingest_decode()
 * runs in a forked child; the parent gets the report and the error back
 * through a pipe, or, when the child died of a signal, says so in one
 * line with the library's own reason.  The child's stderr is collected
 * (what the library prints before abort() is not a vmreplay message),
 * except when progress is shown on a terminal, where it stays the
 * terminal so the progress line works.
 */
#include "ingest.h"
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

struct child_result {
	int rc;
	struct ingest_report rep;
	char err[2048];
};

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* What the child's stderr says about why it died: the library's
 * assertion, or its first line (joined with the next when it ends in
 * "error is:"). */
static void reason(char *text, char *out, size_t len)
{
	char *best = NULL, *next = NULL;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		while (*line == ' ' || *line == '\t')
			line++;
		/* the library's "(╯°□°)╯︵ ┻━┻  file.c:117: fn(): Assertion ..." */
		char *flip = strstr(line, "\xe2\x94\xbb  ");
		if (flip)
			line = flip + 5;
		if (!*line || strncmp(line, "Aborting", 8) == 0)
			continue;
		if (strstr(line, "Assertion")) {
			best = line;
			next = NULL;
			break;
		}
		if (!best)
			best = line;
		else if (!next && best[strlen(best) - 1] == ':')
			next = line;
	}
	if (!best)
		snprintf(out, len, "no message");
	else
		snprintf(out, len, "%.200s%s%.200s", best, next ? " " : "", next ? next : "");
}

int ingest_decode_isolated(const char *trace, const uint8_t hash[16], const char *out,
			   int show_progress, int allow_empty, struct ingest_report *rep,
			   char *err, size_t errlen)
{
	int res[2], log[2] = { -1, -1 };
	int keep_tty = show_progress && isatty(STDERR_FILENO);
	if (pipe2(res, O_CLOEXEC) != 0 || (!keep_tty && pipe2(log, O_CLOEXEC) != 0)) {
		snprintf(err, errlen, "%s: cannot start the decoder: %s", trace, strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "%s: cannot start the decoder: %s", trace, strerror(errno));
		close(res[0]);
		close(res[1]);
		if (log[0] >= 0) {
			close(log[0]);
			close(log[1]);
		}
		return -1;
	}
	if (pid == 0) {
		static struct child_result r;   /* not on the stack: 10 KiB */
		/* no decoder outlives its command (killed, it cannot wait) */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(3);
		if (!keep_tty)
			dup2(log[1], STDERR_FILENO);
		r.rc = ingest_decode(trace, hash, out, show_progress, allow_empty, &r.rep, r.err,
				     sizeof(r.err));
		_exit(write_all(res[1], &r, sizeof(r)) == 0 ? 0 : 3);
	}
	close(res[1]);
	if (log[1] >= 0)
		close(log[1]);

	/* Read both pipes to their ends: the result, and the child's stderr
	 * (kept up to 4 KiB: only its first lines say anything).  A pipe a
	 * process the child started still holds has no end when the child
	 * does, so the child's exit is looked for too (every 250 ms), and
	 * once it is gone what it wrote is read and the rest let be. */
	struct child_result r;
	size_t got = 0, nlog = 0;
	char text[4096], junk[4096];
	struct pollfd pf[2] = { { res[0], POLLIN, 0 }, { log[0], POLLIN, 0 } };
	int open_fds = log[0] >= 0 ? 2 : 1, status = 0, reaped = 0;
	while (open_fds) {
		int ready = poll(pf, 2, reaped ? 0 : 250);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (ready == 0) {
			if (reaped)
				break;
			reaped = waitpid(pid, &status, WNOHANG) == pid;
			continue;
		}
		for (int i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			ssize_t n;
			if (i == 0) {
				size_t room = sizeof(r) - got;
				n = read(pf[i].fd, room ? (char *)&r + got : junk, room ? room : sizeof(junk));
				if (n > 0 && room)
					got += (size_t)n;
			} else {
				size_t room = sizeof(text) - 1 - nlog;
				n = read(pf[i].fd, room ? text + nlog : junk, room ? room : sizeof(junk));
				if (n > 0 && room)
					nlog += (size_t)n;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open_fds--;
			}
		}
	}
	text[nlog] = '\0';
	for (int i = 0; i < 2; i++)
		if (pf[i].fd >= 0)
			close(pf[i].fd);
	while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == sizeof(r) && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		*rep = r.rep;                      /* its hash: HASH, or the child's */
		snprintf(err, errlen, "%s", r.err);
		return r.rc;
	}
	char why[320];
	reason(text, why, sizeof(why));
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		snprintf(err, errlen, "%s: the CTF decoder (libbabeltrace2) died of SIG%s: %s", trace,
			 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", why);
	} else {
		/* the watchdog's message names the trace; anything else does not */
		const char *w = strncmp(why, "vmreplay: ", 10) == 0 ? why + 10 : why;
		if (strstr(w, trace))
			snprintf(err, errlen, "%s", w);
		else
			snprintf(err, errlen, "%s: the decoder ended without a result (exit %d): %s", trace,
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1, w);
	}
	return -1;
}
