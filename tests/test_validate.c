/*
 * test_validate.c — the fidelity scoreboard's rules (analysis/validate.h),
 * on sessions whose medians, spreads and verdicts are worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

/* Adds a session of WORKLOAD at SW with one counter: kernel K, replay R. */
static void add(struct scoreboard *sb, const char *workload, int sw, double k, double r)
{
	sb->s = realloc(sb->s, (sb->nr_sessions + 1) * sizeof(*sb->s));
	struct vsession *s = &sb->s[sb->nr_sessions++];
	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s-sw%d-%zu", workload, sw, sb->nr_sessions);
	snprintf(s->workload, sizeof(s->workload), "%s", workload);
	s->swappiness = sw;
	s->kernel[0] = k;
	s->replay[0] = r;
	s->have_kernel[0] = 1;
}

static const struct vgroup *group(const struct scoreboard *sb, const char *w, int sw)
{
	for (size_t i = 0; i < sb->nr_groups; i++)
		if (strcmp(sb->g[i].workload, w) == 0 && sb->g[i].swappiness == sw)
			return &sb->g[i];
	fail_msg("no group %s/%d", w, sw);
	return NULL;
}

/* Kernel 90, 100, 110: median 100, sd 10, CV 0.1 (tight).  Replays 120,
 * 120, 130: median 120, +20 %: passes; replays 120, 130, 130: median 130,
 * +30 %: fails. */
static void tight_cells(void **state)
{
	(void)state;
	struct scoreboard sb = { .counters = { "pgscan_anon" }, .nr_counters = 1 };
	add(&sb, "a", 1, 90, 120);
	add(&sb, "a", 1, 110, 130);
	add(&sb, "a", 1, 100, 120);
	add(&sb, "b", 1, 90, 120);
	add(&sb, "b", 1, 110, 130);
	add(&sb, "b", 1, 100, 130);
	assert_int_equal(scoreboard_compute(&sb), 0);
	const struct vcell *a = &group(&sb, "a", 1)->cell[0], *b = &group(&sb, "b", 1)->cell[0];
	assert_true(fabs(a->k_median - 100) < 1e-12);
	assert_true(fabs(a->k_cv - 0.1) < 1e-12);
	assert_true(fabs(a->r_median - 120) < 1e-12);
	assert_true(fabs(a->rel_error - 0.2) < 1e-12);
	assert_true(a->pass);
	assert_true(fabs(b->rel_error - 0.3) < 1e-12);
	assert_false(b->pass);
	assert_int_equal(sb.cells, 2);
	assert_int_equal(sb.cells_passed, 1);
	scoreboard_free(&sb);
}

/* Kernel 100, 200, 300: mean 200, sd 100, CV 0.5 (varies): the replay
 * median must lie in [100, 300]: 250 passes, 350 fails; all-zero kernels
 * pass only an exact 0. */
static void loose_and_zero_cells(void **state)
{
	(void)state;
	struct scoreboard sb = { .counters = { "pgscan_file" }, .nr_counters = 1 };
	add(&sb, "a", 100, 100, 250);
	add(&sb, "a", 100, 200, 250);
	add(&sb, "a", 100, 300, 260);
	add(&sb, "b", 100, 100, 350);
	add(&sb, "b", 100, 300, 350);
	add(&sb, "b", 100, 200, 340);
	add(&sb, "z", 100, 0, 0);
	add(&sb, "y", 100, 0, 1);
	assert_int_equal(scoreboard_compute(&sb), 0);
	assert_true(fabs(group(&sb, "a", 100)->cell[0].k_cv - 0.5) < 1e-12);
	assert_true(group(&sb, "a", 100)->cell[0].pass);
	assert_false(group(&sb, "b", 100)->cell[0].pass);
	assert_true(group(&sb, "z", 100)->cell[0].pass);
	assert_false(group(&sb, "y", 100)->cell[0].pass);
	assert_true(isnan(group(&sb, "y", 100)->cell[0].rel_error));
	scoreboard_free(&sb);
}

/* Trends: kernel [10, 12] at 1 and [20, 22] at 100 (no overlap: up), then
 * [21, 30] at 200 (overlaps: flat).  Replay medians 8, 5, 50: down where
 * the kernel goes up (wrong), anything where it is flat (right). */
static void trends(void **state)
{
	(void)state;
	struct scoreboard sb = { .counters = { "pgsteal_anon" }, .nr_counters = 1 };
	add(&sb, "w", 1, 10, 8);
	add(&sb, "w", 1, 12, 8);
	add(&sb, "w", 100, 20, 5);
	add(&sb, "w", 100, 22, 5);
	add(&sb, "w", 200, 21, 50);
	add(&sb, "w", 200, 30, 50);
	assert_int_equal(scoreboard_compute(&sb), 0);
	const struct vgroup *g1 = group(&sb, "w", 1), *g100 = group(&sb, "w", 100);
	assert_int_equal(g1->k_dir[0], 1);
	assert_int_equal(g1->r_dir[0], -1);
	assert_int_equal(g1->trend[0], -1);
	assert_int_equal(g100->k_dir[0], 0);
	assert_int_equal(g100->r_dir[0], 1);
	assert_int_equal(g100->trend[0], 1);
	assert_int_equal(sb.trends, 2);
	assert_int_equal(sb.trends_right, 1);
	scoreboard_free(&sb);
}

/* Captures replayed under different policies (two releases of one kernel
 * line that "as captured" reads differently) are different groups, and no
 * trend runs from one to the other: w at 1 under p and at 100 under q are
 * two groups with no trend; w at 1 and 100 under q, one trend. */
static void policy_groups(void **state)
{
	(void)state;
	struct scoreboard sb = { .counters = { "pgsteal_anon" }, .nr_counters = 1 };
	const char *pol[] = { "p", "q", "q", "q" };
	const int sw[] = { 1, 1, 100, 100 };
	for (int i = 0; i < 4; i++) {
		add(&sb, "w", sw[i], 10 + 10 * (sw[i] == 100), 5);
		snprintf(sb.s[i].policy, sizeof(sb.s[i].policy), "%s", pol[i]);
	}
	assert_int_equal(scoreboard_compute(&sb), 0);
	assert_int_equal(sb.nr_groups, 3);
	assert_string_equal(sb.g[0].policy, "p");
	assert_int_equal(sb.g[0].cell[0].n, 1);
	assert_int_equal(sb.g[0].trend[0], 0);
	assert_string_equal(sb.g[1].policy, "q");
	assert_int_equal(sb.g[1].swappiness, 1);
	assert_int_equal(sb.g[1].k_dir[0], 1);
	assert_int_equal(sb.g[1].trend[0], -1);
	assert_int_equal(sb.trends, 1);
	scoreboard_free(&sb);
}

static void workload_names(void **state)
{
	(void)state;
	char out[128];
	validate_workload_name("sessions/compile-sw100-2", "cc1", out, sizeof(out));
	assert_string_equal(out, "compile");
	validate_workload_name("traces/reader-sw1/ctf/", NULL, out, sizeof(out));
	assert_string_equal(out, "reader");
	validate_workload_name("x/anon-file-mix-sw200", NULL, out, sizeof(out));
	assert_string_equal(out, "anon-file-mix");
	validate_workload_name("x/mysession", "make", out, sizeof(out));
	assert_string_equal(out, "make");
	validate_workload_name("x/swim-sw", NULL, out, sizeof(out));
	assert_string_equal(out, "swim-sw");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tight_cells),
		cmocka_unit_test(loose_and_zero_cells),
		cmocka_unit_test(trends),
		cmocka_unit_test(policy_groups),
		cmocka_unit_test(workload_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
