/*
 * atomic.h — outputs are written whole or not at all.
 *
 * Everything vmreplay writes (a .vmr, a result TSV/JSON) goes to a
 * temporary file beside its final name and is renamed into place only
 * once it is complete, so a crash or a kill leaves either the old file or
 * the new one, never half of one.
 */
#ifndef ATOMIC_H
#define ATOMIC_H

#include <stdio.h>

struct atomic_file {
	FILE *fp;
	char *path;      /* final name              */
	char *tmp;       /* temporary name beside it */
	int direct;      /* not a regular file: written in place */
};

/* Opens a temporary file beside PATH.  "-" means stdout, and a PATH that
 * exists but is not a regular file (/dev/null, a FIFO, a terminal) is
 * written directly: renaming over it would replace the device. */
int atomic_open(struct atomic_file *af, const char *path, char *err, size_t errlen);
/* Flushes, fsyncs and renames into place; on any failure removes the
 * temporary file and returns -1 with the reason in err. */
int atomic_commit(struct atomic_file *af, char *err, size_t errlen);
/* The same without the fsync, for files whose contents verify themselves
 * (a .vmr is checksummed and rebuilt when damaged): after a power loss
 * such a file may be missing or fail its checks, but is never trusted. */
int atomic_commit_nosync(struct atomic_file *af, char *err, size_t errlen);
/* Drops the temporary file. */
void atomic_abort(struct atomic_file *af);

/* Makes the directory DIR and any missing parents, as mkdir -p does
 * (0777 less the umask), where an output is to go: 0, or -1 with errno. */
int mkdir_p(const char *dir);

#endif
