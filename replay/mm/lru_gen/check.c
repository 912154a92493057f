/*
 * check.c — the invariants of the MGLRU state (tests, and every
 * eviction and aging step in a -DMGLRU_DEBUG build): the generation window,
 * the lists against folio flags and sizes, nr_pages against the gen
 * fields, the active/inactive sizes shared code reads, the per-lruvec
 * isolation counters, and no folio lost.
 */
#include "lru_gen.h"
#include "mm/lru_ring.h"
#include "mm/mm_inline.h"

#include <stdio.h>
#include <stdlib.h>

/* mglru_check: the invariants of every lruvec — the generation window,
 * lists against flags and sizes, nr_pages against the gen fields, the
 * active/inactive sizes shared code reads, and no folio lost: every
 * resident folio is on a list or isolated.  0, or -1 with the first
 * violation in ERR. */
int mglru_check(struct engine *e, char *err, size_t len)
{
	struct mglru *m = mglru_of(e);
	int64_t *count = calloc((size_t)m->nr_lrugen * MAX_NR_GENS * ANON_AND_FILE, sizeof(*count));
	uint64_t listed = 0, resident = 0, isolated = 0;
	int rc = -1;
	if (!count) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	for (int mc = 0; mc < m->nr_lrugen; mc++) {
		const struct lru_gen_folio *lv = m->lrugen[mc];
		for (int type = 0; type < ANON_AND_FILE; type++) {
			int n = get_nr_gens(lv, type);
			if (n < (int)MIN_NR_GENS || n > (int)MAX_NR_GENS) {
				snprintf(err, len, "memcg %d type %d: %d generations", mc, type, n);
				goto out;
			}
		}
		for (unsigned gen = 0; gen < MAX_NR_GENS; gen++)
			for (int type = 0; type < ANON_AND_FILE; type++) {
				const struct lru_ring *r = &lv->folios[gen][type];
				unsigned lru = gen * 2 + (unsigned)type;
				uint32_t on_list = 0;
				if (r->nr > r->size) {
					snprintf(err, len, "memcg %d list %u/%d: %u entries in %u slots",
						 mc, gen, type, r->nr, r->size);
					goto out;
				}
				for (uint32_t k = 0; k < r->nr; k++) {
					uint32_t pos = lru_ring_wrap(r, r->tail + k);
					uint32_t pfn = r->slot[pos];
					if (pfn >= e->nr_folios) {
						snprintf(err, len, "memcg %d list %u/%d: entry %u is page %u",
							 mc, gen, type, pos, pfn);
						goto out;
					}
					if (!lru_ring_alive(e, mc, lru, pfn, pos))
						continue;
					const struct folio *f = &e->folio[pfn];
					int g = folio_lru_gen(f);
					if (folio_is_file_lru(f) != type ||
					    (f->flags & (PG_lru | PG_isolated | PG_resident | PG_active)) !=
					    (PG_lru | PG_resident) || g < 0) {
						snprintf(err, len, "memcg %d list %u/%d: folio %u misfiled "
							 "(flags %#x lru %u gen %d)", mc, gen, type, pfn,
							 f->flags, f->lru, g);
						goto out;
					}
					/* No list older than min_seq holds folios (mid-aging,
					 * with a type not moved by inc_min_seq, it may).  The
					 * gen field is not compared with the list: the known
					 * inversion leaves lazily promoted folios behind. */
					uint64_t seq_list = lv->max_seq - (uint64_t)((lru_gen_from_seq(lv->max_seq) - (int)gen + 4) % 4);
					if (!e->sim.current && seq_list < lv->min_seq[type]) {
						snprintf(err, len, "memcg %d: folio %u on gen %u has gen %d "
							 "(min %llu max %llu)", mc, pfn, gen, g,
							 (unsigned long long)lv->min_seq[type],
							 (unsigned long long)lv->max_seq);
						goto out;
					}
					count[((size_t)mc * MAX_NR_GENS + (size_t)g) * ANON_AND_FILE + (size_t)type]++;
					listed++;
					on_list++;
				}
				if (lv->nr_listed[gen][type] != on_list) {
					snprintf(err, len, "memcg %d list %u/%d: %u folios listed, %u on it",
						 mc, gen, type, lv->nr_listed[gen][type], on_list);
					goto out;
				}
			}
		uint64_t size[NR_LRU_LISTS] = { 0 };
		for (unsigned gen = 0; gen < MAX_NR_GENS; gen++)
			for (int type = 0; type < ANON_AND_FILE; type++) {
				int64_t c = count[((size_t)mc * MAX_NR_GENS + gen) * ANON_AND_FILE + (size_t)type];
				if (lv->nr_pages[gen][type] != c) {
					snprintf(err, len, "memcg %d: nr_pages[%u][%d] %lld, %lld folios", mc,
						 gen, type, (long long)lv->nr_pages[gen][type], (long long)c);
					goto out;
				}
				size[type * 2 + lru_gen_is_active(lv, (int)gen)] += (uint64_t)c;
			}
		for (int l = 0; l < NR_LRU_LISTS; l++)
			if (size[l] != e->memcgs[mc].lruvec.size[l]) {
				snprintf(err, len, "memcg %d: lru size[%d] %llu, generations say %llu", mc, l,
					 (unsigned long long)e->memcgs[mc].lruvec.size[l],
					 (unsigned long long)size[l]);
				goto out;
			}
	}
	uint64_t *iso = calloc((size_t)m->nr_lrugen * ANON_AND_FILE, sizeof(*iso));
	if (!iso) {
		snprintf(err, len, "out of memory");
		goto out;
	}
	for (uint32_t pfn = 0; pfn < e->nr_folios; pfn++)
		if (e->folio[pfn].flags & PG_isolated)
			iso[(size_t)e->folio[pfn].memcg * ANON_AND_FILE + (size_t)folio_is_file_lru(&e->folio[pfn])]++;
	for (int mc = 0; mc < m->nr_lrugen; mc++)
		for (int type = 0; type < ANON_AND_FILE; type++)
			/* shrink_folio_list frees folios before their batch is put
			 * back: mid-flight the counter may be ahead */
			if (m->lrugen[mc]->nr_isolated[type] < iso[(size_t)mc * ANON_AND_FILE + (size_t)type] ||
			    (!e->sim.current &&
			     m->lrugen[mc]->nr_isolated[type] != iso[(size_t)mc * ANON_AND_FILE + (size_t)type])) {
				snprintf(err, len, "memcg %d: nr_isolated[%d] %llu, %llu folios isolated", mc,
					 type, (unsigned long long)m->lrugen[mc]->nr_isolated[type],
					 (unsigned long long)iso[(size_t)mc * ANON_AND_FILE + (size_t)type]);
				free(iso);
				goto out;
			}
	free(iso);
	for (uint32_t pfn = 0; pfn < e->nr_folios; pfn++) {
		const struct folio *f = &e->folio[pfn];
		resident += !!(f->flags & PG_resident);
		isolated += (f->flags & (PG_resident | PG_isolated)) == (PG_resident | PG_isolated);
		if (!(f->flags & PG_resident) && f->gen_refs) {
			snprintf(err, len, "folio %u: not resident, gen_refs %#x", pfn, f->gen_refs);
			goto out;
		}
	}
	if (listed + isolated != resident) {
		snprintf(err, len, "%llu listed + %llu isolated != %llu resident",
			 (unsigned long long)listed, (unsigned long long)isolated,
			 (unsigned long long)resident);
		goto out;
	}
	rc = 0;
out:
	free(count);
	return rc;
}

