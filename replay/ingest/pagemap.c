/* pagemap.c — chunked open-addressing table of dense page ids. */
#include "pagemap.h"

#include <stdlib.h>
#include <string.h>

struct pm_file {
	uint64_t dev, ino;
	uint32_t first_chunk;          /* chunk index + 1, 0 = none */
};

/* Keys are three small integers; a multiply-xorshift mix spreads them
 * well enough for linear probing and, unlike a library call, inlines. */
static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 32;
	x *= 0xd6e8feb86659fd93ull;
	x ^= x >> 32;
	return x;
}

static inline uint64_t hash3(uint64_t a, uint64_t b, uint64_t c)
{
	return mix(a * 0x9E3779B97F4A7C15ull ^ mix(b + 0x632BE59BD9B4E019ull) ^ mix(c));
}

int pagemap_init(struct pagemap *pm)
{
	memset(pm, 0, sizeof(*pm));
	pm->nr_slots = 1024;
	pm->slots = calloc(pm->nr_slots, sizeof(*pm->slots));
	pm->nr_file_slots = 64;
	pm->file_slots = calloc(pm->nr_file_slots, sizeof(*pm->file_slots));
	return pm->slots && pm->file_slots ? 0 : -1;
}

void pagemap_free(struct pagemap *pm)
{
	free(pm->chunks);
	free(pm->slots);
	free(pm->pages);
	free(pm->files);
	free(pm->file_slots);
	memset(pm, 0, sizeof(*pm));
}

/* Doubles an open-addressing table of 1-based indices, rehashing by HASH. */
static int grow_slots(uint32_t **slots, uint64_t *nr_slots,
		      uint64_t (*hash)(struct pagemap *, uint32_t), struct pagemap *pm)
{
	uint64_t n = *nr_slots * 2;
	uint32_t *s = calloc(n, sizeof(*s));
	if (!s)
		return -1;
	for (uint64_t i = 0; i < *nr_slots; i++) {
		uint32_t v = (*slots)[i];
		if (!v)
			continue;
		uint64_t j = hash(pm, v - 1) & (n - 1);
		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = v;
	}
	free(*slots);
	*slots = s;
	*nr_slots = n;
	return 0;
}

static uint64_t chunk_hash(struct pagemap *pm, uint32_t i)
{
	const struct pagemap_chunk *c = &pm->chunks[i];
	return hash3(c->space, c->ino, c->key);
}

static uint64_t file_hash(struct pagemap *pm, uint32_t i)
{
	return hash3(pm->files[i].dev, pm->files[i].ino, 0);
}

static struct pm_file *find_file(struct pagemap *pm, uint64_t dev, uint64_t ino, int create)
{
	uint64_t mask = pm->nr_file_slots - 1, j = hash3(dev, ino, 0) & mask;
	for (uint32_t v; (v = pm->file_slots[j]); j = (j + 1) & mask)
		if (pm->files[v - 1].dev == dev && pm->files[v - 1].ino == ino)
			return &pm->files[v - 1];
	if (!create)
		return NULL;
	if (pm->nr_files == pm->cap_files) {
		uint32_t cap = pm->cap_files ? 2 * pm->cap_files : 64;
		struct pm_file *f = realloc(pm->files, cap * sizeof(*f));
		if (!f)
			return NULL;
		pm->files = f;
		pm->cap_files = cap;
	}
	struct pm_file *f = &pm->files[pm->nr_files++];
	f->dev = dev;
	f->ino = ino;
	f->first_chunk = 0;
	pm->file_slots[j] = pm->nr_files;
	if (pm->nr_files * 2 > pm->nr_file_slots &&
	    grow_slots(&pm->file_slots, &pm->nr_file_slots, file_hash, pm) != 0)
		return NULL;
	return f;
}

