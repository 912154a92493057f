/* spill.c — the unlinked temporary file of full record chunks (spill.h). */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void spill_init(struct spill *sp, const char *out)
{
	sp->fd = -1;
	sp->nr_chunks = 0;
	sp->map = NULL;
	sp->closing = 0;
	struct stat st;
	const char *slash = strrchr(out, '/');
	if (strcmp(out, "-") == 0 || (stat(out, &st) == 0 && !S_ISREG(st.st_mode))) {
		const char *t = getenv("TMPDIR");
		snprintf(sp->dir, sizeof(sp->dir), "%s", t && *t ? t : "/tmp");
	} else if (!slash) {
		snprintf(sp->dir, sizeof(sp->dir), ".");
	} else {
		snprintf(sp->dir, sizeof(sp->dir), "%.*s", slash == out ? 1 : (int)(slash - out), out);
	}
}

/* The file, nameless: O_TMPFILE where the file system has it, else a
 * named one unlinked at once.  Either way nothing is left behind. */
static int spill_open(struct spill *sp, char *err, size_t errlen)
{
	sp->fd = open(sp->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (sp->fd >= 0)
		return 0;
	char path[4200];
	snprintf(path, sizeof(path), "%s/.vmreplay-spill-XXXXXX", sp->dir);
	sp->fd = mkostemp(path, O_CLOEXEC);
	if (sp->fd < 0) {
		snprintf(err, errlen, "%s: cannot make the records' spill file: %s", sp->dir,
			 strerror(errno));
		return -1;
	}
	unlink(path);
	return 0;
}

/* All LEN bytes at AT: 0, or -1 with errno, 0 for no space. */
static int spill_write(int fd, const char *p, size_t len, off_t at)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = 0;
			return -1;
		}
		p += n;
		at += n;
		len -= (size_t)n;
	}
	return 0;
}

int64_t spill_put(struct spill *sp, const struct vmr_rec *recs, char *err, size_t errlen)
{
	if (sp->fd < 0 && spill_open(sp, err, errlen) != 0)
		return -1;
	if (spill_write(sp->fd, (const char *)recs, SPILL_BYTES, (off_t)sp->nr_chunks * SPILL_BYTES) != 0) {
		snprintf(err, errlen, "%s: cannot write the records' spill file: %s", sp->dir,
			 errno ? strerror(errno) : "no space");
		return -1;
	}
	return sp->nr_chunks++;
}

const struct vmr_rec *spill_map(struct spill *sp, char *err, size_t errlen)
{
	void *m = mmap(NULL, (size_t)sp->nr_chunks * SPILL_BYTES, PROT_READ, MAP_SHARED, sp->fd, 0);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "%s: cannot map the records' spill file: %s", sp->dir,
			 strerror(errno));
		return NULL;
	}
	return sp->map = m;
}

void spill_done(struct spill *sp, uint32_t first, uint32_t nr)
{
	madvise((char *)sp->map + (size_t)first * SPILL_BYTES, (size_t)nr * SPILL_BYTES, MADV_DONTNEED);
}

static void *close_main(void *arg)
{
	struct spill *sp = arg;
	if (sp->map)
		munmap(sp->map, (size_t)sp->nr_chunks * SPILL_BYTES);
	if (sp->fd >= 0)
		close(sp->fd);
	return NULL;
}

void spill_close_start(struct spill *sp)
{
	if (sp->fd < 0 || sp->closing)
		return;
	sp->closing = pthread_create(&sp->closer, NULL, close_main, sp) == 0;
}

void spill_close(struct spill *sp)
{
	if (sp->closing)
		pthread_join(sp->closer, NULL);
	else
		close_main(sp);
	sp->closing = 0;
	sp->map = NULL;
	sp->fd = -1;
}
