/*
 * swap_state.h — swap-in read-ahead, after mm/swap_state.c: by virtual
 * address (swap_vma_readahead, swap_ra_info) or by swap offset
 * (swap_cluster_readahead), as swap_use_vma_readahead chooses, with the
 * window __swapin_nr_pages sizes from read-ahead hits.
 */
#ifndef SWAP_STATE_H
#define SWAP_STATE_H

#include <stdint.h>

struct engine;

/* The window is at most 1 << vm.page-cluster pages (3 by default), and
 * the VMA window at most 1 << SWAP_RA_ORDER_CEILING (5 on 64-bit). */
#define SWAP_RA_ORDER_CEILING 5
#define SWAP_RA_HITS_MAX      63     /* SWAP_RA_HITS_MASK, 4 KiB pages */
#define SWAP_RA_MAX_WIN       (1u << SWAP_RA_ORDER_CEILING)

/* Per address space read-ahead state: vma->swap_readahead_info (the
 * last fault's page, the window it used, the hits since). */
struct swap_ra_info {
	uint64_t addr;               /* virtual page number */
	uint32_t win, hits;
};

/* What read-ahead needs: the anonymous pages in address order (VMA
 * read-ahead), or the swap slots' positions (cluster read-ahead).  0, or
 * -1 out of memory. */
int swap_ra_init(struct engine *e);
void swap_ra_free(struct engine *e);

/* Does a swap-in of PFN read ahead at all (a queued device: zram's
 * SWP_SYNCHRONOUS_IO swap-in skips the swap cache and read-ahead)? */
int swap_use_readahead(const struct engine *e);
/* swap_use_vma_readahead: by virtual address, unless vma_ra_enabled is
 * off or a swap device is rotational (nr_rotate_swap). */
int swap_use_vma_readahead(const struct engine *e);

/* The read-ahead window for a swap-in fault on anonymous page PFN by
 * process PROC: updates the read-ahead state and writes to IDS (room for
 * SWAP_RA_MAX_WIN) the other pages of the window that are in swap and not
 * in memory, in address (VMA) or slot (cluster) order.  Returns how many. */
uint32_t swap_ra_window(struct engine *e, uint32_t proc, uint32_t pfn, uint32_t *ids);

/* swap_cache_get_folio: a fault found PFN in the swap cache (read in but
 * not mapped yet): the address moves there, and a read-ahead page that
 * was used counts as a hit. */
void swap_ra_hit(struct engine *e, uint32_t proc, uint32_t pfn, int was_readahead);

/* __swapin_nr_pages: the window for a fault at OFFSET after one at
 * PREV_OFFSET, with HITS read-ahead hits and the previous window. */
unsigned int swapin_nr_pages(uint64_t prev_offset, uint64_t offset, unsigned int hits,
			     unsigned int max_pages, unsigned int prev_win);

#endif
