/*
 * drop_caches.c — the machine's page cache and its shadow entries dropped
 * before a session (`vmreplay capture --drop-caches`).
 *
 * Why: classic workingset_refault (mm/workingset.c, 6.18) counts
 * WORKINGSET_REFAULT_FILE in the faulting folio's memcg for every shadow
 * entry the page cache insertion finds, before workingset_test_recent
 * looks at the memcg that evicted it.  A shadow left by an earlier
 * capture's memcg (gone by then) is a refault the session did not cause
 * and its trace cannot show.  exec_inputs.c drops the shadows of what the
 * command's own exec reads; the files its children exec or read (a
 * compiler's cc1 and headers, python's modules) are known only once they
 * are read.  Dropping everything makes the host start as cold as the test
 * bed's freshly booted guest.
 *
 * How the kernel does it (fs/drop_caches.c, mm/truncate.c, 6.18):
 * drop_caches_sysctl_handler, for bit 1, drains the per-CPU LRU caches
 * (lru_add_drain_all) and runs drop_pagecache_sb over every super block:
 * each inode in memory whose mapping is not empty — mapping_empty, which
 * counts shadow entries too (5.15's "fs: drop_caches: fix skipping over
 * shadow cache inodes"; before it an inode of shadows only was skipped)
 * — goes through invalidate_mapping_pages(mapping, 0, -1), that is
 * mapping_try_invalidate: a clean, unlocked, unmapped folio leaves by
 * mapping_evict_folio, which is not reclaim and stores no shadow, and
 * clear_shadow_entries removes the shadow entries each batch found.
 * Dirty folios and folios under writeback stay, hence sync() first
 * (ksys_sync: every file system written back and waited on).  What stays:
 * folios some process maps (a running program's text, its libraries),
 * which are resident and cannot refault, and shmem/tmpfs, which is not
 * evicted to shadows but swapped.  An inode already out of memory took its
 * shadows with it (truncate_inode_pages_final).
 */
#include "drop_caches.h"
#include "capture_sys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DROP_CACHES "/proc/sys/vm/drop_caches"

/* The value of the line "KEY<sep>N" of a /proc file, or -1. */
static int proc_value(const char *path, const char *key, uint64_t *v)
{
	static char buf[65536];
	if (sys_read(path, buf, sizeof(buf)) != 0)
		return -1;
	size_t kl = strlen(key);
	for (char *line = buf; *line;) {
		size_t ll = strcspn(line, "\n");
		if (ll > kl && strncmp(line, key, kl) == 0 && (line[kl] == ' ' || line[kl] == ':')) {
			const char *p = line + kl + 1;
			char *end;
			p += strspn(p, " \t");
			errno = 0;
			unsigned long long n = strtoull(p, &end, 10);
			if (errno || end == p) {
				errno = errno ? errno : EINVAL;
				return -1;
			}
			*v = n;
			return 0;
		}
		line += ll + (line[ll] == '\n');
	}
	errno = ENOENT;
	return -1;
}

int page_cache_state(struct page_cache_state *s, char *err, size_t errlen)
{
	if (proc_value("/proc/meminfo", "Cached", &s->cached_kb) != 0) {
		snprintf(err, errlen, "/proc/meminfo: no Cached: %s", strerror(errno));
		return -1;
	}
	if (proc_value("/proc/vmstat", "workingset_nodes", &s->workingset_nodes) != 0) {
		snprintf(err, errlen, "/proc/vmstat: no workingset_nodes: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int drop_caches(char *err, size_t errlen)
{
	sync();
	if (sys_write(DROP_CACHES, "1") != 0) {
		snprintf(err, errlen, "%s: cannot drop the page cache: %s", DROP_CACHES, strerror(errno));
		return -1;
	}
	return 0;
}
