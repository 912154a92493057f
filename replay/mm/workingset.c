/*
 * workingset.c — refault detection, after mm/workingset.c: the shadow
 * an evicted folio leaves, and what its refault says (activation,
 * restore, the cost that tilts reclaim).  Classic: the lruvec's
 * nonresident_age clock and the refault distance.  MGLRU
 * (lru_gen_eviction, lru_gen_refault, entered where the kernel enters
 * them): the generation the folio was evicted from and its tier, which
 * feed the PID controller.
 *
 * The page cache's shadow entries live in xa_nodes of 64 slots; a node
 * holding nothing but shadows sits on its memcg's shadow_nodes list, and
 * the shadow shrinker (count_shadow_nodes, scan_shadow_nodes, called by
 * shrinker.c's do_shrink_slab) frees the oldest such nodes, their
 * shadows with them, when there are more than the memcg's LRU size / 8.
 * Swap-cache shadows live in the swap table (mm/swap_table.h), on no
 * such list.
 *
 * Left out (DEVIATIONS.md): the xarray's inner nodes (only the leaves
 * hold entries); a node's memcg is that of the folio whose eviction left
 * it shadows only (the kernel's: the task that allocated it).
 */
#include "internal.h"
#include "vmscan.h"
#include "sim/page_order.h"

#include <stdlib.h>
#include <string.h>

/* The shadow's token is the clock modulo 2^32 (EVICTION_MASK: the kernel
 * also packs a truncated clock into the shadow entry). */
#define EVICTION_MASK 0xffffffffull

/* workingset_age_nonresident: the lruvec and every ancestor age. */
void workingset_age_nonresident(struct engine *e, int memcg, uint64_t nr)
{
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent)
		e->memcgs[m].lruvec.nonresident_age += nr;
}

/* workingset_activation: folio_mark_accessed activated a folio. */
void workingset_activation(struct engine *e, uint32_t pfn)
{
	workingset_age_nonresident(e, e->folio[pfn].memcg, 1);
}

/* ---- MGLRU ----------------------------------------------------------- */

/* lru_gen_eviction: the shadow names the folio's own lruvec (not the
 * reclaim target), the oldest generation of its type and its fd access
 * count; the eviction feeds the PID controller. */
static void lru_gen_eviction(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	struct lru_gen_folio *lrugen = mglru_lruvec(e, f->memcg);
	int type = folio_is_file_lru(f);
	int refs = folio_lru_refs(f);
	int ws = !!(f->flags & PG_workingset);
	int tier = lru_tier_from_refs(refs, ws);
	uint64_t min_seq = lrugen->min_seq[type];

	/* 6.12 (mglru+k6.12-tiers): refs are the refs bits plus
	 * PG_workingset, and the shadow's workingset bit says refs > 0 */
	if (patch_k612_tiers(e)) {
		refs = folio_lru_refs_612(f);
		tier = lru_tier_from_refs_612(refs);
		ws = refs > 0;
	}

	uint64_t token = (min_seq << LRU_REFS_WIDTH) | (uint64_t)(refs > 1 ? refs - 1 : 0);
	lrugen->evicted[lru_hist_from_seq(min_seq)][type][tier]++;
	f->shadow = (uint32_t)(token & EVICTION_MASK);
	f->shadow_memcg = f->memcg;
	f->flags |= PG_shadow;
	if (ws)
		f->flags |= PG_shadow_ws;
	else
		f->flags &= ~PG_shadow_ws;
	f->gen_refs = 0;
}

/* lru_gen_test_recent: within MAX_NR_GENS of the evicting lruvec's max_seq. */
static int lru_gen_test_recent(const struct lru_gen_folio *lrugen, uint32_t token)
{
	uint64_t max_seq = lrugen->max_seq & (EVICTION_MASK >> LRU_REFS_WIDTH);
	uint64_t seq = token >> LRU_REFS_WIDTH;
	uint64_t d = max_seq > seq ? max_seq - seq : seq - max_seq;
	return d < MAX_NR_GENS;
}

