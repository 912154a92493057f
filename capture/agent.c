/*
 * agent.c - build/vmreplay-capture-agent: the tracefs bridge of
 * `vmreplay capture`.
 *
 * It reads the kernel's reclaim, fault, page-cache, DAMON and process
 * tracepoints from private tracefs instances with libtracefs and
 * libtraceevent, and re-emits every record as a `vmreplay_kernel` LTTng-UST
 * event carrying the kernel's own timestamp (kts); it also emits the
 * session's facts (`vmreplay:session`, `vmreplay_capture:*`) and the
 * periodic /proc/vmstat, memory.stat and memory-map snapshots.  The front
 * end (capture/cmd_capture.c) owns every other setting of the machine.
 *
 *   instance "<prefix>-task"   events that fire in the workload's context,
 *                              filtered to its tasks by set_event_pid with
 *                              event-fork (children join automatically)
 *   instance "<prefix>-proc"   the workload's forks, execs and new tasks,
 *                              filtered as the task one; the agent sleeps
 *                              in poll() on it (a new process's maps are
 *                              read at once, its thread group known before
 *                              its first record is read)
 *   instance "<prefix>-kswapd" kswapd's own reclaim events, filtered to the
 *                              kswapd threads by set_event_pid (a pid test
 *                              before the record is written: the workload's
 *                              own reclaim events, which fire here too, cost
 *                              it nothing more; a comm filter recorded each
 *                              one and then discarded it)
 *   instance "<prefix>-other"  events of any task, each with its filter:
 *                              damon_aggregated of our kdamond, the memcg
 *                              statistics' flushes of the session's cgroup
 *   instance "<prefix>-block"  the block requests (device latencies)
 *
 * Protocol with the front end: stdin is a control pipe, stdout a status
 * pipe.  The agent sets everything up with tracing off and prints
 * "armed"; on "go" it emits the session events, switches tracing on and
 * prints "ready"; on "stop" (or EOF: the front end died) it switches
 * tracing off, drains the buffers, emits the last snapshots and
 * capture_end, removes its instances and prints "done LOST BRIDGED CPU_US"
 * (CPU_US: its own CPU time while the workload ran).
 * Errors: one line on stderr, exit 1.  SIGINT and SIGHUP are ignored
 * (a Ctrl-C reaches the front end, which decides); SIGTERM stops.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>
#include <event-parse.h>
#include <kbuffer.h>

#include "blk_geometry.h"
#include "blk_latency.h"
#include "pte_young_agent.h"
#include "vmreplay_tp.h"
#include "vmreplay_kernel_tp.h"
#include "vmreplay_capture_tp.h"

#define PROG "vmreplay-capture-agent"
#define CLONE_THREAD_FLAG 0x00010000ull
/* How often the agent reads the instances that are not polled for each
 * record (every DRAIN_MS, and the task and kswapd ones also when a CPU's
 * buffer is DRAIN_PERCENT full).  Waking an idle CPU costs this 2-CPU VM
 * more than the work done awake: an uncaptured mix with a loop beside it
 * that spins 20 us every 10 ms ran 16 % longer, one that spins 10 ms every
 * 100 ms 9 % (traces/PERTURBATION.md); the agent woke every 10 ms. */
#define DRAIN_MS 100
#define DRAIN_PERCENT "25"
#define PROC_BUFFER_KB 1024
#define BLOCK_BUFFER_KB 1024

static volatile sig_atomic_t stop_requested;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ------------------------------------------------------------------ */
/* Options                                                             */

static struct {
	int root_pid;
	const char *cgroup;
	unsigned cgroup_version;
	uint64_t limit;
	int swappiness;
	const char *swap_kind, *swap_device;
	uint64_t swap_size;
	unsigned period_ms;         /* vmstat and maps snapshots */
	unsigned stat_period_ms;    /* memory.stat snapshots (each read flushes) */
	unsigned soft_dirty_ms;     /* clear_refs 4 period, 0 = never */
	unsigned young_ms;          /* accessed-bit poll period, 0 = never */
	const char *prefix;
	int kernel_domain;          /* lttng-modules records the rest */
	const char *damon_dir;      /* kdamond sysfs dir we run, or NULL */
	int kdamond_pid;
	uint64_t damon_sample_us, damon_aggr_us, damon_update_us;
	const char *damon_note;
	const char *dropped_inputs;
	int dropped_caches;         /* the capture dropped the page cache first */
	int64_t start_cached_kb, start_workingset_nodes;   /* -1: unknown */
	const char *workload, *argv;
	const char *kernel_build;   /* the test bed's build-info file */
	unsigned buffer_kb;
	unsigned max_damon_targets;
} opt = {
	.period_ms = 100, .stat_period_ms = 2000, .cgroup_version = 1, .swappiness = -1,
	.swap_kind = "none", .swap_device = "", .damon_note = "", .dropped_inputs = "",
	.workload = "", .argv = "", .buffer_kb = 8192, .max_damon_targets = 8,
	.start_cached_kb = -1, .start_workingset_nodes = -1,
};

static void die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf)
			break;
		if (n + 4096 + 1 > cap) {
			char *b = realloc(buf, cap *= 2);
			if (!b) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = n;
	}
	return buf;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, strlen(s));
	int e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* The process tree: tid -> thread group and name                      */

struct task {
	int tid, tgid;
	char comm[16];
	int named;                  /* task_comm emitted or fork seen */
};

static struct task *tasks;
static size_t nr_tasks, cap_tasks;
static int *task_slots;         /* open addressing: index + 1 */
static size_t nr_slots;

