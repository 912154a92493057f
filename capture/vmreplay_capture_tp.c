/*
 * vmreplay_capture_tp.c - instantiates the `vmreplay_capture` probes (the
 * capture agent's session facts), linked statically into the agent.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE

#include "vmreplay_capture_tp.h"