/* lru_gen_refault as Linux 6.12 has it (mglru+k6.12-tiers; 6.12.117's
 * mm/workingset.c): recent only while the evicting lruvec's oldest
 * generation is the one the folio left (the mm tree: within MAX_NR_GENS
 * of max_seq); a recent refault counts workingset_activate whether or not
 * in a fault, and one in a fault or of a folio accessed three times or
 * more (refs >= BIT(LRU_REFS_WIDTH) - 1) gets every refs bit and
 * PG_workingset back (workingset_restore).  The refs bits of an active
 * folio are dropped again as it joins the LRU (lru_gen_add_folio). */
static void lru_gen_refault_612(struct engine *e, uint32_t pfn, struct lru_gen_folio *lrugen, int ws)
{
	struct folio *f = &e->folio[pfn];
	int type = folio_is_file_lru(f);
	uint64_t min_seq = lrugen->min_seq[type] & (EVICTION_MASK >> LRU_REFS_WIDTH);

	count_vm_events(e, type ? VM_workingset_refault_file : VM_workingset_refault_anon, 1);
	if ((f->shadow >> LRU_REFS_WIDTH) != min_seq)
		return;
	int refs = (int)(f->shadow & ((1u << LRU_REFS_WIDTH) - 1)) + ws;
	int tier = lru_tier_from_refs_612(refs);
	lrugen->refaulted[lru_hist_from_seq(lrugen->min_seq[type])][type][tier]++;
	count_vm_events(e, type ? VM_workingset_activate_file : VM_workingset_activate_anon, 1);
	if (lru_gen_in_fault(e) || refs >= (1 << LRU_REFS_WIDTH) - 1) {
		f->gen_refs = (uint8_t)((f->gen_refs & 0xf0) | 3);
		f->flags |= PG_workingset;
		count_vm_events(e, type ? VM_workingset_restore_file : VM_workingset_restore_anon, 1);
	}
}

/* lru_gen_refault: only a refault into the lruvec that evicted it counts;
 * a recent one feeds the PID controller and restores PG_workingset. */
static void lru_gen_refault(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	int type = folio_is_file_lru(f);

	f->gen_refs = 0;             /* a new folio: no gen, no refs */
	if (!(f->flags & PG_shadow))
		return;
	f->flags &= ~PG_shadow;
	if (f->shadow_memcg != f->memcg)
		return;
	struct lru_gen_folio *lrugen = mglru_lruvec(e, f->shadow_memcg);
	int recent = lru_gen_test_recent(lrugen, f->shadow);
	int ws = !!(f->flags & PG_shadow_ws);

	if (patch_k612_tiers(e)) {
		lru_gen_refault_612(e, pfn, lrugen, ws);
		return;
	}
	count_vm_events(e, type ? VM_workingset_refault_file : VM_workingset_refault_anon, 1);
	if (!recent)
		return;
	int refs = (int)(f->shadow & ((1u << LRU_REFS_WIDTH) - 1)) + 1;
	int tier = lru_tier_from_refs(refs, ws);
	lrugen->refaulted[lru_hist_from_seq(lrugen->min_seq[type])][type][tier]++;
	/* workingset_activate counts a recent refault in a page fault. */
	if (lru_gen_in_fault(e))
		count_vm_events(e, type ? VM_workingset_activate_file : VM_workingset_activate_anon, 1);
	if (ws) {
		f->flags |= PG_workingset;
		count_vm_events(e, type ? VM_workingset_restore_file : VM_workingset_restore_anon, 1);
	} else {
		/* The refs bits without PG_referenced: inert (reclaim-model §5.2). */
		f->gen_refs = (uint8_t)((f->gen_refs & 0xf0) | (refs - 1));
	}
}

/* ---- the classic LRU ----------------------------------------------------- */

/* workingset_eviction: the shadow reads the clock of the lruvec that
 * drove reclaim (the target memcg, the root for global reclaim). */
