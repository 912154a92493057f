/* cli.c — helpers shared by the subcommands (see cli.h). */
#include "cli.h"
#include "ingest/ingest.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cli_error(int code, const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "vmreplay %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	int shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end == 'i' && shift)
		end++;
	if ((*end == 'B' || *end == 'b'))
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return -1;
	*bytes = (uint64_t)v << shift;
	return 0;
}

int cli_open_input(const char *input, struct vmr *v, char *path, size_t pathlen,
		   int progress, char *err, size_t errlen)
{
	struct stat st;
	if (stat(input, &st) != 0) {
		snprintf(err, errlen, "%s: %s", input, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		/* A cached .vmr comes back open: it was just verified. */
		struct ingest_opts o = { .trace = input, .use_cache = 1, .progress = progress, .opened = v };
		struct ingest_report rep;
		int r = ingest(&o, &rep, path, pathlen, err, errlen);
		if (r < 0)
			return -1;
		if (r == 1)
			return 0;
	} else {
		snprintf(path, pathlen, "%s", input);
	}
	return vmr_open(v, path, err, errlen);
}
