/*
 * policy_list.h — the policies `vmreplay run` knows, as the sweep sees them.
 *
 * The sweep never names a policy itself: it asks `vmreplay run
 * --list-policies` (NAME, takes-swappiness, stochastic per line), so a
 * policy added to run is swept, tested and drawn with no change here.
 */
#ifndef POLICY_LIST_H
#define POLICY_LIST_H

#include <stddef.h>

struct policy_desc {
	char name[64];
	int takes_swappiness;          /* a kernel model: swappiness, limit, swap */
	int stochastic;                /* its result depends on --seed            */
};

struct policy_list {
	struct policy_desc *p;
	size_t n;
};

/* Parses the --list-policies text.  0, or -1 naming the bad line. */
int policy_list_parse(const char *text, struct policy_list *l, char *err, size_t errlen);
/* Runs EXE run --list-policies and parses its output. */
int policy_list_load(const char *exe, struct policy_list *l, char *err, size_t errlen);
const struct policy_desc *policy_list_find(const struct policy_list *l, const char *name);
void policy_list_free(struct policy_list *l);

#endif
