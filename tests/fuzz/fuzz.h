/*
 * fuzz.h — what the libFuzzer targets share: the input written to a file
 * of this process (readers take paths), in memory when possible.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A path of this process's own under $TMPDIR (default /dev/shm, else
 * /tmp), named by SUFFIX. */
static inline const char *fuzz_path(const char *suffix)
{
	static char path[4][256];
	static int next;
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	char *p = path[next++ & 3];
	snprintf(p, sizeof(path[0]), "%s/vmreplay-fuzz.%d.%s", dir, (int)getpid(), suffix);
	return p;
}

/* Writes DATA to the file PATH; aborts (a harness bug, not a finding) if
 * it cannot. */
static inline void fuzz_write(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
}

/* The input as a NUL-terminated string (malloc'd; NULL if out of memory). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s) {
		for (size_t i = 0; i < size; i++)
			s[i] = (char)data[i];
		s[size] = '\0';
	}
	return s;
}

/* Reads the fuzz input as a little stream of numbers. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint64_t fuzz_take(struct fuzz_in *in, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++) {
		v |= (uint64_t)(in->n ? *in->p : 0) << (8 * i);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

#endif
