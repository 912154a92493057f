/*
 * wl_common.c - shared code of the instrumented workloads: option parsing,
 * PRNG, the event wrappers with their counters, session and vmstat
 * emission, the vmstat sampler thread, and memory cgroups.
 */
#include "wl_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <lttng/ust-fork.h>
#include <math.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "vmreplay_tp.h"

const char *wl_prog = "workload";
uint64_t wl_page_size = 4096;
volatile sig_atomic_t wl_stop;

/* ---------------------------------------------------------------------- */
/* Messages                                                               */

static void vmsg(const char *fmt, va_list ap, int errnum)
{
    char buf[512];

    vsnprintf(buf, sizeof(buf), fmt, ap);
    if (errnum)
        fprintf(stderr, "%s: %s: %s\n", wl_prog, buf, strerror(errnum));
    else
        fprintf(stderr, "%s: %s\n", wl_prog, buf);
}

void wl_err(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmsg(fmt, ap, 0);
    va_end(ap);
}

void wl_errno(const char *fmt, ...)
{
    int errnum = errno;
    va_list ap;

    va_start(ap, fmt);
    vmsg(fmt, ap, errnum);
    va_end(ap);
}

/* ---------------------------------------------------------------------- */
/* Event counters                                                         */

enum {
    C_SESSION, C_VMSTAT, C_TASK_BEGIN, C_TASK_END, C_CGROUP, C_ANON_ACCESS,
    C_ANON_FREE, C_FILE_ACCESS, C_FILE_DROP, C_ANON_PAGES, C_FILE_PAGES,
    C_NR
};

/* The first nine are event names; the summary line's keys are these. */
static const char *const count_names[C_NR] = {
    "session", "vmstat", "task_begin", "task_end", "cgroup", "anon_access",
    "anon_free", "file_access", "file_drop", "anon_pages", "file_pages",
};

static __thread uint64_t tls_counts[C_NR];
/*
 * Totals, in a MAP_SHARED page created before any fork so that worker
 * processes add to the parent's totals. This page and the libc's own
 * memory are bookkeeping and deliberately not part of the trace.
 */
static uint64_t *shared_counts;

void wl_counts_flush(void)
{
    for (int i = 0; i < C_NR; i++) {
        if (tls_counts[i]) {
            __atomic_fetch_add(&shared_counts[i], tls_counts[i],
                               __ATOMIC_RELAXED);
            tls_counts[i] = 0;
        }
    }
}

void wl_print_summary(void)
{
    char line[512];
    size_t n;

    wl_counts_flush();
    n = (size_t)snprintf(line, sizeof(line), "%s: summary", wl_prog);
    for (int i = 0; i < C_NR && n < sizeof(line); i++)
        n += (size_t)snprintf(line + n, sizeof(line) - n, " %s=%" PRIu64,
                              count_names[i],
                              __atomic_load_n(&shared_counts[i],
                                              __ATOMIC_RELAXED));
    fprintf(stderr, "%s\n", line);
}

/* ---------------------------------------------------------------------- */
/* Setup                                                                  */

static void on_stop_signal(int sig)
{
    (void)sig;
    wl_stop = 1;
}

