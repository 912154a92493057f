/*
 * capture_sys.h — the machine settings `vmreplay capture` changes, and
 * the journal that guarantees they are restored.
 *
 * Every change is written to a journal file (/run/vmreplay/capture-PID)
 * before it is made, and undone from the journal, newest first, on every
 * exit path: normal end, a failing step, a killed workload, Ctrl-C.  If
 * the capture itself is killed (SIGKILL), its supervisor, a process that
 * outlives it, undoes the journal at once: it kills the cgroup, so the
 * workload dies with the capture.  If both are gone (a power cut), the
 * next `vmreplay capture` (or `vmreplay capture --cleanup`) finds the
 * journal of the dead process and undoes it first.
 */
#ifndef CAPTURE_SYS_H
#define CAPTURE_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CAPTURE_JOURNAL_DIR "/run/vmreplay"

/* What a journal line records, and how it is undone. */
enum jkind {
	J_TRACEFS_MOUNT,    /* path: umount it                                */
	J_CGROUP,           /* dir: kill its tasks, rmdir                      */
	J_SYSCTL,           /* path, old value: write the old value back       */
	J_SWAPFILE,         /* path: unlink                                    */
	J_ZRAM,             /* id: reset and hot_remove the device             */
	J_SWAPON,           /* path: swapoff                                   */
	J_DAMON,            /* kdamonds dir: state off, nr_kdamonds 0          */
	J_INSTANCE,         /* tracefs instance name: rmdir it                 */
	J_LTTNG,            /* session name: lttng destroy                     */
	J_AGENT,            /* pid: SIGTERM, then SIGKILL                      */
	J_NR
};

struct journal {
	char path[256];
	int fd;
	int verbose;
	int supervisor;            /* write end of the supervisor's pipe, or -1 */
};

/* Creates this process's journal and starts its supervisor.  0, or -1
 * with err set. */
int journal_open(struct journal *j, char *err, size_t errlen);
/* Records a change about to be made.  0, or -1 (then do not make it). */
int journal_add(struct journal *j, enum jkind kind, const char *a, const char *b);
/* Marks the newest entry of KIND/A as undone already. */
void journal_done(struct journal *j, enum jkind kind, const char *a);
/* Undoes every entry, newest first, and removes the journal; tells the
 * supervisor it is done.  Returns the number of steps that failed (each is
 * reported on stderr). */
int journal_restore(struct journal *j);
/* Undoes the journals of dead captures.  Returns how many were found. */
int journal_recover_stale(int verbose);

/* Small helpers. */
int sys_write(const char *path, const char *val);               /* 0 / -1 */
int sys_read(const char *path, char *buf, size_t len);          /* 0 / -1, trimmed */
/* Kills every task of a cgroup (SIGKILL, until it is empty or TIMEOUT_MS
 * passed) and removes it.  0, or -1 with errno. */
int sys_cgroup_kill_rmdir(const char *dir, int timeout_ms);
/* Kills every task of a cgroup and waits until it is empty.  0 / -1. */
int sys_cgroup_kill_wait(const char *dir, int timeout_ms);
/* Sends SIG to every task listed in DIR/cgroup.procs. */
void sys_cgroup_signal(const char *dir, int sig);
/* Writes a swap header (version 1, no bad pages) to FD of SIZE bytes. */
int sys_mkswap(int fd, uint64_t size);
/* Runs ARGV in its own process group (so a Ctrl-C aimed at the capture
 * cannot interrupt it); its stdout+stderr go to OUT (NUL-terminated,
 * truncated to LEN).  Returns the exit status, or -1. */
int sys_run(char *const argv[], char *out, size_t len, int timeout_ms);

#endif
