/*
 * ingest.c — a trace directory in, a verified .vmr out: the trace's
 * content hash, the cache keyed by it (replay/vmr/FORMAT.md, "Trace hash
 * and cache"), decoding (graph.c) only when the cache has no sound copy,
 * and opening a replay input that may be either a .vmr or a trace.  Paths
 * and modification times are left out of the key on purpose: a copied or
 * moved trace is found again, a changed one is not.
 */
#include "ingest.h"
#include "archive.h"
#include "atomic.h"
#include "sink.h"
#include "tracedat.h"
#include "tracedir.h"
#include "vmr/vmr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vmr/xxh.h"

/* ------------------------------------------------------------------ */
/* Hash and cache                                                      */

/* What ingest makes of a trace changes without the format changing (a
 * kernel event it newly reads, a rule of the demand stream): the cache
 * is keyed by this too, so a copy made by an older ingest is never
 * taken for the trace's.  Bump it with any such change.
 *   1: madvise populates and zaps in the demand stream;
 *   2: kernel-mode faults on user pages (user copies) are accesses;
 *   3: the memcg statistics' flushes (KEVENTS stats_flush);
 *   4: exact streams of processes outside the capture's tree dropped;
 *   5: UML's user copies flagged (VMR_F_UACCESS);
 *   6: clock_monotonic_offset_ns (the capture's time since boot);
 *   7: the page cache a copy-on-write fault reads in is read-ahead;
 *   8: a DAMON pass covers ceil(S * a / N) pages of its region (damon_window);
 *   9: the accessed-bit sampler's pte_young observations are LOADs;
 *  10: the read-ahead window's read time (file_ra_*: kdemand.c's
 *      meta_ra_read_time);
 *  11: execve's ELF-loader faults resolve in the new image (kdemand.c's
 *      exec_loader_region);
 *  12: MADV_HUGEPAGE / MADV_NOHUGEPAGE advice and the THP faults it
 *      allows (VMR_F_HUGE, kdemand.c thp_fault), META thp_defrag;
 *  13: the kernel's reclaim stalls out of the gaps (ingest_sink_stall);
 *  14: pte_young observations spread over their poll interval
 *      (kdemand.c's place_young);
 *  15: a pte_young observation of a dirty PTE is a STORE. */
#define INGEST_REVISION 15

/* The hash reads the trace through a buffer small enough to stay in the
 * core's cache: read() copies into it and the hash reads it back, twice
 * the trace's size in memory traffic with a 1 MiB buffer.  It starts on a
 * page: read()'s copy from the page cache into a buffer 16 bytes past
 * one (malloc's, for this size) ran 3.5 times slower on the test bed's
 * AMD EPYC (17.6 ms against 5.1 ms for the bench's 38 MB storm trace). */
#define HASH_BUF (128u << 10)
#define HASH_BUF_ALIGN 4096u

int trace_hash(const char *path, uint8_t hash[16], char *err, size_t errlen)
{
	char **files;
	size_t nr;
	if (tracedat_is(path))
		return tracedat_hash(path, hash, err, errlen);
	if (tracedir_files(path, &files, &nr, err, errlen) != 0)
		return -1;
	XXH3_state_t *st = XXH3_createState();
	char *buf = aligned_alloc(HASH_BUF_ALIGN, HASH_BUF);
	int rc = st && buf ? 0 : -1;
	if (rc)
		snprintf(err, errlen, "out of memory");
	else
		XXH3_128bits_reset(st);
	for (size_t i = 0; i < nr && rc == 0; i++) {
		char full[8192];
		snprintf(full, sizeof(full), "%s/%s", path, files[i]);
		FILE *f = fopen(full, "rb");
		if (!f) {
			snprintf(err, errlen, "%s: %s", full, strerror(errno));
			rc = -1;
			break;
		}
		XXH3_128bits_update(st, files[i], strlen(files[i]) + 1);
		size_t n;
		uint64_t total = 0;
		while ((n = fread(buf, 1, HASH_BUF, f)) > 0) {
			XXH3_128bits_update(st, buf, n);
			total += n;
		}
		if (ferror(f)) {
			snprintf(err, errlen, "%s: read error", full);
			rc = -1;
		}
		XXH3_128bits_update(st, &total, sizeof(total));
		fclose(f);
	}
	if (rc == 0) {
		XXH128_canonical_t c;
		XXH128_canonicalFromHash(&c, XXH3_128bits_digest(st));
		memcpy(hash, c.digest, 16);
	}
	for (size_t i = 0; i < nr; i++)
		free(files[i]);
	free(files);
	free(buf);
	XXH3_freeState(st);
	return rc;
}

const char *ingest_cache_dir(void)
{
	static char dir[4096];
	const char *e = getenv("VMREPLAY_CACHE");
	if (e && *e)
		snprintf(dir, sizeof(dir), "%s", e);
	else if ((e = getenv("XDG_CACHE_HOME")) && *e)
		snprintf(dir, sizeof(dir), "%s/vmreplay", e);
	else if ((e = getenv("HOME")) && *e)
		snprintf(dir, sizeof(dir), "%s/.cache/vmreplay", e);
	else
		snprintf(dir, sizeof(dir), "/tmp/vmreplay-cache-%u", (unsigned)getuid());
	return dir;
}