int wl_init(const char *prog)
{
    struct sigaction sa;
    long ps;

    wl_prog = prog;
    ps = sysconf(_SC_PAGESIZE);
    if (ps > 0)
        wl_page_size = (uint64_t)ps;

    /*
     * No SA_RESTART: a parent blocked in waitpid() must wake up to pass the
     * stop request on to its workers.
     */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL)) {
        wl_errno("sigaction");
        return -1;
    }

    shared_counts = mmap(NULL, C_NR * sizeof(uint64_t),
                         PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                         -1, 0);
    if (shared_counts == MAP_FAILED) {
        wl_errno("mmap counters");
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Options                                                                */

int wl_opt_u64(const char *opt, const char *arg, uint64_t min, uint64_t max,
               uint64_t *out)
{
    char *end;
    unsigned long long v;

    errno = 0;
    /* strtoull accepts "-1" and wraps it; refuse signs explicitly. */
    if (arg[0] == '-' || arg[0] == '+' || arg[0] == '\0')
        goto bad;
    v = strtoull(arg, &end, 10);
    if (errno || *end != '\0')
        goto bad;
    if (v < min || v > max) {
        wl_err("%s: %s is out of range %" PRIu64 "..%" PRIu64, opt, arg,
               min, max);
        return -1;
    }
    *out = v;
    return 0;
bad:
    wl_err("%s: '%s' is not a non-negative integer", opt, arg);
    return -1;
}

int wl_opt_s64(const char *opt, const char *arg, int64_t min, int64_t max,
               int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(arg, &end, 10);
    if (errno || *end != '\0' || arg[0] == '\0') {
        wl_err("%s: '%s' is not an integer", opt, arg);
        return -1;
    }
    if (v < min || v > max) {
        wl_err("%s: %s is out of range %" PRId64 "..%" PRId64, opt, arg,
               min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int wl_opt_double(const char *opt, const char *arg, double min, double max,
                  double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    if (errno || *end != '\0' || arg[0] == '\0' || !isfinite(v)) {
        wl_err("%s: '%s' is not a number", opt, arg);
        return -1;
    }
    if (v < min || v > max) {
        wl_err("%s: %s is out of range %g..%g", opt, arg, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int wl_opt_bytes(const char *opt, const char *arg, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;
    unsigned shift = 0;

    errno = 0;
    if (arg[0] < '0' || arg[0] > '9')
        goto bad;
    v = strtoull(arg, &end, 10);
    if (errno)
        goto bad;
    switch (*end) {
    case '\0':                  break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default:                    goto bad;
    }
    if (*end != '\0')
        goto bad;
    if (v > (max >> shift)) {
        wl_err("%s: %s is larger than %" PRIu64 " bytes", opt, arg, max);
        return -1;
    }
    *out = (uint64_t)v << shift;
    return 0;
bad:
    wl_err("%s: '%s' is not a size (bytes, or with a K/M/G/T suffix)",
           opt, arg);
    return -1;
}

void wl_opt_bad(int argc, char **argv, int optopt_char)
{
    /* getopt_long has already advanced optind past the culprit. */
    const char *what = (optind > 0 && optind <= argc) ? argv[optind - 1] : "";

    if (strncmp(what, "--", 2) == 0 || optopt_char <= 0 || optopt_char > 127)
        wl_err("invalid option or missing argument '%s' (see --help)", what);
    else
        wl_err("invalid option or missing argument '-%c' (see --help)",
               optopt_char);
}

/* ---------------------------------------------------------------------- */
/* PRNG                                                                   */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/*
 * One independent stream per (seed, stream) pair, so that a thread's or a
 * compile unit's choices do not depend on how many others ran before it.
 */
void wl_rng_seed(struct wl_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);

    r->s = splitmix64(&x);
    if (r->s == 0)              /* xorshift must not start at zero */
        r->s = 0x2545f4914f6cdd1dULL;
}

uint64_t wl_rng_next(struct wl_rng *r)
{
    uint64_t x = r->s;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545f4914f6cdd1dULL;
}

uint64_t wl_rng_below(struct wl_rng *r, uint64_t n)
{
    /* Rejection sampling: plain modulo would favour small values. */
    uint64_t limit, x;

    if (n <= 1)
        return 0;
    limit = UINT64_MAX - UINT64_MAX % n;
    do
        x = wl_rng_next(r);
    while (x >= limit);
    return x % n;
}

/* ---------------------------------------------------------------------- */
/* Small system helpers                                                   */

double wl_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A "Name: N kB" line of /proc/meminfo, in bytes; 0 if unknown. */
static uint64_t meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    size_t klen = strlen(key);
    unsigned long long kb = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            sscanf(line + klen + 1, "%llu", &kb);
            break;
        }
    }
    fclose(f);
    return (uint64_t)kb * 1024;
}

uint64_t wl_mem_total(void)
{
    return meminfo("MemTotal");
}

uint64_t wl_ram_and_swap(void)
{
    return meminfo("MemTotal") + meminfo("SwapTotal");
}

/*
 * Workers are fork()ed without exec(). LTTng-UST must be told, or the child
 * would write through the parent's registration: lttng_ust_after_fork_child
 * re-registers the child with the session daemon and, like the library
 * constructor, waits (LTTNG_UST_REGISTER_TIMEOUT) until the session's events
 * are enabled, so the child's first events are not lost. This is what
 * liblttng-ust-fork.so does by wrapping fork(); calling it here avoids an
 * LD_PRELOAD that a user could forget.
 */
pid_t wl_fork(void)
{
    sigset_t saved;
    pid_t pid;
    int saved_errno;

    /* The child must not inherit unflushed counts or stdio buffers. */
    wl_counts_flush();
    fflush(NULL);

    lttng_ust_before_fork(&saved);
    pid = fork();
    saved_errno = errno;
    if (pid == 0)
        lttng_ust_after_fork_child(&saved);
    else
        lttng_ust_after_fork_parent(&saved);
    errno = saved_errno;
    return pid;
}

/* ---------------------------------------------------------------------- */
/* Session                                                                */

/* Appends ARG to BUF, single-quoted if the shell would need it. */
static void append_arg(char *buf, size_t size, size_t *n, const char *arg)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_./=:,+@%-";
    int quote = arg[0] == '\0' || arg[strspn(arg, safe)] != '\0';

#define PUT(c) do { if (*n + 1 < size) buf[(*n)++] = (c); } while (0)
    if (*n > 0)
        PUT(' ');
    if (quote)
        PUT('\'');
    for (const char *p = arg; *p; p++) {
        if (quote && *p == '\'') {
            PUT('\''); PUT('\\'); PUT('\''); PUT('\'');
        } else {
            PUT(*p);
        }
    }
    if (quote)
        PUT('\'');
#undef PUT
    buf[*n] = '\0';
}

/*
 * "mglru" when the running kernel has multi-gen LRU switched on: the file
 * exists only with CONFIG_LRU_GEN, and bit 0 of its value is the main
 * switch (the other bits are optional features).
 */
static const char *lru_kind(void)
{
    FILE *f = fopen("/sys/kernel/mm/lru_gen/enabled", "r");
    char buf[64];
    unsigned long v = 0;

    if (!f)
        return "classic";
    if (fgets(buf, sizeof(buf), f))
        v = strtoul(buf, NULL, 0);
    fclose(f);
    return (v & 1) ? "mglru" : "classic";
}

void wl_emit_session(const char *workload, int argc, char **argv,
                     uint64_t memory_limit, int32_t swappiness)
{
    struct vmr_tp_session s;
    struct utsname u;
    char cmdline[4096];
    size_t n = 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    cmdline[0] = '\0';
    for (int i = 0; i < argc; i++)
        append_arg(cmdline, sizeof(cmdline), &n, argv[i]);
    if (uname(&u) != 0)
        memset(&u, 0, sizeof(u));

    s.workload = workload;
    s.argv = cmdline;
    s.memory_limit = memory_limit;
    s.swappiness = swappiness;
    s.page_size = (uint32_t)wl_page_size;
    s.kernel_release = u.release;
    s.hostname = u.nodename;
    s.nr_cpus = cpus > 0 ? (uint32_t)cpus : 0;
    s.mem_total = wl_mem_total();
    s.lru_kind = lru_kind();
    lttng_ust_tracepoint(vmreplay, session, &s);
    tls_counts[C_SESSION]++;
}

/* ---------------------------------------------------------------------- */
/* vmstat                                                                 */

#define VM(name) { #name, offsetof(struct vmr_tp_vmstat, name) }
static const struct {
    const char *name;
    size_t off;
} vmstat_fields[] = {
    VM(pgscan_kswapd), VM(pgscan_direct), VM(pgscan_anon), VM(pgscan_file),
    VM(pgsteal_kswapd), VM(pgsteal_direct), VM(pgsteal_anon),
    VM(pgsteal_file), VM(pgrefill), VM(pgactivate), VM(pgdeactivate),
    VM(workingset_refault_anon), VM(workingset_refault_file),
    VM(workingset_activate_anon), VM(workingset_activate_file),
    VM(workingset_restore_anon), VM(workingset_restore_file),
    VM(pswpin), VM(pswpout), VM(pgscan_direct_throttle), VM(oom_kill),
    VM(pgfault), VM(pgmajfault), VM(nr_free_pages), VM(nr_isolated_anon),
    VM(nr_isolated_file),
};
#undef VM

static int read_vmstat(struct vmr_tp_vmstat *v)
{
    FILE *f = fopen("/proc/vmstat", "r");
    char name[128];
    unsigned long long val;

    if (!f)
        return -1;
    /* Counters this kernel lacks stay 0, as a reader of vmstat would see. */
    memset(v, 0, sizeof(*v));
    while (fscanf(f, "%127s %llu", name, &val) == 2) {
        /* One allocstall_<zone> line per zone type; the event has the sum. */
        if (strncmp(name, "allocstall_", 11) == 0) {
            v->allocstall += val;
            continue;
        }
        for (size_t i = 0; i < sizeof(vmstat_fields) / sizeof(vmstat_fields[0]); i++) {
            if (strcmp(name, vmstat_fields[i].name) == 0) {
                *(uint64_t *)((char *)v + vmstat_fields[i].off) = val;
                break;
            }
        }
    }
    fclose(f);
    return 0;
}

int wl_emit_vmstat(void)
{
    struct vmr_tp_vmstat v;

    if (read_vmstat(&v) != 0)
        return -1;
    lttng_ust_tracepoint(vmreplay, vmstat, &v);
    tls_counts[C_VMSTAT]++;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Task and access events                                                 */

static __thread uint32_t my_pid, my_tid;

void wl_task_begin(uint32_t ppid, const char *comm)
{
    my_pid = (uint32_t)getpid();
    my_tid = (uint32_t)gettid();
    lttng_ust_tracepoint(vmreplay, task_begin, my_pid, my_tid, ppid, comm);
    tls_counts[C_TASK_BEGIN]++;
}

void wl_task_end(int32_t status)
{
    lttng_ust_tracepoint(vmreplay, task_end, my_pid, my_tid, status);
    tls_counts[C_TASK_END]++;
}

void wl_task_end_of(uint32_t pid, uint32_t tid, int32_t status)
{
    lttng_ust_tracepoint(vmreplay, task_end, pid, tid, status);
    tls_counts[C_TASK_END]++;
}

/* Widens [addr, addr + len) to whole pages. */
static void page_range(uint64_t addr, uint64_t len, uint64_t *start,
                       uint64_t *bytes)
{
    uint64_t mask = wl_page_size - 1;
    uint64_t s = addr & ~mask;
    uint64_t e = (addr + len + mask) & ~mask;

    *start = s;
    *bytes = e - s;
}

void wl_anon_access(const void *addr, size_t len, int write)
{
    uint64_t start, bytes;

    if (len == 0)
        return;
    page_range((uint64_t)(uintptr_t)addr, len, &start, &bytes);
    lttng_ust_tracepoint(vmreplay, anon_access, my_pid, my_tid, start, bytes,
                         (uint8_t)(write != 0));
    tls_counts[C_ANON_ACCESS]++;
    tls_counts[C_ANON_PAGES] += bytes / wl_page_size;
}

void wl_anon_free(const void *addr, size_t len)
{
    uint64_t start, bytes;

    if (len == 0)
        return;
    page_range((uint64_t)(uintptr_t)addr, len, &start, &bytes);
    lttng_ust_tracepoint(vmreplay, anon_free, my_pid, my_tid, start, bytes);
    tls_counts[C_ANON_FREE]++;
}

void wl_file_access(const struct stat *st, uint64_t offset, uint64_t len,
                    int op)
{
    uint64_t start, bytes;

    if (len == 0)
        return;
    page_range(offset, len, &start, &bytes);
    lttng_ust_tracepoint(vmreplay, file_access, my_pid, my_tid,
                         (uint64_t)st->st_dev, (uint64_t)st->st_ino,
                         start, bytes, (uint8_t)op);
    tls_counts[C_FILE_ACCESS]++;
    tls_counts[C_FILE_PAGES] += bytes / wl_page_size;
}

void wl_file_drop(const struct stat *st)
{
    lttng_ust_tracepoint(vmreplay, file_drop, my_pid, my_tid,
                         (uint64_t)st->st_dev, (uint64_t)st->st_ino);
    tls_counts[C_FILE_DROP]++;
}

/* ---------------------------------------------------------------------- */
/* vmstat sampler thread                                                  */

static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    unsigned period_ms;
    int running;
    int quit;
} sampler = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *sampler_main(void *arg)
{
    struct timespec next;

    (void)arg;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&sampler.lock);
    for (;;) {
        next.tv_nsec += (long)(sampler.period_ms % 1000) * 1000000L;
        next.tv_sec += sampler.period_ms / 1000 + next.tv_nsec / 1000000000L;
        next.tv_nsec %= 1000000000L;
        while (!sampler.quit &&
               pthread_cond_timedwait(&sampler.wake, &sampler.lock, &next) == 0)
            ;
        if (sampler.quit)
            break;
        pthread_mutex_unlock(&sampler.lock);
        wl_emit_vmstat();
        pthread_mutex_lock(&sampler.lock);
    }
    pthread_mutex_unlock(&sampler.lock);
    wl_counts_flush();
    return NULL;
}

int wl_sampler_start(unsigned period_ms)
{
    pthread_condattr_t ca;
    sigset_t all, old;
    int err;

    if (period_ms == 0)
        return 0;
    /* Wait on CLOCK_MONOTONIC so that wall-clock jumps do not skew it. */
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sampler.wake, &ca);
    pthread_condattr_destroy(&ca);
    sampler.period_ms = period_ms;
    sampler.quit = 0;

    /* Stop signals are for the threads doing the work, not the sampler. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    err = pthread_create(&sampler.thread, NULL, sampler_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        errno = err;
        wl_errno("vmstat sampler thread");
        return -1;
    }
    sampler.running = 1;
    return 0;
}

void wl_sampler_stop(void)
{
    if (!sampler.running)
        return;
    pthread_mutex_lock(&sampler.lock);
    sampler.quit = 1;
    pthread_cond_signal(&sampler.wake);
    pthread_mutex_unlock(&sampler.lock);
    pthread_join(sampler.thread, NULL);
    pthread_cond_destroy(&sampler.wake);
    sampler.running = 0;
}

/* ---------------------------------------------------------------------- */
/* Memory cgroups                                                         */

/*
 * The vmreplay:cgroup event, and - when the workload runs as root on a
 * machine with a memory cgroup hierarchy - the real cgroups behind it:
 *
 *   <the workload's own memory cgroup>/<NAME>.<pid>/     the session's
 *   <the workload's own memory cgroup>/<NAME>.<pid>/PATH  each declared one
 *
 * so the `path` of an event is relative to the session directory, as
 * capture/EVENTS.md says. Without root, or without a hierarchy, only the
 * events are emitted (wl_cg_setup says so on stderr).
 */
#define CG_MAX_DIRS 512

static struct {
    int real;                   /* directories are created */
    int v2;                     /* cgroup v2 (else v1) */
    pid_t owner;                /* the process that created them */
    char session[PATH_MAX];     /* absolute path of the session directory */
    char *dirs[CG_MAX_DIRS];    /* created, in creation order */
    int nr_dirs;
} cg;

void wl_cgroup(const char *path, uint64_t limit, int32_t swappiness)
{
    lttng_ust_tracepoint(vmreplay, cgroup, my_pid, my_tid, path, limit,
                         swappiness);
    tls_counts[C_CGROUP]++;
}

/* Writes STR to the control file DIR/FILE; -1 with errno on failure. */
static int cg_write(const char *dir, const char *file, const char *str)
{
    char path[PATH_MAX];
    size_t len = strlen(str);
    ssize_t w;
    int fd, saved;

    if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    w = write(fd, str, len);
    saved = errno;
    close(fd);
    if (w != (ssize_t)len) {
        errno = w < 0 ? saved : EIO;
        return -1;
    }
    return 0;
}

/* 1 if the whitespace- or comma-separated LIST holds WORD. */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);

    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n) {
        int start = p == list || p[-1] == ',' || p[-1] == ' ' || p[-1] == '\t';
        char e = p[n];

        if (start && (e == '\0' || e == ',' || e == ' ' || e == '\n' || e == '\t'))
            return 1;
    }
    return 0;
}

