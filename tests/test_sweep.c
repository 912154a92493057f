/*
 * test_sweep.c — the sweep file, its expansion into runs, run identity,
 * the plan file, and the result reader that guards every gather.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sweep/policy_list.h"
#include "result.h"
#include "sweep/sweep.h"
#include "sweep/sweep_file.h"

static const char table[] =
	"lru\tno\tno\n"
	"classic\tyes\tyes\n"
	"classic+early-exit\tyes\tyes\n"
	"mglru\tyes\tyes\n";

/* Parses TEXT; expects failure with a message containing WANT. */
static void expect_error(const char *text, const char *want)
{
	struct sweep_spec s;
	char err[1024] = "";
	if (sweep_file_parse("dir/s.sweep", text, &s, err, sizeof(err)) == 0) {
		sweep_file_free(&s);
		fail_msg("accepted: %s", text);
	}
	if (!strstr(err, want))
		fail_msg("for %s: message '%s' lacks '%s'", text, err, want);
}

static void test_parse_errors_name_file_line_and_key(void **state)
{
	(void)state;
	expect_error("trace t\nmemory-limit 1G\nswappiness 1 300\n", "dir/s.sweep:3: swappiness: '300' is not a swappiness (0-200)");
	expect_error("trace t\nmemory-limit 1G\nswappiness 1 1\n", "dir/s.sweep:3: swappiness: 1 is listed twice");
	expect_error("trace t\nmemory-limit 12Q\n", "dir/s.sweep:2: memory-limit: '12Q' is not a size");
	expect_error("trace t\nmemory-limit 1\n", "dir/s.sweep:2: memory-limit: 1 is out of range");
	expect_error("trace t\nmemory-limit 0%\n", "dir/s.sweep:2: memory-limit: '0%' is not a percentage");
	expect_error("trace t\nmemory-limit 5000%\n", "memory-limit: '5000%' is not a percentage");
	expect_error("trace t\nmemory-limit 1G\nseed 9-3\n", "dir/s.sweep:3: seed: '9-3' is not a seed range");
	expect_error("trace t\nmemory-limit 1G\nseed 1-100000\n", "seed: '1-100000' is more than 10000 seeds");
	expect_error("trace t\nmemory-limit 1G\nseed x\n", "seed: 'x' is not a seed");
	expect_error("trace t\nmemory-limit 1G\nfrobnicate 3\n", "dir/s.sweep:3: frobnicate: unknown key");
	expect_error("trace t\nmemory-limit 1G\nevents maybe\n", "dir/s.sweep:3: events: expected yes, no or first-seed");
	expect_error("trace t\nmemory-limit 1G\nevents yes\nevents no\n", "dir/s.sweep:4: events: given twice (line 3)");
	expect_error("trace a/ctf\ntrace b/a/ctf\nmemory-limit 1G\n", "dir/s.sweep:2: trace: two traces are named 'a'");
	expect_error("trace t\nmemory-limit 1G\npolicy all lru\n", "policy: 'all' cannot be combined");
	expect_error("trace t\nmemory-limit 1G\npolicy lru\npolicy all\n", "policy: 'all' cannot be combined");
	expect_error("trace t\nmemory-limit 1G\nswap 'zram'\n", "swap: ''zram'' is not a swap device");
	expect_error("memory-limit 1G\n", "no 'trace' line");
	expect_error("trace t\n", "no 'memory-limit' line");
}

