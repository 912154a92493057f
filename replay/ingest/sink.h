/*
 * sink.h — the decoder's private state, shared by the files of ingest
 * that make a .vmr: events.c (each event), sink.c (streams, pages,
 * output), graph.c (the babeltrace2 graph) and ingest.c (which calls
 * ingest_decode).  The kernel-event half sees only ingest_sink.h.
 */
#ifndef SINK_H
#define SINK_H

#include <babeltrace2/babeltrace.h>
#include <pthread.h>
#include <stdint.h>
#include "ingest_sink.h"
#include "pagemap.h"
#include "progress.h"
#include "spill.h"
#include "spsc.h"

struct ingest_report;

enum ev_kind {
	EV_SESSION, EV_VMSTAT, EV_TASK_BEGIN, EV_TASK_END,
	EV_ANON_ACCESS, EV_ANON_FREE, EV_FILE_ACCESS, EV_FILE_DROP,
	EV_CGROUP,
	EV_KERNEL_PAGE_ALLOC, EV_KERNEL_PAGE_FREE,
	EV_KERNEL,                     /* kevents.c reads it */
	EV_SKIP,
};

#define MAX_FIELDS (VMR_NR_VMSTAT + 1)

/* One event class as met in the trace, resolved once. */
struct evclass {
	const bt_event_class *ec;      /* referenced */
	enum ev_kind kind;
	const char *name;              /* owned by ec */
	int nr;
	uint64_t idx[MAX_FIELDS];
	int is_signed[MAX_FIELDS];
	int kidx;                      /* EV_KERNEL: kevents' class */
	uint64_t count;
};

struct task {
	struct vmr_task t;             /* t.nr_recs: the whole stream's */
	struct vmr_rec *recs;          /* its last nr_buf records (spill.h) */
	uint32_t nr_buf, cap;
	uint32_t *chunks;              /* the ones before: spilled chunks, in order */
	size_t nr_chunks, cap_chunks;
	uint64_t last_ns;
	/* the time the task spent in the kernel's reclaim since its last
	 * record (ingest_sink_stall), not yet taken out of a gap, and the
	 * span it lies in (from the first bracket's begin to the last's end) */
	uint64_t stall_ns, stall_from, stall_to;
	int live;                      /* no task_end seen yet */
};

struct sink {
	const char *trace;
	char *err;
	size_t errlen;
	int failed;

	struct evclass *classes;
	size_t nr_classes, cap_classes;
	struct evclass *last_class;    /* the previous event's: most events are
					* of the class before them */

	uint64_t page_size;
	int page_shift;
	int saw_access;
	uint64_t mem_total;            /* the session's RAM, bytes (0: not known) */

	char *meta;                    /* "key\tvalue\n" lines */
	size_t meta_len, meta_cap;
	int saw_session;

	struct vmr_vmstat *vmstat;
	size_t nr_vmstat, cap_vmstat;

	uint64_t events, discarded;
	uint64_t kalloc_events, kalloc_pages, kfree_events, kfree_pages;

	struct kevents *kev;           /* kernel events and the capture's facts */

	struct progress progress;
	uint64_t heartbeat;            /* read by the watchdog (atomically) */

	/* What the range worker writes for every range event, on cache
	 * lines of its own: beside the decoding thread's counters, each
	 * record took the line from the other core. */
	struct task *tasks __attribute__((aligned(64)));
	size_t nr_tasks, cap_tasks;
	uint32_t *tid_slots;           /* tid → live task index + 1 */
	uint64_t nr_tid_slots;
	uint64_t records, accesses;
	uint64_t stall_subtracted;     /* ns of reclaim taken out of gaps */
	uint8_t *resident;             /* by page id, when tracking residency */
	uint64_t cap_resident;
	int track_resident;
	struct pagemap pm;
	struct spill spill;            /* the streams' full chunks */

	/* Page ids and records are made on a second thread, fed in order
	 * through Q, so decoding and page-id assignment overlap on two cores.
	 * Anything else that touches tasks or pages first drains Q. */
	struct spsc q;
	pthread_t worker;
	int worker_on;
	pthread_mutex_t fail_lock;
};

/* Collects the page ids of one range event into runs of consecutive ids. */
struct run {
	struct sink *s;
	struct task *t;
	uint64_t ts;
	unsigned op, flags;
	uint32_t first, count;
};

/* One range event, handed from the decoding thread to the worker. */
struct range_cmd {
	uint64_t space, ino, first, last, ts;
	uint32_t pid, tid;
	uint8_t kind, op;
};

/* sink.c */
void sink_fail(struct sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sink_meta_add(struct sink *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct task *sink_task_find(struct sink *s, uint32_t tid);
struct task *sink_task_new(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts);
struct task *sink_task_get(struct sink *s, uint32_t pid, uint32_t tid, uint64_t ts);
void sink_run_flush(struct run *r);
void sink_run_add(struct run *r, uint32_t id);
void sink_set_page_size(struct sink *s, uint64_t ps, const char *ev);
uint64_t sink_add_pages(struct sink *s, struct task *t, uint64_t ts, enum vmr_page_kind kind,
			uint64_t space, uint64_t ino, uint64_t first, uint64_t last, unsigned op,
			int known_only);
void *sink_range_worker(void *arg);
void sink_summarise(struct sink *s, struct ingest_report *rep);
int sink_write_vmr(struct sink *s, const char *path, const uint8_t hash[16], char *err, size_t errlen);
void sink_free(struct sink *s);

/* events.c: takes one event message. */
void sink_event(struct sink *s, const bt_message *msg);

/* isolate.c: ingest_decode in a child process; a child that dies (the
 * library's abort) is one line of err naming TRACE and the reason. */
int ingest_decode_isolated(const char *trace, const uint8_t hash[16], const char *out,
			   int show_progress, int allow_empty, struct ingest_report *rep,
			   char *err, size_t errlen);
/* graph.c: decodes TRACE (its hash HASH, or NULL: taken while it
 * decodes, into REP->hash) into the .vmr OUT.  0, or -1 with err set. */
int ingest_decode(const char *trace, const uint8_t hash[16], const char *out, int show_progress,
		  int allow_empty, struct ingest_report *rep, char *err, size_t errlen);
/* ingest.c: the error for a trace with nothing to replay, in err. */
int ingest_nothing_to_replay(const char *trace, const struct ingest_report *rep, char *err,
			     size_t errlen);

#endif