/* 1 if DIR/cgroup.controllers (v2) lists the memory controller. */
static int v2_has_memory(const char *dir, const char *file)
{
    char path[PATH_MAX], buf[512];
    FILE *f;
    int yes = 0;

    snprintf(path, sizeof(path), "%s/%s", dir, file);
    f = fopen(path, "r");
    if (!f)
        return 0;
    if (fgets(buf, sizeof(buf), f))
        yes = has_word(buf, "memory");
    fclose(f);
    return yes;
}

/*
 * Finds the memory hierarchy (v2 if its root offers the memory controller,
 * else v1) and this process's cgroup in it; fills OWN with its absolute
 * directory. Returns 0, or -1 with a reason in WHY.
 */
static int cg_find_own(char *own, size_t ownlen, int *v2, char *why, size_t whylen)
{
    char line[4096], mnt1[PATH_MAX] = "", root1[PATH_MAX] = "";
    char mnt2[PATH_MAX] = "", root2[PATH_MAX] = "", rel[PATH_MAX] = "";
    const char *mnt, *root;
    FILE *f = fopen("/proc/self/mountinfo", "r");

    if (!f) {
        snprintf(why, whylen, "cannot read /proc/self/mountinfo");
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        char r[PATH_MAX], m[PATH_MAX], fstype[64], super[1024];
        char *dash = strstr(line, " - ");

        if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", fstype, super) != 2)
            continue;
        if (strcmp(fstype, "cgroup2") == 0 && !mnt2[0] &&
            v2_has_memory(m, "cgroup.controllers")) {
            snprintf(mnt2, sizeof(mnt2), "%s", m);
            snprintf(root2, sizeof(root2), "%s", r);
        } else if (strcmp(fstype, "cgroup") == 0 && !mnt1[0] &&
                   has_word(super, "memory")) {
            snprintf(mnt1, sizeof(mnt1), "%s", m);
            snprintf(root1, sizeof(root1), "%s", r);
        }
    }
    fclose(f);
    *v2 = mnt2[0] != '\0';
    mnt = *v2 ? mnt2 : mnt1;
    root = *v2 ? root2 : root1;
    if (!mnt[0]) {
        snprintf(why, whylen, "no memory cgroup hierarchy (v1 or v2) is mounted");
        return -1;
    }

    f = fopen("/proc/self/cgroup", "r");
    if (!f) {
        snprintf(why, whylen, "cannot read /proc/self/cgroup");
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

        if (!c2)
            continue;
        *c2 = '\0';
        if (*v2 ? strcmp(line, "0") == 0 && c1[1] == '\0'
                : has_word(c1 + 1, "memory")) {
            c2[strcspn(c2 + 1, "\n") + 1] = '\0';
            snprintf(rel, sizeof(rel), "%s", c2 + 1);
            break;
        }
    }
    fclose(f);
    if (!rel[0]) {
        snprintf(why, whylen, "this process is in no memory cgroup (/proc/self/cgroup)");
        return -1;
    }
    /* A mount of a sub-tree (containers): paths are below its root. */
    if (strcmp(root, "/") != 0 && strncmp(rel, root, strlen(root)) == 0)
        memmove(rel, rel + strlen(root), strlen(rel + strlen(root)) + 1);
    if (strcmp(rel, "/") == 0)
        rel[0] = '\0';
    if (snprintf(own, ownlen, "%s%s", mnt, rel) >= (int)ownlen) {
        snprintf(why, whylen, "cgroup path too long");
        return -1;
    }
    return 0;
}