static struct task *task_lookup(int tid, int create)
{
	if (!nr_slots) {
		nr_slots = 1024;
		task_slots = calloc(nr_slots, sizeof(*task_slots));
		if (!task_slots)
			die("out of memory");
	}
	size_t mask = nr_slots - 1, j = ((uint64_t)tid * 0x9E3779B97F4A7C15ull) >> 40 & mask;
	for (; task_slots[j]; j = (j + 1) & mask)
		if (tasks[task_slots[j] - 1].tid == tid)
			return &tasks[task_slots[j] - 1];
	if (!create)
		return NULL;
	if (nr_tasks == cap_tasks) {
		cap_tasks = cap_tasks ? 2 * cap_tasks : 256;
		tasks = realloc(tasks, cap_tasks * sizeof(*tasks));
		if (!tasks)
			die("out of memory");
	}
	struct task *t = &tasks[nr_tasks++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	task_slots[j] = (int)nr_tasks;
	if (nr_tasks * 2 > nr_slots) {         /* grow and rehash */
		free(task_slots);
		nr_slots *= 2;
		task_slots = calloc(nr_slots, sizeof(*task_slots));
		if (!task_slots)
			die("out of memory");
		for (size_t i = 0; i < nr_tasks; i++) {
			size_t k = ((uint64_t)tasks[i].tid * 0x9E3779B97F4A7C15ull) >> 40 & (nr_slots - 1);
			while (task_slots[k])
				k = (k + 1) & (nr_slots - 1);
			task_slots[k] = (int)i + 1;
		}
		t = task_lookup(tid, 0);
	}
	return t;
}

/* The thread group of TID: from the tree, else from /proc (and then the
 * task's name is emitted once, so that the trace can name it). */
static int tgid_of(int tid, uint64_t kts)
{
	if (tid <= 0)
		return 0;
	struct task *t = task_lookup(tid, 1);
	if (t->tgid)
		return t->tgid;
	char path[64], *s;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	t->tgid = -1;                       /* unknown: asked once */
	if ((s = read_file(path, NULL))) {
		char *p = strstr(s, "\nTgid:");
		if (p)
			t->tgid = atoi(p + 6);
		p = strncmp(s, "Name:", 5) == 0 ? s + 5 : NULL;
		if (p) {
			while (*p == '\t' || *p == ' ')
				p++;
			size_t n = strcspn(p, "\n");
			if (n > 15)
				n = 15;
			memcpy(t->comm, p, n);
			t->comm[n] = '\0';
		}
		free(s);
	}
	if (!t->named && t->comm[0]) {
		lttng_ust_tracepoint(vmreplay_capture, task_comm, kts, tid, t->tgid > 0 ? t->tgid : 0, t->comm);
		t->named = 1;
	}
	return t->tgid > 0 ? t->tgid : 0;
}

/* ------------------------------------------------------------------ */
/* The bridge: ftrace event -> vmreplay_kernel event                   */

enum bridge_kind {
	B_DIRECT_BEGIN, B_DIRECT_END, B_MEMCG_BEGIN, B_MEMCG_END,
	B_KSWAPD_WAKE, B_KSWAPD_SLEEP, B_WAKEUP_KSWAPD, B_LRU_ISOLATE,
	B_SHRINK_INACTIVE, B_SHRINK_ACTIVE, B_THROTTLED, B_WRITE_FOLIO,
	B_FAULT_USER, B_FAULT_KERNEL, B_FILEMAP_ADD, B_FILEMAP_DELETE, B_FILEMAP_GET_PAGES,
	B_MADVISE_ENTER, B_MADVISE_EXIT, B_DAMON, B_FORK, B_EXEC, B_EXIT, B_NEWTASK,
	B_RQ_ISSUE, B_RQ_COMPLETE, B_MEMCG_FLUSH, B_RSTAT_LOCKED, NR_BRIDGE
};

/* Where an event is read from: 'T' the task instance, 'K' the kswapd one,
 * 'O' the other one (any task, filtered), 'B' the block one (not
 * re-emitted: the device latencies, blk_latency.h), 'P' the proc one. */
struct bridge_spec {
	enum bridge_kind kind;
	const char *system, *event;
	char where;
	int in_kernel_domain;       /* lttng-modules records it itself */
	const char *fields[13];     /* ftrace field names -> v[0..] */
	const char *filter;         /* ("KDAMOND", "STATSFLUSH": made here) */
};

static const struct bridge_spec specs[] = {
	{ B_DIRECT_BEGIN, "vmscan", "mm_vmscan_direct_reclaim_begin", 'T', 1, { "order", "gfp_flags" }, 0 },
	{ B_DIRECT_END, "vmscan", "mm_vmscan_direct_reclaim_end", 'T', 1, { "nr_reclaimed" }, 0 },
	{ B_MEMCG_BEGIN, "vmscan", "mm_vmscan_memcg_reclaim_begin", 'T', 1, { "order", "gfp_flags" }, 0 },
	{ B_MEMCG_END, "vmscan", "mm_vmscan_memcg_reclaim_end", 'T', 1, { "nr_reclaimed" }, 0 },
	{ B_WAKEUP_KSWAPD, "vmscan", "mm_vmscan_wakeup_kswapd", 'T', 1, { "nid", "zid", "order", "gfp_flags" }, 0 },
	{ B_LRU_ISOLATE, "vmscan", "mm_vmscan_lru_isolate", 'T', 1,
	  { "highest_zoneidx", "order", "nr_requested", "nr_scanned", "nr_skipped", "nr_taken", "lru" }, 0 },
	{ B_SHRINK_INACTIVE, "vmscan", "mm_vmscan_lru_shrink_inactive", 'T', 1,
	  { "nid", "nr_scanned", "nr_reclaimed", "nr_dirty", "nr_writeback", "nr_congested",
	    "nr_immediate", "nr_activate0", "nr_activate1", "nr_ref_keep", "nr_unmap_fail",
	    "priority", "reclaim_flags" }, 0 },
	{ B_SHRINK_ACTIVE, "vmscan", "mm_vmscan_lru_shrink_active", 'T', 0,
	  { "nid", "nr_taken", "nr_active", "nr_deactivated", "nr_referenced", "priority",
	    "reclaim_flags" }, 0 },
	{ B_THROTTLED, "vmscan", "mm_vmscan_throttled", 'T', 0,
	  { "nid", "usec_timeout", "usec_delayed", "reason" }, 0 },
	{ B_WRITE_FOLIO, "vmscan", "mm_vmscan_write_folio", 'T', 1, { "pfn", "reclaim_flags" }, 0 },
	{ B_FAULT_USER, "exceptions", "page_fault_user", 'T', 1, { "address", "ip", "error_code" }, 0 },
	/* The kernel touching a user page that is not there (copy_to_user
	 * of a read() into a swapped-out buffer, copy_from_user of a
	 * write()): a fault like a user one, in kernel mode.  Only user
	 * addresses (below x86-64's 5-level user space end, 2^56). */
	{ B_FAULT_KERNEL, "exceptions", "page_fault_kernel", 'T', 0, { "address", "ip", "error_code" },
	  "address < 72057594037927936" },
	{ B_FILEMAP_ADD, "filemap", "mm_filemap_add_to_page_cache", 'T', 0,
	  { "pfn", "i_ino", "index", "s_dev", "order" }, 0 },
	{ B_FILEMAP_DELETE, "filemap", "mm_filemap_delete_from_page_cache", 'T', 0,
	  { "pfn", "i_ino", "index", "s_dev", "order" }, 0 },
	{ B_FILEMAP_GET_PAGES, "filemap", "mm_filemap_get_pages", 'T', 0,
	  { "i_ino", "s_dev", "index", "last_index" }, 0 },
	/* Only the advice that moves pages: DONTNEED (4), POPULATE_READ (22),
	 * POPULATE_WRITE (23), DONTNEED_LOCKED (24); exits unfiltered (a
	 * syscall exit carries only ret: ingest pairs it with its entry). */
	{ B_MADVISE_ENTER, "syscalls", "sys_enter_madvise", 'T', 0, { "start", "len_in", "behavior" },
	  "behavior == 4 || behavior == 14 || behavior == 15 || behavior == 22 || behavior == 23 || "
	  "behavior == 24" },
	{ B_MADVISE_EXIT, "syscalls", "sys_exit_madvise", 'T', 0, { "ret" }, 0 },
	{ B_FORK, "sched", "sched_process_fork", 'P', 1, { "parent_pid", "child_pid" }, 0 },
	{ B_EXEC, "sched", "sched_process_exec", 'P', 1, { "pid", "old_pid" }, 0 },
	{ B_EXIT, "sched", "sched_process_exit", 'T', 1, { "pid", "prio" }, 0 },
	{ B_NEWTASK, "task", "task_newtask", 'P', 0, { "pid", "clone_flags" }, 0 },
	/* kswapd's context (global reclaim of the node: not the workload's
	 * tasks, but the kswapd side of the reclaim it causes or suffers). */
	{ B_KSWAPD_WAKE, "vmscan", "mm_vmscan_kswapd_wake", 'K', 1, { "nid", "zid", "order" }, 0 },
	{ B_KSWAPD_SLEEP, "vmscan", "mm_vmscan_kswapd_sleep", 'K', 1, { "nid" }, 0 },
	{ B_LRU_ISOLATE, "vmscan", "mm_vmscan_lru_isolate", 'K', 1,
	  { "highest_zoneidx", "order", "nr_requested", "nr_scanned", "nr_skipped", "nr_taken", "lru" }, 0 },
	{ B_SHRINK_INACTIVE, "vmscan", "mm_vmscan_lru_shrink_inactive", 'K', 1,
	  { "nid", "nr_scanned", "nr_reclaimed", "nr_dirty", "nr_writeback", "nr_congested",
	    "nr_immediate", "nr_activate0", "nr_activate1", "nr_ref_keep", "nr_unmap_fail",
	    "priority", "reclaim_flags" }, 0 },
	{ B_SHRINK_ACTIVE, "vmscan", "mm_vmscan_lru_shrink_active", 'K', 0,
	  { "nid", "nr_taken", "nr_active", "nr_deactivated", "nr_referenced", "priority",
	    "reclaim_flags" }, 0 },
	{ B_THROTTLED, "vmscan", "mm_vmscan_throttled", 'K', 0,
	  { "nid", "usec_timeout", "usec_delayed", "reason" }, 0 },
	{ B_WRITE_FOLIO, "vmscan", "mm_vmscan_write_folio", 'K', 1, { "pfn", "reclaim_flags" }, 0 },
	{ B_DAMON, "damon", "damon_aggregated", 'O', 0,
	  { "target_id", "nr_regions", "start", "end", "nr_accesses", "age" }, "KDAMOND" },
	/* The memcg statistics' flushes of the session's cgroup and its
	 * ancestors, whoever makes them (the periodic flusher is a kworker,
	 * a memory.stat read is its reader's): the statistics reclaim reads
	 * are as current as the last of them.  The memcg event where the
	 * kernel has it (6.18 here; 6.12 has not), else the rstat lock of
	 * 6.10+, which 6.12's cgroup_rstat_flush takes once (cpu -1) and
	 * again per CPU only to yield; later kernels take it per CPU and
	 * controller, which names no flush one can tell. */
	{ B_MEMCG_FLUSH, "memcg", "memcg_flush_stats", 'O', 0,
	  { "id", "stats_updates", "force", "needs_flush" }, "STATSFLUSH" },
	{ B_RSTAT_LOCKED, "cgroup", "cgroup_rstat_locked", 'O', 0,
	  { "root", "level", "id", "cpu", "contended" }, "STATSFLUSH" },
	/* Every task's requests: a device's latency is the device's, whoever
	 * issued the request (its completion runs in interrupt context). */
	{ B_RQ_ISSUE, "block", "block_rq_issue", 'B', 0, { "dev", "sector", "nr_sector" }, 0 },
	{ B_RQ_COMPLETE, "block", "block_rq_complete", 'B', 0,
	  { "dev", "sector", "nr_sector", "error" }, 0 },
};
#define NR_SPECS (sizeof(specs) / sizeof(specs[0]))

/* A resolved event: its spec and field pointers, by tep event id. */
struct resolved {
	const struct bridge_spec *spec;
	struct tep_format_field *f[13];
	int nf;
	struct tep_format_field *str[2];
};

struct inst {
	char name[128];
	char where;
	struct tracefs_instance *ti;
	struct resolved *by_id;     /* indexed by tep event id */
	int max_id;
	uint64_t missed;
	int nr_enabled;
	/* its per-CPU trace_pipe_raw, open from arming to the end (opening
	 * them at every drain, as tracefs_iterate_raw_events does, cost the
	 * agent 40 ms of CPU a second with nothing to read) */
	struct tracefs_cpu **cpu;
	int *poll_fd;               /* trace_pipe_raw again, for poll() (-1: none) */
	int nr_cpus;
	int next_cpu;               /* where the next drain starts */
	void *page;
	int page_size;
	/* Bridged after the workload (the task and kswapd instances): the
	 * sub-buffers read while it ran, in the order read (inst_keep). */
	int defer;
	struct kept_page { struct kept_page *next; int cpu; char data[]; } *kept, **kept_tail;
};

static struct tep_handle *tep;
static struct inst inst_task = { .where = 'T' }, inst_kswapd = { .where = 'K' };
static struct inst inst_other = { .where = 'O' }, inst_block = { .where = 'B' };
static struct inst inst_proc = { .where = 'P' };
static uint64_t bridged;
/* Bridging a record costs the agent about 1 us (the field reads, the
 * LTTng-UST emit), 0.2 s of CPU in a 2 s capture of 200,000 events, and
 * CPU time anywhere on this machine slows a workload that lives in the
 * kernel: a 10 %-duty spin loop beside an uncaptured swap-heavy run made
 * it 14 % slower (traces/PERTURBATION.md).  So while the workload runs the
 * agent only keeps the task, kswapd and proc instances' sub-buffers and
 * does what cannot wait (live_record, the proc instance's records: the
 * thread groups of new tasks, which the task instance's records are
 * bridged with after the tasks may have gone, and a new process's maps);
 * it bridges them when the workload has ended.  Up to an eighth of the memory available at the start, and at
 * most DEFER_MAX_BYTES; past that it bridges what it kept and goes on live. */
#define DEFER_MAX_BYTES (1ull << 30)
static uint64_t defer_budget, defer_used;
static int bridge_live_only;    /* on_record: the bookkeeping only, no event */
static int bridge_replaying;    /* on_record: a kept record (maps were read live) */
static uint64_t records_bridged;        /* against the kernel's "read events" at the end */
/* The tracepoint the statistics' flushes are recorded by, "" none. */
static const char *stats_flush_event = "";

/* The device latencies: the block requests matched, and the devices the
 * workload's page cache read from (mm_filemap_add_to_page_cache's s_dev,
 * kernel dev_t), the busiest of which is its file device. */
static struct blk_latency *blk;
static uint32_t swap_disk;
static struct { uint32_t s_dev; uint64_t n; } fsdevs[16];
static size_t nr_fsdevs;

static void note_fsdev(uint32_t s_dev)
{
	if (!(s_dev >> 20))
		return;         /* an anonymous device (tmpfs, ...): no disk */
	for (size_t i = 0; i < nr_fsdevs; i++)
		if (fsdevs[i].s_dev == s_dev) {
			fsdevs[i].n++;
			return;
		}
	if (nr_fsdevs < sizeof(fsdevs) / sizeof(fsdevs[0]))
		fsdevs[nr_fsdevs++] = (typeof(fsdevs[0])){ s_dev, 1 };
}

/* Pids whose maps should be read soon (an exec was seen). */
static int *maps_dirty;
static size_t nr_maps_dirty, cap_maps_dirty;

static void mark_maps_dirty(int pid)
{
	if (nr_maps_dirty == cap_maps_dirty) {
		cap_maps_dirty = cap_maps_dirty ? 2 * cap_maps_dirty : 64;
		maps_dirty = realloc(maps_dirty, cap_maps_dirty * sizeof(*maps_dirty));
		if (!maps_dirty)
			die("out of memory");
	}
	maps_dirty[nr_maps_dirty++] = pid;
}

static uint64_t field_num(struct tep_format_field *f, const void *data)
{
	unsigned long long v = 0;
	if (!f || tep_read_number_field(f, data, &v) != 0)
		return 0;
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8) {   /* sign-extend */
		int shift = 64 - 8 * f->size;
		v = (unsigned long long)((long long)(v << shift) >> shift);
	}
	return v;
}

