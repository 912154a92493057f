/*
 * fuzz_kevents.c — kernel-event decoding (replay/ingest/kevents.c,
 * kmaps.c, kdemand.c) from a synthetic event stream.
 *
 * The input is not the CTF bytes (random bytes stop in the decoder's own
 * framing) but a program: each event is a class number, a time step and
 * the payload's values, written here as a well-formed CTF 1.8 trace of
 * the capture agent's vocabulary (vmreplay_kernel:*, vmreplay_capture:*:
 * faults, page-cache events, reclaim, the process tree, DAMON, maps and
 * memory.stat text).  ingest_decode then takes it the way a capture's
 * trace is taken, and must refuse it with a reason or write a .vmr that
 * vmr_open accepts.
 */
#include "fuzz.h"
#include "ingest/ingest.h"
#include "ingest/sink.h"
#include "vmr/vmr.h"

#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KCOMMON "uint64_t _kts; uint32_t _kcpu; int32_t _ktid; int32_t _kpid; "

/* Field kinds of a payload: 4/8-byte integers and strings. */
static const struct {
	const char *name, *fields, *kinds;   /* kinds: w = u32, q = u64, s = string */
} classes[] = {
	{ "vmreplay_capture:capture_session",
	  "uint32_t _root_pid; string _cgroup; uint32_t _cgroup_version; uint64_t _memory_limit; "
	  "int32_t _swappiness; string _swap_kind; string _swap_device; uint64_t _swap_size; "
	  "string _kernel_source; string _lru_kind; string _thp; uint32_t _period_ms; "
	  "uint32_t _damon; uint64_t _damon_sample_us; uint64_t _damon_aggr_us; "
	  "uint64_t _damon_update_us; string _damon_note; string _filter;",
	  "wswqwssqssswwqqqss" },
	{ "vmreplay_capture:proc_maps", "uint64_t _kts; int32_t _pid; string _maps;", "qws" },
	{ "vmreplay_capture:memcg_stat", "uint64_t _kts; string _stat;", "qs" },
	{ "vmreplay_capture:task_comm", "uint64_t _kts; int32_t _tid; int32_t _pid; string _comm;", "qwws" },
	{ "vmreplay_capture:damon_target", "uint64_t _kts; uint32_t _target_id; int32_t _pid;", "qww" },
	{ "vmreplay_capture:capture_end",
	  "uint64_t _ftrace_lost; uint64_t _bridged; int32_t _workload_status; uint64_t _elapsed_ns;", "qqwq" },
	{ "vmreplay_kernel:x86_exceptions_page_fault_user",
	  KCOMMON "uint64_t _address; uint64_t _ip; uint32_t _error_code;", "qwwwqqw" },
	{ "vmreplay_kernel:mm_filemap_add_to_page_cache",
	  KCOMMON "uint64_t _pfn; uint64_t _i_ino; uint64_t _index; uint32_t _s_dev; uint32_t _order;", "qwwwqqqww" },
	{ "vmreplay_kernel:mm_filemap_delete_from_page_cache",
	  KCOMMON "uint64_t _pfn; uint64_t _i_ino; uint64_t _index; uint32_t _s_dev; uint32_t _order;", "qwwwqqqww" },
	{ "vmreplay_kernel:mm_filemap_get_pages",
	  KCOMMON "uint64_t _i_ino; uint32_t _s_dev; uint64_t _index; uint64_t _last_index;", "qwwwqwqq" },
	{ "vmreplay_kernel:mm_vmscan_memcg_reclaim_begin", KCOMMON "int32_t _order; uint64_t _gfp_flags;", "qwwwwq" },
	{ "vmreplay_kernel:mm_vmscan_memcg_reclaim_end", KCOMMON "uint64_t _nr_reclaimed;", "qwwwq" },
	{ "vmreplay_kernel:mm_vmscan_kswapd_wake", KCOMMON "int32_t _nid; int32_t _zid; int32_t _order;", "qwwwwww" },
	{ "vmreplay_kernel:sched_process_fork",
	  KCOMMON "int32_t _parent_tid; int32_t _parent_pid; int32_t _child_tid; int32_t _child_pid; "
	  "string _child_comm;", "qwwwwwwws" },
	{ "vmreplay_kernel:sched_process_exec", KCOMMON "string _filename; int32_t _tid; int32_t _old_tid;", "qwwwsww" },
	{ "vmreplay_kernel:sched_process_exit", KCOMMON "string _comm; int32_t _tid; int32_t _prio;", "qwwwsww" },
	{ "vmreplay_kernel:damon_aggregated",
	  KCOMMON "uint64_t _target_id; uint32_t _nr_regions; uint64_t _start; uint64_t _end; "
	  "uint32_t _nr_accesses; uint32_t _age;", "qwwwqwqqww" },
};
enum { NR_CLASSES = sizeof(classes) / sizeof(classes[0]) };

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (!n)
		return;
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 4096;
		if (!(b->p = realloc(b->p, b->cap)))
			abort();
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