/* rmdir DIR's sub-directories depth first, then DIR; errors are ignored. */
static void cg_rmdir_tree(const char *dir, int depth)
{
    DIR *d = depth < 8 ? opendir(dir) : NULL;
    struct dirent *e;

    if (d) {
        while ((e = readdir(d)) != NULL) {
            char sub[PATH_MAX];

            if (e->d_type != DT_DIR || e->d_name[0] == '.')
                continue;
            if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) < (int)sizeof(sub))
                cg_rmdir_tree(sub, depth + 1);
        }
        closedir(d);
    }
    rmdir(dir);
}

/*
 * Removes the session directories NAME.PID of OWN left by runs that were
 * killed (SIGKILL, a crash) before they could clean up. rmdir(2) refuses
 * a cgroup that still has processes, so a live run is never disturbed.
 */
static void cg_sweep_stale(const char *own, const char *name)
{
    DIR *d = opendir(own);
    struct dirent *e;
    size_t n = strlen(name);

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char *end, sub[PATH_MAX];
        long pid;

        if (e->d_type != DT_DIR || strncmp(e->d_name, name, n) != 0 ||
            e->d_name[n] != '.')
            continue;
        pid = strtol(e->d_name + n + 1, &end, 10);
        if (*end != '\0' || pid <= 0 || pid == getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;           /* that run is alive */
        if (snprintf(sub, sizeof(sub), "%s/%s", own, e->d_name) < (int)sizeof(sub))
            cg_rmdir_tree(sub, 0);
    }
    closedir(d);
}

