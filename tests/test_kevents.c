/*
 * test_kevents.c — ingest of the kernel's own events from small synthetic
 * CTF traces written here byte by byte:
 *   - an LTTng kernel-domain trace with lttng-modules event names (no
 *     provider, tid/pid in the event context, procname naming kswapd):
 *     faults become the demand stream, reclaim events the ground truth,
 *     the process tree names and ends the task, its exit frees its pages;
 *   - a bridged trace (`vmreplay_kernel:*` with kts, `vmreplay_capture:*`)
 *     with maps, page-cache events and DAMON samples: file faults, reads,
 *     read-ahead, writes, reclaim evictions and the DAMON expansion rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ingest/ingest.h"
#include "vmr/vmr.h"

/* ------------------------------------------------------------------ */
/* A tiny CTF 1.8 writer: text metadata, one stream, one packet.        */

struct buf {
	unsigned char *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}
static void u8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static void u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void u64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void i32(struct buf *b, int32_t v) { put(b, &v, 4); }
static void str(struct buf *b, const char *s) { put(b, s, strlen(s) + 1); }

static const char meta_head[] =
	"/* CTF 1.8 */\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; base = 16; } := xint64_t;\n"
	"trace { major = 1; minor = 8; byte_order = le;\n"
	"  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
	"env { domain = \"%s\"; tracer_name = \"%s\"; hostname = \"synthetic\"; };\n"
	"clock { name = \"monotonic\"; freq = 1000000000; offset = 0; };\n"
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clk_t;\n"
	"stream { id = 0;\n"
	"  event.header := struct { uint32_t id; clk_t timestamp; };\n"
	"  packet.context := struct { clk_t timestamp_begin; clk_t timestamp_end;\n"
	"    uint64_t content_size; uint64_t packet_size; uint64_t events_discarded; uint32_t cpu_id; };\n"
	"%s};\n";

struct ctf {
	char dir[128];
	struct buf meta, ev;
	uint64_t first_ts, last_ts;
};

static void ctf_begin(struct ctf *c, const char *name, const char *domain, const char *tracer,
		      const char *event_context)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "/tmp/test_kevents.%d.%s", (int)getpid(), name);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s", c->dir, c->dir);
	assert_int_equal(system(cmd), 0);
	char head[4096];
	snprintf(head, sizeof(head), meta_head, domain, tracer, event_context);
	put(&c->meta, head, strlen(head));
}

static void ctf_event_class(struct ctf *c, int id, const char *name, const char *fields)
{
	char e[2048];
	snprintf(e, sizeof(e), "event { name = \"%s\"; id = %d; stream_id = 0;\n  fields := struct { %s };\n};\n",
		 name, id, fields);
	put(&c->meta, e, strlen(e));
}

/* Starts an event: header, then the caller writes context and payload. */
static void ev(struct ctf *c, uint32_t id, uint64_t ts)
{
	if (!c->first_ts)
		c->first_ts = ts;
	c->last_ts = ts;
	u32(&c->ev, id);
	u64(&c->ev, ts);
}

static void ctf_end(struct ctf *c)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/metadata", c->dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fwrite(c->meta.p, 1, c->meta.n, f);
	fclose(f);
	struct buf pk = { 0 };
	uint64_t size = (8 + 44 + c->ev.n) * 8;
	u32(&pk, 0xC1FC1FC1);
	u32(&pk, 0);
	u64(&pk, c->first_ts);
	u64(&pk, c->last_ts);
	u64(&pk, size);
	u64(&pk, size);
	u64(&pk, 0);
	u32(&pk, 0);
	put(&pk, c->ev.p, c->ev.n);
	snprintf(path, sizeof(path), "%s/channel0_0", c->dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(pk.p, 1, pk.n, f);
	fclose(f);
	free(pk.p);
	free(c->meta.p);
	free(c->ev.p);
}

static void ingest_to(const struct ctf *c, const char *out, struct vmr *v)
{
	struct ingest_opts o = { .trace = c->dir, .output = out, .use_cache = 0 };
	struct ingest_report rep;
	char path[512], err[1024] = "";
	int rc = ingest(&o, &rep, path, sizeof(path), err, sizeof(err));
	if (rc != 0)
		fail_msg("ingest: %s", err);
	rc = vmr_open(v, out, err, sizeof(err));
	if (rc != 0)
		fail_msg("vmr_open: %s", err);
}

static const char *meta(const struct vmr *v, const char *key)
{
	static char buf[1024];
	return vmr_meta_get(v, key, buf, sizeof(buf)) ? buf : "";
}

/* ------------------------------------------------------------------ */
/* An LTTng kernel-domain trace, lttng-modules names                   */

enum {
	K_FORK, K_FAULT, K_MEMCG_BEGIN, K_ISOLATE, K_SHRINK, K_MEMCG_END, K_WAKE, K_SLEEP, K_EXIT,
	K_SWITCH,
};

static void kernel_domain(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "kernel", "kernel", "lttng-modules",
		  "  event.context := struct { int32_t _tid; int32_t _pid; string _procname; };\n");
	ctf_event_class(&c, K_FORK, "sched_process_fork",
			"string _parent_comm; int32_t _parent_tid; int32_t _parent_pid; "
			"string _child_comm; int32_t _child_tid; int32_t _child_pid;");
	ctf_event_class(&c, K_FAULT, "x86_exceptions_page_fault_user",
			"xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ctf_event_class(&c, K_MEMCG_BEGIN, "mm_vmscan_memcg_reclaim_begin",
			"int32_t _order; xint64_t _gfp_flags;");
	ctf_event_class(&c, K_ISOLATE, "mm_vmscan_lru_isolate",
			"int32_t _classzone_idx; int32_t _order; uint64_t _nr_requested; "
			"uint64_t _nr_scanned; uint64_t _nr_skipped; uint64_t _nr_taken; int32_t _lru;");
	ctf_event_class(&c, K_SHRINK, "mm_vmscan_lru_shrink_inactive",
			"int32_t _nid; uint64_t _nr_scanned; uint64_t _nr_reclaimed; uint64_t _nr_dirty; "
			"uint64_t _nr_writeback; uint64_t _nr_congested; uint64_t _nr_immediate; "
			"uint64_t _nr_activate_anon; uint64_t _nr_activate_file; uint64_t _nr_ref_keep; "
			"uint64_t _nr_unmap_fail; int32_t _priority; int32_t _reclaim_flags;");
	ctf_event_class(&c, K_MEMCG_END, "mm_vmscan_memcg_reclaim_end", "uint64_t _nr_reclaimed;");
	ctf_event_class(&c, K_WAKE, "mm_vmscan_kswapd_wake", "int32_t _nid; int32_t _zid; int32_t _order;");
	ctf_event_class(&c, K_SLEEP, "mm_vmscan_kswapd_sleep", "int32_t _nid;");
	ctf_event_class(&c, K_EXIT, "sched_process_exit", "string _comm; int32_t _tid; int32_t _prio;");
	ctf_event_class(&c, K_SWITCH, "sched_switch",
			"string _prev_comm; int32_t _prev_tid; string _next_comm; int32_t _next_tid;");
#define CTX(tid, pid, name) do { i32(&c.ev, tid); i32(&c.ev, pid); str(&c.ev, name); } while (0)
	/* sh (100) forks worker (101) */
	ev(&c, K_FORK, 1000000);
	CTX(100, 100, "sh");
	str(&c.ev, "sh"); i32(&c.ev, 100); i32(&c.ev, 100); str(&c.ev, "worker"); i32(&c.ev, 101); i32(&c.ev, 101);
	/* worker: store to 0x10000, load 0x11000, store 0x10000 again */
	ev(&c, K_FAULT, 2000000);
	CTX(101, 101, "worker");
	u64(&c.ev, 0x10008); u64(&c.ev, 0x400000); u8(&c.ev, 0x6);
	ev(&c, K_FAULT, 3000000);
	CTX(101, 101, "worker");
	u64(&c.ev, 0x11ff0); u64(&c.ev, 0x400010); u8(&c.ev, 0x4);
	/* one memcg reclaim: 40 scanned, 30 reclaimed at priority 11 */
	ev(&c, K_MEMCG_BEGIN, 4000000);
	CTX(101, 101, "worker");
	i32(&c.ev, 0); u64(&c.ev, 0x100cca);
	ev(&c, K_ISOLATE, 4100000);
	CTX(101, 101, "worker");
	i32(&c.ev, 3); i32(&c.ev, 0); u64(&c.ev, 32); u64(&c.ev, 40); u64(&c.ev, 0); u64(&c.ev, 32); i32(&c.ev, 0);
	ev(&c, K_SHRINK, 4200000);
	CTX(101, 101, "worker");
	i32(&c.ev, 0); u64(&c.ev, 40); u64(&c.ev, 30);
	for (int i = 0; i < 8; i++)
		u64(&c.ev, i == 4 ? 2 : 0);    /* nr_activate_anon = 2 */
	i32(&c.ev, 11); i32(&c.ev, 0x9);
	ev(&c, K_MEMCG_END, 5000000);
	CTX(101, 101, "worker");
	u64(&c.ev, 30);
	/* kswapd0 (50) wakes and sleeps; not the workload's, kept (kswapd) */
	ev(&c, K_WAKE, 5500000);
	CTX(50, 50, "kswapd0");
	i32(&c.ev, 0); i32(&c.ev, 2); i32(&c.ev, 0);
	ev(&c, K_SLEEP, 5600000);
	CTX(50, 50, "kswapd0");
	i32(&c.ev, 0);
	ev(&c, K_SWITCH, 5700000);
	CTX(101, 101, "worker");
	str(&c.ev, "worker"); i32(&c.ev, 101); str(&c.ev, "sh"); i32(&c.ev, 100);
	ev(&c, K_FAULT, 6000000);
	CTX(101, 101, "worker");
	u64(&c.ev, 0x10000); u64(&c.ev, 0x400020); u8(&c.ev, 0x6);
	ev(&c, K_EXIT, 7000000);
	CTX(101, 101, "worker");
	str(&c.ev, "worker"); i32(&c.ev, 101); i32(&c.ev, 120);
	ctf_end(&c);

	char out[600];
	snprintf(out, sizeof(out), "%s.vmr", c.dir);
	struct vmr v;
	ingest_to(&c, out, &v);
	/* demand: one task, three faults on two anon pages, then its exit
	 * frees both */
	assert_int_equal(v.hdr->nr_tasks, 1);
	assert_int_equal(v.tasks[0].tid, 101);
	assert_int_equal(v.tasks[0].pid, 101);
	assert_int_equal(v.tasks[0].ppid, 100);
	assert_string_equal(v.tasks[0].comm, "worker");
	assert_int_equal(v.hdr->nr_accesses, 3);
	assert_int_equal(v.hdr->nr_pages, 2);
	assert_int_equal(v.pages[0].kind, VMR_PAGE_ANON);
	assert_int_equal(v.pages[0].space, 101);
	assert_int_equal(v.pages[0].index, 0x10);
	assert_int_equal(v.pages[1].index, 0x11);
	unsigned ops[8], n = 0, frees = 0;
	for (uint64_t i = 0; i < v.tasks[0].nr_recs && n < 8; i++) {
		struct vmr_rec r = v.recs[v.tasks[0].first_rec + i];
		if (vmr_rec_op(r) == VMR_OP_DELAY)
			continue;
		ops[n++] = vmr_rec_op(r);
		if (vmr_rec_op(r) == VMR_OP_FREE)
			frees += vmr_rec_count(r);
	}
	assert_true(n >= 4);
	assert_int_equal(ops[0], VMR_OP_STORE);
	assert_int_equal(ops[1], VMR_OP_LOAD);
	assert_int_equal(ops[2], VMR_OP_STORE);
	assert_int_equal(ops[3], VMR_OP_FREE);
	assert_int_equal(frees, 2);
	assert_int_equal(v.tasks[0].end_ns, 7000000);
	/* ground truth: every reclaim and process event, in time order */
	static const int want[] = {
		VMR_KEV_COMM, VMR_KEV_FORK, VMR_KEV_COMM, VMR_KEV_MEMCG_BEGIN, VMR_KEV_LRU_ISOLATE,
		VMR_KEV_SHRINK_INACTIVE, VMR_KEV_MEMCG_END, VMR_KEV_COMM, VMR_KEV_KSWAPD_WAKE,
		VMR_KEV_KSWAPD_SLEEP, VMR_KEV_EXIT,
	};
	assert_int_equal(v.nr_kev, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < v.nr_kev; i++)
		assert_int_equal(v.kev[i].type, want[i]);
	const struct vmr_kev *sh = &v.kev[5];
	assert_int_equal(sh->tid, 101);
	assert_int_equal(sh->f[1], 40);        /* nr_scanned */
	assert_int_equal(sh->f[2], 30);        /* nr_reclaimed */
	assert_int_equal(sh->f[7], 2);         /* nr_activate_anon */
	assert_int_equal((int64_t)sh->f[11], 11);
	assert_int_equal(sh->f[12], 0x9);
	assert_int_equal(v.kev[6].f[0], 30);
	assert_int_equal(v.kev[8].tid, 50);
	assert_int_equal(v.kev[4].f[7], VMR_ABSENT);   /* no isolate_mode on this kernel */
	assert_string_equal(meta(&v, "demand_source"), "kernel (faults, page-cache events, DAMON)");
	vmr_close(&v);
	unlink(out);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c.dir);
	assert_int_equal(system(cmd), 0);
}

