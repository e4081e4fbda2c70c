/*
 * flight_block: record --flight's bounded memory of --block-io's
 * events; events come back as they went in, those of a window only; the
 * oldest go first, counted, and from when it is whole is past the newest
 * dropped, whatever order the CPUs' events came in; the instance's
 * losses are kept as what grew, with the span of events they hit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "../../record/flight_block.h"

#define SLOTS 64

static struct block_reading event(uint64_t mono_ns, uint32_t cpu)
{
	struct block_reading r;

	memset(&r, 0, sizeof(r));
	r.kind = BLOCK_READ_EVENT;
	r.mono_ns = mono_ns;
	r.cpu = cpu;
	r.size = 16;
	memcpy(r.raw, &mono_ns, sizeof(mono_ns));
	return r;
}

static void keep(struct flight_block *fb, uint64_t mono_ns, uint32_t cpu)
{
	struct block_reading r = event(mono_ns, cpu);

	flight_block_keep(fb, &r);
}

struct seen {
	uint64_t ts[4 * SLOTS];
	size_t n;
	uint64_t overrun, dropped;
};

static int note(void *ctx, const struct flight_block_slot *s)
{
	struct seen *w = ctx;
	uint64_t raw;

	if (s->loss) {
		w->overrun += s->u.n.overrun;
		w->dropped += s->u.n.dropped;
		return 0;
	}
	memcpy(&raw, s->u.raw, sizeof(raw));
	assert_int_equal(raw, s->mono_ns);
	assert_int_equal(s->size, 16);
	w->ts[w->n++] = s->mono_ns;
	return 0;
}

static void a_window_gets_its_events_in_the_order_read(void **state)
{
	struct flight_block fb;
	struct block_reading until = { .kind = BLOCK_READ_UNTIL, .mono_ns = 500 };
	struct seen w = { .n = 0 };

	(void)state;
	assert_int_equal(flight_block_init(&fb, SLOTS * sizeof(struct flight_block_slot),
					   NULL), 0);
	/* A pass: CPU 0's events, then CPU 1's, each in time order. */
	keep(&fb, 100, 0);
	keep(&fb, 300, 0);
	keep(&fb, 200, 1);
	keep(&fb, 400, 1);
	flight_block_keep(&fb, &until);
	assert_int_equal(fb.until, 500);
	assert_int_equal(flight_block_each(&fb, 200, 300, note, &w), 0);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.ts[0], 300);
	assert_int_equal(w.ts[1], 200);
	assert_int_equal(fb.dropped, 0);
	assert_int_equal(fb.whole_from, 0);
	flight_block_release(&fb);
}

static void the_oldest_go_first_and_whole_from_is_past_the_newest_dropped(void **state)
{
	struct flight_block fb;
	struct seen w = { .n = 0 };
	uint64_t t = 1000;

	(void)state;
	assert_int_equal(flight_block_init(&fb, SLOTS * sizeof(struct flight_block_slot),
					   NULL), 0);
	assert_int_equal(fb.cap, SLOTS);
	/* Passes of two CPUs, the second CPU's events older than the
	 * first's last: the first pass's 9000 goes before its 10. */
	keep(&fb, 9000, 0);
	keep(&fb, 10, 1);
	for (int i = 0; i < SLOTS; i++)
		keep(&fb, t++, (uint32_t)i % 2);
	assert_int_equal(fb.dropped, 2);
	assert_int_equal(fb.whole_from, 9001);
	assert_int_equal(fb.head - fb.tail, SLOTS);
	/* Every event kept comes back, none of the dropped. */
	assert_int_equal(flight_block_each(&fb, 0, UINT64_MAX, note, &w), 0);
	assert_int_equal(w.n, SLOTS);
	for (size_t i = 0; i < w.n; i++)
		assert_int_equal(w.ts[i], 1000 + i);
	flight_block_release(&fb);
}

static void a_loss_is_what_grew_and_meets_the_windows_of_its_span(void **state)
{
	struct flight_block fb;
	struct seen in = { .n = 0 }, before = { .n = 0 }, after = { .n = 0 };

	(void)state;
	assert_int_equal(flight_block_init(&fb, SLOTS * sizeof(struct flight_block_slot),
					   NULL), 0);
	/* The stats count since the instance was made: 5, then 7 overrun. */
	flight_block_loss(&fb, 0, 5, 0, 100, 200);
	flight_block_loss(&fb, 0, 7, 1, 200, 300);
	flight_block_loss(&fb, 0, 7, 1, 300, 400);	/* nothing grew */
	assert_int_equal(fb.head - fb.tail, 2);
	assert_int_equal(flight_block_each(&fb, 250, 260, note, &in), 0);
	assert_int_equal(in.overrun, 2);
	assert_int_equal(in.dropped, 1);
	assert_int_equal(flight_block_each(&fb, 0, 99, note, &before), 0);
	assert_int_equal(before.overrun, 0);
	assert_int_equal(flight_block_each(&fb, 150, 1000, note, &after), 0);
	assert_int_equal(after.overrun, 7);
	assert_int_equal(in.n + before.n + after.n, 0);
	flight_block_release(&fb);
}

static void a_loss_dropped_makes_the_memory_whole_only_after_it(void **state)
{
	struct flight_block fb;

	(void)state;
	assert_int_equal(flight_block_init(&fb, SLOTS * sizeof(struct flight_block_slot),
					   NULL), 0);
	flight_block_loss(&fb, 0, 5, 0, 100, 5000);
	for (int i = 0; i < SLOTS; i++)
		keep(&fb, 1000 + (uint64_t)i, 0);
	assert_int_equal(fb.dropped, 0);	/* no event */
	assert_int_equal(fb.whole_from, 5001);
	flight_block_release(&fb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_window_gets_its_events_in_the_order_read),
		cmocka_unit_test(the_oldest_go_first_and_whole_from_is_past_the_newest_dropped),
		cmocka_unit_test(a_loss_is_what_grew_and_meets_the_windows_of_its_span),
		cmocka_unit_test(a_loss_dropped_makes_the_memory_whole_only_after_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
