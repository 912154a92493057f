/*
 * spsc.h — a single-producer, single-consumer ring of fixed-size items.
 *
 * Ingest decodes on one thread and gives pages their ids on another; the
 * ring between them carries one item per range event.  Both sides keep
 * their index private and publish it only every SPSC_BATCH items (or when
 * told to), so the two cores do not fight over one cache line per item.
 *
 * A consumer that has run out of work spins a little, then sleeps on a
 * futex instead of yielding in a loop: the decoder is the slower side, so
 * a spinning consumer took a core from it (and from everything else on a
 * shared machine) most of the time.  The producer wakes it once
 * SPSC_WAKE items wait, or at once when it must (the ring is full, a
 * drain, the stop).
 */
#ifndef SPSC_H
#define SPSC_H

#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SPSC_BATCH 64
#define SPSC_WAKE  4096

struct spsc {
	unsigned char *buf;
	size_t item, mask;                 /* item size; capacity - 1 */
	/* Producer side: a line of its own, as the head moves with every
	 * item and the consumer reads the fields above for every item. */
	uint64_t head __attribute__((aligned(64)));
	uint64_t tail_seen;
	/* Shared: each written by one side, read by the other. */
	uint64_t pub_head __attribute__((aligned(64)));
	uint64_t pub_tail __attribute__((aligned(64)));
	int stop;
	uint32_t sleeping, wake;           /* the consumer waits on WAKE */
	/* Consumer side. */
	uint64_t tail __attribute__((aligned(64)));
	uint64_t head_seen;
};

static inline int spsc_init(struct spsc *q, size_t item, size_t capacity_pow2)
{
	memset(q, 0, sizeof(*q));
	q->item = item;
	q->mask = capacity_pow2 - 1;
	q->buf = malloc(item * capacity_pow2);
	return q->buf ? 0 : -1;
}

static inline void spsc_free(struct spsc *q)
{
	free(q->buf);
	q->buf = NULL;
}

static inline void spsc_relax(unsigned *spins)
{
	if (++*spins < 256) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	} else {
		sched_yield();
	}
}

static inline void spsc_wake(struct spsc *q)
{
	__atomic_add_fetch(&q->wake, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &q->wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Producer: makes every pushed item visible to the consumer, and wakes a
 * sleeping consumer when items wait: any, when FORCE, else SPSC_WAKE.
 * The store and the load of SLEEPING are both sequentially consistent,
 * as are the consumer's store of it and its load of PUB_HEAD: either it
 * sees the items or this sees it asleep.  (A sleeping consumer has
 * published its tail.) */
static inline void spsc_publish_wake(struct spsc *q, int force)
{
	__atomic_store_n(&q->pub_head, q->head, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->sleeping, __ATOMIC_SEQ_CST)) {
		uint64_t waiting = q->head - __atomic_load_n(&q->pub_tail, __ATOMIC_ACQUIRE);
		if (waiting && (force || waiting >= SPSC_WAKE))
			spsc_wake(q);
	}
}

static inline void spsc_publish(struct spsc *q)
{
	spsc_publish_wake(q, 0);
}

/* Producer: a slot for the next item (waits while the ring is full). */
static inline void *spsc_slot(struct spsc *q)
{
	unsigned spins = 0;
	while (q->head - q->tail_seen > q->mask) {
		spsc_publish_wake(q, 1);
		q->tail_seen = __atomic_load_n(&q->pub_tail, __ATOMIC_ACQUIRE);
		if (q->head - q->tail_seen > q->mask)
			spsc_relax(&spins);
	}
	return q->buf + (q->head & q->mask) * q->item;
}

static inline void spsc_push(struct spsc *q)
{
	if ((++q->head & (SPSC_BATCH - 1)) == 0)
		spsc_publish(q);
}

/* Producer: waits until the consumer has finished every item. */
static inline void spsc_drain(struct spsc *q)
{
	unsigned spins = 0;
	spsc_publish_wake(q, 1);
	while (__atomic_load_n(&q->pub_tail, __ATOMIC_ACQUIRE) != q->head)
		spsc_relax(&spins);
	q->tail_seen = q->head;
}

/* Consumer: the next item, or NULL once the producer has stopped and
 * everything is done.  Call spsc_done after using the item. */
static inline void *spsc_next(struct spsc *q)
{
	unsigned spins = 0;
	while (q->tail == q->head_seen) {
		/* Out of work: say so, then look for more. */
		__atomic_store_n(&q->pub_tail, q->tail, __ATOMIC_RELEASE);
		q->head_seen = __atomic_load_n(&q->pub_head, __ATOMIC_ACQUIRE);
		if (q->tail != q->head_seen)
			break;
		if (__atomic_load_n(&q->stop, __ATOMIC_ACQUIRE)) {
			q->head_seen = __atomic_load_n(&q->pub_head, __ATOMIC_ACQUIRE);
			if (q->tail == q->head_seen)
				return NULL;
			break;
		}
		/* A few pauses only: the producer publishes every SPSC_BATCH
		 * items, a batch takes it far longer to decode than a spin. */
		if (++spins < 8) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
			continue;
		}
		/* Asleep until the producer has work for us or stops. */
		uint32_t w = __atomic_load_n(&q->wake, __ATOMIC_SEQ_CST);
		__atomic_store_n(&q->sleeping, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&q->pub_head, __ATOMIC_SEQ_CST) == q->tail &&
		    !__atomic_load_n(&q->stop, __ATOMIC_SEQ_CST))
			syscall(SYS_futex, &q->wake, FUTEX_WAIT_PRIVATE, w, NULL, NULL, 0);
		__atomic_store_n(&q->sleeping, 0, __ATOMIC_SEQ_CST);
		spins = 0;
	}
	return q->buf + (q->tail & q->mask) * q->item;
}

/* Consumer: the item K after the one spsc_next returned, if the producer
 * has published it already, else NULL: a look ahead, to start loading
 * what that item will need. */
static inline const void *spsc_peek(const struct spsc *q, uint64_t k)
{
	if (q->tail + k >= q->head_seen)
		return NULL;
	return q->buf + ((q->tail + k) & q->mask) * q->item;
}

static inline void spsc_done(struct spsc *q)
{
	if ((++q->tail & (SPSC_BATCH - 1)) == 0)
		__atomic_store_n(&q->pub_tail, q->tail, __ATOMIC_RELEASE);
}

/* Producer: no more items; the consumer ends after the last one. */
static inline void spsc_stop(struct spsc *q)
{
	__atomic_store_n(&q->pub_head, q->head, __ATOMIC_SEQ_CST);
	__atomic_store_n(&q->stop, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->sleeping, __ATOMIC_SEQ_CST))
		spsc_wake(q);
}

#endif
