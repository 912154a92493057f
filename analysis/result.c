/* result.c — read one run's result file (see result.h, RESULTS.md). */
#include "result.h"
#include "input.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	char *buf = malloc(RESULT_MAX_BYTES + 1);
	size_t n = buf ? fread(buf, 1, RESULT_MAX_BYTES + 1, f) : 0;
	int bad = !buf || ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "%s: %s", path, buf ? "read error" : "out of memory");
		free(buf);
		return NULL;
	}
	if (n > RESULT_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than 1 MiB: not a result file", path);
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
		if (!(r->metric[i] = strdup(name)))
			goto oom;
		r->value[i] = v;
	}
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
