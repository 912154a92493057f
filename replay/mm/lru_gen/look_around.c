/*
 * look_around.c — MGLRU's look-around, after mm/vmscan.c: a young PTE met
 * by eviction's rmap walk makes the PTEs around it in the same page table
 * count as the aging walk would (lru_gen_look_around), and the second
 * sighting of a young folio promotes it (lru_gen_set_refs).  The
 * neighbours are the trace's pages in address order, indexed once.
 *
 * Left out (DEVIATIONS.md, "MGLRU"): VMA boundaries, the Bloom filter
 * feedback to the aging walk.
 */
#include "lru_gen.h"
#include "mm/internal.h"
#include "sim/page_order.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The address order's sort keys: mapping id << 40 | page index. */
#define ADDR_INDEX_BITS 40
#define ADDR_INDEX_MASK ((1ull << ADDR_INDEX_BITS) - 1)
/* The PTEs of one page table: the look-around's range lies in one. */
#define ADDR_PTRS_PER_TABLE 512u

/* lru_gen_set_refs: a young PTE found on the rmap walk of eviction: the
 * first sighting marks PG_referenced (KEEP), a second promotes (ACTIVATE
 * with PG_workingset: back into max_seq). */
int lru_gen_set_refs(struct folio *f)
{
	if (!(f->flags & (PG_referenced | PG_workingset))) {
		f->gen_refs &= 0xf0;
		f->flags |= PG_referenced;
		return 0;
	}
	folio_clear_refs_flags(f);
	f->flags |= PG_workingset;
	return 1;
}

/* walk_update_folio for look-around: with a walk context folio_update_gen
 * (lazy), without lru_gen_set_refs and folio_activate. */
static void walk_update_folio(struct engine *e, uint32_t pfn, int walk, int new_gen)
{
	struct folio *f = &e->folio[pfn];
	if (walk) {
		int old_gen = patch_k612_refs(e) ? folio_update_gen_612(f, new_gen) :
						   folio_update_gen(f, new_gen);
		if (old_gen >= 0 && old_gen != new_gen)
			lru_gen_update_size(e, f->memcg, mglru_lruvec(e, f->memcg), f, old_gen, new_gen);
	} else if (lru_gen_set_refs(f)) {
		int old_gen = folio_lru_gen(f);
		if (old_gen >= 0 && old_gen != new_gen)
			folio_activate(e, pfn);
	}
}

/* One PTE of the look-around's range: page N's in MM, met by the scan
 * around a young PTE of MEMCG's; GEN is max_seq's generation. */
static inline __attribute__((always_inline)) void look_around_pte(struct engine *e, uint32_t n, uint32_t mm,
								   int memcg, int walk, int gen)
{
	struct folio *nf = &e->folio[n];
	/* get_pte_pfn: present and young in MM's page table;
	 * get_pfn_folio: on the lrugen lists of the same memcg */
	if (!(nf->flags & PG_resident) || !folio_pte_young(e, n, mm) || nf->memcg != memcg)
		return;
	if (folio_lru_gen(nf) < 0) {
		/* 6.12 (mglru+k6.12-refs): an isolated neighbour is marked
		 * for shrink_folio_list, which keeps it; the mm tree's
		 * get_pfn_folio skips it */
		if (!patch_k612_refs(e) || !(nf->flags & PG_isolated))
			return;
		folio_pte_mkold(e, n, mm);
		nf->flags |= PG_referenced;
		return;
	}
	folio_pte_mkold(e, n, mm);
	if (patch_k612_refs(e) && !walk) {
		/* 6.12 without a walk context: activated at once */
		if (folio_lru_gen(nf) != gen) {
			folio_clear_lru_refs(e, nf);
			folio_activate(e, n);
		}
		return;
	}
	walk_update_folio(e, n, walk, gen);
}

/* lru_gen_look_around: the PTE of PFN in address space MM was young;
 * scan the PTEs around it in the same page table (a 2 MiB-aligned range of the address space,
 * clamped to MIN_LRU_BATCH pages around it) and treat every other young
 * folio of the same memcg as the aging walk would.  Neighbours are the
 * trace's pages of the same address space (anon: pid and virtual page
 * number; file: inode and page offset) with a young PTE in MM —
 * VMA boundaries and the Bloom filter feedback are not modelled. */