void workingset_eviction(struct engine *e, uint32_t pfn, int target_memcg)
{
	if (lru_gen_enabled(e)) {
		lru_gen_eviction(e, pfn);
		return;
	}
	struct folio *f = &e->folio[pfn];
	int m = target_memcg < 0 ? 0 : target_memcg;
	struct lruvec *lv = &e->memcgs[m].lruvec;
	f->shadow = (uint32_t)(lv->nonresident_age & EVICTION_MASK);
	f->shadow_memcg = (uint16_t)m;
	f->flags |= PG_shadow;
	if (f->flags & PG_workingset)
		f->flags |= PG_shadow_ws;
	else
		f->flags &= ~PG_shadow_ws;
	workingset_age_nonresident(e, m, 1);
}

/* Counts a workingset event on the folio's lruvec and its ancestors,
 * as memcg statistics are hierarchical. */
static void count_ws(struct engine *e, int memcg, int file)
{
	for (int m = memcg; m >= 0; m = e->memcgs[m].parent) {
		e->memcgs[m].lruvec.workingset_activate[file]++;
		e->memcgs[m].lruvec.stats_updates++;
	}
}

/* workingset_refault: called when a folio with a shadow is faulted back
 * in (not for buffered writes).  Sets PG_active / PG_workingset before
 * the folio is added to the LRU. */
void workingset_refault(struct engine *e, uint32_t pfn)
{
	if (lru_gen_enabled(e)) {
		lru_gen_refault(e, pfn);
		return;
	}
	struct folio *f = &e->folio[pfn];
	int file = folio_is_file_lru(f);
	if (!(f->flags & PG_shadow))
		return;
	f->flags &= ~PG_shadow;
	count_vm_events(e, file ? VM_workingset_refault_file : VM_workingset_refault_anon, 1);

	int em = f->shadow_memcg;
	struct lruvec *eviction_lruvec = &e->memcgs[em].lruvec;
	uint64_t refault_distance = (eviction_lruvec->nonresident_age - f->shadow) & EVICTION_MASK;

	/* The memory this folio competed for: the active file list, the
	 * inactive file list for anon refaults, and the anon lists when
	 * anon can be swapped (workingset_test_recent). */
	uint64_t workingset_size = lruvec_page_state(e, em, LRU_ACTIVE_FILE);
	if (!file)
		workingset_size += lruvec_page_state(e, em, LRU_INACTIVE_FILE);
	if (e->swap_slots > e->swap_used) {
		workingset_size += lruvec_page_state(e, em, LRU_ACTIVE_ANON);
		if (file)
			workingset_size += lruvec_page_state(e, em, LRU_INACTIVE_ANON);
	}
	if (refault_distance > workingset_size)
		return;

	f->flags |= PG_active;
	workingset_age_nonresident(e, f->memcg, 1);
	count_vm_events(e, file ? VM_workingset_activate_file : VM_workingset_activate_anon, 1);
	count_ws(e, f->memcg, file);
	if (f->flags & PG_shadow_ws) {
		f->flags |= PG_workingset;
		lru_note_cost_refault(e, pfn);
		count_vm_events(e, file ? VM_workingset_restore_file : VM_workingset_restore_anon, 1);
	}
}

/* ---- shadow nodes ---------------------------------------------------------- */

#define XA_CHUNK_SHIFT 6                /* 64 slots a node */
#define NO_NODE UINT32_MAX

struct xa_node {
	uint32_t first, nr;             /* its folios in shadow_nodes.pfns */
	uint32_t prev, next;            /* on a shadow_nodes list: ids + 1 */
	int32_t memcg;                  /* the list it is on, -1 none */
};

struct shadow_nodes {
	const uint32_t *node_of;        /* per folio: its node, NO_NODE if anon (the trace's) */
	const uint32_t *pfns;           /* the file folios, node by node (the trace's) */
	struct xa_node *node;
	uint32_t nr_nodes;
};

