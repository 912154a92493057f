/*
 * progress.h — a one-line progress display for long work.
 *
 * Shown on stderr only when stderr is a terminal (and not asked to be
 * quiet); redrawn at most four times a second, so it costs nothing in the
 * hot loops that call it.
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdint.h>

struct progress {
	int on;
	const char *what, *unit;
	uint64_t total;             /* 0 = unknown: no percentage or ETA */
	double start, last;
	uint64_t calls;
};

/* ENABLE: 1 show if stderr is a terminal, 0 never. */
void progress_init(struct progress *p, int enable, const char *what, const char *unit);
void progress_set_total(struct progress *p, uint64_t total);
void progress_update(struct progress *p, uint64_t done);
void progress_done(struct progress *p, uint64_t done);

#endif
