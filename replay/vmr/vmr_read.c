/*
 * vmr_read.c — opens a .vmr and refuses to trust any of it until every
 * byte has been checked: header checksum, block checksums, section
 * bounds, task ranges, and every record's page id and op.
 *
 * The checks of the contents (every page, task, record and kernel event)
 * are made once per file contents: a file that passes them is recorded in
 * the verified directory (vmr_verified_dir) under a hash of its header
 * and checksum table, and a later open of a file whose header and blocks
 * verify against that same table skips them (FORMAT.md, "Verified once").
 */
#include "vmr.h"
#include "xxh.h"
#include "atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define VMR_NAME_STR(name) #name,
const char *const vmr_vmstat_names[VMR_NR_VMSTAT] = { VMR_VMSTAT_FIELDS(VMR_NAME_STR) };
const char *const vmr_memcg_names[VMR_NR_MEMCG] = { VMR_MEMCG_FIELDS(VMR_NAME_STR) };
const char *const vmr_kev_names[VMR_KEV_NR_TYPES] = {
	"", "direct_reclaim_begin", "direct_reclaim_end", "memcg_reclaim_begin",
	"memcg_reclaim_end", "kswapd_wake", "kswapd_sleep", "wakeup_kswapd", "lru_isolate",
	"lru_shrink_inactive", "lru_shrink_active", "throttled", "write_folio", "file_evict",
	"fork", "exec", "exit", "comm", "stats_flush",
};

/* The record of files whose contents passed check_records: "" = none
 * (every open checks everything, as the library's own tests and fuzzers
 * want); the command sets it to the cache's (vmreplay.c). */
static char verified_dir[4096];
static unsigned long content_checks;

void vmr_verified_dir(const char *dir)
{
	snprintf(verified_dir, sizeof(verified_dir), "%s", dir ? dir : "");
}