/* The kernel's reclaim stalls come out of the gaps (kdemand.c, sink.c
 * ingest_sink_stall): the part of a begin..end bracket after the task's
 * last record is taken out of its next gap.  The gaps, hand-computed:
 *   faults at 2, 3 ms; memcg reclaim 3.5-8.5 ms; fault at 10 ms:
 *     the 7 ms gap holds 5 ms of reclaim -> 2 ms;
 *   direct reclaim from 11 ms, a fault at 12 ms inside it, its end at
 *     14 ms, a fault at 15 ms: 12-14 comes out (3 -> 1 ms), 11-12 not
 *     (the gap before 12 was written before the end was seen);
 *   a begin at 16, another at 17 (inside the first: ignored), an end at
 *     18, another at 19 (without a begin: ignored), a fault at 20 ms:
 *     16-18 comes out (5 -> 3 ms);
 *   a begin at 21 never ended, the exit at 25 ms: nothing (5 ms). */
enum { S_FORK, S_FAULT, S_MEMCG_BEGIN, S_MEMCG_END, S_DIRECT_BEGIN, S_DIRECT_END, S_EXIT };

static void reclaim_stalls(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "stalls", "kernel", "lttng-modules",
		  "  event.context := struct { int32_t _tid; int32_t _pid; string _procname; };\n");
	ctf_event_class(&c, S_FORK, "sched_process_fork",
			"string _parent_comm; int32_t _parent_tid; int32_t _parent_pid; "
			"string _child_comm; int32_t _child_tid; int32_t _child_pid;");
	ctf_event_class(&c, S_FAULT, "x86_exceptions_page_fault_user",
			"xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ctf_event_class(&c, S_MEMCG_BEGIN, "mm_vmscan_memcg_reclaim_begin",
			"int32_t _order; xint64_t _gfp_flags;");
	ctf_event_class(&c, S_MEMCG_END, "mm_vmscan_memcg_reclaim_end", "uint64_t _nr_reclaimed;");
	ctf_event_class(&c, S_DIRECT_BEGIN, "mm_vmscan_direct_reclaim_begin",
			"int32_t _order; xint64_t _gfp_flags;");
	ctf_event_class(&c, S_DIRECT_END, "mm_vmscan_direct_reclaim_end", "uint64_t _nr_reclaimed;");
	ctf_event_class(&c, S_EXIT, "sched_process_exit", "string _comm; int32_t _tid; int32_t _prio;");
	ev(&c, S_FORK, 1000000);
	CTX(100, 100, "sh");
	str(&c.ev, "sh"); i32(&c.ev, 100); i32(&c.ev, 100); str(&c.ev, "worker"); i32(&c.ev, 101); i32(&c.ev, 101);
	static const struct { int id; uint64_t ms10, addr; } evs[] = {
		{ S_FAULT, 20, 0x10000 }, { S_FAULT, 30, 0x11000 },
		{ S_MEMCG_BEGIN, 35, 0 }, { S_MEMCG_END, 85, 0 }, { S_FAULT, 100, 0x12000 },
		{ S_DIRECT_BEGIN, 110, 0 }, { S_FAULT, 120, 0x13000 }, { S_DIRECT_END, 140, 0 },
		{ S_FAULT, 150, 0x14000 },
		{ S_DIRECT_BEGIN, 160, 0 }, { S_MEMCG_BEGIN, 170, 0 }, { S_DIRECT_END, 180, 0 },
		{ S_MEMCG_END, 190, 0 }, { S_FAULT, 200, 0x15000 },
		{ S_MEMCG_BEGIN, 210, 0 }, { S_EXIT, 250, 0 },
	};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		ev(&c, (uint32_t)evs[i].id, evs[i].ms10 * 100000);
		CTX(101, 101, "worker");
		switch (evs[i].id) {
		case S_FAULT:
			u64(&c.ev, evs[i].addr); u64(&c.ev, 0x400000); u8(&c.ev, 0x6);
			break;
		case S_MEMCG_BEGIN:
		case S_DIRECT_BEGIN:
			i32(&c.ev, 0); u64(&c.ev, 0x100cca);
			break;
		case S_MEMCG_END:
		case S_DIRECT_END:
			u64(&c.ev, 1);
			break;
		case S_EXIT:
			str(&c.ev, "worker"); i32(&c.ev, 101); i32(&c.ev, 120);
			break;
		}
	}
	ctf_end(&c);

	char out[600];
	snprintf(out, sizeof(out), "%s.vmr", c.dir);
	struct vmr v;
	ingest_to(&c, out, &v);
	assert_int_equal(v.hdr->nr_tasks, 1);
	/* the task's own span stays the trace's */
	assert_int_equal(v.tasks[0].begin_ns, 2000000);
	assert_int_equal(v.tasks[0].end_ns, 25000000);
	/* the gap before each record that is not a DELAY (a DELAY's time
	 * goes to the record after it) */
	static const uint64_t want[] = { 0, 1000000, 2000000, 2000000, 1000000, 3000000, 5000000 };
	uint64_t gap = 0;
	size_t n = 0;
	for (uint64_t i = 0; i < v.tasks[0].nr_recs; i++) {
		struct vmr_rec r = v.recs[v.tasks[0].first_rec + i];
		gap += vmr_rec_delta(r);
		if (vmr_rec_op(r) == VMR_OP_DELAY)
			continue;
		assert_true(n < sizeof(want) / sizeof(want[0]));
		assert_int_equal(gap, want[n]);
		n++;
		gap = 0;
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	assert_string_equal(meta(&v, "demand_kernel_stall_ns"), "9000000");
	assert_string_equal(meta(&v, "demand_kernel_stalls"),
			    "3 reclaims (direct and memcg), 9000000 ns of them after their task's last "
			    "record; 1 begins inside an open one, 1 ends without a begin");
	vmr_close(&v);
	unlink(out);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c.dir);
	assert_int_equal(system(cmd), 0);
}

/* A required field missing: one line naming file, event and field. */
static void kernel_missing_field(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "missing", "kernel", "lttng-modules",
		  "  event.context := struct { int32_t _tid; int32_t _pid; };\n");
	ctf_event_class(&c, 0, "mm_vmscan_lru_shrink_inactive", "int32_t _nid; uint64_t _nr_scanned;");
	ev(&c, 0, 1000);
	i32(&c.ev, 1); i32(&c.ev, 1); i32(&c.ev, 0); u64(&c.ev, 3);
	ctf_end(&c);
	struct ingest_opts o = { .trace = c.dir, .output = "/dev/null", .use_cache = 0 };
	struct ingest_report rep;
	char path[512], err[1024] = "";
	assert_int_equal(ingest(&o, &rep, path, sizeof(path), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "event mm_vmscan_lru_shrink_inactive: field nr_reclaimed: missing"));
	assert_non_null(strstr(err, c.dir));
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c.dir);
	assert_int_equal(system(cmd), 0);
}

/* ------------------------------------------------------------------ */
/* A bridged trace: vmreplay_kernel + vmreplay_capture                  */

enum {
	B_SESSION, B_MAPS, B_TARGET, B_FAULT, B_GET_PAGES, B_ADD, B_DELETE, B_BEGIN, B_END, B_DAMON,
};

#define KCOMMON "uint64_t _kts; uint32_t _kcpu; int32_t _ktid; int32_t _kpid; "
/* vmreplay_capture:capture_session's fields (capture/vmreplay_capture_tp.h),
 * as far as these tests' sessions need them */
#define SESSION_FIELDS "uint32_t _root_pid; string _cgroup; uint32_t _cgroup_version; uint64_t _memory_limit; " \
	"int32_t _swappiness; string _swap_kind; string _swap_device; uint64_t _swap_size; "               \
	"string _kernel_source; string _lru_kind; string _thp; uint32_t _period_ms; "                     \
	"uint8_t _damon; uint64_t _damon_sample_us; uint64_t _damon_aggr_us; "                           \
	"uint64_t _damon_update_us; string _damon_note; string _filter; "

static void kcommon(struct ctf *c, uint64_t kts, int tid)
{
	u64(&c->ev, kts); u32(&c->ev, 0); i32(&c->ev, tid); i32(&c->ev, tid);
}

