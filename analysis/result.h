/*
 * result.h — reading one run's result (the contract in RESULTS.md).
 *
 * A result file is a header line and one data line, tab-separated: the
 * nine identity columns in their fixed order, then one numeric column per
 * metric.  Readers find metrics by name; a metric a result does not have
 * is absent, never zero.
 */
#ifndef RESULT_H
#define RESULT_H

#include <stddef.h>

enum result_id {
	RES_TRACE, RES_TRACE_HASH, RES_POLICY, RES_SWAPPINESS, RES_MEMORY_LIMIT,
	RES_NODE_MEMORY, RES_SWAP, RES_SEED, RES_VERSION, RES_NR_ID
};

extern const char *const result_id_names[RES_NR_ID];

struct result {
	char *id[RES_NR_ID];            /* identity fields as written ("-" kept) */
	size_t nr_metrics;
	char **metric;                  /* metric names, in file order           */
	double *value;                  /* their values, all finite              */
};

/*
 * Reads PATH.  Returns 0, or -1 with "PATH: line N: field: reason" in err:
 * a file that is not exactly one well-formed result (wrong identity
 * columns, a field count that differs from the header, a metric that is
 * not a finite number, a duplicated column, a missing final newline, a
 * value no run can have: negative, beyond 2^53, a share above 1, a part
 * above its whole such as hits above accesses) is
 * refused whole, so a damaged file can never pass as a result.
 */
int result_read(const char *path, struct result *r, char *err, size_t errlen);
void result_free(struct result *r);

/* The value of METRIC, or NULL when the result does not have it. */
const double *result_metric(const struct result *r, const char *metric);

#endif
