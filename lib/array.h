/*
 * array.h — a growing array, as every stage keeps its variable-length
 * tables (tasks, records, strings): capacity doubles from 64, so appending
 * N items costs O(N) copies in all.
 */
#ifndef LIB_ARRAY_H
#define LIB_ARRAY_H

#include <stdlib.h>

/* Makes *P (of *CAP items of SIZE bytes) hold at least NEED items: 0, or
 * -1 when out of memory (*P and *CAP unchanged). */
static inline int array_grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *n = realloc(*p, c * size);
	if (!n)
		return -1;
	*p = n;
	*cap = c;
	return 0;
}

#endif