static void bridged(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "bridge", "ust", "lttng-ust", "");
	ctf_event_class(&c, B_SESSION, "vmreplay_capture:capture_session",
			SESSION_FIELDS);
	ctf_event_class(&c, B_MAPS, "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;");
	ctf_event_class(&c, B_TARGET, "vmreplay_capture:damon_target",
			"uint64_t _kts; uint32_t _target_id; int32_t _pid;");
	ctf_event_class(&c, B_FAULT, "vmreplay_kernel:x86_exceptions_page_fault_user",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ctf_event_class(&c, B_GET_PAGES, "vmreplay_kernel:mm_filemap_get_pages",
			KCOMMON "uint64_t _i_ino; uint32_t _s_dev; uint64_t _index; uint64_t _last_index;");
	ctf_event_class(&c, B_ADD, "vmreplay_kernel:mm_filemap_add_to_page_cache",
			KCOMMON "xint64_t _pfn; uint64_t _i_ino; uint64_t _index; uint32_t _s_dev; uint8_t _order;");
	ctf_event_class(&c, B_DELETE, "vmreplay_kernel:mm_filemap_delete_from_page_cache",
			KCOMMON "xint64_t _pfn; uint64_t _i_ino; uint64_t _index; uint32_t _s_dev; uint8_t _order;");
	ctf_event_class(&c, B_BEGIN, "vmreplay_kernel:mm_vmscan_memcg_reclaim_begin",
			KCOMMON "int32_t _order; xint64_t _gfp_flags;");
	ctf_event_class(&c, B_END, "vmreplay_kernel:mm_vmscan_memcg_reclaim_end",
			KCOMMON "uint64_t _nr_reclaimed;");
	ctf_event_class(&c, B_DAMON, "vmreplay_kernel:damon_aggregated",
			KCOMMON "uint64_t _target_id; uint32_t _nr_regions; xint64_t _start; xint64_t _end; "
			"uint32_t _nr_accesses; uint32_t _age;");
	/* The CTF time is the re-emit time; kts is the kernel's.  Emit in an
	 * order that is not kts order: ingest must sort by kts. */
	const uint64_t base = 500000000;  /* re-emit times */
	ev(&c, B_SESSION, base);
	u32(&c.ev, 200); str(&c.ev, "/sys/fs/cgroup/memory/x"); u32(&c.ev, 1); u64(&c.ev, 64 << 20);
	i32(&c.ev, 100); str(&c.ev, "file"); str(&c.ev, "/var/tmp/s"); u64(&c.ev, 256 << 20);
	str(&c.ev, "tracefs-bridge"); str(&c.ev, "classic"); str(&c.ev, "madvise"); u32(&c.ev, 100);
	u8(&c.ev, 1); u64(&c.ev, 5000); u64(&c.ev, 100000); u64(&c.ev, 1000000); str(&c.ev, "vaddr");
	str(&c.ev, "test");
	/* pid 200: anon heap at 0x1000000 (16 pages), file /lib/x mapped
	 * at 0x2000000 from file offset 0x3000, private; dev 8:1, ino 77 */
	ev(&c, B_MAPS, base + 1);
	u64(&c.ev, 1000); i32(&c.ev, 200);
	str(&c.ev, "01000000-01010000 rw-p 00000000 00:00 0 [heap]\n"
		   "02000000-02004000 r-xp 00003000 08:01 77 /lib/x\n");
	ev(&c, B_TARGET, base + 2);
	u64(&c.ev, 1000); u32(&c.ev, 0); i32(&c.ev, 200);
	const uint32_t sdev = (8u << 20) | 1;       /* the kernel's dev_t for 8:1 */
	/* kts 2000: a read fault in the file mapping -> page 3+1 = 4 of ino 77 */
	ev(&c, B_FAULT, base + 10);
	kcommon(&c, 2000, 200);
	u64(&c.ev, 0x2001010); u64(&c.ev, 0x2001010); u8(&c.ev, 0x14);
	/* kts 1500 (recorded later, happened earlier): two anon store faults */
	ev(&c, B_FAULT, base + 11);
	kcommon(&c, 1500, 200);
	u64(&c.ev, 0x1000000); u64(&c.ev, 0x400000); u8(&c.ev, 0x6);
	ev(&c, B_FAULT, base + 12);
	kcommon(&c, 1600, 200);
	u64(&c.ev, 0x1001000); u64(&c.ev, 0x400000); u8(&c.ev, 0x6);
	/* kts 2001-2002: the fault's read-ahead adds pages 5, 6 of ino 77:
	 * READAHEAD flagged as in the fault (VMR_F_FAULT) */
	for (int i = 0; i < 2; i++) {
		ev(&c, B_ADD, base + 13 + i);
		kcommon(&c, 2001 + i, 200);
		u64(&c.ev, 0x1236); u64(&c.ev, 77); u64(&c.ev, 5 + i); u32(&c.ev, sdev); u8(&c.ev, 0);
	}
	/* kts 3000-3200: read() of ino 90 pages 0-1: read-ahead adds 0-3,
	 * then get_pages 0-1 -> READ 0,1; 2, 3 only read ahead: READAHEAD
	 * at their insertion times */
	for (int i = 0; i < 4; i++) {
		ev(&c, B_ADD, base + 20 + i);
		kcommon(&c, 3000 + i, 200);
		u64(&c.ev, 0x1234); u64(&c.ev, 90); u64(&c.ev, i); u32(&c.ev, sdev); u8(&c.ev, 0);
	}
	ev(&c, B_GET_PAGES, base + 30);
	kcommon(&c, 3100, 200);
	u64(&c.ev, 90); u32(&c.ev, sdev); u64(&c.ev, 0); u64(&c.ev, 1);
	/* kts 3150: the same read() asks again from page 1 (its batch had
	 * ended at page 0): the tracepoint's range 1-1 is no new reference */
	ev(&c, B_GET_PAGES, base + 30);
	kcommon(&c, 3150, 200);
	u64(&c.ev, 90); u32(&c.ev, sdev); u64(&c.ev, 1); u64(&c.ev, 1);
	/* kts 3180: a second read() of pages 0-1 is: READ 0, 1 again */
	ev(&c, B_GET_PAGES, base + 30);
	kcommon(&c, 3180, 200);
	u64(&c.ev, 90); u32(&c.ev, sdev); u64(&c.ev, 0); u64(&c.ev, 1);
	/* kts 4000: a buffered write adds page 0 of ino 91 (no read, no fault) */
	ev(&c, B_ADD, base + 31);
	kcommon(&c, 4000, 200);
	u64(&c.ev, 0x1235); u64(&c.ev, 91); u64(&c.ev, 0); u32(&c.ev, sdev); u8(&c.ev, 0);
	/* kts 5000-5200: a memcg reclaim evicts page 1 of ino 90 (ground truth) */
	ev(&c, B_BEGIN, base + 40);
	kcommon(&c, 5000, 200);
	i32(&c.ev, 0); u64(&c.ev, 0xcc0);
	ev(&c, B_DELETE, base + 41);
	kcommon(&c, 5100, 200);
	u64(&c.ev, 0x1234); u64(&c.ev, 90); u64(&c.ev, 1); u32(&c.ev, sdev); u8(&c.ev, 0);
	ev(&c, B_END, base + 42);
	kcommon(&c, 5200, 200);
	u64(&c.ev, 1);
	/* kts 6000: unlink of ino 90: page 0 leaves outside reclaim -> FREE */
	ev(&c, B_DELETE, base + 43);
	kcommon(&c, 6000, 200);
	u64(&c.ev, 0x1234); u64(&c.ev, 90); u64(&c.ev, 0); u32(&c.ev, sdev); u8(&c.ev, 0);
	/* kts 100000000 (100 ms): DAMON saw the heap region 0x1000000-0x1008000
	 * (8 pages, 2 of them faulted) accessed at 11 of 20 checks -> 3
	 * passes at 100 - 100 + (2j+1) * 100 / 6 ms, each over a window of
	 * ceil(8 * 11 / 20) = 5 pages at damon_phase(0x1000, pass time) mod 4
	 * (computed apart: 2, 3, 0): 0x1002-0x1006 and 0x1003-0x1007 hold no
	 * known page, 0x1000-0x1004 loads the 2 faulted ones; the 6
	 * never-faulted pages are not memory */
	ev(&c, B_DAMON, base + 50);
	kcommon(&c, 100000000, 7);
	u64(&c.ev, 0); u32(&c.ev, 1); u64(&c.ev, 0x1000000); u64(&c.ev, 0x1008000); u32(&c.ev, 11); u32(&c.ev, 3);
	ctf_end(&c);

	char out[600];
	snprintf(out, sizeof(out), "%s.vmr", c.dir);
	struct vmr v;
	ingest_to(&c, out, &v);
	assert_int_equal(v.hdr->nr_tasks, 1);
	const struct vmr_task *t = &v.tasks[0];
	assert_int_equal(t->tid, 200);
	/* the stream, decoded: (op, page kind, index) in kts order; the
	 * page of /lib/x was never inserted by the workload: found cached,
	 * and faulted through its r-xp mapping: VM_EXEC (the pages read
	 * ahead beside it are mapped by nobody yet) */
	struct { unsigned op; int file; uint64_t ino, index; uint64_t ts; uint32_t flags; } want[] = {
		{ VMR_OP_STORE, 0, 0, 0x1000, 1500, 0 },
		{ VMR_OP_STORE, 0, 0, 0x1001, 1600, 0 },
		{ VMR_OP_LOAD, 1, 77, 4, 2000, VMR_PAGE_PRECACHED | VMR_PAGE_EXEC },
		{ VMR_OP_READAHEAD, 1, 77, 5, 2001, 0 },
		{ VMR_OP_READAHEAD, 1, 77, 6, 2002, 0 },
		{ VMR_OP_READAHEAD, 1, 90, 2, 3002, 0 },
		{ VMR_OP_READAHEAD, 1, 90, 3, 3003, 0 },
		{ VMR_OP_READ, 1, 90, 0, 3100, 0 },
		{ VMR_OP_READ, 1, 90, 1, 3100, 0 },
		{ VMR_OP_READ, 1, 90, 0, 3180, 0 },
		{ VMR_OP_READ, 1, 90, 1, 3180, 0 },
		{ VMR_OP_WRITE, 1, 91, 0, 4000, 0 },
		/* the memcg reclaim's 200 ns (5000-5200) come out of the gap
		 * before the FREE, and the times after it are 200 ns early */
		{ VMR_OP_FREE, 1, 90, 0, 6000 - 200, 0 },
		{ VMR_OP_LOAD, 0, 0, 0x1000, 500000000 / 6 - 200, 0 },
		{ VMR_OP_LOAD, 0, 0, 0x1001, 500000000 / 6 - 200, 0 },
	};
	size_t n = 0;
	uint64_t ts = t->begin_ns;
	for (uint64_t i = 0; i < t->nr_recs; i++) {
		struct vmr_rec r = v.recs[t->first_rec + i];
		ts += vmr_rec_delta(r);
		if (vmr_rec_op(r) == VMR_OP_DELAY)
			continue;
		for (uint32_t p = 0; p < vmr_rec_count(r); p++) {
			assert_true(n < sizeof(want) / sizeof(want[0]));
			const struct vmr_page *pg = &v.pages[r.page + p];
			if (vmr_rec_op(r) != want[n].op || (pg->kind == VMR_PAGE_FILE) != want[n].file ||
			    pg->ino != want[n].ino || pg->index != want[n].index)
				fail_msg("record %zu: op %u kind %u ino %llu index %#llx; want op %u file %d "
					 "ino %llu index %#llx", n, vmr_rec_op(r), pg->kind,
					 (unsigned long long)pg->ino, (unsigned long long)pg->index, want[n].op,
					 want[n].file, (unsigned long long)want[n].ino,
					 (unsigned long long)want[n].index);
			/* times: the kernel's kts on the trace's clock (offset 0 here) */
			if (ts != want[n].ts)
				fail_msg("record %zu at %llu, want %llu", n, (unsigned long long)ts,
					 (unsigned long long)want[n].ts);
			if (want[n].file)
				assert_int_equal(pg->space, makedev(8, 1));
			if (pg->flags != want[n].flags)
				fail_msg("record %zu: page flags %#x, want %#x", n, pg->flags, want[n].flags);
			/* only the read-ahead after a fault on its file is in the fault */
			assert_int_equal(vmr_rec_in_fault(r), want[n].op == VMR_OP_READAHEAD && want[n].ino == 77);
			n++;
		}
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	/* the eviction is ground truth, not demand */
	int evicts = 0;
	for (size_t i = 0; i < v.nr_kev; i++)
		if (v.kev[i].type == VMR_KEV_FILE_EVICT) {
			evicts++;
			assert_int_equal(v.kev[i].f[1], 90);
			assert_int_equal(v.kev[i].f[2], 1);
			assert_int_equal(v.kev[i].ts_ns, 5100);
		}
	assert_int_equal(evicts, 1);
	assert_string_equal(meta(&v, "capture_root_pid"), "200");
	assert_string_equal(meta(&v, "swap_kind"), "file");
	/* the trace's clock is CLOCK_MONOTONIC with offset 0 */
	assert_string_equal(meta(&v, "clock_monotonic_offset_ns"), "0");
	assert_non_null(strstr(meta(&v, "demand_damon"), "1 regions, 3 passes, 2 page references"));
	if (!strstr(meta(&v, "demand_page_cache"), "4 pages read (1 get_pages of a read already counted), 1 pages written, 1 freed, 4 read-ahead (inserted, not referenced), 1 evicted by reclaim, 1 file pages found cached (charged outside the session)")) fail_msg("%s", meta(&v, "demand_page_cache"));
	vmr_close(&v);
	unlink(out);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c.dir);
	assert_int_equal(system(cmd), 0);
}

