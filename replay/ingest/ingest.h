/*
 * ingest.h — CTF trace → .vmr, the replay's only input.
 *
 * A libbabeltrace2 graph (source.ctf.fs per trace, utils.muxer, our own
 * simple sink: graph.c) decodes the trace once; the sink turns the
 * vmreplay:* events into per-task record streams with dense page ids
 * (events.c, sink.c); kevents turns the kernel's own events into the
 * ground truth and, when there is no exact access stream, the demand
 * (kevents.c, kmaps.c, kdemand.c); and a .vmr is written
 * (replay/vmr/FORMAT.md).  Results are cached by the trace's content hash
 * (ingest.c), so a sweep decodes each trace once.  Left out on purpose:
 * the trace's path (a .vmr depends only on the trace's contents), events
 * of unknown providers (refused), and what the events cannot show
 * (FORMAT.md, "Demand from kernel events").
 */
#ifndef INGEST_H
#define INGEST_H

#include <stddef.h>
#include <stdint.h>

struct vmr;

struct ingest_report {
	uint8_t  hash[16];
	int      cached;               /* 1: the .vmr came from the cache       */
	uint64_t events;               /* events decoded                        */
	uint64_t discarded;            /* events LTTng reported discarded       */
	uint64_t tasks, records, accesses, pages;
	uint64_t kernel_alloc_events, kernel_free_events;
	uint64_t reclaim_events;       /* the kernel's reclaim events kept (its
					* process events are not replayable)  */
	char     skipped[8192];        /* "name=count, …" of events not used    */
	char     providers[1024];      /* "provider=count, …" of every event
					* (no prefix: "kernel"); decoding only */
};

struct ingest_opts {
	const char *trace;             /* a trace directory (searched for CTF)  */
	const char *output;            /* .vmr to write; NULL = cache only      */
	int use_cache;
	int progress;                  /* show progress on stderr (a terminal)  */
	int allow_empty;               /* keep a trace with nothing to replay
					* (no accesses, no reclaim events)      */
	struct vmr *opened;            /* if set, and no output is named, the
					* .vmr (the cache's, or just written and
					* verified) is left open here            */
};

/* Ingests OPTS->trace: one session (a folder of several is refused, naming
 * them).  Writes the .vmr path used into vmr_path.  Returns 0, or -1 with a
 * one-line error (file, event, field) in err; a trace with nothing to
 * replay is such an error unless OPTS->allow_empty.  With
 * OPTS->opened, returns 1 instead of 0 when it left the .vmr open there. */
int ingest(const struct ingest_opts *opts, struct ingest_report *rep,
	   char *vmr_path, size_t vmr_path_len, char *err, size_t errlen);

/* XXH3-128 of every file under PATH (relative names, sizes and bytes, in
 * name order): the identity of a trace for the cache.  PATH is a session's
 * root (tracedir_session), so that a trace and a folder holding it hash
 * the same. */
int trace_hash(const char *path, uint8_t hash[16], char *err, size_t errlen);

/* Directory the cache lives in ($VMREPLAY_CACHE, $XDG_CACHE_HOME/vmreplay
 * or ~/.cache/vmreplay). */
const char *ingest_cache_dir(void);

/* Opens a replay input: a .vmr file, or a trace directory, which is
 * ingested through the cache first.  0, or -1 with err set.  A trace
 * with nothing to replay is refused unless ALLOW_EMPTY (analysis of a
 * session's reclaim only, as `analyze` does). */
int ingest_open_input(const char *input, struct vmr *v, char *path, size_t pathlen,
		      int progress, int allow_empty, char *err, size_t errlen);

#endif
