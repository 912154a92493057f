/*
 * tracedat.h — a `trace-cmd record` file (trace.dat) as an ingest input.
 *
 * The recording is read with libtracecmd and handed to the ingest graph
 * as a babeltrace2 source of our own that shows it as an LTTng kernel
 * domain trace would (lttng-modules event names, tid/pid/procname
 * contexts, one stream per CPU with cpu_id in its packet context), so
 * that kevents.c decodes its events exactly as it decodes lttng-modules
 * and bridged ones.  The session's setup (memory limit, swappiness, ...)
 * is not in a trace.dat: it comes from an optional side file FILE.session
 * (README, "trace-cmd"), turned into the capture's session event.
 */
#ifndef TRACEDAT_H
#define TRACEDAT_H

#include <babeltrace2/babeltrace.h>
#include <stddef.h>
#include <stdint.h>

/* 1 if PATH is a regular file with trace-cmd's magic, else 0. */
int tracedat_is(const char *path);

/* The recording's identity for the cache: XXH3-128 of the file and of
 * its side file (if any).  0, or -1 with err set. */
int tracedat_hash(const char *path, uint8_t hash[16], char *err, size_t errlen);

/* Reads the recording whole in a child process, which a damaged file
 * may crash, giving it SECONDS: 0, or -1 with a one-line error naming
 * the file.  Before tracedat_add_source, while the process has one
 * thread: a fork beside a running thread can give the child a lock that
 * thread held (a sanitizer's allocator's: make check-asan hung in such a
 * child). */
int tracedat_probe(const char *path, unsigned seconds, char *err, size_t errlen);

/* Adds a source reading PATH (and PATH.session) to G; its one output
 * port in *PORT.  0, or -1 with a one-line error naming the file. */
int tracedat_add_source(bt_graph *g, const char *path, const bt_port_output **port,
			char *err, size_t errlen);

#endif
