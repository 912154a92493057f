/*
 * pte_young.c - the agent's side of the accessed-bit sampler
 * (capture/pte_young.bpf.c: why, and what the programs do).
 *
 * pte_young_start loads the programs (the skeleton build/pte_young.skel.h,
 * libbpf), finds the direct map, seeds the workload's root process and
 * attaches the four tracepoints; pte_young_poll runs the poll program
 * (BPF_PROG_TEST_RUN: it walks the regions in the agent's context, in
 * the kernel) and re-emits what it reported as
 * `vmreplay_capture:pte_young` events; pte_young_stop emits the
 * sampler's summary (`vmreplay_capture:pte_young_sampler`) and unloads.
 * Where the kernel refuses (no BPF, no BTF, not x86-64 4-level paging)
 * the sampler stays off and the summary says why.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pte_young.h"
#include "pte_young_agent.h"
#include "pte_young.skel.h"
#include "vmreplay_capture_tp.h"

static struct {
	struct pte_young *skel;
	struct ring_buffer *rb;
	unsigned period_ms;
	uint64_t polls, observed, poll_ns, max_regions;
	char note[160];
} sampler = { .note = "off" };

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

/* Runs a raw_tp program once in this task (BPF_PROG_TEST_RUN, which
 * reports no duration for raw_tp); its wall time in ns, or -1. */
static int64_t run_prog(struct bpf_program *p)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (bpf_prog_test_run_opts(bpf_program__fd(p), &o) != 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec);
}

/* The frame of one of our pages, from /proc/self/pagemap (root sees
 * frames), 0 if not known. */
static uint64_t own_pfn(const void *addr)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t e = 0;
	if (fd < 0)
		return 0;
	off_t off = (off_t)((uintptr_t)addr / 4096) * 8;
	if (pread(fd, &e, sizeof(e), off) != (ssize_t)sizeof(e))
		e = 0;
	close(fd);
	return (e >> 63) ? (e & ((1ull << 55) - 1)) : 0;
}

/* The struct pages' base (vmemmap_base, randomized with the direct map
 * and no readable symbol either): the candidate at which the struct
 * page of our anonymous page PAGE says so (folio->mapping an anon_vma,
 * PAGE_MAPPING_ANON, and folio->index its linear index, addr >> 12).
 * The kernel's default first (x86-64, 4-level, no randomization), then
 * every 1 GiB above the direct map. */
static int find_vmemmap(struct pte_young *s, const char *page)
{
	uint64_t idx = (uintptr_t)page >> 12;
	uint64_t cand = 0xffffea0000000000ull;
	for (uint64_t k = 0; cand < 0xfffffe0000000000ull; k++) {
		s->bss->vmemmap = cand;
		s->bss->probe_mapping = s->bss->probe_index = 0;
		if (run_prog(s->progs.probe) >= 0 && (s->bss->probe_mapping & 3) == 1 &&
		    s->bss->probe_index == idx)
			return 0;
		cand = s->bss->page_offset + ((k + 1) << 30);
	}
	return -1;
}

/* The direct map's base (page_offset_base, randomized with
 * CONFIG_RANDOMIZE_MEMORY, PUD-aligned) is no symbol user space can
 * read here (no data symbols in kallsyms, none in BTF).  Our page table
 * (mm->pgd) lies in the direct map, so the base is at most its address
 * and a multiple of 1 GiB; the right one is the candidate through which
 * the walk of one of our own pages finds the frame pagemap names. */
static int find_direct_map(struct pte_young *s)
{
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return -1;
	page[0] = 1;
	uint64_t pfn = own_pfn(page);
	int found = -1;
	s->bss->probe_addr = (uintptr_t)page;
	s->bss->page_offset = 0;
	if (pfn && run_prog(s->progs.probe) >= 0 && s->bss->probe_pgd) {
		uint64_t top = s->bss->probe_pgd & ~((1ull << 30) - 1);
		/* 4 TiB of physical address space below our pgd */
		for (uint64_t k = 0; k < 4096 && found < 0; k++) {
			s->bss->page_offset = top - (k << 30);
			if (run_prog(s->progs.probe) >= 0 &&
			    ((s->bss->probe_pte & 0x000ffffffffff000ull) >> 12) == pfn)
				found = 0;
		}
	}
	if (found == 0 && find_vmemmap(s, page) != 0)
		s->bss->vmemmap = 0;
	munmap(page, 4096);
	return found;
}