/* The xarray's shape: which 64-slot node each file page's index falls in
 * depends on the trace alone, so node_of and the nodes' spans are built
 * once per open trace (vmr.derived) — a pass over every page that was a
 * tenth of a short session's replay setup — and each replay copies the
 * nodes, off every shadow_nodes list, for its own links. */
struct xa_shape {
	uint32_t *node_of;
	struct xa_node *node;           /* first, nr; memcg -1 */
	uint32_t nr_nodes;
};

static void xa_shape_free(void *data)
{
	struct xa_shape *xs = data;
	free(xs->node_of);
	free(xs->node);
	free(xs);
}

static const struct xa_shape *xa_shape_build(const struct vmr *v, const struct page_ids *file)
{
	struct vmr_derived *d = v->derived;
	if (d->data[DERIVED_XA_SHAPE])
		return d->data[DERIVED_XA_SHAPE];
	const struct vmr_page *pg = v->pages;
	uint32_t nr_pages = (uint32_t)v->hdr->nr_pages, n = file->nr;
	struct xa_shape *xs = calloc(1, sizeof(*xs));
	if (!xs)
		return NULL;
	xs->node_of = malloc((nr_pages ? nr_pages : 1) * sizeof(*xs->node_of));
	xs->node = malloc(n * sizeof(*xs->node));
	if (!xs->node_of || !xs->node) {
		xa_shape_free(xs);
		return NULL;
	}
	for (uint32_t i = 0; i < nr_pages; i++)
		xs->node_of[i] = NO_NODE;
	for (uint32_t i = 0; i < n; i++) {
		const struct vmr_page *p = &pg[file->id[i]], *q = i ? &pg[file->id[i - 1]] : NULL;
		if (!q || q->space != p->space || q->ino != p->ino ||
		    q->index >> XA_CHUNK_SHIFT != p->index >> XA_CHUNK_SHIFT)
			xs->node[xs->nr_nodes++] = (struct xa_node){ i, 0, 0, 0, -1 };
		xs->node[xs->nr_nodes - 1].nr++;
		xs->node_of[file->id[i]] = xs->nr_nodes - 1;
	}
	d->data[DERIVED_XA_SHAPE] = xs;
	d->free[DERIVED_XA_SHAPE] = xa_shape_free;
	return xs;
}

int shadow_nodes_init(struct engine *e)
{
	const struct page_ids *file = pages_file_by_addr(e->v);   /* the trace's */
	if (!file)
		return -1;
	if (!file->nr)
		return 0;
	const struct xa_shape *xs = xa_shape_build(e->v, file);
	if (!xs)
		return -1;
	struct shadow_nodes *sn = calloc(1, sizeof(*sn));
	if (!sn)
		return -1;
	e->shadow_nodes = sn;
	sn->pfns = file->id;
	sn->node_of = xs->node_of;
	sn->nr_nodes = xs->nr_nodes;
	sn->node = malloc(xs->nr_nodes * sizeof(*sn->node));
	if (!sn->node)
		return -1;
	memcpy(sn->node, xs->node, xs->nr_nodes * sizeof(*sn->node));
	return 0;
}

void shadow_nodes_free(struct engine *e)
{
	struct shadow_nodes *sn = e->shadow_nodes;
	if (!sn)
		return;
	free(sn->node);
	free(sn);
	e->shadow_nodes = NULL;
}

/* list_lru_add_obj / list_lru_del_obj on the memcg's shadow_nodes. */
static void shadow_list_add(struct engine *e, uint32_t id, int memcg)
{
	struct xa_node *x = &e->shadow_nodes->node[id];
	struct mem_cgroup *mc = &e->memcgs[memcg];
	x->memcg = memcg;
	x->next = 0;
	x->prev = mc->shadow_tail;
	if (mc->shadow_tail)
		e->shadow_nodes->node[mc->shadow_tail - 1].next = id + 1;
	else
		mc->shadow_head = id + 1;
	mc->shadow_tail = id + 1;
	mc->nr_shadow_nodes++;
}

