/*
 * vmr.h — the .vmr replay file: what ingest writes and every replay reads.
 *
 * A .vmr holds one decoded trace: the session metadata, one time-ordered
 * stream of 8-byte records per task, and a table that turns dense page ids
 * back into what they were in the trace.  It is mmap'd read-only and
 * checked block by block before anything reads it.  replay/vmr/FORMAT.md is
 * the specification; this header is its C mirror.
 */
#ifndef VMR_H
#define VMR_H

#include <stddef.h>
#include <stdint.h>

#define VMR_MAGIC        "VMREPLAY"
#define VMR_VERSION      5
#define VMR_HEADER_SIZE  512
#define VMR_BLOCK_SIZE   65536u

/* Record operations (low 4 bits of the record's second word). */
enum vmr_op {
	VMR_OP_LOAD  = 0,  /* load through a mapping: sets the PTE young        */
	VMR_OP_STORE = 1,  /* store through a mapping: young and dirty          */
	VMR_OP_READ  = 2,  /* read() of a page-cache page: folio_mark_accessed  */
	VMR_OP_WRITE = 3,  /* buffered write(): dirties, does not mark accessed */
	VMR_OP_FREE  = 4,  /* page released (munmap, free, unlink/truncate)     */
	VMR_OP_DELAY = 5,  /* think time too long for one record's delta field  */
	VMR_OP_READAHEAD = 6, /* file page read ahead into the page cache, not
			    * referenced: occupies memory, is no access       */
	VMR_NR_OPS
};

/* LOAD, STORE, READ and WRITE are the accesses; FREE, DELAY and READAHEAD
 * are not (they are not counted in nr_accesses, nor replayed by lru). */
static inline int vmr_op_is_access(unsigned op) { return op < VMR_OP_FREE; }

#define VMR_F_FILE       0x10u  /* page is file-backed (else anonymous)   */
#define VMR_F_RUN        0x20u  /* pages page .. page+count-1, no delta   */
#define VMR_F_FAULT      0x40u  /* READAHEAD only: read ahead inside a page
				 * fault (filemap_fault), so "in a fault"
				 * for MGLRU (lru_gen_in_fault)            */
/* LOAD/STORE of an anonymous page only, the FAULT bit (READAHEAD's):
 * the record is part of a fault that maps a PMD-sized folio
 * (do_huge_pmd_anonymous_page).  The first such record of a task, or
 * the first after the folio's pages are all accounted for, is the
 * faulting page; the pages of its PMD range follow, the faulting page's
 * id + 1 to + HPAGE_PMD_NR - 1, in records of their own (FORMAT.md). */
#define VMR_F_HUGE       VMR_F_FAULT
#define VMR_F_UACCESS    0x80u  /* LOAD/STORE only: the kernel's copy to or
				 * from the page (a kernel-mode fault), on a
				 * kernel whose user copies go through no
				 * PTE's accessed bit (UML)                 */
/* HPAGE_PMD_NR: the pages a PMD maps, a page table's entries (PTRS_PER_PTE:
 * 8-byte entries in one page), 512 with 4 KiB pages. */
static inline uint64_t vmr_hpage_pmd_nr(uint64_t page_size) { return page_size / 8; }
#define VMR_DELTA_SHIFT  8
#define VMR_DELTA_MAX    ((1u << 24) - 1)   /* ns that fit in one record */
#define VMR_RUN_MAX      VMR_DELTA_MAX      /* pages in one run record   */

/* One record: word[0] = page id (DELAY: the delay's high bits),
 * word[1] = op | flags | x << 8, where x is the ns since the task's
 * previous record (the first record's: since the task's begin time), or,
 * with VMR_F_RUN, the number of consecutive page ids the op applies to
 * (a run takes no time of its own; a DELAY before it carries its delta).
 * Runs keep range events small: a 16-page touch is two records, not 16. */
struct vmr_rec {
	uint32_t page;
	uint32_t info;
};

