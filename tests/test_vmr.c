/*
 * test_vmr.c — the .vmr format: a written file reads back exactly, and
 * no corruption (a flipped byte anywhere, a truncation, a lying header,
 * an out-of-range record) is ever trusted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "vmr/vmr.h"
#include "vmr_fixture.h"

static char path[64];

static void make_tmp(void)
{
	snprintf(path, sizeof(path), "/tmp/test_vmr.%d.vmr", (int)getpid());
}

/* Two tasks, anon and file pages, a long delay, a free. */
static const struct vmr_rec t0[] = {
	{ 0, VMR_OP_STORE | 5 << VMR_DELTA_SHIFT },
	{ 1, VMR_OP_LOAD },
	{ 3, VMR_OP_FREE },
	{ 0x12, VMR_OP_DELAY | 0x345678u << VMR_DELTA_SHIFT },
	{ 2, VMR_OP_READ | VMR_F_FILE | 7 << VMR_DELTA_SHIFT },
};
static const struct vmr_rec t1[] = {
	{ 2, VMR_OP_WRITE | VMR_F_FILE | 1 << VMR_DELTA_SHIFT },
	{ 3, VMR_OP_STORE },
};
static const uint8_t file_pages[4] = { 0, 0, 1, 0 };

static int write_fixture(void)
{
	struct fixture_task t[2] = { { 1000, t0, 5 }, { 2000, t1, 2 } };
	return fixture_vmr(path, t, 2, 4, file_pages, "workload\ttest\npage_size\t4096\n");
}

static void round_trip(void **state)
{
	(void)state;
	make_tmp();
	assert_int_equal(write_fixture(), 0);
	struct vmr v;
	char err[256];
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	assert_int_equal(v.hdr->nr_tasks, 2);
	assert_int_equal(v.hdr->nr_records, 7);
	assert_int_equal(v.hdr->nr_pages, 4);
	assert_int_equal(v.hdr->nr_accesses, 5);   /* 7 records - 1 FREE - 1 DELAY */
	assert_int_equal(v.tasks[0].first_rec, 0);
	assert_int_equal(v.tasks[1].first_rec, 5);
	assert_int_equal(v.tasks[0].end_ns, 1000 + 5 + 0x12345678ull + 7);
	assert_memory_equal(v.recs, t0, sizeof(t0));
	assert_memory_equal(v.recs + 5, t1, sizeof(t1));
	assert_int_equal(vmr_rec_delay(v.recs[3]), 0x12345678ull);
	assert_int_equal(v.pages[2].kind, VMR_PAGE_FILE);
	char buf[32];
	assert_string_equal(vmr_meta_get(&v, "workload", buf, sizeof(buf)), "test");
	assert_string_equal(vmr_meta_get(&v, "page_size", buf, sizeof(buf)), "4096");
	assert_null(vmr_meta_get(&v, "page", buf, sizeof(buf)));
	vmr_close(&v);
	unlink(path);
}

static long file_size(void)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

static void flip(long off)
{
	int fd = open(path, O_RDWR);
	unsigned char b;
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, off), 1);
	b ^= 0x01;
	assert_int_equal(pwrite(fd, &b, 1, off), 1);
	close(fd);
}

/* Every single flipped byte of the file, header included, is caught. */
static void flipped_byte_anywhere(void **state)
{
	(void)state;
	make_tmp();
	assert_int_equal(write_fixture(), 0);
	long size = file_size();
	assert_true(size > VMR_HEADER_SIZE);
	for (long off = 0; off < size; off++) {
		flip(off);
		struct vmr v;
		char err[256] = "";
		int rc = vmr_open(&v, path, err, sizeof(err));
		if (rc == 0)
			fail_msg("flipped byte %ld of %ld was not detected", off, size);
		assert_non_null(strstr(err, path));
		flip(off);
	}
	struct vmr v;
	char err[256];
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	vmr_close(&v);
	unlink(path);
}

static void truncated(void **state)
{
	(void)state;
	make_tmp();
	assert_int_equal(write_fixture(), 0);
	long size = file_size();
	for (long cut = 0; cut < size; cut += 7) {
		assert_int_equal(truncate(path, cut), 0);
		struct vmr v;
		char err[256];
		assert_int_equal(vmr_open(&v, path, err, sizeof(err)), -1);
		assert_int_equal(write_fixture(), 0);
	}
	unlink(path);
}