static void cg_atexit(void)
{
    wl_cg_teardown();
}

static int cg_remember(const char *dir)
{
    if (cg.nr_dirs == CG_MAX_DIRS) {
        errno = ENOSPC;
        return -1;
    }
    cg.dirs[cg.nr_dirs] = strdup(dir);
    if (!cg.dirs[cg.nr_dirs])
        return -1;
    cg.nr_dirs++;
    return 0;
}

/* mkdir DIR as a child cgroup of PARENT (v2: PARENT delegates memory). */
static int cg_mkdir(const char *parent, const char *dir)
{
    if (cg.v2 && !v2_has_memory(parent, "cgroup.subtree_control") &&
        cg_write(parent, "cgroup.subtree_control", "+memory") != 0)
        return -1;
    if (mkdir(dir, 0755) != 0)
        return errno == EEXIST ? 0 : -1;
    return cg_remember(dir);
}

int wl_cg_setup(const char *name, enum wl_cg_mode mode)
{
    char own[PATH_MAX], why[PATH_MAX + 256];
    const char *base = own;

    cg.real = 0;
    if (mode == WL_CG_NO) {
        wl_err("cgroups are recorded in the trace only (--cgroups no)");
        return 0;
    }
    if (geteuid() != 0) {
        snprintf(why, sizeof(why), "not root (creating memory cgroups needs it)");
        goto record_only;
    }
    if (cg_find_own(own, sizeof(own), &cg.v2, why, sizeof(why)) != 0)
        goto record_only;
    /*
     * cgroup v2 gives a cgroup's children the memory controller only if
     * the cgroup has no processes of its own (except the root): when ours
     * has, and cannot delegate, the session directory goes beside it.
     */
    if (cg.v2 && !v2_has_memory(own, "cgroup.subtree_control") &&
        cg_write(own, "cgroup.subtree_control", "+memory") != 0) {
        char *slash = strrchr(own, '/');
        int saved = errno;

        if (!slash || slash == own || !v2_has_memory(own, "memory.max")) {
            snprintf(why, sizeof(why), "%s: cannot enable the memory controller "
                     "for its children: %s", own, strerror(saved));
            goto record_only;
        }
        *slash = '\0';         /* the parent delegates memory to us */
    }
    cg_sweep_stale(base, name);
    if (snprintf(cg.session, sizeof(cg.session), "%s/%s.%d", base, name,
                 (int)getpid()) >= (int)sizeof(cg.session)) {
        snprintf(why, sizeof(why), "%s: cgroup path too long", base);
        goto record_only;
    }
    cg.owner = getpid();
    atexit(cg_atexit);
    if (cg_mkdir(base, cg.session) != 0) {
        snprintf(why, sizeof(why), "cannot create the memory cgroup %s: %s",
                 cg.session, strerror(errno));
        cg.session[0] = '\0';
        goto record_only;
    }
    cg.real = 1;
    wl_err("cgroups: %s (cgroup v%d), removed at exit", cg.session, cg.v2 ? 2 : 1);
    return 1;

record_only:
    if (mode == WL_CG_YES) {
        wl_err("--cgroups yes: %s", why);
        return -1;
    }
    wl_err("%s: cgroups are recorded in the trace only, none is created", why);
    return 0;
}