void lru_gen_look_around(struct engine *e, uint32_t pfn, struct scan_control *sc, uint32_t mm)
{
	struct mglru *m = mglru_of(e);
	const struct folio *f = &e->folio[pfn];
	uint32_t rank = m->addr_rank[pfn];
	uint32_t key = m->addr_map[rank].key;
	uint32_t addr = key & (ADDR_PTRS_PER_TABLE - 1);
	uint32_t start = 0, end = ADDR_PTRS_PER_TABLE;
	if (end - start > MIN_LRU_BATCH) {
		if (addr - start < MIN_LRU_BATCH / 2)
			end = start + MIN_LRU_BATCH;
		else if (end - addr < MIN_LRU_BATCH / 2)
			start = end - MIN_LRU_BATCH;
		else {
			start = addr - MIN_LRU_BATCH / 2;
			end = addr + MIN_LRU_BATCH / 2;
		}
	}
	/* The folios of the ranks the range can hold, prefetched before the
	 * scan: its test of each neighbour's flags is a branch that goes
	 * either way, so a scan of the folio array's cold lines took one
	 * cache miss after another (a third of mglru's time on a Zipf
	 * stream).  The ranks' page ids are read in order. */
	uint32_t lo = addr - start < rank ? rank - (addr - start) : 0;
	uint64_t hi = (uint64_t)rank + (end - addr) < e->nr_folios ? rank + (end - addr) : e->nr_folios;
	for (uint32_t r = lo; r < hi; r++)
		prefetch_folio(&e->folio[m->addr_map[r].pfn]);
	int memcg = f->memcg;
	int gen = lru_gen_from_seq(mglru_lruvec(e, memcg)->max_seq);
	int walk = sc->sim.mm_walk;
	/* The range in keys: [KEY_LO, KEY_LO + LEN) of PFN's page table.
	 * The neighbours are the ranks below PFN's down to the first key
	 * outside it, then those above it up to the first key outside it
	 * (one compare each: a key of another page table, below or above,
	 * is at least ADDR_PTRS_PER_TABLE - START from KEY_LO, modulo 2^32:
	 * the tables' numbers within a range of ranks differ by far less
	 * than 2^23). */
	uint32_t key_lo = key - addr + start, len = end - start;
	for (uint32_t r = rank; r > 0 && m->addr_map[r - 1].key - key_lo < len; r--)
		look_around_pte(e, m->addr_map[r - 1].pfn, mm, memcg, walk, gen);
	for (uint32_t r = rank + 1; r < e->nr_folios && m->addr_map[r].key - key_lo < len; r++)
		look_around_pte(e, m->addr_map[r].pfn, mm, memcg, walk, gen);
}

/* Pages in (mapping, page index) order, a mapping being an anon address
 * space or a file (indices past 2^40 pages wrap: DEVIATIONS.md):
 * addr_map[rank] = { key, page id }, addr_rank[page id] = rank.  The key
 * is the page's place in its page table (index % ADDR_PTRS_PER_TABLE)
 * under the table's number (the page tables the trace's pages are in,
 * numbered in rank order, each (mapping, index / ADDR_PTRS_PER_TABLE)
 * one, the number wrapping at 2^23): all the look-around compares, and
 * with the page id in the same 8 bytes a range's scan reads one array,
 * half the cache lines of 64-bit keys and page ids apart.  Mapping ids
 * come from a hash table; the (mapping, index) keys are radix sorted, so
 * building costs O(pages), in the two arrays and one scratch array of
 * page ids (four more bytes a page only while building, as the 64-bit
 * keys by rank cost for good before).  The order is the trace's alone:
 * built once per open trace (page_order.h) and shared by its replays.
 */
struct addr_order {
	struct lru_gen_addr *addr_map;
	uint32_t *addr_rank;
	size_t nr;                      /* pages, each array's length */
};

/* The arrays are read at random, once per look-around: on a large
 * trace each read was a TLB miss as well as a cache miss, so an array of
 * a huge page or more asks for transparent huge pages (a hint), as the
 * folio array does (alloc_node_mem_map). */
#define ADDR_HUGE (2u << 20)
static void *addr_array_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (bytes >= ADDR_HUGE)
		madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

static void addr_array_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes);
}

static void addr_order_free(void *data)
{
	struct addr_order *a = data;
	addr_array_free(a->addr_map, a->nr * sizeof(*a->addr_map));
	addr_array_free(a->addr_rank, a->nr * sizeof(uint32_t));
	free(a);
}

/* The mapping table: (space, ino, kind) -> mapping id, open addressing. */
struct mapping {
	uint64_t space, ino;
	uint32_t kind, id;              /* id 0: a free slot */
};

static inline uint32_t mapping_hash(uint64_t space, uint64_t ino, uint32_t kind, uint32_t cap)
{
	uint64_t h = (space * 0x9E3779B97F4A7C15ull) ^ (ino * 0xC2B2AE3D27D4EB4Full) ^ kind;
	return (uint32_t)(h >> 32) & (cap - 1);
}

/* The slot of page P's mapping: its own, or the free one it goes to. */
static inline uint32_t mapping_slot(const struct mapping *tab, uint32_t cap, const struct vmr_page *p)
{
	uint32_t k = mapping_hash(p->space, p->ino, p->kind, cap);
	while (tab[k].id && (tab[k].space != p->space || tab[k].ino != p->ino || tab[k].kind != p->kind))
		k = (k + 1) & (cap - 1);
	return k;
}