/* The read time of a read-ahead window, from the synchronous windows a
 * read() waited for (note_sync_read, meta_ra_read_time): two windows
 * each of 1 page (waited 300 and 900 ns), 2 (500, 700), 4 (400, 450)
 * and 8 (1,300, 1,500), one of 16 (2,000: a size seen once, left out);
 * a get_pages outside the pages just inserted is no sample.  The fastest
 * of N pages or more: L(1) 300, L(2) 400, L(4) 400, L(8) 1,300; the
 * slopes of their pairs 100, 33.3, 142.9, 0, 150, 225, median
 * (100 + 142.9) / 2 = 121.4 ns a page; what each took beyond it 178.6,
 * 157.1, -85.7, 328.6, median (157.1 + 178.6) / 2 = 167.9 ns. */
static void sync_read_time(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "readtime", "ust", "lttng-ust", "");
	ctf_event_class(&c, B_SESSION, "vmreplay_capture:capture_session",
			SESSION_FIELDS);
	ctf_event_class(&c, B_GET_PAGES, "vmreplay_kernel:mm_filemap_get_pages",
			KCOMMON "uint64_t _i_ino; uint32_t _s_dev; uint64_t _index; uint64_t _last_index;");
	ctf_event_class(&c, B_ADD, "vmreplay_kernel:mm_filemap_add_to_page_cache",
			KCOMMON "xint64_t _pfn; uint64_t _i_ino; uint64_t _index; uint32_t _s_dev; uint8_t _order;");
	const uint64_t base = 500000000;
	ev(&c, B_SESSION, base);
	u32(&c.ev, 200); str(&c.ev, "/sys/fs/cgroup/memory/x"); u32(&c.ev, 1); u64(&c.ev, 64 << 20);
	i32(&c.ev, 100); str(&c.ev, "file"); str(&c.ev, "/var/tmp/s"); u64(&c.ev, 256 << 20);
	str(&c.ev, "tracefs-bridge"); str(&c.ev, "classic"); str(&c.ev, "madvise"); u32(&c.ev, 100);
	u8(&c.ev, 0); u64(&c.ev, 0); u64(&c.ev, 0); u64(&c.ev, 0); str(&c.ev, ""); str(&c.ev, "test");
	const uint32_t sdev = (8u << 20) | 1;
	/* file, pages, first index, the get_pages' index, wait after the last insertion */
	static const struct { uint64_t ino, pages, first, read, wait; } w[] = {
		{ 90, 1, 0, 0, 300 },  { 91, 1, 0, 0, 900 },  { 92, 2, 0, 0, 500 },   { 93, 2, 0, 0, 700 },
		{ 94, 4, 0, 0, 400 },  { 95, 4, 0, 0, 450 },  { 96, 8, 0, 0, 1300 },  { 97, 8, 0, 0, 1500 },
		{ 98, 16, 0, 0, 2000 }, { 99, 1, 5, 0, 100 },
	};
	uint64_t seq = 1;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		uint64_t kts = 10000 * (i + 1);
		for (uint64_t p = 0; p < w[i].pages; p++) {
			ev(&c, B_ADD, base + seq++);
			kcommon(&c, kts + p, 200);
			u64(&c.ev, 0x1000 + seq); u64(&c.ev, w[i].ino); u64(&c.ev, w[i].first + p); u32(&c.ev, sdev);
			u8(&c.ev, 0);
		}
		ev(&c, B_GET_PAGES, base + seq++);
		kcommon(&c, kts + w[i].pages - 1 + w[i].wait, 200);
		u64(&c.ev, w[i].ino); u32(&c.ev, sdev); u64(&c.ev, w[i].read); u64(&c.ev, w[i].read);
	}
	ctf_end(&c);

	char out[600];
	snprintf(out, sizeof(out), "%s.vmr", c.dir);
	struct vmr v;
	ingest_to(&c, out, &v);
	assert_string_equal(meta(&v, "file_ra_windows"), "9");
	assert_string_equal(meta(&v, "file_ra_page_ns"), "121");
	assert_string_equal(meta(&v, "file_ra_base_ns"), "168");
	vmr_close(&v);
	unlink(out);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c.dir);
	assert_int_equal(system(cmd), 0);
}

/* ------------------------------------------------------------------ */
/* Hostile traces: values a replay could not trust are refused where    */
/* they enter, naming trace, event and field                            */

enum { U_SESSION, U_CGROUP, U_ACCESS };

static void ust_begin(struct ctf *c, const char *name)
{
	ctf_begin(c, name, "ust", "lttng-ust", "");
	ctf_event_class(c, U_SESSION, "vmreplay:session",
			"string _workload; string _argv; uint64_t _memory_limit; int32_t _swappiness; "
			"uint32_t _page_size; string _kernel_release; string _hostname; uint32_t _nr_cpus; "
			"uint64_t _mem_total; string _lru_kind;");
	ctf_event_class(c, U_CGROUP, "vmreplay:cgroup",
			"int32_t _pid; int32_t _tid; string _path; uint64_t _limit; int32_t _swappiness;");
	ctf_event_class(c, U_ACCESS, "vmreplay:anon_access",
			"int32_t _pid; int32_t _tid; uint64_t _addr; uint64_t _len; uint8_t _write;");
}

static void ust_session(struct ctf *c, uint32_t page_size, uint64_t mem_total)
{
	ev(c, U_SESSION, 1000);
	str(&c->ev, "hostile"); str(&c->ev, "hostile"); u64(&c->ev, 0); i32(&c->ev, 60);
	u32(&c->ev, page_size); str(&c->ev, "6.18"); str(&c->ev, "h"); u32(&c->ev, 2);
	u64(&c->ev, mem_total); str(&c->ev, "classic");
}

static void ust_access(struct ctf *c, uint64_t ts, uint64_t addr, uint64_t len)
{
	ev(c, U_ACCESS, ts);
	i32(&c->ev, 7); i32(&c->ev, 7); u64(&c->ev, addr); u64(&c->ev, len); u8(&c->ev, 1);
}

/* Ingests C and expects a one-line refusal naming the trace and WHAT. */
static void refused(struct ctf *c, const char *what)
{
	struct ingest_opts o = { .trace = c->dir, .output = "/dev/null", .use_cache = 0 };
	struct ingest_report rep;
	char path[512], err[1024] = "";
	if (ingest(&o, &rep, path, sizeof(path), err, sizeof(err)) != -1)
		fail_msg("%s: accepted, expected '%s'", c->dir, what);
	if (!strstr(err, what) || !strstr(err, c->dir) || strchr(err, '\n'))
		fail_msg("%s: '%s' does not say '%s'", c->dir, err, what);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c->dir);
	assert_int_equal(system(cmd), 0);
}

/* page_size 512: the replay divides by page_size / 1024 (SIGFPE). */
static void hostile_page_size(void **state)
{
	(void)state;
	struct ctf c;
	ust_begin(&c, "pagesize");
	ust_session(&c, 512, 1ull << 30);
	ust_access(&c, 2000, 0x10000, 4096);
	ctf_end(&c);
	refused(&c, "event vmreplay:session: field page_size: 512 is not a page size");
}

/* A cgroup six levels deep (the replay builds four: use after free on
 * its error path), and an absolute one. */
