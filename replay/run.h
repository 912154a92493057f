/*
 * run.h — one kernel-policy replay of one trace: the machine it runs on,
 * from what the user asked for and, for the rest, from what the capture
 * recorded of its own machine (limit, RAM, swap device and its measured
 * latencies, read-ahead settings).  `vmreplay run`, `compare` and
 * `validate` all set a replay up here, so that they replay a captured
 * session the same way.
 */
#ifndef RUN_H
#define RUN_H

#include <stdint.h>
#include <stdio.h>
#include "sim/engine.h"
#include "vmr/vmr.h"

/* What the user chose; NULL / -1 / 0 leave a setting to the capture. */
struct run_request {
	const struct reclaim_policy *policy;
	int swappiness;              /* -1: the capture's, else 60 */
	const char *memory_limit;    /* a size; "0": no limit; NULL: the capture's */
	const char *node_memory;     /* a size; NULL: the capture's RAM */
	const char *swap;            /* a device spec or "none"; NULL: like the capture's */
	const char *file_dev;        /* a device spec; NULL: like the capture's, else ssd */
	const char *cgroup_version;  /* "1" or "2"; NULL: the capture's (else 2) */
	uint64_t seed;               /* of the I/O latency jitter (run: 1) */
	simtime_t deadline;          /* 0: the trace's span */
	FILE *timeline;
	int keep_records;
	int progress;
};

/* Fills P for a replay of V.  0, or -1 with a usage error in ERR (an
 * option that does not parse names itself: "--swap: ..."). */
int run_setup(const struct vmr *v, const struct run_request *r, struct engine_params *p,
	      char *err, size_t errlen);

/* The pages the session's memcg had charged off the LRU while the
 * workload ran, from the capture's memory.stat snapshots (run_setup's
 * engine_params.nonlru_pages). */
uint64_t run_nonlru_pages(const struct vmr *v, uint64_t page_size);

/* The capture's swap device as a spec, as run_setup takes it without
 * --swap: zram for zram, an SSD-like queue for a swap file or partition
 * (with the latencies and rotational flag the capture recorded, when it
 * did), of the capture's size; "" when the trace does not say. */
void run_capture_swap(const struct vmr *v, char *spec, size_t len);

/* The swap device of a report: the spec R asked for as given (so that a
 * sweep's "ssd,size=1G" run is recognised as that run), else what
 * run_setup chose: "none" or the preset's name. */
const char *run_swap_name(const struct run_request *r, const struct engine_params *p);

/* `vmreplay run` with its options and input in ARGV (cmd_run.c).  With a
 * HOOK, a kernel policy's finished replay is handed to HOOK->done, whose
 * return is the exit status, instead of being reported: compare replays
 * so, in its own process, with run's own options and defaults. */
struct run_hook {
	int (*done)(const struct engine *e, const struct engine_params *p, void *arg);
	void *arg;
};
int run_main(int argc, char **argv, const struct run_hook *hook);

#endif
