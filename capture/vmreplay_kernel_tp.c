/*
 * vmreplay_kernel_tp.c - instantiates the `vmreplay_kernel` probes (the
 * tracefs bridge's events), linked statically into the capture agent.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE

#include "vmreplay_kernel_tp.h"