/* A record naming a page that does not exist is refused even when the
 * writer itself produced it (checksums are right, contents are not). */
static void out_of_range_record(void **state)
{
	(void)state;
	make_tmp();
	struct vmr_rec bad[] = { { 9, VMR_OP_LOAD } };
	struct fixture_task t = { 0, bad, 1 };
	assert_int_equal(fixture_vmr(path, &t, 1, 4, NULL, ""), 0);
	struct vmr v;
	char err[256];
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "names page 9"));

	struct vmr_rec kind[] = { { 1, VMR_OP_LOAD | VMR_F_FILE } };  /* page 1 is anon */
	t.recs = kind;
	assert_int_equal(fixture_vmr(path, &t, 1, 4, NULL, ""), 0);
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "kind"));

	struct vmr_rec op[] = { { 1, 9 } };
	t.recs = op;
	assert_int_equal(fixture_vmr(path, &t, 1, 4, NULL, ""), 0);
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad op"));

	/* UACCESS marks a user copy: a LOAD or STORE, nothing else */
	struct vmr_rec uaccess[] = { { 1, VMR_OP_STORE | VMR_F_UACCESS } };
	t.recs = uaccess;
	assert_int_equal(fixture_vmr(path, &t, 1, 4, NULL, ""), 0);
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	vmr_close(&v);
	uaccess[0].info = VMR_OP_FREE | VMR_F_UACCESS;
	assert_int_equal(fixture_vmr(path, &t, 1, 4, NULL, ""), 0);
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad op"));
	unlink(path);
}

/* A run record is checked page by page against its pages' kinds (the
 * reader checks a bitmap a word at a time: runs that start, end and
 * cross 64-page words, and one file page among anon ones). */
static void run_kinds(void **state)
{
	(void)state;
	make_tmp();
	uint8_t kinds[200] = { 0 };
	kinds[130] = 1;
	const struct { struct vmr_rec rec; int ok; } cases[] = {
		{ fixture_run(60, VMR_OP_LOAD, 0, 70), 1 },    /* 60..129, two words  */
		{ fixture_run(0, VMR_OP_LOAD, 0, 128), 1 },    /* exactly two words   */
		{ fixture_run(130, VMR_OP_READ, 1, 1), 1 },
		{ fixture_run(131, VMR_OP_LOAD, 0, 69), 1 },   /* 131..199, the end   */
		{ fixture_run(0, VMR_OP_LOAD, 0, 200), 0 },    /* 130 is a file page  */
		{ fixture_run(129, VMR_OP_LOAD, 0, 3), 0 },
		{ fixture_run(130, VMR_OP_READ, 1, 2), 0 },    /* 131 is anon         */
		{ fixture_rec(130, VMR_OP_LOAD, 0, 0), 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture_task t = { 0, &cases[i].rec, 1 };
		assert_int_equal(fixture_vmr(path, &t, 1, 200, kinds, ""), 0);
		struct vmr v;
		char err[256];
		int rc = vmr_open(&v, path, err, sizeof(err));
		if (cases[i].ok) {
			assert_int_equal(rc, 0);
			vmr_close(&v);
		} else {
			assert_int_equal(rc, -1);
			assert_non_null(strstr(err, "disagrees with its page's kind"));
		}
	}
	unlink(path);
}

static void not_a_vmr(void **state)
{
	(void)state;
	struct vmr v;
	char err[256];
	assert_int_equal(vmr_open(&v, "/nonexistent/x.vmr", err, sizeof(err)), -1);
	assert_int_equal(vmr_open(&v, "/etc/passwd", err, sizeof(err)), -1);
	assert_int_equal(vmr_open(&v, "/tmp", err, sizeof(err)), -1);
}

/* A file bigger than one checksum block: damage in the middle of a large
 * record section is found and reported with its block. */
static void multi_block(void **state)
{
	(void)state;
	make_tmp();
	enum { N = 50000 };                 /* 400 KB of records: 7 blocks */
	struct vmr_rec *r = calloc(N, sizeof(*r));
	for (uint32_t i = 0; i < N; i++)
		r[i] = fixture_rec(i % 1000, i % 2 ? VMR_OP_LOAD : VMR_OP_STORE, 0, i % 100);
	struct fixture_task t = { 0, r, N };
	assert_int_equal(fixture_vmr(path, &t, 1, 1000, NULL, ""), 0);
	struct vmr v;
	char err[256];
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	assert_int_equal(v.hdr->nr_accesses, N);
	vmr_close(&v);
	flip(VMR_HEADER_SIZE + 3 * VMR_BLOCK_SIZE + 17);
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "block 3"));
	free(r);
	unlink(path);
}