/* Is PATH a sound .vmr of the trace with HASH?  A cached .vmr is used
 * only if it verifies and is of this trace.  Fills REP from it; with
 * KEEP, a sound one is left open (verified) there. */
static int cache_valid(const char *path, const uint8_t hash[16], struct ingest_report *rep,
		       struct vmr *keep)
{
	struct vmr v;
	char err[256];
	if (access(path, R_OK) != 0 || vmr_open(&v, path, err, sizeof(err)) != 0)
		return 0;
	int ok = memcmp(v.hdr->trace_hash, hash, 16) == 0;
	if (ok) {
		char buf[1024];
		rep->tasks = v.hdr->nr_tasks;
		rep->records = v.hdr->nr_records;
		rep->accesses = v.hdr->nr_accesses;
		rep->pages = v.hdr->nr_pages;
		rep->reclaim_events = vmr_kev_reclaim_count(v.kev, v.nr_kev);
		if (vmr_meta_get(&v, "events", buf, sizeof(buf)))
			rep->events = strtoull(buf, NULL, 10);
		if (vmr_meta_get(&v, "discarded_events", buf, sizeof(buf)))
			rep->discarded = strtoull(buf, NULL, 10);
		if (vmr_meta_get(&v, "kernel_page_alloc", buf, sizeof(buf)))
			rep->kernel_alloc_events = strtoull(buf, NULL, 10);
		if (vmr_meta_get(&v, "kernel_page_free", buf, sizeof(buf)))
			rep->kernel_free_events = strtoull(buf, NULL, 10);
		if (vmr_meta_get(&v, "skipped_events", rep->skipped, sizeof(rep->skipped)) == NULL)
			rep->skipped[0] = '\0';
	}
	if (ok && keep)
		*keep = v;
	else
		vmr_close(&v);
	return ok;
}

static int copy_file(const char *from, const char *to, char *err, size_t errlen)
{
	struct vmr v;
	/* Re-verify on the way out: a copy is only as good as its source. */
	if (vmr_open(&v, from, err, errlen) != 0)
		return -1;
	struct atomic_file af;
	int rc = -1;
	if (atomic_open(&af, to, err, errlen) == 0) {
		if (fwrite(v.map, 1, v.map_size, af.fp) == v.map_size)
			rc = atomic_commit(&af, err, errlen);
		else {
			snprintf(err, errlen, "%s: write failed", to);
			atomic_abort(&af);
		}
	}
	vmr_close(&v);
	return rc;
}

/* Replaces every FROM in S (of size LEN) by TO. */
static void replace_all(char *s, size_t len, const char *from, const char *to)
{
	char out[4096];
	size_t o = 0, nf = strlen(from);
	for (const char *p = s; *p && o + 1 < sizeof(out);) {
		if (nf && strncmp(p, from, nf) == 0) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s", to);
			p += nf;
		} else {
			out[o++] = *p++;
		}
	}
	out[o < sizeof(out) ? o : sizeof(out) - 1] = '\0';
	snprintf(s, len, "%s", out);
}

/* A trace kept as an archive: unpacked into the cache directory, then
 * ingested as the directory it came from (so it hashes and caches the
 * same), and the unpacked copy removed; messages name the archive. */
static int ingest_archive(const struct ingest_opts *o, const char *archive, struct ingest_report *rep,
			  char *vmr_path, size_t vmr_path_len, char *err, size_t errlen)
{
	struct stat st;
	const char *dir = ingest_cache_dir();
	if (stat(archive, &st) != 0) {
		snprintf(err, errlen, "%s: %s", archive, strerror(errno));
		return -1;
	}
	if (mkdir_p(dir) != 0) {
		snprintf(err, errlen, "%s: cannot create the cache directory: %s", dir, strerror(errno));
		return -1;
	}
	/* A compressed trace is not expected to grow more than 64 times
	 * (CTF compresses about 6 times): more is a damaged archive. */
	unsigned long long limit = (unsigned long long)st.st_size * 64 + (64ull << 20);
	char unpacked[4200];
	if (trace_archive_extract(archive, dir, limit, unpacked, sizeof(unpacked), err, errlen) != 0)
		return -1;
	struct ingest_opts u = *o;
	u.trace = unpacked;
	int r = ingest(&u, rep, vmr_path, vmr_path_len, err, errlen);
	if (r < 0)
		replace_all(err, errlen, unpacked, archive);
	trace_archive_remove(unpacked);
	return r;
}

int ingest_nothing_to_replay(const char *trace, const struct ingest_report *rep, char *err,
			     size_t errlen)
{
	/* by provider when just decoded; from the cache, by name */
	const char *what = rep->providers[0] ? rep->providers : rep->skipped[0] ? rep->skipped : "none";
	snprintf(err, errlen, "%s: nothing to replay: no memory accesses and no reclaim events in "
		 "its %llu events (%.300s%s); --allow-empty keeps it", trace,
		 (unsigned long long)rep->events, what, strlen(what) > 300 ? "…" : "");
	return -1;
}