static void hostile_cgroup(void **state)
{
	(void)state;
	static const struct { const char *path, *why; } cases[] = {
		{ "a/b/c/d/e/f", "field path: 'a/b/c/d/e/f' nests deeper than 4 levels" },
		{ "/a", "field path: '/a' is absolute" },
		{ "a/./b", "field path: 'a/./b' has a '.' or '..' component" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ctf c;
		ust_begin(&c, "cgroup");
		ust_session(&c, 4096, 1ull << 30);
		ev(&c, U_CGROUP, 1500);
		i32(&c.ev, 7); i32(&c.ev, 7); str(&c.ev, cases[i].path); u64(&c.ev, 0); i32(&c.ev, 60);
		ust_access(&c, 2000, 0x10000, 4096);
		ctf_end(&c);
		refused(&c, cases[i].why);
	}
	struct ctf c;
	ust_begin(&c, "cglimit");
	ust_session(&c, 4096, 1ull << 30);
	ev(&c, U_CGROUP, 1500);
	i32(&c.ev, 7); i32(&c.ev, 7); str(&c.ev, "a"); u64(&c.ev, 100); i32(&c.ev, 60);
	ctf_end(&c);
	refused(&c, "field limit: 100 is not 0 or a size from one page");
}

/* One flipped bit in len: 748 GiB touched by a session of 1 GiB. */
static void hostile_length(void **state)
{
	(void)state;
	struct ctf c;
	ust_begin(&c, "length");
	ust_session(&c, 4096, 1ull << 30);
	ust_access(&c, 2000, 0x10000, 748ull << 30);
	ctf_end(&c);
	refused(&c, "event vmreplay:anon_access: field len: 803158884352 bytes is more than the "
		    "session's memory");
}

/* A bridged event whose kts would wrap when moved to the trace's clock. */
static void hostile_kts(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "kts", "ust", "lttng-ust", "");
	ctf_event_class(&c, 0, "vmreplay_kernel:mm_vmscan_memcg_reclaim_end", KCOMMON "uint64_t _nr_reclaimed;");
	ev(&c, 0, 1000);
	kcommon(&c, 0x7ffffffffffffff0ull, 5);
	u64(&c.ev, 1);
	ev(&c, 0, 2000);
	kcommon(&c, 0xfffffffffffffff0ull, 5);
	u64(&c.ev, 1);
	ctf_end(&c);
	refused(&c, "event mm_vmscan_memcg_reclaim_end: field kts: 18446744073709551600 is outside");
}

/* Many threads: each fork creates two tasks, which moves the task table
 * (a stale pointer was read after the second creation: ASan's
 * use-after-free on Trace Compass's many-threads trace).  Every child is
 * a task of the tree with its own fault. */
static void many_forks(void **state)
{
	(void)state;
	enum { N = 300 };
	struct ctf c;
	ctf_begin(&c, "forks", "kernel", "lttng-modules",
		  "  event.context := struct { int32_t _tid; int32_t _pid; };\n");
	ctf_event_class(&c, 0, "sched_process_fork",
			"string _parent_comm; int32_t _parent_tid; int32_t _parent_pid; "
			"string _child_comm; int32_t _child_tid; int32_t _child_pid;");
	ctf_event_class(&c, 1, "x86_exceptions_page_fault_user",
			"xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	for (int i = 0; i < N; i++) {
		/* a chain: each child forks the next, so each fork names a
		 * parent created by the one before and a new child */
		ev(&c, 0, 1000 + 10 * (uint64_t)i);
		i32(&c.ev, 100 + i); i32(&c.ev, 100 + i);
		str(&c.ev, "p"); i32(&c.ev, 100 + i); i32(&c.ev, 100 + i);
		str(&c.ev, "c"); i32(&c.ev, 101 + i); i32(&c.ev, 101 + i);
	}
	for (int i = 0; i < N; i++) {
		ev(&c, 1, 100000 + 10 * (uint64_t)i);
		i32(&c.ev, 101 + i); i32(&c.ev, 101 + i);
		u64(&c.ev, 0x10000); u64(&c.ev, 0x400000); u8(&c.ev, 0x6);
	}
	ctf_end(&c);
	char out[600];
	snprintf(out, sizeof(out), "%s.vmr", c.dir);
	struct vmr v;
	ingest_to(&c, out, &v);
	assert_int_equal(v.hdr->nr_tasks, N);
	assert_int_equal(v.hdr->nr_accesses, N);
	uint64_t forks = 0;
	for (uint64_t i = 0; i < v.nr_kev; i++)
		forks += v.kev[i].type == VMR_KEV_FORK;
	assert_int_equal(forks, N);
	vmr_close(&v);
	unlink(out);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c.dir);
	assert_int_equal(system(cmd), 0);
}

static void be32(struct buf *b, uint32_t v) { v = __builtin_bswap32(v); put(b, &v, 4); }
static void be64(struct buf *b, uint64_t v) { v = __builtin_bswap64(v); put(b, &v, 8); }

/* libbabeltrace2 2.0.4 asserts (abort) on an index entry whose packet
 * offset is negative as a signed number (two flipped bytes of a real
 * index): the decoder runs in a child, and its death is one line naming
 * the trace and the library's reason. */
