/* sweep_file.c — parse a sweep file (format in sweep_file.h). */
#include "sweep_file.h"
#include "cli.h"
#include "input.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The swappiness values of the figures: both ends of the range and five
 * evenly spaced between them (about 35 apart), so a curve shows the
 * whole response and no single value dominates the sweep. */
static const int default_swappiness[] = { 1, 36, 71, 106, 141, 176, 200 };

struct parser {
	const char *path;
	int line;
	const char *key;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct parser *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->key)
		snprintf(p->err, p->errlen, "%s:%d: %s: %s", p->path, p->line, p->key, msg);
	else
		snprintf(p->err, p->errlen, "%s:%d: %s", p->path, p->line, msg);
	return -1;
}

/* Grows *ARR (elements of SIZE bytes) by one; returns the new element. */
static void *push(void *arr, size_t *n, size_t size)
{
	void **a = arr;
	char *grown = realloc(*a, (*n + 1) * size);
	if (!grown)
		return NULL;
	*a = grown;
	memset(grown + *n * size, 0, size);
	return grown + (*n)++ * size;
}

static int too_many(struct parser *p, size_t n)
{
	if (n >= SWEEP_MAX_VALUES)
		return fail(p, "more than %d values", SWEEP_MAX_VALUES);
	return 0;
}

/* "ctf" is what capture/ust-capture.sh layouts call the trace itself; its
 * parent names the capture. */
static char *trace_name(const char *path)
{
	char *copy = strdup(path), *name = NULL;
	if (!copy)
		return NULL;
	size_t l = strlen(copy);
	while (l > 1 && copy[l - 1] == '/')
		copy[--l] = 0;
	char *base = strrchr(copy, '/');
	base = base ? base + 1 : copy;
	if (strcmp(base, "ctf") == 0 && base > copy) {
		base[-1] = 0;
		char *parent = strrchr(copy, '/');
		name = strdup(parent ? parent + 1 : copy);
	} else {
		static const char *const ext[] = { ".vmr", ".tar.xz", ".tar.zst", ".tar.gz", ".tar" };
		size_t bl = strlen(base);
		for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
			size_t el = strlen(ext[i]);
			if (bl > el && strcmp(base + bl - el, ext[i]) == 0) {
				base[bl - el] = 0;
				break;
			}
		}
		name = strdup(base);
	}
	free(copy);
	return name;
}

/* Names become file names and table headings: keep them to a safe set. */
static int name_ok(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.' || *s == '+'))
			return 0;
	return 1;
}

/* Appends a trace of PATH named NAME, in SET (NULL: its own). */
static int add_trace(struct parser *p, struct sweep_spec *s, char *path, char *name, const char *set)
{
	if (too_many(p, s->nr_traces)) {
		free(path);
		free(name);
		return -1;
	}
	struct sweep_trace *t = push(&s->traces, &s->nr_traces, sizeof(*t));
	if (!t) {
		free(path);
		free(name);
		return fail(p, "out of memory");
	}
	t->line = p->line;
	t->path = path;
	t->name = name;
	t->set = strdup(set ? set : name ? name : "");
	if (!t->path || !t->name || !t->set)
		return fail(p, "out of memory");
	if (!name_ok(t->name))
		return fail(p, "'%s' is not a usable trace name (letters, digits, '-', '_', '.', '+'; "
			    "give one after the path)", t->name);
	for (size_t i = 0; i + 1 < s->nr_traces; i++) {
		if (strcmp(s->traces[i].name, t->name) == 0)
			return fail(p, "two traces are named '%s' (line %d); name one after its path",
				    t->name, s->traces[i].line);
		/* A set's name labels its captures' results: a lone trace of
		 * that name would join them as one more replicate. */
		if (strcmp(s->traces[i].set, t->set) == 0 && s->traces[i].line != p->line)
			return fail(p, "'%s' is named on line %d too: a trace set is given once, "
				    "and not as a trace's name", t->set, s->traces[i].line);
	}
	return 0;
}

static char *resolve(const char *dir, const char *path)
{
	char *r = NULL;
	if (path[0] == '/' || !dir)
		return strdup(path);
	return asprintf(&r, "%s/%s", dir, path) < 0 ? NULL : r;
}

