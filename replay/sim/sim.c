/* sim.c — event queue and coroutines for the replay engine (see sim.h). */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define SIM_STACK_SIZE (256 * 1024)

/*
 * Context switching.  glibc's swapcontext saves and restores the signal
 * mask with a system call on every switch, which made it most of a
 * replay's time; on x86-64 a switch only has to save the callee-saved
 * registers and the FPU control words, so it is done here by hand.
 * Other architectures use ucontext.
 */
#if defined(__x86_64__)
void sim_ctx_switch(void **save_sp, void *new_sp);
__asm__(".text\n"
	".globl sim_ctx_switch\n"
	".type sim_ctx_switch,@function\n"
	"sim_ctx_switch:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	subq $8, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr (%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	addq $8, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size sim_ctx_switch, .-sim_ctx_switch\n"
	".section .note.GNU-stack,\"\",@progbits\n"
	".text\n");
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define ASAN_FIBERS 1
#endif

int sim_init(struct sim *s, uint32_t wake_kind)
{
	memset(s, 0, sizeof(*s));
	s->wake_kind = wake_kind;
	s->cap = 1024;
	s->heap = malloc(s->cap * sizeof(*s->heap));
	return s->heap ? 0 : -1;
}

void sim_free(struct sim *s)
{
	free(s->heap);
	memset(s, 0, sizeof(*s));
}

/*
 * The queue is a 4-ary min-heap on (time, seq): half the depth of a
 * binary heap, so a pop moves half as many events, and the four children
 * of a node share a cache line or two.  (time, seq) is compared as one
 * 128-bit number, without branches.  The pop order is the keys' order,
 * whatever the heap's shape: every key is unique (seq is).
 */
#define HEAP_D 4

static inline unsigned __int128 key_of(const struct sim_event *ev)
{
	return (unsigned __int128)ev->time << 64 | ev->seq;
}

/* The child of heap[a] and heap[b] that comes first. */
static inline uint32_t first_of(const struct sim_event *h, uint32_t a, uint32_t b)
{
	return key_of(&h[b]) < key_of(&h[a]) ? b : a;
}

/* Moves heap[i] down to its place among heap[0..nr). */
static void sift_down(struct sim *s, uint32_t i)
{
	struct sim_event *h = s->heap;
	struct sim_event ev = h[i];
	unsigned __int128 key = key_of(&ev);
	uint32_t nr = s->nr;
	for (;;) {
		uint32_t c = HEAP_D * i + 1, m;
		if (c + 3 < nr) {
			m = first_of(h, first_of(h, c, c + 1), first_of(h, c + 2, c + 3));
		} else if (c < nr) {
			m = c;
			for (uint32_t k = c + 1; k < nr; k++)
				m = first_of(h, m, k);
		} else {
			break;
		}
		if (key_of(&h[m]) >= key)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = ev;
}

static int is_stale(const struct sim *s, const struct sim_event *ev)
{
	const struct sim_thread *th = (const struct sim_thread *)(uintptr_t)ev->arg;
	return ev->kind == s->wake_kind && (uint32_t)th->wait_gen != ev->id;
}

/* Drops the timeouts that lost to a wake-up.  They would be popped and
 * ignored (sim_thread_resume), so nothing else changes; but many threads
 * waiting with long timeouts (a folio lock waits up to a second) can
 * fill the heap with them, and every pop pays for its depth. */
static void drop_stale(struct sim *s)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->nr; i++)
		if (!is_stale(s, &s->heap[i]))
			s->heap[n++] = s->heap[i];
	s->nr = n;
	for (uint32_t i = n > 1 ? (n - 2) / HEAP_D + 1 : 0; i-- > 0;)
		sift_down(s, i);
	s->stale = 0;
}

void sim_at(struct sim *s, simtime_t t, uint32_t kind, uint32_t id, uint64_t arg)
{
	if (t < s->now)
		t = s->now;
	if (s->stale > 256 && s->stale > s->nr / 2)
		drop_stale(s);
	if (s->nr == s->cap) {
		struct sim_event *h = realloc(s->heap, 2 * s->cap * sizeof(*h));
		if (!h) {
			s->failed = 1;
			return;
		}
		s->heap = h;
		s->cap *= 2;
	}
	struct sim_event ev = { t, s->seq++, kind, id, arg };
	unsigned __int128 key = key_of(&ev);
	uint32_t i = s->nr++;
	while (i > 0) {
		uint32_t parent = (i - 1) / HEAP_D;
		if (key >= key_of(&s->heap[parent]))
			break;
		s->heap[i] = s->heap[parent];
		i = parent;
	}
	s->heap[i] = ev;
}

int sim_next(struct sim *s, struct sim_event *ev)
{
	if (s->nr == 0)
		return 0;
	*ev = s->heap[0];
	s->heap[0] = s->heap[--s->nr];
	if (s->nr)
		sift_down(s, 0);
	s->now = ev->time;
	return 1;
}

/* ---- coroutines ---------------------------------------------------- */

static struct sim *tramp_sim;   /* the simulator whose thread is starting */

#ifdef ASAN_FIBERS
/* AddressSanitizer must be told about every stack switch. */
static const void *main_bottom;
static size_t main_size;
static void *main_fake;
#endif