static void field_str(struct tep_format_field *f, const struct tep_record *rec, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!f)
		return;
	const char *data = rec->data;
	size_t off = f->offset, n = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;
		memcpy(&loc, data + f->offset, sizeof(loc));
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	}
	if (off >= (size_t)rec->size)
		return;
	if (off + n > (size_t)rec->size)
		n = rec->size - off;
	if (n >= len)
		n = len - 1;
	memcpy(buf, data + off, n);
	buf[n] = '\0';
	buf[strnlen(buf, n)] = '\0';
}

/* A task name, cut to the kernel's 15 characters. */
static void copy_comm(char dst[16], const char *src)
{
	size_t n = strnlen(src, 15);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void on_record(struct tep_event *ev, struct tep_record *rec, int cpu, void *ctx)
{
	struct inst *in = ctx;
	if (ev->id < 0 || ev->id > in->max_id || !in->by_id[ev->id].spec)
		return;
	struct resolved *r = &in->by_id[ev->id];
	struct vmrk_rec k;
	memset(&k, 0, sizeof(k));
	k.kts = rec->ts;
	k.cpu = (uint32_t)cpu;
	k.tid = tep_data_pid(tep, rec);
	for (int i = 0; i < r->nf; i++)
		k.v[i] = field_num(r->f[i], rec->data);
	char s0[256], s1[256];
	k.s[0] = s0;
	k.s[1] = s1;
	s0[0] = s1[0] = '\0';

	switch (r->spec->kind) {
	case B_RQ_ISSUE:
	case B_RQ_COMPLETE:
		field_str(r->str[0], rec, s0, sizeof(s0));
		if (r->spec->kind == B_RQ_COMPLETE)
			blk_latency_complete(blk, k.kts, (uint32_t)k.v[0], k.v[1], (uint32_t)k.v[2], s0,
					     (int)k.v[3]);
		else if (blk_latency_issue(blk, k.kts, (uint32_t)k.v[0], k.v[1], (uint32_t)k.v[2], s0))
			die("out of memory");
		return;
	case B_NEWTASK: {
		/* In the parent's context: the child's thread group follows
		 * from CLONE_THREAD.  Not re-emitted (fork carries the tree). */
		int child = (int)k.v[0];
		int ptgid = tgid_of(k.tid, k.kts);
		struct task *t = task_lookup(child, 1);
		t->tgid = (k.v[1] & CLONE_THREAD_FLAG) ? ptgid : child;
		struct tep_format_field *cf = tep_find_field(ev, "comm");
		if (cf) {
			field_str(cf, rec, s0, sizeof(s0));
			copy_comm(t->comm, s0);
		}
		return;
	}
	case B_FORK: {
		int ptid = (int)k.v[0], ctid = (int)k.v[1];
		field_str(r->str[0], rec, s0, sizeof(s0));
		field_str(r->str[1], rec, s1, sizeof(s1));
		int ptgid = tgid_of(ptid, k.kts);
		struct task *c = task_lookup(ctid, 1);
		if (!c->tgid)                   /* no task_newtask: assume a process */
			c->tgid = ctid;
		copy_comm(c->comm, s1);
		c->named = 1;
		k.v[0] = (uint64_t)ptid;
		k.v[1] = (uint64_t)ptgid;
		k.v[2] = (uint64_t)ctid;
		k.v[3] = (uint64_t)c->tgid;
		k.pid = tgid_of(k.tid, k.kts);
		/* a new process (dup_mmap copied its parent's mappings, and a
		 * forked worker may never exec): its maps soon, as an exec's */
		if (c->tgid == ctid && !bridge_replaying)
			mark_maps_dirty(ctid);
		if (bridge_live_only)
			return;
		lttng_ust_tracepoint(vmreplay_kernel, sched_process_fork, &k);
		break;
	}
	case B_EXEC: {
		field_str(r->str[0], rec, s0, sizeof(s0));
		int tid = (int)k.v[0];
		struct task *t = task_lookup(tid, 1);
		t->tgid = tid;                  /* after de_thread the leader */
		const char *base = strrchr(s0, '/');
		copy_comm(t->comm, base ? base + 1 : s0);
		k.pid = tid;
		if (!bridge_replaying)
			mark_maps_dirty(tid);
		if (bridge_live_only)
			return;
		lttng_ust_tracepoint(vmreplay_kernel, sched_process_exec, &k);
		break;
	}
	case B_EXIT:
		field_str(r->str[0], rec, s0, sizeof(s0));
		k.pid = tgid_of(k.tid, k.kts);
		lttng_ust_tracepoint(vmreplay_kernel, sched_process_exit, &k);
		break;
	default:
		k.pid = tgid_of(k.tid, k.kts);
		switch (r->spec->kind) {
		case B_DIRECT_BEGIN: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_direct_reclaim_begin, &k); break;
		case B_DIRECT_END: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_direct_reclaim_end, &k); break;
		case B_MEMCG_BEGIN: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_memcg_reclaim_begin, &k); break;
		case B_MEMCG_END: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_memcg_reclaim_end, &k); break;
		case B_KSWAPD_WAKE: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_kswapd_wake, &k); break;
		case B_KSWAPD_SLEEP: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_kswapd_sleep, &k); break;
		case B_WAKEUP_KSWAPD: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_wakeup_kswapd, &k); break;
		case B_LRU_ISOLATE: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_lru_isolate, &k); break;
		case B_SHRINK_INACTIVE: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_lru_shrink_inactive, &k); break;
		case B_SHRINK_ACTIVE: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_lru_shrink_active, &k); break;
		case B_THROTTLED: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_throttled, &k); break;
		case B_WRITE_FOLIO: lttng_ust_tracepoint(vmreplay_kernel, mm_vmscan_write_folio, &k); break;
		case B_FAULT_USER: lttng_ust_tracepoint(vmreplay_kernel, x86_exceptions_page_fault_user, &k); break;
		case B_FAULT_KERNEL: lttng_ust_tracepoint(vmreplay_kernel, x86_exceptions_page_fault_kernel, &k); break;
		case B_FILEMAP_ADD:
			note_fsdev((uint32_t)k.v[3]);
			lttng_ust_tracepoint(vmreplay_kernel, mm_filemap_add_to_page_cache, &k);
			break;
		case B_FILEMAP_DELETE: lttng_ust_tracepoint(vmreplay_kernel, mm_filemap_delete_from_page_cache, &k); break;
		case B_FILEMAP_GET_PAGES: lttng_ust_tracepoint(vmreplay_kernel, mm_filemap_get_pages, &k); break;
		case B_DAMON: lttng_ust_tracepoint(vmreplay_kernel, damon_aggregated, &k); break;
		case B_MADVISE_ENTER: lttng_ust_tracepoint(vmreplay_kernel, syscall_entry_madvise, &k); break;
		case B_MADVISE_EXIT: lttng_ust_tracepoint(vmreplay_kernel, syscall_exit_madvise, &k); break;
		case B_MEMCG_FLUSH: lttng_ust_tracepoint(vmreplay_kernel, memcg_flush_stats, &k); break;
		case B_RSTAT_LOCKED: lttng_ust_tracepoint(vmreplay_kernel, cgroup_rstat_locked, &k); break;
		default: break;
		}
	}
	bridged++;
}

/* A proc record kept for after the workload: its bookkeeping now. */
static void live_record(struct tep_event *ev, struct tep_record *rec, int cpu, struct inst *in)
{
	bridge_live_only = 1;
	on_record(ev, rec, cpu, in);
	bridge_live_only = 0;
}

/* The records of the sub-buffer in KBUF (loaded), each to LIVE_ONLY's
 * live_record or to on_record. */
static void each_record(struct kbuffer *kbuf, int cpu, struct inst *in, int live_only)
{
	unsigned long long ts;
	for (void *data = kbuffer_read_event(kbuf, &ts); data; data = kbuffer_next_event(kbuf, &ts)) {
		struct tep_record rec = { .ts = ts, .data = data, .cpu = cpu, .size = kbuffer_event_size(kbuf) };
		struct tep_event *ev = tep_find_event_by_record(tep, &rec);
		if (!ev)
			continue;
		records_bridged += !live_only;
		if (live_only)
			live_record(ev, &rec, cpu, in);
		else
			on_record(ev, &rec, cpu, in);
	}
}