unsigned long vmr_content_checks(void)
{
	return content_checks;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

static int check_header(const struct vmr_header *h, size_t size, const char *path,
			char *err, size_t errlen)
{
	struct vmr_header copy;
	if (memcmp(h->magic, VMR_MAGIC, 8) != 0)
		FAIL("%s: not a .vmr file (bad magic)", path);
	if (h->version != VMR_VERSION)
		FAIL("%s: .vmr version %u, this vmreplay reads version %u", path, h->version, VMR_VERSION);
	memcpy(&copy, h, sizeof(copy));
	copy.header_sum = 0;
	if (XXH3_64bits(&copy, sizeof(copy)) != h->header_sum)
		FAIL("%s: header checksum mismatch (corrupt file)", path);
	if (h->header_size != VMR_HEADER_SIZE || h->block_size != VMR_BLOCK_SIZE ||
	    h->nr_sections != VMR_NR_SECTIONS)
		FAIL("%s: header has unexpected sizes", path);
	if (h->file_size != size)
		FAIL("%s: file is %zu bytes, header says %llu (truncated?)", path, size,
		     (unsigned long long)h->file_size);
	uint64_t prev_end = VMR_HEADER_SIZE;
	for (int i = 0; i < VMR_NR_SECTIONS; i++) {
		if (h->sec[i].kind != (uint32_t)(i + 1) || h->sec[i].offset % 8 ||
		    h->sec[i].offset < prev_end || h->sec[i].size > size ||
		    h->sec[i].offset > size - h->sec[i].size)
			FAIL("%s: section %d out of bounds", path, i + 1);
		prev_end = h->sec[i].offset + h->sec[i].size;
	}
	return 0;
fail:
	return -1;
}

static int check_blocks(const unsigned char *base, const struct vmr_header *h,
			const char *path, char *err, size_t errlen)
{
	uint64_t start = VMR_HEADER_SIZE, end = h->sec[VMR_SEC_SUMS - 1].offset;
	uint64_t nr = (end - start + VMR_BLOCK_SIZE - 1) / VMR_BLOCK_SIZE;
	if (h->sec[VMR_SEC_SUMS - 1].size != nr * sizeof(uint64_t))
		FAIL("%s: checksum table has the wrong size", path);
	const uint64_t *sums = (const uint64_t *)(base + end);
	for (uint64_t b = 0; b < nr; b++) {
		uint64_t off = start + b * VMR_BLOCK_SIZE;
		uint64_t len = end - off < VMR_BLOCK_SIZE ? end - off : VMR_BLOCK_SIZE;
		if (XXH3_64bits(base + off, len) != sums[b])
			FAIL("%s: checksum mismatch in block %llu (bytes %llu-%llu): corrupt file",
			     path, (unsigned long long)b, (unsigned long long)off,
			     (unsigned long long)(off + len - 1));
	}
	return 0;
fail:
	return -1;
}

/* Section KIND holds exactly NR items of SIZE bytes. */
static int sec_holds(const struct vmr_header *h, int kind, uint64_t nr, size_t size)
{
	uint64_t bytes = h->sec[kind - 1].size;
	return bytes % size == 0 && bytes / size == nr;
}

/* Are pages FIRST .. FIRST+N-1 all file pages (IS_FILE) or all anon, by
 * the bitmap FILE?  Whole words at a time: a run record covers up to 16 M
 * pages. */
static int pages_of_kind(const uint64_t *file, uint64_t first, uint64_t n, int is_file)
{
	uint64_t want = is_file ? ~0ull : 0, end = first + n;
	while (first < end) {
		unsigned shift = first % 64;
		uint64_t len = end - first < 64 - shift ? end - first : 64 - shift;
		uint64_t mask = (len == 64 ? ~0ull : ((1ull << len) - 1)) << shift;
		if ((file[first / 64] ^ want) & mask)
			return 0;
		first += len;
	}
	return 1;
}

/* What the replay reads without a bound check of its own: section sizes
 * against the header's counts.  Made at every open (no loop). */
static int check_counts(const struct vmr *v, char *err, size_t errlen)
{
	const struct vmr_header *h = v->hdr;
	const char *path = v->path;
	/* Divide rather than multiply: a count of 2^61 tasks times 72 bytes
	 * wraps to 0 and would match an empty section. */
	if (!sec_holds(h, VMR_SEC_TASKS, h->nr_tasks, sizeof(struct vmr_task)) ||
	    !sec_holds(h, VMR_SEC_RECORDS, h->nr_records, sizeof(struct vmr_rec)) ||
	    !sec_holds(h, VMR_SEC_PAGES, h->nr_pages, sizeof(struct vmr_page)) ||
	    h->sec[VMR_SEC_VMSTAT - 1].size % sizeof(struct vmr_vmstat) ||
	    h->sec[VMR_SEC_KEVENTS - 1].size % sizeof(struct vmr_kev) ||
	    h->sec[VMR_SEC_MEMCG - 1].size % sizeof(struct vmr_memcg))
		FAIL("%s: section sizes disagree with the header's counts", path);
	if (h->nr_pages > UINT32_MAX)
		FAIL("%s: too many pages", path);
	return 0;
fail:
	return -1;
}

/* Every page, task, record and kernel event: made once per contents. */
static int check_records(const struct vmr *v, char *err, size_t errlen)
{
	const struct vmr_header *h = v->hdr;
	const char *path = v->path;
	uint64_t *file = NULL;
	uint64_t next = 0, accesses = 0;
	content_checks++;
	/* One bit per page, set for file pages: the record loop below checks
	 * every record's pages against their kind, and the 32-byte page table
	 * of a 1.5 M-page trace (48 MB) would cost a cache miss per record,
	 * where the bitmap (190 KB) stays in cache. */
	file = calloc(h->nr_pages / 64 + 1, sizeof(*file));
	if (!file)
		FAIL("%s: out of memory for %llu pages", path, (unsigned long long)h->nr_pages);
	for (uint64_t p = 0; p < h->nr_pages; p++) {
		const struct vmr_page *pg = &v->pages[p];
		if (pg->kind > VMR_PAGE_FILE || (pg->flags & ~(uint32_t)VMR_PAGE_FLAGS) ||
		    ((pg->flags & VMR_PAGE_PRECACHED) && pg->kind != VMR_PAGE_FILE))
			FAIL("%s: page %llu has a bad kind or flags", path, (unsigned long long)p);
		file[p / 64] |= (uint64_t)pg->kind << (p % 64);
	}
	for (uint64_t t = 0; t < h->nr_tasks; t++) {
		const struct vmr_task *task = &v->tasks[t];
		if (task->first_rec != next || task->nr_recs > h->nr_records - next)
			FAIL("%s: task %llu's record range is out of bounds", path, (unsigned long long)t);
		if (task->end_ns < task->begin_ns)
			FAIL("%s: task %llu ends before it begins", path, (unsigned long long)t);
		uint64_t acc = 0;
		for (uint64_t i = task->first_rec; i < task->first_rec + task->nr_recs; i++) {
			struct vmr_rec r = v->recs[i];
			unsigned op = vmr_rec_op(r);
			if (op >= VMR_NR_OPS ||
			    (vmr_rec_uaccess(r) && op != VMR_OP_LOAD && op != VMR_OP_STORE) ||
			    (vmr_rec_in_fault(r) && op != VMR_OP_READAHEAD && !vmr_rec_huge(r)) ||
			    (op == VMR_OP_DELAY && (r.info & (VMR_F_FILE | VMR_F_RUN))) ||
			    (op == VMR_OP_READAHEAD && !vmr_rec_is_file(r)))
				FAIL("%s: record %llu has a bad op", path, (unsigned long long)i);
			if (op == VMR_OP_DELAY)
				continue;
			uint64_t n = vmr_rec_count(r);
			if (n == 0 || r.page >= h->nr_pages || n > h->nr_pages - r.page)
				FAIL("%s: record %llu names page %u of %llu", path, (unsigned long long)i,
				     r.page, (unsigned long long)h->nr_pages);
			if (!pages_of_kind(file, r.page, n, vmr_rec_is_file(r)))
				FAIL("%s: record %llu disagrees with its page's kind", path,
				     (unsigned long long)i);
			if (vmr_op_is_access(op))
				acc += n;
		}
		if (acc != task->nr_accesses)
			FAIL("%s: task %llu's access count is wrong", path, (unsigned long long)t);
		accesses += acc;
		next += task->nr_recs;
	}
	if (next != h->nr_records || accesses != h->nr_accesses)
		FAIL("%s: record counts disagree with the header", path);
	for (uint64_t i = 0; i < v->nr_kev; i++) {
		if (v->kev[i].type == 0 || v->kev[i].type >= VMR_KEV_NR_TYPES)
			FAIL("%s: kernel event %llu has an unknown type %u", path,
			     (unsigned long long)i, v->kev[i].type);
		if (i && v->kev[i].ts_ns < v->kev[i - 1].ts_ns)
			FAIL("%s: kernel event %llu is out of time order", path, (unsigned long long)i);
	}
	free(file);
	return 0;
fail:
	free(file);
	return -1;
}

/* The name the verified directory records contents under: the header
 * (which holds the file's size, counts and section table) and the table
 * of block checksums, hashed together.  A file whose header and blocks
 * verify against a recorded table holds the bytes that passed
 * check_records, whatever its name, inode or times; a change to the
 * checks (VMR_CHECK_REVISION) starts a new record. */
static int verified_name(const unsigned char *base, const struct vmr_header *h,
			 char *buf, size_t len)
{
	if (!verified_dir[0])
		return 0;
	XXH128_hash_t k = XXH3_128bits_withSeed(base + h->sec[VMR_SEC_SUMS - 1].offset,
						h->sec[VMR_SEC_SUMS - 1].size,
						XXH3_64bits(h, sizeof(*h)));
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, k);
	char hex[33];
	vmr_hash_hex(c.digest, hex);
	int n = snprintf(buf, len, "%s/verified/c%d-%s", verified_dir, VMR_CHECK_REVISION, hex);
	return n > 0 && (size_t)n < len;
}