/* META values a replay divides by or builds from, checked on open even
 * when every checksum is right (the writer wrote them faithfully). */
static void meta_values(void **state)
{
	(void)state;
	make_tmp();
	static const struct { const char *meta, *why; } cases[] = {
		{ "page_size\t0000\n", "page_size: '0000'" },  /* SIGFPE in engine_init */
		{ "page_size\t0\n", "page_size" },
		{ "page_size\t512\n", "page_size: '512'" },
		{ "page_size\t4097\n", "page_size" },
		{ "page_size\t 4096\n", "page_size" },
		{ "page_size\t1048576\n", "page_size" },
		{ "memory_limit\t1\n", "memory_limit: '1'" },
		{ "page_size\t65536\nmemory_limit\t4096\n", "memory_limit" },
		{ "mem_total\t-5\n", "mem_total" },
		{ "swap_size\t99999999999999999999\n", "swap_size" },
		{ "swappiness\t201\n", "swappiness" },
		{ "swappiness\t-5\n", "swappiness" },
		{ "nr_cpus\t+2\n", "nr_cpus" },
		{ "cgroup\t100 0 60 /a\n", "path '/a' is absolute" },   /* UAF in engine_init */
		{ "cgroup\t100 0 60 a/b/c/d/e\n", "nests deeper than 4" },
		{ "cgroup\t100 0 60 a//b\n", "empty component" },
		{ "cgroup\t100 0 60 a/\n", "empty component" },
		{ "cgroup\t100 0 60 a/../b\n", "'..'" },
		{ "cgroup\t100 0 60 \n", "is empty" },
		{ "cgroup\t100 1 60 a\n", "bad limit" },
		{ "cgroup\t100 0 300 a\n", "bad swappiness" },
		{ "cgroup\tx 0 60 a\n", "bad pid" },
		{ "cgroup\t100 0\n", "not 'PID LIMIT" },
		{ "workload\n", "not 'key<TAB>value'" },
		{ "workload\tx", "middle of a line" },
	};
	struct vmr_rec r[] = { { 0, VMR_OP_LOAD } };
	struct fixture_task t = { 0, r, 1 };
	struct vmr v;
	char err[256];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(fixture_vmr(path, &t, 1, 1, NULL, cases[i].meta), 0);
		if (vmr_open(&v, path, err, sizeof(err)) == 0)
			fail_msg("META '%s' was accepted", cases[i].meta);
		if (!strstr(err, cases[i].why) || !strstr(err, path))
			fail_msg("META '%s': '%s' does not say '%s'", cases[i].meta, err, cases[i].why);
	}
	/* What sessions really have is accepted. */
	assert_int_equal(fixture_vmr(path, &t, 1, 1, NULL,
				     "page_size\t16384\nmemory_limit\t0\nswappiness\t-1\n"
				     "mem_total\t25276059648\ncgroup\t21139 0 -1 apps/camera\n"
				     "cgroup\t7 16384 200 a b/c d/e/f g\n"), 0);
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	vmr_close(&v);
	unlink(path);
}

/* A count whose product with its item size wraps (2^61 tasks of 72 bytes
 * is 0 bytes mod 2^64) is refused, with a header whose checksum is right. */
static void wrapping_counts(void **state)
{
	(void)state;
	make_tmp();
	struct vmr_rec r[] = { { 0, VMR_OP_LOAD } };
	struct fixture_task t = { 0, r, 1 };
	for (int field = 0; field < 2; field++) {
		assert_int_equal(fixture_vmr(path, &t, 0, 1, NULL, ""), 0);
		struct vmr_header h;
		int fd = open(path, O_RDWR);
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &h, sizeof(h), 0), sizeof(h));
		if (field == 0)
			h.nr_tasks = 1ull << 61;
		else
			h.nr_records = 1ull << 61;
		h.header_sum = 0;
		h.header_sum = XXH3_64bits(&h, sizeof(h));
		assert_int_equal(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
		close(fd);
		struct vmr v;
		char err[256];
		assert_int_equal(vmr_open(&v, path, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "section sizes disagree"));
	}
	unlink(path);
}

