/*
 * phone - a phone's apps, each a process in its own memory cgroup, as a
 * reclaim workload.
 *
 * What a phone does to memory when the user opens one app after another
 * and switches between them: many processes, each in its own memory cgroup
 * (apps/<name>) with no limit of its own, whose memory together is more
 * than the node has - so it is the whole node that runs short, and tasks
 * enter direct reclaim that walks the whole cgroup tree.
 *
 * The launcher (this process, "phone") opens --apps apps one after another,
 * then moves the foreground from app to app --switches times (half the
 * time back to one of the three apps used last, as people do, otherwise any
 * other app). Each app is a forked process that
 *
 *   - joins its cgroup apps/<name> (vmreplay:cgroup before its first access),
 *   - at launch "installs" its asset files (write(), --assets-kb in four
 *     files: the page cache it will read), grows its anonymous heap to
 *     --app-mb in 64 KiB chunks while it reads the assets once,
 *   - in the foreground: on being switched to, touches its whole working set
 *     again - the hot part (--hot-pct of the heap) stored to, the rest
 *     loaded - re-reads its assets (refaults, if they were evicted meanwhile),
 *     allocates frame buffers (an eighth of the heap); then, one frame every
 *     16.7 ms for --fg-ms, stores to runs of 4 pages (90 % of them in the
 *     hot part) and a frame buffer piece, reads a 16 KiB piece of an asset
 *     every 8th frame and writes a page to its data file every 16th; at the
 *     end it frees the frame buffers,
 *   - in the background: mostly idle; every --bg-ms (+-25 %) it stores to
 *     one run of 4 hot pages, and every 8th time writes a page to its data
 *     file (a sync),
 *   - at the end frees everything and unlinks its files.
 *
 * As root with a memory cgroup hierarchy (v1 or v2) the cgroups are real:
 * NAME.<pid>/apps/<name> inside the launcher's own memory cgroup, removed at
 * exit on every path the process survives (normal end, error, SIGINT,
 * SIGTERM, SIGHUP). Otherwise (or with --cgroups no) they are only recorded.
 *
 * Everything is touched for real, and every range is emitted through the
 * vmreplay provider right after it was touched, in whole pages.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wl_common.h"
#include "vmreplay_tp.h"

#define KIB 1024ULL
#define MIB (1024ULL * 1024ULL)

#define NR_ASSETS      4            /* asset files per app */
#define DATA_BYTES     (256 * KIB)  /* the data file's writes fall in this */
#define CHUNK_BYTES    (64 * KIB)   /* heap growth and working-set sweeps */
#define FRAME_NS       16666667LL   /* 60 frames a second */
#define FRAME_RUNS     4            /* runs of pages stored to per frame */
#define RUN_PAGES      4
#define FRAME_HOT_PCT  90           /* share of frame runs in the hot part */
#define FRAME_READ     8            /* every 8th frame reads an asset piece */
#define FRAME_READ_BYTES (16 * KIB)
#define FRAME_WRITE    16           /* every 16th frame writes a data page */
#define TRICKLE_WRITE  8            /* every 8th trickle writes a data page */
#define MRU_PCT        50           /* switches back to a recent app */
#define MRU_RECENT     3

struct options {
    uint64_t apps;
    uint64_t app_mb;            /* heap (working set) of an app */
    uint64_t hot_pct;           /* the hot part of the heap */
    uint64_t assets_kb;         /* asset files of an app, in all */
    uint64_t switches;          /* foreground switches after the launches */
    uint64_t fg_ms;             /* time in the foreground per switch */
    uint64_t bg_ms;             /* period of the background trickle */
    const char *dir;            /* where the work dir is created */
    uint64_t seed;
    uint64_t memory_limit;      /* only recorded in vmreplay:session */
    int64_t swappiness;         /* only recorded in vmreplay:session */
    uint64_t vmstat_ms;
    enum wl_cg_mode cgroups;
};

static struct options opt = {
    .apps = 10, .app_mb = 16, .hot_pct = 25, .assets_kb = 4096,
    .switches = 30, .fg_ms = 300, .bg_ms = 200, .dir = "/tmp", .seed = 1,
    .memory_limit = 0, .swappiness = -1, .vmstat_ms = 1000,
    .cgroups = WL_CG_AUTO,
};

