/*
 * page_order.c — page ids in address order (see page_order.h).
 */
#include "page_order.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static uint64_t page_field(const struct vmr_page *p, int field)
{
	return field == 0 ? p->index : field == 1 ? p->ino : p->space;
}

int sort_pages_by_addr(const struct vmr_page *pages, uint32_t *ids, uint32_t n, int by_ino)
{
	if (n < 2)
		return 0;
	uint32_t *tmp = malloc((size_t)n * sizeof(*tmp));
	if (!tmp)
		return -1;
	/* Least significant field first: index, ino, space. */
	for (int field = 0; field < 3; field++) {
		if (field == 1 && !by_ino)
			continue;
		uint64_t first = page_field(&pages[ids[0]], field), diff = 0;
		for (uint32_t i = 1; i < n; i++)
			diff |= page_field(&pages[ids[i]], field) ^ first;
		for (int shift = 0; shift < 64; shift += 8) {
			if (!((diff >> shift) & 0xff))
				continue;
			uint32_t count[257] = { 0 };
			for (uint32_t i = 0; i < n; i++)
				count[((page_field(&pages[ids[i]], field) >> shift) & 0xff) + 1]++;
			for (int b = 0; b < 256; b++)
				count[b + 1] += count[b];
			for (uint32_t i = 0; i < n; i++)
				tmp[count[(page_field(&pages[ids[i]], field) >> shift) & 0xff]++] = ids[i];
			memcpy(ids, tmp, (size_t)n * sizeof(*ids));
		}
	}
	free(tmp);
	return 0;
}

static const struct page_ids *pages_by_addr(const struct vmr *v, int slot, uint32_t kind)
{
	struct vmr_derived *d = v->derived;
	if (d->data[slot])
		return d->data[slot];
	const struct vmr_page *pg = v->pages;
	uint32_t n = 0, nr_pages = (uint32_t)v->hdr->nr_pages;
	for (uint32_t i = 0; i < nr_pages; i++)
		n += pg[i].kind == kind;
	struct page_ids *ids = malloc(sizeof(*ids) + (size_t)n * sizeof(ids->id[0]));
	if (!ids)
		return NULL;
	ids->nr = 0;
	for (uint32_t i = 0; i < nr_pages; i++)
		if (pg[i].kind == kind)
			ids->id[ids->nr++] = i;
	if (sort_pages_by_addr(pg, ids->id, n, kind == VMR_PAGE_FILE) != 0) {
		free(ids);
		return NULL;
	}
	d->data[slot] = ids;
	d->free[slot] = free;
	return ids;
}

const struct page_ids *pages_anon_by_addr(const struct vmr *v)
{
	return pages_by_addr(v, DERIVED_ANON_BY_ADDR, VMR_PAGE_ANON);
}

const struct page_ids *pages_file_by_addr(const struct vmr *v)
{
	return pages_by_addr(v, DERIVED_FILE_BY_ADDR, VMR_PAGE_FILE);
}
