/*
 * build-like - a parallel C build, as a reclaim workload.
 *
 * What `make -jN` does to memory: N compiler processes, each compiling its
 * units one after another. Per compile unit a worker
 *
 *   - read()s the unit's source file once, and a random subset of the shared
 *     header files (every unit reads the same header pages again: page-cache
 *     re-references, the file side of a reclaim session);
 *   - grows an anonymous heap chunk by chunk while it "parses" (the compiler's
 *     AST and IR: anon pages written once, alive until the unit ends);
 *   - write()s the object file, taking the bytes from the heap (so the heap
 *     is loaded again just before it dies);
 *   - frees the heap.
 *
 * The parent process creates the headers and sources at start ("checkout"),
 * forks the workers, and unlinks every file at the end ("make clean").
 *
 * Everything is done for real - the memory is stored to, the files are read
 * and written through the page cache - and every range is emitted through
 * the vmreplay provider right after it was touched, in whole pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl_common.h"
#include "vmreplay_tp.h"

#define KIB 1024ULL
#define MIB (1024ULL * 1024ULL)

struct options {
    uint64_t workers;
    uint64_t units;             /* compile units per worker */
    uint64_t heap_mb;           /* peak heap of the largest unit */
    uint64_t headers;
    uint64_t header_kb;
    uint64_t source_kb;
    uint64_t object_kb;
    uint64_t chunk_kb;          /* heap growth step */
    double duration;            /* seconds; 0 = run every unit */
    const char *dir;            /* where the work dir is created */
    uint64_t seed;
    uint64_t memory_limit;      /* only recorded in vmreplay:session */
    int64_t swappiness;         /* only recorded in vmreplay:session */
    uint64_t vmstat_ms;
};

static struct options opt = {
    .workers = 4, .units = 4, .heap_mb = 16, .headers = 32, .header_kb = 32,
    .source_kb = 64, .object_kb = 128, .chunk_kb = 64, .duration = 0,
    .dir = "/tmp", .seed = 1, .memory_limit = 0, .swappiness = -1,
    .vmstat_ms = 1000,
};

/* Room left for the file names appended to it. */
static char workdir[PATH_MAX - 128];
static double t_start;

static void usage(FILE *f)
{
    fprintf(f,
"Usage: build-like [OPTION]...\n"
"A parallel C build as a memory-reclaim workload, instrumented with the\n"
"vmreplay LTTng-UST provider (run it under capture/ust-capture.sh).\n"
"\n"
"  -w, --workers=N       compiler processes (default 4)\n"
"  -u, --units=N         compile units per worker (default 4)\n"
"  -H, --heap-mb=MB      peak anonymous heap of a unit; each unit draws its\n"
"                        peak from [MB/2, MB] (default 16)\n"
"      --headers=N       shared header files (default 32)\n"
"      --header-kb=KB    size of a header (default 32)\n"
"      --source-kb=KB    size of a unit's source file (default 64)\n"
"      --object-kb=KB    size of a unit's object file (default 128)\n"
"      --chunk-kb=KB     heap growth step, whole pages (default 64)\n"
"  -d, --duration=SEC    start no new unit after SEC seconds; 0 = run all\n"
"                        units (default 0)\n"
"      --dir=DIR         create the work directory under DIR (default /tmp);\n"
"                        it is removed at the end\n"
"  -s, --seed=N          seed of the unit sizes and header choices (default 1)\n"
"      --memory-limit=BYTES  cgroup limit the run is under, recorded in the\n"
"                        session event only; K/M/G suffixes (default 0 = none)\n"
"      --swappiness=N    swappiness in force, recorded only (default -1 =\n"
"                        unknown)\n"
"      --vmstat-ms=MS    /proc/vmstat sampling period; 0 = only at start and\n"
"                        end (default 1000)\n"
"  -h, --help            show this help\n"
"\n"
"Prints one summary line with the number of events emitted to stderr.\n"
"Exit status: 0 ok, 1 runtime error or interrupted, 2 usage error.\n");
}