/* Records a verified file: an empty file of its name (created whole or
 * not at all).  The directory is made as needed; a failure only means
 * the next open checks everything again. */
static void verified_record(const char *name)
{
	char dir[sizeof(verified_dir) + 16];
	snprintf(dir, sizeof(dir), "%s/verified", verified_dir);
	mkdir_p(dir);
	int fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

int vmr_open(struct vmr *v, const char *path, char *err, size_t errlen)
{
	memset(v, 0, sizeof(*v));
	v->path = path;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* a FIFO must not block */
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if ((size_t)st.st_size < VMR_HEADER_SIZE) {
		snprintf(err, errlen, "%s: too short for a .vmr (%lld bytes)", path, (long long)st.st_size);
		close(fd);
		return -1;
	}
	v->map_size = st.st_size;
	/* No MAP_POPULATE, no MADV_SEQUENTIAL or MADV_WILLNEED: measured on
	 * the kbuild-long sw100-1 .vmr (131 MiB, `run -p lru`, 10 runs each,
	 * page cache warm), MAP_POPULATE takes 6,701 page faults to 6,034
	 * (the file's are mapped 16 pages a fault by fault-around already)
	 * and none of the three moves the CPU time (70-83 ms against 70-77)
	 * out of its noise; cold (the file dropped with POSIX_FADV_DONTNEED)
	 * all four took 0.20-0.30 s, read-ahead doing the reading. */
	v->map = mmap(NULL, v->map_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (v->map == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
		v->map = NULL;
		return -1;
	}
	v->derived = calloc(1, sizeof(*v->derived));
	if (!v->derived) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	const unsigned char *base = v->map;
	v->hdr = v->map;
	if (check_header(v->hdr, v->map_size, path, err, errlen) != 0 ||
	    check_blocks(base, v->hdr, path, err, errlen) != 0)
		goto fail;
	const struct vmr_header *h = v->hdr;
	v->meta = (const char *)base + h->sec[VMR_SEC_META - 1].offset;
	v->meta_size = h->sec[VMR_SEC_META - 1].size;
	v->tasks = (const void *)(base + h->sec[VMR_SEC_TASKS - 1].offset);
	v->recs = (const void *)(base + h->sec[VMR_SEC_RECORDS - 1].offset);
	v->pages = (const void *)(base + h->sec[VMR_SEC_PAGES - 1].offset);
	v->vmstat = (const void *)(base + h->sec[VMR_SEC_VMSTAT - 1].offset);
	v->nr_vmstat = h->sec[VMR_SEC_VMSTAT - 1].size / sizeof(struct vmr_vmstat);
	v->kev = (const void *)(base + h->sec[VMR_SEC_KEVENTS - 1].offset);
	v->nr_kev = h->sec[VMR_SEC_KEVENTS - 1].size / sizeof(struct vmr_kev);
	v->memcg = (const void *)(base + h->sec[VMR_SEC_MEMCG - 1].offset);
	v->nr_memcg = h->sec[VMR_SEC_MEMCG - 1].size / sizeof(struct vmr_memcg);
	char name[sizeof(verified_dir) + 64];
	int named = verified_name(base, h, name, sizeof(name));
	if (check_counts(v, err, errlen) != 0)
		goto fail;
	if (!named || access(name, F_OK) != 0) {
		if (check_records(v, err, errlen) != 0)
			goto fail;
		named = named ? 2 : 0;     /* to be recorded once META passes */
	}
	char why[256];
	if (vmr_meta_check(v->meta, v->meta_size, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		goto fail;
	}
	if (named == 2)
		verified_record(name);
	return 0;
fail:
	vmr_close(v);
	return -1;
}

void vmr_close(struct vmr *v)
{
	if (v->derived) {
		for (int i = 0; i < VMR_NR_DERIVED; i++)
			if (v->derived->data[i])
				v->derived->free[i](v->derived->data[i]);
		free(v->derived);
	}
	if (v->map)
		munmap(v->map, v->map_size);
	memset(v, 0, sizeof(*v));
}

const char *vmr_meta_get(const struct vmr *v, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	const char *p = v->meta, *end = v->meta + v->meta_size;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > klen && memcmp(p, key, klen) == 0 && p[klen] == '\t') {
			size_t n = nl - p - klen - 1;
			if (n >= len)
				n = len - 1;
			memcpy(buf, p + klen + 1, n);
			buf[n] = '\0';
			return buf;
		}
		p = nl + 1;
	}
	return NULL;
}

void vmr_meta_each(const struct vmr *v, const char *key,
		   void (*fn)(void *arg, const char *value, size_t len), void *arg)
{
	size_t klen = strlen(key);
	const char *p = v->meta, *end = v->meta + v->meta_size;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > klen && memcmp(p, key, klen) == 0 && p[klen] == '\t')
			fn(arg, p + klen + 1, nl - p - klen - 1);
		p = nl + 1;
	}
}

void vmr_hash_hex(const uint8_t hash[16], char buf[33])
{
	for (int i = 0; i < 16; i++)
		sprintf(buf + 2 * i, "%02x", hash[i]);
}
