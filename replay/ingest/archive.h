/*
 * archive.h — traces kept compressed: a capture committed as one tar
 * archive (tar.xz, tar.zst, tar.gz or plain tar) is unpacked into a
 * temporary directory before it is hashed and decoded, so that it hashes
 * and caches exactly as the directory it came from.
 */
#ifndef INGEST_ARCHIVE_H
#define INGEST_ARCHIVE_H

#include <stddef.h>

/* Does INPUT name a trace archive: an archive file, or a directory with
 * no CTF metadata of its own holding one (its only ctf.tar.* file)?
 * 1 with the archive's path in ARCHIVE, else 0. */
int trace_archive_find(const char *input, char *archive, size_t len);

/* Unpacks ARCHIVE into a new directory under PARENT (written to DIR),
 * refusing absolute paths, "..", links, devices and more than LIMIT
 * bytes.  0, or -1 with "ARCHIVE: why" in err (the directory removed). */
int trace_archive_extract(const char *archive, const char *parent, unsigned long long limit,
			  char *dir, size_t dirlen, char *err, size_t errlen);

/* Removes DIR and everything under it (an extraction's). */
void trace_archive_remove(const char *dir);

#endif