static void test_parse_defaults_and_paths(void **state)
{
	(void)state;
	struct sweep_spec s;
	char err[1024];
	const char *text =
		"# a comment\n"
		"trace traces/anon-storm-small/ctf   # relative: to the file\n"
		"trace /abs/x.vmr mine\n"
		"memory-limit 64M 25%\n"
		"\n";
	assert_int_equal(sweep_file_parse("dir/s.sweep", text, &s, err, sizeof(err)), 0);
	assert_int_equal(s.nr_traces, 2);
	assert_string_equal(s.traces[0].path, "dir/traces/anon-storm-small/ctf");
	assert_string_equal(s.traces[0].name, "anon-storm-small");
	assert_string_equal(s.traces[1].path, "/abs/x.vmr");
	assert_string_equal(s.traces[1].name, "mine");
	/* Defaults: the seven swappiness values, seed 1, every policy. */
	static const int sw[] = { 1, 36, 71, 106, 141, 176, 200 };
	assert_int_equal(s.nr_swappiness, 7);
	for (int i = 0; i < 7; i++)
		assert_int_equal(s.swappiness[i], sw[i]);
	assert_int_equal(s.nr_seeds, 1);
	assert_int_equal(s.seeds[0], 1);
	assert_int_equal(s.nr_policies, 0);
	assert_int_equal(s.nr_memory, 2);
	assert_int_equal(s.memory[0].bytes, 64 << 20);
	assert_true(s.memory[1].is_pct && s.memory[1].pct == 25);
	sweep_file_free(&s);
}

