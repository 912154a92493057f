/*
 * anon-storm - many threads storing all over one anonymous working set.
 *
 * The pure anonymous-memory side of a reclaim session: one mmap()ed working
 * set, shared by every thread of the process, and each thread repeatedly
 * stores to a run of consecutive pages at a random page offset. Under a
 * memory limit below the working set this is a swap storm; with --hot-mb /
 * --hot-pct part of the set is hotter than the rest, which is what an LRU
 * has to discover.
 *
 * Every page of a run is really stored to before the run is emitted as one
 * vmreplay:anon_access (write=1); the offsets come from a per-thread
 * xorshift stream derived from --seed, so a run is reproducible.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "wl_common.h"

#define MIB (1024ULL * 1024ULL)

struct options {
    uint64_t threads;
    uint64_t wss_mb;
    uint64_t run_pages;
    uint64_t touches;           /* per thread; 0 = until --duration */
    double duration;            /* seconds; 0 = until --touches */
    uint64_t hot_mb;            /* the first hot_mb of the set are hot... */
    uint64_t hot_pct;           /* ...and get this share of the touches */
    uint64_t seed;
    uint64_t memory_limit;      /* only recorded in vmreplay:session */
    int64_t swappiness;         /* only recorded in vmreplay:session */
    uint64_t vmstat_ms;
};

static struct options opt = {
    .threads = 4, .wss_mb = 64, .run_pages = 4, .touches = 10000,
    .duration = 0, .hot_mb = 0, .hot_pct = 0, .seed = 1, .memory_limit = 0,
    .swappiness = -1, .vmstat_ms = 1000,
};

struct storm_thread {
    pthread_t thread;
    uint64_t index;
    int started;
};

static char *wss;               /* the working set */
static uint64_t wss_pages, hot_pages;
static double t_start;

