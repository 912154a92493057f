/*
 * kernel_ctf_priv.h — what the files of the kernel trace conversion share
 * (kernel_ctf.h): kernel_ctf.c runs the graphs, kernel_ctf_read.c is the
 * filter that takes the bridged events out of the UST trace,
 * kernel_ctf_write.c the source that writes them as a kernel trace.
 */
#ifndef KERNEL_CTF_PRIV_H
#define KERNEL_CTF_PRIV_H

#include <babeltrace2/babeltrace.h>
#include <stddef.h>
#include <stdint.h>

#define BRIDGE_PREFIX "vmreplay_kernel:"
#define MAX_FIELDS    24
#define MAX_CPUS      4096
/* Events per packet: lttng-modules packets are sub-buffers; the number
 * only sets how often a packet (and its index entry) starts. */
#define PACKET_EVENTS 4096

enum ftype { F_UNSIGNED, F_SIGNED, F_STRING };

struct kfield {
	uint64_t idx;                 /* member index in the UST payload */
	char *name;
	enum ftype type;
	uint64_t bits;
	bt_field_class_integer_preferred_display_base base;
};

/* One bridged event class and the kernel event class made from it. */
struct kcls {
	const bt_event_class *ust;    /* reference held */
	char *name;                   /* without the provider */
	uint64_t kts, kcpu, ktid, kpid;
	int nf;
	struct kfield f[MAX_FIELDS];
	bt_event_class *out;          /* in the kernel trace class */
};

/* One event, its values in conv.vals (strings as offsets in conv.strs). */
struct krec {
	uint64_t kts, seq;
	uint32_t cls, cpu;
	int32_t tid, pid;
	uint64_t val;
};

struct conv {
	char err[512];
	const char *trace;            /* for messages */

	struct kcls *cls;
	size_t nr_cls, cap_cls;
	struct krec *rec;
	size_t nr_rec, cap_rec;
	uint64_t *vals;
	size_t nr_vals, cap_vals;
	char *strs;
	size_t nr_strs, cap_strs;
	uint64_t last_kts[MAX_CPUS];
	uint8_t cpu_seen[MAX_CPUS];
	uint64_t reordered, max_lag;

	/* the UST trace's clock class and environment */
	int have_clock;
	char clock_name[64], clock_desc[128];
	uint8_t clock_uuid[16];
	int clock_has_uuid, clock_unix;
	uint64_t clock_freq, clock_prec, clock_off_cycles;
	int64_t clock_off_s;
	char hostname[256], trace_name[256], trace_date[64];
	char kernel_release[128], kernel_version[512];

	bt_self_component_port_input *in_port;
};

/* Sets cv->err (the first error wins); -1. */
int kctf_fail(struct conv *cv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The "split" filter class (kernel_ctf_read.c): its initialize method
 * data is the struct conv that collects the bridged events. */
bt_component_class_filter *kctf_split_class(void);
/* The "ksrc" source class (kernel_ctf_write.c): writes conv's events. */
bt_component_class_source *kctf_kernel_class(void);

#endif
