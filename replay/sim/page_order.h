/*
 * page_order.h — page ids in address order, for the setup of the
 * mechanisms that look at neighbours in a mapping (swap read-ahead's
 * window, the page cache's xarray nodes).
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

#endif
