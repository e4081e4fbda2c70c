#include <errno.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spool.h"

#define HDR ((uint64_t)sizeof(struct spool_entry))
#define MIN_CAP (64u * 1024)

/*
 * Residency, the producer's alone: the buffer is made resident a step at
 * a time as the producer first writes there, and steps wholly in the
 * free space (read by the consumer, not yet written again) are given
 * back while more than RESIDENT_BUDGET steps are resident, those at
 * least KEEP_AHEAD bytes ahead of head, so the next writes find theirs.
 * The consumer reads only between tail and head, which the producer
 * wrote and never gives back, so neither side waits for the other.
 *
 * Going round the whole buffer this way made a step resident and gave
 * one back for every MiB that went through (10% of the recorder's CPU on
 * a server switching 70,000 times a second, 18% of the armed flight
 * recorder's on the fault loop).  So while the consumer keeps up, the
 * producer stays at the buffer's start: each time it finds the spool
 * empty, it moves both positions to the next lap's start (rewind), and
 * the steps there stay resident.  Only a spool that holds something goes
 * round, as far as the consumer lags.  (Going back early with a pad over
 * the end was tried first: a consumer that then stalled left the
 * producer only the start until it passed the pad, and a switch storm
 * lost 470,000 records with the spool holding 2.9 MB.  A rewind skips no
 * byte the consumer has yet to pass: the whole buffer stays free.)
 */
#define STEP (1ull << 20)
#define RESIDENT_BUDGET 2
#define KEEP_AHEAD STEP

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

int spool_init(struct spool *s, size_t cap)
{
	void *m;

	memset(s, 0, sizeof(*s));
	spill_file_none(&s->spill);
	cap &= ~(size_t)7;
	if (cap < MIN_CAP)
		cap = MIN_CAP;
	m = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	s->nsteps = (cap + STEP - 1) / STEP;
	s->resident = calloc(s->nsteps, 1);
	if (!s->resident) {
		munmap(m, cap);
		return -ENOMEM;
	}
	/* Not in the command faultline forks: a fork would leave every page
	 * write-protected here (copy on write), and each first write after
	 * it a fault in the drain thread again, one per 4 KiB: a switch
	 * storm recorded with a command took 11,000 of them in the drain
	 * thread (206 ms of its CPU against 55 ms without), and lost
	 * records under load while it did. */
	madvise(m, cap, MADV_DONTFORK);
	s->buf = m;
	s->cap = cap;
	return 0;
}

static uint64_t step_len(const struct spool *s, size_t k)
{
	uint64_t end = (k + 1) * STEP;

	return (end < s->cap ? end : s->cap) - k * STEP;
}

/*
 * Makes the steps under [off, off + n) resident before the producer
 * writes there: one madvise a step, where page-by-page first writes cost
 * the drain thread a fault each (64 MiB took 206-268 ms that way on the
 * 2-core VM, against 14-18 ms populated at once).  A kernel without
 * MADV_POPULATE_WRITE (before 5.14) takes the faults.
 */
static void make_resident(struct spool *s, uint64_t off, uint64_t n)
{
	size_t k = off / STEP, last = (off + (n ? n : 1) - 1) / STEP;

	for (; k <= last && k < s->nsteps; k++) {
		if (s->resident[k])
			continue;
		madvise(s->buf + k * STEP, step_len(s, k), MADV_POPULATE_WRITE);
		s->resident[k] = 1;
		s->nresident++;
		s->populated++;
	}
}

/* Gives back resident steps wholly in the free space and at least
 * KEEP_AHEAD past head, while more than RESIDENT_BUDGET are resident. */
static void give_back(struct spool *s)
{
	uint64_t used = s->head - __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
	uint64_t free_bytes = s->cap - used, off = s->head % s->cap;

	for (size_t k = 0; k < s->nsteps && s->nresident > RESIDENT_BUDGET; k++) {
		uint64_t ahead = (k * STEP + s->cap - off) % s->cap;

		if (!s->resident[k] || ahead < KEEP_AHEAD ||
		    ahead + step_len(s, k) > free_bytes)
			continue;
		madvise(s->buf + k * STEP, step_len(s, k), MADV_DONTNEED);
		s->resident[k] = 0;
		s->nresident--;
	}
}