static inline unsigned vmr_rec_op(struct vmr_rec r)       { return r.info & 0xfu; }
static inline int vmr_rec_is_file(struct vmr_rec r)       { return (r.info & VMR_F_FILE) != 0; }
static inline int vmr_rec_is_run(struct vmr_rec r)        { return (r.info & VMR_F_RUN) != 0; }
static inline int vmr_rec_in_fault(struct vmr_rec r)      { return (r.info & VMR_F_FAULT) != 0; }
static inline int vmr_rec_uaccess(struct vmr_rec r)       { return (r.info & VMR_F_UACCESS) != 0; }
static inline int vmr_rec_huge(struct vmr_rec r)
{
	return vmr_rec_op(r) <= VMR_OP_STORE && !vmr_rec_is_file(r) && (r.info & VMR_F_HUGE);
}
/* Pages the record applies to (0 for DELAY). */
static inline uint32_t vmr_rec_count(struct vmr_rec r)
{
	if (vmr_rec_op(r) == VMR_OP_DELAY)
		return 0;
	return vmr_rec_is_run(r) ? r.info >> VMR_DELTA_SHIFT : 1;
}
/* Full delay of a DELAY record, in ns. */
static inline uint64_t vmr_rec_delay(struct vmr_rec r)
{
	return ((uint64_t)r.page << 24) | (r.info >> VMR_DELTA_SHIFT);
}
/* Time from the task's previous record to this one, in ns. */
static inline uint64_t vmr_rec_delta(struct vmr_rec r)
{
	if (vmr_rec_op(r) == VMR_OP_DELAY)
		return vmr_rec_delay(r);
	return vmr_rec_is_run(r) ? 0 : r.info >> VMR_DELTA_SHIFT;
}

enum vmr_section_kind {
	VMR_SEC_META    = 1,  /* "key\tvalue\n" text                         */
	VMR_SEC_TASKS   = 2,  /* struct vmr_task[]                           */
	VMR_SEC_RECORDS = 3,  /* struct vmr_rec[], task streams back to back */
	VMR_SEC_PAGES   = 4,  /* struct vmr_page[], indexed by page id       */
	VMR_SEC_VMSTAT  = 5,  /* struct vmr_vmstat[] snapshots               */
	VMR_SEC_KEVENTS = 6,  /* struct vmr_kev[]: the kernel's own events   */
	VMR_SEC_MEMCG   = 7,  /* struct vmr_memcg[]: memory.stat snapshots   */
	VMR_SEC_SUMS    = 8,  /* u64 XXH3 per block of everything before it  */
	VMR_NR_SECTIONS = 8
};

struct vmr_header {
	char     magic[8];
	uint32_t version;
	uint32_t header_size;
	uint64_t file_size;
	uint8_t  trace_hash[16];   /* XXH3-128 of the trace's files            */
	uint64_t nr_tasks;
	uint64_t nr_records;
	uint64_t nr_pages;
	uint64_t nr_accesses;      /* page accesses: pages of LOAD..WRITE records */
	uint32_t block_size;
	uint32_t nr_sections;
	uint64_t header_sum;       /* XXH3-64 of the header with this field 0 */
	struct {
		uint32_t kind;
		uint32_t reserved;
		uint64_t offset;
		uint64_t size;
	} sec[VMR_NR_SECTIONS];
	uint8_t  reserved[232];    /* zero                                    */
};
_Static_assert(sizeof(struct vmr_header) == VMR_HEADER_SIZE, "header layout");

struct vmr_task {
	uint32_t pid, tid, ppid;
	int32_t  status;           /* exit status; 0 when the trace had none  */
	uint64_t begin_ns;         /* trace clock                             */
	uint64_t end_ns;
	uint64_t first_rec;        /* index into the RECORDS section          */
	uint64_t nr_recs;
	uint64_t nr_accesses;      /* pages of its LOAD..WRITE records        */
	char     comm[16];
};

enum vmr_page_kind { VMR_PAGE_ANON = 0, VMR_PAGE_FILE = 1 };

