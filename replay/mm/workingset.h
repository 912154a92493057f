/* workingset.h — refault detection (mm/workingset.c), classic LRU. */
#ifndef WORKINGSET_H
#define WORKINGSET_H

#include "vmscan.h"

void workingset_age_nonresident(struct engine *e, int memcg, uint64_t nr);
void workingset_activation(struct engine *e, uint32_t pfn);
void workingset_eviction(struct engine *e, uint32_t pfn, int target_memcg);
void workingset_refault(struct engine *e, uint32_t pfn);

#endif