/* The event loop hands the CPU to thread TH. */
static void enter(struct sim *s, struct sim_thread *th)
{
#ifdef ASAN_FIBERS
	__sanitizer_start_switch_fiber(&main_fake, th->stack, SIM_STACK_SIZE);
#endif
#if defined(__x86_64__)
	sim_ctx_switch(&s->main_sp, th->sp);
#else
	swapcontext(&s->main_ctx, &th->ctx);
#endif
#ifdef ASAN_FIBERS
	__sanitizer_finish_switch_fiber(main_fake, NULL, NULL);
#endif
}

/* Thread TH hands the CPU back to the event loop. */
static void leave(struct sim *s, struct sim_thread *th, int finishing)
{
#ifdef ASAN_FIBERS
	__sanitizer_start_switch_fiber(finishing ? NULL : &th->fake_stack, main_bottom, main_size);
#else
	(void)finishing;
#endif
#if defined(__x86_64__)
	sim_ctx_switch(&th->sp, s->main_sp);
#else
	swapcontext(&th->ctx, &s->main_ctx);
#endif
#ifdef ASAN_FIBERS
	__sanitizer_finish_switch_fiber(th->fake_stack, NULL, NULL);
#endif
}

static void trampoline(void)
{
	struct sim *s = tramp_sim;
	struct sim_thread *th = s->current;
#ifdef ASAN_FIBERS
	__sanitizer_finish_switch_fiber(NULL, &main_bottom, &main_size);
#endif
	th->fn(th->arg);
	th->running = 0;
	s->current = NULL;
	leave(s, th, 1);
}

int sim_thread_start(struct sim *s, struct sim_thread *th, void (*fn)(void *), void *arg)
{
	if (!th->stack && !(th->stack = malloc(SIM_STACK_SIZE)))
		return -1;
#if defined(__x86_64__)
	/* A stack that sim_ctx_switch "returns" from into trampoline():
	 * FPU control words, six callee-saved registers, the return address,
	 * and a zero where trampoline's own return address would be. */
	uint64_t *top = (uint64_t *)(((uintptr_t)th->stack + SIM_STACK_SIZE) & ~(uintptr_t)15);
	uint64_t *sp = top - 9;
	sp[0] = 0x1F80 | (uint64_t)0x037F << 32;   /* MXCSR, x87 control word */
	for (int i = 1; i <= 6; i++)
		sp[i] = 0;
	sp[7] = (uint64_t)(uintptr_t)trampoline;
	sp[8] = 0;
	th->sp = sp;
#else
	getcontext(&th->ctx);
	th->ctx.uc_stack.ss_sp = th->stack;
	th->ctx.uc_stack.ss_size = SIM_STACK_SIZE;
	th->ctx.uc_link = NULL;
	makecontext(&th->ctx, trampoline, 0);
#endif
	th->fn = fn;
	th->arg = arg;
	th->running = 1;
	tramp_sim = s;
	s->current = th;
	enter(s, th);
	return 0;
}

void sim_thread_resume(struct sim *s, struct sim_thread *th, uint64_t gen)
{
	if ((uint32_t)th->wait_gen != (uint32_t)gen) {
		if (s->stale)
			s->stale--;     /* a timeout that lost to a wake-up */
		return;
	}
	if (!th->running)
		return;
	s->current = th;
	enter(s, th);
}

void sim_thread_free(struct sim_thread *th)
{
	free(th->stack);
	th->stack = NULL;
}

/* Parks the current thread until a wake event of its current generation. */
static void park(struct sim *s)
{
	struct sim_thread *th = s->current;
	s->current = NULL;
	leave(s, th, 0);
}

void sim_sleep(struct sim *s, simtime_t delay)
{
	struct sim_thread *th = s->current;
	th->wait_gen++;
	sim_at(s, s->now + delay, s->wake_kind, (uint32_t)th->wait_gen, (uint64_t)(uintptr_t)th);
	park(s);
}

int sim_wait(struct sim *s, struct sim_waitq *q, simtime_t timeout)
{
	struct sim_thread *th = s->current;
	th->wq = q;
	th->wq_prev = q->tail;
	th->wq_next = NULL;
	if (q->tail)
		q->tail->wq_next = th;
	else
		q->head = th;
	q->tail = th;
	q->nr++;
	th->woken = 0;
	th->wait_gen++;
	sim_at(s, s->now + timeout, s->wake_kind, (uint32_t)th->wait_gen, (uint64_t)(uintptr_t)th);
	park(s);
	/* Timed out: leave the queue (a wake-up empties it itself). */
	if (th->wq) {
		if (th->wq_prev)
			th->wq_prev->wq_next = th->wq_next;
		else
			q->head = th->wq_next;
		if (th->wq_next)
			th->wq_next->wq_prev = th->wq_prev;
		else
			q->tail = th->wq_prev;
		q->nr--;
		th->wq = NULL;
	}
	return th->woken;
}

void sim_wake_all(struct sim *s, struct sim_waitq *q)
{
	/* Most wake-ups find nobody (every fault wakes its folio's lock
	 * queue): no store then, so the queue's line stays clean. */
	if (!q->head)
		return;
	for (struct sim_thread *th = q->head; th; th = th->wq_next) {
		th->woken = 1;
		th->wq = NULL;
		th->wait_gen++;   /* the pending timeout becomes stale */
		sim_at(s, s->now, s->wake_kind, (uint32_t)th->wait_gen, (uint64_t)(uintptr_t)th);
	}
	s->stale += q->nr;         /* each one's timeout is still queued */
	q->head = q->tail = NULL;
	q->nr = 0;
}

void sim_waitq_free(struct sim_waitq *q)
{
	memset(q, 0, sizeof(*q));
}