/* Bridges the sub-buffers IN kept, in the order read, and frees them. */
static void inst_bridge_kept(struct inst *in)
{
	/* tep_kbuffer allocates one a call; not the drain's, which holds the
	 * sub-buffer being read when inst_keep's budget runs out */
	static struct kbuffer *kbuf;
	if (!kbuf && !(kbuf = tep_kbuffer(tep)))
		die("out of memory");
	bridge_replaying = 1;
	for (struct kept_page *k = in->kept, *next; k; k = next) {
		next = k->next;
		if (kbuffer_load_subbuffer(kbuf, k->data) >= 0)
			each_record(kbuf, k->cpu, in, 0);
		defer_used -= (uint64_t)in->page_size;
		free(k);
	}
	bridge_replaying = 0;
	in->kept = NULL;
	in->kept_tail = &in->kept;
}

/* Keeps the sub-buffer just read into IN->page (CPU's) for after the
 * workload; 0, or -1 when the budget is spent (then it is bridged now,
 * with what was kept before it, and IN is bridged live from here on). */
static int inst_keep(struct inst *in, int cpu)
{
	struct kept_page *k = NULL;
	if (defer_used + (uint64_t)in->page_size <= defer_budget)
		k = malloc(sizeof(*k) + (size_t)in->page_size);
	if (!k) {
		inst_bridge_kept(in);
		in->defer = 0;
		return -1;
	}
	k->next = NULL;
	k->cpu = cpu;
	memcpy(k->data, in->page, (size_t)in->page_size);
	*in->kept_tail = k;
	in->kept_tail = &k->next;
	defer_used += (uint64_t)in->page_size;
	return 0;
}

static void inst_write(struct inst *in, const char *file, const char *val)
{
	if (tracefs_instance_file_write(in->ti, file, val) < 0)
		die("tracefs instance %s: cannot write '%s' to %s: %s", in->name, val, file, strerror(errno));
}

static void inst_create(struct inst *in, const char *suffix, unsigned buffer_kb)
{
	snprintf(in->name, sizeof(in->name), "%s-%s", opt.prefix, suffix);
	if (tracefs_instance_exists(in->name))
		die("tracefs instance %s already exists (another capture?)", in->name);
	in->ti = tracefs_instance_create(in->name);
	if (!in->ti)
		die("cannot create tracefs instance %s: %s", in->name, strerror(errno));
	tracefs_trace_off(in->ti);
	inst_write(in, "trace_clock", "mono");
	char kb[32];
	snprintf(kb, sizeof(kb), "%u", buffer_kb);
	inst_write(in, "buffer_size_kb", kb);
	/* Drop new records when full (counted), never overwrite old ones. */
	inst_write(in, "options/overwrite", "0");
	in->max_id = 0;
}

/* The pids of the kswapd threads ("kswapd0", one a node: kernel threads,
 * so their cmdline is empty), space-separated, for the kswapd instance's
 * set_event_pid.  0, or -1 when there is none or BUF is too small. */