/* Copies the file at path to TO, byte for byte. */
static void copy_to(const char *to)
{
	char buf[65536];
	int in = open(path, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(in >= 0 && out >= 0);
	ssize_t n;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

/* With a verified directory, a file's contents are checked at its first
 * open only: a second open, or an open of a byte-for-byte copy, checks
 * the header and block checksums alone (vmr_content_checks does not
 * move).  A byte changed after that is still caught by its block's
 * checksum; a file the writer wrote with a bad record (checksums right)
 * has another checksum table, so it is checked, and refused, in full. */
static void verified_once(void **state)
{
	(void)state;
	make_tmp();
	char dir[64], copy[80], cmd[160];
	snprintf(dir, sizeof(dir), "/tmp/test_vmr.%d.cache", (int)getpid());
	snprintf(copy, sizeof(copy), "%s.copy", path);
	vmr_verified_dir(dir);
	struct vmr v;
	char err[256];
	assert_int_equal(write_fixture(), 0);
	unsigned long n0 = vmr_content_checks();
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	vmr_close(&v);
	assert_int_equal(vmr_content_checks(), n0 + 1);         /* checked   */
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	assert_int_equal(v.hdr->nr_records, 7);
	assert_memory_equal(v.recs, t0, sizeof(t0));
	vmr_close(&v);
	assert_int_equal(vmr_content_checks(), n0 + 1);         /* not again */
	copy_to(copy);
	assert_int_equal(vmr_open(&v, copy, err, sizeof(err)), 0);
	vmr_close(&v);
	assert_int_equal(vmr_content_checks(), n0 + 1);         /* same bytes */

	/* A byte of the records changed after the check: block 0's sum. */
	long rec0 = 0;
	{
		struct vmr_header h;
		int fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &h, sizeof(h), 0), sizeof(h));
		close(fd);
		rec0 = (long)h.sec[VMR_SEC_RECORDS - 1].offset;
	}
	flip(rec0 + 4);           /* record 0's op: STORE -> LOAD */
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "checksum mismatch in block 0"));
	flip(rec0 + 4);
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);
	vmr_close(&v);
	assert_int_equal(vmr_content_checks(), n0 + 1);

	/* Same header (counts, sizes), a bad op, the writer's checksums. */
	struct vmr_rec bad[5];
	memcpy(bad, t0, sizeof(bad));
	bad[1].info = 0xf;
	struct fixture_task t[2] = { { 1000, bad, 5 }, { 2000, t1, 2 } };
	assert_int_equal(fixture_vmr(path, t, 2, 4, file_pages, "workload\ttest\npage_size\t4096\n"), 0);
	assert_int_equal(vmr_open(&v, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "record 1 has a bad op"));
	assert_int_equal(vmr_content_checks(), n0 + 2);

	/* The record gone: the next open checks everything again. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(vmr_open(&v, copy, err, sizeof(err)), 0);
	vmr_close(&v);
	assert_int_equal(vmr_content_checks(), n0 + 3);
	/* Without a directory, every open checks everything. */
	vmr_verified_dir(NULL);
	assert_int_equal(vmr_open(&v, copy, err, sizeof(err)), 0);
	vmr_close(&v);
	assert_int_equal(vmr_open(&v, copy, err, sizeof(err)), 0);
	vmr_close(&v);
	assert_int_equal(vmr_content_checks(), n0 + 5);
	assert_int_equal(system(cmd), 0);
	unlink(copy);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(flipped_byte_anywhere),
		cmocka_unit_test(truncated),
		cmocka_unit_test(out_of_range_record),
		cmocka_unit_test(run_kinds),
		cmocka_unit_test(not_a_vmr),
		cmocka_unit_test(multi_block),
		cmocka_unit_test(meta_values),
		cmocka_unit_test(wrapping_counts),
		cmocka_unit_test(verified_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