static void usage(FILE *f)
{
    fprintf(f,
"Usage: anon-storm [OPTION]...\n"
"Threads storing to runs of pages at random offsets of one shared anonymous\n"
"working set, instrumented with the vmreplay LTTng-UST provider (run it\n"
"under capture/ust-capture.sh).\n"
"\n"
"  -t, --threads=N       threads (default 4)\n"
"  -m, --wss-mb=MB       size of the working set (default 64)\n"
"  -r, --run-pages=N     consecutive pages stored to per touch (default 4)\n"
"  -n, --touches=N       touches per thread; 0 = until --duration\n"
"                        (default 10000)\n"
"  -d, --duration=SEC    stop after SEC seconds; 0 = until --touches\n"
"                        (default 0)\n"
"      --hot-mb=MB       the first MB of the set are hot... (default 0)\n"
"      --hot-pct=P       ...and receive P%% of the touches (default 0 = the\n"
"                        whole set is uniform)\n"
"  -s, --seed=N          seed of the per-thread offset streams (default 1)\n"
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
    enum { O_HOT_MB = 256, O_HOT_PCT, O_MEMLIMIT, O_SWAPPINESS, O_VMSTAT_MS };
    static const struct option longopts[] = {
        { "threads",      required_argument, NULL, 't' },
        { "wss-mb",       required_argument, NULL, 'm' },
        { "run-pages",    required_argument, NULL, 'r' },
        { "touches",      required_argument, NULL, 'n' },
        { "duration",     required_argument, NULL, 'd' },
        { "hot-mb",       required_argument, NULL, O_HOT_MB },
        { "hot-pct",      required_argument, NULL, O_HOT_PCT },
        { "seed",         required_argument, NULL, 's' },
        { "memory-limit", required_argument, NULL, O_MEMLIMIT },
        { "swappiness",   required_argument, NULL, O_SWAPPINESS },
        { "vmstat-ms",    required_argument, NULL, O_VMSTAT_MS },
        { "help",         no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int c, r = 0;

    opterr = 0;                 /* we print our own one-line errors */
    while ((c = getopt_long(argc, argv, "t:m:r:n:d:s:h", longopts, NULL)) != -1) {
        switch (c) {
        case 't': r = wl_opt_u64("--threads", optarg, 1, 4096, &opt.threads); break;
        case 'm': r = wl_opt_u64("--wss-mb", optarg, 1, 1 << 20, &opt.wss_mb); break;
        case 'r': r = wl_opt_u64("--run-pages", optarg, 1, 1 << 20, &opt.run_pages); break;
        case 'n': r = wl_opt_u64("--touches", optarg, 0, 1000000000000ULL, &opt.touches); break;
        case 'd': r = wl_opt_double("--duration", optarg, 0, 7 * 86400, &opt.duration); break;
        case O_HOT_MB: r = wl_opt_u64("--hot-mb", optarg, 0, 1 << 20, &opt.hot_mb); break;
        case O_HOT_PCT: r = wl_opt_u64("--hot-pct", optarg, 0, 100, &opt.hot_pct); break;
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

    wss_pages = opt.wss_mb * MIB / wl_page_size;
    hot_pages = opt.hot_mb * MIB / wl_page_size;
    if (opt.touches == 0 && opt.duration == 0) {
        wl_err("--touches 0 runs until --duration, which is 0 too");
        return -1;
    }
    if (opt.run_pages > wss_pages) {
        wl_err("--run-pages: %" PRIu64 " pages do not fit in --wss-mb %" PRIu64,
               opt.run_pages, opt.wss_mb);
        return -1;
    }
    if ((opt.hot_mb > 0) != (opt.hot_pct > 0)) {
        wl_err("--hot-mb and --hot-pct go together");
        return -1;
    }
    if (opt.hot_mb > opt.wss_mb) {
        wl_err("--hot-mb: %" PRIu64 " is larger than --wss-mb %" PRIu64,
               opt.hot_mb, opt.wss_mb);
        return -1;
    }
    if (opt.hot_mb > 0 && opt.run_pages > hot_pages) {
        wl_err("--run-pages: %" PRIu64 " pages do not fit in --hot-mb %" PRIu64,
               opt.run_pages, opt.hot_mb);
        return -1;
    }
    /* Touching more than RAM + swap would only summon the OOM killer. */
    if (wl_ram_and_swap() > 0 && opt.wss_mb * MIB > wl_ram_and_swap()) {
        wl_err("--wss-mb: %" PRIu64 " is more than RAM + swap (%" PRIu64 " MiB)",
               opt.wss_mb, (uint64_t)(wl_ram_and_swap() / MIB));
        return -1;
    }
    if (opt.vmstat_ms > 0 && opt.vmstat_ms < 10) {
        wl_err("--vmstat-ms: %" PRIu64 " is too short (0, or at least 10)",
               opt.vmstat_ms);
        return -1;
    }
    return 0;
}

/* First page of the next run: in the hot part with probability hot_pct. */
static uint64_t pick_page(struct wl_rng *rng)
{
    if (opt.hot_pct > 0 && wl_rng_below(rng, 100) < opt.hot_pct)
        return wl_rng_below(rng, hot_pages - opt.run_pages + 1);
    return wl_rng_below(rng, wss_pages - opt.run_pages + 1);
}

static void *storm_main(void *arg)
{
    struct storm_thread *t = arg;
    const uint64_t run_bytes = opt.run_pages * wl_page_size;
    /* Threads store to different cache lines of a page, as real ones would. */
    const uint64_t word = (t->index * 64 / sizeof(uint64_t)) %
                          (wl_page_size / sizeof(uint64_t));
    struct wl_rng rng;
    char comm[16];

    snprintf(comm, sizeof(comm), "storm-%u", (unsigned)t->index);
    prctl(PR_SET_NAME, comm, 0, 0, 0);
    wl_task_begin((uint32_t)getpid(), comm);
    wl_rng_seed(&rng, opt.seed, t->index + 1);

    for (uint64_t i = 0; opt.touches == 0 || i < opt.touches; i++) {
        char *run;

        if (wl_stop)
            break;
        /* Reading the clock every touch would cost more than the touch. */
        if (opt.duration > 0 && i % 64 == 0 && wl_now() - t_start >= opt.duration)
            break;
        run = wss + pick_page(&rng) * wl_page_size;
        for (uint64_t p = 0; p < opt.run_pages; p++)
            ((volatile uint64_t *)(run + p * wl_page_size))[word] = i;
        wl_anon_access(run, run_bytes, 1);
    }

    wl_task_end(0);
    wl_counts_flush();
    return NULL;
}

/* Everything between task_begin and task_end of the main thread. */
static int run(void)
{
    size_t wss_len = wss_pages * wl_page_size;
    struct storm_thread *threads;
    int rc = WL_EXIT_OK;

    threads = calloc(opt.threads, sizeof(*threads));
    wss = mmap(NULL, wss_len, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (!threads || wss == MAP_FAILED) {
        wl_errno("cannot allocate a %" PRIu64 " MiB working set", opt.wss_mb);
        free(threads);
        return WL_EXIT_RUNTIME;
    }

    if (wl_sampler_start((unsigned)opt.vmstat_ms) != 0)
        rc = WL_EXIT_RUNTIME;
    for (uint64_t i = 0; i < opt.threads && rc == WL_EXIT_OK; i++) {
        int err;

        threads[i].index = i;
        err = pthread_create(&threads[i].thread, NULL, storm_main, &threads[i]);
        if (err) {
            errno = err;
            wl_errno("pthread_create");
            wl_stop = 1;        /* the threads already running stop early */
            rc = WL_EXIT_RUNTIME;
            break;
        }
        threads[i].started = 1;
    }
    for (uint64_t i = 0; i < opt.threads; i++)
        if (threads[i].started)
            pthread_join(threads[i].thread, NULL);
    wl_sampler_stop();

    wl_anon_free(wss, wss_len);
    munmap(wss, wss_len);
    free(threads);
    if (wl_stop && rc == WL_EXIT_OK) {
        wl_err("interrupted");
        rc = WL_EXIT_RUNTIME;
    }
    return rc;
}

int main(int argc, char **argv)
{
    if (wl_init("anon-storm") != 0)
        return WL_EXIT_RUNTIME;
    if (parse_options(argc, argv) != 0)
        return WL_EXIT_USAGE;
    t_start = wl_now();

    return wl_session("anon-storm", argc, argv, opt.memory_limit, (int32_t)opt.swappiness, run);
}
