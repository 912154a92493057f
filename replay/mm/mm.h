/*
 * mm.h — the simulated memory: folios, lruvecs, memory cgroups, the node
 * and its zone, scan_control, and the vmstat counters.
 *
 * Names follow the kernel (include/linux/mmzone.h, mm/vmscan.c,
 * include/linux/memcontrol.h) so that replay/ reads next to mm/.  One
 * node with one zone; every folio is one base page (order 0).  The
 * simplifications are listed in replay/DEVIATIONS.md.
 */
#ifndef MM_H
#define MM_H

#include <stdint.h>
#include "sim/sim.h"
#include "records/records.h"

#define SWAP_CLUSTER_MAX      32u
#define DEF_PRIORITY          12
#define MAX_RECLAIM_RETRIES   16
#define MAX_SWAPPINESS        200
#define NIL                   UINT32_MAX

/* ---- folio flags (the kernel's PG_* bits that reclaim reads) -------- */
enum {
	PG_lru        = 1u << 0,   /* on an LRU list (not isolated)              */
	PG_active     = 1u << 1,
	PG_referenced = 1u << 2,
	PG_workingset = 1u << 3,
	PG_dirty      = 1u << 4,
	PG_writeback  = 1u << 5,
	PG_reclaim    = 1u << 6,
	PG_swapbacked = 1u << 7,   /* anon: on the anon LRU                      */
	PG_swapcache  = 1u << 8,   /* has a swap slot holding a copy             */
	PG_mapped     = 1u << 9,   /* mapped by a page table (mapcount > 0)      */
	PG_young      = 1u << 10,  /* the PTE's accessed bit                     */
	PG_resident   = 1u << 11,  /* in memory (else: evicted, swapped, or new) */
	PG_isolated   = 1u << 12,  /* taken off the LRU by a reclaimer           */
	PG_shadow     = 1u << 13,  /* a workingset shadow entry is stored        */
	PG_swapped    = 1u << 14,  /* not resident, contents in swap             */
	PG_freed      = 1u << 15,  /* released by its owner while isolated       */
	PG_exec       = 1u << 16,  /* mapped by a VM_EXEC vma                    */
	PG_seen       = 1u << 17,  /* touched before (not a first touch)         */
	PG_shadow_ws  = 1u << 18,  /* the shadow says: was in the workingset     */
	PG_dirty_listed = 1u << 19, /* queued for the flusher                    */
	PG_locked     = 1u << 20,  /* being faulted in (others wait for it), or
				    * resident with its read in flight          */
	PG_precached  = 1u << 21,  /* cached before the session, charged outside
				    * it, until it first leaves memory          */
	PG_readahead  = 1u << 22,  /* swapped in by read-ahead, not used yet     */
};

/* The four evictable lists, as enum lru_list: index = type * 2 + active. */
enum lru_list {
	LRU_INACTIVE_ANON = 0,
	LRU_ACTIVE_ANON   = 1,
	LRU_INACTIVE_FILE = 2,
	LRU_ACTIVE_FILE   = 3,
	NR_LRU_LISTS      = 4,
};
enum { LRU_ANON = 0, LRU_FILE = 1, ANON_AND_FILE = 2 };

static inline int is_file_lru(enum lru_list l)   { return l >= LRU_INACTIVE_FILE; }
static inline int is_active_lru(enum lru_list l) { return l & 1; }

/* One page of the trace.  Indexed by dense page id.  24 bytes.  Its
 * place on its list (struct list_head lru) is prev: the slot of its entry
 * in the ring of page ids that stores the list (struct lru_ring,
 * lru_ring.h), classic and MGLRU lists alike. */
struct folio {
	uint32_t prev;
	uint32_t flags;
	uint16_t memcg;             /* charged to (index in mm->memcgs)        */
	uint8_t  lru;               /* list it is on or returns to             */
	uint8_t  gen_refs;          /* MGLRU: gen+1 << 4 | refs bits           */
	uint32_t shadow;            /* eviction token while PG_shadow          */
	uint16_t shadow_memcg;      /* lruvec whose clock the token reads       */
	uint16_t read_seq;          /* the reads issued: folio_end_read of an
				     * earlier one finds it changed             */
	uint32_t owner;             /* process (address space) index           */
};

/* prefetchw of a folio: a 24-byte folio at 48 or 56 bytes into a cache
 * line has its second half in the next one (a quarter of them: their
 * owner, shadow and read_seq), so both ends are fetched. */
static inline __attribute__((always_inline)) void prefetch_folio(const struct folio *f)
{
	__builtin_prefetch(f, 1);
	__builtin_prefetch((const char *)(f + 1) - 1, 1);
}