static const char *const app_names[] = {
    "camera", "browser", "maps", "chat", "mail", "music", "photos", "video",
    "social", "game", "news", "calendar", "notes", "shop", "bank", "weather",
};
#define NR_NAMES (sizeof(app_names) / sizeof(app_names[0]))

/* The launcher's view of an app. */
struct app {
    char name[12];              /* fits "app-<name>" in a comm */
    char cgpath[40];            /* "apps/<name>" */
    pid_t pid;                  /* 0 when not running (never or reaped) */
    int cmd_fd;                 /* launcher -> app: 'F'oreground, 'Q'uit */
    int reply_fd;               /* app -> launcher: 'D'one */
};

static struct app *apps;
static char workdir[PATH_MAX - 128];

static void usage(FILE *f)
{
    fprintf(f,
"Usage: phone [OPTION]...\n"
"A phone's apps as a memory-reclaim workload: a launcher opens apps one\n"
"after another, each a process in its own memory cgroup apps/<name>, and\n"
"switches the foreground between them. Instrumented with the vmreplay\n"
"LTTng-UST provider (run it under capture/ust-capture.sh).\n"
"\n"
"  -a, --apps=N          apps (processes, cgroups) (default 10)\n"
"  -m, --app-mb=MB       anonymous working set (heap) of an app (default 16)\n"
"      --hot-pct=P       the hot part: P%% of the heap, which gets 90%% of\n"
"                        the foreground's touches (default 25)\n"
"      --assets-kb=KB    asset files of an app, in all (4 files), read at\n"
"                        launch and on each switch to it (default 4096)\n"
"  -n, --switches=N      foreground switches after all apps are open\n"
"                        (default 30)\n"
"      --fg-ms=MS        time in the foreground per launch or switch\n"
"                        (default 300)\n"
"      --bg-ms=MS        period of a background app's trickle of activity\n"
"                        (default 200)\n"
"      --dir=DIR         create the work directory under DIR (default /tmp);\n"
"                        it is removed at the end\n"
"  -s, --seed=N          seed of the switch order and the touches (default 1)\n"
"      --cgroups=WHEN    create the apps' memory cgroups for real: auto (as\n"
"                        root, when a memory hierarchy is mounted), yes (or\n"
"                        fail), no (only record them) (default auto)\n"
"      --memory-limit=BYTES  cgroup limit the run is under, recorded in the\n"
"                        session event only; K/M/G suffixes (default 0 = none)\n"
"      --swappiness=N    swappiness in force, recorded only (default -1 =\n"
"                        unknown)\n"
"      --vmstat-ms=MS    /proc/vmstat sampling period; 0 = only at start and\n"
"                        end (default 1000)\n"
"  -h, --help            show this help\n"
"\n"
"Each app emits vmreplay:cgroup (path apps/<name>, limit 0, swappiness -1)\n"
"before its first access. Prints one summary line with the number of events\n"
"emitted to stderr.\n"
"Exit status: 0 ok, 1 runtime error or interrupted, 2 usage error.\n");
}

