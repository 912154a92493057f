/*
 * pte_young.bpf.c - the accessed-bit sampler of `vmreplay capture`
 * (x86-64, 4-level paging): BPF programs the agent loads
 * (capture/pte_young.c).
 *
 * On x86 the MMU sets a PTE's accessed bit (_PAGE_ACCESSED) with no
 * event, so a trace sees a resident page's first fault and its refaults
 * but none of its re-references.  The kernel's reclaim reads and clears
 * that bit (folio_referenced -> folio_referenced_one ->
 * ptep_clear_flush_young_notify) and activates or keeps the folios it
 * finds referenced (folio_check_references).  This sampler only READS
 * the bits: every poll it walks the page tables of the 2 MiB regions the
 * workload faulted in and reports each PTE whose bit went from clear to
 * set since the previous poll, with the same page frame: the first
 * access after someone cleared the bit, the access the kernel's next
 * folio_referenced of that page counts.
 *
 *   on_fault_user / on_fault_kernel   exceptions:page_fault_{user,kernel}:
 *       remember the faulting process's page table (current->mm->pgd)
 *       and the 2 MiB region of the address
 *   on_fork / on_exit                 sched:sched_process_{fork,exit}:
 *       follow the workload's processes (the agent seeds the root)
 *   poll                              run by the agent (BPF_PROG_TEST_RUN):
 *       walk every region, report transitions into the ring buffer
 *   probe                             run by the agent once: walk its own
 *       page table for one address, to find the direct map (see
 *       pte_young.c)
 *
 * Reading page tables through the direct map with
 * bpf_probe_read_kernel: a table freed under us (munmap's free_pgtables,
 * exit_mmap) reads as whatever is there, or fails; both make a region
 * that no longer matches its snapshot, which is reset, not reported,
 * except in the tiny window between the walk and the read.  Ingest also
 * drops observations outside the process's mappings.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "pte_young.h"

char LICENSE[] SEC("license") = "GPL";

/* The fields we read, relocated against the running kernel's BTF
 * (CO-RE): mm_struct's pgd is inside an anonymous struct since 6.x,
 * which libbpf's field matching looks through. */
struct mm_struct {
	void *pgd;
} __attribute__((preserve_access_index));

struct task_struct {
	struct mm_struct *mm;
} __attribute__((preserve_access_index));

/* struct page's flags are its first word (6.18 wraps them in a
 * memdesc_flags_t, a type CO-RE will not match to a word). */
struct page {
	unsigned long compound_head;    /* bit 0: a tail page, the rest its head */
} __attribute__((preserve_access_index));

struct folio {
	void *mapping;
	unsigned long index;
} __attribute__((preserve_access_index));

enum pageflags { PG_referenced, PG_active };

/* arch/x86/include/asm/pgtable_types.h */
#define _PAGE_PRESENT   (1ull << 0)
#define _PAGE_ACCESSED  (1ull << 5)
#define _PAGE_DIRTY     (1ull << 6)
#define _PAGE_PSE       (1ull << 7)
#define PTE_PFN_MASK    0x000ffffffffff000ull    /* bits 12..51 */
#define PMD_PFN_MASK    0x000fffffffe00000ull    /* a 2 MiB frame */
#define PGDIR_SHIFT     39
#define PUD_SHIFT       30
#define PMD_SHIFT       21
#define PTRS_PER        512
#define USER_TOP        (1ull << 47)             /* TASK_SIZE_MAX, 4-level */

/* The direct map's base (page_offset_base): set by the agent before
 * the first poll.  Counters the agent reads at the end. */
__u64 page_offset = 0;
__u64 vmemmap = 0;          /* vmemmap_base: the struct pages (0: not known) */
__u64 nr_lost = 0;          /* observations the ring buffer had no room for */
__u64 nr_regions = 0;       /* regions the last poll walked */
__u64 nr_resets = 0;        /* regions whose table changed under them */
__u64 nr_full = 0;          /* regions the map had no room for */
/* probe's input and output */
__u64 probe_addr = 0;
__u64 probe_pte = 0;
__u64 probe_pgd = 0;
__u64 probe_mapping = 0;     /* probe_pte's folio's mapping and index */
__u64 probe_index = 0;

