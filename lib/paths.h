/*
 * paths.h — where vmreplay finds the files it ships with: the capture
 * agent and the workloads (libexecdir/vmreplay) and the gnuplot scripts
 * (datadir/vmreplay/plots).
 *
 * Each is looked for, in this order:
 *   1. relative to the running binary as installed (bindir/vmreplay, with
 *      the Makefile's bindir → libexecdir and bindir → datadir paths), so
 *      a tree installed under DESTDIR, or moved as a whole, works;
 *   2. as in the source tree: BUILD/vmreplay with the agent beside it and
 *      the scripts in BUILD/../plots, so that a build never picks up an
 *      older installed copy;
 *   3. at the absolute paths the Makefile compiled in, so that a binary
 *      copied elsewhere still finds an installed tree.
 * The callers check their environment overrides (VMREPLAY_AGENT,
 * VMREPLAY_PLOTS) first.
 */
#ifndef PATHS_H
#define PATHS_H

#include <stddef.h>

/* The helper program NAME (e.g. "vmreplay-capture-agent") into BUF:
 * 0, or -1 if it is in none of the places. */
int paths_libexec(const char *name, char *buf, size_t len);

/* The data directory SUB (e.g. "plots") that holds the file PROBE
 * (e.g. "swappiness.gp"), resolved, into BUF: 0, or -1. */
int paths_data(const char *sub, const char *probe, char *buf, size_t len);

#endif
