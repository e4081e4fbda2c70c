#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "../collector/recorder.h"
#include "../decoder/perf_record.h"
#include "flight_history.h"

#define MIN_CAP (64u << 10)

int flight_history_init(struct flight_history *h, size_t cap)
{
	void *m;

	memset(h, 0, sizeof(*h));
	cap &= ~(size_t)7;
	if (cap < MIN_CAP)
		cap = MIN_CAP;
	/* Pages become resident as the history first reaches them
	 * (make_resident), and stay: cap is what it may hold, and what it
	 * holds after the first wrap. */
	m = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	h->buf = m;
	h->cap = cap;
	return 0;
}

void flight_history_release(struct flight_history *h)
{
	if (h->buf)
		munmap(h->buf, h->cap);
	h->buf = NULL;
}

#define STEP (1u << 20)

/*
 * Makes buf[0..end) resident, a MiB at a time, before the first lap
 * writes there: one madvise a step, where the copies' first writes took
 * a page fault each, 12% of the armed recorder's CPU while a server's
 * history filled.  A kernel without MADV_POPULATE_WRITE (before 5.14)
 * takes the faults.
 */
static void make_resident(struct flight_history *h, size_t end)
{
	while (h->resident < end) {
		size_t n = h->cap - h->resident < STEP ? h->cap - h->resident : STEP;

		madvise(h->buf + h->resident, n, MADV_POPULATE_WRITE);
		h->resident += n;
	}
}

static size_t entry_size(const struct spool_entry *e)
{
	size_t n = sizeof(*e);

	if (e->kind == SPOOL_DATA)
		n += (e->len + 7) & ~7ull;
	return n;
}

/* The bytes of the entry at pos: a pad (its kind word alone is written,
 * so it may be as short as 8 bytes) runs to the buffer's end. */
static size_t size_at(const struct flight_history *h, uint64_t pos)
{
	const struct spool_entry *e = (const void *)(h->buf + pos % h->cap);

	return e->kind == SPOOL_PAD ? h->cap - pos % h->cap : entry_size(e);
}

static struct spool_entry *at(const struct flight_history *h, uint64_t pos)
{
	return (struct spool_entry *)(h->buf + pos % h->cap);
}

static int count_one(void *ctx, const void *rec, size_t len)
{
	struct spool_entry *e = ctx;
	uint32_t type = ((const struct perf_event_header *)rec)->type;

	(void)len;
	e->u.kept.records++;
	if (type < 64)
		e->u.kept.types |= 1ull << type;
	return 0;
}

/* What DATA entry e holds, into into->u.kept (into may be e): given by
 * the caller when it walked the entry already, else one walk here; none
 * when it is dropped (a walk each for the count and for what goes aside
 * was 4.5% of the armed recorder's CPU in a switch storm, and this one
 * 3.1%). */
static void count_records(struct spool_entry *into, const struct spool_entry *e,
			  const struct spool_kept *kept)
{
	uint64_t bad = 0;

	memset(&into->u, 0, sizeof(into->u));
	if (kept)
		into->u.kept = *kept;
	else
		perf_records_walk(spool_data(e), e->len, count_one, into, &bad);
}

uint64_t flight_history_records(const struct spool_entry *e)
{
	return e->u.kept.records;
}

/* Drops the oldest entry; a ROUND dropped says from when the history is
 * whole (see the header). */
static void drop_oldest(struct flight_history *h)
{
	struct spool_entry *e = at(h, h->tail);

	if (e->kind != SPOOL_PAD && h->on_drop)
		h->on_drop(h->ctx, h->tail, e);
	if (e->kind == SPOOL_DATA) {
		h->dropped_records += flight_history_records(e);
		h->dropped_bytes += e->len;
		h->whole_from = UINT64_MAX;	/* until the next round */
	}
	h->tail += size_at(h, h->tail);
}

/* Drops rounds, oldest first, until need bytes are free. */
static void make_room(struct flight_history *h, size_t need)
{
	while (h->cap - (h->head - h->tail) < need) {
		int round;

		do {
			round = at(h, h->tail)->kind == SPOOL_ROUND;
			drop_oldest(h);
		} while (!round && h->tail != h->head);
	}
	/* The first round kept, if any, ends the cut: */
	if (h->whole_from == UINT64_MAX) {
		uint64_t next;

		for (uint64_t p = h->tail; p != h->head; p = next) {
			const struct spool_entry *e = flight_history_at(h, p, &next);

			if (!e)
				break;
			if (e->kind == SPOOL_ROUND) {
				h->whole_from = e->u.watermark + RECORDER_ORDER_SLACK_NS;
				break;
			}
		}
	}
}

/* A DATA entry too big to keep: everything before it goes too, so the
 * history stays whole from its (new) start. */
static void drop_all(struct flight_history *h, const struct spool_entry *e,
		     const struct spool_kept *kept)
{
	struct spool_entry counted;

	count_records(&counted, e, kept);
	h->too_big++;
	h->dropped_records += counted.u.kept.records;
	h->dropped_bytes += e->len;
	while (h->tail != h->head)
		drop_oldest(h);
	h->whole_from = UINT64_MAX;
}

int flight_history_add(struct flight_history *h, const struct spool_entry *e,
		       const struct spool_kept *kept, uint64_t *pos)
{
	size_t size = entry_size(e), off;
	struct spool_entry *dst;

	if (size > h->cap / 2) {
		drop_all(h, e, kept);
		return 0;
	}
	off = h->head % h->cap;
	if (off + size > h->cap) {
		/* The pad to the end, then the entry from the start. */
		size_t padsz = h->cap - off;

		make_room(h, padsz + size);
		*(uint32_t *)(h->buf + off) = SPOOL_PAD;
		h->head += padsz;
	} else {
		make_room(h, size);
	}
	make_resident(h, h->head % h->cap + size);
	dst = at(h, h->head);
	*dst = *e;
	if (e->kind == SPOOL_DATA) {
		memcpy(dst + 1, spool_data(e), e->len);
		count_records(dst, dst, kept);
	}
	*pos = h->head;
	h->head += size;
	if (h->whole_from == UINT64_MAX && e->kind == SPOOL_ROUND)
		h->whole_from = e->u.watermark + RECORDER_ORDER_SLACK_NS;
	if (h->head - h->tail > h->peak)
		h->peak = h->head - h->tail;
	return 1;
}

const struct spool_entry *flight_history_at(const struct flight_history *h,
					    uint64_t pos, uint64_t *next)
{
	const struct spool_entry *e;

	while (pos != h->head) {
		e = at(h, pos);
		pos += size_at(h, pos);
		if (e->kind != SPOOL_PAD) {
			*next = pos;
			return e;
		}
	}
	*next = pos;
	return NULL;
}