/* A value of the payload: small numbers, near-limit ones and the rest,
 * so that ranges, pids and times meet. */
static uint64_t value(struct fuzz_in *in, int wide)
{
	uint8_t how = (uint8_t)fuzz_take(in, 1);
	switch (how & 3) {
	case 0: return fuzz_take(in, 1);
	case 1: return 100 + fuzz_take(in, 1) % 8;           /* a few tids/pids */
	case 2: return (fuzz_take(in, 2) << 12) | 0x400000;  /* page-aligned addresses */
	default: return wide ? fuzz_take(in, 8) : fuzz_take(in, 4);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[256];
	snprintf(dir, sizeof(dir), "%s", fuzz_path("ctf"));
	mkdir(dir, 0700);
	struct buf meta = { 0 }, ev = { 0 };
	static const char head[] =
		"/* CTF 1.8 */\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		"trace { major = 1; minor = 8; byte_order = le;\n"
		"  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
		"env { domain = \"ust\"; tracer_name = \"lttng-ust\"; hostname = \"fuzz\"; };\n"
		"clock { name = \"monotonic\"; freq = 1000000000; offset = 0; };\n"
		"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clk_t;\n"
		"stream { id = 0;\n"
		"  event.header := struct { uint32_t id; clk_t timestamp; };\n"
		"  packet.context := struct { clk_t timestamp_begin; clk_t timestamp_end;\n"
		"    uint64_t content_size; uint64_t packet_size; uint64_t events_discarded; uint32_t cpu_id; };\n"
		"};\n";
	put(&meta, head, strlen(head));
	for (int i = 0; i < NR_CLASSES; i++) {
		char e[1024];
		int n = snprintf(e, sizeof(e), "event { name = \"%s\"; id = %d; stream_id = 0;\n"
				 "  fields := struct { %s };\n};\n", classes[i].name, i, classes[i].fields);
		put(&meta, e, (size_t)n);
	}
	struct fuzz_in in = { data, size };
	uint64_t ts = 1000, first = 0, last = 0;
	for (int nev = 0; in.n && nev < 4096; nev++) {
		uint32_t id = (uint32_t)(fuzz_take(&in, 1) % NR_CLASSES);
		ts += fuzz_take(&in, 2);
		if (!first)
			first = ts;
		last = ts;
		put(&ev, &id, 4);
		put(&ev, &ts, 8);
		for (const char *k = classes[id].kinds; *k; k++) {
			if (*k == 's') {
				size_t len = fuzz_take(&in, 1) % 96;
				len = len < in.n ? len : in.n;
				for (size_t j = 0; j < len; j++) {
					char c = (char)in.p[j];
					put(&ev, c ? &c : " ", 1);   /* a string ends at its NUL */
				}
				in.p += len;
				in.n -= len;
				put(&ev, "", 1);
			} else if (*k == 'w') {
				uint32_t v = (uint32_t)value(&in, 0);
				put(&ev, &v, 4);
			} else {
				uint64_t v = value(&in, 1);
				put(&ev, &v, 8);
			}
		}
	}
	char path[512];
	snprintf(path, sizeof(path), "%s/metadata", dir);
	fuzz_write(path, meta.p, meta.n);
	struct buf pk = { 0 };
	uint64_t bits = (8 + 44 + ev.n) * 8, zero = 0;
	uint32_t magic = 0xC1FC1FC1, sid = 0;
	put(&pk, &magic, 4);
	put(&pk, &sid, 4);
	put(&pk, &first, 8);
	put(&pk, &last, 8);
	put(&pk, &bits, 8);
	put(&pk, &bits, 8);
	put(&pk, &zero, 8);
	put(&pk, &sid, 4);
	put(&pk, ev.p, ev.n);
	snprintf(path, sizeof(path), "%s/channel0_0", dir);
	fuzz_write(path, pk.p, pk.n);
	free(meta.p);
	free(ev.p);
	free(pk.p);

	const char *out = fuzz_path("kev.vmr");
	uint8_t hash[16] = { 0 };
	struct ingest_report rep;
	char err[2048];
	memset(&rep, 0, sizeof(rep));
	if (ingest_decode(dir, hash, out, 0, 1, &rep, err, sizeof(err)) == 0) {
		struct vmr v;
		if (vmr_open(&v, out, err, sizeof(err)) != 0) {
			fprintf(stderr, "ingest wrote a .vmr that vmr_open refuses: %s\n", err);
			abort();
		}
		vmr_close(&v);
		unlink(out);
	}
	return 0;
}