int ingest(const struct ingest_opts *o, struct ingest_report *rep,
	   char *vmr_path, size_t vmr_path_len, char *err, size_t errlen)
{
	char archive[4200];
	if (trace_archive_find(o->trace, archive, sizeof(archive)))
		return ingest_archive(o, archive, rep, vmr_path, vmr_path_len, err, errlen);
	memset(rep, 0, sizeof(*rep));
	/* The session's own files, whatever folder above it was named: a
	 * trace and the folder holding it are one trace, hashed the same. */
	char session[4096];
	if (tracedat_is(o->trace))        /* a trace-cmd recording is one session */
		snprintf(session, sizeof(session), "%s", o->trace);
	else if (tracedir_session(o->trace, session, sizeof(session), err, errlen) != 0)
		return -1;
	/* The hash names the cache's copy; with no cache to look in and an
	 * output named, decoding takes it itself, on a thread beside the
	 * graph (graph.c). */
	int hash_first = o->use_cache || !o->output;
	if (hash_first && trace_hash(session, rep->hash, err, errlen) != 0)
		return -1;
	char hex[33], cached[4096 + 64];
	vmr_hash_hex(rep->hash, hex);
	const char *dir = ingest_cache_dir();
	snprintf(cached, sizeof(cached), "%s/v%d.%d-%s.vmr", dir, VMR_VERSION, INGEST_REVISION, hex);

	struct vmr *keep = o->output ? NULL : o->opened;
	if (o->use_cache && cache_valid(cached, rep->hash, rep, keep)) {
		rep->cached = 1;
		if (!o->allow_empty && !rep->accesses && !rep->reclaim_events) {
			if (keep)
				vmr_close(keep);
			return ingest_nothing_to_replay(o->trace, rep, err, errlen);
		}
		if (o->output) {
			if (copy_file(cached, o->output, err, errlen) != 0)
				return -1;
			snprintf(vmr_path, vmr_path_len, "%s", o->output);
		} else {
			snprintf(vmr_path, vmr_path_len, "%s", cached);
		}
		return keep ? 1 : 0;
	}
	const char *target = o->output;
	if (!target) {
		if (mkdir_p(dir) != 0) {
			snprintf(err, errlen, "%s: cannot create the cache directory: %s", dir, strerror(errno));
			return -1;
		}
		target = cached;
	}
	if (ingest_decode_isolated(session, hash_first ? rep->hash : NULL, target, o->progress,
				   o->allow_empty, rep, err, errlen) != 0)
		return -1;
	snprintf(vmr_path, vmr_path_len, "%s", target);
	/* Verified as it is written: every check of vmr_open, once, which
	 * records the contents as verified, so that the replays of it check
	 * only its header and block checksums (vmr_read.c).  A file that
	 * fails is ingest's bug, and is not left behind.  An output that is
	 * no regular file (-o /dev/null: written in place, atomic.h) can be
	 * neither read back nor removed.  Read back here rather than checked
	 * as the decoder writes it: measured on bench's storm trace (4.6 M
	 * records, 45 MB; perf stat -r 10), this open costs 11 ms of wall
	 * time (0.501 s against 0.490 s without it), and checking the records
	 * on the writer's checksum thread instead took 15 ms less CPU but
	 * 0.516 s (the check, ~5 ns a record, outlasts the write beside it). */
	struct stat st;
	if (stat(target, &st) == 0 && S_ISREG(st.st_mode)) {
		struct vmr v, *w = keep ? keep : &v;
		if (vmr_open(w, target, err, errlen) != 0) {
			unlink(target);
			size_t n = strlen(err);
			snprintf(err + n, errlen - n, " (ingest wrote it: a bug)");
			return -1;
		}
		if (!keep)
			vmr_close(&v);
	} else {
		keep = NULL;
	}
	/* Keep a copy in the cache too, so the next run decodes nothing. */
	if (o->use_cache && o->output && mkdir_p(dir) == 0) {
		char e2[256];
		copy_file(o->output, cached, e2, sizeof(e2));
	}
	return keep ? 1 : 0;
}

int ingest_open_input(const char *input, struct vmr *v, char *path, size_t pathlen,
		      int progress, int allow_empty, char *err, size_t errlen)
{
	struct stat st;
	if (stat(input, &st) != 0) {
		snprintf(err, errlen, "%s: %s", input, strerror(errno));
		return -1;
	}
	char archive[4200];
	if (S_ISDIR(st.st_mode) || trace_archive_find(input, archive, sizeof(archive)) || tracedat_is(input)) {
		/* A cached .vmr comes back open: it was just verified. */
		struct ingest_opts o = { .trace = input, .use_cache = 1, .progress = progress, .opened = v,
					   .allow_empty = allow_empty };
		struct ingest_report rep;
		int r = ingest(&o, &rep, path, pathlen, err, errlen);
		if (r < 0)
			return -1;
		if (r == 1)
			return 0;
	} else {
		snprintf(path, pathlen, "%s", input);
	}
	return vmr_open(v, path, err, errlen);
}