static int on_obs(void *ctx, void *data, size_t len)
{
	(void)ctx;
	const struct pte_young_obs *o = data;
	if (len < sizeof(*o))
		return 0;
	lttng_ust_tracepoint(vmreplay_capture, pte_young, o->kts, (int32_t)o->tgid, o->addr, o->len,
			     (uint8_t)o->dirty);
	sampler.observed++;
	return 0;
}

/* /proc/cpuinfo names la57 when the CPU has 5-level paging; the
 * kernel then uses it (unless no5lvl), and the walk is 4-level. */
static int five_level(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	int la57 = 0;
	if (!f)
		return 0;
	while (!la57 && fgets(line, sizeof(line), f))
		if (strncmp(line, "flags", 5) == 0 && strstr(line, " la57"))
			la57 = 1;
	fclose(f);
	return la57;
}

int pte_young_start(int root_pid, unsigned period_ms)
{
	sampler.period_ms = period_ms;
	if (!period_ms) {
		snprintf(sampler.note, sizeof(sampler.note), "off: --young-ms 0");
		return -1;
	}
#if !defined(__x86_64__)
	snprintf(sampler.note, sizeof(sampler.note), "off: not x86-64");
	return -1;
#endif
	if (five_level()) {
		snprintf(sampler.note, sizeof(sampler.note), "off: 5-level paging (la57) is not walked");
		return -1;
	}
	libbpf_set_print(silent);
	struct pte_young *s = pte_young__open_and_load();
	if (!s) {
		snprintf(sampler.note, sizeof(sampler.note), "off: cannot load the BPF programs: %s",
			 strerror(errno));
		return -1;
	}
	const char *why = NULL;
	__u64 none = 0;
	__u32 root = (__u32)root_pid;
	if (find_direct_map(s) != 0)
		why = "cannot find the direct map";
	else if (bpf_map_update_elem(bpf_map__fd(s->maps.procs), &root, &none, BPF_ANY) != 0)
		why = "cannot seed the root process";
	else if (!(s->links.on_fault_user = bpf_program__attach(s->progs.on_fault_user)) ||
		 !(s->links.on_fault_kernel = bpf_program__attach(s->progs.on_fault_kernel)) ||
		 !(s->links.on_fork = bpf_program__attach(s->progs.on_fork)) ||
		 !(s->links.on_exit = bpf_program__attach(s->progs.on_exit)))
		why = "cannot attach the tracepoint programs";
	else if (!(sampler.rb = ring_buffer__new(bpf_map__fd(s->maps.observations), on_obs, NULL, NULL)))
		why = "cannot open the ring buffer";
	if (why) {
		snprintf(sampler.note, sizeof(sampler.note), "off: %s: %s", why, strerror(errno));
		pte_young__destroy(s);
		return -1;
	}
	sampler.skel = s;
	snprintf(sampler.note, sizeof(sampler.note), "on: direct map at 0x%llx, vmemmap %s0x%llx",
		 (unsigned long long)s->bss->page_offset, s->bss->vmemmap ? "at " : "not found: ",
		 (unsigned long long)s->bss->vmemmap);
	return 0;
}

void pte_young_poll(void)
{
	if (!sampler.skel)
		return;
	int64_t ns = run_prog(sampler.skel->progs.poll);
	if (ns >= 0) {
		sampler.polls++;
		sampler.poll_ns += (uint64_t)ns;
		if (sampler.skel->bss->nr_regions > sampler.max_regions)
			sampler.max_regions = sampler.skel->bss->nr_regions;
	}
	ring_buffer__consume(sampler.rb);
}

unsigned pte_young_period_ms(void)
{
	return sampler.skel ? sampler.period_ms : 0;
}

void pte_young_stop(void)
{
	struct vmrc_young y = { .period_ms = pte_young_period_ms(), .note = sampler.note };
	if (sampler.skel) {
		pte_young_poll();       /* the accesses up to the end */
		y.polls = sampler.polls;
		y.observed = sampler.observed;
		y.lost = sampler.skel->bss->nr_lost;
		y.resets = sampler.skel->bss->nr_resets;
		y.regions = sampler.max_regions;
		y.full = sampler.skel->bss->nr_full;
		y.poll_ns = sampler.poll_ns;
		ring_buffer__free(sampler.rb);
		pte_young__destroy(sampler.skel);
		sampler.skel = NULL;
	}
	lttng_ust_tracepoint(vmreplay_capture, pte_young_sampler, &y);
}
