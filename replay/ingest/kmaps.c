/*
 * kmaps.c — the address spaces of a trace whose demand comes from kernel
 * events: the capture's /proc/PID/maps snapshots (vmreplay_capture:
 * proc_maps) as regions, the exec epochs that tell one pid's successive
 * address spaces apart, and the region an address fell in at a given time
 * (replay/vmr/FORMAT.md, "Demand from kernel events").  Left out: changes
 * between snapshots (munmap, mprotect and mremap are not traced), and of a
 * mapping everything but its range, file, offset, whether the page cache
 * backs it and whether it is private.
 */
#include "kevents_priv.h"

#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

/* ------------------------------------------------------------------ */
/* Maps                                                                */

/* Parses one /proc/PID/maps snapshot into regions. */
int kev_parse_maps(struct kevents *k, int32_t pid, uint64_t ts, const char *text)
{
	if (array_grow((void **)&k->snap, &k->cap_snap, k->nr_snap + 1, sizeof(*k->snap)) != 0)
		return -1;
	struct msnap *sn = &k->snap[k->nr_snap++];
	sn->pid = pid;
	sn->ts = ts;
	sn->epoch = 0;
	sn->first = k->nr_reg;
	sn->nr = 0;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int used = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min,
			   &ino, &used) >= 7) {
			char path[64] = "";
			/* the space before %n also eats a line's end when it has
			 * no path (an anonymous region): then there is none */
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			if (used > 0 && (size_t)used < len) {
				size_t n = len - (size_t)used;
				if (n >= sizeof(path))
					n = sizeof(path) - 1;
				memcpy(path, line + used, n);
				path[n] = '\0';
			}
			if (array_grow((void **)&k->reg, &k->cap_reg, k->nr_reg + 1, sizeof(*k->reg)) != 0)
				return -1;
			struct mreg *r = &k->reg[k->nr_reg++];
			r->start = start;
			r->end = end;
			r->pgoff = off;
			r->dev = makedev(maj, min);
			r->ino = ino;
			/* shmem, SysV shm and memfd are swap-backed: anon LRU */
			r->file = ino != 0 && path[0] == '/' && strncmp(path, "/dev/zero", 9) != 0 &&
				  strncmp(path, "/SYSV", 5) != 0 && strncmp(path, "/memfd:", 7) != 0 &&
				  strncmp(path, "/dev/shm/", 9) != 0;
			r->priv = perms[3] == 'p';
			r->exec = perms[2] == 'x';
			sn->nr++;
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

int kev_cmp_exec(const void *a, const void *b)
{
	const uint32_t *pa = a, *pb = b;
	if (*pa != *pb)
		return *pa < *pb ? -1 : 1;
	const uint64_t *ta = (const uint64_t *)((const char *)a + 8), *tb = (const uint64_t *)((const char *)b + 8);
	return *ta < *tb ? -1 : *ta > *tb;
}

uint32_t kev_epoch_of(const struct execs *x, uint32_t pid, uint64_t ts)
{
	size_t lo = 0, hi = x->n;
	while (lo < hi) {                  /* first entry of pid */
		size_t mid = (lo + hi) / 2;
		if (x->e[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t n = 0;
	for (size_t i = lo; i < x->n && x->e[i].pid == pid && x->e[i].ts <= ts; i++)
		n++;
	return n;
}

/* PID's snapshots of EPOCH around TS: the last one at or before it and
 * the first one after it (either may be NULL). */
static void snaps_around(const struct kevents *k, uint32_t pid, uint32_t epoch, uint64_t ts,
			 const struct msnap **before, const struct msnap **after)
{
	size_t lo = 0, hi = k->nr_snap;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if ((uint32_t)k->snap[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*before = *after = NULL;
	for (size_t i = lo; i < k->nr_snap && (uint32_t)k->snap[i].pid == pid; i++) {
		const struct msnap *s = &k->snap[i];
		if (s->epoch != epoch)
			continue;
		if (s->ts <= ts)
			*before = s;
		else if (!*after)
			*after = s;
	}
}

/* The snapshot of PID's address space in force at TS: the last one
 * before TS in the same exec epoch, else the first one after it. */
const struct msnap *kev_snap_at(const struct kevents *k, uint32_t pid, uint32_t epoch, uint64_t ts)
{
	const struct msnap *before, *after;
	snaps_around(k, pid, epoch, ts, &before, &after);
	return before ? before : after;
}

/* The mapping ADDR lies in at TS: in the snapshot in force then, else in
 * the next one of the same exec epoch.  A mapping made after the last
 * snapshot (ld.so maps a program's libraries right after the exec that
 * was just snapshotted; a heap grows by mmap) is only in a later one: a
 * fault inside it happened in it, since it is not in the earlier one. */
const struct mreg *kev_region_of(const struct kevents *k, uint32_t pid, uint32_t epoch, uint64_t ts,
				 uint64_t addr)
{
	const struct msnap *before, *after;
	snaps_around(k, pid, epoch, ts, &before, &after);
	const struct mreg *r = before ? kev_region_at(k, before, addr) : NULL;
	return r || !after ? r : kev_region_at(k, after, addr);
}

const struct mreg *kev_region_at(const struct kevents *k, const struct msnap *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr;
	if (!s->nr)                    /* an empty snapshot: k->reg may be NULL */
		return NULL;
	const struct mreg *r = k->reg + s->first;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nr && r[lo].start <= addr ? &r[lo] : NULL;
}