/* The workload's thread groups -> their page table (0 until a fault). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PTE_YOUNG_MAX_PROCS);
	__type(key, __u32);
	__type(value, __u64);
} procs SEC(".maps");

struct region_key {
	__u32 tgid;
	__u32 pad;
	__u64 base;             /* the region's first address (2 MiB aligned) */
};

struct region {
	__u64 pgd;              /* the page table this snapshot is of */
	__u64 table;            /* the PMD entry: a PTE table's, or a huge page's */
	__u64 valid;            /* the snapshot below is of TABLE */
	__u64 pte[PTRS_PER];
	__u8 flags[PTRS_PER];   /* FL_* of the folio each young PTE mapped */
};

#define FL_KNOWN      0x80
#define FL_ACTIVE     0x02
#define FL_REFERENCED 0x01

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, PTE_YOUNG_MAX_REGIONS);
	__type(key, struct region_key);
	__type(value, struct region);
} regions SEC(".maps");

/* A blank region to insert, and the current PTE table's copy. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct region);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PTE_YOUNG_RINGBUF);
} observations SEC(".maps");

/* exceptions:page_fault_{user,kernel} (format: address, ip, error_code) */
struct fault_args {
	__u64 common;
	__u64 address;
	__u64 ip;
	__u64 error_code;
};

static int note_fault(__u64 address)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 *pgd = bpf_map_lookup_elem(&procs, &tgid);
	if (!pgd || address >= USER_TOP)
		return 0;
	struct task_struct *t = (void *)bpf_get_current_task();
	__u64 cur = (__u64)BPF_CORE_READ(t, mm, pgd);
	if (!cur)
		return 0;
	if (*pgd != cur)        /* the first fault, or after an exec */
		*pgd = cur;
	struct region_key k = { .tgid = tgid, .base = address & ~((1ull << PMD_SHIFT) - 1) };
	struct region *r = bpf_map_lookup_elem(&regions, &k);
	if (r) {
		if (r->pgd != cur) {
			r->pgd = cur;
			r->valid = 0;
		}
		return 0;
	}
	__u32 zero = 0;
	r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return 0;
	r->pgd = cur;
	r->table = 0;
	r->valid = 0;
	if (bpf_map_update_elem(&regions, &k, r, BPF_NOEXIST) == -7 /* -E2BIG */)
		__sync_fetch_and_add(&nr_full, 1);
	return 0;
}

SEC("tracepoint/exceptions/page_fault_user")
int on_fault_user(struct fault_args *a)
{
	return note_fault(a->address);
}

/* A user copy (copy_to_user of a read()) faulting on a user page. */
SEC("tracepoint/exceptions/page_fault_kernel")
int on_fault_kernel(struct fault_args *a)
{
	return note_fault(a->address);
}

/* sched:sched_process_fork fires in the parent: a child of the
 * workload's (a thread's tid too: harmless, no tgid is ever that). */
struct fork_args {
	__u64 common;
	__u32 parent_comm, parent_pid, child_comm;
	__s32 child_pid;
};

SEC("tracepoint/sched/sched_process_fork")
int on_fork(struct fork_args *a)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (!bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	__u32 child = (__u32)a->child_pid;
	__u64 none = 0;
	bpf_map_update_elem(&procs, &child, &none, BPF_NOEXIST);
	return 0;
}

/* sched:sched_process_exit: when the thread group's last task exits
 * (group_dead), before exit_mm frees its page tables, forget it; a
 * thread's own entry (on_fork made one for every clone) goes with the
 * thread. */
struct exit_args {
	__u64 common;
	char comm[16];
	__s32 pid, prio;
	__u8 group_dead;
};

SEC("tracepoint/sched/sched_process_exit")
int on_exit(struct exit_args *a)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	if (tid != tgid)
		bpf_map_delete_elem(&procs, &tid);
	if (a->group_dead)
		bpf_map_delete_elem(&procs, &tgid);
	return 0;
}