void spool_release(struct spool *s)
{
	if (!s->buf)
		return;
	munmap(s->buf, s->cap);
	free(s->resident);
	free(s->stage);
	free(s->readback);
	spill_file_close(&s->spill);
	memset(s, 0, sizeof(*s));
	spill_file_none(&s->spill);
}

int spool_spill_to(struct spool *s, const char *dir, uint64_t cap)
{
	return spill_file_open(&s->spill, dir, cap);
}

/* buf grown to hold n bytes (*cap says how many it holds), or NULL with
 * buf left as it was. */
static void *grow(void *buf, size_t *cap, size_t n)
{
	void *p;

	if (n <= *cap)
		return buf;
	p = realloc(buf, n);
	if (p)
		*cap = n;
	return p;
}

/* The whole records in n bytes of them, as far as their headers make
 * sense (the kernel pads each to 8 bytes). */
static uint64_t count_records(const uint8_t *p, size_t n)
{
	struct perf_event_header h;
	uint64_t records = 0;

	for (size_t off = 0; off + sizeof(h) <= n; off += h.size, records++) {
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8)
			break;
	}
	return records;
}

/*
 * An empty spool starts again at the buffer's start, whose steps are
 * still resident (see Residency): tail first, and only from head, so a
 * consumer that took an entry meanwhile keeps it; then head.  Until head
 * follows, tail is ahead of it, which the consumer takes for empty
 * (consumer_pos).  Producer.
 */