static int kswapd_pids(char *buf, size_t len)
{
	DIR *d = opendir("/proc");
	size_t n = 0;
	int found = 0;
	struct dirent *de;
	if (!d)
		return -1;
	buf[0] = '\0';
	while ((de = readdir(d))) {
		char path[64], *comm, *cmdline;
		size_t cmdlen = 0;
		int pid = atoi(de->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (!(comm = read_file(path, NULL)))
			continue;
		int is_kswapd = strncmp(comm, "kswapd", 6) == 0;
		free(comm);
		if (!is_kswapd)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
		if (!(cmdline = read_file(path, &cmdlen)))
			continue;
		free(cmdline);
		if (cmdlen != 0)
			continue;
		int w = snprintf(buf + n, len - n, "%s%d", found ? " " : "", pid);
		if (w < 0 || (size_t)w >= len - n) {
			closedir(d);
			return -1;
		}
		n += (size_t)w;
		found++;
	}
	closedir(d);
	return found ? 0 : -1;
}

/* The memory hierarchy's id, as cgroup_rstat_locked's root reports it
 * (/proc/cgroups; 0 for cgroup v2's), or -1. */
static int memory_hierarchy(void)
{
	char *s = read_file("/proc/cgroups", NULL);
	int id = -1;
	for (char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		int h;
		if (strncmp(l, "memory\t", 7) == 0 && sscanf(l + 7, "%d", &h) == 1)
			id = h;
	}
	free(s);
	return id;
}

/* The filter of the flush events: flushes of the session's cgroup or of
 * an ancestor (the cgroup ids are their directories' inode numbers, up
 * to the hierarchy's root, where the file system ends).  0, or -1 when
 * the ids cannot be known. */
static int stats_flush_filter(enum bridge_kind kind, char *buf, size_t len)
{
	struct stat st, up;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", opt.cgroup);
	if (stat(dir, &st) != 0)
		return -1;
	int n = snprintf(buf, len, "%s(", kind == B_MEMCG_FLUSH ? "(force == 1 || needs_flush == 1) && "
								 : "cpu == -1 && ");
	if (kind == B_RSTAT_LOCKED) {
		int h = memory_hierarchy();
		if (h < 0)
			return -1;
		n = snprintf(buf, len, "cpu == -1 && root == %d && (", h);
	}
	for (int depth = 0; depth < 64; depth++) {
		n += snprintf(buf + n, n < (int)len ? len - (size_t)n : 0, "%sid == %llu", depth ? " || " : "",
			      (unsigned long long)st.st_ino);
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
		if (stat(dir, &up) != 0 || up.st_dev != st.st_dev)
			break;
		st = up;
	}
	n += snprintf(buf + n, n < (int)len ? len - (size_t)n : 0, ")");
	return n < (int)len ? 0 : -1;
}

static void inst_enable(struct inst *in, const struct bridge_spec *sp)
{
	struct tep_event *ev = tep_find_event_by_name(tep, sp->system, sp->event);
	if (!ev) {
		fprintf(stderr, PROG ": warning: %s:%s is not in this kernel; not recorded\n",
			sp->system, sp->event);
		return;
	}
	if (!in->by_id || ev->id > in->max_id) {
		size_t old = in->by_id ? (size_t)in->max_id + 1 : 0, want = (size_t)ev->id + 1;
		if (want < old)
			want = old;
		struct resolved *n = realloc(in->by_id, want * sizeof(*n));
		if (!n)
			die("out of memory");
		memset(n + old, 0, (want - old) * sizeof(*n));
		in->by_id = n;
		in->max_id = (int)want - 1;
	}
	struct resolved *r = &in->by_id[ev->id];
	memset(r, 0, sizeof(*r));
	r->spec = sp;
	for (int i = 0; i < 13 && sp->fields[i]; i++) {
		r->f[i] = tep_find_field(ev, sp->fields[i]);
		if (!r->f[i])
			die("%s:%s has no field %s on this kernel (format changed?)", sp->system,
			    sp->event, sp->fields[i]);
		r->nf = i + 1;
	}
	if (sp->kind == B_FORK) {
		r->str[0] = tep_find_field(ev, "parent_comm");
		r->str[1] = tep_find_field(ev, "child_comm");
	} else if (sp->kind == B_EXEC) {
		r->str[0] = tep_find_field(ev, "filename");
	} else if (sp->kind == B_EXIT) {
		r->str[0] = tep_find_field(ev, "comm");
	} else if (sp->kind == B_RQ_ISSUE || sp->kind == B_RQ_COMPLETE) {
		if (!(r->str[0] = tep_find_field(ev, "rwbs")))
			die("%s:%s has no field rwbs on this kernel (format changed?)", sp->system, sp->event);
	}
	if (sp->filter) {
		char filter[1024];
		if (strcmp(sp->filter, "KDAMOND") == 0)
			snprintf(filter, sizeof(filter), "common_pid == %d", opt.kdamond_pid);
		else if (strcmp(sp->filter, "STATSFLUSH") == 0) {
			if (stats_flush_filter(sp->kind, filter, sizeof(filter)) != 0) {
				fprintf(stderr, PROG ": warning: the cgroup ids of %s are not known; "
					"the statistics' flushes are not recorded\n", opt.cgroup);
				return;
			}
			stats_flush_event = sp->kind == B_MEMCG_FLUSH ? "memcg:memcg_flush_stats"
								       : "cgroup:cgroup_rstat_locked";
		} else
			snprintf(filter, sizeof(filter), "%s", sp->filter);
		if (tracefs_event_file_write(in->ti, sp->system, sp->event, "filter", filter) < 0)
			die("cannot set filter '%s' on %s:%s: %s", filter, sp->system, sp->event,
			    strerror(errno));
	}
	if (tracefs_event_enable(in->ti, sp->system, sp->event) < 0)
		die("cannot enable %s:%s in instance %s: %s", sp->system, sp->event, in->name,
		    strerror(errno));
	in->nr_enabled++;
}

/* Sum over the instance's CPUs of the per_cpu/cpuN/stats lines KEYS
 * names ("overrun:", ...). */
static uint64_t inst_stat(struct inst *in, const char *const *keys)
{
	uint64_t n = 0;
	if (!in->ti)
		return 0;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	for (long c = 0; c < cpus; c++) {
		char file[64];
		snprintf(file, sizeof(file), "per_cpu/cpu%ld/stats", c);
		char *s = tracefs_instance_file_read(in->ti, file, NULL);
		if (!s)
			continue;
		for (const char *const *k = keys; *k; k++) {
			char *p = strstr(s, *k);
			if (p)
				n += strtoull(p + strlen(*k), NULL, 10);
		}
		free(s);
	}
	return n;
}

/* What the ring buffer could not keep. */
static uint64_t inst_lost(struct inst *in)
{
	static const char *const keys[] = { "overrun:", "dropped events:", NULL };
	return inst_stat(in, keys);
}

/* The records the agent took from the ring buffer, as the kernel counts them. */
static uint64_t inst_read_events(struct inst *in)
{
	static const char *const keys[] = { "read events:", NULL };
	return inst_stat(in, keys);
}

/* Opens the instance's per-CPU ring buffers for non-blocking reads. */
static void inst_open_cpus(struct inst *in)
{
	if (!in->ti || !in->nr_enabled)
		return;
	in->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	in->cpu = calloc((size_t)in->nr_cpus, sizeof(*in->cpu));
	if (!in->cpu)
		die("out of memory");
	int size = 0;
	for (int c = 0; c < in->nr_cpus; c++) {
		/* a CPU that is not possible has no buffer: nothing to read */
		in->cpu[c] = tracefs_cpu_open(in->ti, c, true);
		if (in->cpu[c] && tracefs_cpu_read_size(in->cpu[c]) > size)
			size = tracefs_cpu_read_size(in->cpu[c]);
	}
	if (size <= 0 || !(in->page = malloc((size_t)size)))
		die("cannot open the ring buffers of tracefs instance %s", in->name);
	in->page_size = size;
	in->kept_tail = &in->kept;
}

/* Opens IN's per-CPU trace_pipe_raw once more each, for poll(): readable
 * when a CPU's buffer is PERCENT full, "0" as soon as it holds a record
 * (the instance's buffer_percent; libtracefs 1.6 does not show the fd of
 * a tracefs_cpu). */
static void inst_open_poll(struct inst *in, const char *percent)
{
	if (!in->cpu)
		return;
	inst_write(in, "buffer_percent", percent);
	if (!(in->poll_fd = malloc((size_t)in->nr_cpus * sizeof(*in->poll_fd))))
		die("out of memory");
	for (int c = 0; c < in->nr_cpus; c++) {
		char file[64];
		in->poll_fd[c] = -1;
		if (!in->cpu[c])
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c);
		char *path = tracefs_instance_get_file(in->ti, file);
		if (!path || (in->poll_fd[c] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
			die("cannot open %s: %s", path ? path : file, strerror(errno));
		tracefs_put_tracing_file(path);
	}
}

/* Whether poll() found one of IN's buffers readable (P, N: its fds). */
static int inst_polled(const struct inst *in, const struct pollfd *p, int n)
{
	for (int i = 0; in->poll_fd && i < n; i++)
		for (int c = 0; c < in->nr_cpus; c++)
			if (p[i].fd == in->poll_fd[c] && (p[i].revents & POLLIN))
				return 1;
	return 0;
}

/* Adds IN's poll fds to P (N so far); the new N. */
static int inst_poll_fds(struct inst *in, struct pollfd *p, int n)
{
	for (int c = 0; in->poll_fd && c < in->nr_cpus; c++)
		if (in->poll_fd[c] >= 0)
			p[n++] = (struct pollfd){ .fd = in->poll_fd[c], .events = POLLIN };
	return n;
}

/* Every record the instance's buffers hold now, oldest first per CPU
 * (read() of trace_pipe_raw hands over a sub-buffer, partly filled or
 * whole, until none is left). */
/* Reads what the instance's buffers hold, for at most DRAIN_BUDGET_MS:
 * when the workload makes events as fast as the agent reads them (one
 * CPU, the test bed), an unbounded drain never returned to the main loop,
 * and the maps snapshots that tell a process's file faults from its
 * anonymous ones were not taken while it ran (uml-6.12 compile: 2
 * snapshots in 2.7 s, none of cc1).  The buffers keep the rest; the next
 * drain starts at the next CPU, so none waits behind another. */
#define DRAIN_BUDGET_MS 50
static void inst_drain(struct inst *in, int bounded)
{
	static struct kbuffer *kbuf;        /* tep_kbuffer allocates one a call */
	if (!kbuf && !(kbuf = tep_kbuffer(tep)))
		die("out of memory");
	uint64_t until = bounded ? now_mono() + DRAIN_BUDGET_MS * 1000000ull : UINT64_MAX;
	if (in->cpu && in->nr_cpus)
		in->next_cpu = (in->next_cpu + 1) % in->nr_cpus;
	for (int i = 0; in->cpu && i < in->nr_cpus; i++) {
		int c = (in->next_cpu + i) % in->nr_cpus;
		while (in->cpu[c] && now_mono() < until && tracefs_cpu_read(in->cpu[c], in->page, true) > 0) {
			if (kbuffer_load_subbuffer(kbuf, in->page) < 0)
				break;
			int missed = kbuffer_missed_events(kbuf);
			if (missed)     /* < 0: an unknown count, at least one */
				in->missed += missed > 0 ? (uint64_t)missed : 1;
			if (bounded && in->defer && inst_keep(in, c) == 0) {
				/* the task and kswapd records need nothing now:
				 * their tasks' thread groups are known from the
				 * proc records, read first at every wake-up */
				if (in->where == 'P')
					each_record(kbuf, c, in, 1);
				continue;
			}
			each_record(kbuf, c, in, 0);
		}
	}
}

static void inst_destroy(struct inst *in)
{
	for (int c = 0; in->cpu && c < in->nr_cpus; c++) {
		if (in->cpu[c])
			tracefs_cpu_close(in->cpu[c]);
		if (in->poll_fd && in->poll_fd[c] >= 0)
			close(in->poll_fd[c]);
	}
	free(in->poll_fd);
	in->poll_fd = NULL;
	free(in->cpu);
	free(in->page);
	in->cpu = NULL;
	in->page = NULL;
	if (!in->ti)
		return;
	tracefs_trace_off(in->ti);
	tracefs_instance_destroy(in->ti);
	tracefs_instance_free(in->ti);
	in->ti = NULL;
}

/* ------------------------------------------------------------------ */
/* Snapshots                                                           */

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

static void snap_vmstat(void)
{
	char *s = read_file("/proc/vmstat", NULL);
	if (!s)
		return;
	struct vmr_tp_vmstat v;
	memset(&v, 0, sizeof(v));
	for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		uint64_t val = strtoull(sp + 1, NULL, 10);
		if (strncmp(line, "allocstall_", 11) == 0) {
			v.allocstall += val;
			continue;
		}
		for (size_t i = 0; i < sizeof(vmstat_fields) / sizeof(vmstat_fields[0]); i++)
			if (strcmp(line, vmstat_fields[i].name) == 0) {
				*(uint64_t *)((char *)&v + vmstat_fields[i].off) = val;
				break;
			}
	}
	free(s);
	lttng_ust_tracepoint(vmreplay, vmstat, &v);
}

/* A cgroup file's first number, appended as "NAME value". */
static void add_num(char **buf, size_t *len, size_t *cap, const char *name, const char *file,
		    const char *key)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", opt.cgroup, file);
	char *s = read_file(path, NULL);
	if (!s)
		return;
	const char *p = s;
	if (key) {                      /* "key N" lines */
		size_t kl = strlen(key);
		p = NULL;
		for (char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (strncmp(l, key, kl) == 0 && l[kl] == ' ') {
				p = l + kl + 1;
				break;
			}
	}
	if (p && (*p >= '0' && *p <= '9')) {
		if (*len + 128 > *cap) {
			*cap = (*cap + 128) * 2;
			char *b = realloc(*buf, *cap);
			if (!b)
				die("out of memory");
			*buf = b;
		}
		*len += snprintf(*buf + *len, *cap - *len, "%s %llu\n", name, strtoull(p, NULL, 10));
	}
	free(s);
}

static void snap_memcg(void)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/memory.stat", opt.cgroup);
	size_t len = 0;
	char *stat = read_file(path, &len);
	if (!stat)
		return;
	size_t cap = len + 1;
	if (opt.cgroup_version == 1) {
		add_num(&stat, &len, &cap, "usage", "memory.usage_in_bytes", NULL);
		add_num(&stat, &len, &cap, "max_usage", "memory.max_usage_in_bytes", NULL);
		add_num(&stat, &len, &cap, "memsw_usage", "memory.memsw.usage_in_bytes", NULL);
		add_num(&stat, &len, &cap, "limit", "memory.limit_in_bytes", NULL);
		add_num(&stat, &len, &cap, "failcnt", "memory.failcnt", NULL);
		add_num(&stat, &len, &cap, "oom_kill", "memory.oom_control", "oom_kill");
	} else {
		add_num(&stat, &len, &cap, "usage", "memory.current", NULL);
		add_num(&stat, &len, &cap, "max_usage", "memory.peak", NULL);
		add_num(&stat, &len, &cap, "swap_usage", "memory.swap.current", NULL);
		add_num(&stat, &len, &cap, "limit", "memory.max", NULL);
		add_num(&stat, &len, &cap, "failcnt", "memory.events", "max");
		add_num(&stat, &len, &cap, "oom_kill", "memory.events", "oom_kill");
	}
	lttng_ust_tracepoint(vmreplay_capture, memcg_stat, now_mono(), stat);
	free(stat);
}

/* Last maps text emitted per pid (by hash), so only changes are emitted. */
struct maps_seen {
	int pid;
	uint64_t hash;
};
static struct maps_seen *seen;
static size_t nr_seen, cap_seen;

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static void snap_maps(int pid)
{
	char path[64];
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	uint64_t kts = now_mono();
	char *m = read_file(path, &len);
	if (!m)
		return;                 /* gone already */
	if (len == 0) {                 /* a kernel thread, or exiting */
		free(m);
		return;
	}
	uint64_t h = fnv(m, len);
	size_t i;
	for (i = 0; i < nr_seen; i++)
		if (seen[i].pid == pid)
			break;
	if (i < nr_seen && seen[i].hash == h) {
		free(m);
		return;
	}
	if (i == nr_seen) {
		if (nr_seen == cap_seen) {
			cap_seen = cap_seen ? 2 * cap_seen : 64;
			seen = realloc(seen, cap_seen * sizeof(*seen));
			if (!seen)
				die("out of memory");
		}
		seen[nr_seen].pid = pid;
		nr_seen++;
	}
	seen[i].hash = h;
	lttng_ust_tracepoint(vmreplay_capture, proc_maps, kts, pid, m);
	free(m);
}

/* The thread groups in the cgroup now. */
static int cgroup_pids(int **out)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/cgroup.procs", opt.cgroup);
	char *s = read_file(path, NULL);
	int n = 0, cap = 0, *pids = NULL;
	for (char *p = s; p && *p;) {
		int pid = (int)strtol(p, &p, 10);
		if (pid > 0) {
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				pids = realloc(pids, cap * sizeof(*pids));
				if (!pids)
					die("out of memory");
			}
			pids[n++] = pid;
		}
		while (*p == '\n' || *p == ' ')
			p++;
	}
	free(s);
	*out = pids;
	return n;
}

