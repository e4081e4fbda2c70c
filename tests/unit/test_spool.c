/*
 * spool: the bounded memory between the drain thread and the engine.
 * Entries come out in the order they went in, a DATA entry contiguous
 * even across the buffer's end; control entries are never lost and never
 * overtaken; what finds no room is dropped and said so.
 */
#include <pthread.h>

#include "../../collector/spool.h"
#include "records.h"

#define CAP (64u * 1024)	/* the smallest spool */
#define HDR sizeof(struct spool_entry)

static void push_data(struct spool *s, int cpu, size_t n, uint8_t fill)
{
	size_t room;
	uint8_t *dst = spool_data_begin(s, n, &room);

	assert_non_null(dst);
	assert_true(room >= n);
	memset(dst, fill, n);
	spool_data_end(s, cpu, n);
}

static void push_round(struct spool *s, uint64_t watermark)
{
	struct spool_entry e = { .kind = SPOOL_ROUND };

	e.u.watermark = watermark;
	spool_push(s, &e);
}

static const struct spool_entry *take(struct spool *s, uint32_t kind)
{
	const struct spool_entry *e = spool_next(s, 0);

	assert_non_null(e);
	assert_int_equal(e->kind, kind);
	return e;
}

static void entries_come_out_in_the_order_they_went_in(void **state)
{
	struct spool s;
	const struct spool_entry *e;

	(void)state;
	assert_int_equal(spool_init(&s, CAP), 0);
	push_data(&s, 1, 800, 0xaa);
	push_round(&s, 42);
	push_data(&s, 0, 16, 0xbb);
	e = take(&s, SPOOL_DATA);
	assert_int_equal(e->cpu, 1);
	assert_int_equal(e->len, 800);
	assert_int_equal(((const uint8_t *)spool_data(e))[799], 0xaa);
	spool_done(&s);
	e = take(&s, SPOOL_ROUND);
	assert_int_equal(e->u.watermark, 42);
	spool_done(&s);
	e = take(&s, SPOOL_DATA);
	assert_int_equal(e->cpu, 0);
	spool_done(&s);
	assert_null(spool_next(&s, 0));
	assert_int_equal(spool_used(&s), 0);
	spool_release(&s);
}

/* Entries that would cross the buffer's end start again at its start, in
 * one piece; positions run on past many laps. */
static void data_stays_contiguous_across_the_buffers_end(void **state)
{
	struct spool s;

	(void)state;
	assert_int_equal(spool_init(&s, CAP), 0);
	for (unsigned i = 0; i < 1000; i++) {
		size_t n = 8 * (1 + (i * 7919) % 1500);
		const struct spool_entry *e;
		const uint8_t *d;

		push_data(&s, (int)(i & 1), n, (uint8_t)i);
		push_round(&s, i);
		e = take(&s, SPOOL_DATA);
		assert_int_equal(e->len, n);
		d = spool_data(e);
		assert_true(d >= s.buf && d + n <= s.buf + s.cap);
		assert_int_equal(d[0], (uint8_t)i);
		assert_int_equal(d[n - 1], (uint8_t)i);
		spool_done(&s);
		assert_int_equal(take(&s, SPOOL_ROUND)->u.watermark, i);
		spool_done(&s);
	}
	assert_true(s.tail > 10 * CAP);
	spool_release(&s);
}

/* A full spool takes no data; the records are dropped and a LOST entry
 * says so, and a control entry waits and still goes in first. */
static void a_full_spool_drops_data_and_keeps_every_control_entry(void **state)
{
	struct spool s;
	const struct spool_entry *e;
	size_t room;
	unsigned filled = 0;

	(void)state;
	assert_int_equal(spool_init(&s, CAP), 0);
	/* Fill it to the last byte: whatever room is left, take it. */
	while (spool_data_begin(&s, 4096, &room) && room >= 8) {
		spool_data_end(&s, 0, room < 4096 ? room : 4096);
		filled++;
	}
	push_round(&s, 7);		/* no room: waits */
	spool_drop(&s, 1, 10, 400, 99);
	assert_int_equal(spool_flushed(&s), 0);
	assert_null(spool_data_begin(&s, 8, &room));	/* controls first */
	assert_int_equal(room, 0);
	assert_int_equal(s.dropped_records, 10);
	/* The consumer makes room: the waiting entries go in, in order,
	 * after the data that was there. */
	for (unsigned i = 0; i < filled; i++) {
		take(&s, SPOOL_DATA);
		spool_done(&s);
		if (i == 0)
			assert_int_equal(spool_flushed(&s), 1);
	}
	assert_int_equal(take(&s, SPOOL_ROUND)->u.watermark, 7);
	spool_done(&s);
	e = take(&s, SPOOL_LOST);
	assert_int_equal(e->u.lost.cpu, 1);
	assert_int_equal(e->u.lost.records, 10);
	assert_int_equal(e->u.lost.bytes, 400);
	spool_done(&s);
	assert_true(s.peak >= CAP - HDR - 8);
	assert_true(s.peak <= CAP);
	spool_release(&s);
}

