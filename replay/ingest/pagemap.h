/*
 * pagemap.h — dense page ids for ingest.
 *
 * The replay never hashes addresses: ingest gives every distinct page of
 * the trace a small integer (0, 1, 2, … in order of first touch), so that
 * the simulators index flat arrays.  Pages are looked up 64 at a time
 * (one hash probe per 64-page chunk of an address space or file), which
 * keeps ingest close to the decoder's own speed on range events.
 */
#ifndef PAGEMAP_H
#define PAGEMAP_H

#include <stdint.h>
#include "vmr/vmr.h"

#define PAGEMAP_CHUNK_SHIFT 6
#define PAGEMAP_CHUNK       (1u << PAGEMAP_CHUNK_SHIFT)
#define PAGEMAP_NONE        UINT32_MAX

struct pagemap_chunk {
	uint64_t space, ino, key;      /* key = chunk number | kind << 63 */
	uint32_t id[PAGEMAP_CHUNK];
	uint32_t next_in_file;         /* file chunks: chain for file_drop */
};

struct pagemap {
	struct pagemap_chunk *chunks;
	uint32_t nr_chunks, cap_chunks;
	uint32_t *slots;               /* open addressing: chunk index + 1 */
	uint64_t nr_slots;
	struct vmr_page *pages;        /* what each id stands for          */
	uint32_t nr_pages, cap_pages;
	struct pm_file *files;         /* (dev, ino) → first chunk        */
	uint32_t *file_slots;
	uint32_t nr_files, cap_files;
	uint64_t nr_file_slots;
};

int pagemap_init(struct pagemap *pm);
void pagemap_free(struct pagemap *pm);

/* The chunk holding page INDEX of (kind, space, ino), created when CREATE;
 * NULL when absent (or out of memory, with *oom set). */
struct pagemap_chunk *pagemap_chunk(struct pagemap *pm, enum vmr_page_kind kind,
				    uint64_t space, uint64_t ino, uint64_t index,
				    int create, int *oom);
/* Starts loading the chunk entry of page INDEX of (kind, space, ino)
 * into the cache, for a lookup soon after (nothing when its first probe
 * is empty).  A lookup's time is its cache misses: the slot, then the
 * chunk's key and ids, 1.2 MB for the 262144 pages of a 1 GiB storm. */
void pagemap_prefetch(const struct pagemap *pm, enum vmr_page_kind kind, uint64_t space,
		      uint64_t ino, uint64_t index);
/* Gives page INDEX of chunk C, which has no id yet, the next free one
 * (nr_pages: ids go in order of first touch) and returns it; PAGEMAP_NONE
 * when out of memory or of ids. */
uint32_t pagemap_new_id(struct pagemap *pm, struct pagemap_chunk *c, uint64_t index);

/* Calls FN for every id already assigned to file (dev, ino). */
void pagemap_file_pages(struct pagemap *pm, uint64_t dev, uint64_t ino,
			void (*fn)(void *arg, uint32_t id), void *arg);

#endif
