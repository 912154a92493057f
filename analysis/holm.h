/*
 * holm.h — Holm's step-down correction for multiple comparisons.
 *
 * Controls the family-wise error rate like Bonferroni, but is uniformly
 * more powerful: the smallest p is multiplied by m, the next by m - 1,
 * and so on, each adjusted value kept at least as large as the one
 * before.  Same result as R's p.adjust(p, method = "holm").
 */
#ifndef HOLM_H
#define HOLM_H

#include <stddef.h>

/*
 * Writes the adjusted p-values of p[0..n) to adj[0..n) (adj may be p).
 * NaN entries are not part of the family: they stay NaN and do not count
 * in m, as R's p.adjust does with NA.  0, or -1 (out of memory).
 */
int holm_adjust(const double *p, double *adj, size_t n);

#endif