struct pagemap_chunk *pagemap_chunk(struct pagemap *pm, enum vmr_page_kind kind,
				    uint64_t space, uint64_t ino, uint64_t index,
				    int create, int *oom)
{
	uint64_t key = (index >> PAGEMAP_CHUNK_SHIFT) | (uint64_t)kind << 63;
	uint64_t mask = pm->nr_slots - 1, j = hash3(space, ino, key) & mask;
	for (uint32_t v; (v = pm->slots[j]); j = (j + 1) & mask) {
		struct pagemap_chunk *c = &pm->chunks[v - 1];
		if (c->key == key && c->space == space && c->ino == ino)
			return c;
	}
	if (!create)
		return NULL;
	struct pm_file *f = NULL;
	if (kind == VMR_PAGE_FILE && !(f = find_file(pm, space, ino, 1)))
		goto oom;
	if (pm->nr_chunks == pm->cap_chunks) {
		uint32_t cap = pm->cap_chunks ? 2 * pm->cap_chunks : 256;
		struct pagemap_chunk *n = realloc(pm->chunks, (size_t)cap * sizeof(*n));
		if (!n)
			goto oom;
		pm->chunks = n;
		pm->cap_chunks = cap;
	}
	struct pagemap_chunk *c = &pm->chunks[pm->nr_chunks++];
	c->space = space;
	c->ino = ino;
	c->key = key;
	memset(c->id, 0xff, sizeof(c->id));
	c->next_in_file = 0;
	if (f) {
		c->next_in_file = f->first_chunk;
		f->first_chunk = pm->nr_chunks;
	}
	pm->slots[j] = pm->nr_chunks;
	if ((uint64_t)pm->nr_chunks * 2 > pm->nr_slots &&
	    grow_slots(&pm->slots, &pm->nr_slots, chunk_hash, pm) != 0)
		goto oom;
	return c;
oom:
	*oom = 1;
	return NULL;
}

void pagemap_prefetch(const struct pagemap *pm, enum vmr_page_kind kind, uint64_t space,
		      uint64_t ino, uint64_t index)
{
	uint64_t key = (index >> PAGEMAP_CHUNK_SHIFT) | (uint64_t)kind << 63;
	uint32_t v = pm->slots[hash3(space, ino, key) & (pm->nr_slots - 1)];
	if (!v)
		return;
	const struct pagemap_chunk *c = &pm->chunks[v - 1];
	__builtin_prefetch(c);
	__builtin_prefetch(&c->id[index & (PAGEMAP_CHUNK - 1)]);
}

uint32_t pagemap_new_id(struct pagemap *pm, struct pagemap_chunk *c, uint64_t index)
{
	uint32_t *slot = &c->id[index & (PAGEMAP_CHUNK - 1)];
	if (pm->nr_pages == pm->cap_pages) {
		uint32_t cap = pm->cap_pages ? 2 * pm->cap_pages : 1024;
		if (cap < pm->cap_pages)          /* 2^32 pages: no more ids */
			return PAGEMAP_NONE;
		struct vmr_page *p = realloc(pm->pages, (size_t)cap * sizeof(*p));
		if (!p)
			return PAGEMAP_NONE;
		pm->pages = p;
		pm->cap_pages = cap;
	}
	struct vmr_page *p = &pm->pages[pm->nr_pages];
	p->kind = (uint32_t)(c->key >> 63);
	p->flags = 0;
	p->space = c->space;
	p->ino = c->ino;
	p->index = index;
	*slot = pm->nr_pages;
	return pm->nr_pages++;
}

void pagemap_file_pages(struct pagemap *pm, uint64_t dev, uint64_t ino,
			void (*fn)(void *arg, uint32_t id), void *arg)
{
	struct pm_file *f = find_file(pm, dev, ino, 0);
	if (!f)
		return;
	for (uint32_t ci = f->first_chunk; ci; ci = pm->chunks[ci - 1].next_in_file)
		for (unsigned i = 0; i < PAGEMAP_CHUNK; i++)
			if (pm->chunks[ci - 1].id[i] != PAGEMAP_NONE)
				fn(arg, pm->chunks[ci - 1].id[i]);
}