/* One entry of a table at physical address PHYS (0 if unreadable). */
static __u64 read_entry(__u64 phys, __u64 index)
{
	__u64 e = 0;
	if (bpf_probe_read_kernel(&e, sizeof(e), (void *)(page_offset + phys + index * 8)) != 0)
		return 0;
	return e;
}

/* The PMD entry that maps ADDR in the page table at PGD (a direct-map
 * address), 0 if none. */
static __u64 walk_pmd(__u64 pgd, __u64 addr)
{
	__u64 e = 0;
	if (bpf_probe_read_kernel(&e, sizeof(e), (void *)(pgd + ((addr >> PGDIR_SHIFT) & 511) * 8)) != 0)
		return 0;
	if (!(e & _PAGE_PRESENT))
		return 0;
	e = read_entry(e & PTE_PFN_MASK, (addr >> PUD_SHIFT) & 511);
	if (!(e & _PAGE_PRESENT) || (e & _PAGE_PSE))   /* no 1 GiB pages for users here */
		return 0;
	e = read_entry(e & PTE_PFN_MASK, (addr >> PMD_SHIFT) & 511);
	return (e & _PAGE_PRESENT) ? e : 0;
}

static void emit(__u64 now, __u32 tgid, __u64 addr, __u32 len, __u64 entry)
{
	struct pte_young_obs *o = bpf_ringbuf_reserve(&observations, sizeof(*o), 0);
	if (!o) {
		__sync_fetch_and_add(&nr_lost, 1);
		return;
	}
	o->kts = now;
	o->tgid = tgid;
	o->len = len;
	o->addr = addr;
	o->dirty = !!(entry & _PAGE_DIRTY);
	o->pad = 0;
	bpf_ringbuf_submit(o, 0);
}

/* A clear -> set transition of the same frame: accessed since the
 * previous poll, after someone cleared the bit. */
static int young_again(__u64 old, __u64 cur, __u64 mask)
{
	return (old & (_PAGE_PRESENT | _PAGE_ACCESSED)) == _PAGE_PRESENT &&
	       (cur & (_PAGE_PRESENT | _PAGE_ACCESSED)) == (_PAGE_PRESENT | _PAGE_ACCESSED) &&
	       (old & mask) == (cur & mask);
}

struct cmp_ctx {
	struct region *r, *cur;
	__u64 now, base;
	__u32 tgid;
	int report;
};

/* The struct page of frame PFN in the vmemmap. */
static __u64 page_of(__u64 pfn)
{
	return vmemmap + pfn * bpf_core_type_size(struct page);
}

/* PG_active and PG_referenced of the folio frame PFN belongs to (a
 * tail page's are its head's), as FL_* | FL_KNOWN; 0 if unreadable. */
static __u8 folio_flags(__u64 pfn)
{
	struct page *p = (void *)page_of(pfn);
	unsigned long head = BPF_CORE_READ(p, compound_head);
	if (head & 1)
		p = (void *)(head - 1);
	unsigned long f = 0;
	if (bpf_probe_read_kernel(&f, sizeof(f), p) != 0)
		return 0;
	return FL_KNOWN | ((f >> bpf_core_enum_value(enum pageflags, PG_active)) & 1 ? FL_ACTIVE : 0) |
	       ((f >> bpf_core_enum_value(enum pageflags, PG_referenced)) & 1 ? FL_REFERENCED : 0);
}

/* A young PTE is an access since the previous poll when the bit was
 * clear then (young_again), or when it was set then too but the kernel
 * checked the folio in between: folio_referenced cleared the bit and a
 * later access set it again.  The check shows in the folio's flags:
 * folio_check_references sets PG_referenced or activates (PG_active),
 * shrink_active_list deactivates; a check that changes neither (an
 * executable file folio kept active) is not seen. */