/* DAMON: keep the target list equal to the cgroup's processes (the first
 * max_damon_targets of them); each change is committed to the running
 * kdamond and the new list is emitted as damon_target events. */
static int damon_targets[64], nr_damon_targets = -1;

/* Writes TARGETS as the kdamond's pid targets and commits them: 0, or -1
 * with errno (a warning already printed for all but a commit's EINVAL). */
static int damon_commit(const int *pids, int n)
{
	char path[4200], val[32];
	snprintf(path, sizeof(path), "%s/contexts/0/targets/nr_targets", opt.damon_dir);
	snprintf(val, sizeof(val), "%d", n);
	if (write_str(path, val) != 0) {
		fprintf(stderr, PROG ": warning: DAMON: cannot set nr_targets: %s\n", strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/contexts/0/targets/%d/pid_target", opt.damon_dir, i);
		snprintf(val, sizeof(val), "%d", pids[i]);
		write_str(path, val);
	}
	/* kdamond ends by itself once none of its targets lives
	 * (kdamond_need_stop): with short-lived processes, as a compile's,
	 * it is off by the next refresh, and a commit to a kdamond that is
	 * not running is refused (EINVAL).  Then start it again on the new
	 * targets. */
	snprintf(path, sizeof(path), "%s/state", opt.damon_dir);
	char *state = read_file(path, NULL);
	int off = state && strncmp(state, "off", 3) == 0;
	free(state);
	return write_str(path, off ? "on" : "commit");
}

static void damon_refresh(const int *pids, int n)
{
	if (!opt.damon_dir)
		return;
	if (n > (int)opt.max_damon_targets)
		n = (int)opt.max_damon_targets;
	if (n == nr_damon_targets && memcmp(pids, damon_targets, n * sizeof(int)) == 0)
		return;
	if (n == 0)
		return;                 /* keep monitoring the last ones */
	int alive[64];
	memcpy(alive, pids, n * sizeof(int));
	int rc = damon_commit(alive, n);
	if (rc != 0 && errno == EINVAL) {
		/* damon_sysfs_add_target refuses the whole list when one pid
		 * has no struct pid any more (find_get_pid): a process that
		 * was reaped between the cgroup's listing and the commit, as
		 * the short-lived ones of a compile are.  Commit the living. */
		int m = 0;
		for (int i = 0; i < n; i++)
			if (kill(alive[i], 0) == 0 || errno == EPERM)
				alive[m++] = alive[i];
		n = m;
		rc = n ? damon_commit(alive, n) : 0;
		if (!n)
			return;
	}
	if (rc != 0) {
		fprintf(stderr, PROG ": warning: DAMON: commit failed: %s\n", strerror(errno));
		return;
	}
	uint64_t kts = now_mono();
	for (int i = 0; i < n; i++) {
		damon_targets[i] = alive[i];
		lttng_ust_tracepoint(vmreplay_capture, damon_target, kts, (uint32_t)i, alive[i]);
	}
	nr_damon_targets = n;
}

/* Writes to pages already mapped do not fault, so the trace would not
 * see them.  Clearing the soft-dirty bits (clear_refs 4:
 * clear_soft_dirty write-protects the PTEs, and touches neither the
 * accessed bits nor PG_referenced, which reclaim reads) makes the first
 * write to each page after it fault again: one recorded write per page
 * and period. */
static void clear_soft_dirty(const int *pids, int n)
{
	char path[64];
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/clear_refs", pids[i]);
		write_str(path, "4");   /* gone already: nothing to clear */
	}
}

/* /proc/vmstat and the maps every period_ms; memory.stat (WITH_STAT) at
 * the start, every stat_period_ms and at the end, because each read of it
 * flushes the memcg statistics reclaim reads (mem_cgroup_flush_stats):
 * reading it often would make the recorded kernel's statistics fresher
 * than an unrecorded one's, whose flusher runs every 2 s. */
static void snapshot(int with_stat)
{
	int *pids;
	int n = cgroup_pids(&pids);
	snap_vmstat();
	if (with_stat)
		snap_memcg();
	for (int i = 0; i < n; i++)
		snap_maps(pids[i]);
	damon_refresh(pids, n);
	free(pids);
}

/* ------------------------------------------------------------------ */
/* Main                                                                */

/* A number from a sysfs file (decimal or 0x...), -1 if there is none. */
static int32_t sysfs_num(const char *path)
{
	char *s = read_file(path, NULL), *end;
	long v = s ? strtol(s, &end, 0) : -1;
	if (s && end == s)
		v = -1;
	free(s);
	return (int32_t)v;
}

/* nr_rotate_swap > 0: is any swap area now on (/proc/swaps) on a
 * rotational device?  A swap file is on its file system's device
 * (i_sb->s_bdev, as swapon takes it), a partition's flag is its disk's.
 * 1, 0, or -1 when no area's device could be told. */
static int32_t swap_rotational(void)
{
	char *s = read_file("/proc/swaps", NULL);
	int32_t any = -1;
	for (char *line = s ? strchr(s, '\n') : NULL; line && *++line; line = strchr(line, '\n')) {
		char path[4096];
		if (sscanf(line, "%4095s", path) != 1)
			break;
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		dev_t d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
		char q[128];
		snprintf(q, sizeof(q), "/sys/dev/block/%u:%u/queue/rotational", major(d), minor(d));
		int32_t r = sysfs_num(q);
		if (r < 0) {
			snprintf(q, sizeof(q), "/sys/dev/block/%u:%u/../queue/rotational", major(d), minor(d));
			r = sysfs_num(q);
		}
		if (r > 0)
			any = 1;
		else if (r == 0 && any < 0)
			any = 0;
	}
	free(s);
	return any;
}

/* /sys/kernel/mm/swap/vma_ra_enabled says "true" or "false". */
static int32_t vma_ra_enabled(void)
{
	char *s = read_file("/sys/kernel/mm/swap/vma_ra_enabled", NULL);
	int32_t v = !s ? -1 : strncmp(s, "true", 4) == 0 ? 1 : strncmp(s, "false", 5) == 0 ? 0 : -1;
	free(s);
	return v;
}

static const char *lru_kind(void)
{
	int32_t v = sysfs_num("/sys/kernel/mm/lru_gen/enabled");
	return v > 0 && (v & 1) ? "mglru" : "classic";
}

/* The test bed's build-info (key=value lines, capture/testbed/build.sh):
 * the values the session records; "" for absent keys or no file. */
static struct kbuild {
	char source[64], version[128], tree[1024], config[80], patches[1024], key[256];
} kbuild;

/* Read before the agent is armed, so that a bad file stops the capture
 * before the workload starts. */
static void read_kernel_build(struct kbuild *b)
{
	memset(b, 0, sizeof(*b));
	if (!opt.kernel_build)
		return;
	char *s = read_file(opt.kernel_build, NULL);
	if (!s)
		die("--kernel-build %s: %s", opt.kernel_build, strerror(errno));
	struct { const char *key; char *dst; size_t len; } k[] = {
		{ "source", b->source, sizeof(b->source) }, { "version", b->version, sizeof(b->version) },
		{ "tree", b->tree, sizeof(b->tree) }, { "config_sha256", b->config, sizeof(b->config) },
		{ "patches", b->patches, sizeof(b->patches) }, { "key", b->key, sizeof(b->key) },
	};
	for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		char *eq = strchr(line, '=');
		if (!eq)
			die("--kernel-build %s: '%.60s' is not a key=value line", opt.kernel_build, line);
		*eq = '\0';
		for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
			if (strcmp(line, k[i].key) == 0)
				snprintf(k[i].dst, k[i].len, "%s", eq + 1);
	}
	free(s);
	if (!b->source[0] || !b->key[0])
		die("--kernel-build %s: no source= or key= line (not a test-bed build-info)",
		    opt.kernel_build);
}

/* The choice in brackets of a transparent_hugepage file (enabled: when
 * a fault may map a huge page; defrag: whether its allocation and charge
 * may reclaim directly, vma_thp_gfp_mask). */
static void thp_setting(const char *path, char *buf, size_t len)
{
	char *s = read_file(path, NULL);
	buf[0] = '\0';
	char *a = s ? strchr(s, '[') : NULL, *b = a ? strchr(a, ']') : NULL;
	if (a && b)
		snprintf(buf, len, "%.*s", (int)(b - a - 1), a + 1);
	else
		snprintf(buf, len, "unknown");
	free(s);
}

static uint64_t mem_total(void)
{
	char *s = read_file("/proc/meminfo", NULL);
	char *p = s ? strstr(s, "MemTotal:") : NULL;
	uint64_t v = p ? strtoull(p + 9, NULL, 10) * 1024 : 0;
	free(s);
	return v;
}