/* vmr_page.flags */
enum {
	/* A file page the workload found in the page cache: nothing of the
	 * workload inserted it during the session, so it was cached before
	 * and is charged to whichever cgroup brought it in (FORMAT.md). */
	VMR_PAGE_PRECACHED = 1u << 0,
	/* A file page a VM_EXEC mapping of the workload faulted in (the
	 * capture's maps say x): folio_check_references activates it after
	 * its first referenced scan. */
	VMR_PAGE_EXEC      = 1u << 1,
	VMR_PAGE_FLAGS     = VMR_PAGE_PRECACHED | VMR_PAGE_EXEC,
};

/* What a dense page id stood for: anon (space = pid, index = page number
 * in the address space) or file (space = st_dev, ino, index = page offset). */
struct vmr_page {
	uint32_t kind;
	uint32_t flags;            /* VMR_PAGE_*                              */
	uint64_t space;
	uint64_t ino;
	uint64_t index;
};

/* The /proc/vmstat counters a capture snapshots, in record order. */
#define VMR_VMSTAT_FIELDS(X) \
	X(pgscan_kswapd) X(pgscan_direct) X(pgscan_anon) X(pgscan_file) \
	X(pgsteal_kswapd) X(pgsteal_direct) X(pgsteal_anon) X(pgsteal_file) \
	X(pgrefill) X(pgactivate) X(pgdeactivate) \
	X(workingset_refault_anon) X(workingset_refault_file) \
	X(workingset_activate_anon) X(workingset_activate_file) \
	X(workingset_restore_anon) X(workingset_restore_file) \
	X(pswpin) X(pswpout) X(allocstall) X(pgscan_direct_throttle) X(oom_kill) \
	X(pgfault) X(pgmajfault) X(nr_free_pages) X(nr_isolated_anon) X(nr_isolated_file)

#define VMR_COUNT_ONE(name) +1
enum { VMR_NR_VMSTAT = 0 VMR_VMSTAT_FIELDS(VMR_COUNT_ONE) };

struct vmr_vmstat {
	uint64_t ts_ns;
	uint64_t v[VMR_NR_VMSTAT];
};

extern const char *const vmr_vmstat_names[VMR_NR_VMSTAT];

/* ---- Ground truth: what the kernel itself did (version 2) ----------- */

/* The kernel's reclaim and process events, kept as recorded (from LTTng's
 * kernel domain or the tracefs bridge), in time order.  f[] holds the
 * fields in the order of FORMAT.md's table; signed fields are stored
 * sign-extended; VMR_ABSENT marks a field the trace did not have. */
enum vmr_kev_type {
	VMR_KEV_DIRECT_BEGIN = 1,   /* order, gfp_flags                          */
	VMR_KEV_DIRECT_END,         /* nr_reclaimed                              */
	VMR_KEV_MEMCG_BEGIN,        /* order, gfp_flags                          */
	VMR_KEV_MEMCG_END,          /* nr_reclaimed                              */
	VMR_KEV_KSWAPD_WAKE,        /* nid, zid, order                           */
	VMR_KEV_KSWAPD_SLEEP,       /* nid                                       */
	VMR_KEV_WAKEUP_KSWAPD,      /* nid, zid, order, gfp_flags                */
	VMR_KEV_LRU_ISOLATE,        /* classzone_idx, order, nr_requested,
	                               nr_scanned, nr_skipped, nr_taken, lru,
	                               isolate_mode                              */
	VMR_KEV_SHRINK_INACTIVE,    /* nid, nr_scanned, nr_reclaimed, nr_dirty,
	                               nr_writeback, nr_congested, nr_immediate,
	                               nr_activate_anon, nr_activate_file,
	                               nr_ref_keep, nr_unmap_fail, priority,
	                               reclaim_flags                             */
	VMR_KEV_SHRINK_ACTIVE,      /* nid, nr_taken, nr_active, nr_deactivated,
	                               nr_referenced, priority, reclaim_flags    */
	VMR_KEV_THROTTLED,          /* nid, usec_timeout, usec_delayed, reason   */
	VMR_KEV_WRITE_FOLIO,        /* pfn, reclaim_flags                        */
	VMR_KEV_FILE_EVICT,         /* dev, ino, index, order: a page-cache folio
	                               deleted inside a reclaim (not a truncate) */
	VMR_KEV_FORK,               /* parent_tid, parent_pid, child_tid,
	                               child_pid, child comm (f[4..5], 16 bytes) */
	VMR_KEV_EXEC,               /* comm (f[0..1])                            */
	VMR_KEV_EXIT,               /* comm (f[0..1])                            */
	VMR_KEV_COMM,               /* comm (f[0..1]): the task's name           */
	VMR_KEV_STATS_FLUSH,        /* cgroup id, whole: an rstat flush of the
	                               session's memcg or an ancestor, made by
	                               no task of the workload (1 = of the root:
	                               everything)                               */
	VMR_KEV_NR_TYPES
};

