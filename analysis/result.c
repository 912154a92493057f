/* result.c — read one run's result file (see result.h, RESULTS.md). */
#include "result.h"
#include "input.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const result_id_names[RES_NR_ID] = {
	"trace", "trace_hash", "policy", "swappiness", "memory_limit",
	"node_memory", "swap", "seed", "version",
};

/* A result is two short lines; anything much larger is not one. */
#define RESULT_MAX_BYTES (1u << 20)

static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = input_open(path, err, errlen);
	if (!f)
		return NULL;
	/* as large as the file (a regular file: input_open) and one byte
	 * more, to see one that grew, up to the most a result can be */
	struct stat st;
	size_t want = fstat(fileno(f), &st) == 0 && (uint64_t)st.st_size < RESULT_MAX_BYTES
		      ? (size_t)st.st_size + 1 : RESULT_MAX_BYTES + 1;
	char *buf = malloc(want + 1);
	size_t n = buf ? fread(buf, 1, want, f) : 0;
	int bad = !buf || ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "%s: %s", path, buf ? "read error" : "out of memory");
		free(buf);
		return NULL;
	}
	if (n > RESULT_MAX_BYTES || n == want) {
		snprintf(err, errlen, "%s: %s", path, n > RESULT_MAX_BYTES
			 ? "larger than 1 MiB: not a result file" : "grew while it was read");
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Splits LINE (NUL-terminated, no newline) at tabs in place. */
static size_t split_tabs(char *line, char ***fields)
{
	size_t n = 1;
	for (char *p = line; *p; p++)
		n += *p == '\t';
	char **f = malloc(n * sizeof(*f));
	if (!f)
		return 0;
	size_t i = 0;
	f[i++] = line;
	for (char *p = line; *p; p++)
		if (*p == '\t') {
			*p = 0;
			f[i++] = p + 1;
		}
	*fields = f;
	return n;
}

/* Every metric counts or measures something (RESULTS.md): none is
 * negative, none is beyond 2^53 (where a double stops counting exactly,
 * and far beyond what a replay reaches), a share or ratio is at most 1. */
#define RESULT_VALUE_MAX 9007199254740992.0

static const char *value_check(const char *name, double v)
{
	size_t n = strlen(name);
	if (v < 0)
		return "is negative (every metric counts or measures)";
	if (v > RESULT_VALUE_MAX)
		return "is beyond 2^53 (no replay counts that far)";
	if ((strcmp(name, "miss_ratio") == 0 || (n > 6 && strcmp(name + n - 6, "_share") == 0)) && v > 1)
		return "is a share above 1";
	return NULL;
}

/* The run's own bounds between its metrics: a part is at most its whole. */
static const struct { const char *part, *whole; } result_bounds[] = {
	{ "hits", "accesses" },
	{ "misses", "accesses" },
	{ "cold_misses", "misses" },
	{ "work_done", "accesses" },
	{ "pgmajfault", "pgfault" },
	{ "slow20_scanned_mean", "slow20_scanned_max" },
	{ "slow20_reclaimed_mean", "slow20_reclaimed_max" },
};

static int bounds_check(const struct result *r, const char *path, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(result_bounds) / sizeof(result_bounds[0]); i++) {
		const double *part = result_metric(r, result_bounds[i].part);
		const double *whole = result_metric(r, result_bounds[i].whole);
		if (part && whole && *part > *whole) {
			snprintf(err, errlen, "%s: line 2: %s: %.17g is more than %s (%.17g)", path,
				 result_bounds[i].part, *part, result_bounds[i].whole, *whole);
			return -1;
		}
	}
	return 0;
}

int result_read(const char *path, struct result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	size_t len;
	char *buf = slurp(path, &len, err, errlen);
	if (!buf)
		return -1;
	char **hdr = NULL, **val = NULL;
	size_t nh = 0, nv = 0;
	int rc = -1;

	/* Exactly two newline-terminated lines: a writer that died half way
	 * leaves no final newline (and atomic.h leaves no such file anyway). */
	char *nl1 = memchr(buf, '\n', len);
	char *nl2 = nl1 ? memchr(nl1 + 1, '\n', len - (nl1 + 1 - buf)) : NULL;
	if (strlen(buf) != len) {
		snprintf(err, errlen, "%s: contains a NUL byte: not a result file", path);
		goto out;
	}
	if (!nl1 || !nl2 || nl2 != buf + len - 1) {
		snprintf(err, errlen, "%s: not a header line and one data line "
			 "(truncated, or several results in one file)", path);
		goto out;
	}
	*nl1 = *nl2 = 0;
	nh = split_tabs(buf, &hdr);
	nv = split_tabs(nl1 + 1, &val);
	if (!nh || !nv) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	for (int i = 0; i < RES_NR_ID; i++)
		if ((size_t)i >= nh || strcmp(hdr[i], result_id_names[i]) != 0) {
			snprintf(err, errlen, "%s: line 1: column %d: expected '%s', found '%s'",
				 path, i + 1, result_id_names[i], (size_t)i < nh ? hdr[i] : "(none)");
			goto out;
		}
	if (nv != nh) {
		snprintf(err, errlen, "%s: line 2: %zu fields, but the header names %zu",
			 path, nv, nh);
		goto out;
	}
	for (int i = 0; i < RES_NR_ID; i++) {
		if (!*val[i]) {
			snprintf(err, errlen, "%s: line 2: %s: empty", path, result_id_names[i]);
			goto out;
		}
		if (!(r->id[i] = strdup(val[i])))
			goto oom;
	}
	r->nr_metrics = nh - RES_NR_ID;
	r->metric = calloc(r->nr_metrics + 1, sizeof(*r->metric));
	r->value = calloc(r->nr_metrics + 1, sizeof(*r->value));
	if (!r->metric || !r->value)
		goto oom;
	for (size_t i = 0; i < r->nr_metrics; i++) {
		const char *name = hdr[RES_NR_ID + i], *s = val[RES_NR_ID + i];
		if (!*name) {
			snprintf(err, errlen, "%s: line 1: column %zu: empty metric name", path,
				 RES_NR_ID + i + 1);
			goto out;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(r->metric[j], name) == 0) {
				snprintf(err, errlen, "%s: line 1: %s: column named twice", path, name);
				goto out;
			}
		char *end;
		errno = 0;
		double v = strtod(s, &end);
		if (end == s || *end || errno == ERANGE || !isfinite(v)) {
			snprintf(err, errlen, "%s: line 2: %s: '%s' is not a finite number",
				 path, name, s);
			goto out;
		}
		const char *why = value_check(name, v);
		if (why) {
			snprintf(err, errlen, "%s: line 2: %s: '%s' %s", path, name, s, why);
			goto out;
		}
		if (!(r->metric[i] = strdup(name)))
			goto oom;
		r->value[i] = v;
	}
	if (bounds_check(r, path, err, errlen) != 0)
		goto out;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "%s: out of memory", path);
out:
	free(hdr);
	free(val);
	free(buf);
	if (rc)
		result_free(r);
	return rc;
}

void result_free(struct result *r)
{
	for (int i = 0; i < RES_NR_ID; i++)
		free(r->id[i]);
	for (size_t i = 0; r->metric && i < r->nr_metrics; i++)
		free(r->metric[i]);
	free(r->metric);
	free(r->value);
	memset(r, 0, sizeof(*r));
}

const double *result_metric(const struct result *r, const char *metric)
{
	for (size_t i = 0; i < r->nr_metrics; i++)
		if (strcmp(r->metric[i], metric) == 0)
			return &r->value[i];
	return NULL;
}
