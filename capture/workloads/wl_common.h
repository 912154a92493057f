/*
 * wl_common.h - shared code of the instrumented workloads.
 *
 * Every workload emits the `vmreplay` events of capture/EVENTS.md through
 * the wrappers below, never by calling lttng_ust_tracepoint() itself: the
 * wrappers round ranges to whole pages, fill pid/tid, and count what was
 * emitted, so that the one-line summary a workload prints at the end is
 * exactly what the trace must contain.
 */
#ifndef WL_COMMON_H
#define WL_COMMON_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Exit codes shared by all workloads. */
#define WL_EXIT_OK      0
#define WL_EXIT_RUNTIME 1
#define WL_EXIT_USAGE   2

/* Size of the read()/write() buffer the workloads use for file I/O. */
#define WL_IO_SIZE (64 * 1024)

extern const char *wl_prog;     /* program name, prefix of every message */
extern uint64_t wl_page_size;   /* sysconf(_SC_PAGESIZE) */

/*
 * Set by SIGINT/SIGTERM. Workloads poll it between units of work and then
 * wind down normally, so that every task still emits its task_end and every
 * mapping its anon_free: an interrupted capture is still a consistent trace.
 */
extern volatile sig_atomic_t wl_stop;

/* Call first: sets the name, page size, signal handlers, shared counters. */
int wl_init(const char *prog);

/* Messages: "prog: text", one line on stderr. wl_errno appends strerror. */
void wl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void wl_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Option parsing. Each returns 0, or prints one line naming the option and
 * returns -1 (the caller exits with WL_EXIT_USAGE).
 */
int wl_opt_u64(const char *opt, const char *arg, uint64_t min, uint64_t max,
               uint64_t *out);
int wl_opt_s64(const char *opt, const char *arg, int64_t min, int64_t max,
               int64_t *out);
int wl_opt_double(const char *opt, const char *arg, double min, double max,
                  double *out);
/* A byte count with an optional K, M, G or T suffix (powers of 1024). */
int wl_opt_bytes(const char *opt, const char *arg, uint64_t max, uint64_t *out);
/* Reports an unknown option or missing argument after getopt_long '?'/':'. */
void wl_opt_bad(int argc, char **argv, int optopt_char);

/* Deterministic PRNG (xorshift64*, seeded through splitmix64). */
struct wl_rng {
    uint64_t s;
};
void wl_rng_seed(struct wl_rng *r, uint64_t seed, uint64_t stream);
uint64_t wl_rng_next(struct wl_rng *r);
uint64_t wl_rng_below(struct wl_rng *r, uint64_t n);    /* uniform in [0, n) */

/* CLOCK_MONOTONIC in seconds (the LTTng clock runs on the same base). */
double wl_now(void);

/* Bytes of RAM from /proc/meminfo, 0 if unknown. */
uint64_t wl_mem_total(void);
/* RAM + swap in bytes: more anonymous memory than this cannot be alive. */
uint64_t wl_ram_and_swap(void);

/* fork() that keeps LTTng-UST working in the child (see wl_common.c). */
pid_t wl_fork(void);

/* --- events ---------------------------------------------------------- */

void wl_emit_session(const char *workload, int argc, char **argv,
                     uint64_t memory_limit, int32_t swappiness);
int wl_emit_vmstat(void);           /* -1 if /proc/vmstat cannot be read */

/*
 * Task events use the calling thread's pid/tid; wl_task_begin() caches them
 * for the access wrappers, so call it first in every task.
 */
void wl_task_begin(uint32_t ppid, const char *comm);
void wl_task_end(int32_t status);
/*
 * task_end for another task that died without emitting its own (killed by
 * a signal); emitted by whoever reaped it. STATUS is 128 + signal number.
 */
void wl_task_end_of(uint32_t pid, uint32_t tid, int32_t status);

/* Ranges are widened to whole pages; len 0 emits nothing. */
void wl_anon_access(const void *addr, size_t len, int write);
void wl_anon_free(const void *addr, size_t len);
void wl_file_access(const struct stat *st, uint64_t offset, uint64_t len,
                    int op);
void wl_file_drop(const struct stat *st);

/*
 * vmreplay:cgroup: the calling process belongs to the memory cgroup PATH
 * (relative to the session's, "/"-separated, e.g. "apps/camera"); LIMIT in
 * bytes, 0 = none; SWAPPINESS -1 = inherited. Emit it after the process's
 * task_begin and before its first access.
 */
void wl_cgroup(const char *path, uint64_t limit, int32_t swappiness);

/*
 * Real memory cgroups behind those events. wl_cg_setup(NAME, MODE), called
 * once by the workload's first process, decides: as root, with a memory
 * hierarchy (cgroup v1 or v2) mounted, it creates the session directory
 * NAME.<pid> inside the process's own memory cgroup and returns 1; then
 * wl_cg_create() makes PATH (and its parents) below it, wl_cg_enter() moves
 * the calling process into PATH, and wl_cg_teardown() removes every
 * directory created, deepest first (it also runs at exit() of the creating
 * process; the workload must have reaped its processes before). Otherwise
 * it prints one line saying the cgroups are only recorded and returns 0;
 * those calls then do nothing and return 0. Returns -1 (message printed)
 * when MODE is WL_CG_YES and cgroups cannot be created. Session
 * directories of earlier runs that were killed before they could clean
 * up are removed when empty.
 */
enum wl_cg_mode { WL_CG_AUTO, WL_CG_YES, WL_CG_NO };
int wl_cg_setup(const char *name, enum wl_cg_mode mode);
int wl_cg_is_real(void);
const char *wl_cg_session_dir(void);    /* "" when only recorded */
int wl_cg_create(const char *path, uint64_t limit, int32_t swappiness);
int wl_cg_enter(const char *path);
int wl_cg_teardown(void);               /* 0, or -1 if one would not go */

/* Periodic vmstat snapshots from a thread that is not a replayed task. */
int wl_sampler_start(unsigned period_ms);   /* 0 = no thread */
void wl_sampler_stop(void);

/*
 * Emitted-event counters. Each thread counts privately; wl_counts_flush()
 * adds them to totals that live in a MAP_SHARED page, so forked workers add
 * to the same totals. Every task flushes before it ends.
 */
void wl_counts_flush(void);
/*
 * Prints "prog: summary session=N vmstat=N task_begin=N task_end=N
 * cgroup=N anon_access=N ... anon_pages=N file_pages=N".
 */
void wl_print_summary(void);

/*
 * The frame every workload runs in, once its options are parsed: the
 * session event and a vmstat snapshot, the main task's begin, RUN, its
 * end, a last snapshot and the summary.  Returns RUN's exit status.
 */
int wl_session(const char *workload, int argc, char **argv, uint64_t memory_limit,
               int32_t swappiness, int (*run)(void));

#endif /* WL_COMMON_H */
