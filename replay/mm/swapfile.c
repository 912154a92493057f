/*
 * swapfile.c — swap slots, after mm/swapfile.c: one swap device of a
 * fixed number of slots, taken by folio_alloc_swap when reclaim swaps an
 * anonymous folio out and given back by folio_free_swap.
 *
 * Where read-ahead goes by swap offset (swap_cluster_readahead), a slot's
 * position matters, and slots are handed out as the cluster allocator
 * does (cluster_alloc_swap_entry): sequentially within the cluster being
 * filled, then from an empty cluster, oldest emptied first, then from the
 * first cluster with room.  So the folios of one reclaim batch sit side
 * by side on the device, as they do in the kernel.
 *
 * Left out (DEVIATIONS.md): per-CPU clusters (one allocating cluster, as
 * on one CPU), large folios' orders, the fragmented-cluster lists, swap
 * priorities, several devices.
 */
#include "internal.h"

#include <stdlib.h>

int swap_slots_init(struct engine *e)
{
	struct swap_info_struct *si = &e->si;
	uint64_t max = e->swap_slots + 1;        /* slot 0: the swap header */
	if (max > UINT32_MAX)
		return -1;
	si->max = (uint32_t)max;
	si->nr_clusters = (uint32_t)((max + SWAPFILE_CLUSTER - 1) / SWAPFILE_CLUSTER);
	si->swap_map = calloc(si->max, sizeof(*si->swap_map));
	si->slot_of = calloc(e->nr_folios ? e->nr_folios : 1, sizeof(*si->slot_of));
	si->cluster_count = calloc(si->nr_clusters, sizeof(*si->cluster_count));
	si->free_clusters = calloc(si->nr_clusters, sizeof(*si->free_clusters));
	if (!si->swap_map || !si->slot_of || !si->cluster_count || !si->free_clusters)
		return -1;
	/* The header's cluster is where allocation starts; the others are
	 * free, in device order.  The clusters past the last whole slot are
	 * partial: their missing slots count as used. */
	si->cluster_count[0] = 1;
	uint32_t tail = si->nr_clusters * SWAPFILE_CLUSTER - si->max;
	si->cluster_count[si->nr_clusters - 1] += (uint16_t)tail;
	for (uint32_t c = 1; c < si->nr_clusters; c++)
		si->free_clusters[si->nr_free_clusters++] = c;
	si->cluster = 0;
	si->next = 1;
	return 0;
}

void swap_slots_free(struct engine *e)
{
	struct swap_info_struct *si = &e->si;
	free(si->swap_map);
	free(si->slot_of);
	free(si->cluster_count);
	free(si->free_clusters);
	si->swap_map = si->slot_of = si->free_clusters = NULL;
	si->cluster_count = NULL;
}

/* The lowest free slot of cluster C from slot FROM on; 0 when none. */
static uint32_t scan_cluster(const struct swap_info_struct *si, uint32_t c, uint32_t from)
{
	uint32_t end = (c + 1) * SWAPFILE_CLUSTER;
	if (end > si->max)
		end = si->max;
	for (uint32_t s = from; s < end; s++)
		if (!si->swap_map[s])
			return s;
	return 0;
}

/* cluster_alloc_swap_entry for one slot. */
static uint32_t alloc_slot(struct swap_info_struct *si)
{
	uint32_t s = scan_cluster(si, si->cluster, si->next);
	if (!s && si->nr_free_clusters) {
		/* the next empty cluster, oldest emptied first */
		si->cluster = si->free_clusters[si->free_head];
		si->free_head = (si->free_head + 1) % si->nr_clusters;
		si->nr_free_clusters--;
		s = scan_cluster(si, si->cluster, si->cluster * SWAPFILE_CLUSTER);
	}
	for (uint32_t c = 0; !s && c < si->nr_clusters; c++)
		if (si->cluster_count[c] < SWAPFILE_CLUSTER &&
		    (s = scan_cluster(si, c, c * SWAPFILE_CLUSTER)))
			si->cluster = c;
	if (s) {
		si->next = s + 1;
		si->cluster_count[s / SWAPFILE_CLUSTER]++;
	}
	return s;
}

static void free_slot(struct swap_info_struct *si, uint32_t s)
{
	uint32_t c = s / SWAPFILE_CLUSTER;
	si->swap_map[s] = 0;
	/* An emptied cluster other than the one being filled joins the
	 * free list's tail. */
	if (!--si->cluster_count[c] && c != si->cluster) {
		si->free_clusters[(si->free_head + si->nr_free_clusters) % si->nr_clusters] = c;
		si->nr_free_clusters++;
	}
}

int folio_alloc_swap(struct engine *e, uint32_t pfn)
{
	if (e->swap_used >= e->swap_slots)
		return 0;
	if (e->si.swap_map) {
		uint32_t s = alloc_slot(&e->si);
		if (!s)
			return 0;
		e->si.swap_map[s] = pfn + 1;
		e->si.slot_of[pfn] = s;
	}
	e->swap_used++;
	e->procs[e->folio[pfn].owner].swap++;
	return 1;
}

void folio_free_swap(struct engine *e, uint32_t pfn)
{
	struct folio *f = &e->folio[pfn];
	if (f->flags & (PG_swapcache | PG_swapped)) {
		e->swap_used--;
		e->procs[f->owner].swap--;
		f->flags &= ~(PG_swapcache | PG_swapped);
		if (e->si.swap_map)
			free_slot(&e->si, e->si.slot_of[pfn]);
	}
}
