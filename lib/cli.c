/* cli.c — helpers shared by the subcommands (see cli.h). */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_error(int code, const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "vmreplay %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (code == EXIT_USAGE)
		fprintf(stderr, "Try 'vmreplay %s --help'.\n", cmd);
	return code;
}

int cli_bad_option(const char *cmd, char **argv, const char *optstring)
{
	/* opterr is 0 (main), so getopt printed nothing.  optopt is the
	 * option at fault: 0 for an unknown (or ambiguous) long option. */
	const char *arg = optind > 0 && argv[optind - 1] ? argv[optind - 1] : "";
	if (strncmp(arg, "--", 2) == 0) {
		const char *eq = strchr(arg, '=');
		if (!optopt)
			return cli_error(EXIT_USAGE, cmd, "unknown option '%.*s'",
					 eq ? (int)(eq - arg) : (int)strlen(arg), arg);
		if (eq)
			return cli_error(EXIT_USAGE, cmd, "option '%.*s' takes no value", (int)(eq - arg), arg);
		return cli_error(EXIT_USAGE, cmd, "option '%s' needs a value", arg);
	}
	if (optopt > 0 && optopt < 128 && strchr(optstring, optopt))
		return cli_error(EXIT_USAGE, cmd, "option '-%c' needs a value", optopt);
	if (optopt > 0x20 && optopt < 127)
		return cli_error(EXIT_USAGE, cmd, "unknown option '-%c'", optopt);
	return cli_error(EXIT_USAGE, cmd, "unknown option '%s'", arg);
}

void cli_guard_stdout(void)
{
	/* A closed stdout would be the next file opened, and the output would
	 * go into it.  Hold fd 1 with a pipe whose reader is gone instead:
	 * every write to it fails (EPIPE, SIGPIPE ignored), and
	 * cli_finish_stdout says so. */
	if (fcntl(STDOUT_FILENO, F_GETFD) >= 0 || errno != EBADF)
		return;
	int p[2];
	if (pipe(p) != 0)
		return;
	close(p[0]);
	if (p[1] != STDOUT_FILENO) {
		dup2(p[1], STDOUT_FILENO);
		close(p[1]);
	}
	signal(SIGPIPE, SIG_IGN);
}

int cli_finish_stdout(const char *cmd, int rc)
{
	/* Output that did not reach its file is a failure (/dev/full, a full
	 * disk, a closed stdout), also for --help. */
	int failed = fflush(stdout) != 0 || ferror(stdout);
	int e = errno;
	if (fclose(stdout) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	if (!failed || rc != EXIT_OK)
		return rc;             /* a failed command has said why already */
	fprintf(stderr, "vmreplay%s%s: write error on standard output: %s\n", cmd ? " " : "",
		cmd ? cmd : "", e == EPIPE ? "it is closed" : strerror(e));
	return rc == EXIT_OK ? EXIT_FAIL : rc;
}

/* The length of the well-formed UTF-8 sequence at S (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
		 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/* Always valid JSON (RFC 8259), whatever the bytes: a task's comm or a
 * path from a trace need not be UTF-8, so a byte that starts no
 * well-formed sequence becomes U+FFFD, as a decoder would show it. */
void cli_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', f);
	while (*p) {
		size_t n = utf8_seq(p);
		if (n == 0) {
			fputs("\\ufffd", f);
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	/* A digit first: strtoull would skip blanks and negate a '-'
	 * (" -5" became 2^64 - 5). */
	if (!s || !isdigit((unsigned char)*s))
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
	if (!s || !isdigit((unsigned char)*s))
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
