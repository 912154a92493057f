/* units.c — the unit of each metric (units.h). */
#include "units.h"

#include <stdio.h>
#include <string.h>

static int ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int is(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

const char *metric_unit(const char *m)
{
	static const char *const events[] = {
		"allocstall", "pgscan_direct_throttle", "oom_kill", "tasks_killed", "direct_reclaims",
		"pageoutrun", "mm_vmscan_throttled", "pgfault", "pgmajfault", NULL,
	};
	static const char *const accesses[] = {
		"accesses", "work_done", "hits", "misses", "cold_misses", NULL,
	};
	if (ends(m, "_ns"))
		return "ns";
	if (strstr(m, "ratio") || strstr(m, "_per_") || strstr(m, "_share"))
		return "";
	if (is(m, events))
		return "events";
	if (is(m, accesses))
		return "accesses";
	return "pages";
}

void metric_label(const char *m, char *buf, size_t len, double *scale)
{
	const char *u = metric_unit(m);
	*scale = 1;
	if (strcmp(u, "ns") == 0) {
		/* Runs last milliseconds to minutes: ms reads best. */
		*scale = 1e-6;
		u = "ms";
	}
	snprintf(buf, len, "%s (%s)", m, *u ? u : "ratio");
}
