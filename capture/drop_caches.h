/*
 * drop_caches.h — the machine's whole page cache, with its shadow
 * entries, written back and dropped before a capture (--drop-caches), and
 * how warm the page cache is when a session starts.
 */
#ifndef VMREPLAY_DROP_CACHES_H
#define VMREPLAY_DROP_CACHES_H

#include <stddef.h>
#include <stdint.h>

/* The page cache of the whole machine at one moment. */
struct page_cache_state {
	uint64_t cached_kb;         /* /proc/meminfo Cached */
	uint64_t workingset_nodes;  /* /proc/vmstat: xarray nodes holding shadow entries */
};

/* Reads the state; 0, or -1 with a one-line reason in ERR. */
int page_cache_state(struct page_cache_state *s, char *err, size_t errlen);

/* sync(), then 1 into /proc/sys/vm/drop_caches: every clean unmapped
 * page-cache folio of every file system leaves, and so do the shadow
 * entries of every mapping in memory.  Returns 0, or -1 with a one-line
 * reason in ERR. */
int drop_caches(char *err, size_t errlen);

#endif