static void emit_session(void)
{
	struct utsname u;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	struct vmr_tp_session s = {
		.workload = opt.workload, .argv = opt.argv, .memory_limit = opt.limit,
		.swappiness = opt.swappiness, .page_size = (uint32_t)sysconf(_SC_PAGESIZE),
		.kernel_release = u.release, .hostname = u.nodename,
		.nr_cpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN), .mem_total = mem_total(),
		.lru_kind = lru_kind(),
	};
	lttng_ust_tracepoint(vmreplay, session, &s);
	char thp[32], thp_defrag[32];
	thp_setting("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp));
	thp_setting("/sys/kernel/mm/transparent_hugepage/defrag", thp_defrag, sizeof(thp_defrag));
	const struct kbuild *kb = &kbuild;
	char *version = read_file("/proc/version", NULL);
	if (version)
		version[strcspn(version, "\n")] = '\0';
	char filter[256];
	snprintf(filter, sizeof(filter),
		 "%s: set_event_pid %d with event-fork; kswapd instance: set_event_pid of the kswapd threads%s",
		 opt.kernel_domain ? "filemap, shrink_active, throttled, DAMON only (lttng-modules has the rest)"
				   : "all kernel events",
		 opt.root_pid, opt.damon_dir ? "; damon_aggregated: our kdamond" : "");
	struct vmrc_session c = {
		.root_pid = (uint32_t)opt.root_pid, .cgroup = opt.cgroup,
		.cgroup_version = opt.cgroup_version, .memory_limit = opt.limit,
		.swappiness = opt.swappiness, .swap_kind = opt.swap_kind,
		.swap_device = opt.swap_device, .swap_size = opt.swap_size,
		.kernel_source = opt.kernel_domain ? "lttng-modules" : "tracefs-bridge",
		.lru_kind = lru_kind(), .thp = thp, .period_ms = opt.stat_period_ms,
		.damon = opt.damon_dir != NULL, .damon_sample_us = opt.damon_sample_us,
		.damon_aggr_us = opt.damon_aggr_us, .damon_update_us = opt.damon_update_us,
		.damon_note = opt.damon_note, .filter = filter,
		.lru_gen_enabled = sysfs_num("/sys/kernel/mm/lru_gen/enabled"),
		.lru_gen_min_ttl_ms = sysfs_num("/sys/kernel/mm/lru_gen/min_ttl_ms"),
		.kernel_version = version ? version : "",
		.build_source = kb->source, .build_version = kb->version, .build_tree = kb->tree,
		.build_config = kb->config, .build_patches = kb->patches, .build_key = kb->key,
		.swap_rotational = swap_rotational(),
		.page_cluster = sysfs_num("/proc/sys/vm/page-cluster"),
		.vma_ra_enabled = vma_ra_enabled(),
		.stats_flush = stats_flush_event,
		.dropped_inputs = opt.dropped_inputs,
		.thp_defrag = thp_defrag,
		.dropped_caches = opt.dropped_caches,
		.start_cached_kb = opt.start_cached_kb,
		.start_workingset_nodes = opt.start_workingset_nodes,
	};
	lttng_ust_tracepoint(vmreplay_capture, capture_session, &c);
	free(version);
	struct task *t = task_lookup(opt.root_pid, 1);
	t->tgid = opt.root_pid;
	tgid_of(opt.root_pid, now_mono());   /* name the root task */
	if (opt.damon_dir) {
		/* the front end started the kdamond with the root as target 0 */
		damon_targets[0] = opt.root_pid;
		nr_damon_targets = 1;
		lttng_ust_tracepoint(vmreplay_capture, damon_target, now_mono(), 0u, opt.root_pid);
	}
}

/* The swap area's disk and sectors: the first area of --swap-device (a
 * capture sets up one). */
static void setup_blk_latency(void)
{
	struct blk_extent *ext = NULL;
	size_t nr_ext = 0;
	if (strcmp(opt.swap_kind, "none") != 0 && opt.swap_device[0]) {
		char path[4096];
		snprintf(path, sizeof(path), "%.*s", (int)strcspn(opt.swap_device, ","), opt.swap_device);
		swap_disk = blk_swap_area(path, &ext, &nr_ext);
	}
	blk = blk_latency_new(swap_disk, ext, nr_ext);
	free(ext);
	if (!blk)
		die("out of memory");
}

static void emit_one_latency(const char *device, uint32_t disk, enum blk_kind kind)
{
	struct blk_stat st;
	blk_latency_stat(blk, disk, kind, &st);
	if (!st.nr[BLK_READ] && !st.nr[BLK_WRITE])
		return;
	char name[32];
	snprintf(name, sizeof(name), "%u:%u", disk >> 20, disk & 0xfffff);
	lttng_ust_tracepoint(vmreplay_capture, device_latency, device, name, st.nr[BLK_READ],
			     st.median_ns[BLK_READ], st.nr[BLK_WRITE], st.median_ns[BLK_WRITE]);
}

/* The swap area's latencies, and the file device's: the disk of the file
 * system the workload's page cache read the most pages from. */
static void emit_device_latency(void)
{
	emit_one_latency("swap", swap_disk, BLK_SWAP);
	size_t best = 0;
	for (size_t i = 1; i < nr_fsdevs; i++)
		if (fsdevs[i].n > fsdevs[best].n)
			best = i;
	uint64_t start;
	if (nr_fsdevs)
		emit_one_latency("file", blk_disk_of(fsdevs[best].s_dev >> 20, fsdevs[best].s_dev & 0xfffff,
						     &start), BLK_FILE);
}