static int parse_trace(struct parser *p, struct sweep_spec *s, char **v, int nv, const char *dir)
{
	if (nv < 1 || nv > 2)
		return fail(p, "expected PATH [NAME], got %d values", nv);
	return add_trace(p, s, resolve(dir, v[0]), nv == 2 ? strdup(v[1]) : trace_name(v[0]), NULL);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a > b && strcmp(s + a - b, suffix) == 0;
}

/* A capture as vmreplay capture and capture/ust-capture.sh lay it out
 * (ctf/ inside), one kept as an archive (ctf.tar.xz inside, or the
 * archive itself), a CTF trace itself (metadata), or an ingested .vmr. */
static int is_capture(const char *path, char **trace)
{
	struct stat st;
	*trace = NULL;
	if (stat(path, &st) != 0)
		return 0;
	if (S_ISREG(st.st_mode))
		return (ends_with(path, ".vmr") || ends_with(path, ".tar.xz") || ends_with(path, ".tar.zst") ||
			ends_with(path, ".tar.gz") || ends_with(path, ".tar")) &&
		       (*trace = strdup(path)) != NULL;
	if (!S_ISDIR(st.st_mode))
		return 0;
	static const char *const inside[] = { "ctf", "metadata", "ust", "kernel", "ctf.tar.xz",
					      "ctf.tar.zst", "ctf.tar.gz", "ctf.tar" };
	for (size_t i = 0; i < sizeof(inside) / sizeof(inside[0]); i++) {
		char *sub;
		if (asprintf(&sub, "%s/%s", path, inside[i]) < 0)
			return 0;
		int there = stat(sub, &st) == 0;
		if (there && i == 0) {
			*trace = sub;
			return 1;
		}
		free(sub);
		if (there)
			return (*trace = strdup(path)) != NULL;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The captures of DIR: itself, or the captures directly inside it, sorted
 * by name so that a sweep expands the same on every machine. */
static int set_member(struct parser *p, struct sweep_spec *s, const char *set, const char *path)
{
	char *name = trace_name(path), *full;
	if (!name)
		return fail(p, "out of memory");
	size_t l = strlen(set);
	if (!(strncmp(name, set, l) == 0 && (name[l] == 0 || name[l] == '-' || name[l] == '_'))) {
		if (asprintf(&full, "%s-%s", set, name) < 0)
			full = NULL;
		free(name);
		name = full;
	}
	return add_trace(p, s, strdup(path), name, set);
}

static int parse_trace_set(struct parser *p, struct sweep_spec *s, char **v, int nv, const char *dir)
{
	if (nv < 2)
		return fail(p, "expected NAME DIR..., got %d values", nv);
	if (!name_ok(v[0]))
		return fail(p, "'%s' is not a usable set name (letters, digits, '-', '_', '.', '+')", v[0]);
	for (int i = 1; i < nv; i++) {
		char *path = resolve(dir, v[i]), *trace;
		if (!path)
			return fail(p, "out of memory");
		if (is_capture(path, &trace)) {
			int rc = set_member(p, s, v[0], trace);
			free(trace);
			free(path);
			if (rc)
				return -1;
			continue;
		}
		DIR *d = opendir(path);
		if (!d) {
			fail(p, "%s: %s", path, errno == ENOENT || errno == ENOTDIR
			     ? "neither a capture nor a directory of captures" : strerror(errno));
			free(path);
			return -1;
		}
		char **found = NULL;
		size_t nf = 0;
		int rc = 0;
		for (struct dirent *de; rc == 0 && (de = readdir(d));) {
			char *sub;
			if (de->d_name[0] == '.')
				continue;
			if (asprintf(&sub, "%s/%s", path, de->d_name) < 0)
				rc = fail(p, "out of memory");
			else if (is_capture(sub, &trace)) {
				char **g = realloc(found, (nf + 1) * sizeof(*g));
				if (!g)
					rc = fail(p, "out of memory");
				else
					(found = g)[nf++] = trace;
			}
			free(sub);
		}
		closedir(d);
		if (nf > 1)            /* qsort of NULL, 0 is undefined */
			qsort(found, nf, sizeof(*found), cmp_str);
		for (size_t k = 0; k < nf; k++) {
			if (rc == 0)
				rc = set_member(p, s, v[0], found[k]);
			free(found[k]);
		}
		free(found);
		if (rc == 0 && nf == 0)
			rc = fail(p, "%s: neither a capture nor a directory of captures", path);
		free(path);
		if (rc)
			return -1;
	}
	return 0;
}

static int parse_policy(struct parser *p, struct sweep_spec *s, char **v, int nv)
{
	if (nv < 1)
		return fail(p, "no policy named");
	for (int i = 0; i < nv; i++) {
		if (strcmp(v[i], "all") == 0) {
			if (nv != 1 || s->nr_policies)
				return fail(p, "'all' cannot be combined with policy names");
			s->policies = NULL;
			return 0;
		}
		if (!name_ok(v[i]))
			return fail(p, "'%s' is not a policy name", v[i]);
		for (size_t j = 0; j < s->nr_policies; j++)
			if (strcmp(s->policies[j], v[i]) == 0)
				return fail(p, "'%s' is listed twice", v[i]);
		if (too_many(p, s->nr_policies))
			return -1;
		size_t n = s->nr_policies;
		char **slot = push(&s->policies, &s->nr_policies, sizeof(char *));
		int *line = slot ? push(&s->policy_lines, &n, sizeof(int)) : NULL;
		if (!slot || !line || !(*slot = strdup(v[i])))
			return fail(p, "out of memory");
		*line = p->line;
	}
	return 0;
}

static int parse_swappiness(struct parser *p, struct sweep_spec *s, char **v, int nv)
{
	if (nv < 1)
		return fail(p, "no value");
	for (int i = 0; i < nv; i++) {
		uint64_t x;
		if (cli_parse_u64(v[i], 0, 200, &x) != 0)
			return fail(p, "'%s' is not a swappiness (0-200)", v[i]);
		for (size_t j = 0; j < s->nr_swappiness; j++)
			if (s->swappiness[j] == (int)x)
				return fail(p, "%d is listed twice", (int)x);
		if (too_many(p, s->nr_swappiness))
			return -1;
		int *slot = push(&s->swappiness, &s->nr_swappiness, sizeof(int));
		if (!slot)
			return fail(p, "out of memory");
		*slot = (int)x;
	}
	return 0;
}

/* Sizes below a page or above 1 PiB are typos, not experiments. */
#define SIZE_MIN 4096ULL
#define SIZE_MAX_BYTES (1ULL << 50)

static int parse_size(struct parser *p, const char *v, uint64_t *out)
{
	if (cli_parse_size(v, out) != 0)
		return fail(p, "'%s' is not a size (e.g. 64M, 2G)", v);
	if (*out < SIZE_MIN || *out > SIZE_MAX_BYTES)
		return fail(p, "%s is out of range (4K to 1P)", v);
	return 0;
}

/* Sizes of a memory-limit or node-memory line into *ARR: SIZE, P% of the
 * trace's pages, or (ALLOW_NONE) none. */
static int parse_sizes(struct parser *p, struct sweep_size **arr, size_t *n, int allow_none,
		       char **v, int nv)
{
	if (nv < 1)
		return fail(p, "no value");
	for (int i = 0; i < nv; i++) {
		struct sweep_size z = { 0 };
		size_t l = strlen(v[i]);
		if (allow_none && strcmp(v[i], "none") == 0) {
			z.is_none = 1;
		} else if (allow_none && strcmp(v[i], "captured") == 0) {
			z.is_captured = 1;
		} else if (l > 1 && v[i][l - 1] == '%') {
			char *end;
			errno = 0;
			z.pct = strtod(v[i], &end);
			z.is_pct = 1;
			if (end != v[i] + l - 1 || errno || !(z.pct > 0 && z.pct <= 1000))
				return fail(p, "'%s' is not a percentage of the trace's pages "
					    "(more than 0%%, at most 1000%%)", v[i]);
		} else if (parse_size(p, v[i], &z.bytes) != 0) {
			return -1;
		}
		for (size_t j = 0; j < *n; j++)
			if ((*arr)[j].is_pct == z.is_pct && (*arr)[j].is_none == z.is_none &&
			    (*arr)[j].is_captured == z.is_captured &&
			    (*arr)[j].bytes == z.bytes && (*arr)[j].pct == z.pct)
				return fail(p, "%s is listed twice", v[i]);
		if (too_many(p, *n))
			return -1;
		struct sweep_size *slot = push(arr, n, sizeof(*slot));
		if (!slot)
			return fail(p, "out of memory");
		*slot = z;
	}
	return 0;
}

static int parse_swap(struct parser *p, struct sweep_spec *s, char **v, int nv)
{
	if (nv < 1)
		return fail(p, "no value");
	for (int i = 0; i < nv; i++) {
		/* "ssd,size=2G,jitter=5": a preset and its knobs, checked by
		 * vmreplay run; only characters that are safe in a TSV field
		 * and a caption are refused here. */
		if (strcmp(v[i], "-") == 0 || strlen(v[i]) > 64 || strpbrk(v[i], "\"'$`|;&<>*?"))
			return fail(p, "'%s' is not a swap device (PRESET[,key=value]...)", v[i]);
		for (size_t j = 0; j < s->nr_swap; j++)
			if (strcmp(s->swap[j], v[i]) == 0)
				return fail(p, "'%s' is listed twice", v[i]);
		if (too_many(p, s->nr_swap))
			return -1;
		char **slot = push(&s->swap, &s->nr_swap, sizeof(char *));
		if (!slot || !(*slot = strdup(v[i])))
			return fail(p, "out of memory");
	}
	return 0;
}

static int add_seed(struct parser *p, struct sweep_spec *s, uint64_t x)
{
	for (size_t j = 0; j < s->nr_seeds; j++)
		if (s->seeds[j] == x)
			return fail(p, "seed %llu is listed twice", (unsigned long long)x);
	if (s->nr_seeds >= SWEEP_MAX_SEEDS)
		return fail(p, "more than %d seeds", SWEEP_MAX_SEEDS);
	uint64_t *slot = push(&s->seeds, &s->nr_seeds, sizeof(*slot));
	if (!slot)
		return fail(p, "out of memory");
	*slot = x;
	return 0;
}

static int parse_seed(struct parser *p, struct sweep_spec *s, char **v, int nv)
{
	if (nv < 1)
		return fail(p, "no value");
	for (int i = 0; i < nv; i++) {
		uint64_t a, b;
		char *dash = strchr(v[i], '-');
		if (dash && dash != v[i]) {
			*dash = 0;
			int bad = cli_parse_u64(v[i], 0, UINT32_MAX, &a) || cli_parse_u64(dash + 1, 0, UINT32_MAX, &b);
			*dash = '-';
			if (bad || b < a)
				return fail(p, "'%s' is not a seed range A-B (0 <= A <= B <= %u)", v[i], UINT32_MAX);
			if (b - a >= SWEEP_MAX_SEEDS)
				return fail(p, "'%s' is more than %d seeds", v[i], SWEEP_MAX_SEEDS);
		} else {
			if (cli_parse_u64(v[i], 0, UINT32_MAX, &a) != 0)
				return fail(p, "'%s' is not a seed (0-%u) or a range A-B", v[i], UINT32_MAX);
			b = a;
		}
		for (uint64_t x = a; x <= b; x++)
			if (add_seed(p, s, x) != 0)
				return -1;
	}
	return 0;
}

static int parse_flag(struct parser *p, int *flag, int *seen, char **v, int nv)
{
	if (*seen)
		return fail(p, "given twice (line %d)", *seen);
	*seen = p->line;
	if (nv == 1 && strcmp(v[0], "yes") == 0)
		*flag = SWEEP_RECORD_ALL;
	else if (nv == 1 && strcmp(v[0], "no") == 0)
		*flag = SWEEP_RECORD_NONE;
	else if (nv == 1 && strcmp(v[0], "first-seed") == 0)
		*flag = SWEEP_RECORD_FIRST_SEED;
	else
		return fail(p, "expected yes, no or first-seed");
	return 0;
}

int sweep_file_parse(const char *path, const char *text, struct sweep_spec *s,
		     char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	struct parser p = { .path = path, .err = err, .errlen = errlen };
	char *copy = strdup(text), *pathcopy = strdup(path);
	s->file = strdup(path);
	if (!copy || !pathcopy || !s->file) {
		free(copy);
		free(pathcopy);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	const char *dir = strchr(path, '/') ? dirname(pathcopy) : NULL;
	int rc = 0, seen_swappiness = 0, seen_events = 0, seen_timeline = 0, seen_policy_all = 0;
	char *save = NULL;
	char *line = copy;
	for (char *next; line && rc == 0; line = next) {
		p.line++;
		p.key = NULL;
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *tok[SWEEP_MAX_VALUES + 2];
		int nt = 0;
		for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
			if (nt == SWEEP_MAX_VALUES + 1) {
				rc = fail(&p, "more than %d values on one line", SWEEP_MAX_VALUES);
				break;
			}
			tok[nt++] = t;
		}
		if (rc || nt == 0)
			continue;
		p.key = tok[0];
		char **v = tok + 1;
		int nv = nt - 1;
		if (strcmp(p.key, "trace") == 0)
			rc = parse_trace(&p, s, v, nv, dir);
		else if (strcmp(p.key, "trace-set") == 0)
			rc = parse_trace_set(&p, s, v, nv, dir);
		else if (strcmp(p.key, "policy") == 0) {
			rc = parse_policy(&p, s, v, nv);
			if (!rc && !s->nr_policies)
				seen_policy_all = p.line;
			else if (!rc && seen_policy_all)
				rc = fail(&p, "'all' was given on line %d", seen_policy_all);
		} else if (strcmp(p.key, "swappiness") == 0) {
			rc = parse_swappiness(&p, s, v, nv);
			seen_swappiness = 1;
		} else if (strcmp(p.key, "memory-limit") == 0)
			rc = parse_sizes(&p, &s->memory, &s->nr_memory, 1, v, nv);
		else if (strcmp(p.key, "node-memory") == 0)
			rc = parse_sizes(&p, &s->node_memory, &s->nr_node_memory, 0, v, nv);
		else if (strcmp(p.key, "swap") == 0)
			rc = parse_swap(&p, s, v, nv);
		else if (strcmp(p.key, "seed") == 0)
			rc = parse_seed(&p, s, v, nv);
		else if (strcmp(p.key, "events") == 0)
			rc = parse_flag(&p, &s->events, &seen_events, v, nv);
		else if (strcmp(p.key, "timeline") == 0)
			rc = parse_flag(&p, &s->timeline, &seen_timeline, v, nv);
		else
			rc = fail(&p, "unknown key (trace, trace-set, policy, swappiness, memory-limit, "
				  "node-memory, swap, seed, events, timeline)");
	}
	free(copy);
	free(pathcopy);
	p.key = NULL;
	if (rc == 0 && s->nr_traces == 0)
		rc = fail(&p, "no 'trace' line: a sweep needs at least one trace (or a 'trace-set')");
	if (rc == 0 && s->nr_memory == 0)
		rc = fail(&p, "no 'memory-limit' line: a sweep needs at least one memory limit");
	s->default_swappiness = !seen_swappiness;
	for (size_t i = 0; rc == 0 && !seen_swappiness &&
	     i < sizeof(default_swappiness) / sizeof(default_swappiness[0]); i++) {
		int *slot = push(&s->swappiness, &s->nr_swappiness, sizeof(int));
		if (!slot)
			rc = fail(&p, "out of memory");
		else
			*slot = default_swappiness[i];
	}
	if (rc == 0 && s->nr_seeds == 0)
		rc = add_seed(&p, s, 1);
	if (rc)
		sweep_file_free(s);
	return rc;
}

int sweep_file_read(const char *path, struct sweep_spec *s, char *err, size_t errlen)
{
	FILE *f = input_open(path, err, errlen);
	if (!f)
		return -1;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	char buf[65536];
	size_t n;
	while (m && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	int bad = ferror(f);
	fclose(f);
	if (!m || fclose(m) != 0 || bad) {
		free(text);
		snprintf(err, errlen, "%s: read error", path);
		return -1;
	}
	if (strlen(text) != len) {
		free(text);
		snprintf(err, errlen, "%s: contains a NUL byte: not a sweep file", path);
		return -1;
	}
	int rc = sweep_file_parse(path, text, s, err, errlen);
	free(text);
	return rc;
}

void sweep_file_free(struct sweep_spec *s)
{
	for (size_t i = 0; i < s->nr_traces; i++) {
		free(s->traces[i].path);
		free(s->traces[i].name);
		free(s->traces[i].set);
	}
	free(s->traces);
	for (size_t i = 0; i < s->nr_policies; i++)
		free(s->policies[i]);
	free(s->policies);
	free(s->policy_lines);
	free(s->swappiness);
	free(s->memory);
	free(s->node_memory);
	for (size_t i = 0; i < s->nr_swap; i++)
		free(s->swap[i]);
	free(s->swap);
	free(s->seeds);
	free(s->file);
	memset(s, 0, sizeof(*s));
}
