/*
 * table.h — a sweep's means in the form posted on linux-mm.
 *
 * One table per metric and condition: a row per swappiness, a column per
 * policy, each cell the mean over the replicates (captures or seeds: the
 * caption says which), marked "*" where it differs from the policy's
 * baseline after Holm's correction.  Policies without a swappiness (lru)
 * get their own tables, with a row per memory limit.  A metric that is
 * the same in every cell of every table gets none: a line at the end
 * names it.  LaTeX tables abbreviate the policies (a key under each) and
 * compile when \input into an article with booktabs.
 */
#ifndef TABLE_H
#define TABLE_H

#include <stdio.h>
#include "stats.h"

enum table_format { TABLE_TEXT, TABLE_MARKDOWN, TABLE_LATEX };

/* Writes every table of ST, or only those of METRICS[0..n) (n = 0: all).
 * Returns the number of tables written. */
size_t table_write(FILE *f, const struct stats *st, enum table_format fmt,
		   char *const *metrics, size_t nr_metrics);

/* "64 MiB", "1.5 GiB", "4096 B": for captions. */
void table_format_size(uint64_t bytes, char *buf, size_t len);
/* A memory limit: its size, or "none" for 0 (no limit). */
void table_format_limit(uint64_t bytes, char *buf, size_t len);
/* A mean as a table shows it: integers whole, others to 4 digits. */
void table_format_number(double v, char *buf, size_t len);
/* The same in at most five characters: 10.8M, 208k (LaTeX tables). */
void table_format_compact(double v, char *buf, size_t len);

#endif