/* What does not fit whole gets the room there is: the drain thread then
 * moves as many whole records as fit. */
static void data_that_does_not_fit_gets_the_room_there_is(void **state)
{
	struct spool s;
	size_t room;

	(void)state;
	assert_int_equal(spool_init(&s, CAP), 0);
	assert_non_null(spool_data_begin(&s, 10 * CAP, &room));
	assert_int_equal(room, CAP - HDR);
	spool_data_end(&s, 0, 1024);
	spool_release(&s);
}

/* A consumer that keeps up leaves the producer at the buffer's start,
 * however much goes through: the first steps, made resident once, and
 * no other. */
static void a_spool_kept_up_with_stays_small(void **state)
{
	struct spool s;
	const struct spool_entry *e;

	(void)state;
	assert_int_equal(spool_init(&s, 64u << 20), 0);
	assert_int_equal(s.nresident, 0);
	for (unsigned i = 0; i < 4096; i++) {	/* 128 MiB in all, twice round */
		push_data(&s, 0, 32768, (uint8_t)i);
		e = take(&s, SPOOL_DATA);
		assert_int_equal(((const uint8_t *)spool_data(e))[32767], (uint8_t)i);
		spool_done(&s);
		assert_true(s.nresident <= 2);
	}
	assert_true(s.populated <= 2);
	/* What it held at most is the entries, not the end it skipped. */
	assert_true(s.peak <= 2 * (32768 + HDR));
	spool_release(&s);
}

/* A consumer that falls behind: every byte of the buffer is there for
 * the producer, and nothing the consumer has yet to read is given back
 * while the producer goes round. */
static void a_lagging_consumer_has_the_whole_buffer(void **state)
{
	struct spool s;
	size_t room;
	unsigned pushed = 0, taken = 0;

	(void)state;
	assert_int_equal(spool_init(&s, 8u << 20), 0);
	/* Round and round: 6 MiB behind, each entry checked whole. */
	for (unsigned lap = 0; lap < 40; lap++) {
		while (pushed - taken < 192)
			push_data(&s, 0, 32768, (uint8_t)pushed++);
		for (unsigned i = 0; i < 32; i++, taken++) {
			const struct spool_entry *e = take(&s, SPOOL_DATA);
			const uint8_t *d = spool_data(e);

			assert_int_equal(d[0], (uint8_t)taken);
			assert_int_equal(d[32767], (uint8_t)taken);
			spool_done(&s);
		}
	}
	/* Never read again: it fills to the last byte. */
	while (spool_data_begin(&s, 4096, &room) && room >= 8)
		spool_data_end(&s, 0, room < 4096 ? room : 4096);
	assert_int_equal(s.nresident, 8);
	assert_true(s.peak >= (8u << 20) - 4096 - 2 * HDR);
	spool_release(&s);
}

/* perf records of 64 bytes each, n bytes of them, the first byte of each
 * payload fill: what the spill file must give back as it was. */
static void push_records(struct spool *s, int cpu, size_t n, uint8_t fill)
{
	size_t room;
	uint8_t *dst = spool_data_begin(s, n, &room);

	assert_non_null(dst);
	assert_true(room >= n);
	for (size_t off = 0; off < n; off += 64) {
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 64 };

		memcpy(dst + off, &h, sizeof(h));
		memset(dst + off + sizeof(h), fill, 64 - sizeof(h));
	}
	spool_data_end(s, cpu, n);
}

/* Past the memory, data goes to the spill file and comes back in order,
 * between the control entries pushed around it, with nothing dropped;
 * once read back, its space is free again. */
static void a_full_spool_spills_to_the_file_in_order(void **state)
{
	struct spool s;
	unsigned n = 64;

	(void)state;
	assert_int_equal(spool_init(&s, CAP), 0);
	assert_int_equal(spool_spill_to(&s, "/tmp", 4u << 20), 0);
	for (unsigned i = 0; i < n; i++) {	/* 256 KiB: 4 times the memory */
		push_records(&s, (int)(i % 3), 4096, (uint8_t)i);
		push_round(&s, i);
	}
	assert_int_equal(s.dropped_records, 0);
	assert_true(s.spill.total > 128 * 1024);
	for (unsigned i = 0; i < n; i++) {
		const struct spool_entry *e = take(&s, SPOOL_DATA);
		const uint8_t *d = spool_data(e);

		assert_int_equal(e->cpu, i % 3);
		assert_int_equal(e->len, 4096);
		assert_int_equal(d[8], (uint8_t)i);
		assert_int_equal(d[4095], (uint8_t)i);
		spool_done(&s);
		assert_int_equal(take(&s, SPOOL_ROUND)->u.watermark, i);
		spool_done(&s);
	}
	assert_null(spool_next(&s, 0));
	assert_int_equal(s.spill.read, s.spill.written);
	assert_true(spill_file_has_room(&s.spill, 4u << 20));
	spool_release(&s);
}