/* The page tables that map a file folio (the kernel's reverse map: the
 * folio's mapcount and a PTE in each address space that maps it).  The
 * first address space's PTE is the folio's PG_mapped and PG_young; the
 * PTEs of all the others share OTHER: 1 + the first of them to map it,
 * PTES_YOUNG its accessed bit (folio_check_references asks only whether
 * more than one PTE was young: DEVIATIONS.md).  Anonymous folios have
 * one mapping (an address space's own pages in the trace). */
struct folio_ptes {
	uint32_t first;             /* process of the PG_mapped PTE            */
	uint32_t other;             /* 1 + process of the others', 0 for none  */
};
#define PTES_YOUNG (1u << 31)

/* ---- gfp (include/linux/gfp_types.h) --------------------------------- */
/* The bits of a charge's gfp that try_charge_memcg reads (the model's own
 * values). */
#define GFP_DIRECT_RECLAIM 1u      /* __GFP_DIRECT_RECLAIM: may reclaim, may block */
#define GFP_NORETRY        2u      /* __GFP_NORETRY: one reclaim, then fail */
/* PAGE_ALLOC_COSTLY_ORDER: above it a charge neither retries on progress
 * nor OOM-kills (try_charge_memcg, mem_cgroup_oom). */
#define PAGE_ALLOC_COSTLY_ORDER 3
/* vma_thp_gfp_mask (mm/huge_memory.c) for transparent_hugepage/defrag
 * DEFRAG and a VMA with VM_HUGEPAGE (MADVISED) or not. */
unsigned vma_thp_gfp_mask(const char *defrag, int madvised);

/* ---- vmstat ---------------------------------------------------------- */
#define VMSTAT_ITEMS(X) \
	X(pgscan_kswapd) X(pgscan_direct) X(pgscan_anon) X(pgscan_file) \
	X(pgsteal_kswapd) X(pgsteal_direct) X(pgsteal_anon) X(pgsteal_file) \
	X(pgrefill) X(pgactivate) X(pgdeactivate) X(pgrotated) \
	X(workingset_refault_anon) X(workingset_refault_file) \
	X(workingset_activate_anon) X(workingset_activate_file) \
	X(workingset_restore_anon) X(workingset_restore_file) \
	X(pswpin) X(pswpout) X(allocstall) X(pgscan_direct_throttle) X(oom_kill) \
	X(pgfault) X(pgmajfault) X(pageoutrun) X(nr_vmscan_write) X(nr_vmscan_immediate_reclaim) \
	X(mm_vmscan_throttled) X(nr_isolated_peak) X(pgalloc) X(pgfree)

#define VMSTAT_ENUM(name) VM_##name,
enum vm_event_item { VMSTAT_ITEMS(VMSTAT_ENUM) NR_VM_ITEMS };
extern const char *const vmstat_text[NR_VM_ITEMS];

/* ---- lruvec, memcg, node -------------------------------------------- */
/* One LRU list, for speed not as the kernel's list_head: a ring of page
 * ids in list order, the oldest (the tail, where reclaim takes) at slot
 * `tail`, then nr - 1 more, around the end, dead entries among them
 * (lru_ring.h). */
struct lru_ring {
	uint32_t *slot;             /* page ids, size of them */
	uint32_t size;
	uint32_t tail, nr;          /* the oldest entry's slot; entries, dead too */
};

struct lruvec {
	struct lru_ring list[NR_LRU_LISTS];
	uint64_t size[NR_LRU_LISTS];           /* this memcg's own lists   */
	uint64_t subtree_size[NR_LRU_LISTS];   /* with its descendants'    */
	int memcg;                             /* the memcg it belongs to  */
	uint64_t anon_cost, file_cost;         /* lru_note_cost            */
	uint64_t nonresident_age;              /* workingset clock          */
	uint64_t refaults[ANON_AND_FILE];      /* snapshot_refaults         */
	uint64_t workingset_activate[ANON_AND_FILE];
	/* The memcg statistics as readers of lruvec_page_state see them: as
	 * of the last rstat flush (memcontrol.c), and the updates since. */
	uint64_t stat[NR_LRU_LISTS];
	uint64_t stat_local[NR_LRU_LISTS];     /* lruvec_page_state_local  */
	uint64_t stat_workingset_activate[ANON_AND_FILE];
	uint64_t stats_updates;
	int congested;                         /* LRUVEC_CGROUP_CONGESTED   */
};

struct mem_cgroup {
	int parent;                 /* index, -1 for the root               */
	uint64_t usage;             /* pages charged, hierarchical           */
	uint64_t max;               /* memory.max in pages; UINT64_MAX none  */
	int swappiness;
	struct lruvec lruvec;       /* the one node's lruvec of this memcg  */
	/* Its part of the shadow_nodes list_lru (workingset.c): xa_nodes
	 * holding only shadow entries, oldest first (ids + 1, 0 none), and
	 * the shadow shrinker's deferred work (shrinker.c). */
	uint32_t shadow_head, shadow_tail;
	uint64_t nr_shadow_nodes;
	long shadow_nr_deferred;
	char name[128];
};