static void shadow_list_del(struct engine *e, uint32_t id)
{
	struct xa_node *x = &e->shadow_nodes->node[id];
	struct mem_cgroup *mc = &e->memcgs[x->memcg];
	if (x->prev)
		e->shadow_nodes->node[x->prev - 1].next = x->next;
	else
		mc->shadow_head = x->next;
	if (x->next)
		e->shadow_nodes->node[x->next - 1].prev = x->prev;
	else
		mc->shadow_tail = x->prev;
	mc->nr_shadow_nodes--;
	x->memcg = -1;
}

/* The node's entries: folios in the page cache, and shadows.  Only
 * whether there is a folio, else a shadow, matters, not how many: the
 * entry that changed is looked at first (a folio just added answers at
 * once), then the others from the node's end backwards (reclaim evicts a
 * file read in order from its start, so the later pages are the ones
 * still in memory). */
static int node_only_shadows(const struct engine *e, const struct xa_node *x, uint32_t pfn)
{
	const struct folio *folio = e->folio;
	const uint32_t *pfns = e->shadow_nodes->pfns + x->first;
	uint32_t flags = folio[pfn].flags, values = flags & PG_shadow;
	if (flags & PG_resident)
		return 0;
	for (uint32_t i = x->nr; i-- > 0;) {
		flags = folio[pfns[i]].flags;
		if (flags & PG_resident)
			return 0;
		values |= flags & PG_shadow;
	}
	return values != 0;
}

/* workingset_update_node: track non-empty nodes that hold only shadow
 * entries; unlink those that hold folios or nothing. */
void workingset_update_node(struct engine *e, uint32_t pfn)
{
	struct shadow_nodes *sn = e->shadow_nodes;
	if (!sn || sn->node_of[pfn] == NO_NODE)
		return;
	uint32_t id = sn->node_of[pfn];
	struct xa_node *x = &sn->node[id];
	if (node_only_shadows(e, x, pfn)) {
		if (x->memcg < 0)
			shadow_list_add(e, id, e->folio[pfn].memcg);
	} else if (x->memcg >= 0) {
		shadow_list_del(e, id);
	}
}

/* count_shadow_nodes: the nodes beyond a worst-case density of 1/8th of
 * what the memcg's LRU (its own statistics, as of their last flush)
 * could use as shadows.  The kernel adds the memcg's slab pages, which
 * the replay has none of. */
long count_shadow_nodes(struct engine *e, int memcg)
{
	uint64_t nodes = e->memcgs[memcg].nr_shadow_nodes;
	if (!nodes)
		return SHRINK_EMPTY;
	mem_cgroup_flush_stats_ratelimited(e, memcg);
	uint64_t pages = 0;
	for (int i = 0; i < NR_LRU_LISTS; i++)
		pages += e->memcgs[memcg].lruvec.stat_local[i];
	uint64_t max_nodes = pages >> (XA_CHUNK_SHIFT - 3);
	return nodes <= max_nodes ? 0 : (long)(nodes - max_nodes);
}

/* scan_shadow_nodes: shadow_lru_isolate on up to NR_TO_SCAN nodes from
 * the head of the list (the oldest), each freed with its shadows. */
uint64_t scan_shadow_nodes(struct engine *e, int memcg, uint64_t nr_to_scan)
{
	struct shadow_nodes *sn = e->shadow_nodes;
	uint64_t freed = 0;
	while (nr_to_scan-- && e->memcgs[memcg].shadow_head) {
		uint32_t id = e->memcgs[memcg].shadow_head - 1;
		struct xa_node *x = &sn->node[id];
		shadow_list_del(e, id);
		for (uint32_t i = 0; i < x->nr; i++)
			e->folio[sn->pfns[x->first + i]].flags &= ~(PG_shadow | PG_shadow_ws);
		freed++;
	}
	return freed;
}
