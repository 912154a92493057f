/*
 * vmreplay_tp.c - instantiates the `vmreplay` LTTng-UST probes.
 *
 * Compiled once and linked statically into every workload (see
 * docs/tracing-notes.md section 3.1): CREATE_PROBES makes this object carry
 * the probe callbacks and event descriptions, DEFINE makes it carry the
 * tracepoint definitions and the constructor that registers them, so
 * nothing has to be preloaded at run time.
 */

#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE

#include "vmreplay_tp.h"