static struct addr_order *addr_order_build(const struct vmr *v)
{
	uint32_t n = (uint32_t)v->hdr->nr_pages;
	const struct vmr_page *pg = v->pages;
	uint32_t cap = 64, nr_ids = 0;
	struct mapping *tab = calloc(cap, sizeof(*tab));
	struct addr_order *m = calloc(1, sizeof(*m));
	uint32_t *order = NULL;
	if (!m)
		goto out;
	m->nr = n ? n : 1;
	m->addr_map = addr_array_alloc(m->nr * sizeof(*m->addr_map));
	m->addr_rank = addr_array_alloc(m->nr * sizeof(uint32_t));
	order = addr_array_alloc(m->nr * sizeof(uint32_t));
	if (!tab || !m->addr_map || !m->addr_rank || !order)
		goto out;
	/* While sorting: addr_map holds the sort key of each page id,
	 * addr_rank is the scratch copy of ORDER. */
	uint64_t *key = (uint64_t *)m->addr_map;
	uint32_t *tmpo = m->addr_rank;
	_Static_assert(sizeof(*m->addr_map) == sizeof(*key), "addr_map holds the sort keys");
	for (uint32_t i = 0; i < n; i++) {
		if (2 * (nr_ids + 1) > cap) {
			uint32_t ncap = cap * 2;
			struct mapping *nt = calloc(ncap, sizeof(*tab));
			if (!nt)
				goto out;
			for (uint32_t j = 0; j < cap; j++) {
				if (!tab[j].id)
					continue;
				uint32_t k = mapping_hash(tab[j].space, tab[j].ino, tab[j].kind, ncap);
				while (nt[k].id)
					k = (k + 1) & (ncap - 1);
				nt[k] = tab[j];
			}
			free(tab);
			tab = nt;
			cap = ncap;
		}
		uint32_t k = mapping_slot(tab, cap, &pg[i]);
		if (!tab[k].id) {
			tab[k].space = pg[i].space;
			tab[k].ino = pg[i].ino;
			tab[k].kind = pg[i].kind;
			tab[k].id = ++nr_ids;       /* ids from 1: 0 marks a free slot */
		}
		key[i] = (uint64_t)tab[k].id << ADDR_INDEX_BITS | (pg[i].index & ADDR_INDEX_MASK);
		order[i] = i;
	}
	/* LSD radix sort of the page ids by key, a byte at a time, skipping
	 * bytes no two keys differ in; stable, so equal keys keep page id
	 * order. */
	uint64_t diff = 0;
	for (uint32_t i = 1; i < n; i++)
		diff |= key[i] ^ key[0];
	for (int shift = 0; shift < 64; shift += 8) {
		if (!((diff >> shift) & 0xff))
			continue;
		uint32_t count[257] = { 0 };
		for (uint32_t i = 0; i < n; i++)
			count[((key[i] >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (uint32_t i = 0; i < n; i++) {
			uint32_t id = order[i];
			tmpo[count[(key[id] >> shift) & 0xff]++] = id;
		}
		memcpy(order, tmpo, (size_t)n * sizeof(*tmpo));
	}
	/* Every page's key and id at its rank: the key made again from the
	 * page (its mapping is in the table), in place, as the keys by page
	 * id are no longer needed.  Moving them along the permutation's
	 * cycles instead was a chain of dependent cache misses: 60 % of a
	 * replay's time on an 81-s kernel-build capture (2.3 M pages); these
	 * loads are independent of each other.  A page table's number goes
	 * up by one from rank to rank where the table changes. */
	uint64_t table = 0, last = 0;
	for (uint32_t r = 0; r < n; r++) {
		if (r + 16 < n)
			__builtin_prefetch(&pg[order[r + 16]]);
		const struct vmr_page *p = &pg[order[r]];
		uint64_t k = (uint64_t)tab[mapping_slot(tab, cap, p)].id << ADDR_INDEX_BITS |
			     (p->index & ADDR_INDEX_MASK);
		if (r && k / ADDR_PTRS_PER_TABLE != last)
			table++;
		last = k / ADDR_PTRS_PER_TABLE;
		m->addr_map[r].key = (uint32_t)(table * ADDR_PTRS_PER_TABLE + k % ADDR_PTRS_PER_TABLE);
		m->addr_map[r].pfn = order[r];
	}
	for (uint32_t r = 0; r < n; r++)
		m->addr_rank[order[r]] = r;
	addr_array_free(order, m->nr * sizeof(uint32_t));
	free(tab);
	return m;
out:
	addr_array_free(order, m ? m->nr * sizeof(uint32_t) : 0);
	free(tab);
	if (m)
		addr_order_free(m);
	return NULL;
}

int mglru_build_addr_order(struct engine *e, struct mglru *m)
{
	struct vmr_derived *d = e->v->derived;
	if (!d->data[DERIVED_MGLRU_ADDR]) {
		struct addr_order *a = addr_order_build(e->v);
		if (!a)
			return -1;
		d->data[DERIVED_MGLRU_ADDR] = a;
		d->free[DERIVED_MGLRU_ADDR] = addr_order_free;
	}
	const struct addr_order *a = d->data[DERIVED_MGLRU_ADDR];
	m->addr_map = a->addr_map;
	m->addr_rank = a->addr_rank;
	return 0;
}