static int parse_options(int argc, char **argv)
{
    enum { O_HOT_PCT = 256, O_ASSETS_KB, O_FG_MS, O_BG_MS, O_DIR, O_CGROUPS,
           O_MEMLIMIT, O_SWAPPINESS, O_VMSTAT_MS };
    static const struct option longopts[] = {
        { "apps",         required_argument, NULL, 'a' },
        { "app-mb",       required_argument, NULL, 'm' },
        { "hot-pct",      required_argument, NULL, O_HOT_PCT },
        { "assets-kb",    required_argument, NULL, O_ASSETS_KB },
        { "switches",     required_argument, NULL, 'n' },
        { "fg-ms",        required_argument, NULL, O_FG_MS },
        { "bg-ms",        required_argument, NULL, O_BG_MS },
        { "dir",          required_argument, NULL, O_DIR },
        { "seed",         required_argument, NULL, 's' },
        { "cgroups",      required_argument, NULL, O_CGROUPS },
        { "memory-limit", required_argument, NULL, O_MEMLIMIT },
        { "swappiness",   required_argument, NULL, O_SWAPPINESS },
        { "vmstat-ms",    required_argument, NULL, O_VMSTAT_MS },
        { "help",         no_argument,       NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    uint64_t ram_swap, need;
    int c, r = 0;

    opterr = 0;                 /* we print our own one-line errors */
    while ((c = getopt_long(argc, argv, "a:m:n:s:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': r = wl_opt_u64("--apps", optarg, 1, 256, &opt.apps); break;
        case 'm': r = wl_opt_u64("--app-mb", optarg, 1, 1 << 20, &opt.app_mb); break;
        case O_HOT_PCT: r = wl_opt_u64("--hot-pct", optarg, 1, 100, &opt.hot_pct); break;
        case O_ASSETS_KB: r = wl_opt_u64("--assets-kb", optarg, 0, 1 << 24, &opt.assets_kb); break;
        case 'n': r = wl_opt_u64("--switches", optarg, 0, 10000000, &opt.switches); break;
        case O_FG_MS: r = wl_opt_u64("--fg-ms", optarg, 10, 3600000, &opt.fg_ms); break;
        case O_BG_MS: r = wl_opt_u64("--bg-ms", optarg, 10, 3600000, &opt.bg_ms); break;
        case O_DIR: opt.dir = optarg; break;
        case 's': r = wl_opt_u64("--seed", optarg, 0, UINT64_MAX, &opt.seed); break;
        case O_CGROUPS:
            if (strcmp(optarg, "auto") == 0)
                opt.cgroups = WL_CG_AUTO;
            else if (strcmp(optarg, "yes") == 0)
                opt.cgroups = WL_CG_YES;
            else if (strcmp(optarg, "no") == 0)
                opt.cgroups = WL_CG_NO;
            else {
                wl_err("--cgroups: '%s' is not auto, yes or no", optarg);
                r = -1;
            }
            break;
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
    /* Heap and frame buffers of every app are alive at once. */
    ram_swap = wl_ram_and_swap();
    need = opt.apps * (opt.app_mb * MIB + opt.app_mb * MIB / 8 + opt.assets_kb * KIB);
    if (ram_swap > 0 && need > ram_swap) {
        wl_err("--apps %" PRIu64 " x (--app-mb %" PRIu64 " + frame buffers + --assets-kb %"
               PRIu64 ") is more than RAM + swap (%" PRIu64 " MiB)",
               opt.apps, opt.app_mb, opt.assets_kb, (uint64_t)(ram_swap / MIB));
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
/* Small helpers                                                          */

static void *map_anon(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

static uint64_t round_pages(uint64_t bytes)
{
    return (bytes + wl_page_size - 1) / wl_page_size * wl_page_size;
}

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Sleeps until the CLOCK_MONOTONIC time T (ns); returns early on a stop. */
static void sleep_until(int64_t t)
{
    struct timespec ts = { (time_t)(t / 1000000000LL), (long)(t % 1000000000LL) };

    while (!wl_stop &&
           clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void asset_path(char *buf, const char *app, int k)
{
    snprintf(buf, PATH_MAX, "%s/%s-asset%d", workdir, app, k);
}

static void data_path(char *buf, const char *app)
{
    snprintf(buf, PATH_MAX, "%s/%s-data", workdir, app);
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
/* An app (runs in its own process)                                       */

struct app_state {
    const char *name;
    struct wl_rng rng;
    char *heap;
    uint64_t heap_len, heap_pages, hot_pages;
    char *scratch;              /* frame buffers, while in the foreground */
    uint64_t scratch_len, scratch_pos;
    char *iobuf;                /* WL_IO_SIZE */
    int asset_fd[NR_ASSETS];
    struct stat asset_st[NR_ASSETS];
    uint64_t asset_len;         /* bytes per asset file; 0 = none */
    int data_fd;
    struct stat data_st;
    uint64_t frames, trickles;
};

/* Really touches [P, P + LEN) page by page, then emits it. */
static void touch(struct app_state *a, char *p, uint64_t len, int write)
{
    static volatile uint64_t sink;
    uint64_t sum = 0;

    for (uint64_t off = 0; off < len; off += wl_page_size) {
        if (write)
            ((volatile uint64_t *)(p + off))[0] = a->frames + off;
        else
            sum += ((volatile uint64_t *)(p + off))[1];
    }
    sink += sum;
    wl_anon_access(p, (size_t)len, write);
}

/* A run of RUN_PAGES stored to: in the hot part, or anywhere. */
static void touch_run(struct app_state *a, int hot)
{
    uint64_t span = hot ? a->hot_pages : a->heap_pages;
    uint64_t pg = wl_rng_below(&a->rng, span - RUN_PAGES + 1);

    touch(a, a->heap + pg * wl_page_size, RUN_PAGES * wl_page_size, 1);
}

/* Sweeps [P, P + LEN) in CHUNK_BYTES pieces. */
static void sweep(struct app_state *a, char *p, uint64_t len, int write)
{
    for (uint64_t off = 0; off < len && !wl_stop; off += CHUNK_BYTES)
        touch(a, p + off, len - off < CHUNK_BYTES ? len - off : CHUNK_BYTES, write);
}

/* pread()s LEN bytes (<= WL_IO_SIZE) of asset K at OFF into the buffer. */
static int read_piece(struct app_state *a, int k, uint64_t off, uint64_t len)
{
    uint64_t done = 0;

    while (done < len) {
        ssize_t n = pread(a->asset_fd[k], a->iobuf + done, (size_t)(len - done),
                          (off_t)(off + done));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            wl_errno("%s: read asset %d", a->name, k);
            return -1;
        }
        done += (uint64_t)n;
    }
    /* read() loads page-cache pages and stores into the buffer. */
    wl_file_access(&a->asset_st[k], off, len, VMR_FILE_READ);
    wl_anon_access(a->iobuf, (size_t)len, 1);
    return 0;
}

static int read_asset(struct app_state *a, int k)
{
    for (uint64_t off = 0; off < a->asset_len && !wl_stop; off += WL_IO_SIZE) {
        uint64_t n = a->asset_len - off < WL_IO_SIZE ? a->asset_len - off : WL_IO_SIZE;

        if (read_piece(a, k, off, n) != 0)
            return -1;
    }
    return 0;
}

/* write()s one page of the buffer to the data file at a random page. */
static int write_record(struct app_state *a)
{
    uint64_t off = wl_rng_below(&a->rng, DATA_BYTES / wl_page_size) * wl_page_size;
    ssize_t w;

    a->iobuf[0] = (char)a->frames;
    do
        w = pwrite(a->data_fd, a->iobuf, (size_t)wl_page_size, (off_t)off);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)wl_page_size) {
        wl_errno("%s: write its data file", a->name);
        return -1;
    }
    /* write() loads the buffer and stores into the page cache. */
    wl_anon_access(a->iobuf, (size_t)wl_page_size, 0);
    wl_file_access(&a->data_st, off, wl_page_size, VMR_FILE_WRITE);
    return 0;
}

/* Creates the app's files: the assets (written through write()), data. */
static int install(struct app_state *a)
{
    char path[PATH_MAX];

    for (int k = 0; k < NR_ASSETS; k++)
        a->asset_fd[k] = -1;
    data_path(path, a->name);
    a->data_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (a->data_fd < 0 || fstat(a->data_fd, &a->data_st) != 0) {
        wl_errno("create %s", path);
        return -1;
    }
    for (int k = 0; k < NR_ASSETS && a->asset_len > 0; k++) {
        uint64_t off = 0;

        asset_path(path, a->name, k);
        a->asset_fd[k] = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (a->asset_fd[k] < 0 || fstat(a->asset_fd[k], &a->asset_st[k]) != 0) {
            wl_errno("create %s", path);
            return -1;
        }
        while (off < a->asset_len) {
            size_t n = a->asset_len - off < WL_IO_SIZE ? (size_t)(a->asset_len - off) : WL_IO_SIZE;
            ssize_t w = write(a->asset_fd[k], a->iobuf, n);

            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                wl_errno("write %s", path);
                return -1;
            }
            wl_anon_access(a->iobuf, (size_t)w, 0);
            wl_file_access(&a->asset_st[k], off, (uint64_t)w, VMR_FILE_WRITE);
            off += (uint64_t)w;
        }
    }
    return 0;
}

/*
 * In the foreground for --fg-ms: the resume (unless this is the launch,
 * which has just touched everything), then frames.
 */
static int foreground(struct app_state *a, int launch)
{
    int64_t start = now_ns(), end = start + (int64_t)opt.fg_ms * 1000000LL;
    int64_t next;

    a->scratch = map_anon(a->scratch_len);
    if (!a->scratch) {
        wl_errno("%s: mmap frame buffers", a->name);
        return -1;
    }
    a->scratch_pos = 0;
    if (!launch) {
        /* Draw the UI again: the hot part, the assets, then the rest. */
        sweep(a, a->heap, a->hot_pages * wl_page_size, 1);
        for (int k = 0; k < NR_ASSETS && a->asset_len > 0 && !wl_stop; k++)
            if (read_asset(a, k) != 0)
                return -1;
    }
    sweep(a, a->scratch, a->scratch_len, 1);
    if (!launch)
        sweep(a, a->heap + a->hot_pages * wl_page_size,
              (a->heap_pages - a->hot_pages) * wl_page_size, 0);

    for (next = now_ns(); !wl_stop; next += FRAME_NS) {
        uint64_t piece;

        a->frames++;
        for (int r = 0; r < FRAME_RUNS; r++)
            touch_run(a, wl_rng_below(&a->rng, 100) < FRAME_HOT_PCT);
        piece = a->scratch_len - a->scratch_pos < CHUNK_BYTES ?
                a->scratch_len - a->scratch_pos : CHUNK_BYTES;
        touch(a, a->scratch + a->scratch_pos, piece, 1);
        a->scratch_pos = (a->scratch_pos + piece) % a->scratch_len;
        if (a->frames % FRAME_READ == 0 && a->asset_len > 0) {
            int k = (int)wl_rng_below(&a->rng, NR_ASSETS);
            uint64_t len = FRAME_READ_BYTES < a->asset_len ? FRAME_READ_BYTES : a->asset_len;
            uint64_t off = wl_rng_below(&a->rng, (a->asset_len - len) / wl_page_size + 1) *
                           wl_page_size;

            if (read_piece(a, k, off, len) != 0)
                return -1;
        }
        if (a->frames % FRAME_WRITE == 0 && write_record(a) != 0)
            return -1;
        if (next + FRAME_NS >= end)
            break;
        sleep_until(next + FRAME_NS);
    }
    sleep_until(end);

    wl_anon_free(a->scratch, a->scratch_len);
    munmap(a->scratch, a->scratch_len);
    a->scratch = NULL;
    return 0;
}

/* In the background: a few hot pages, now and then a sync. */
static int trickle(struct app_state *a)
{
    a->trickles++;
    touch_run(a, 1);
    if (a->trickles % TRICKLE_WRITE == 0)
        return write_record(a);
    return 0;
}

/* The next trickle, --bg-ms +-25 % after T. */
static int64_t next_trickle(struct app_state *a, int64_t t)
{
    uint64_t bg = opt.bg_ms * 1000000ULL;

    return t + (int64_t)(bg - bg / 4 + wl_rng_below(&a->rng, bg / 2 + 1));
}

static int reply(int fd)
{
    ssize_t w;

    do
        w = write(fd, "D", 1);
    while (w < 0 && errno == EINTR);
    return w == 1 ? 0 : -1;
}

/* Launch, then serve the launcher's commands; returns the exit status. */
static int app_run(struct app_state *a, int cmd_fd, int reply_fd)
{
    int64_t next;

    if (install(a) != 0)
        return WL_EXIT_RUNTIME;

    /* Cold start: the heap grows while the assets are read once. */
    for (uint64_t off = 0, k = 0; off < a->heap_len && !wl_stop; off += CHUNK_BYTES) {
        uint64_t n = a->heap_len - off < CHUNK_BYTES ? a->heap_len - off : CHUNK_BYTES;

        memset(a->heap + off, (int)(0x20 + (off / CHUNK_BYTES) % 64), n);
        wl_anon_access(a->heap + off, (size_t)n, 1);
        /* Asset k after (k+1)/(NR_ASSETS+1) of the heap. */
        while (a->asset_len > 0 && k < NR_ASSETS &&
               off + n >= a->heap_len * (k + 1) / (NR_ASSETS + 1)) {
            if (read_asset(a, (int)k) != 0)
                return WL_EXIT_RUNTIME;
            k++;
        }
    }
    if (!wl_stop && foreground(a, 1) != 0)
        return WL_EXIT_RUNTIME;
    if (wl_stop || reply(reply_fd) != 0)
        return WL_EXIT_OK;

    next = next_trickle(a, now_ns());
    while (!wl_stop) {
        /*
         * The summary's totals, up to here: an app killed by a signal
         * (the OOM killer) cannot flush at its end.
         */
        wl_counts_flush();
        struct pollfd pfd = { .fd = cmd_fd, .events = POLLIN };
        int64_t wait = next - now_ns();
        int n;
        char cmd;

        n = poll(&pfd, 1, wait > 0 ? (int)((wait + 999999) / 1000000) : 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            wl_errno("%s: poll", a->name);
            return WL_EXIT_RUNTIME;
        }
        if (n == 0) {
            if (now_ns() < next)
                continue;
            if (trickle(a) != 0)
                return WL_EXIT_RUNTIME;
            next = next_trickle(a, next);
            if (next < now_ns())
                next = next_trickle(a, now_ns());
            continue;
        }
        n = (int)read(cmd_fd, &cmd, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || cmd == 'Q')           /* quit, or the launcher is gone */
            break;
        if (cmd == 'F') {
            if (foreground(a, 0) != 0)
                return WL_EXIT_RUNTIME;
            if (wl_stop || reply(reply_fd) != 0)
                break;
            next = next_trickle(a, now_ns());
        }
    }
    return WL_EXIT_OK;
}

/* Body of app process I; returns its exit status. */
static int app_main(uint64_t i, int cmd_fd, int reply_fd)
{
    struct app *me = &apps[i];
    struct app_state a;
    char comm[16], path[PATH_MAX];
    int status = WL_EXIT_OK;

    memset(&a, 0, sizeof(a));
    a.name = me->name;
    a.data_fd = -1;
    for (int k = 0; k < NR_ASSETS; k++)
        a.asset_fd[k] = -1;
    snprintf(comm, sizeof(comm), "app-%s", me->name);
    prctl(PR_SET_NAME, comm, 0, 0, 0);
    wl_task_begin((uint32_t)getppid(), comm);
    /* Into its cgroup before it touches anything. */
    if (wl_cg_enter(me->cgpath) != 0) {
        wl_task_end(WL_EXIT_RUNTIME);
        wl_counts_flush();
        return WL_EXIT_RUNTIME;
    }
    wl_cgroup(me->cgpath, 0, -1);

    wl_rng_seed(&a.rng, opt.seed, i + 1);
    a.heap_len = opt.app_mb * MIB;
    a.heap_pages = a.heap_len / wl_page_size;
    a.hot_pages = a.heap_pages * opt.hot_pct / 100;
    if (a.hot_pages < RUN_PAGES)
        a.hot_pages = RUN_PAGES;
    a.scratch_len = round_pages(a.heap_len / 8);
    a.asset_len = round_pages(opt.assets_kb * KIB / NR_ASSETS);
    a.iobuf = map_anon(WL_IO_SIZE);
    a.heap = map_anon(a.heap_len);
    if (!a.iobuf || !a.heap) {
        wl_errno("%s: mmap %" PRIu64 " MiB of heap", a.name, opt.app_mb);
        status = WL_EXIT_RUNTIME;
    } else {
        for (size_t j = 0; j < WL_IO_SIZE; j++)
            a.iobuf[j] = (char)(j % 64 == 63 ? '\n' : 'a' + (int)((j * 7 + i) % 26));
        wl_anon_access(a.iobuf, WL_IO_SIZE, 1);
        status = app_run(&a, cmd_fd, reply_fd);
    }

    /* Quit: free the memory, delete the files. */
    if (a.scratch) {
        wl_anon_free(a.scratch, a.scratch_len);
        munmap(a.scratch, a.scratch_len);
    }
    if (a.heap) {
        wl_anon_free(a.heap, a.heap_len);
        munmap(a.heap, a.heap_len);
    }
    if (a.data_fd >= 0) {
        close(a.data_fd);
        data_path(path, a.name);
        if (remove_file(path) != 0)
            status = WL_EXIT_RUNTIME;
    }
    for (int k = 0; k < NR_ASSETS; k++) {
        if (a.asset_fd[k] < 0)
            continue;
        close(a.asset_fd[k]);
        asset_path(path, a.name, k);
        if (remove_file(path) != 0)
            status = WL_EXIT_RUNTIME;
    }
    if (a.iobuf) {
        wl_anon_free(a.iobuf, WL_IO_SIZE);
        munmap(a.iobuf, WL_IO_SIZE);
    }
    wl_task_end(status);
    wl_counts_flush();
    return status;
}

/* ---------------------------------------------------------------------- */
/* The launcher                                                           */

static int forwarded;

/* A stop request reaches only the launcher when it comes from `kill` or
 * the capture script: pass it on to the apps. */
static void forward_stop(void)
{
    if (!wl_stop || forwarded)
        return;
    for (uint64_t i = 0; i < opt.apps; i++)
        if (apps[i].pid > 0)
            kill(apps[i].pid, SIGTERM);
    forwarded = 1;
}

/* Waits for app I's 'D'. -1 when it ended instead, or on a stop request. */
static int wait_done(uint64_t i)
{
    for (;;) {
        struct pollfd pfd = { .fd = apps[i].reply_fd, .events = POLLIN };
        char c;
        int n;

        forward_stop();
        n = poll(&pfd, 1, 100);
        if (n < 0 && errno != EINTR) {
            wl_errno("poll");
            return -1;
        }
        if (n <= 0)
            continue;
        n = (int)read(apps[i].reply_fd, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 1 && c == 'D')
            return wl_stop ? -1 : 0;
        return -1;              /* EOF: the app has ended */
    }
}

static int send_cmd(uint64_t i, char c)
{
    ssize_t w;

    do
        w = write(apps[i].cmd_fd, &c, 1);
    while (w < 0 && errno == EINTR);
    return w == 1 ? 0 : -1;
}

/* Forks app I and waits until it has launched. */
static int launch(uint64_t i)
{
    int cmd[2], rep[2];
    pid_t pid;

    if (pipe(cmd) != 0 || pipe(rep) != 0) {
        wl_errno("pipe");
        return -1;
    }
    pid = wl_fork();
    if (pid == 0) {
        /* The other apps' pipes are the launcher's business. */
        for (uint64_t j = 0; j < i; j++) {
            if (apps[j].cmd_fd >= 0)
                close(apps[j].cmd_fd);
            if (apps[j].reply_fd >= 0)
                close(apps[j].reply_fd);
        }
        close(cmd[1]);
        close(rep[0]);
        _exit(app_main(i, cmd[0], rep[1]));     /* no atexit of the launcher */
    }
    close(cmd[0]);
    close(rep[1]);
    if (pid < 0) {
        wl_errno("fork");
        close(cmd[1]);
        close(rep[0]);
        return -1;
    }
    apps[i].pid = pid;
    apps[i].cmd_fd = cmd[1];
    apps[i].reply_fd = rep[0];
    return wait_done(i);
}

/* Moves I to the front of the most-recently-used list ORDER of N apps. */
static void mru_use(uint64_t *order, uint64_t n, uint64_t i)
{
    uint64_t j;

    for (j = 0; j < n && order[j] != i; j++)
        ;
    if (j == n)                 /* new: append, then move up */
        order[n - 1] = i, j = n - 1;
    for (; j > 0; j--)
        order[j] = order[j - 1];
    order[0] = i;
}

/* Reaps every app; ends the task of one killed by a signal on its behalf. */
static int reap_apps(void)
{
    int failed = 0;

    for (;;) {
        uint64_t live = 0;
        int st;
        pid_t pid;

        for (uint64_t i = 0; i < opt.apps; i++)
            live += apps[i].pid > 0;
        if (live == 0)
            break;
        forward_stop();
        pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            wl_errno("waitpid");
            return -1;
        }
        for (uint64_t i = 0; i < opt.apps; i++) {
            if (apps[i].pid != pid)
                continue;
            apps[i].pid = 0;
            if (WIFSIGNALED(st)) {
                wl_err("app %s (pid %d) killed by signal %d", apps[i].name,
                       (int)pid, WTERMSIG(st));
                wl_task_end_of((uint32_t)pid, (uint32_t)pid, 128 + WTERMSIG(st));
                failed = 1;
            } else if (WEXITSTATUS(st) != 0) {
                failed = 1;
            }
        }
    }
    return failed ? -1 : 0;
}

/* Everything between task_begin and task_end of the launcher. */
static int run(void)
{
    char path[PATH_MAX];
    uint64_t *order = NULL, launched = 0, cur = 0;
    struct wl_rng rng;
    int rc = WL_EXIT_OK;

    if (snprintf(workdir, sizeof(workdir), "%s/phone.XXXXXX", opt.dir)
        >= (int)sizeof(workdir)) {
        wl_err("--dir: path too long");
        return WL_EXIT_RUNTIME;
    }
    if (!mkdtemp(workdir)) {
        wl_errno("--dir: cannot create a work directory in %s", opt.dir);
        return WL_EXIT_RUNTIME;
    }
    apps = calloc(opt.apps, sizeof(*apps));
    order = calloc(opt.apps, sizeof(*order));
    if (!apps || !order) {
        wl_errno("out of memory");
        rc = WL_EXIT_RUNTIME;
        goto out;
    }
    for (uint64_t i = 0; i < opt.apps; i++) {
        if (i < NR_NAMES)
            snprintf(apps[i].name, sizeof(apps[i].name), "%s", app_names[i]);
        else
            snprintf(apps[i].name, sizeof(apps[i].name), "%s%u",
                     app_names[i % NR_NAMES], (unsigned)(i / NR_NAMES + 1));
        snprintf(apps[i].cgpath, sizeof(apps[i].cgpath), "apps/%s", apps[i].name);
        apps[i].cmd_fd = apps[i].reply_fd = -1;
    }

    if (wl_cg_setup("vmreplay-phone", opt.cgroups) < 0) {
        rc = WL_EXIT_RUNTIME;
        goto out;
    }
    for (uint64_t i = 0; i < opt.apps; i++) {
        if (wl_cg_create(apps[i].cgpath, 0, -1) != 0) {
            rc = WL_EXIT_RUNTIME;
            goto out;
        }
    }

    /* The sampler thread runs across the forks: fork() copies only the
     * calling thread, and the apps never touch the sampler. */
    if (wl_sampler_start((unsigned)opt.vmstat_ms) != 0) {
        rc = WL_EXIT_RUNTIME;
        goto out;
    }

    /* Open the apps one after another... */
    for (launched = 0; launched < opt.apps && !wl_stop; launched++) {
        if (launch(launched) != 0) {
            if (!wl_stop) {
                wl_err("app %s ended during its launch", apps[launched].name);
                rc = WL_EXIT_RUNTIME;
            }
            launched++;
            break;
        }
        mru_use(order, launched + 1, launched);
        cur = launched;
    }
    /* ...then move the foreground between them. */
    wl_rng_seed(&rng, opt.seed, 0);
    for (uint64_t s = 0; rc == WL_EXIT_OK && s < opt.switches && !wl_stop &&
                         opt.apps > 1; s++) {
        uint64_t next, recent = opt.apps - 1 < MRU_RECENT ? opt.apps - 1 : MRU_RECENT;

        if (wl_rng_below(&rng, 100) < MRU_PCT)
            next = order[1 + wl_rng_below(&rng, recent)];
        else
            next = (cur + 1 + wl_rng_below(&rng, opt.apps - 1)) % opt.apps;
        if (send_cmd(next, 'F') != 0 || wait_done(next) != 0) {
            if (!wl_stop) {
                wl_err("app %s ended while in the foreground", apps[next].name);
                rc = WL_EXIT_RUNTIME;
            }
            break;
        }
        mru_use(order, opt.apps, next);
        cur = next;
    }

    /* Close the apps: 'Q', and EOF for any that missed it. */
    for (uint64_t i = 0; i < launched; i++) {
        if (apps[i].pid > 0)
            send_cmd(i, 'Q');
        close(apps[i].cmd_fd);
        close(apps[i].reply_fd);
    }
    if (reap_apps() != 0)
        rc = WL_EXIT_RUNTIME;
    wl_sampler_stop();

out:
    if (wl_cg_teardown() != 0)
        rc = WL_EXIT_RUNTIME;
    /* An app killed by a signal could not delete its files. */
    for (uint64_t i = 0; apps && i < opt.apps; i++) {
        data_path(path, apps[i].name);
        if (remove_file(path) != 0)
            rc = WL_EXIT_RUNTIME;
        for (int k = 0; k < NR_ASSETS; k++) {
            asset_path(path, apps[i].name, k);
            if (remove_file(path) != 0)
                rc = WL_EXIT_RUNTIME;
        }
    }
    if (rmdir(workdir) != 0) {
        wl_errno("rmdir %s", workdir);
        rc = WL_EXIT_RUNTIME;
    }
    free(order);
    free(apps);
    apps = NULL;
    if (wl_stop && rc == WL_EXIT_OK) {
        wl_err("interrupted");
        rc = WL_EXIT_RUNTIME;
    }
    return rc;
}

static void on_hangup(int sig)
{
    (void)sig;
    wl_stop = 1;
}

int main(int argc, char **argv)
{
    struct sigaction sa;

    if (wl_init("phone") != 0)
        return WL_EXIT_RUNTIME;
    /* A closed terminal stops it cleanly too; a dead pipe is an error. */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_hangup;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (parse_options(argc, argv) != 0)
        return WL_EXIT_USAGE;

    return wl_session("phone", argc, argv, opt.memory_limit, (int32_t)opt.swappiness, run);
}
