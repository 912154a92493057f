/*
 * pte_young.h - what the accessed-bit sampler's BPF programs
 * (capture/pte_young.bpf.c) and the agent (capture/pte_young.c) share.
 */
#ifndef VMREPLAY_PTE_YOUNG_H
#define VMREPLAY_PTE_YOUNG_H

#define PTE_YOUNG_MAX_PROCS   4096
/* 2 MiB regions: 32 GiB of faulted address space, 4 KiB of snapshot each
 * (allocated as regions appear: BPF_F_NO_PREALLOC). */
#define PTE_YOUNG_MAX_REGIONS 16384
#define PTE_YOUNG_RINGBUF     (8u << 20)

/* One clear -> set transition, at the poll that saw it. */
struct pte_young_obs {
	__u64 kts;      /* CLOCK_MONOTONIC ns of the poll */
	__u32 tgid;     /* the thread group whose page table it is */
	__u32 len;      /* 4096, or 2 MiB for a huge PMD */
	__u64 addr;     /* the page's (the huge page's) first address */
	__u32 dirty;    /* the PTE's (PMD's) dirty bit at that poll */
	__u32 pad;
};

#endif
