/* baseline.c — the baseline of each policy (baseline.h). */
#include "baseline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Base policies compared with one another, as the kernel's own choice
 * between them is: CONFIG_LRU_GEN replaces the active/inactive lists.
 */
static const struct { const char *policy, *base; } base_pairs[] = {
	{ "mglru", "classic" },
};

int baseline_add(struct baseline_rules *r, const char *spec)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || !eq[1] || strchr(eq + 1, '='))
		return -1;
	char **p = realloc(r->policy, (r->n + 1) * sizeof(*p));
	if (!p)
		return -1;
	r->policy = p;
	char **b = realloc(r->base, (r->n + 1) * sizeof(*b));
	if (!b)
		return -1;
	r->base = b;
	p[r->n] = strndup(spec, eq - spec);
	b[r->n] = strdup(eq + 1);
	if (!p[r->n] || !b[r->n]) {
		free(p[r->n]);
		free(b[r->n]);
		return -1;
	}
	r->n++;
	return 0;
}

void baseline_free(struct baseline_rules *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->policy[i]);
		free(r->base[i]);
	}
	free(r->policy);
	free(r->base);
	memset(r, 0, sizeof(*r));
}

int baseline_of(const struct baseline_rules *r, const char *policy, char *buf, size_t len)
{
	/* The last override given wins, as with repeated options elsewhere. */
	for (size_t i = r ? r->n : 0; i-- > 0;)
		if (strcmp(r->policy[i], policy) == 0) {
			if (strcmp(r->base[i], "none") == 0)
				return 0;
			snprintf(buf, len, "%s", r->base[i]);
			return 1;
		}
	const char *plus = strchr(policy, '+');
	if (plus && plus != policy) {
		snprintf(buf, len, "%.*s", (int)(plus - policy), policy);
		return 1;
	}
	for (size_t i = 0; i < sizeof(base_pairs) / sizeof(base_pairs[0]); i++)
		if (strcmp(base_pairs[i].policy, policy) == 0) {
			snprintf(buf, len, "%s", base_pairs[i].base);
			return 1;
		}
	return 0;
}
