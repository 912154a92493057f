/*
 * test_lru.c — the reference LRU replay against a brute-force LRU, and
 * the merge of task streams against a plain sort by (time, task).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "lru/lru.h"
#include "lru/merge.h"
#include "vmr_fixture.h"

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

struct flat { uint64_t ts; uint32_t task, seq; struct vmr_rec r; };

static int cmp_flat(const void *a, const void *b)
{
	const struct flat *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Brute force: an array ordered most-recent-first, searched linearly. */
static void brute_lru(const struct flat *f, size_t n, uint32_t cap, uint32_t nr_pages,
		      struct lru_result *r)
{
	uint32_t *list = calloc(cap + 1, sizeof(*list));
	uint8_t *seen = calloc(nr_pages, 1);
	size_t len = 0;
	memset(r, 0, sizeof(*r));
	r->capacity = cap;
	for (size_t i = 0; i < n; i++) {
		unsigned op = vmr_rec_op(f[i].r);
		if (op == VMR_OP_DELAY)
			continue;
		for (uint32_t p = f[i].r.page; p < f[i].r.page + vmr_rec_count(f[i].r); p++) {
			size_t pos = len;
			for (size_t j = 0; j < len; j++)
				if (list[j] == p)
					pos = j;
			if (op == VMR_OP_FREE) {
				if (pos < len) {
					memmove(list + pos, list + pos + 1, (len - pos - 1) * sizeof(*list));
					len--;
					r->frees++;
				}
				continue;
		}
			r->accesses++;
			if (pos < len) {
				r->hits++;
				memmove(list + 1, list, pos * sizeof(*list));
				list[0] = p;
				continue;
		}
			r->misses++;
			r->cold_misses += !seen[p];
			seen[p] = 1;
			if (cap == 0)
				continue;
			if (len == cap) {
				len--;
				r->evictions++;
		}
			memmove(list + 1, list, len * sizeof(*list));
			list[0] = p;
			len++;
			if (len > r->peak_resident)
				r->peak_resident = len;
		}
	}
	free(list);
	free(seen);
}

static void random_streams(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_lru.%d.vmr", (int)getpid());
	for (int round = 0; round < 60; round++) {
		rng_state = 0x9e3779b97f4a7c15ull * (round + 1);
		uint32_t ntasks = 1 + rnd(6), nr_pages = 1 + rnd(300);
		uint32_t cap = rnd(nr_pages + 20);
		struct fixture_task t[8];
		struct vmr_rec *recs[8];
		size_t total = 0;
		for (uint32_t k = 0; k < ntasks; k++) {
			uint32_t n = rnd(2000);
			recs[k] = calloc(n ? n : 1, sizeof(struct vmr_rec));
			for (uint32_t i = 0; i < n; i++) {
				unsigned op = rnd(20) == 0 ? VMR_OP_FREE : rnd(4);
				/* Small deltas make many equal timestamps across tasks:
				 * ties must go to the lower task index. */
				uint32_t delta = rnd(3) ? rnd(4) : 0;
				uint32_t run = 2 + rnd(7);
				if (rnd(200) == 0)
					recs[k][i] = (struct vmr_rec){ rnd(3), VMR_OP_DELAY | rnd(8) << VMR_DELTA_SHIFT };
				else if (rnd(8) == 0 && run <= nr_pages)
					recs[k][i] = fixture_run(rnd(nr_pages - run + 1), op, 0, run);
				else
					recs[k][i] = fixture_rec(rnd(nr_pages), op, 0, delta);
			}
			t[k] = (struct fixture_task){ rnd(10), recs[k], n };
			total += n;
		}
		assert_int_equal(fixture_vmr(path, t, ntasks, nr_pages, NULL, ""), 0);

		struct flat *f = calloc(total ? total : 1, sizeof(*f));
		size_t n = 0;
		for (uint32_t k = 0; k < ntasks; k++) {
			uint64_t ts = t[k].begin_ns;
			for (uint32_t i = 0; i < t[k].nr; i++) {
				struct vmr_rec r = recs[k][i];
				ts += vmr_rec_delta(r);
				f[n++] = (struct flat){ ts, k, i, r };
			}
		}
		qsort(f, n, sizeof(*f), cmp_flat);

		struct vmr v;
		char err[256];
		assert_int_equal(vmr_open(&v, path, err, sizeof(err)), 0);

		/* The merge yields exactly the sorted order. */
		struct merge m;
		assert_int_equal(merge_init(&m, &v), 0);
		const struct vmr_rec *run;
		uint64_t len;
		uint32_t task;
		size_t pos = 0;
		while (merge_take(&m, &run, &len, &task)) {
			assert_true(len >= 1);
			for (uint64_t i = 0; i < len; i++, pos++) {
				assert_true(pos < n);
				assert_int_equal(task, f[pos].task);
				assert_memory_equal(&run[i], &f[pos].r, sizeof(run[i]));
			}
		}
		assert_int_equal(pos, n);
		merge_free(&m);

		struct lru_result want, got;
		brute_lru(f, n, cap, nr_pages, &want);
		assert_int_equal(lru_replay(&v, cap, &got), 0);
		assert_memory_equal(&want, &got, sizeof(want));
		vmr_close(&v);
		free(f);
		for (uint32_t k = 0; k < ntasks; k++)
			free(recs[k]);
	}
	unlink(path);
}

/* A hand-worked sequence: capacity 2, accesses 1 2 1 3 2 (2 was evicted
 * by 3), then a free of 1 and an access of 1 (a miss, not a cold one). */
static void by_hand(void **state)
{
	(void)state;
	struct lru l;
	assert_int_equal(lru_init(&l, 4, 2), 0);
	uint32_t seq[] = { 1, 2, 1, 3, 2 };
	for (int i = 0; i < 5; i++)
		lru_access(&l, seq[i]);
	assert_int_equal(l.r.hits, 1);
	assert_int_equal(l.r.misses, 4);
	assert_int_equal(l.r.cold_misses, 3);
	assert_int_equal(l.r.evictions, 2);   /* 3 evicts 2, then 2 evicts 1 */
	lru_release(&l, 3);
	lru_access(&l, 1);
	assert_int_equal(l.r.frees, 1);
	assert_int_equal(l.r.misses, 5);
	assert_int_equal(l.r.cold_misses, 3);
	assert_int_equal(l.r.evictions, 2);   /* 1 took 3's freed place */
	lru_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(by_hand),
		cmocka_unit_test(random_streams),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
