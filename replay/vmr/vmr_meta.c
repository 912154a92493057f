/*
 * vmr_meta.c — the META section's values, checked where they enter (at
 * ingest, and again when a .vmr is opened), so that a replay can trust
 * them: a page size it divides by, a cgroup path it builds a hierarchy
 * from, the sizes it turns into page counts.  A checksum only proves
 * that the writer wrote the bytes; these checks prove that the values
 * are ones a session can have.
 */
#include "vmr.h"

#include <stdio.h>
#include <string.h>

const char *vmr_cgroup_path_check(const char *path, size_t len)
{
	if (len == 0)
		return "is empty";
	if (len > VMR_CGROUP_PATH_MAX)
		return "is longer than " VMR_STR(VMR_CGROUP_PATH_MAX) " bytes";
	if (path[0] == '/')
		return "is absolute (it is relative to the session's cgroup)";
	const char *p = path, *end = path + len;
	for (int depth = 1; ; depth++) {
		const char *slash = memchr(p, '/', end - p);
		size_t n = (slash ? slash : end) - p;
		if (n == 0)
			return "has an empty component";
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return "has a '.' or '..' component";
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
				return "has a control character";
		if (depth > VMR_CGROUP_DEPTH_MAX)
			return "nests deeper than " VMR_STR(VMR_CGROUP_DEPTH_MAX) " levels";
		if (!slash)
			return NULL;
		p = slash + 1;
	}
}

/* A decimal number with no sign, blank or leading zero; -1 if not one. */
static int parse_dec(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	if (len == 0 || len > 20 || (s[0] == '0' && len > 1))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* A swappiness: -1 (not known) or 0..200, the kernel's range (vm.swappiness
 * is bounded by SWAPPINESS_MAX = 200, mm/vmscan.c). */
static int parse_swappiness(const char *s, size_t len, int *out)
{
	uint64_t v;
	if (len == 2 && s[0] == '-' && s[1] == '1') {
		*out = -1;
		return 0;
	}
	if (parse_dec(s, len, &v) != 0 || v > 200)
		return -1;
	*out = (int)v;
	return 0;
}

/* The numeric keys a replay reads, and the values a session can have. */
static const struct meta_num {
	const char *key;
	uint64_t max;
	int bytes;                     /* a size: 0 or at least one page */
} meta_nums[] = {
	{ "page_size", VMR_PAGE_SIZE_MAX, 0 },
	{ "memory_limit", VMR_BYTES_MAX, 1 },
	{ "mem_total", VMR_BYTES_MAX, 1 },
	{ "swap_size", VMR_BYTES_MAX, 1 },
	{ "nr_cpus", 65536, 0 },
	{ "page_cluster", 31, 0 },       /* mm/swap_state.c: 1 << page_cluster pages */
	{ "vma_ra_enabled", 1, 0 },
	{ "capture_cgroup_version", 2, 0 },
	{ "capture_period_ms", 3600000, 0 },
};

int vmr_meta_check(const char *meta, size_t size, char *err, size_t errlen)
{
	const char *p = meta, *end = meta + size;
	uint64_t page_size = 4096;
	if (memchr(meta, '\0', size)) {
		snprintf(err, errlen, "META has a NUL byte");
		return -1;
	}
	/* The page size first: sizes are checked against it. */
	for (int pass = 0; pass < 2; pass++) {
		for (p = meta; p < end; ) {
			const char *nl = memchr(p, '\n', end - p);
			if (!nl) {
				snprintf(err, errlen, "META ends in the middle of a line");
				return -1;
			}
			const char *tab = memchr(p, '\t', nl - p);
			if (!tab || tab == p) {
				snprintf(err, errlen, "META line '%.*s' is not 'key<TAB>value'",
					 (int)(nl - p > 40 ? 40 : nl - p), p);
				return -1;
			}
			size_t klen = tab - p, vlen = nl - tab - 1;
			const char *val = tab + 1;
			uint64_t v;
			int sw;
			for (size_t i = 0; i < sizeof(meta_nums) / sizeof(meta_nums[0]); i++) {
				const struct meta_num *m = &meta_nums[i];
				if (strlen(m->key) != klen || memcmp(m->key, p, klen) != 0 ||
				    (pass == 0) != (i == 0))
					continue;
				if (parse_dec(val, vlen, &v) != 0 || v > m->max ||
				    (i == 0 && (v < VMR_PAGE_SIZE_MIN || (v & (v - 1)))) ||
				    (m->bytes && v && v < page_size)) {
					snprintf(err, errlen, "META %s: '%.*s' is not %s", m->key,
						 (int)(vlen > 40 ? 40 : vlen), val,
						 i == 0 ? "a power of two from 4096 to 262144"
						 : m->bytes ? "0 or a size of at least one page"
						 : "a number in its range");
					return -1;
				}
				if (i == 0)
					page_size = v;
			}
			if (pass == 1 && ((klen == 10 && !memcmp(p, "swappiness", 10)) ||
					  (klen == 18 && !memcmp(p, "capture_swappiness", 18))) &&
			    parse_swappiness(val, vlen, &sw) != 0) {
				snprintf(err, errlen, "META %.*s: '%.*s' is not -1 or 0-200", (int)klen, p,
					 (int)(vlen > 40 ? 40 : vlen), val);
				return -1;
			}
			if (pass == 1 && klen == 6 && !memcmp(p, "cgroup", 6) &&
			    vmr_cgroup_line_check(val, vlen, page_size, err, errlen) != 0)
				return -1;
			p = nl + 1;
		}
	}
	return 0;
}

int vmr_cgroup_line_check(const char *val, size_t len, uint64_t page_size, char *err, size_t errlen)
{
	/* "PID LIMIT SWAPPINESS PATH" */
	const char *f[4], *end = val + len;
	size_t n[4];
	const char *p = val;
	for (int i = 0; i < 3; i++) {
		const char *sp = memchr(p, ' ', end - p);
		if (!sp) {
			snprintf(err, errlen, "META cgroup: '%.*s' is not 'PID LIMIT SWAPPINESS PATH'",
				 (int)(len > 60 ? 60 : len), val);
			return -1;
		}
		f[i] = p;
		n[i] = sp - p;
		p = sp + 1;
	}
	f[3] = p;
	n[3] = end - p;
	uint64_t pid, limit;
	int sw;
	const char *why;
	if (parse_dec(f[0], n[0], &pid) != 0 || pid > UINT32_MAX) {
		why = "pid";
	} else if (parse_dec(f[1], n[1], &limit) != 0 || limit > VMR_BYTES_MAX ||
		   (limit && limit < page_size)) {
		why = "limit (0 or a size of at least one page)";
	} else if (parse_swappiness(f[2], n[2], &sw) != 0) {
		why = "swappiness (-1 or 0-200)";
	} else if ((why = vmr_cgroup_path_check(f[3], n[3])) != NULL) {
		snprintf(err, errlen, "META cgroup: path '%.*s' %s", (int)(n[3] > 60 ? 60 : n[3]), f[3], why);
		return -1;
	} else {
		return 0;
	}
	snprintf(err, errlen, "META cgroup: '%.*s': bad %s", (int)(len > 60 ? 60 : len), val, why);
	return -1;
}
