/* progress.c — terminal progress line (see progress.h). */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_init(struct progress *p, int enable, const char *what, const char *unit)
{
	p->on = enable && isatty(STDERR_FILENO);
	p->what = what;
	p->unit = unit;
	p->total = 0;
	p->start = p->last = now();
	p->calls = 0;
}

void progress_set_total(struct progress *p, uint64_t total)
{
	p->total = total;
}

/* Each line overwrites the last from its start and clears what is left
 * of it (ESC [ K), so a shorter line never shows the end of a longer one. */
static void draw(struct progress *p, uint64_t done, double t)
{
	double el = t - p->start, rate = el > 0 ? done / el : 0;
	if (p->total) {
		double frac = (double)done / p->total;
		double eta = rate > 0 && done < p->total ? (p->total - done) / rate : 0;
		fprintf(stderr, "\r%s: %llu/%llu %s (%.0f%%), %.0f/s, ETA %.0f s\033[K", p->what,
			(unsigned long long)done, (unsigned long long)p->total, p->unit, 100 * frac,
			rate, eta);
	} else {
		fprintf(stderr, "\r%s: %llu %s, %.0f/s, %.1f s\033[K", p->what,
			(unsigned long long)done, p->unit, rate, el);
	}
}

void progress_update(struct progress *p, uint64_t done)
{
	if (!p->on || (++p->calls & 63))
		return;
	double t = now();
	if (t - p->last < 0.25)
		return;
	p->last = t;
	draw(p, done, t);
}

void progress_done(struct progress *p, uint64_t done)
{
	if (!p->on)
		return;
	draw(p, done, now());
	fputc('\n', stderr);
}
