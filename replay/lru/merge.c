/* merge.c — k-way merge of per-task record streams by recorded time. */
#include "merge.h"

#include <stdlib.h>

static uint64_t rec_time(uint64_t prev, struct vmr_rec r)
{
	return prev + vmr_rec_delta(r);
}

static int before(const struct merge_cursor *a, const struct merge_cursor *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->task < b->task);
}

static void sift_down(struct merge *m, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, min = i;
		if (l < m->nr && before(&m->cur[m->heap[l]], &m->cur[m->heap[min]]))
			min = l;
		if (r < m->nr && before(&m->cur[m->heap[r]], &m->cur[m->heap[min]]))
			min = r;
		if (min == i)
			return;
		uint32_t t = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = t;
		i = min;
	}
}

int merge_init(struct merge *m, const struct vmr *v)
{
	uint64_t n = v->hdr->nr_tasks;
	m->cur = calloc(n ? n : 1, sizeof(*m->cur));
	m->heap = calloc(n ? n : 1, sizeof(*m->heap));
	m->nr = 0;
	if (!m->cur || !m->heap) {
		merge_free(m);
		return -1;
	}
	for (uint64_t t = 0; t < n; t++) {
		const struct vmr_task *task = &v->tasks[t];
		struct merge_cursor *c = &m->cur[t];
		c->p = v->recs + task->first_rec;
		c->end = c->p + task->nr_recs;
		c->task = (uint32_t)t;
		if (c->p == c->end)
			continue;
		c->ts = rec_time(task->begin_ns, *c->p);
		m->heap[m->nr++] = (uint32_t)t;
	}
	for (uint32_t i = m->nr / 2; i-- > 0;)
		sift_down(m, i);
	return 0;
}

void merge_free(struct merge *m)
{
	free(m->cur);
	free(m->heap);
	m->cur = NULL;
	m->heap = NULL;
	m->nr = 0;
}

int merge_take(struct merge *m, const struct vmr_rec **recs, uint64_t *n, uint32_t *task)
{
	if (m->nr == 0)
		return 0;
	struct merge_cursor *c = &m->cur[m->heap[0]];
	/* The runner-up: the earlier of the root's two children. */
	const struct merge_cursor *next = NULL;
	if (m->nr > 1)
		next = &m->cur[m->heap[1]];
	if (m->nr > 2 && before(&m->cur[m->heap[2]], next))
		next = &m->cur[m->heap[2]];
	*recs = c->p;
	*task = c->task;
	const struct vmr_rec *p = c->p + 1;
	uint64_t ts = c->ts;
	for (; p < c->end; p++) {
		uint64_t t2 = rec_time(ts, *p);
		struct merge_cursor probe = { .ts = t2, .task = c->task };
		if (next && !before(&probe, next)) {
			ts = t2;
			break;
		}
		ts = t2;
	}
	*n = (uint64_t)(p - c->p);
	c->p = p;
	if (p == c->end) {
		m->heap[0] = m->heap[--m->nr];
	} else {
		c->ts = ts;
	}
	sift_down(m, 0);
	return 1;
}
