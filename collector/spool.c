#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spool.h"

#define HDR ((uint64_t)sizeof(struct spool_entry))
#define MIN_CAP (64u * 1024)
/* The resident part grows by this much at a time (a multiple of pages). */
#define GROW_STEP (1u << 20)

static uint64_t align8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

/* Sleeps while *word is still seen (a wake or a change ends it). */
static void futex_wait(uint32_t *word, uint32_t seen)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * Moves *pos (this side's own position) to to, then wakes the other
 * side if it sleeps.  The other side reads moves before it looks at pos
 * and sleeps only while moves is unchanged, so a move it did not see
 * makes its futex_wait return at once: no wake is lost.
 */
static void move_and_wake(uint64_t *pos, uint64_t to, uint32_t *moves,
			  const uint32_t *sleeps)
{
	__atomic_store_n(pos, to, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(moves, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(sleeps, __ATOMIC_SEQ_CST))
		futex_wake(moves);
}

/* The other side's position. */
static uint64_t other(const uint64_t *pos)
{
	return __atomic_load_n(pos, __ATOMIC_ACQUIRE);
}

/* Sleeps until *moves changes, unless ready() already holds: the other
 * side's half of move_and_wake. */
static void sleep_unless(struct spool *s, int (*ready)(struct spool *),
			 uint32_t *moves, uint32_t *sleeps)
{
	uint32_t seen = __atomic_load_n(moves, __ATOMIC_SEQ_CST);

	__atomic_store_n(sleeps, 1, __ATOMIC_SEQ_CST);
	if (!ready(s))
		futex_wait(moves, seen);
	__atomic_store_n(sleeps, 0, __ATOMIC_SEQ_CST);
}

/*
 * Makes [s->active, to) of the buffer resident, to rounded up to a
 * GROW_STEP and capped at cap.  One madvise for a whole step: the kernel
 * populates it in one call instead of one fault per page in the drain
 * thread (on the 2-core VM, 64 MiB touched page by page took 206-268 ms
 * of faults, MAP_POPULATE 14-18 ms for all of it).  A kernel without
 * MADV_POPULATE_WRITE (before 5.14) gets the pages touched instead.
 * Producer.
 */
static void grow_active(struct spool *s, uint64_t to)
{
	uint64_t from = s->active;

	to = (to + GROW_STEP - 1) / GROW_STEP * GROW_STEP;
	if (to > s->cap)
		to = s->cap;
	if (to <= from)
		return;
	if (madvise(s->buf + from, to - from, MADV_POPULATE_WRITE) != 0) {
		long page = sysconf(_SC_PAGESIZE);

		for (uint64_t off = from; off < to; off += (uint64_t)page)
			((volatile uint8_t *)s->buf)[off] = 0;
	}
	s->active = to;
}

int spool_init(struct spool *s, size_t cap)
{
	void *m;

	memset(s, 0, sizeof(*s));
	cap &= ~(size_t)7;
	if (cap < MIN_CAP)
		cap = MIN_CAP;
	/*
	 * Reserved, not resident: the producer uses the first `active`
	 * bytes and grows them only when the consumer falls behind by more
	 * (grow_active), so a recorder whose engine keeps up holds a few
	 * MiB of its spool, not all of it.
	 */
	m = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	/* Not in the command faultline forks: a fork would leave every page
	 * write-protected here (copy on write), and each first write after
	 * it a fault in the drain thread again, one per 4 KiB: a switch
	 * storm recorded with a command took 11,000 of them in the drain
	 * thread (206 ms of its CPU against 55 ms without), and lost
	 * records under load while it did. */
	madvise(m, cap, MADV_DONTFORK);
	s->buf = m;
	s->cap = cap;
	grow_active(s, GROW_STEP);
	return 0;
}

void spool_release(struct spool *s)
{
	if (!s->buf)
		return;
	munmap(s->buf, s->cap);
	memset(s, 0, sizeof(*s));
}

/*
 * Where an entry of `need` bytes (header included) can go, as a byte
 * position: at head, or after a pad at the buffer's start when the
 * resident part has too little contiguous room left; failing both, at
 * head after growing the resident part.  UINT64_MAX when nothing has
 * room.  *avail: the contiguous bytes at that position.  Producer.
 *
 * Invariant: head's offset is never past `active`, and everything past
 * `active` is unwritten; so a wrap before `active` leaves the rest of the
 * buffer to a pad, which the consumer skips as it skips any pad.
 */
static uint64_t place(struct spool *s, uint64_t need, uint64_t *avail)
{
	uint64_t used = s->head - other(&s->tail), free_bytes = s->cap - used;
	uint64_t off = s->head % s->cap, to_end = s->cap - off;
	uint64_t at_start = free_bytes > to_end ? free_bytes - to_end : 0;
	uint64_t to_active = s->active > off ? s->active - off : 0;
	int can_grow = s->active < s->cap && to_end >= need;

	if (free_bytes < to_end) {	/* free space ends before the buffer's end */
		*avail = free_bytes;
		return free_bytes >= need ? s->head : UINT64_MAX;
	}
	if (to_active >= need) {
		*avail = to_active;
		return s->head;
	}
	/* Wrap to the start while the consumer is close behind (half the
	 * resident part free there); further behind, grow instead, so a
	 * burst after the wrap has room before the consumer passes the pad. */
	if (at_start >= need && (!can_grow || at_start >= s->active / 2)) {
		*avail = at_start;
		return s->head + to_end;
	}
	if (!can_grow)
		return UINT64_MAX;
	grow_active(s, off + need);
	*avail = s->active - off;
	return s->head;
}

/* Writes a pad from head to pos when pos skips the buffer's end.  The
 * consumer wraps by itself when fewer than HDR bytes are left. */
static void pad_to(struct spool *s, uint64_t pos)
{
	uint64_t off = s->head % s->cap;

	if (pos != s->head && s->cap - off >= HDR) {
		struct spool_entry *p = (void *)(s->buf + off);

		memset(p, 0, sizeof(*p));
		p->kind = SPOOL_PAD;
	}
	if (pos != s->head) {
		s->pad_at = s->head;
		s->pad_len = pos - s->head;
	}
}

/* Publishes what the producer wrote up to head_to. */
static void publish(struct spool *s, uint64_t head_to)
{
	uint64_t tail = other(&s->tail), used = head_to - tail;

	/* The skipped end of the buffer holds nothing: not in use.  At most
	 * one pad lies between tail and head (they are at most cap apart). */
	if (tail <= s->pad_at && head_to > s->pad_at)
		used -= s->pad_len;
	if (used > s->peak)
		s->peak = used;
	move_and_wake(&s->head, head_to, &s->head_moves, &s->consumer_sleeps);
}

/* Puts one control entry in, if there is room.  Producer. */
static int put_control(struct spool *s, const struct spool_entry *e)
{
	uint64_t avail, pos = place(s, HDR, &avail);

	if (pos == UINT64_MAX)
		return -ENOSPC;
	pad_to(s, pos);
	memcpy(s->buf + pos % s->cap, e, sizeof(*e));
	publish(s, pos + HDR);
	return 0;
}

/* Moves waiting control entries in, oldest first.  Producer.  Returns 1
 * when none is left waiting. */
static int flush_pending(struct spool *s)
{
	size_t done = 0;

	while (done < s->npending && put_control(s, &s->pending[done]) == 0)
		done++;
	memmove(s->pending, s->pending + done,
		(s->npending - done) * sizeof(s->pending[0]));
	s->npending -= done;
	return s->npending == 0;
}

/* Queues e behind the waiting ones.  A newer round replaces a waiting
 * round (watermarks only grow); a loss merges with one of its CPU; with
 * no slot left an anchor is dropped: the map then converts with the
 * anchors around it.  Producer. */
static void queue_pending(struct spool *s, const struct spool_entry *e)
{
	for (size_t i = 0; i < s->npending; i++) {
		struct spool_entry *p = &s->pending[i];

		if (e->kind == SPOOL_ROUND && p->kind == SPOOL_ROUND &&
		    i + 1 == s->npending) {
			*p = *e;
			return;
		}
		if (e->kind == SPOOL_LOST && p->kind == SPOOL_LOST &&
		    p->u.lost.cpu == e->u.lost.cpu) {
			p->u.lost.records += e->u.lost.records;
			p->u.lost.bytes += e->u.lost.bytes;
			p->u.lost.mono_ns = e->u.lost.mono_ns;
			return;
		}
	}
	if (s->npending < SPOOL_PENDING_MAX)
		s->pending[s->npending++] = *e;
	else if (e->kind == SPOOL_END)
		s->pending[s->npending - 1] = *e;	/* END must go in */
}

void spool_push(struct spool *s, const struct spool_entry *e)
{
	if (!flush_pending(s) || put_control(s, e) < 0)
		queue_pending(s, e);
}

int spool_has_spare(const struct spool *s)
{
	return s->active < s->cap;
}

int spool_flushed(struct spool *s)
{
	return flush_pending(s);
}

void spool_wait_flushed(struct spool *s)
{
	while (!flush_pending(s))
		sleep_unless(s, flush_pending, &s->tail_moves, &s->producer_sleeps);
}

void spool_drop(struct spool *s, int cpu, uint64_t records, uint64_t bytes,
		uint64_t mono_ns)
{
	struct spool_entry e;

	memset(&e, 0, sizeof(e));
	e.kind = SPOOL_LOST;
	e.u.lost.cpu = (uint32_t)cpu;
	e.u.lost.records = records;
	e.u.lost.bytes = bytes;
	e.u.lost.mono_ns = mono_ns;
	s->dropped_records += records;
	s->dropped_bytes += bytes;
	spool_push(s, &e);
}

void *spool_data_begin(struct spool *s, size_t want, size_t *room)
{
	uint64_t avail = 0, pos = UINT64_MAX;

	/* Waiting control entries go first; data never overtakes them. */
	if (flush_pending(s)) {
		pos = place(s, HDR + align8(want), &avail);
		if (pos == UINT64_MAX)	/* not all of it: what does fit */
			pos = place(s, HDR + 8, &avail);
	}
	if (pos == UINT64_MAX) {
		*room = 0;
		return NULL;
	}
	s->pending_head = pos;
	*room = (size_t)(avail - HDR) & ~(size_t)7;
	return s->buf + pos % s->cap + HDR;
}

void spool_data_end(struct spool *s, int cpu, size_t n)
{
	uint64_t pos = s->pending_head;
	struct spool_entry *e = (void *)(s->buf + pos % s->cap);

	memset(e, 0, sizeof(*e));
	e->kind = SPOOL_DATA;
	e->cpu = (uint32_t)cpu;
	e->len = n;
	pad_to(s, pos);
	publish(s, pos + HDR + align8(n));
}

/* Has the producer published anything not yet taken?  Consumer. */
static int spool_has_more(struct spool *s)
{
	return other(&s->head) != s->tail;
}

const struct spool_entry *spool_next(struct spool *s, int wait)
{
	const struct spool_entry *e = NULL;

	for (;;) {
		uint64_t off = s->tail % s->cap;

		if (!spool_has_more(s)) {
			if (!wait)
				break;
			sleep_unless(s, spool_has_more, &s->head_moves,
				     &s->consumer_sleeps);
			continue;
		}
		/* Too little left for a header, or a pad: the rest of the
		 * buffer is unused, go on at its start. */
		if (s->cap - off < HDR ||
		    ((const struct spool_entry *)(s->buf + off))->kind == SPOOL_PAD) {
			move_and_wake(&s->tail, s->tail + s->cap - off,
				      &s->tail_moves, &s->producer_sleeps);
			continue;
		}
		e = (const void *)(s->buf + off);
		s->next_tail = s->tail + HDR +
			       (e->kind == SPOOL_DATA ? align8(e->len) : 0);
		break;
	}
	return e;
}

const void *spool_data(const struct spool_entry *e)
{
	return e + 1;
}

void spool_done(struct spool *s)
{
	move_and_wake(&s->tail, s->next_tail, &s->tail_moves,
		      &s->producer_sleeps);
}

uint64_t spool_used(struct spool *s)
{
	uint64_t tail = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&s->head, __ATOMIC_ACQUIRE) - tail;
}
