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

/* Usage errors (code EXIT_USAGE) get a second line, "Try 'vmreplay CMD
 * --help'.". */

/* The one-line error for getopt_long's '?' (with opterr = 0), naming the
 * unknown option or the option without its value; returns EXIT_USAGE. */
int cli_bad_option(const char *cmd, char **argv, const char *optstring);
/* At start: a closed stdout is held by a pipe that fails every write. */
void cli_guard_stdout(void);
/* At exit: flushes and closes stdout; a write error is one line and
 * exit 1 (RC, and no second message, when RC already says failure). */
int cli_finish_stdout(const char *cmd, int rc);

/* Parses "4096", "64K", "512M", "2G" (bytes, powers of 1024); -1 if bad.
 * Both parsers take digits first: no blank, sign or empty string. */
int cli_parse_size(const char *s, uint64_t *bytes);
/* Parses a whole number in [min, max]; -1 if bad. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Writes S as a JSON string (quotes, escapes) to F: valid UTF-8 always,
 * invalid bytes as U+FFFD. */
void cli_json_str(FILE *f, const char *s);

#endif
