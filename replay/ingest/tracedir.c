/* tracedir.c — walking trace directories and checking CTF metadata framing. */
#include "tracedir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct strvec {
	char **v;
	size_t nr, cap;
};

static int strvec_push(struct strvec *s, const char *str)
{
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		char **n = realloc(s->v, cap * sizeof(*n));
		if (!n)
			return -1;
		s->v = n;
		s->cap = cap;
	}
	if (!(s->v[s->nr] = strdup(str)))
		return -1;
	s->nr++;
	return 0;
}

static void strvec_free(struct strvec *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* qsort of an empty vector would pass a NULL base, which C forbids. */
static void strvec_sort(struct strvec *s)
{
	if (s->nr > 1)
		qsort(s->v, s->nr, sizeof(*s->v), cmp_str);
}

/* Depth-first walk; REL is the path relative to the root ("" at the top).
 * Calls back with each directory (is_dir=1) and regular file. */
static int walk(const char *root, const char *rel, int depth,
		int (*fn)(void *arg, const char *full, const char *rel, int is_dir), void *arg,
		char *err, size_t errlen)
{
	char full[4096];
	int w = snprintf(full, sizeof(full), "%s%s%s", root, *rel ? "/" : "", rel);
	if (w < 0 || (size_t)w >= sizeof(full)) {
		snprintf(err, errlen, "%s: path too long", root);
		return -1;
	}
	if (depth > 32) {
		snprintf(err, errlen, "%s: directories nested too deep", full);
		return -1;
	}
	if (fn(arg, full, rel, 1) != 0)
		return -1;
	DIR *d = opendir(full);
	if (!d) {
		snprintf(err, errlen, "%s: %s", full, strerror(errno));
		return -1;
	}
	struct strvec names = { 0 };
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (strvec_push(&names, e->d_name) != 0) {
			closedir(d);
			strvec_free(&names);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	closedir(d);
	strvec_sort(&names);
	int rc = 0;
	for (size_t i = 0; i < names.nr && rc == 0; i++) {
		char crel[4096], cfull[4096];
		int a = snprintf(crel, sizeof(crel), "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
		int b = snprintf(cfull, sizeof(cfull), "%s/%s", full, names.v[i]);
		if (a < 0 || b < 0 || (size_t)a >= sizeof(crel) || (size_t)b >= sizeof(cfull)) {
			snprintf(err, errlen, "%s: path too long", full);
			rc = -1;
			break;
		}
		struct stat st;
		if (stat(cfull, &st) != 0)
			continue;          /* dangling link: not part of the trace */
		if (S_ISDIR(st.st_mode))
			rc = walk(root, crel, depth + 1, fn, arg, err, errlen);
		else if (S_ISREG(st.st_mode))
			rc = fn(arg, cfull, crel, 0);
	}
	strvec_free(&names);
	return rc;
}

static int collect_trace_dir(void *arg, const char *full, const char *rel, int is_dir)
{
	(void)rel;
	if (!is_dir)
		return 0;
	char meta[4200];
	struct stat st;
	snprintf(meta, sizeof(meta), "%s/metadata", full);
	if (stat(meta, &st) == 0 && S_ISREG(st.st_mode))
		return strvec_push(arg, full);
	return 0;
}

int tracedir_find(const char *root, struct tracedir_list *out, char *err, size_t errlen)
{
	struct strvec v = { 0 };
	struct stat st;
	memset(out, 0, sizeof(*out));
	if (stat(root, &st) != 0) {
		snprintf(err, errlen, "%s: %s", root, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a directory (a CTF trace is a directory)", root);
		return -1;
	}
	if (walk(root, "", 0, collect_trace_dir, &v, err, errlen) != 0) {
		strvec_free(&v);
		return -1;
	}
	if (v.nr == 0) {
		snprintf(err, errlen, "%s: no CTF trace here (no directory holds a metadata file)", root);
		strvec_free(&v);
		return -1;
	}
	strvec_sort(&v);
	out->dirs = v.v;
	out->nr = v.nr;
	return 0;
}

void tracedir_free(struct tracedir_list *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->dirs[i]);
	free(l->dirs);
	memset(l, 0, sizeof(*l));
}

static int collect_file(void *arg, const char *full, const char *rel, int is_dir)
{
	(void)full;
	return is_dir ? 0 : strvec_push(arg, rel);
}

int tracedir_files(const char *root, char ***files, size_t *nr, char *err, size_t errlen)
{
	struct strvec v = { 0 };
	if (walk(root, "", 0, collect_file, &v, err, errlen) != 0) {
		strvec_free(&v);
		return -1;
	}
	strvec_sort(&v);
	*files = v.v;
	*nr = v.nr;
	return 0;
}

/* CTF 1.8 packetized metadata: each packet starts with this 37-byte header
 * (magic, uuid, checksum, content_size and packet_size in bits, then five
 * one-byte fields), in the byte order of the machine that wrote it. */
#define CTF_META_MAGIC   0x75D11D57u
#define CTF_META_HDR     37

static uint32_t rd32(const unsigned char *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

int tracedir_check_metadata(const char *dir, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/metadata", dir);
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	unsigned char hdr[CTF_META_HDR];
	size_t n = fread(hdr, 1, sizeof(hdr), f);
	if (n < 4) {
		fclose(f);
		snprintf(err, errlen, "%s: metadata file is empty or truncated", path);
		return -1;
	}
	int swap;
	if (rd32(hdr, 0) == CTF_META_MAGIC)
		swap = 0;
	else if (rd32(hdr, 1) == CTF_META_MAGIC)
		swap = 1;
	else {
		fclose(f);       /* text metadata: babeltrace2 parses it safely */
		return 0;
	}
	struct stat st;
	if (fstat(fileno(f), &st) != 0) {
		fclose(f);
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	uint64_t size = st.st_size, off = 0;
	int rc = 0;
	while (off < size) {
		if (size - off < CTF_META_HDR || fseek(f, (long)off, SEEK_SET) != 0 ||
		    fread(hdr, 1, CTF_META_HDR, f) != CTF_META_HDR) {
			snprintf(err, errlen, "%s: metadata truncated: partial packet header at byte %llu",
				 path, (unsigned long long)off);
			rc = -1;
			break;
		}
		uint32_t magic = rd32(hdr, swap);
		uint64_t content = rd32(hdr + 24, swap) / 8, packet = rd32(hdr + 28, swap) / 8;
		if (magic != CTF_META_MAGIC) {
			snprintf(err, errlen, "%s: metadata corrupt: bad packet magic at byte %llu",
				 path, (unsigned long long)off);
			rc = -1;
			break;
		}
		if (content < CTF_META_HDR || packet < content) {
			snprintf(err, errlen, "%s: metadata corrupt: packet at byte %llu has bad sizes",
				 path, (unsigned long long)off);
			rc = -1;
			break;
		}
		if (off + content > size) {
			snprintf(err, errlen,
				 "%s: metadata truncated: packet at byte %llu needs %llu bytes, file has %llu",
				 path, (unsigned long long)off, (unsigned long long)content,
				 (unsigned long long)(size - off));
			rc = -1;
			break;
		}
		off += packet;
	}
	fclose(f);
	return rc;
}

int tracedir_check_streams(const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d))) {
		char path[4200];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			rc = -1;
		} else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s: a stream that is not a regular file", path);
			rc = -1;
		}
	}
	closedir(d);
	/* index/NAME.idx describes the stream NAME: one without its stream
	 * is a trace that lost a file. */
	char idir[4200];
	snprintf(idir, sizeof(idir), "%s/index", dir);
	if (rc != 0 || !(d = opendir(idir)))
		return rc;
	while (rc == 0 && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n <= 4 || strcmp(e->d_name + n - 4, ".idx") != 0)
			continue;
		char stream[4200];
		struct stat st;
		snprintf(stream, sizeof(stream), "%s/%.*s", dir, (int)(n - 4), e->d_name);
		if (stat(stream, &st) != 0 || !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "%s/%s: indexes the stream %.*s, which is missing", idir,
				 e->d_name, (int)(n - 4), e->d_name);
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

/* The session a trace directory belongs to: the path up to its first
 * component below ROOT named ust or kernel (LTTng's layout), else itself. */
static void session_of(const char *root, const char *dir, char *out, size_t len)
{
	size_t rl = strlen(root);
	const char *rel = dir + rl;
	for (const char *p = rel; *p; ) {
		while (*p == '/')
			p++;
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if ((n == 3 && !memcmp(p, "ust", 3)) || (n == 6 && !memcmp(p, "kernel", 6))) {
			size_t keep = (size_t)(p - dir);
			while (keep > 1 && dir[keep - 1] == '/')
				keep--;
			snprintf(out, len, "%.*s", (int)keep, dir);
			return;
		}
		p += n;
	}
	snprintf(out, len, "%s", dir);
}

int tracedir_session(const char *root, char *session, size_t len, char *err, size_t errlen)
{
	struct tracedir_list l;
	if (tracedir_find(root, &l, err, errlen) != 0)
		return -1;
	char first[4096] = "", s[4096], list[1024] = "";
	size_t nr = 0, used = 0;
	for (size_t i = 0; i < l.nr; i++) {
		session_of(root, l.dirs[i], s, sizeof(s));
		if (nr && strcmp(s, first) == 0)
			continue;
		int seen = 0;     /* sorted dirs: a session's traces may interleave */
		for (size_t j = 0; j < i && !seen; j++) {
			char t[4096];
			session_of(root, l.dirs[j], t, sizeof(t));
			seen = strcmp(s, t) == 0;
		}
		if (seen)
			continue;
		if (!nr++)
			snprintf(first, sizeof(first), "%s", s);
		if (nr <= 4) {
			int w = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "", s);
			if (w > 0 && (size_t)w < sizeof(list) - used)
				used += (size_t)w;
		}
	}
	tracedir_free(&l);
	if (nr > 1) {
		snprintf(err, errlen, "%s: %zu sessions here (%s%s); ingest one of them", root, nr, list,
			 nr > 4 ? ", …" : "");
		return -1;
	}
	snprintf(session, len, "%s", first);
	return 0;
}