#define VMR_KEV_FIELDS 13
#define VMR_ABSENT     UINT64_MAX

struct vmr_kev {
	uint64_t ts_ns;            /* the trace's clock, as task times          */
	uint32_t tid, pid;         /* the task the event fired in (pid = tgid)  */
	uint16_t type;             /* enum vmr_kev_type                         */
	uint16_t cpu;
	uint32_t reserved;
	uint64_t f[VMR_KEV_FIELDS];
};
_Static_assert(sizeof(struct vmr_kev) == 128, "kev layout");

extern const char *const vmr_kev_names[VMR_KEV_NR_TYPES];

/* Reclaim events (DIRECT_BEGIN..FILE_EVICT) among KEV: what a replay is
 * compared with; FORK..COMM only say who the tasks were. */
static inline uint64_t vmr_kev_reclaim_count(const struct vmr_kev *kev, uint64_t nr)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < nr; i++)
		n += kev[i].type < VMR_KEV_FORK;
	return n;
}

/* The memory cgroup's counters, as memory.stat and its neighbours name
 * them (v1 and v2 names side by side; a key the kernel did not have is
 * VMR_ABSENT).  usage..memsw_usage are bytes from the cgroup's own files. */
#define VMR_MEMCG_FIELDS(X) \
	X(usage) X(max_usage) X(limit) X(failcnt) X(oom_kill) X(swap_usage) X(memsw_usage) \
	X(cache) X(rss) X(shmem) X(mapped_file) X(dirty) X(writeback) X(swap) X(swapcached) \
	X(anon) X(file) X(file_mapped) X(file_dirty) X(file_writeback) \
	X(inactive_anon) X(active_anon) X(inactive_file) X(active_file) X(unevictable) \
	X(pgfault) X(pgmajfault) X(pgpgin) X(pgpgout) \
	X(pgscan) X(pgsteal) X(pgscan_kswapd) X(pgscan_direct) X(pgsteal_kswapd) X(pgsteal_direct) \
	X(pgrefill) X(pgactivate) X(pgdeactivate) \
	X(workingset_refault_anon) X(workingset_refault_file) \
	X(workingset_activate_anon) X(workingset_activate_file) \
	X(workingset_restore_anon) X(workingset_restore_file) X(workingset_nodereclaim)

enum { VMR_NR_MEMCG = 0 VMR_MEMCG_FIELDS(VMR_COUNT_ONE) };

struct vmr_memcg {
	uint64_t ts_ns;
	uint64_t v[VMR_NR_MEMCG];
};

extern const char *const vmr_memcg_names[VMR_NR_MEMCG];

