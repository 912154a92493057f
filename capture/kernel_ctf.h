/*
 * kernel_ctf.h — the tracefs bridge's kernel events as a kernel-domain CTF
 * trace at the kernel's own timestamps.
 *
 * The agent re-emits each ftrace record as a UST event vmreplay_kernel:NAME
 * whose CTF time is the re-emit time and whose kernel time is its kts
 * field.  kernel_ctf_convert() rewrites a capture's session folder so that
 * the kernel events live in SESSION/kernel/, laid out as lttng-modules
 * writes a kernel trace (env domain "kernel", one stream per CPU with
 * cpu_id in the packet context, lttng-modules event and field names, tid
 * and pid contexts), each at its kts on the UST trace's own clock, and the
 * UST trace SESSION/ust/uid/0/64-bit without them (capture/EVENTS.md).
 */
#ifndef KERNEL_CTF_H
#define KERNEL_CTF_H

#include <stddef.h>
#include <stdint.h>

struct kernel_ctf_stats {
	uint64_t events;        /* kernel events moved into kernel/ */
	uint64_t cpus;          /* streams of kernel/ (CPUs that had events) */
	uint64_t reordered;     /* events that came before an earlier kts of their CPU */
	uint64_t max_lag_ns;    /* largest re-emit time minus kts */
};

/* Converts the session folder SESSION in place: SESSION/kernel/ and a new
 * SESSION/ust/uid/0/64-bit, or nothing at all (temp folder, then rename).
 * 1 when converted, 0 when there was nothing to convert (no bridged kernel
 * event, or SESSION/kernel exists already: lttng-modules recorded it) with
 * the reason in err, -1 on error with one line in err. */
int kernel_ctf_convert(const char *session, struct kernel_ctf_stats *st, char *err, size_t errlen);

#endif
