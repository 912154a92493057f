/*
 * lru.h — the reference replay: one exact, page-granular LRU list.
 *
 * Not a model of the kernel: a textbook LRU of a fixed number of pages,
 * fed with every access of the trace in recorded time order.  It is the
 * oracle other policies are checked against and the baseline for replay
 * speed.  Pages are dense ids, so the list is two arrays of indices.
 */
#ifndef LRU_H
#define LRU_H

#include <stdint.h>
#include "vmr/vmr.h"

struct lru_result {
	uint64_t capacity;             /* pages */
	uint64_t accesses, hits, misses, cold_misses, evictions, frees;
	uint64_t peak_resident;
};

struct lru {
	uint32_t *prev, *next;         /* LRU_NIL-terminated; head = most recent */
	uint8_t  *state;               /* 0 never seen, 1 resident, 2 evicted/freed */
	uint32_t head, tail;
	uint64_t nr_pages, resident;
	struct lru_result r;
};

int  lru_init(struct lru *l, uint64_t nr_pages, uint64_t capacity);
void lru_free(struct lru *l);
/* One access to PAGE (any op but FREE and DELAY). */
void lru_access(struct lru *l, uint32_t page);
/* PAGE was released by its owner: it leaves memory without an eviction. */
void lru_release(struct lru *l, uint32_t page);

/* Replays the whole .vmr against an LRU of CAPACITY pages. */
int lru_replay(const struct vmr *v, uint64_t capacity, struct lru_result *out);

#endif