static void decoder_abort(void **state)
{
	(void)state;
	struct ctf c;
	ust_begin(&c, "index");
	ust_session(&c, 4096, 1ull << 30);
	ust_access(&c, 2000, 0x10000, 4096);
	uint64_t bits = (8 + 44 + c.ev.n) * 8;
	ctf_end(&c);
	struct buf ix = { 0 };
	be32(&ix, 0xC1F1DCC1);                 /* CTF_INDEX_MAGIC */
	be32(&ix, 1);                          /* major */
	be32(&ix, 1);                          /* minor */
	be32(&ix, 72);                         /* entry length */
	be64(&ix, 0xff00000000000000ull);      /* offset: the damage */
	be64(&ix, bits);
	be64(&ix, bits);
	be64(&ix, 1000);
	be64(&ix, 2000);
	be64(&ix, 0);
	be64(&ix, 0);
	be64(&ix, 0);
	be64(&ix, 0);
	char path[600];
	snprintf(path, sizeof(path), "%s/index", c.dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/index/channel0_0.idx", c.dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(ix.p, 1, ix.n, f);
	fclose(f);
	free(ix.p);
	refused(&c, "the CTF decoder (libbabeltrace2) died of SIGABRT: data-stream-file.c:");
}

/* A page-cache read longer than one read() can ask (MAX_RW_COUNT), and a
 * DAMON region beyond any user address space: damaged fields that would
 * make billions of page lookups. */
static void hostile_ranges(void **state)
{
	(void)state;
	for (int which = 0; which < 2; which++) {
		struct ctf c;
		ctf_begin(&c, "ranges", "ust", "lttng-ust", "");
		ctf_event_class(&c, 0, "vmreplay_kernel:mm_filemap_get_pages",
				KCOMMON "uint64_t _i_ino; uint32_t _s_dev; uint64_t _index; uint64_t _last_index;");
		ctf_event_class(&c, 1, "vmreplay_kernel:damon_aggregated",
				KCOMMON "uint64_t _target_id; uint32_t _nr_regions; xint64_t _start; xint64_t _end; "
				"uint32_t _nr_accesses; uint32_t _age;");
		if (which == 0) {
			ev(&c, 0, 1000);
			kcommon(&c, 1000, 7);
			u64(&c.ev, 12); u32(&c.ev, 0x800001); u64(&c.ev, 0); u64(&c.ev, 1ull << 20);
		} else {
			ev(&c, 1, 1000);
			kcommon(&c, 1000, 7);
			u64(&c.ev, 0); u32(&c.ev, 1); u64(&c.ev, 0x400000); u64(&c.ev, 1ull << 60);
			u32(&c.ev, 3); u32(&c.ev, 0);
		}
		ctf_end(&c);
		refused(&c, which == 0 ? "field last_index: 1048576 is not a page range from index 0"
				       : "field end: 0x1000000000000000 is beyond any user address space");
	}
	/* found by fuzz_kevents: folios of order 20 (a million pages noted each) */
	struct ctf c;
	ctf_begin(&c, "order", "ust", "lttng-ust", "");
	ctf_event_class(&c, 0, "vmreplay_kernel:mm_filemap_add_to_page_cache",
			KCOMMON "xint64_t _pfn; uint64_t _i_ino; uint64_t _index; uint32_t _s_dev; uint8_t _order;");
	ev(&c, 0, 1000);
	kcommon(&c, 1000, 7);
	u64(&c.ev, 0x1234); u64(&c.ev, 12); u64(&c.ev, 0); u32(&c.ev, 0x800001); u8(&c.ev, 20);
	ctf_end(&c);
	refused(&c, "field order: 20 is larger than a page-cache folio can be");
}

/* The end of a test of faults: ingest C's trace, check the accesses, the
 * demand_faults line and (if KEY) one more metadata line. */
static void faults_ingested(struct ctf *c, uint64_t accesses, const char *faults, const char *key,
			    const char *value)
{
	ctf_end(c);
	char out[600];
	snprintf(out, sizeof(out), "%s.vmr", c->dir);
	struct vmr v;
	ingest_to(c, out, &v);
	assert_int_equal(v.hdr->nr_accesses, accesses);
	assert_string_equal(meta(&v, "demand_faults"), faults);
	if (key)
		assert_string_equal(meta(&v, key), value);
	vmr_close(&v);
	unlink(out);
}

/* Found by fuzz_kevents: a maps snapshot with no regions, then a fault of
 * its process (k->reg NULL + 0: undefined behaviour under UBSan).  The
 * fault is outside any known mapping: one anonymous access. */
static void empty_maps(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "emptymaps", "ust", "lttng-ust", "");
	ctf_event_class(&c, 0, "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;");
	ctf_event_class(&c, 1, "vmreplay_kernel:x86_exceptions_page_fault_user",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ev(&c, 0, 1000);
	u64(&c.ev, 1000); i32(&c.ev, 7); str(&c.ev, "");
	ev(&c, 1, 2000);
	kcommon(&c, 2000, 7);
	u64(&c.ev, 0x10000); u64(&c.ev, 0x400000); u8(&c.ev, 0x6);
	ctf_end(&c);
	char out[600];
	snprintf(out, sizeof(out), "%s.vmr", c.dir);
	struct vmr v;
	ingest_to(&c, out, &v);
	assert_int_equal(v.hdr->nr_accesses, 1);
	assert_non_null(strstr(meta(&v, "demand_faults"), "1 outside any known mapping"));
	vmr_close(&v);
	unlink(out);
}

/* madvise: POPULATE_READ loads only the pages the process has (the rest
 * would map the zero page), POPULATE_WRITE stores every page of the
 * rounded-up range, a failed call does nothing, a populate of a file
 * mapping reads the file (its page-cache insertion is its own page, not
 * a buffered write), DONTNEED frees the anonymous pages, and an exit
 * with no entry (unfiltered advice) is nothing.  Hand-counted: 1 fault +
 * 1 + 3 + 2 populated accesses; 5 calls, 1 failed, 2 pages dropped. */
static void madvise_populate(void **state)
{
	(void)state;
	enum { M_MAPS, M_FAULT, M_ENTER, M_EXIT, M_ADD };
	struct ctf c;
	ctf_begin(&c, "madvise", "ust", "lttng-ust", "");
	ctf_event_class(&c, M_MAPS, "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;");
	ctf_event_class(&c, M_FAULT, "vmreplay_kernel:x86_exceptions_page_fault_user",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ctf_event_class(&c, M_ENTER, "vmreplay_kernel:syscall_entry_madvise",
			KCOMMON "xint64_t _start; uint64_t _len_in; int32_t _behavior;");
	ctf_event_class(&c, M_EXIT, "vmreplay_kernel:syscall_exit_madvise", KCOMMON "uint64_t _ret;");
	ctf_event_class(&c, M_ADD, "vmreplay_kernel:mm_filemap_add_to_page_cache",
			KCOMMON "xint64_t _pfn; uint64_t _i_ino; uint64_t _index; uint32_t _s_dev; uint8_t _order;");
	ev(&c, M_MAPS, 1000);
	u64(&c.ev, 1000); i32(&c.ev, 7);
	str(&c.ev, "00010000-00020000 rw-p 00000000 00:00 0\n"
		   "00040000-00044000 r--p 00000000 08:01 77 /lib/x\n");
	ev(&c, M_FAULT, 2000);                      /* page 0x10 stored */
	kcommon(&c, 2000, 7);
	u64(&c.ev, 0x10000); u64(&c.ev, 0x400000); u8(&c.ev, 0x6);
	static const struct { uint64_t ts, start, len; int32_t adv; int64_t ret; } call[] = {
		{ 3000, 0x10000, 0x3000, 22, 0 },   /* READ 0x10-0x12: only 0x10 is there */
		{ 4000, 0x10000, 0x2001, 23, 0 },   /* WRITE: rounded up to 3 pages */
		{ 5000, 0x11000, 0x1000, 23, -12 }, /* ENOMEM: nothing */
		{ 6000, 0x40000, 0x2000, 22, 0 },   /* the file's pages 0, 1 */
		{ 7000, 0x10000, 0x2000, 4, 0 },    /* DONTNEED 0x10, 0x11 */
	};
	for (size_t i = 0; i < sizeof(call) / sizeof(call[0]); i++) {
		ev(&c, M_ENTER, call[i].ts);
		kcommon(&c, call[i].ts, 7);
		u64(&c.ev, call[i].start); u64(&c.ev, call[i].len); i32(&c.ev, call[i].adv);
		if (call[i].ts == 6000) {           /* the populate reads page 0 in */
			ev(&c, M_ADD, 6050);
			kcommon(&c, 6050, 7);
			u64(&c.ev, 0x1234); u64(&c.ev, 77); u64(&c.ev, 0); u32(&c.ev, (8u << 20) | 1); u8(&c.ev, 0);
		}
		ev(&c, M_EXIT, call[i].ts + 100);
		kcommon(&c, call[i].ts + 100, 7);
		u64(&c.ev, (uint64_t)call[i].ret);
	}
	ev(&c, M_EXIT, 8000);                       /* no entry: not a call */
	kcommon(&c, 8000, 7);
	u64(&c.ev, 0);
	ctf_end(&c);
	char out[600];
	snprintf(out, sizeof(out), "%s.vmr", c.dir);
	struct vmr v;
	ingest_to(&c, out, &v);
	assert_int_equal(v.hdr->nr_accesses, 7);
	assert_string_equal(meta(&v, "demand_madvise"),
			    "5 calls (1 failed), 6 pages populated, 2 pages dropped (DONTNEED), 0 HUGEPAGE, "
			    "0 NOHUGEPAGE");
	assert_non_null(strstr(meta(&v, "demand_page_cache"), " 0 pages written"));
	vmr_close(&v);
	unlink(out);
}

/* THP faults (kdemand.c thp_fault), THP "madvise": an anonymous region
 * of 6 MiB at 0x200000 (three PMD ranges), MADV_HUGEPAGE on the first
 * two.  A write fault at 0x201000 maps the whole PMD range: its page
 * first (flagged HUGE), then the range's other 511, ids 1..511 after
 * it; a read fault at 0x400000 maps the huge zero page (one LOAD), which
 * leaves that range with a page, so the write fault at 0x401000 is one
 * page; the write at 0x600000 is outside the advice: one page.  Then
 * MADV_NOHUGEPAGE on 0x800000-0xa00000 of a second region advised
 * HUGEPAGE before (the later advice wins): one page; and NOHUGEPAGE
 * over 14 TiB far away (ASan's runtime on its shadow), longer than a
 * populate may be, is taken: it moves no page.  Hand-counted:
 * 512 + 1 + 1 + 1 + 1 = 516 accesses and pages, one THP fault. */
static void thp_faults(void **state)
{
	(void)state;
	enum { T_SESSION, T_MAPS, T_FAULT, T_ENTER, T_EXIT };
	struct ctf c;
	ctf_begin(&c, "thp", "ust", "lttng-ust", "");
	ctf_event_class(&c, T_SESSION, "vmreplay_capture:capture_session", SESSION_FIELDS);
	ctf_event_class(&c, T_MAPS, "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;");
	ctf_event_class(&c, T_FAULT, "vmreplay_kernel:x86_exceptions_page_fault_user",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ctf_event_class(&c, T_ENTER, "vmreplay_kernel:syscall_entry_madvise",
			KCOMMON "xint64_t _start; uint64_t _len_in; int32_t _behavior;");
	ctf_event_class(&c, T_EXIT, "vmreplay_kernel:syscall_exit_madvise", KCOMMON "uint64_t _ret;");
	ev(&c, T_SESSION, 500);
	u32(&c.ev, 200); str(&c.ev, "/sys/fs/cgroup/memory/x"); u32(&c.ev, 1); u64(&c.ev, 64 << 20);
	i32(&c.ev, 100); str(&c.ev, "file"); str(&c.ev, "/var/tmp/s"); u64(&c.ev, 256 << 20);
	str(&c.ev, "tracefs-bridge"); str(&c.ev, "classic"); str(&c.ev, "madvise"); u32(&c.ev, 100);
	u8(&c.ev, 0); u64(&c.ev, 0); u64(&c.ev, 0); u64(&c.ev, 0); str(&c.ev, ""); str(&c.ev, "test");
	ev(&c, T_MAPS, 1000);
	u64(&c.ev, 1000); i32(&c.ev, 200);
	str(&c.ev, "00200000-00800000 rw-p 00000000 00:00 0\n"
		   "00800000-00a00000 rw-p 00000000 00:00 0\n");
	static const struct { uint64_t ts, start, len; int32_t adv; } call[] = {
		{ 1500, 0x200000, 0x400000, 14 },
		{ 1600, 0x800000, 0x200000, 14 },
		{ 1700, 0x800000, 0x200000, 15 },
		{ 1800, 0x2008fff7000, 0xdfff0001000, 15 },    /* ASan's shadow: 14 TiB, no page moved */
	};
	for (size_t i = 0; i < sizeof(call) / sizeof(call[0]); i++) {
		ev(&c, T_ENTER, call[i].ts);
		kcommon(&c, call[i].ts, 200);
		u64(&c.ev, call[i].start); u64(&c.ev, call[i].len); i32(&c.ev, call[i].adv);
		ev(&c, T_EXIT, call[i].ts + 10);
		kcommon(&c, call[i].ts + 10, 200);
		u64(&c.ev, 0);
	}
	static const struct { uint64_t ts, addr; uint8_t ec; } fault[] = {
		{ 2000, 0x201000, 0x6 }, { 2100, 0x400000, 0x4 }, { 2200, 0x401000, 0x6 },
		{ 2300, 0x600000, 0x6 }, { 2400, 0x800000, 0x6 },
	};
	for (size_t i = 0; i < sizeof(fault) / sizeof(fault[0]); i++) {
		ev(&c, T_FAULT, fault[i].ts);
		kcommon(&c, fault[i].ts, 200);
		u64(&c.ev, fault[i].addr); u64(&c.ev, 0x400000); u8(&c.ev, fault[i].ec);
	}
	ctf_end(&c);
	char out[600];
	snprintf(out, sizeof(out), "%s.vmr", c.dir);
	struct vmr v;
	ingest_to(&c, out, &v);
	assert_int_equal(v.hdr->nr_accesses, 516);
	assert_int_equal(v.hdr->nr_pages, 516);
	assert_string_equal(meta(&v, "demand_thp_faults"),
			    "1 (anonymous write faults that map a PMD-sized folio, 512 pages each)");
	assert_non_null(strstr(meta(&v, "demand_madvise"), "2 HUGEPAGE, 2 NOHUGEPAGE"));
	/* the faulting page (0x201) first, id 0, then 0x200 (id 1) and
	 * 0x202..0x3ff (ids 2..511); the read fault's LOAD is not HUGE */
	const struct vmr_rec *r = &v.recs[v.tasks[0].first_rec];
	assert_int_equal(r[0].page, 0);
	assert_true(vmr_rec_huge(r[0]) && !vmr_rec_is_run(r[0]) && vmr_rec_op(r[0]) == VMR_OP_STORE);
	assert_int_equal(v.pages[0].index, 0x201);
	uint32_t seen = 1, i = 1;
	for (; seen < 512; i++) {
		if (vmr_rec_op(r[i]) == VMR_OP_DELAY)
			continue;
		assert_true(vmr_rec_huge(r[i]));
		assert_int_equal(r[i].page, seen);
		seen += vmr_rec_count(r[i]);
	}
	assert_int_equal(seen, 512);
	assert_int_equal(v.pages[1].index, 0x200);
	assert_int_equal(v.pages[511].index, 0x3ff);
	for (; i < v.tasks[0].nr_recs; i++)
		assert_false(vmr_rec_huge(r[i]));
	vmr_close(&v);
	unlink(out);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", c.dir);
	assert_int_equal(system(cmd), 0);
}

/* A madvise longer than any range may be: the field named. */
static void hostile_madvise(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "madvlen", "ust", "lttng-ust", "");
	ctf_event_class(&c, 0, "vmreplay_kernel:syscall_entry_madvise",
			KCOMMON "xint64_t _start; uint64_t _len_in; int32_t _behavior;");
	ev(&c, 0, 1000);
	kcommon(&c, 1000, 7);
	u64(&c.ev, 0x10000); u64(&c.ev, 1ull << 50); i32(&c.ev, 23);
	ctf_end(&c);
	refused(&c, "event syscall_entry_madvise: field len_in:");
	/* THP advice of any length, but not past the user address space */
	ctf_begin(&c, "madvend", "ust", "lttng-ust", "");
	ctf_event_class(&c, 0, "vmreplay_kernel:syscall_entry_madvise",
			KCOMMON "xint64_t _start; uint64_t _len_in; int32_t _behavior;");
	ev(&c, 0, 1000);
	kcommon(&c, 1000, 7);
	u64(&c.ev, 1ull << 56); u64(&c.ev, 1ull << 57); i32(&c.ev, 14);
	ctf_end(&c);
	refused(&c, "event syscall_entry_madvise: field len_in:");
}

/* A mapping made after the last snapshot (ld.so mapping a library right
 * after the exec was snapshotted) is in the next one: a fault inside it
 * is a fault of that mapping, here a file page, not anonymous memory. */
static void later_maps(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "latermaps", "ust", "lttng-ust", "");
	ctf_event_class(&c, 0, "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;");
	ctf_event_class(&c, 1, "vmreplay_kernel:x86_exceptions_page_fault_user",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ev(&c, 0, 1000);
	u64(&c.ev, 1000); i32(&c.ev, 7); str(&c.ev, "00010000-00020000 rw-p 00000000 00:00 0\n");
	ev(&c, 1, 2000);                            /* a read fault at 0x50000 */
	kcommon(&c, 2000, 7);
	u64(&c.ev, 0x50000); u64(&c.ev, 0x400000); u8(&c.ev, 0x4);
	ev(&c, 0, 3000);
	u64(&c.ev, 3000); i32(&c.ev, 7);
	str(&c.ev, "00010000-00020000 rw-p 00000000 00:00 0\n"
		   "00050000-00054000 r-xp 00000000 08:01 77 /lib/x\n");
	faults_ingested(&c, 1, "1 (0 anon incl. 0 copy-on-write and 0 outside any known mapping, 1 file)",
			NULL, NULL);
}

/* A kernel-mode fault (no USER bit) on a user page is the task's access
 * (a user copy): a store for the write bit; one on a kernel address is
 * no page of the workload's. */
static void kernel_mode_faults(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "kfault", "ust", "lttng-ust", "");
	ctf_event_class(&c, 0, "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;");
	ctf_event_class(&c, 1, "vmreplay_kernel:x86_exceptions_page_fault_kernel",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ev(&c, 0, 1000);
	u64(&c.ev, 1000); i32(&c.ev, 7); str(&c.ev, "00010000-00020000 rw-p 00000000 00:00 0\n");
	ev(&c, 1, 2000);                            /* copy_to_user into 0x10000: a store */
	kcommon(&c, 2000, 7);
	u64(&c.ev, 0x10000); u64(&c.ev, 0xffffffff81000000ull); u8(&c.ev, 0x2);
	ev(&c, 1, 2100);                            /* copy_from_user of 0x11000: a load */
	kcommon(&c, 2100, 7);
	u64(&c.ev, 0x11000); u64(&c.ev, 0xffffffff81000000ull); u8(&c.ev, 0x0);
	ev(&c, 1, 2200);                            /* a kernel address: none of the workload's */
	kcommon(&c, 2200, 7);
	u64(&c.ev, 0xffff888000001000ull); u64(&c.ev, 0xffffffff81000000ull); u8(&c.ev, 0x0);
	faults_ingested(&c, 2, "2 (2 anon incl. 0 copy-on-write and 0 outside any known mapping, 0 file)",
			"demand_faults_kernel_mode", "2 (user copies: the kernel touching a user page)");
}

/* The accessed-bit sampler's observations (vmreplay_capture:pte_young):
 * each a LOAD of a page the trace has resident, resolved as a fault there
 * would be, and no fault, placed back from its poll by the hash of its
 * page and poll modulo the poll period (kdemand.c's place_young).
 * Process 7 faults anonymous pages 0x10 (a store) and 0x11 and file page
 * 1 of /lib/x through its private mapping at 0x50000.  The polls (every
 * 100 ms) see 0x10000 at 200 and 300 ms (two LOADs of page 0x10),
 * 0x12000 (never faulted: no page invented) and 0x51000 (no anonymous
 * copy: the file page): 4 observations, 3 pages referenced, 1 the trace
 * never had; 3 faults + 3 LOADs = 6 accesses.  The hashes (splitmix64's
 * finalizer of addr * 0x9E3779B97F4A7C15 ^ kts * 0xC2B2AE3D27D4EB4F ^
 * pid, computed by hand) move 0x10000 at 200 ms back 607,753 ns, 0x51000
 * at 200 ms 19,416,615 ns and 0x10000 at 300 ms 92,942,205 ns: the file
 * page's LOAD comes first.  The observation at 300 ms found the PTE
 * dirty: written, a STORE. */
static void pte_young_observations(void **state)
{
	(void)state;
	enum { M, F, Y, YS };
	struct ctf c;
	ctf_begin(&c, "young", "ust", "lttng-ust", "");
	ctf_event_class(&c, M, "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;");
	ctf_event_class(&c, F, "vmreplay_kernel:x86_exceptions_page_fault_user",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ctf_event_class(&c, Y, "vmreplay_capture:pte_young",
			"uint64_t _kts; int32_t _pid; xint64_t _addr; uint32_t _len; uint8_t _dirty;");
	ctf_event_class(&c, YS, "vmreplay_capture:pte_young_sampler",
			"uint32_t _period_ms; uint64_t _polls; uint64_t _observed; uint64_t _lost; "
			"uint64_t _resets; uint64_t _regions; uint64_t _full; uint64_t _poll_ns; string _note;");
	ev(&c, M, 1000);
	u64(&c.ev, 1000); i32(&c.ev, 7);
	str(&c.ev, "00010000-00020000 rw-p 00000000 00:00 0\n"
		   "00050000-00054000 r--p 00000000 08:01 77 /lib/x\n");
	static const struct { uint64_t ts, addr; uint8_t ec; } faults[] = {
		{ 2000, 0x10000, 0x6 }, { 2100, 0x11000, 0x4 }, { 2200, 0x51000, 0x4 },
	};
	for (int i = 0; i < 3; i++) {
		ev(&c, F, faults[i].ts);
		kcommon(&c, faults[i].ts, 7);
		u64(&c.ev, faults[i].addr); u64(&c.ev, 0x400000); u8(&c.ev, faults[i].ec);
	}
	static const struct { uint64_t ts, addr; uint8_t dirty; } young[] = {
		{ 200000000, 0x10000, 0 }, { 200000000, 0x12000, 0 }, { 200000000, 0x51000, 0 },
		{ 300000000, 0x10000, 1 },
	};
	for (int i = 0; i < 4; i++) {
		ev(&c, Y, young[i].ts + 50);            /* re-emitted a little later */
		u64(&c.ev, young[i].ts); i32(&c.ev, 7); u64(&c.ev, young[i].addr); u32(&c.ev, 4096);
		u8(&c.ev, young[i].dirty);
	}
	ev(&c, YS, 400000000);
	u32(&c.ev, 100); u64(&c.ev, 2); u64(&c.ev, 4); u64(&c.ev, 0); u64(&c.ev, 0);
	u64(&c.ev, 1); u64(&c.ev, 0); u64(&c.ev, 1000); str(&c.ev, "on: test");
	ctf_end(&c);
	char out[600];
	snprintf(out, sizeof(out), "%s.vmr", c.dir);
	struct vmr v;
	ingest_to(&c, out, &v);
	assert_string_equal(meta(&v, "demand_faults"),
			    "3 (2 anon incl. 0 copy-on-write and 0 outside any known mapping, 1 file)");
	assert_string_equal(meta(&v, "demand_pte_young"),
			    "4 observations, 3 resident pages referenced, 1 pages the trace never had; "
			    "poll every 100 ms, 2 polls, 0 lost, 0 resets; sampler on: test");
	assert_int_equal(v.hdr->nr_accesses, 6);
	assert_int_equal(v.hdr->nr_pages, 3);
	/* the stream: STORE 0x10, LOAD 0x11, LOAD file 1 (the faults), then
	 * the polls' LOADs of file 1 and 0x10 and the STORE of 0x10, at their
	 * placed times */
	static const struct { unsigned op; int file, same_as; uint64_t ts; } want[] = {
		{ VMR_OP_STORE, 0, -1, 2000 }, { VMR_OP_LOAD, 0, -1, 2100 }, { VMR_OP_LOAD, 1, -1, 2200 },
		{ VMR_OP_LOAD, 1, 2, 200000000 - 19416615 }, { VMR_OP_LOAD, 0, 0, 200000000 - 607753 },
		{ VMR_OP_STORE, 0, 0, 300000000 - 92942205 },
	};
	const struct vmr_task *t = &v.tasks[0];
	uint32_t pg[6];
	unsigned n = 0;
	uint64_t ts = t->begin_ns;
	for (uint64_t i = 0; i < t->nr_recs; i++) {
		struct vmr_rec r = v.recs[t->first_rec + i];
		ts += vmr_rec_delta(r);
		if (vmr_rec_op(r) == VMR_OP_DELAY)
			continue;
		assert_true(n < 6);
		assert_int_equal(vmr_rec_op(r), want[n].op);
		assert_int_equal(vmr_rec_is_file(r), want[n].file);
		if (want[n].same_as >= 0)
			assert_int_equal(r.page, pg[want[n].same_as]);
		if (ts != want[n].ts)
			fail_msg("record %u at %llu, want %llu", n, (unsigned long long)ts,
				 (unsigned long long)want[n].ts);
		pg[n++] = r.page;
	}
	assert_int_equal(n, 6);
	vmr_close(&v);
	unlink(out);
}

/* A forked process that never exec'd and has no snapshot of its own has
 * its parent's mappings (dup_mmap): a worker's read fault in the parent's
 * file mapping is a file page, down a chain of forks too. */
static void fork_maps(void **state)
{
	(void)state;
	struct ctf c;
	ctf_begin(&c, "forkmaps", "ust", "lttng-ust", "");
	ctf_event_class(&c, 0, "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;");
	ctf_event_class(&c, 1, "vmreplay_kernel:x86_exceptions_page_fault_user",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ctf_event_class(&c, 2, "vmreplay_kernel:sched_process_fork",
			KCOMMON "string _parent_comm; int32_t _parent_tid; int32_t _parent_pid; "
			"string _child_comm; int32_t _child_tid; int32_t _child_pid;");
	ev(&c, 0, 1000);
	u64(&c.ev, 1000); i32(&c.ev, 7);
	str(&c.ev, "00050000-00054000 r-xp 00000000 08:01 77 /lib/x\n");
	for (int i = 0; i < 2; i++) {              /* 7 forks 8, 8 forks 9 */
		ev(&c, 2, 1500 + 1000 * (uint64_t)i);
		kcommon(&c, 1500 + 1000 * (uint64_t)i, 7 + i);
		str(&c.ev, "w"); i32(&c.ev, 7 + i); i32(&c.ev, 7 + i);
		str(&c.ev, "w"); i32(&c.ev, 8 + i); i32(&c.ev, 8 + i);
		ev(&c, 1, 2000 + 1000 * (uint64_t)i);   /* the child's read fault */
		kcommon(&c, 2000 + 1000 * (uint64_t)i, 8 + i);
		u64(&c.ev, 0x51000); u64(&c.ev, 0x400000); u8(&c.ev, 0x4);
	}
	faults_ingested(&c, 2, "2 (0 anon incl. 0 copy-on-write and 0 outside any known mapping, 2 file)",
			NULL, NULL);
}

/* A write fault in a private file mapping is a copy-on-write: the new
 * page is anonymous, and the file folio it copies, with its read-ahead,
 * is read into the page cache first (do_cow_fault -> __do_fault ->
 * filemap_fault) and left there clean and unreferenced.  So the two
 * pages of ino 78 inserted after the fault are the fault's read-ahead,
 * not a buffered write's new pages; the same after a kernel-mode write
 * (a user copy, bit 2 clear: the ELF loader clearing a data page's
 * tail). */
static void cow_fault_read_in(void **state)
{
	(void)state;
	for (int user = 0; user < 2; user++) {
		struct ctf c;
		ctf_begin(&c, "cowread", "ust", "lttng-ust", "");
		ctf_event_class(&c, 0, "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;");
		ctf_event_class(&c, 1, user ? "vmreplay_kernel:x86_exceptions_page_fault_user"
					    : "vmreplay_kernel:x86_exceptions_page_fault_kernel",
				KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
		ctf_event_class(&c, 2, "vmreplay_kernel:mm_filemap_add_to_page_cache",
				KCOMMON "xint64_t _pfn; uint64_t _i_ino; uint64_t _index; uint32_t _s_dev; uint8_t _order;");
		ev(&c, 0, 1000);
		u64(&c.ev, 1000); i32(&c.ev, 7);
		str(&c.ev, "00010000-00020000 rw-p 00000000 00:00 0\n"
			   "00060000-00064000 rw-p 00000000 08:01 78 /lib/y\n");
		ev(&c, 1, 2000);                        /* a write to the data page at 0x60000 */
		kcommon(&c, 2000, 7);
		u64(&c.ev, 0x60000); u64(&c.ev, 0x400000); u8(&c.ev, user ? 0x6 : 0x2);
		for (uint64_t i = 0; i < 2; i++) {      /* its file page and the next, read in */
			ev(&c, 2, 2100 + i);
			kcommon(&c, 2100 + i, 7);
			u64(&c.ev, 0x1234 + i); u64(&c.ev, 78); u64(&c.ev, i); u32(&c.ev, 0x800001); u8(&c.ev, 0);
		}
		ev(&c, 1, 3000);                        /* the next demand: a heap store */
		kcommon(&c, 3000, 7);
		u64(&c.ev, 0x10000); u64(&c.ev, 0x400000); u8(&c.ev, user ? 0x6 : 0x2);
		faults_ingested(&c, 2, "2 (2 anon incl. 1 copy-on-write and 0 outside any known mapping, 0 file)",
				"demand_page_cache", "0 pages read (0 get_pages of a read already counted), 0 pages "
				"written, 0 freed, 2 read-ahead (inserted, not referenced), 0 evicted by reclaim, 0 "
				"file pages found cached (charged outside the session)");
	}
}

/* execve's ELF loader writes the new image before sched_process_exec
 * (padzero clears the data segment's tail: a kernel-mode write fault) in
 * a mapping only the new image's snapshot has; the old image's snapshot
 * maps another file (ino 77) at that address.  The fault is the new
 * image's copy-on-write, and the two pages of ino 78 inserted after it
 * are its read-ahead, not write()s; the store after the exec is the new
 * image's heap. */
static void exec_loader_read_in(void **state)
{
	(void)state;
	enum { M, KF, A, X, UF };
	struct ctf c;
	ctf_begin(&c, "execload", "ust", "lttng-ust", "");
	ctf_event_class(&c, M, "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;");
	ctf_event_class(&c, KF, "vmreplay_kernel:x86_exceptions_page_fault_kernel",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ctf_event_class(&c, A, "vmreplay_kernel:mm_filemap_add_to_page_cache",
			KCOMMON "xint64_t _pfn; uint64_t _i_ino; uint64_t _index; uint32_t _s_dev; uint8_t _order;");
	ctf_event_class(&c, X, "vmreplay_kernel:sched_process_exec",
			KCOMMON "string _filename; int32_t _tid; int32_t _old_tid;");
	ctf_event_class(&c, UF, "vmreplay_kernel:x86_exceptions_page_fault_user",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ev(&c, M, 1000);
	u64(&c.ev, 1000); i32(&c.ev, 7);
	str(&c.ev, "00010000-00020000 rw-p 00000000 00:00 0\n"
		   "00060000-00064000 rw-p 00000000 08:01 77 /bin/old\n");
	ev(&c, KF, 2000);                           /* padzero in the new image */
	kcommon(&c, 2000, 7);
	u64(&c.ev, 0x60000); u64(&c.ev, 0x400000); u8(&c.ev, 0x2);
	for (uint64_t i = 0; i < 2; i++) {          /* its file page and the next, read in */
		ev(&c, A, 2100 + i);
		kcommon(&c, 2100 + i, 7);
		u64(&c.ev, 0x1234 + i); u64(&c.ev, 78); u64(&c.ev, i); u32(&c.ev, 0x800001); u8(&c.ev, 0);
	}
	ev(&c, X, 2500);
	kcommon(&c, 2500, 7);
	str(&c.ev, "/bin/new"); i32(&c.ev, 7); i32(&c.ev, 7);
	ev(&c, M, 3000);
	u64(&c.ev, 3000); i32(&c.ev, 7);
	str(&c.ev, "00010000-00020000 rw-p 00000000 00:00 0\n"
		   "00060000-00064000 rw-p 00000000 08:01 78 /bin/new\n");
	ev(&c, UF, 3500);                           /* the new image's heap store */
	kcommon(&c, 3500, 7);
	u64(&c.ev, 0x10000); u64(&c.ev, 0x400000); u8(&c.ev, 0x6);
	faults_ingested(&c, 2, "2 (2 anon incl. 1 copy-on-write and 0 outside any known mapping, 0 file)",
			"demand_page_cache", "0 pages read (0 get_pages of a read already counted), 0 pages "
			"written, 0 freed, 2 read-ahead (inserted, not referenced), 0 evicted by reclaim, 0 "
			"file pages found cached (charged outside the session)");
}

/* The memcg statistics' flushes (capture_session.stats_flush names the
 * tracepoint): a memcg_flush_stats that flushed (force: the periodic
 * flusher's of the root, id 1; needs_flush: a reader's of the session's
 * cgroup) is a KEVENTS stats_flush, one that did not flush is nothing;
 * so is a flush the workload made (reclaim's own: the replay makes
 * them), and a cgroup_rstat_locked is one where it is first taken (cpu
 * -1: level 0 the root), not where a flush takes it again. */
static void stats_flushes(void **state)
{
	(void)state;
	enum { S, F, MF, RL };
	struct ctf c;
	ctf_begin(&c, "flush", "ust", "lttng-ust", "");
	ctf_event_class(&c, S, "vmreplay_capture:capture_session",
			SESSION_FIELDS "string _stats_flush;");
	ctf_event_class(&c, F, "vmreplay_kernel:x86_exceptions_page_fault_user",
			KCOMMON "xint64_t _address; xint64_t _ip; uint8_t _error_code;");
	ctf_event_class(&c, MF, "vmreplay_kernel:memcg_flush_stats",
			KCOMMON "uint64_t _id; uint64_t _stats_updates; uint8_t _force; uint8_t _needs_flush;");
	ctf_event_class(&c, RL, "vmreplay_kernel:cgroup_rstat_locked",
			KCOMMON "int32_t _root; int32_t _level; uint64_t _id; int32_t _cpu; uint8_t _contended;");
	ev(&c, S, 500);
	u32(&c.ev, 200); str(&c.ev, "/sys/fs/cgroup/memory/x"); u32(&c.ev, 1); u64(&c.ev, 64 << 20);
	i32(&c.ev, 100); str(&c.ev, "file"); str(&c.ev, "/var/tmp/s"); u64(&c.ev, 256 << 20);
	str(&c.ev, "tracefs-bridge"); str(&c.ev, "classic"); str(&c.ev, "madvise"); u32(&c.ev, 100);
	u8(&c.ev, 0); u64(&c.ev, 0); u64(&c.ev, 0); u64(&c.ev, 0); str(&c.ev, ""); str(&c.ev, "test");
	str(&c.ev, "memcg:memcg_flush_stats");
	ev(&c, F, 900);                              /* the workload (root 200) stores */
	kcommon(&c, 900, 200);
	u64(&c.ev, 0x1000000); u64(&c.ev, 0x400000); u8(&c.ev, 0x6);
	const struct { uint64_t kts; int tid; uint64_t id; uint8_t force, needs; } mf[] = {
		{ 1000, 50, 1, 1, 1 },               /* the periodic flusher: kept, whole */
		{ 1100, 51, 4391, 0, 0 },            /* a reader, nothing pending: no flush */
		{ 1200, 51, 4391, 0, 1 },            /* a reader's flush of the session: kept */
		{ 1300, 200, 4391, 0, 1 },           /* the workload's own: the replay's */
	};
	for (size_t i = 0; i < sizeof(mf) / sizeof(mf[0]); i++) {
		ev(&c, MF, mf[i].kts);
		kcommon(&c, mf[i].kts, mf[i].tid);
		u64(&c.ev, mf[i].id); u64(&c.ev, 300); u8(&c.ev, mf[i].force); u8(&c.ev, mf[i].needs);
	}
	for (int cpu = -1; cpu <= 0; cpu++) {        /* a flush of the root, re-locked after CPU 0 */
		ev(&c, RL, 1400 + 10 * (uint64_t)(cpu + 1));
		kcommon(&c, 1400 + 10 * (uint64_t)(cpu + 1), 50);
		i32(&c.ev, 0); i32(&c.ev, 0); u64(&c.ev, 1); i32(&c.ev, cpu); u8(&c.ev, 0);
	}
	ctf_end(&c);
	char out[256];
	snprintf(out, sizeof(out), "%s.vmr", c.dir);
	struct vmr v;
	ingest_to(&c, out, &v);
	const struct { uint64_t ts, id, whole; } want[] = { { 1000, 1, 1 }, { 1200, 4391, 0 }, { 1400, 1, 1 } };
	size_t n = 0;
	for (uint64_t i = 0; i < v.nr_kev; i++) {
		if (v.kev[i].type != VMR_KEV_STATS_FLUSH)
			continue;
		assert_true(n < 3);
		assert_int_equal(v.kev[i].ts_ns, want[n].ts);
		assert_int_equal(v.kev[i].f[0], want[n].id);
		assert_int_equal(v.kev[i].f[1], want[n].whole);
		n++;
	}
	assert_int_equal(n, 3);
	assert_string_equal(meta(&v, "stats_flush_event"), "memcg:memcg_flush_stats");
	assert_string_equal(meta(&v, "stats_flushes"), "3");
	assert_string_equal(meta(&v, "kernel_events_not_of_the_workload"), "");
	vmr_close(&v);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", c.dir, out);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernel_domain),
		cmocka_unit_test(reclaim_stalls),
		cmocka_unit_test(kernel_missing_field),
		cmocka_unit_test(bridged),
		cmocka_unit_test(sync_read_time),
		cmocka_unit_test(stats_flushes),
		cmocka_unit_test(hostile_page_size),
		cmocka_unit_test(hostile_cgroup),
		cmocka_unit_test(hostile_length),
		cmocka_unit_test(hostile_kts),
		cmocka_unit_test(many_forks),
		cmocka_unit_test(decoder_abort),
		cmocka_unit_test(hostile_ranges),
		cmocka_unit_test(empty_maps),
		cmocka_unit_test(later_maps),
		cmocka_unit_test(fork_maps),
		cmocka_unit_test(exec_loader_read_in),
		cmocka_unit_test(cow_fault_read_in),
		cmocka_unit_test(kernel_mode_faults),
		cmocka_unit_test(pte_young_observations),
		cmocka_unit_test(madvise_populate),
		cmocka_unit_test(thp_faults),
		cmocka_unit_test(hostile_madvise),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
