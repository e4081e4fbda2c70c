/*
 * flight_history: record --flight's bounded memory of spool entries;
 * entries come back as they went in, across the buffer's end; the
 * oldest whole rounds go first, counted; from when it is whole is the
 * first kept round's watermark plus the drain's slack.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "../../collector/recorder.h"
#include "../../record/flight_history.h"

#define CAP (64u << 10)

/* A DATA entry of n records of rec_bytes each (8 <= rec_bytes < 256, a
 * multiple of 8), each record's bytes after its header set to tag. */
struct data {
	struct spool_entry e;
	uint8_t bytes[8192];
};

static const struct spool_entry *data(struct data *d, uint32_t cpu, int n,
				      size_t rec_bytes, uint8_t tag)
{
	memset(d, 0, sizeof(*d));
	d->e.kind = SPOOL_DATA;
	d->e.cpu = cpu;
	d->e.len = (uint64_t)n * rec_bytes;
	for (int i = 0; i < n; i++) {
		uint8_t *r = d->bytes + (size_t)i * rec_bytes;
		uint16_t size = (uint16_t)rec_bytes;

		r[0] = 9;			/* PERF_RECORD_SAMPLE */
		memcpy(r + 6, &size, 2);
		memset(r + 8, tag, rec_bytes - 8);
	}
	return &d->e;
}

static const struct spool_entry *round_at(struct spool_entry *e, uint64_t w)
{
	memset(e, 0, sizeof(*e));
	e->kind = SPOOL_ROUND;
	e->u.watermark = w;
	return e;
}

static void entries_come_back_in_order_across_the_end(void **state)
{
	struct flight_history h;
	struct data d;
	struct spool_entry r;
	const struct spool_entry *e;
	uint64_t pos, next, w = 0;
	uint8_t tag = 0;

	(void)state;
	assert_int_equal(flight_history_init(&h, CAP), 0);
	/* Rounds of one 1000-byte entry (odd, so pads land anywhere) until
	 * the buffer wrapped several times. */
	for (int i = 0; i < 400; i++) {
		assert_int_equal(flight_history_add(&h, data(&d, (uint32_t)i % 2,
							     25, 40, (uint8_t)i),
						    NULL, &pos), 1);
		assert_int_equal(flight_history_add(&h, round_at(&r, ++w * 10),
						    NULL, &pos), 1);
	}
	assert_true(h.head > 4 * CAP);
	assert_true(h.peak <= CAP);
	/* What is kept: whole rounds, the newest, each DATA's bytes intact,
	 * DATA and ROUND alternating, no pad among them. */
	e = flight_history_at(&h, h.tail, &next);
	assert_non_null(e);
	assert_int_equal(e->kind, SPOOL_DATA);
	tag = ((const uint8_t *)spool_data(e))[8];
	for (pos = h.tail; (e = flight_history_at(&h, pos, &next)); pos = next) {
		assert_int_equal(e->kind, SPOOL_DATA);
		assert_int_equal(e->len, 1000);
		assert_int_equal(flight_history_records(e), 25);
		for (size_t k = 0; k < 1000; k++)
			assert_int_equal(((const uint8_t *)spool_data(e))[k],
					 k % 40 == 0 ? 9 : k % 40 == 6 ? 40 :
					 k % 40 < 8 ? 0 : tag);
		e = flight_history_at(&h, next, &next);
		assert_non_null(e);
		assert_int_equal(e->kind, SPOOL_ROUND);
		tag++;
	}
	assert_int_equal(tag, (uint8_t)400);
	flight_history_release(&h);
}

static void the_oldest_rounds_go_first_and_the_rest_is_whole(void **state)
{
	struct flight_history h;
	struct data d;
	struct spool_entry r;
	const struct spool_entry *e;
	uint64_t pos, next, kept = 0, rounds = 0;

	(void)state;
	assert_int_equal(flight_history_init(&h, CAP), 0);
	assert_int_equal(h.whole_from, 0);
	/* Two CPUs' entries a round, 64 records of 64 bytes each. */
	for (uint64_t w = 1; w <= 100; w++) {
		flight_history_add(&h, data(&d, 0, 64, 64, 1), NULL, &pos);
		flight_history_add(&h, data(&d, 1, 64, 64, 2), NULL, &pos);
		flight_history_add(&h, round_at(&r, w * 1000000), NULL, &pos);
	}
	/* Dropped: whole rounds, every record counted. */
	for (pos = h.tail; (e = flight_history_at(&h, pos, &next)); pos = next) {
		kept += e->kind == SPOOL_DATA ? e->len / 64 : 0;
		rounds += e->kind == SPOOL_ROUND;
	}
	assert_int_equal(kept + h.dropped_records, 100 * 2 * 64);
	assert_int_equal(kept, rounds * 2 * 64);
	/* It starts right after a dropped round, and is whole from the
	 * first kept round's watermark plus the slack (the dropped round's
	 * reads may hold records stamped up to then). */
	e = flight_history_at(&h, h.tail, &next);
	assert_int_equal(e->kind, SPOOL_DATA);
	assert_int_equal(e->cpu, 0);
	assert_int_equal(h.whole_from, (101 - rounds) * 1000000 +
			 RECORDER_ORDER_SLACK_NS);
	flight_history_release(&h);
}

static void an_entry_too_big_restarts_the_history(void **state)
{
	struct flight_history h;
	struct data d;
	struct spool_entry r;
	uint64_t pos, next;

	(void)state;
	assert_int_equal(flight_history_init(&h, CAP), 0);
	flight_history_add(&h, data(&d, 0, 10, 64, 1), NULL, &pos);
	flight_history_add(&h, round_at(&r, 5), NULL, &pos);
	/* Larger than half the buffer: not kept, nor anything before it. */
	d.e.kind = SPOOL_DATA;
	d.e.len = CAP / 2 + 8;
	assert_int_equal(flight_history_add(&h, &d.e, NULL, &pos), 0);
	assert_int_equal(h.too_big, 1);
	assert_null(flight_history_at(&h, h.tail, &next));
	assert_int_equal(h.whole_from, UINT64_MAX);
	/* Whole again from the next round on. */
	flight_history_add(&h, round_at(&r, 7), NULL, &pos);
	assert_int_equal(h.whole_from, 7 + RECORDER_ORDER_SLACK_NS);
	flight_history_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entries_come_back_in_order_across_the_end),
		cmocka_unit_test(the_oldest_rounds_go_first_and_the_rest_is_whole),
		cmocka_unit_test(an_entry_too_big_restarts_the_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
