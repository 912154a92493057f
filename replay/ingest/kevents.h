/*
 * kevents.h — the kernel's own events in ingest: LTTng kernel-domain
 * traces (lttng-modules names), the tracefs bridge (`vmreplay_kernel:*`)
 * and the capture's facts (`vmreplay_capture:*`).
 *
 * While the trace is decoded, kevents collects these events; at the end
 * it keeps the reclaim events and memory.stat snapshots as the ground
 * truth (.vmr sections KEVENTS and MEMCG), and, when the trace holds no
 * exact access stream of an instrumented workload, turns page faults,
 * page-cache events and DAMON samples into the demand stream (FORMAT.md,
 * "Demand from kernel events").  kevents.c collects, kmaps.c keeps the
 * address spaces, kdemand.c finishes; kevents_priv.h is what they share.
 */
#ifndef KEVENTS_H
#define KEVENTS_H

#include <babeltrace2/babeltrace.h>
#include <stdint.h>
#include "vmr/vmr.h"

struct sink;
struct kevents;

struct kevents *kevents_new(void);
void kevents_free(struct kevents *k);

/* If NAME is an event kevents reads, resolves its fields (payload and
 * context) and returns 1 with its class index in *KIDX; 0 if not ours;
 * -1 with a one-line error ("TRACE: event E: field F: ...") in err. */
int kevents_resolve(struct kevents *k, const bt_event_class *ec, const char *name,
		    const char *trace, int *kidx, char *err, size_t errlen);
/* Takes one event of class KIDX.  0, or -1 with err set. */
int kevents_event(struct kevents *k, int kidx, const bt_message *msg, const char *trace,
		  char *err, size_t errlen);
/* At the end of the trace: ground truth, demand (into S), metadata.
 * 0, or -1 (the sink's error is set). */
int kevents_finish(struct kevents *k, struct sink *s);

/* The ground truth, valid after kevents_finish. */
const struct vmr_kev *kevents_ground(const struct kevents *k, uint64_t *nr);
const struct vmr_memcg *kevents_memcg(const struct kevents *k, uint64_t *nr);

#endif
