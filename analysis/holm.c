/* holm.c — Holm's step-down p-value adjustment (holm.h). */
#include "holm.h"

#include <math.h>
#include <stdlib.h>

struct ranked {
	double p;
	size_t i;
};

static int by_p(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	/* Ties keep input order, so the result does not depend on qsort. */
	return x->i < y->i ? -1 : x->i > y->i;
}

int holm_adjust(const double *p, double *adj, size_t n)
{
	struct ranked *r = malloc((n + 1) * sizeof(*r));
	if (!r)
		return -1;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			r[m++] = (struct ranked){ p[i], i };
	qsort(r, m, sizeof(*r), by_p);
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			adj[i] = NAN;
	/* adj_(k) = max_{j<=k} min(1, (m - j + 1) p_(j)), k = 1..m. */
	double running = 0;
	for (size_t k = 0; k < m; k++) {
		double v = fmin(1.0, (double)(m - k) * r[k].p);
		running = fmax(running, v);
		adj[r[k].i] = running;
	}
	free(r);
	return 0;
}
