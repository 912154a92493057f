/*
 * baseline.h — which policy a policy is tested against.
 *
 * A patch variant against the policy it patches ("classic+early-exit"
 * against "classic", "mglru+swappiness+iso-throttle" against "mglru"),
 * and the multi-gen LRU against the classic LRU it replaces.  Overrides
 * ("mglru=none", "mglru+a+b=mglru+a") come from the command line.
 */
#ifndef BASELINE_H
#define BASELINE_H

#include <stddef.h>

struct baseline_rules {
	char **policy, **base;         /* overrides; base "none": no test */
	size_t n;
};

/* Parses "POLICY=BASE" into R.  0, or -1 when malformed. */
int baseline_add(struct baseline_rules *r, const char *spec);
void baseline_free(struct baseline_rules *r);

/* POLICY's baseline written into BUF, or 0 when it has none. */
int baseline_of(const struct baseline_rules *r, const char *policy, char *buf, size_t len);

#endif