static long cmp_pte(__u32 i, void *data)
{
	struct cmp_ctx *c = data;
	if (i >= PTRS_PER)
		return 1;
	__u64 old = c->r->pte[i], cur = c->cur->pte[i];
	__u8 fl = 0, was = c->r->flags[i];
	const __u64 young = _PAGE_PRESENT | _PAGE_ACCESSED;
	if (vmemmap && (cur & young) == young)
		fl = folio_flags((cur & PTE_PFN_MASK) >> 12);
	if (c->report && (young_again(old, cur, PTE_PFN_MASK) ||
			  ((old & young) == young && (cur & young) == young &&
			   (old & PTE_PFN_MASK) == (cur & PTE_PFN_MASK) &&
			   (was & FL_KNOWN) && (fl & FL_KNOWN) && was != fl)))
		emit(c->now, c->tgid, c->base + ((__u64)i << 12), 4096, cur);
	c->r->pte[i] = cur;
	c->r->flags[i] = fl;
	return 0;
}

static long walk_region(void *map, struct region_key *k, struct region *r, void *data)
{
	__u64 now = *(__u64 *)data;
	__u64 *pgd = bpf_map_lookup_elem(&procs, &k->tgid);
	if (!pgd || *pgd != r->pgd) {   /* the process exited or exec'd */
		bpf_map_delete_elem(map, k);
		return 0;
	}
	__sync_fetch_and_add(&nr_regions, 1);
	__u64 pmd = walk_pmd(r->pgd, k->base);
	if (!pmd) {
		r->valid = 0;
		return 0;
	}
	if (pmd & _PAGE_PSE) {          /* a transparent huge page: one bit */
		if (r->valid && r->table & _PAGE_PSE && young_again(r->table, pmd, PMD_PFN_MASK))
			emit(now, k->tgid, k->base, 1u << PMD_SHIFT, pmd);
		r->table = pmd;
		r->valid = 1;
		return 0;
	}
	__u32 one = 1;
	struct region *cur = bpf_map_lookup_elem(&scratch, &one);
	if (!cur)
		return 0;
	if (bpf_probe_read_kernel(cur->pte, sizeof(cur->pte),
				  (void *)(page_offset + (pmd & PTE_PFN_MASK))) != 0) {
		r->valid = 0;
		return 0;
	}
	int same = r->valid && (r->table & PTE_PFN_MASK) == (pmd & PTE_PFN_MASK) && !(r->table & _PAGE_PSE);
	if (r->valid && !same)
		__sync_fetch_and_add(&nr_resets, 1);
	struct cmp_ctx c = { .r = r, .cur = cur, .now = now, .base = k->base, .tgid = k->tgid,
			     .report = same };
	bpf_loop(PTRS_PER, cmp_pte, &c, 0);
	r->table = pmd;
	r->valid = 1;
	return 0;
}

SEC("raw_tp")
int poll(void *ctx)
{
	(void)ctx;
	__u64 now = bpf_ktime_get_ns();     /* CLOCK_MONOTONIC: the trace's clock */
	nr_regions = 0;
	bpf_for_each_map_elem(&regions, walk_region, &now, 0);
	return 0;
}

/* The PTE that maps probe_addr in the calling process, with the direct
 * map at page_offset (0 if the walk fails). */
SEC("raw_tp")
int probe(void *ctx)
{
	(void)ctx;
	struct task_struct *t = (void *)bpf_get_current_task();
	__u64 pgd = (__u64)BPF_CORE_READ(t, mm, pgd);
	probe_pte = 0;
	probe_pgd = pgd;
	if (!pgd)
		return 0;
	__u64 pmd = walk_pmd(pgd, probe_addr);
	if (!pmd || (pmd & _PAGE_PSE))
		return 0;
	probe_pte = read_entry(pmd & PTE_PFN_MASK, (probe_addr >> 12) & 511);
	if (vmemmap) {
		struct folio *f = (void *)page_of((probe_pte & PTE_PFN_MASK) >> 12);
		probe_mapping = (__u64)BPF_CORE_READ(f, mapping);
		probe_index = BPF_CORE_READ(f, index);
	}
	return 0;
}