/* A spill file at its bound takes no more: the records are dropped,
 * counted whole, as without one. */
static void a_full_spill_file_drops_and_says_how_many(void **state)
{
	struct spool s;
	size_t room;
	uint64_t dropped = 0;

	(void)state;
	assert_int_equal(spool_init(&s, CAP), 0);
	assert_int_equal(spool_spill_to(&s, "/tmp", 64 * 1024), 0);
	for (unsigned i = 0; i < 64; i++) {
		uint8_t *d = spool_data_begin(&s, 4096, &room);

		if (room < 4096) {
			spool_drop(&s, 0, 64, 4096, i);
			dropped += 64;
			continue;
		}
		memset(d, 0, 4096);
		for (size_t off = 0; off < 4096; off += 64)
			d[off + 6] = 64;	/* perf_event_header.size */
		spool_data_end(&s, 0, 4096);
	}
	assert_true(dropped > 0);
	assert_int_equal(s.dropped_records, dropped);
	assert_true(s.spill.peak <= 64 * 1024);
	assert_true(s.spill.total >= 32 * 1024);
	spool_release(&s);
}

struct consumer {
	struct spool *s;
	uint64_t sum, last_round;
	int rounds_went_back;
	uint64_t torn;		/* DATA entries not as they were written */
};

static void *consume(void *arg)
{
	struct consumer *c = arg;
	const struct spool_entry *e;

	while ((e = spool_next(c->s, 1))->kind != SPOOL_END) {
		if (e->kind == SPOOL_DATA) {
			const uint8_t *d = spool_data(e);

			c->sum += d[0];
			c->torn += e->len != 512 || d[0] != d[511];
		} else if (e->kind == SPOOL_ROUND) {
			c->rounds_went_back |= e->u.watermark < c->last_round;
			c->last_round = e->u.watermark;
		}
		spool_done(c->s);
	}
	spool_done(c->s);
	return NULL;
}

/* The two threads the spool is made for: nothing lost unless said so,
 * nothing doubled or torn (the producer rewinds each time it finds the
 * spool empty, while the consumer looks), watermarks only growing (a
 * round that waited for room gives way to a newer one), the end waited
 * for. */
static void agree(size_t spill_cap)
{
	struct spool s;
	struct consumer c = { &s, 0, 0, 0, 0 };
	struct spool_entry end = { .kind = SPOOL_END };
	pthread_t t;
	uint64_t sum = 0, dropped = 0;

	assert_int_equal(spool_init(&s, CAP), 0);
	if (spill_cap)
		assert_int_equal(spool_spill_to(&s, "/tmp", spill_cap), 0);
	/* With a spill file the consumer starts late, 84 KiB behind: the
	 * memory's 64 KiB cannot hold that. */
	if (!spill_cap)
		assert_int_equal(pthread_create(&t, NULL, consume, &c), 0);
	for (unsigned i = 0; i < 20000; i++) {
		size_t room;

		if (spill_cap && i == 150)
			assert_int_equal(pthread_create(&t, NULL, consume, &c), 0);
		uint8_t *d = spool_data_begin(&s, 512, &room);

		if (room >= 512) {
			memset(d, (int)(i % 251), 512);
			spool_data_end(&s, 0, 512);
			sum += i % 251;
		} else {
			spool_drop(&s, 0, 1, 512, i);
			dropped++;
		}
		push_round(&s, i);
	}
	spool_push(&s, &end);
	spool_wait_flushed(&s);
	pthread_join(t, NULL);
	assert_int_equal(c.sum, sum);
	assert_int_equal(c.torn, 0);
	assert_int_equal(c.last_round, 19999);
	assert_int_equal(c.rounds_went_back, 0);
	assert_int_equal(s.dropped_records, dropped);
	if (spill_cap)
		assert_true(s.spill.total > 0);
	spool_release(&s);
}

static void a_producer_and_a_consumer_thread_agree(void **state)
{
	(void)state;
	agree(0);
}

/* And so they do through the spill file. */
static void they_agree_through_the_spill_file(void **state)
{
	(void)state;
	agree(64u << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entries_come_out_in_the_order_they_went_in),
		cmocka_unit_test(data_stays_contiguous_across_the_buffers_end),
		cmocka_unit_test(a_full_spool_drops_data_and_keeps_every_control_entry),
		cmocka_unit_test(data_that_does_not_fit_gets_the_room_there_is),
		cmocka_unit_test(a_producer_and_a_consumer_thread_agree),
		cmocka_unit_test(they_agree_through_the_spill_file),
		cmocka_unit_test(a_spool_kept_up_with_stays_small),
		cmocka_unit_test(a_lagging_consumer_has_the_whole_buffer),
		cmocka_unit_test(a_full_spool_spills_to_the_file_in_order),
		cmocka_unit_test(a_full_spill_file_drops_and_says_how_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