/* The agent's CPU time so far (user and system), in us. */
static uint64_t cpu_time_us(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static void on_term(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Reads one control line ("go", "stop") from stdin; "" on EOF. */
static int read_control(char *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);
	if (r <= 0)
		return 0;
	size_t n = 0;
	while (n + 1 < len) {
		ssize_t k = read(0, buf + n, 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			buf[n] = '\0';
			return n ? 1 : -1;      /* -1: EOF */
		}
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return 1;
}

static void status(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " --root-pid PID --cgroup DIR --prefix NAME [options]\n"
		"(started by 'vmreplay capture'; see capture/agent.c)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "root-pid", 1, 0, 'r' }, { "cgroup", 1, 0, 'c' }, { "cgroup-version", 1, 0, 'V' },
		{ "limit", 1, 0, 'l' }, { "swappiness", 1, 0, 's' }, { "swap-kind", 1, 0, 'k' },
		{ "swap-device", 1, 0, 'd' }, { "swap-size", 1, 0, 'z' }, { "period-ms", 1, 0, 'p' },
		{ "prefix", 1, 0, 'P' }, { "kernel-domain", 0, 0, 'K' }, { "damon-dir", 1, 0, 'D' },
		{ "kdamond-pid", 1, 0, 'Q' }, { "damon-sample-us", 1, 0, 1 },
		{ "damon-aggr-us", 1, 0, 2 }, { "damon-update-us", 1, 0, 3 }, { "damon-note", 1, 0, 4 },
		{ "workload", 1, 0, 'w' }, { "argv", 1, 0, 'a' }, { "buffer-kb", 1, 0, 'b' },
		{ "max-damon-targets", 1, 0, 5 }, { "kernel-build", 1, 0, 6 },
		{ "stat-period-ms", 1, 0, 7 }, { "nice", 1, 0, 8 }, { "soft-dirty-ms", 1, 0, 9 },
		{ "dropped-inputs", 1, 0, 10 }, { "young-ms", 1, 0, 11 },
		{ "dropped-caches", 1, 0, 12 }, { "start-cached-kb", 1, 0, 13 },
		{ "start-workingset-nodes", 1, 0, 14 },
		{ 0, 0, 0, 0 }
	};
	int c, nice_level = 0;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'r': opt.root_pid = atoi(optarg); break;
		case 'c': opt.cgroup = optarg; break;
		case 'V': opt.cgroup_version = (unsigned)atoi(optarg); break;
		case 'l': opt.limit = strtoull(optarg, NULL, 10); break;
		case 's': opt.swappiness = atoi(optarg); break;
		case 'k': opt.swap_kind = optarg; break;
		case 'd': opt.swap_device = optarg; break;
		case 'z': opt.swap_size = strtoull(optarg, NULL, 10); break;
		case 'p': opt.period_ms = (unsigned)atoi(optarg); break;
		case 'P': opt.prefix = optarg; break;
		case 'K': opt.kernel_domain = 1; break;
		case 'D': opt.damon_dir = optarg; break;
		case 'Q': opt.kdamond_pid = atoi(optarg); break;
		case 1: opt.damon_sample_us = strtoull(optarg, NULL, 10); break;
		case 2: opt.damon_aggr_us = strtoull(optarg, NULL, 10); break;
		case 3: opt.damon_update_us = strtoull(optarg, NULL, 10); break;
		case 4: opt.damon_note = optarg; break;
		case 5: opt.max_damon_targets = (unsigned)atoi(optarg); break;
		case 6: opt.kernel_build = optarg; break;
		case 7: opt.stat_period_ms = (unsigned)atoi(optarg); break;
		case 8: nice_level = atoi(optarg); break;
		case 9: opt.soft_dirty_ms = (unsigned)atoi(optarg); break;
		case 10: opt.dropped_inputs = optarg; break;
		case 11: opt.young_ms = (unsigned)atoi(optarg); break;
		case 12: opt.dropped_caches = atoi(optarg) != 0; break;
		case 13: opt.start_cached_kb = strtoll(optarg, NULL, 10); break;
		case 14: opt.start_workingset_nodes = strtoll(optarg, NULL, 10); break;
		case 'w': opt.workload = optarg; break;
		case 'a': opt.argv = optarg; break;
		case 'b': opt.buffer_kb = (unsigned)atoi(optarg); break;
		default: usage();
		}
	}
	if (optind != argc || opt.root_pid <= 0 || !opt.cgroup || !opt.prefix || opt.period_ms == 0 ||
	    opt.stat_period_ms == 0)
		usage();
	/* On a machine of few CPUs the agent competes with the workload it
	 * records: below it, it runs in the workload's idle moments, and the
	 * ring buffers (--buffer-kb) hold what it has not read yet. */
	if (nice_level && setpriority(PRIO_PROCESS, 0, nice_level) != 0)
		die("cannot set the nice level %d: %s", nice_level, strerror(errno));
	if (opt.max_damon_targets > 64)
		opt.max_damon_targets = 64;
	read_kernel_build(&kbuild);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);

	/* The formats of the systems we read (parsing every system's costs
	 * a second; these are enough). */
	const char *systems[] = { "vmscan", "exceptions", "filemap", "damon", "sched", "task", "block",
				  "memcg", "cgroup", NULL };
	tep = tracefs_local_events_system(NULL, systems);
	if (!tep)
		die("cannot read the tracefs event formats (is tracefs mounted at /sys/kernel/tracing?)");
	/* Of the syscalls system (some 700 events) only madvise's two. */
	static const char *const sysev[] = { "sys_enter_madvise", "sys_exit_madvise" };
	for (size_t i = 0; i < sizeof(sysev) / sizeof(sysev[0]); i++) {
		int size = 0;
		char *fmt = tracefs_event_file_read(NULL, "syscalls", sysev[i], "format", &size);
		if (fmt && size > 0)
			tep_parse_event(tep, fmt, (unsigned long)size, "syscalls");
		free(fmt);
	}

	inst_create(&inst_task, "task", opt.buffer_kb);
	inst_create(&inst_kswapd, "kswapd", opt.buffer_kb);
	inst_create(&inst_other, "other", opt.buffer_kb);
	inst_create(&inst_proc, "proc", PROC_BUFFER_KB);
	/* A request makes two records of 64 bytes; a disk completes some
	 * thousands a second, and the agent reads every DRAIN_MS. */
	inst_create(&inst_block, "block", BLOCK_BUFFER_KB);
	for (size_t i = 0; i < NR_SPECS; i++) {
		const struct bridge_spec *sp = &specs[i];
		if (opt.kernel_domain && sp->in_kernel_domain)
			continue;
		if (sp->kind == B_DAMON && (!opt.damon_dir || opt.kdamond_pid <= 0))
			continue;
		/* one of the two flush events: the memcg one where there is one */
		int memcg_flush = tep_find_event_by_name(tep, "memcg", "memcg_flush_stats") != NULL;
		if ((sp->kind == B_MEMCG_FLUSH && !memcg_flush) || (sp->kind == B_RSTAT_LOCKED && memcg_flush))
			continue;
		inst_enable(sp->where == 'T' ? &inst_task : sp->where == 'K' ? &inst_kswapd :
			    sp->where == 'O' ? &inst_other : sp->where == 'P' ? &inst_proc : &inst_block, sp);
	}
	setup_blk_latency();
	/* Only the workload's tasks, and every task they create. */
	inst_write(&inst_task, "options/event-fork", "1");
	inst_write(&inst_proc, "options/event-fork", "1");
	char pidbuf[32];
	snprintf(pidbuf, sizeof(pidbuf), "%d", opt.root_pid);
	inst_write(&inst_task, "set_event_pid", pidbuf);
	inst_write(&inst_proc, "set_event_pid", pidbuf);
	/* Only the kswapd threads (an empty list would be every task). */
	char kswapds[256];
	if (kswapd_pids(kswapds, sizeof(kswapds)) == 0) {
		inst_write(&inst_kswapd, "set_event_pid", kswapds);
	} else {
		fprintf(stderr, PROG ": warning: no kswapd thread found; kswapd's reclaim is not recorded\n");
		inst_destroy(&inst_kswapd);
	}
	inst_open_cpus(&inst_task);
	inst_open_cpus(&inst_kswapd);
	inst_open_cpus(&inst_other);
	inst_open_cpus(&inst_block);
	inst_open_cpus(&inst_proc);
	inst_open_poll(&inst_proc, "0");
	inst_open_poll(&inst_task, DRAIN_PERCENT);
	inst_open_poll(&inst_kswapd, DRAIN_PERCENT);
	/* bridged after the workload, within an eighth of what is free */
	char *mi = read_file("/proc/meminfo", NULL), *ma = mi ? strstr(mi, "MemAvailable:") : NULL;
	defer_budget = ma ? strtoull(ma + 13, NULL, 10) * 1024 / 8 : 0;
	free(mi);
	if (defer_budget > DEFER_MAX_BYTES)
		defer_budget = DEFER_MAX_BYTES;
	/* a test's: a small budget, spent early */
	const char *db = getenv("VMREPLAY_AGENT_DEFER_BYTES");
	if (db && *db)
		defer_budget = strtoull(db, NULL, 10);
	inst_task.defer = inst_kswapd.defer = inst_proc.defer = 1;

	status("armed");
	char line[64];
	int r;
	while ((r = read_control(line, sizeof(line), 1000)) == 0 && !stop_requested)
		;
	if (r < 0 || stop_requested || strcmp(line, "go") != 0) {
		inst_destroy(&inst_task);
		inst_destroy(&inst_kswapd);
		inst_destroy(&inst_other);
		inst_destroy(&inst_block);
		inst_destroy(&inst_proc);
		status("done 0 0");
		return 0;
	}

	emit_session();
	/* before the workload runs: its faults register its regions */
	pte_young_start(opt.root_pid, opt.young_ms);
	snapshot(1);
	tracefs_trace_on(inst_proc.ti);
	tracefs_trace_on(inst_task.ti);
	if (inst_kswapd.ti)
		tracefs_trace_on(inst_kswapd.ti);
	tracefs_trace_on(inst_other.ti);
	tracefs_trace_on(inst_block.ti);
	uint64_t cpu0 = cpu_time_us();
	status("ready");

	uint64_t now = now_mono();
	uint64_t next = now + opt.period_ms * 1000000ull;
	uint64_t next_stat = now + opt.stat_period_ms * 1000000ull;
	uint64_t next_sd = now + opt.soft_dirty_ms * 1000000ull;
	uint64_t young_period = pte_young_period_ms() * 1000000ull;
	uint64_t next_young = now + young_period;
	uint64_t next_drain = now + DRAIN_MS * 1000000ull;
	struct pollfd *pfd = calloc((size_t)(1 + 3 * sysconf(_SC_NPROCESSORS_CONF)), sizeof(*pfd));
	if (!pfd)
		die("out of memory");
	int npfd = 0;
	r = 0;
	while (!stop_requested) {
		/* The proc records first: the thread groups the others need. */
		inst_drain(&inst_proc, 1);
		now = now_mono();
		int all = now >= next_drain;
		if (all)
			next_drain = now + DRAIN_MS * 1000000ull;
		if (all || inst_polled(&inst_task, pfd, npfd))
			inst_drain(&inst_task, 1);
		if (all || inst_polled(&inst_kswapd, pfd, npfd))
			inst_drain(&inst_kswapd, 1);
		if (all) {
			inst_drain(&inst_other, 1);
			inst_drain(&inst_block, 1);
		}
		if (nr_maps_dirty) {
			for (size_t i = 0; i < nr_maps_dirty; i++)
				snap_maps(maps_dirty[i]);
			nr_maps_dirty = 0;
		}
		now = now_mono();
		if (now >= next) {
			int stat = now >= next_stat;
			snapshot(stat);
			next = now + opt.period_ms * 1000000ull;
			if (stat)
				next_stat = now + opt.stat_period_ms * 1000000ull;
		}
		if (opt.soft_dirty_ms && now >= next_sd) {
			int *pids;
			int n = cgroup_pids(&pids);
			clear_soft_dirty(pids, n);
			free(pids);
			next_sd = now + opt.soft_dirty_ms * 1000000ull;
		}
		if (young_period && now >= next_young) {
			pte_young_poll();
			next_young = now + young_period;
		}
		/* Asleep until the front end writes, a proc record arrives, a
		 * task or kswapd buffer fills to DRAIN_PERCENT, or the next of
		 * the periodic jobs is due. */
		uint64_t wake = next_drain < next ? next_drain : next;
		if (opt.soft_dirty_ms && next_sd < wake)
			wake = next_sd;
		if (young_period && next_young < wake)
			wake = next_young;
		now = now_mono();
		npfd = 0;
		pfd[npfd++] = (struct pollfd){ .fd = 0, .events = POLLIN };
		npfd = inst_poll_fds(&inst_proc, pfd, npfd);
		npfd = inst_poll_fds(&inst_task, pfd, npfd);
		npfd = inst_poll_fds(&inst_kswapd, pfd, npfd);
		int ms = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		if (poll(pfd, (nfds_t)npfd, ms) <= 0)
			npfd = 0;
		else if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			r = read_control(line, sizeof(line), 0);
			if (r < 0 || (r > 0 && strncmp(line, "stop", 4) == 0))
				break;
		}
	}
	free(pfd);
	/* What the agent took of the CPUs the workload ran on. */
	uint64_t cpu_us = cpu_time_us() - cpu0;
	/* "stop STATUS ELAPSED_NS": how the workload ended, for capture_end. */
	int wl_status = -1;
	unsigned long long elapsed = 0;
	if (r > 0 && sscanf(line, "stop %d %llu", &wl_status, &elapsed) < 1)
		wl_status = -1;

	tracefs_trace_off(inst_proc.ti);
	tracefs_trace_off(inst_task.ti);
	if (inst_kswapd.ti)
		tracefs_trace_off(inst_kswapd.ti);
	tracefs_trace_off(inst_other.ti);
	tracefs_trace_off(inst_block.ti);
	/* every proc record's bookkeeping before the records it serves */
	inst_bridge_kept(&inst_proc);
	inst_drain(&inst_proc, 0);
	inst_bridge_kept(&inst_task);
	inst_bridge_kept(&inst_kswapd);
	inst_drain(&inst_task, 0);
	inst_drain(&inst_kswapd, 0);
	inst_drain(&inst_other, 0);
	inst_drain(&inst_block, 0);
	pte_young_stop();
	uint64_t read = inst_read_events(&inst_task) + inst_read_events(&inst_kswapd) +
			inst_read_events(&inst_other) + inst_read_events(&inst_block) +
			inst_read_events(&inst_proc);
	if (read != records_bridged)
		fprintf(stderr, PROG ": warning: %llu records read from the ring buffers, %llu bridged\n",
			(unsigned long long)read, (unsigned long long)records_bridged);
	snapshot(1);
	emit_device_latency();
	struct vmrc_end e = { 0 };
	uint64_t lost = inst_lost(&inst_task) + inst_lost(&inst_kswapd) + inst_lost(&inst_other) +
			inst_lost(&inst_block) + inst_lost(&inst_proc);
	uint64_t missed = inst_task.missed + inst_kswapd.missed + inst_other.missed + inst_block.missed +
			  inst_proc.missed;
	e.ftrace_lost = lost > missed ? lost : missed;
	e.bridged = bridged;
	e.workload_status = wl_status;
	e.elapsed_ns = elapsed;
	lttng_ust_tracepoint(vmreplay_capture, capture_end, &e);
	inst_destroy(&inst_task);
	inst_destroy(&inst_kswapd);
	inst_destroy(&inst_other);
	inst_destroy(&inst_block);
	inst_destroy(&inst_proc);
	blk_latency_free(blk);
	tep_free(tep);
	status("done %llu %llu %llu", (unsigned long long)e.ftrace_lost, (unsigned long long)bridged,
	       (unsigned long long)cpu_us);
	return 0;
}
