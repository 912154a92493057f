/*
 * units.h — what a metric counts, for axis labels and captions.
 *
 * RESULTS.md defines every metric; most count pages (base pages), the
 * _ns ones nanoseconds, a few events or accesses, the ratios nothing.
 */
#ifndef UNITS_H
#define UNITS_H

#include <stddef.h>

/* "pages", "ns", "events", "accesses", or "" for a ratio. */
const char *metric_unit(const char *metric);

/* An axis label, "pgsteal_file (pages)", "steal_scan_ratio (ratio)",
 * "makespan_ns (ms)", and the factor that turns values into its unit
 * (1e-6 for the last). */
void metric_label(const char *metric, char *buf, size_t len, double *scale);

#endif
