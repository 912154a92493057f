/*
 * page_order.h — page ids in address order, for the setup of the
 * mechanisms that look at neighbours in a mapping (swap read-ahead's
 * window, the page cache's xarray nodes, MGLRU's look-around).  They
 * depend on the trace alone, so each is built once per open trace
 * (struct vmr.derived) and shared, read-only, by its replays.
 */
#ifndef PAGE_ORDER_H
#define PAGE_ORDER_H

#include <stdint.h>

#include "vmr/vmr.h"

/* Sorts the N page ids of IDS by their pages' (space, ino, index), or
 * (space, index) when !BY_INO, ascending; stable (equal keys keep the
 * ids' order).  An LSD radix sort, a byte at a time over the bytes the
 * keys differ in: O(N) per byte, where a comparison sort through the
 * page table costs a cache miss per comparison and was a tenth of a
 * short session's replay.  0, or -1 out of memory (IDS unchanged). */
int sort_pages_by_addr(const struct vmr_page *pages, uint32_t *ids, uint32_t n, int by_ino);

/* The trace's pages of one kind, by address. */
struct page_ids {
	uint32_t nr;
	uint32_t id[];
};

/* The anonymous pages by (space, index), and the file pages by (space,
 * ino, index), of V: built on first use and kept until vmr_close.  NULL
 * out of memory. */
const struct page_ids *pages_anon_by_addr(const struct vmr *v);
const struct page_ids *pages_file_by_addr(const struct vmr *v);

/* The slots of vmr_derived: these two, MGLRU's look-around order
 * (lru_gen/look_around.c) and the page cache's xarray nodes
 * (workingset.c). */
enum { DERIVED_ANON_BY_ADDR, DERIVED_FILE_BY_ADDR, DERIVED_MGLRU_ADDR, DERIVED_XA_SHAPE, DERIVED_NR };
_Static_assert(DERIVED_NR <= VMR_NR_DERIVED, "vmr_derived has a slot for each");

#endif
