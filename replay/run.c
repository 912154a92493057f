/* run.c — a kernel-policy replay's machine, from the user and the capture (run.h). */
#include "run.h"
#include "cli.h"
#include "mm/mm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t meta_u64(const struct vmr *v, const char *key, uint64_t def)
{
	char buf[64];
	if (!vmr_meta_get(v, key, buf, sizeof(buf)) || !buf[0])
		return def;
	return strtoull(buf, NULL, 10);
}

/* ",read=N,write=N,rotational=B,ra_base=N,ra_page=N" (each where known)
 * for a device the capture measured (PREFIX_read_ns, PREFIX_write_ns:
 * the median request latencies of capture/blk_latency.h;
 * PREFIX_rotational; PREFIX_ra_base_ns, PREFIX_ra_page_ns: ingest's line
 * through the synchronous read-ahead windows' read times), or "".  A
 * direction the session made no request in keeps the preset's. */
static void measured(const struct vmr *v, const char *prefix, char *out, size_t len)
{
	/* what backing_parse takes: a latency 1 ns to 10 s, a window's time
	 * a page from 0, a flag 0 or 1 */
	static const struct {
		const char *key, *spec;
		uint64_t min, max;
	} m[] = {
		{ "read_ns", "read", 1, 10 * NSEC_PER_SEC },
		{ "write_ns", "write", 1, 10 * NSEC_PER_SEC },
		{ "rotational", "rotational", 0, 1 },
		{ "ra_base_ns", "ra_base", 1, 10 * NSEC_PER_SEC },
		{ "ra_page_ns", "ra_page", 0, 10 * NSEC_PER_SEC },
	};
	size_t off = 0;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]) && off < len; i++) {
		char key[64];
		snprintf(key, sizeof(key), "%s_%s", prefix, m[i].key);
		uint64_t x = meta_u64(v, key, UINT64_MAX);
		if (x >= m[i].min && x <= m[i].max)
			off += (size_t)snprintf(out + off, len - off, ",%s=%llu", m[i].spec,
						(unsigned long long)x);
	}
}

