/*
 * validate.h — the fidelity scoreboard: how well replays of captured
 * sessions predict the kernel that was captured.
 *
 * Captures are grouped by the kernel they ran on (release and LRU),
 * workload and swappiness; the captures of one group are its replicates.
 * Per group and counter the kernel's median
 * [min–max] and coefficient of variation are set beside the replay's
 * median (each capture replayed once, as captured).  A cell passes when
 *   - the kernel is consistent (CV < 0.25, or every capture 0): the replay
 *     median is within ±25 % of the kernel median (exactly 0 for 0);
 *   - the kernel varies more: the replay median lies in the kernel's
 *     min–max.
 * Trends: for each pair of neighbouring swappiness values of a workload,
 * the kernel's direction is +1 or -1 when the two groups' ranges do not
 * overlap, 0 (no clear trend) when they do; the replay's is the sign of
 * its medians' difference.  A trend is right when the kernel's direction
 * is 0 or the replay's equals it.
 */
#ifndef VALIDATE_H
#define VALIDATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define VALIDATE_MAX_COUNTERS 16

/* One replicate: a capture, what the kernel counted, what its replay did. */
struct vsession {
	char path[1024];
	char workload[128];
	char kernel_id[96];          /* "RELEASE LRU": sessions of one kernel group together */
	int swappiness;
	char policy[64];
	double kernel[VALIDATE_MAX_COUNTERS];
	double replay[VALIDATE_MAX_COUNTERS];
	int have_kernel[VALIDATE_MAX_COUNTERS];
};

struct vcell {
	size_t n;
	double k_median, k_min, k_max, k_cv;
	double r_median;
	double rel_error;            /* (replay - kernel) / kernel median; NAN for 0 */
	int pass;
};

struct vgroup {
	char workload[128];
	char kernel_id[96];
	char policy[64];             /* what its captures were replayed under */
	int swappiness;
	struct vcell cell[VALIDATE_MAX_COUNTERS];
	int trend[VALIDATE_MAX_COUNTERS];        /* to the next swappiness: -1 wrong, 1 right, 0 none */
	int k_dir[VALIDATE_MAX_COUNTERS], r_dir[VALIDATE_MAX_COUNTERS];
};

struct scoreboard {
	const char *counters[VALIDATE_MAX_COUNTERS];
	int nr_counters;
	struct vsession *s;
	size_t nr_sessions;
	struct vgroup *g;            /* by workload, then swappiness */
	size_t nr_groups;
	size_t cells, cells_passed, trends, trends_right;
};

/* The counters scored by default. */
extern const char *const validate_default_counters[];
extern const int validate_nr_default_counters;

/* Groups SB->s and scores them.  0, or -1 out of memory. */
int scoreboard_compute(struct scoreboard *sb);
void scoreboard_free(struct scoreboard *sb);

enum vfmt { VFMT_TEXT, VFMT_MARKDOWN, VFMT_TSV, VFMT_JSON };
void scoreboard_print(FILE *f, const struct scoreboard *sb, enum vfmt fmt);

/* The workload a capture at PATH belongs to: its directory name without a
 * trailing "-swN" and "-N" (replicate), else the capture's workload name. */
void validate_workload_name(const char *path, const char *meta_workload, char *out, size_t len);

#endif
