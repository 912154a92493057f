/*
 * cli.h — what every vmreplay subcommand shares: exit codes, size
 * parsing, errors and JSON strings.
 *
 * Exit codes follow git/perf: 0 success, 1 the work failed (bad input
 * data, I/O), 2 the command line was wrong.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define VMREPLAY_VERSION "0.1.0"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* "vmreplay CMD: message" on stderr; returns CODE. */
int cli_error(int code, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Parses "4096", "64K", "512M", "2G" (bytes, powers of 1024); -1 if bad. */
int cli_parse_size(const char *s, uint64_t *bytes);
/* Parses a whole number in [min, max]; -1 if bad. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Writes S as a JSON string (quotes, escapes) to F: valid UTF-8 always,
 * invalid bytes as U+FFFD. */
void cli_json_str(FILE *f, const char *s);

#endif