void run_capture_swap(const struct vmr *v, char *spec, size_t len)
{
	char kind[32], extra[128], sz[32];
	uint64_t size = meta_u64(v, "swap_size", 0);
	spec[0] = '\0';
	if (!vmr_meta_get(v, "swap_kind", kind, sizeof(kind)) || !size)
		return;
	measured(v, "swap", extra, sizeof(extra));
	/* In MiB where it is whole MiB: compare shows the spec too. */
	if (size % (1ull << 20) == 0)
		snprintf(sz, sizeof(sz), "%lluM", (unsigned long long)(size >> 20));
	else
		snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
	if (strcmp(kind, "zram") == 0)
		snprintf(spec, len, "zram,size=%s%s", sz, extra);
	else if (strcmp(kind, "file") == 0 || strcmp(kind, "device") == 0)
		snprintf(spec, len, "ssd,size=%s%s", sz, extra);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The pages the session cgroup had charged but on no LRU list (kernel
 * memory — page tables, kernel stacks, slab objects, all __GFP_ACCOUNT —
 * the per-CPU charge stock, isolated and batched pages): the median over
 * the memory.stat snapshots made while the workload ran (from its first
 * task's begin to its last task's end) of usage minus the LRU sizes.  The
 * capture also takes one before the workload starts and one after it
 * ended, which hold the charge stock and no kernel memory of the workload
 * (the test bed's compile-sw1-1: 62 pages before, 169 mid-run, 52 after;
 * the median of all three was 62).  All snapshots when none was made
 * meanwhile; 0 for a trace without them. */
uint64_t run_nonlru_pages(const struct vmr *v, uint64_t page_size)
{
	static const char *const lru[] = { "inactive_anon", "active_anon", "inactive_file",
					   "active_file", "unevictable" };
	int idx[6] = { -1, -1, -1, -1, -1, -1 };
	for (int i = 0; i < VMR_NR_MEMCG; i++) {
		if (strcmp(vmr_memcg_names[i], "usage") == 0)
			idx[5] = i;
		for (int k = 0; k < 5; k++)
			if (strcmp(vmr_memcg_names[i], lru[k]) == 0)
				idx[k] = i;
	}
	uint64_t begin = UINT64_MAX, end = 0, during = 0;
	for (uint64_t t = 0; t < v->hdr->nr_tasks; t++) {
		if (v->tasks[t].begin_ns < begin)
			begin = v->tasks[t].begin_ns;
		if (v->tasks[t].end_ns > end)
			end = v->tasks[t].end_ns;
	}
	for (uint64_t s = 0; s < v->nr_memcg; s++)
		during += v->memcg[s].ts_ns >= begin && v->memcg[s].ts_ns <= end;
	uint64_t *d = malloc((v->nr_memcg ? v->nr_memcg : 1) * sizeof(*d));
	uint64_t n = 0, res = 0;
	for (uint64_t s = 0; d && s < v->nr_memcg; s++) {
		const uint64_t *x = v->memcg[s].v;
		uint64_t sum = 0;
		int ok = 1;
		if (during && (v->memcg[s].ts_ns < begin || v->memcg[s].ts_ns > end))
			continue;
		for (int k = 0; k < 6 && ok; k++)
			ok = idx[k] >= 0 && x[idx[k]] != VMR_ABSENT;
		for (int k = 0; k < 5 && ok; k++)
			sum += x[idx[k]];
		if (ok && x[idx[5]] >= sum)
			d[n++] = (x[idx[5]] - sum) / page_size;
	}
	if (n) {
		qsort(d, n, sizeof(*d), cmp_u64);
		res = d[n / 2];
	}
	free(d);
	return res;
}

int run_setup(const struct vmr *v, const struct run_request *r, struct engine_params *p,
	      char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->policy = r->policy;
	p->seed = r->seed;
	p->deadline = r->deadline;
	p->timeline = r->timeline;
	p->keep_records = r->keep_records;
	p->progress = r->progress;

	/* A capture that could not read its swappiness records -1: the
	 * kernel's default then, as for any value out of range. */
	uint64_t sw = r->swappiness >= 0 ? (uint64_t)r->swappiness : meta_u64(v, "swappiness", 60);
	p->swappiness = sw <= MAX_SWAPPINESS ? (int)sw : 60;
	if (r->memory_limit) {
		if (cli_parse_size(r->memory_limit, &p->memory_limit) != 0) {
			snprintf(err, errlen, "--memory-limit: '%s' is not a size", r->memory_limit);
			return -1;
		}
		p->unlimited = !p->memory_limit;
		/* a limit under one page would be a limit of 0 pages, which the
		 * report would call "none" */
		uint64_t ps = meta_u64(v, "page_size", 4096);
		if (p->memory_limit && (p->memory_limit < ps || p->memory_limit > VMR_BYTES_MAX)) {
			snprintf(err, errlen, "--memory-limit: '%s' is not 0 (none) or a size from one "
				 "page (%llu bytes) to 4P", r->memory_limit, (unsigned long long)ps);
			return -1;
		}
	} else {
		p->memory_limit = meta_u64(v, "memory_limit", 0);
	}
	if (r->node_memory) {
		if (cli_parse_size(r->node_memory, &p->node_memory) != 0 ||
		    p->node_memory < (16ull << 20) || p->node_memory > (1ull << 46)) {
			snprintf(err, errlen, "--node-memory: '%s' is not a size from 16M to 64T",
				 r->node_memory);
			return -1;
		}
	} else {
		p->node_memory = meta_u64(v, "mem_total", 0);
		if (!p->node_memory)
			p->node_memory = 2 * v->hdr->nr_pages * 4096 + (64ull << 20);
	}

	/* The swap device: the user's, or one like the capture's, or zram
	 * of half the RAM. */
	char spec[256];
	const char *swap = r->swap;
	if (!swap) {
		run_capture_swap(v, spec, sizeof(spec));
		swap = spec[0] ? spec : "zram";
	}
	uint64_t swap_size = 0;
	int no_swap = strcmp(swap, "none") == 0;
	char why[256];
	if (backing_parse(no_swap ? "zram" : swap, &p->swap, &swap_size, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "--swap: %s", why);
		return -1;
	}
	p->swap_size = no_swap ? 0 : swap_size ? swap_size : p->node_memory / 2;
	/* The capture's read-ahead settings, else the kernel's defaults. */
	p->page_cluster = (unsigned)meta_u64(v, "page_cluster", 3);
	if (p->page_cluster > 31)
		p->page_cluster = 3;
	p->vma_ra_enabled = meta_u64(v, "vma_ra_enabled", 1) != 0;
	/* The gfp of a THP fault's folio (vma_thp_gfp_mask): by
	 * transparent_hugepage/defrag, the kernel's default (madvise) where
	 * the capture did not record it, and whether the VMA is VM_HUGEPAGE,
	 * which ingest makes every THP fault's under "madvise" and none's
	 * under "always" (DEVIATIONS.md). */
	char thp[32], defrag[32];
	if (!vmr_meta_get(v, "thp", thp, sizeof(thp)))
		thp[0] = '\0';
	if (!vmr_meta_get(v, "thp_defrag", defrag, sizeof(defrag)) || !defrag[0])
		snprintf(defrag, sizeof(defrag), "madvise");
	p->thp_gfp = vma_thp_gfp_mask(defrag, strcmp(thp, "madvise") == 0);
	/* The capture's machine: its CPUs, its reads of memory.stat (each
	 * flushes the statistics reclaim reads), what it charged beyond the
	 * LRU. */
	p->nr_cpus = (unsigned)meta_u64(v, "nr_cpus", 1);
	p->cgroup_v1 = meta_u64(v, "capture_cgroup_version", 2) == 1;
	/* The what-if of the other memory controller: v1 limit reclaim
	 * waits on writeback itself where v2 throttles on it
	 * (writeback_throttling_sane), which the isolation throttle and
	 * too_many_isolated depend on. */
	if (r->cgroup_version) {
		if (strcmp(r->cgroup_version, "1") && strcmp(r->cgroup_version, "2")) {
			snprintf(err, errlen, "--cgroup-version: '%s' is not 1 or 2", r->cgroup_version);
			return -1;
		}
		p->cgroup_v1 = r->cgroup_version[0] == '1';
	}
	if (!p->nr_cpus || p->nr_cpus > 4096)
		p->nr_cpus = 1;
	uint64_t period_ms = meta_u64(v, "capture_period_ms", 0);
	p->stat_read_ns = v->nr_memcg >= 2 && period_ms <= 3600000 ? period_ms * NSEC_PER_MSEC : 0;
	/* The flushes the capture recorded (its memory.stat reads among
	 * them) replace the periodic flusher's and the reads' rules. */
	char flush_event[64];
	p->stats_flush_recorded = vmr_meta_get(v, "stats_flush_event", flush_event, sizeof(flush_event)) &&
				  flush_event[0];
	/* Where the captured kernel's timers run: the test bed's guest is
	 * User-Mode Linux, HZ 100 (arch/um/Kconfig), booted for the capture;
	 * the trace's clock against its time since boot places the
	 * statistics' periodic flusher (mm/memcontrol.c). */
	char build[64], mono[32];
	if (vmr_meta_get(v, "kernel_build_source", build, sizeof(build)) && build[0] &&
	    vmr_meta_get(v, "clock_monotonic_offset_ns", mono, sizeof(mono)) && mono[0]) {
		p->hz = 100;
		p->boot_offset_ns = strtoll(mono, NULL, 10);
	}
	p->nonlru_pages = run_nonlru_pages(v, meta_u64(v, "page_size", 4096));
	p->no_swap_device = no_swap;

	/* The file system's device: the user's, else an SSD-like queue with
	 * what the capture measured of its own. */
	const char *file = r->file_dev;
	char fspec[160];
	if (!file) {
		char extra[128];
		measured(v, "file", extra, sizeof(extra));
		snprintf(fspec, sizeof(fspec), "ssd%s", extra);
		file = fspec;
	}
	if (backing_parse(file, &p->file, NULL, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "--file-device: %s", why);
		return -1;
	}
	return 0;
}

const char *run_swap_name(const struct run_request *r, const struct engine_params *p)
{
	if (r->swap)
		return r->swap;
	return p->no_swap_device ? "none" : p->swap.name;
}
