/* kcounter.c — the kernel's counters of a captured session (kcounter.h). */
#include "kcounter.h"

#include <string.h>

static int vmstat_index(const char *name)
{
	for (int i = 0; i < VMR_NR_VMSTAT; i++)
		if (strcmp(vmr_vmstat_names[i], name) == 0)
			return i;
	return -1;
}

static int memcg_index(const char *name)
{
	for (int i = 0; i < VMR_NR_MEMCG; i++)
		if (strcmp(vmr_memcg_names[i], name) == 0)
			return i;
	return -1;
}

struct kcounter kernel_counter(const struct vmr *v, const struct analysis *a, const char *name)
{
	struct kcounter k = { 0, 0, "" };
	/*
	 * MGLRU counts pgscan as the folios scan_folios isolated (its
	 * __count_vm_events(PGSCAN_*, isolated)), lru_isolate's nr_taken;
	 * lru_shrink_inactive's nr_scanned is not that: evict_folios fires it
	 * again, with the same number, after its clean-retry pass.  Classic
	 * counts shrink_inactive_list's nr_scanned, which that event carries.
	 */
	if (a->have_isolated && !a->simulated && (!strcmp(name, "pgscan_anon") || !strcmp(name, "pgscan_file"))) {
		char kind[16];
		if (vmr_meta_get(v, "lru_kind", kind, sizeof(kind)) && strcmp(kind, "mglru") == 0)
			return (struct kcounter){ 1, (double)(strcmp(name, "pgscan_anon") == 0 ? a->anon_isolated
			                                                                   : a->file_isolated), "events" };
	}
	/* pgscan/pgsteal by type: the workload's own lru_shrink_inactive events */
	if (a->trace.have && !a->simulated) {
		const struct { const char *n; uint64_t x; } ev[] = {
			{ "pgscan_anon", a->anon_scanned }, { "pgscan_file", a->file_scanned },
			{ "pgsteal_anon", a->anon_reclaimed }, { "pgsteal_file", a->file_reclaimed },
		};
		for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
			if (strcmp(ev[i].n, name) == 0)
				return (struct kcounter){ 1, (double)ev[i].x, "events" };
	}
	/* the cgroup's own counter */
	int m = memcg_index(name);
	if (m >= 0 && v->nr_memcg >= 2) {
		uint64_t x = v->memcg[0].v[m], y = v->memcg[v->nr_memcg - 1].v[m];
		if (x != VMR_ABSENT && y != VMR_ABSENT)
			return (struct kcounter){ 1, y >= x ? (double)(y - x) : 0, "memory.stat" };
	}
	int i = vmstat_index(name);
	if (i >= 0 && v->nr_vmstat >= 2) {
		uint64_t x = v->vmstat[0].v[i], y = v->vmstat[v->nr_vmstat - 1].v[i];
		return (struct kcounter){ 1, y >= x ? (double)(y - x) : 0, "vmstat" };
	}
	return k;
}