static void test_policy_list(void **state)
{
	(void)state;
	struct policy_list l;
	char err[256];
	assert_int_equal(policy_list_parse(table, &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 4);
	assert_false(policy_list_find(&l, "lru")->takes_swappiness);
	assert_true(policy_list_find(&l, "mglru")->stochastic);
	policy_list_free(&l);
	assert_int_equal(policy_list_parse("lru\tmaybe\tno\n", &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 1"));
	assert_int_equal(policy_list_parse("", &l, err, sizeof(err)), -1);
}

static struct sweep_trace_info info(const char *name)
{
	struct sweep_trace_info t = { .pages = 1000, .page_size = 4096 };
	snprintf(t.name, sizeof(t.name), "%s", name);
	snprintf(t.hash, sizeof(t.hash), "%032x", (unsigned)strlen(name));
	return t;
}

/* Node pressure instead of a limit: memory-limit none with node-memory
 * as a share of each trace's pages (rounded up to whole pages); lru
 * cannot replay "no size". */
static void test_node_pressure(void **state)
{
	(void)state;
	struct sweep_spec s;
	struct policy_list l;
	struct sweep_plan plan;
	char err[1024];
	assert_int_equal(policy_list_parse(table, &l, err, sizeof(err)), 0);
	struct sweep_trace_info ti[1] = { info("a") };
	ti[0].pages = 333;
	const char *text = "trace a\nmemory-limit none\nnode-memory 50% 64M\nswappiness 60\npolicy classic\n";
	assert_int_equal(sweep_file_parse("s", text, &s, err, sizeof(err)), 0);
	assert_true(s.memory[0].is_none);
	assert_int_equal(s.nr_node_memory, 2);
	assert_true(s.node_memory[0].is_pct && s.node_memory[0].pct == 50);
	assert_int_equal(sweep_expand(&s, &l, ti, &plan, err, sizeof(err)), 0);
	assert_int_equal(plan.nr_runs, 2);
	assert_int_equal(plan.runs[0].memory_limit, 0);
	assert_int_equal(plan.runs[0].node_memory, 167 * 4096);     /* 166.5 -> 167 pages */
	assert_int_equal(plan.runs[1].node_memory, 64 << 20);
	sweep_plan_free(&plan);
	sweep_file_free(&s);

	assert_int_equal(sweep_file_parse("s", "trace a\nmemory-limit none\npolicy lru\n", &s, err,
					  sizeof(err)), 0);
	assert_int_equal(sweep_expand(&s, &l, ti, &plan, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "memory-limit none: policy lru"));
	sweep_file_free(&s);
	/* "none" is no node memory, and no percentage of nothing. */
	assert_int_equal(sweep_file_parse("s", "trace a\nmemory-limit 1M\nnode-memory none\n", &s, err,
					  sizeof(err)), -1);
	assert_non_null(strstr(err, "node-memory"));
	policy_list_free(&l);
}

/* Trace sets: the default swappiness values gain every value a capture
 * of the set was captured at (for each of its captures); a sweep file's
 * own list is kept as it is; memory-limit captured is each capture's
 * limit, none where it had none. */
static void test_captured_defaults(void **state)
{
	(void)state;
	struct sweep_spec s;
	struct policy_list l;
	struct sweep_plan plan;
	char err[1024];
	assert_int_equal(policy_list_parse(table, &l, err, sizeof(err)), 0);
	struct sweep_trace_info ti[3] = { info("w-1"), info("w-22"), info("alone") };   /* hashes differ */
	snprintf(ti[0].set, sizeof(ti[0].set), "w");
	snprintf(ti[1].set, sizeof(ti[1].set), "w");
	ti[0].has_swappiness = ti[1].has_swappiness = ti[2].has_swappiness = 1;
	ti[0].swappiness = 100;
	ti[1].swappiness = 60;
	ti[2].swappiness = 1;
	ti[0].captured_limit = ti[1].captured_limit = (32 << 20) + 100;
	const char *text = "trace a\ntrace b\ntrace c\nmemory-limit captured\npolicy classic\n";
	assert_int_equal(sweep_file_parse("s", text, &s, err, sizeof(err)), 0);
	assert_true(s.default_swappiness && s.memory[0].is_captured);
	if (sweep_expand(&s, &l, ti, &plan, err, sizeof(err)) != 0)
		fail_msg("expand: %s", err);
	/* w-1 and w-2: the seven and 60, 100; lone: the seven (1 is one). */
	assert_int_equal(plan.nr_runs, 9 + 9 + 7);
	static const int want[] = { 1, 36, 60, 71, 100, 106, 141, 176, 200 };
	for (size_t i = 0; i < 9; i++) {
		assert_int_equal(plan.runs[i].swappiness, want[i]);
		assert_int_equal(plan.runs[9 + i].swappiness, want[i]);
		assert_int_equal(plan.runs[i].memory_limit, 32 << 20);   /* whole pages */
	}
	assert_int_equal(plan.runs[18].memory_limit, 0);
	sweep_plan_free(&plan);
	sweep_file_free(&s);
	text = "trace a\ntrace b\ntrace c\nmemory-limit 8M\npolicy classic\nswappiness 10\n";
	assert_int_equal(sweep_file_parse("s", text, &s, err, sizeof(err)), 0);
	assert_int_equal(sweep_expand(&s, &l, ti, &plan, err, sizeof(err)), 0);
	assert_int_equal(plan.nr_runs, 3);
	sweep_plan_free(&plan);
	sweep_file_free(&s);
	/* A set's DIR must hold captures; its name must be no lone trace's;
	 * its captures are named for it (from the repository root). */
	expect_error("trace-set w /nonexistent\nmemory-limit 1M\n", "/nonexistent: neither a capture");
	assert_int_equal(sweep_file_parse("s", "trace traces/reader-sw1/ctf reader\n"
					  "trace-set reader traces/reader-sw100\nmemory-limit 1M\n",
					  &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "s:2: trace-set: 'reader' is named on line 1 too"));
	assert_int_equal(sweep_file_parse("s", "trace-set rd traces/reader-sw1 traces/reader-sw100\n"
					  "trace-set reader traces/reader-sw200\nmemory-limit 1M\n",
					  &s, err, sizeof(err)), 0);
	assert_int_equal(s.nr_traces, 3);
	assert_string_equal(s.traces[0].name, "rd-reader-sw1");
	assert_string_equal(s.traces[0].path, "traces/reader-sw1/ctf");
	assert_string_equal(s.traces[1].set, "rd");
	assert_string_equal(s.traces[2].name, "reader-sw200");
	assert_string_equal(s.traces[2].set, "reader");
	sweep_file_free(&s);
	policy_list_free(&l);
}

/* lru expands over memory only; kernel policies over swappiness x seeds;
 * percentages are of each trace's pages, rounded up to whole pages. */
static void test_expansion(void **state)
{
	(void)state;
	struct sweep_spec s;
	struct policy_list l;
	struct sweep_plan plan;
	char err[1024];
	const char *text = "trace a\ntrace b\nmemory-limit 10% 1M\nswappiness 0 100 200\nseed 1-5\n"
			   "policy lru classic mglru\nevents yes\n";
	assert_int_equal(sweep_file_parse("s", text, &s, err, sizeof(err)), 0);
	assert_int_equal(policy_list_parse(table, &l, err, sizeof(err)), 0);
	struct sweep_trace_info ti[2] = { info("a"), info("bb") };
	ti[1].pages = 333;
	assert_int_equal(sweep_expand(&s, &l, ti, &plan, err, sizeof(err)), 0);
	/* per trace and limit: lru 1 + classic 3x5 + mglru 3x5 = 31 */
	assert_int_equal(plan.nr_runs, 2 * 2 * 31);
	size_t lru = 0, kernel = 0;
	for (size_t i = 0; i < plan.nr_runs; i++) {
		const struct sweep_run *r = &plan.runs[i];
		if (strcmp(r->policy, "lru") == 0) {
			lru++;
			assert_int_equal(r->swappiness, -1);
			assert_int_equal(r->seed, -1);
			assert_false(r->events);
		} else {
			kernel++;
			assert_true(r->swappiness == 0 || r->swappiness == 100 || r->swappiness == 200);
			assert_true(r->seed >= 1 && r->seed <= 5);
			assert_true(r->events);
		}
		assert_int_equal(r->memory_limit % 4096, 0);
	}
	assert_int_equal(lru, 4);
	assert_int_equal(kernel, 120);
	/* 10% of 333 pages = 33.3 -> 34 pages. */
	assert_int_equal(plan.runs[2 * 31].memory_limit, 34 * 4096);

	/* Every ID is distinct and the same on a second expansion. */
	struct sweep_plan again;
	assert_int_equal(sweep_expand(&s, &l, ti, &again, err, sizeof(err)), 0);
	for (size_t i = 0; i < plan.nr_runs; i++)
		assert_string_equal(plan.runs[i].id, again.runs[i].id);
	sweep_plan_free(&again);

	/* The plan file round-trips. */
	char dir[] = "/tmp/test_sweep.XXXXXX";
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sweep_plan_write(dir, &plan, err, sizeof(err)), 0);
	assert_int_equal(sweep_plan_read(dir, &again, err, sizeof(err)), 0);
	assert_int_equal(again.nr_runs, plan.nr_runs);
	assert_int_equal(again.nr_traces, 2);
	for (size_t i = 0; i < plan.nr_runs; i++) {
		const struct sweep_run *x = &plan.runs[i], *y = &again.runs[i];
		assert_string_equal(x->id, y->id);
		assert_string_equal(x->policy, y->policy);
		assert_int_equal(x->swappiness, y->swappiness);
		assert_int_equal(x->seed, y->seed);
		assert_int_equal(x->memory_limit, y->memory_limit);
		assert_int_equal(x->kernel, y->kernel);
		assert_int_equal(x->events, y->events);
		assert_string_equal(plan.traces[x->trace].name, again.traces[y->trace].name);
	}
	char path[256];
	snprintf(path, sizeof(path), "%s/plan.tsv", dir);
	unlink(path);
	rmdir(dir);
	sweep_plan_free(&again);
	sweep_plan_free(&plan);

	/* An unknown policy names the file and line. */
	sweep_file_free(&s);
	assert_int_equal(sweep_file_parse("s.sweep", "trace a\nmemory-limit 1M\npolicy lru\npolicy bogus\n",
					  &s, err, sizeof(err)), 0);
	assert_int_equal(sweep_expand(&s, &l, ti, &plan, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "s.sweep:4: policy: unknown policy 'bogus'"));
	sweep_file_free(&s);
	policy_list_free(&l);
}

/* A result must be exactly a header and one line: anything cut short,
 * padded or malformed is refused whole. */
static void test_result_reader_refuses_damage(void **state)
{
	(void)state;
	static const char hdr[] = "trace\ttrace_hash\tpolicy\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tversion\tx\ty\n";
	static const char row[] = "t\th\tlru\t-\t4096\t-\t-\t-\t0.1.0\t1.5\t2\n";
	char path[] = "/tmp/test_result.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct { const char *text; const char *want; } cases[] = {
		{ "", "not a header line and one data line" },
		{ hdr, "not a header line and one data line" },
		{ NULL, "not a header line" },          /* truncated mid-line, below */
		{ "trace\tpolicy\n1\t2\n", "column 2: expected 'trace_hash'" },
		{ NULL, "line 2: 10 fields, but the header names 11" },
		{ NULL, "line 2: y: 'z' is not a finite number" },
	};
	char buf[1024];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		if (i == 2) {
			snprintf(buf, sizeof(buf), "%s%.*s", hdr, 12, row);
			text = buf;
		} else if (i == 4) {
			snprintf(buf, sizeof(buf), "%st\th\tlru\t-\t4096\t-\t-\t-\t0.1.0\t1.5\n", hdr);
			text = buf;
		} else if (i == 5) {
			snprintf(buf, sizeof(buf), "%st\th\tlru\t-\t4096\t-\t-\t-\t0.1.0\t1.5\tz\n", hdr);
			text = buf;
		}
		FILE *f = fopen(path, "w");
		fputs(text, f);
		fclose(f);
		struct result r;
		char err[1024];
		assert_int_equal(result_read(path, &r, err, sizeof(err)), -1);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].want);
	}
	/* Values no run can have (stats took -5 and 1e23: a mean of 3.3e22,
	 * negative intervals). */
	static const char ids[] = "trace\ttrace_hash\tpolicy\tswappiness\tmemory_limit\tnode_memory\tswap\tseed\tversion";
	static const char idv[] = "t\th\tclassic\t60\t4096\t-\tzram\t1\t0.1.0";
	static const struct { const char *cols, *vals, *want; } bad[] = {
		{ "pgscan_anon", "-5", "pgscan_anon: '-5' is negative" },
		{ "pgscan_anon", "99999999999999999999999", "is beyond 2^53" },
		{ "miss_ratio", "1.5", "is a share above 1" },
		{ "scan_target_anon_share", "2", "is a share above 1" },
		{ "accesses\thits", "10\t11", "hits: 11 is more than accesses (10)" },
		{ "accesses\twork_done", "10\t12", "work_done: 12 is more than accesses" },
		{ "pgfault\tpgmajfault", "3\t4", "pgmajfault: 4 is more than pgfault" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(path, "w");
		fprintf(f, "%s\t%s\n%s\t%s\n", ids, bad[i].cols, idv, bad[i].vals);
		fclose(f);
		struct result r;
		char err[1024];
		assert_int_equal(result_read(path, &r, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].want) || !strstr(err, path))
			fail_msg("'%s' = '%s': '%s' lacks '%s'", bad[i].cols, bad[i].vals, err, bad[i].want);
	}
	FILE *f = fopen(path, "w");
	fprintf(f, "%s%s", hdr, row);
	fclose(f);
	struct result r;
	char err[1024];
	assert_int_equal(result_read(path, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_metrics, 2);
	assert_true(*result_metric(&r, "x") == 1.5);
	assert_null(result_metric(&r, "z"));
	result_free(&r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_errors_name_file_line_and_key),
		cmocka_unit_test(test_parse_defaults_and_paths),
		cmocka_unit_test(test_policy_list),
		cmocka_unit_test(test_node_pressure),
		cmocka_unit_test(test_captured_defaults),
		cmocka_unit_test(test_expansion),
		cmocka_unit_test(test_result_reader_refuses_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