/* An open, verified .vmr.  Every pointer points into the mapping. */
struct vmr {
	const char *path;
	void *map;
	size_t map_size;
	const struct vmr_header *hdr;
	const char *meta;              /* not NUL-terminated: meta_size bytes */
	size_t meta_size;
	const struct vmr_task *tasks;
	const struct vmr_rec *recs;
	const struct vmr_page *pages;
	const struct vmr_vmstat *vmstat;
	uint64_t nr_vmstat;
	const struct vmr_kev *kev;     /* ground truth (empty for UST-only traces) */
	uint64_t nr_kev;
	const struct vmr_memcg *memcg;
	uint64_t nr_memcg;
	/* What replays derive from the trace alone (its pages' address
	 * orders: replay/sim/page_order.h), built by the first replay that
	 * needs it and kept while the trace is open, so that the replays of
	 * one open trace (compare's, --repeat's) do not each redo it. */
	struct vmr_derived *derived;
};

#define VMR_NR_DERIVED 4
struct vmr_derived {
	void *data[VMR_NR_DERIVED];
	void (*free[VMR_NR_DERIVED])(void *data);
};

/* Maps and verifies PATH: header, sizes, every block's checksum, section
 * bounds, task ranges and every record.  Returns 0, or -1 with a one-line
 * reason in err.  With a verified directory set, the contents' checks
 * (every page, task, record and kernel event) are made once per contents:
 * a file whose header and blocks verify against a checksum table that
 * passed them before skips them (FORMAT.md, "Verified once"). */
int vmr_open(struct vmr *v, const char *path, char *err, size_t errlen);
void vmr_close(struct vmr *v);

/* Where vmr_open records the contents it verified (DIR/verified/), or
 * NULL: none, every open checks everything (the default). */
void vmr_verified_dir(const char *dir);
/* Opens of this process that checked the contents (check_records), for
 * the tests. */
unsigned long vmr_content_checks(void);
/* The checks of the contents, by revision: raise it with any change to
 * check_records, so that no file verified by older checks skips newer
 * ones. */
#define VMR_CHECK_REVISION 1

/* Value of KEY in the metadata, copied into buf; NULL when absent. */
const char *vmr_meta_get(const struct vmr *v, const char *key, char *buf, size_t len);

/* Calls FN with the value of every KEY line of the metadata, in order. */
void vmr_meta_each(const struct vmr *v, const char *key,
		   void (*fn)(void *arg, const char *value, size_t len), void *arg);

/* ---- What a session's values may be (vmr_meta.c) ------------------- */

/* Base page sizes Linux has: 4 KiB (x86), 16 and 64 KiB (arm64, ppc64),
 * 256 KiB (hexagon).  The replay divides by page_size / 1024. */
#define VMR_PAGE_SIZE_MIN  4096u
#define VMR_PAGE_SIZE_MAX  (256u << 10)
/* Memory sizes (limits, RAM, swap) up to 4 PiB: 2^52, x86-64's physical
 * address space. */
#define VMR_BYTES_MAX      (1ull << 52)
/* A trace's cgroup path, relative to the session's cgroup: the levels the
 * replay builds (mem_cgroup_from_path) and the bytes it keeps. */
#define VMR_CGROUP_DEPTH_MAX 4
#define VMR_CGROUP_PATH_MAX  127
#define VMR_XSTR(x) #x
#define VMR_STR(x) VMR_XSTR(x)

/* NULL when PATH (LEN bytes) is a cgroup path a replay can build, else
 * why not ("nests deeper than 4 levels"). */
const char *vmr_cgroup_path_check(const char *path, size_t len);
/* Checks a META "cgroup" value, "PID LIMIT SWAPPINESS PATH"; 0 or -1
 * with the reason in err. */
int vmr_cgroup_line_check(const char *val, size_t len, uint64_t page_size, char *err, size_t errlen);
/* Checks every line of a META section and the values of the keys a
 * replay reads (page_size, sizes, swappiness, cgroup lines); 0 or -1. */
int vmr_meta_check(const char *meta, size_t size, char *err, size_t errlen);

/* Lower-case hex of the trace hash; buf must hold 33 bytes. */
void vmr_hash_hex(const uint8_t hash[16], char buf[33]);

#endif