static int parse_options(int argc, char **argv)
{
    enum { O_HEADERS = 256, O_HEADER_KB, O_SOURCE_KB, O_OBJECT_KB,
           O_CHUNK_KB, O_DIR, O_MEMLIMIT, O_SWAPPINESS, O_VMSTAT_MS };
    static const struct option longopts[] = {
        { "workers",      required_argument, NULL, 'w' },
        { "units",        required_argument, NULL, 'u' },
        { "heap-mb",      required_argument, NULL, 'H' },
        { "headers",      required_argument, NULL, O_HEADERS },
        { "header-kb",    required_argument, NULL, O_HEADER_KB },
        { "source-kb",    required_argument, NULL, O_SOURCE_KB },
        { "object-kb",    required_argument, NULL, O_OBJECT_KB },
        { "chunk-kb",     required_argument, NULL, O_CHUNK_KB },
        { "duration",     required_argument, NULL, 'd' },
        { "dir",          required_argument, NULL, O_DIR },
        { "seed",         required_argument, NULL, 's' },
        { "memory-limit", required_argument, NULL, O_MEMLIMIT },
        { "swappiness",   required_argument, NULL, O_SWAPPINESS },
        { "vmstat-ms",    required_argument, NULL, O_VMSTAT_MS },
        { "help",         no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    uint64_t page_kb = wl_page_size / KIB;
    int c, r = 0;

    opterr = 0;                 /* we print our own one-line errors */
    while ((c = getopt_long(argc, argv, "w:u:H:d:s:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'w': r = wl_opt_u64("--workers", optarg, 1, 1024, &opt.workers); break;
        case 'u': r = wl_opt_u64("--units", optarg, 1, 1000000, &opt.units); break;
        case 'H': r = wl_opt_u64("--heap-mb", optarg, 1, 1 << 20, &opt.heap_mb); break;
        case O_HEADERS: r = wl_opt_u64("--headers", optarg, 0, 100000, &opt.headers); break;
        case O_HEADER_KB: r = wl_opt_u64("--header-kb", optarg, 1, 1 << 20, &opt.header_kb); break;
        case O_SOURCE_KB: r = wl_opt_u64("--source-kb", optarg, 1, 1 << 20, &opt.source_kb); break;
        case O_OBJECT_KB: r = wl_opt_u64("--object-kb", optarg, 0, 1 << 20, &opt.object_kb); break;
        case O_CHUNK_KB: r = wl_opt_u64("--chunk-kb", optarg, 1, 1 << 20, &opt.chunk_kb); break;
        case 'd': r = wl_opt_double("--duration", optarg, 0, 7 * 86400, &opt.duration); break;
        case O_DIR: opt.dir = optarg; break;
        case 's': r = wl_opt_u64("--seed", optarg, 0, UINT64_MAX, &opt.seed); break;
        case O_MEMLIMIT: r = wl_opt_bytes("--memory-limit", optarg, 1ULL << 60, &opt.memory_limit); break;
        case O_SWAPPINESS: r = wl_opt_s64("--swappiness", optarg, -1, 200, &opt.swappiness); break;
        case O_VMSTAT_MS: r = wl_opt_u64("--vmstat-ms", optarg, 0, 3600000, &opt.vmstat_ms); break;
        case 'h': usage(stdout); exit(WL_EXIT_OK);
        default: wl_opt_bad(argc, argv, optopt); return -1;
        }
        if (r)
            return -1;
    }
    if (optind < argc) {
        wl_err("unexpected argument '%s' (see --help)", argv[optind]);
        return -1;
    }
    /* Cross-checks: each is a one-line error naming the options involved. */
    if (opt.chunk_kb % page_kb) {
        wl_err("--chunk-kb: %" PRIu64 " is not a whole number of %" PRIu64
               " KiB pages", opt.chunk_kb, page_kb);
        return -1;
    }
    if (opt.chunk_kb > opt.heap_mb * 1024) {
        wl_err("--chunk-kb: %" PRIu64 " KiB is larger than --heap-mb %" PRIu64,
               opt.chunk_kb, opt.heap_mb);
        return -1;
    }
    /* Touching more than RAM + swap would only summon the OOM killer. */
    if (wl_ram_and_swap() > 0 && opt.workers * opt.heap_mb * MIB > wl_ram_and_swap()) {
        wl_err("--workers %" PRIu64 " x --heap-mb %" PRIu64 " is more than RAM + swap (%" PRIu64 " MiB)",
               opt.workers, opt.heap_mb, (uint64_t)(wl_ram_and_swap() / MIB));
        return -1;
    }
    if (opt.vmstat_ms > 0 && opt.vmstat_ms < 10) {
        wl_err("--vmstat-ms: %" PRIu64 " is too short (0, or at least 10)",
               opt.vmstat_ms);
        return -1;
    }
    if (opt.dir[0] == '\0') {
        wl_err("--dir: empty path");
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Files                                                                  */

static void header_path(char *buf, uint64_t i)
{
    snprintf(buf, PATH_MAX, "%s/hdr-%05" PRIu64 ".h", workdir, i);
}

static void source_path(char *buf, uint64_t w, uint64_t u)
{
    snprintf(buf, PATH_MAX, "%s/src-%03" PRIu64 "-%06" PRIu64 ".c", workdir, w, u);
}

static void object_path(char *buf, uint64_t w, uint64_t u)
{
    snprintf(buf, PATH_MAX, "%s/obj-%03" PRIu64 "-%06" PRIu64 ".o", workdir, w, u);
}

/* Maps an anonymous, private region (the caller emits what it touches). */
static void *map_anon(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

/* Creates PATH with BYTES bytes written from IOBUF through write(). */
static int create_file(const char *path, uint64_t bytes, const char *iobuf)
{
    struct stat st;
    uint64_t off = 0;
    int fd;

    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || fstat(fd, &st) != 0) {
        wl_errno("create %s", path);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    while (off < bytes) {
        size_t n = bytes - off < WL_IO_SIZE ? (size_t)(bytes - off) : WL_IO_SIZE;
        ssize_t w = write(fd, iobuf, n);

        if (w <= 0) {
            if (w < 0 && errno == EINTR)
                continue;
            wl_errno("write %s", path);
            close(fd);
            return -1;
        }
        /* write() loads the buffer and stores into the page cache. */
        wl_anon_access(iobuf, (size_t)w, 0);
        wl_file_access(&st, off, (uint64_t)w, VMR_FILE_WRITE);
        off += (uint64_t)w;
    }
    if (close(fd) != 0) {
        wl_errno("close %s", path);
        return -1;
    }
    return 0;
}

/* read()s all of PATH into IOBUF, one WL_IO_SIZE piece at a time. */
static int read_file(const char *path, char *iobuf)
{
    struct stat st;
    uint64_t off = 0;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        wl_errno("open %s", path);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    for (;;) {
        ssize_t n = read(fd, iobuf, WL_IO_SIZE);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            wl_errno("read %s", path);
            close(fd);
            return -1;
        }
        if (n == 0)
            break;
        /* read() loads page-cache pages and stores into the buffer. */
        wl_file_access(&st, off, (uint64_t)n, VMR_FILE_READ);
        wl_anon_access(iobuf, (size_t)n, 1);
        off += (uint64_t)n;
    }
    close(fd);
    return 0;
}

/* Unlinks PATH if it exists and reports its pages as dropped. */
static int remove_file(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        wl_errno("stat %s", path);
        return -1;
    }
    if (unlink(path) != 0) {
        wl_errno("unlink %s", path);
        return -1;
    }
    wl_file_drop(&st);
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Workers                                                                */

/*
 * One compile unit: see the comment at the top. ORDER is scratch space for
 * the header choice (opt.headers entries). Returns 0, or -1 on an I/O error.
 */
static int compile_unit(uint64_t w, uint64_t u, char *iobuf, uint64_t *order)
{
    const uint64_t chunk = opt.chunk_kb * KIB;
    const uint64_t max_chunks = opt.heap_mb * MIB / chunk;
    char path[PATH_MAX];
    struct wl_rng rng;
    uint64_t nchunks, heap_len, nincl, nreads, grown = 0;
    char *heap;
    int rc = -1;

    /* One stream per unit: its shape does not depend on --duration. */
    wl_rng_seed(&rng, opt.seed, (w << 32) + u + 1);
    nchunks = max_chunks / 2 + wl_rng_below(&rng, max_chunks - max_chunks / 2 + 1);
    if (nchunks == 0)
        nchunks = 1;
    heap_len = nchunks * chunk;

    /* A random subset of half to all of the headers, in random order. */
    nincl = 0;
    if (opt.headers > 0) {
        nincl = opt.headers / 2 + wl_rng_below(&rng, opt.headers - opt.headers / 2 + 1);
        if (nincl == 0)
            nincl = 1;
        for (uint64_t i = 0; i < opt.headers; i++)
            order[i] = i;
        for (uint64_t i = 0; i < nincl; i++) {
            uint64_t j = i + wl_rng_below(&rng, opt.headers - i);
            uint64_t t = order[i];

            order[i] = order[j];
            order[j] = t;
        }
    }

    heap = map_anon(heap_len);
    if (!heap) {
        wl_errno("worker %" PRIu64 ": mmap %" PRIu64 " bytes of heap", w, heap_len);
        return -1;
    }

    /*
     * Parse: the source first, then each header as it is "included"; after
     * each file the heap grows by its share of the unit's peak, so heap and
     * page-cache demand interleave as they do in a real compiler.
     */
    nreads = 1 + nincl;
    for (uint64_t i = 0; i < nreads; i++) {
        uint64_t target = nchunks * (i + 1) / nreads;

        if (i == 0)
            source_path(path, w, u);
        else
            header_path(path, order[i - 1]);
        if (read_file(path, iobuf) != 0)
            goto out;
        for (; grown < target; grown++) {
            char *p = heap + grown * chunk;

            if (wl_stop) {      /* interrupted: drop the unit, free the heap */
                rc = 0;
                goto out;
            }
            memset(p, (int)(0x20 + (grown & 0x3f)), chunk);
            wl_anon_access(p, chunk, 1);
        }
    }

    /*
     * Code generation: the object file's bytes come from the heap, starting
     * at a random page and wrapping around, so write() loads heap pages.
     */
    {
        uint64_t obj_bytes = opt.object_kb * KIB;
        uint64_t pos = wl_rng_below(&rng, heap_len / wl_page_size) * wl_page_size;
        uint64_t off = 0;
        struct stat st;
        int fd;

        object_path(path, w, u);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || fstat(fd, &st) != 0) {
            wl_errno("create %s", path);
            if (fd >= 0)
                close(fd);
            goto out;
        }
        while (off < obj_bytes) {
            uint64_t n = obj_bytes - off;
            ssize_t wr;

            if (n > WL_IO_SIZE)
                n = WL_IO_SIZE;
            if (n > heap_len - pos)
                n = heap_len - pos;
            wr = write(fd, heap + pos, (size_t)n);
            if (wr <= 0) {
                if (wr < 0 && errno == EINTR)
                    continue;
                wl_errno("write %s", path);
                close(fd);
                goto out;
            }
            wl_anon_access(heap + pos, (size_t)wr, 0);
            wl_file_access(&st, off, (uint64_t)wr, VMR_FILE_WRITE);
            off += (uint64_t)wr;
            pos = (pos + (uint64_t)wr) % heap_len;
        }
        if (close(fd) != 0) {
            wl_errno("close %s", path);
            goto out;
        }
    }
    rc = 0;
out:
    wl_anon_free(heap, heap_len);
    munmap(heap, heap_len);
    return rc;
}

/* Body of worker process W; returns its exit status. */
static int worker(uint64_t w)
{
    char comm[16];
    uint64_t *order = NULL;
    char *iobuf;
    int status = WL_EXIT_OK;

    /* A name per worker, as `ps` shows cc1 processes of a build. */
    snprintf(comm, sizeof(comm), "cc1-%u", (unsigned)(w % 1024));
    prctl(PR_SET_NAME, comm, 0, 0, 0);
    wl_task_begin((uint32_t)getppid(), comm);

    iobuf = map_anon(WL_IO_SIZE);
    if (opt.headers > 0)
        order = malloc(opt.headers * sizeof(*order));
    if (!iobuf || (opt.headers > 0 && !order)) {
        wl_errno("worker %" PRIu64 ": out of memory", w);
        status = WL_EXIT_RUNTIME;
    }
    for (uint64_t u = 0; status == WL_EXIT_OK && u < opt.units; u++) {
        if (wl_stop)
            break;
        if (opt.duration > 0 && wl_now() - t_start >= opt.duration)
            break;
        if (compile_unit(w, u, iobuf, order) != 0)
            status = WL_EXIT_RUNTIME;
    }
    if (iobuf) {
        wl_anon_free(iobuf, WL_IO_SIZE);
        munmap(iobuf, WL_IO_SIZE);
    }
    free(order);
    wl_task_end(status);
    wl_counts_flush();
    return status;
}

/*
 * Waits for the workers. A stop request reaches only this process when it
 * comes from `kill` or the capture script, so pass it on: the workers then
 * finish their unit, free their memory and end their task.
 */
static int wait_workers(pid_t *pids, uint64_t n)
{
    uint64_t live = 0;
    int forwarded = 0, failed = 0;

    for (uint64_t i = 0; i < n; i++)
        live += pids[i] > 0;
    while (live > 0) {
        int st;
        pid_t pid;

        if (wl_stop && !forwarded) {
            for (uint64_t i = 0; i < n; i++)
                if (pids[i] > 0)
                    kill(pids[i], SIGTERM);
            forwarded = 1;
        }
        pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            wl_errno("waitpid");
            return -1;
        }
        for (uint64_t i = 0; i < n; i++) {
            if (pids[i] != pid)
                continue;
            pids[i] = 0;
            live--;
            if (WIFSIGNALED(st)) {
                /*
                 * Killed (the OOM killer, say) before it could end its
                 * task: end it on its behalf, as the exit did.
                 */
                wl_err("worker %" PRIu64 " (pid %d) killed by signal %d",
                       i, (int)pid, WTERMSIG(st));
                wl_task_end_of((uint32_t)pid, (uint32_t)pid,
                               128 + WTERMSIG(st));
                failed = 1;
            } else if (WEXITSTATUS(st) != 0) {
                failed = 1;
            }
        }
    }
    return failed ? -1 : 0;
}

/* ---------------------------------------------------------------------- */

/* Everything between task_begin and task_end of the parent. */
static int run(void)
{
    char path[PATH_MAX];
    pid_t *pids = NULL;
    char *iobuf = NULL;
    int rc = WL_EXIT_RUNTIME;
    struct wl_rng rng;

    if (snprintf(workdir, sizeof(workdir), "%s/build-like.XXXXXX", opt.dir)
        >= (int)sizeof(workdir)) {
        wl_err("--dir: path too long");
        return WL_EXIT_RUNTIME;
    }
    if (!mkdtemp(workdir)) {
        wl_errno("--dir: cannot create a work directory in %s", opt.dir);
        return WL_EXIT_RUNTIME;
    }

    /* "Checkout": headers and sources, written from one filled buffer. */
    iobuf = map_anon(WL_IO_SIZE);
    pids = calloc(opt.workers, sizeof(*pids));
    if (!iobuf || !pids) {
        wl_errno("out of memory");
        goto cleanup;
    }
    wl_rng_seed(&rng, opt.seed, 0);
    for (size_t i = 0; i < WL_IO_SIZE; i++)
        iobuf[i] = (char)(i % 64 == 63 ? '\n' : 'a' + (int)wl_rng_below(&rng, 26));
    wl_anon_access(iobuf, WL_IO_SIZE, 1);
    for (uint64_t i = 0; i < opt.headers && !wl_stop; i++) {
        header_path(path, i);
        if (create_file(path, opt.header_kb * KIB, iobuf) != 0)
            goto cleanup;
    }
    for (uint64_t w = 0; w < opt.workers && !wl_stop; w++) {
        for (uint64_t u = 0; u < opt.units && !wl_stop; u++) {
            source_path(path, w, u);
            if (create_file(path, opt.source_kb * KIB, iobuf) != 0)
                goto cleanup;
        }
    }

    /* "make -jN": all workers at once. */
    rc = WL_EXIT_OK;
    for (uint64_t w = 0; w < opt.workers && !wl_stop; w++) {
        pid_t pid = wl_fork();

        if (pid == 0)
            _exit(worker(w));   /* _exit: no atexit/stdio of the parent */
        if (pid < 0) {
            wl_errno("fork");
            wl_stop = 1;        /* the workers already running wind down */
            rc = WL_EXIT_RUNTIME;
            break;
        }
        pids[w] = pid;
    }
    /* The sampler starts after the forks: fork() copies only one thread. */
    if (wl_sampler_start((unsigned)opt.vmstat_ms) != 0)
        rc = WL_EXIT_RUNTIME;
    if (wait_workers(pids, opt.workers) != 0)
        rc = WL_EXIT_RUNTIME;
    wl_sampler_stop();

cleanup:
    /* "make clean": objects, sources, headers; each one's pages drop. */
    for (uint64_t w = 0; w < opt.workers; w++) {
        for (uint64_t u = 0; u < opt.units; u++) {
            object_path(path, w, u);
            if (remove_file(path) != 0)
                rc = WL_EXIT_RUNTIME;
            source_path(path, w, u);
            if (remove_file(path) != 0)
                rc = WL_EXIT_RUNTIME;
        }
    }
    for (uint64_t i = 0; i < opt.headers; i++) {
        header_path(path, i);
        if (remove_file(path) != 0)
            rc = WL_EXIT_RUNTIME;
    }
    if (rmdir(workdir) != 0) {
        wl_errno("rmdir %s", workdir);
        rc = WL_EXIT_RUNTIME;
    }
    if (iobuf) {
        wl_anon_free(iobuf, WL_IO_SIZE);
        munmap(iobuf, WL_IO_SIZE);
    }
    free(pids);
    if (wl_stop && rc == WL_EXIT_OK) {
        wl_err("interrupted");
        rc = WL_EXIT_RUNTIME;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (wl_init("build-like") != 0)
        return WL_EXIT_RUNTIME;
    if (parse_options(argc, argv) != 0)
        return WL_EXIT_USAGE;
    t_start = wl_now();

    return wl_session("build-like", argc, argv, opt.memory_limit, (int32_t)opt.swappiness, run);
}