int wl_cg_is_real(void)
{
    return cg.real;
}

const char *wl_cg_session_dir(void)
{
    return cg.real ? cg.session : "";
}

/* Absolute directory of PATH under the session; -1 if too long or bad. */
static int cg_dir(const char *path, char *buf, size_t len)
{
    if (!path[0] || path[0] == '/' || strstr(path, "..") || strstr(path, "//")) {
        errno = EINVAL;
        return -1;
    }
    if (snprintf(buf, len, "%s/%s", cg.session, path) >= (int)len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int wl_cg_create(const char *path, uint64_t limit, int32_t swappiness)
{
    char dir[PATH_MAX], num[32];
    char *slash;

    if (!cg.real)
        return 0;
    if (cg_dir(path, dir, sizeof(dir)) != 0) {
        wl_errno("cgroup '%s'", path);
        return -1;
    }
    /* Parents first: each component is a cgroup of its own. */
    for (slash = dir + strlen(cg.session) + 1; ; slash++) {
        char parent[PATH_MAX];

        slash = strchr(slash, '/');
        if (slash)
            *slash = '\0';
        snprintf(parent, sizeof(parent), "%s", dir);
        *strrchr(parent, '/') = '\0';
        if (cg_mkdir(parent, dir) != 0) {
            wl_errno("cannot create the memory cgroup %s", dir);
            return -1;
        }
        if (!slash)
            break;
        *slash = '/';
    }
    if (limit) {
        snprintf(num, sizeof(num), "%" PRIu64, limit);
        if (cg_write(dir, cg.v2 ? "memory.max" : "memory.limit_in_bytes", num) != 0) {
            wl_errno("%s: cannot set the limit %s", dir, num);
            return -1;
        }
    }
    /* cgroup v2 has no per-cgroup swappiness: the global one applies. */
    if (swappiness >= 0 && !cg.v2) {
        snprintf(num, sizeof(num), "%d", (int)swappiness);
        if (cg_write(dir, "memory.swappiness", num) != 0) {
            wl_errno("%s: cannot set swappiness %s", dir, num);
            return -1;
        }
    }
    return 0;
}

int wl_cg_enter(const char *path)
{
    char dir[PATH_MAX], num[32];

    if (!cg.real)
        return 0;
    if (cg_dir(path, dir, sizeof(dir)) != 0) {
        wl_errno("cgroup '%s'", path);
        return -1;
    }
    snprintf(num, sizeof(num), "%d", (int)getpid());
    if (cg_write(dir, "cgroup.procs", num) != 0) {
        wl_errno("cannot move pid %s into %s", num, dir);
        return -1;
    }
    return 0;
}

int wl_cg_teardown(void)
{
    int rc = 0;

    /* Only the creator: a forked child that exits must not remove them. */
    if (cg.nr_dirs == 0 || getpid() != cg.owner)
        return 0;
    for (int i = cg.nr_dirs - 1; i >= 0; i--) {
        /*
         * Every process has been reaped by now, but the kernel may take a
         * moment to let go of a cgroup whose last task just exited.
         */
        int tries = 0;

        while (rmdir(cg.dirs[i]) != 0 && errno != ENOENT) {
            if (errno != EBUSY || ++tries > 200) {
                wl_errno("cannot remove the memory cgroup %s", cg.dirs[i]);
                rc = -1;
                break;
            }
            usleep(10000);
        }
        free(cg.dirs[i]);
    }
    cg.nr_dirs = 0;
    cg.real = 0;
    return rc;
}

int wl_session(const char *workload, int argc, char **argv, uint64_t memory_limit,
               int32_t swappiness, int (*run)(void))
{
    int rc;

    wl_emit_session(workload, argc, argv, memory_limit, swappiness);
    if (wl_emit_vmstat() != 0) {
        wl_errno("/proc/vmstat");
        return WL_EXIT_RUNTIME;
    }
    wl_task_begin((uint32_t)getppid(), workload);
    rc = run();
    wl_task_end(rc);
    wl_emit_vmstat();
    wl_print_summary();
    return rc;
}
