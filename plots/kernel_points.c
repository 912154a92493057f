/* kernel_points.c — the captured kernel's counters of a sweep's traces (kernel_points.h). */
#include "kernel_points.h"
#include "analyze.h"
#include "kcounter.h"
#include "sweep/sweep.h"
#include "vmr/vmr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int load_one(struct kernel_capture *c, const char *path, char *const *metrics, size_t nm,
		    char *err, size_t errlen)
{
	struct vmr v;
	char buf[256];
	if (vmr_open(&v, path, err, errlen) != 0)
		return -1;
	c->value = malloc((nm + 1) * sizeof(*c->value));
	if (!c->value) {
		vmr_close(&v);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t m = 0; m < nm; m++)
		c->value[m] = NAN;
	c->usable = vmr_meta_get(&v, "capture_cgroup", buf, sizeof(buf)) && v.nr_memcg >= 2;
	c->swappiness = vmr_meta_get(&v, "swappiness", buf, sizeof(buf)) ? atoi(buf) : 60;
	c->memory_limit = vmr_meta_get(&v, "memory_limit", buf, sizeof(buf)) ? strtoull(buf, NULL, 10) : 0;
	snprintf(c->lru_kind, sizeof(c->lru_kind), "%.15s",
		 vmr_meta_get(&v, "lru_kind", buf, sizeof(buf)) ? buf : "classic");
	int rc = 0;
	if (c->usable) {
		struct analysis a = { 0 };
		if (analyze_vmr(&v, &a, err, errlen) != 0) {
			rc = -1;
		} else {
			for (size_t m = 0; m < nm; m++) {
				struct kcounter k = kernel_counter(&v, &a, metrics[m]);
				if (k.have)
					c->value[m] = k.v;
			}
		}
		analysis_free(&a);
	}
	vmr_close(&v);
	return rc;
}

int kernel_points_load(struct kernel_points *kp, char *const *dirs, size_t n,
		       char *const *metrics, size_t nr_metrics, char *err, size_t errlen)
{
	memset(kp, 0, sizeof(*kp));
	kp->metrics = metrics;
	kp->nr_metrics = nr_metrics;
	for (size_t d = 0; d < n; d++) {
		struct sweep_plan plan;
		if (sweep_plan_read(dirs[d], &plan, err, errlen) != 0)
			return -1;
		for (size_t t = 0; t < plan.nr_traces; t++) {
			const struct sweep_trace_info *ti = &plan.traces[t];
			size_t i;
			for (i = 0; i < kp->n && strcmp(kp->c[i].name, ti->name); i++)
				;
			if (i < kp->n)
				continue;
			int kernel = 0;
			for (size_t r = 0; r < plan.nr_runs && !kernel; r++)
				kernel = plan.runs[r].trace == t && plan.runs[r].kernel;
			if (!kernel)
				continue;
			struct kernel_capture *g = realloc(kp->c, (kp->n + 1) * sizeof(*g));
			if (!g) {
				sweep_plan_free(&plan);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			kp->c = g;
			struct kernel_capture *c = &kp->c[kp->n++];
			memset(c, 0, sizeof(*c));
			snprintf(c->name, sizeof(c->name), "%s", ti->name);
			snprintf(c->set, sizeof(c->set), "%s", ti->set);
			char rel[128], path[4300];
			sweep_vmr_path(&plan, t, rel, sizeof(rel));
			snprintf(path, sizeof(path), "%s/%s", dirs[d], rel);
			/* A results directory without its traces (copied for
			 * the numbers alone) has no kernel to show. */
			if (access(path, F_OK) != 0)
				continue;
			if (load_one(c, path, metrics, nr_metrics, err, errlen) != 0) {
				sweep_plan_free(&plan);
				return -1;
			}
		}
		sweep_plan_free(&plan);
	}
	return 0;
}

void kernel_points_free(struct kernel_points *kp)
{
	for (size_t i = 0; i < kp->n; i++)
		free(kp->c[i].value);
	free(kp->c);
	memset(kp, 0, sizeof(*kp));
}

int kernel_points_match(const struct kernel_capture *c, const struct stats_group *g)
{
	return c->usable && strcmp(c->set, g->trace) == 0 && c->memory_limit == g->memory_limit &&
	       g->node_memory == 0 && strcmp(g->swap, "-") == 0;
}