static void rewind_when_empty(struct spool *s)
{
	uint64_t off = s->head % s->cap, from = s->head, to;

	if (off == 0)
		return;
	to = s->head - off + s->cap;
	if (__atomic_compare_exchange_n(&s->tail, &from, to, 0,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		__atomic_store_n(&s->head, to, __ATOMIC_SEQ_CST);
}

/*
 * Where an entry of `need` bytes (header included) can go, as a byte
 * position: at head, or after a pad at the buffer's start when the end
 * has too little contiguous room.  UINT64_MAX when neither has room.
 * *avail: the contiguous bytes at that position.  Producer.
 */
static uint64_t place(struct spool *s, uint64_t need, uint64_t *avail)
{
	uint64_t used, free_bytes, off, to_end, at_start;

	rewind_when_empty(s);
	used = s->head - other(&s->tail);
	free_bytes = s->cap - used;
	off = s->head % s->cap;
	to_end = s->cap - off;
	at_start = free_bytes > to_end ? free_bytes - to_end : 0;

	if (to_end >= need && to_end <= free_bytes) {
		*avail = to_end;
		return s->head;
	}
	if (free_bytes < to_end) {	/* free space ends before the buffer's end */
		*avail = free_bytes;
		return free_bytes >= need ? s->head : UINT64_MAX;
	}
	/* Skip what is left at the end: the start has the rest. */
	*avail = at_start;
	return at_start >= need ? s->head + to_end : UINT64_MAX;
}

/* Writes a pad from head to pos when pos skips the buffer's end.  The
 * consumer wraps by itself when fewer than HDR bytes are left. */
static void pad_to(struct spool *s, uint64_t pos)
{
	uint64_t off = s->head % s->cap;

	if (pos != s->head) {
		s->pad_from = s->head;
		s->pad_to = pos;
	}
	if (pos != s->head && s->cap - off >= HDR) {
		struct spool_entry *p = (void *)(s->buf + off);

		make_resident(s, off, HDR);
		memset(p, 0, sizeof(*p));
		p->kind = SPOOL_PAD;
	}
}

/* The bytes between tail and head_to that hold entries: the skipped end
 * of the buffer (the latest pad) is no record.  Producer. */
static uint64_t used_by_entries(const struct spool *s, uint64_t head_to)
{
	uint64_t tail = other(&s->tail), skipped = 0;

	if (tail < s->pad_to && s->pad_to <= head_to)
		skipped = s->pad_to - (tail > s->pad_from ? tail : s->pad_from);
	return head_to - tail - skipped;
}

/* Publishes what the producer wrote up to head_to. */
static void publish(struct spool *s, uint64_t head_to)
{
	uint64_t used = used_by_entries(s, head_to), from = s->head;

	if (used > s->peak)
		s->peak = used;
	move_and_wake(&s->head, head_to, &s->head_moves, &s->consumer_sleeps);
	if (from / STEP != head_to / STEP)	/* into a new step */
		give_back(s);
}

/* Puts one control entry in, if there is room.  Producer. */
static int put_control(struct spool *s, const struct spool_entry *e)
{
	uint64_t avail, pos = place(s, HDR, &avail);

	if (pos == UINT64_MAX)
		return -ENOSPC;
	pad_to(s, pos);
	make_resident(s, pos % s->cap, HDR);
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
	e.u.lost.first_mono_ns = e.u.lost.mono_ns = mono_ns;
	s->dropped_records += records;
	s->dropped_bytes += bytes;
	spool_push(s, &e);
}

/*
 * With a spill file, data goes there once the buffer's free space is down
 * to an eighth, and goes on going there until the consumer has read the
 * file back: the buffer's room is kept for the headers that stand for
 * the data (one per ring per round) and for control entries, which would
 * otherwise wait for the consumer and hold back all data, spilled or
 * not, behind them.  Producer.
 */
static int spill_first(struct spool *s, size_t want)
{
	uint64_t used;

	if (s->spill.fd < 0)
		return 0;
	if (s->spill.written != __atomic_load_n(&s->spill.read, __ATOMIC_ACQUIRE))
		return 1;
	used = s->head - other(&s->tail);
	if (used > s->cap)	/* a rewind half done: empty */
		return 0;
	return s->cap - used < HDR + align8(want) + s->cap / 8;
}

/*
 * The place for want bytes bound for the spill file, when the buffer has
 * room for the header that stands for them and the file for the bytes:
 * the stage, written out by spool_data_end.  NULL otherwise.  Producer.
 */
static void *spill_begin(struct spool *s, size_t want, size_t *room)
{
	uint64_t avail, pos, n = align8(want);
	uint8_t *stage;

	/* A step more than wanted, as in the buffer: records the ring gains
	 * before they are moved would otherwise be dropped. */
	if (!spill_file_has_room(&s->spill, n) ||
	    (pos = place(s, HDR, &avail)) == UINT64_MAX ||
	    !(stage = grow(s->stage, &s->stage_cap, n + STEP)))
		return NULL;
	s->stage = stage;
	make_resident(s, pos % s->cap, HDR);
	s->pending_head = pos;
	s->staged = 1;
	*room = s->stage_cap;
	return s->stage;
}

/* Appends the staged records to the spill file and publishes the header
 * that stands for them; a failed append drops them, counted.  Producer. */
static void spill_end(struct spool *s, int cpu, size_t n)
{
	uint64_t pos = s->pending_head, records = count_records(s->stage, n);
	int64_t off = spill_file_append(&s->spill, s->stage, align8(n));
	struct spool_entry *e = (void *)(s->buf + pos % s->cap);

	s->staged = 0;
	if (off < 0) {
		spool_drop(s, cpu, records, n, monotonic_ns());
		return;
	}
	memset(e, 0, sizeof(*e));
	e->kind = SPOOL_SPILLED;
	e->cpu = (uint32_t)cpu;
	e->len = n;
	e->u.spilled.off = (uint64_t)off;
	e->u.spilled.records = records;
	pad_to(s, pos);
	publish(s, pos + HDR);
}

void *spool_data_begin(struct spool *s, size_t want, size_t *room)
{
	uint64_t avail = 0, pos = UINT64_MAX;
	void *dst;

	s->staged = 0;
	/* Waiting control entries go first; data never overtakes them. */
	if (flush_pending(s)) {
		if (!spill_first(s, want))
			pos = place(s, HDR + align8(want), &avail);
		if (pos == UINT64_MAX && (dst = spill_begin(s, want, room)))
			return dst;
		if (pos == UINT64_MAX)	/* not all of it: what does fit */
			pos = place(s, HDR + 8, &avail);
	}
	if (pos == UINT64_MAX) {
		*room = 0;
		return NULL;
	}
	/* Resident for what is wanted and a step more: the ring may have
	 * gained records by the time they are moved (a page past that is
	 * made resident by its first write). */
	make_resident(s, pos % s->cap, avail < HDR + align8(want) + STEP ?
		      avail : HDR + align8(want) + STEP);
	s->pending_head = pos;
	*room = (size_t)(avail - HDR) & ~(size_t)7;
	return s->buf + pos % s->cap + HDR;
}

void spool_data_end(struct spool *s, int cpu, size_t n)
{
	uint64_t pos = s->pending_head;
	struct spool_entry *e = (void *)(s->buf + pos % s->cap);

	if (s->staged) {
		spill_end(s, cpu, n);
		return;
	}
	memset(e, 0, sizeof(*e));
	e->kind = SPOOL_DATA;
	e->cpu = (uint32_t)cpu;
	e->len = n;
	pad_to(s, pos);
	publish(s, pos + HDR + align8(n));
}

/*
 * Where the consumer takes its next entry; UINT64_MAX while the producer
 * has published nothing past it.  The producer's rewind moves tail, then
 * head (rewind_when_empty): a tail ahead of head is a rewind half done,
 * an empty spool, and a tail that moved while head was read is read
 * again, so an entry is never looked for where tail was.  Consumer.
 */
static uint64_t consumer_pos(struct spool *s)
{
	for (;;) {
		uint64_t t = __atomic_load_n(&s->tail, __ATOMIC_SEQ_CST);
		uint64_t h = __atomic_load_n(&s->head, __ATOMIC_SEQ_CST);

		if (__atomic_load_n(&s->tail, __ATOMIC_SEQ_CST) == t)
			return h > t ? t : UINT64_MAX;
	}
}

/* Has the producer published anything not yet taken?  Consumer. */
static int spool_has_more(struct spool *s)
{
	return consumer_pos(s) != UINT64_MAX;
}

/*
 * The entry a SPOOL_SPILLED header stands for, read back from the spill
 * file into the consumer's own buffer: a SPOOL_DATA, or a SPOOL_LOST for
 * its records should the read fail (or memory for it run out).  Consumer.
 */
static const struct spool_entry *read_back(struct spool *s,
					   const struct spool_entry *h)
{
	struct spool_entry *e = grow(s->readback, &s->readback_cap,
				     HDR + align8(h->len));

	s->next_read = h->u.spilled.off + align8(h->len);
	if (e) {
		s->readback = e;
		if (spill_file_read(&s->spill, h->u.spilled.off, e + 1,
				    align8(h->len)) == 0) {
			memset(e, 0, sizeof(*e));
			e->kind = SPOOL_DATA;
			e->cpu = h->cpu;
			e->len = h->len;
			return e;
		}
	}
	e = &s->unread;
	memset(e, 0, sizeof(*e));
	e->kind = SPOOL_LOST;
	e->u.lost.cpu = h->cpu;
	e->u.lost.records = h->u.spilled.records;
	e->u.lost.bytes = h->len;
	e->u.lost.first_mono_ns = e->u.lost.mono_ns = monotonic_ns();
	return e;
}

const struct spool_entry *spool_next(struct spool *s, int wait)
{
	const struct spool_entry *e = NULL;

	for (;;) {
		uint64_t tail = consumer_pos(s), off;

		if (tail == UINT64_MAX) {
			if (!wait)
				break;
			sleep_unless(s, spool_has_more, &s->head_moves,
				     &s->consumer_sleeps);
			continue;
		}
		/* Too little left for a header, or a pad: the rest of the
		 * buffer is unused, go on at its start. */
		off = tail % s->cap;
		if (s->cap - off < HDR ||
		    ((const struct spool_entry *)(s->buf + off))->kind == SPOOL_PAD) {
			move_and_wake(&s->tail, tail + s->cap - off,
				      &s->tail_moves, &s->producer_sleeps);
			continue;
		}
		e = (const void *)(s->buf + off);
		s->next_tail = tail + HDR +
			       (e->kind == SPOOL_DATA ? align8(e->len) : 0);
		if (e->kind == SPOOL_SPILLED)
			e = read_back(s, e);
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
	if (s->next_read) {
		spill_file_done(&s->spill, s->next_read);
		s->next_read = 0;
	}
	move_and_wake(&s->tail, s->next_tail, &s->tail_moves,
		      &s->producer_sleeps);
}

uint64_t spool_used(struct spool *s)
{
	uint64_t tail = __atomic_load_n(&s->tail, __ATOMIC_SEQ_CST);
	uint64_t head = __atomic_load_n(&s->head, __ATOMIC_SEQ_CST);

	return head > tail ? head - tail : 0;	/* a rewind half done: empty */
}
