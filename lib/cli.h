/*
 * cli.h — what every vmreplay subcommand shares: exit codes, size
 * parsing, errors, and opening a replay input.
 *
 * Exit codes follow git/perf: 0 success, 1 the work failed (bad input
 * data, I/O), 2 the command line was wrong.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "vmr/vmr.h"

#define VMREPLAY_VERSION "0.1.0"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* Every subcommand: argv[0] is the subcommand's name. */
int cmd_ingest(int argc, char **argv);
int cmd_run(int argc, char **argv);

/* "vmreplay CMD: message" on stderr; returns CODE. */
int cli_error(int code, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Parses "4096", "64K", "512M", "2G" (bytes, powers of 1024); -1 if bad. */
int cli_parse_size(const char *s, uint64_t *bytes);
/* Parses a whole number in [min, max]; -1 if bad. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Writes S as a JSON string (quotes, escapes) to F. */
void cli_json_str(FILE *f, const char *s);

/* Opens a replay input: a .vmr file, or a trace directory, which is
 * ingested through the cache first.  0, or -1 with err set. */
int cli_open_input(const char *input, struct vmr *v, char *path, size_t pathlen,
		   int progress, char *err, size_t errlen);

#endif