/* Zone watermarks, in pages (one zone per node here). */
enum zone_watermarks { WMARK_MIN, WMARK_LOW, WMARK_HIGH, NR_WMARK };

/* Reasons for reclaim_throttle(), as enum vmscan_throttle_state. */
enum vmscan_throttle_state {
	VMSCAN_THROTTLE_WRITEBACK,
	VMSCAN_THROTTLE_ISOLATED,
	VMSCAN_THROTTLE_NOPROGRESS,
	VMSCAN_THROTTLE_CONGESTED,
	NR_VMSCAN_THROTTLE,
};

struct pglist_data {
	uint64_t present_pages;
	uint64_t nr_free;
	uint64_t watermark[NR_WMARK];
	uint64_t nr_isolated[ANON_AND_FILE];
	uint64_t nr_dirty, nr_writeback;
	int pgdat_dirty, pgdat_writeback;      /* PGDAT_DIRTY / PGDAT_WRITEBACK */
	int kswapd_failures;
	struct sim_waitq reclaim_wait[NR_VMSCAN_THROTTLE];
	uint64_t nr_reclaim_start;             /* NR_THROTTLED_WRITTEN snapshot */
	uint64_t nr_throttled_written;
	uint32_t memcg_cursor;                 /* shared iterator (partial walks) */
};

/* ---- swap ------------------------------------------------------------- */
/* The slots of the swap device, as struct swap_info_struct keeps them,
 * condensed: which page holds which slot, and the cluster allocator's
 * state (SWAPFILE_CLUSTER slots a cluster; slot 0 is the header).  Kept
 * only where a slot's position matters: swap_cluster_readahead. */
#define SWAPFILE_CLUSTER 512
struct swap_info_struct {
	uint32_t max;                /* slots, the header included */
	uint32_t *swap_map;          /* slot -> page id + 1; 0: free */
	uint32_t *slot_of;           /* page id -> its slot (while it holds one) */
	uint16_t *cluster_count;     /* used slots of each cluster */
	uint32_t nr_clusters;
	uint32_t *free_clusters;     /* FIFO of empty clusters (si->free_clusters) */
	uint32_t free_head, nr_free_clusters;
	uint32_t cluster, next;      /* the allocating cluster and its next slot */
};

/* ---- the block layer's plug ------------------------------------------ */
/* struct blk_plug, condensed to the swap writes reclaim queues in it
 * (shrink_lruvec's blk_start_plug): the folios whose bios wait, the
 * last request they merged into (blk_attempt_plug_merge merges a bio
 * into the plug's last request only) and the size of the first, which
 * blk_add_rq_to_plug checks. */
struct blk_plug {
	uint32_t *pfn;               /* the plugged writes, in order */
	uint32_t nr, cap;
	uint32_t rq_count;           /* requests in the plug */
	uint32_t last_slot;          /* the last request's last slot */
	uint32_t last_pages;         /* and its size in pages */
	uint32_t first_pages;        /* the first request's size in pages */
};

/* ---- scan_control ---------------------------------------------------- */
struct scan_control {
	uint64_t nr_to_reclaim;
	int target_mem_cgroup;       /* -1: global reclaim */
	int priority;
	unsigned may_writepage:1, may_unmap:1, may_swap:1, may_deactivate:2,
		 force_deactivate:1, skipped_deactivate:1, cache_trim_mode:1,
		 file_is_tiny:1, memcg_full_walk:1, no_cache_trim_mode:1,
		 cache_trim_mode_failed:1;
	unsigned gfp_io_fs:1;        /* gfp_mask has __GFP_IO and __GFP_FS */
	uint64_t anon_cost, file_cost;
	uint64_t nr_scanned, nr_reclaimed;
	struct {
		uint64_t dirty, unqueued_dirty, congested, writeback, immediate,
			 file_taken, taken;
	} nr;
	/* Not the kernel's: what the kernel knows as `current` (who is
	 * reclaiming), and the simulator's record of this invocation. */
	struct {
		uint32_t task;           /* the reclaiming task; UINT32_MAX: kswapd */
		int kswapd;              /* current_is_kswapd() */
		int mm_walk;             /* MGLRU: current->reclaim_state->mm_walk */
		struct blk_plug *plug;   /* current->plug: shrink_lruvec's */
		struct reclaim_record rec;  /* records/records.h */
	} sim;
};

static inline int current_is_kswapd(const struct scan_control *sc)
{
	return sc->sim.kswapd;
}

static inline int cgroup_reclaim(const struct scan_control *sc)
{
	return sc->target_mem_cgroup >= 0;
}

static inline int root_reclaim(const struct scan_control *sc)
{
	return sc->target_mem_cgroup <= 0;
}

#endif
