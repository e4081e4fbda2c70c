/*
 * order: events drained ring after ring come out in timestamp order, up
 * to the watermark the caller gives.
 */
#include <errno.h>
#include <stdlib.h>

#include "../../decoder/order.h"
#include "records.h"

#define LOG_MAX 16384

struct out_log {
	uint64_t ts[LOG_MAX];
	uint32_t tid[LOG_MAX];
	uint64_t seq[LOG_MAX];
	size_t n;
	size_t fail_on;		/* 1-based call that returns -EIO; 0: none */
};

static int record_ev(void *ctx, const struct ev *e)
{
	struct out_log *l = ctx;

	assert_true(l->n < LOG_MAX);
	l->ts[l->n] = e->mono_ts;
	l->tid[l->n] = e->tid;
	l->seq[l->n] = e->seq;
	l->n++;
	return l->n == l->fail_on ? -EIO : 0;
}

/* The queue under test and what its flushes handed out. */
struct fixture {
	struct order_queue q;
	struct out_log *log;
};

static int fixture_setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx || !(fx->log = calloc(1, sizeof(*fx->log))))
		return -1;
	order_queue_init(&fx->q);
	*state = fx;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *fx = *state;

	order_queue_release(&fx->q);
	free(fx->log);
	free(fx);
	return 0;
}

static void push(struct order_queue *q, uint64_t ts, uint32_t tid, uint32_t cpu)
{
	struct ev e;

	memset(&e, 0, sizeof(e));
	e.mono_ts = ts;
	e.tid = tid;
	e.pid = tid;
	e.cpu = cpu;
	e.kind = EV_FAULT_ENTRY;
	assert_int_equal(order_queue_push(q, &e), 0);
}

static void assert_ts(const struct out_log *l, const uint64_t *want, size_t n)
{
	assert_int_equal(l->n, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(l->ts[i], want[i]);
}

/* Ring 0 (cpu 0) holds 10, 30, 50, 70; ring 1 (cpu 1) 20, 40, 60, 80;
 * drained one after the other. */
static void push_two_rings(struct order_queue *q)
{
	for (uint64_t t = 10; t <= 70; t += 20)
		push(q, t, 100, 0);
	for (uint64_t t = 20; t <= 80; t += 20)
		push(q, t, 200, 1);
}

static void events_from_two_rings_come_out_in_time_order(void **state)
{
	struct fixture *fx = *state;
	static const uint64_t want[] = { 10, 20, 30, 40, 50, 60, 70, 80 };

	push_two_rings(&fx->q);
	assert_int_equal(order_queue_flush(&fx->q, 1000, record_ev, fx->log), 8);
	assert_ts(fx->log, want, 8);
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(fx->log->tid[i], i % 2 ? 200 : 100);
	assert_int_equal(order_queue_count(&fx->q), 0);
	assert_int_equal(fx->q.late, 0);
}

static void events_above_the_watermark_wait_for_a_later_flush(void **state)
{
	struct fixture *fx = *state;
	static const uint64_t want[] = { 10, 20, 30, 40, 50, 60, 70, 80 };

	push_two_rings(&fx->q);
	assert_int_equal(order_queue_flush(&fx->q, 40, record_ev, fx->log), 4);
	assert_ts(fx->log, want, 4);	/* 40 itself is at the watermark */
	assert_int_equal(order_queue_count(&fx->q), 4);
	assert_int_equal(order_queue_flush(&fx->q, 49, record_ev, fx->log), 0);
	assert_int_equal(order_queue_count(&fx->q), 4);
	assert_int_equal(order_queue_flush(&fx->q, 75, record_ev, fx->log), 3);
	assert_int_equal(order_queue_flush(&fx->q, 80, record_ev, fx->log), 1);
	assert_ts(fx->log, want, 8);
	assert_int_equal(order_queue_count(&fx->q), 0);
	assert_int_equal(fx->q.late, 0);
}

static void equal_timestamps_keep_their_push_order(void **state)
{
	struct fixture *fx = *state;
	static const uint32_t want_tid[] = { 3, 1, 2, 4 };

	push(&fx->q, 5, 1, 0);
	push(&fx->q, 5, 2, 1);
	push(&fx->q, 3, 3, 0);
	push(&fx->q, 5, 4, 1);
	assert_int_equal(order_queue_flush(&fx->q, 5, record_ev, fx->log), 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(fx->log->tid[i], want_tid[i]);
}

/* Enough equal timestamps that an unstable sort would reorder them. */
static void many_equal_timestamps_keep_their_push_order(void **state)
{
	struct fixture *fx = *state;
	size_t n = 5000;

	for (uint32_t i = 0; i < n; i++)
		push(&fx->q, (uint64_t)(n - i) % 3, i, i % 4);
	assert_int_equal(order_queue_flush(&fx->q, UINT64_MAX, record_ev, fx->log),
			 (long)n);
	for (size_t i = 1; i < n; i++) {
		const struct out_log *l = fx->log;

		assert_true(l->ts[i - 1] <= l->ts[i]);
		if (l->ts[i - 1] == l->ts[i])
			assert_true(l->tid[i - 1] < l->tid[i]);
	}
	assert_int_equal(fx->log->ts[0], 0);
	assert_int_equal(fx->log->ts[n - 1], 2);
}

static void an_event_at_or_below_a_flushed_watermark_is_late_but_delivered(void **state)
{
	struct fixture *fx = *state;
	static const uint64_t want[] = { 10, 12, 15, 16, 20 };

	push(&fx->q, 10, 1, 0);
	push(&fx->q, 20, 1, 0);
	assert_int_equal(order_queue_flush(&fx->q, 15, record_ev, fx->log), 1);
	assert_int_equal(fx->q.late, 0);
	push(&fx->q, 12, 2, 1);
	assert_int_equal(fx->q.late, 1);
	push(&fx->q, 15, 2, 1);
	assert_int_equal(fx->q.late, 2);
	push(&fx->q, 16, 2, 1);
	assert_int_equal(fx->q.late, 2);
	assert_int_equal(order_queue_flush(&fx->q, 30, record_ev, fx->log), 4);
	assert_ts(fx->log, want, 5);
	assert_int_equal(fx->q.late, 2);
}

static void a_failing_callback_stops_the_flush_and_keeps_the_rest(void **state)
{
	struct fixture *fx = *state;
	static const uint64_t want[] = { 1, 2, 3, 3, 4, 5 };

	for (uint64_t t = 5; t >= 1; t--)
		push(&fx->q, t, (uint32_t)t, 0);
	fx->log->fail_on = 3;
	assert_int_equal(order_queue_flush(&fx->q, 10, record_ev, fx->log), -EIO);
	assert_int_equal(order_queue_count(&fx->q), 3);	/* 3, 4 and 5 */
	assert_int_equal(fx->q.flushed_to, 0);	/* 10 was not reached */
	push(&fx->q, 9, 9, 0);
	assert_int_equal(fx->q.late, 0);
	fx->log->fail_on = 0;
	assert_int_equal(order_queue_flush(&fx->q, 5, record_ev, fx->log), 3);
	assert_ts(fx->log, want, 6);
	assert_int_equal(order_queue_count(&fx->q), 1);
	assert_int_equal(fx->q.flushed_to, 5);
}

static void a_flush_to_uint64_max_empties_the_queue(void **state)
{
	struct fixture *fx = *state;
	static const uint64_t want[] = { 0, 1, UINT64_MAX - 1, UINT64_MAX };

	push(&fx->q, UINT64_MAX, 1, 0);
	push(&fx->q, 1, 1, 0);
	push(&fx->q, UINT64_MAX - 1, 2, 1);
	push(&fx->q, 0, 2, 1);
	assert_int_equal(order_queue_flush(&fx->q, UINT64_MAX, record_ev, fx->log), 4);
	assert_ts(fx->log, want, 4);
	assert_int_equal(order_queue_count(&fx->q), 0);
	assert_int_equal(order_queue_flush(&fx->q, UINT64_MAX, record_ev, fx->log), 0);
}

/* Four rings of 3000 events each, drained in turn between flushes. */
static void events_past_the_first_allocation_come_out_sorted(void **state)
{
	struct fixture *fx = *state;
	uint64_t wm = 0;

	for (int round = 0; round < 4; round++) {
		for (uint32_t cpu = 0; cpu < 4; cpu++)
			for (uint64_t i = 0; i < 750; i++)
				push(&fx->q, (uint64_t)round * 3000 + i * 4 + cpu,
				     cpu, cpu);
		wm = (uint64_t)round * 3000 + 1500;
		order_queue_flush(&fx->q, wm, record_ev, fx->log);
	}
	order_queue_flush(&fx->q, UINT64_MAX, record_ev, fx->log);
	assert_int_equal(fx->log->n, 12000);
	for (size_t i = 0; i < 12000; i++)
		assert_int_equal(fx->log->ts[i], i);
	assert_int_equal(fx->q.late, 0);
}

/* A watermark a round and a half behind: each flush hands out fewer
 * events than it leaves, which stay where they are (no move at each
 * flush) until those handed out are as many; the next round's runs are
 * merged with them all the same, and the array does not grow with the
 * rounds. */
static void events_left_behind_a_lagging_watermark_stay_in_order(void **state)
{
	struct fixture *fx = *state;
	size_t cap = 0;
	int kept_behind = 0;

	for (uint64_t round = 0; round < 40; round++) {
		for (uint32_t cpu = 0; cpu < 2; cpu++)
			for (uint64_t i = 0; i < 100; i++)
				push(&fx->q, round * 200 + i * 2 + cpu, cpu, cpu);
		if (round >= 2)
			order_queue_flush(&fx->q, round * 200 - 300, record_ev,
					  fx->log);
		kept_behind |= fx->q.head > 0;
		if (round == 10)
			cap = fx->q.cap;
	}
	assert_true(kept_behind);
	assert_int_equal(fx->q.cap, cap);
	order_queue_flush(&fx->q, UINT64_MAX, record_ev, fx->log);
	assert_int_equal(fx->log->n, 8000);
	for (size_t i = 0; i < 8000; i++)
		assert_int_equal(fx->log->ts[i], i);
	assert_int_equal(fx->q.late, 0);
}

/* Seven runs (seven rings), each 0, 0, 1, 1, 2, 2...: every timestamp is
 * in every run, and its events come out in the order they were pushed,
 * run by run, whatever pass of the merge brings them together. */
static void equal_timestamps_across_many_runs_keep_their_push_order(void **state)
{
	struct fixture *fx = *state;

	for (uint32_t run = 0; run < 7; run++)
		for (uint64_t i = 0; i < 40; i++)
			push(&fx->q, i / 2, run * 100 + (uint32_t)i, run);
	assert_int_equal(order_queue_flush(&fx->q, UINT64_MAX, record_ev, fx->log), 280);
	for (size_t k = 0; k < 280; k++) {
		uint64_t ts = k / 14;
		size_t in_ts = k % 14;	/* 7 runs x 2 events of this ts */

		assert_int_equal(fx->log->ts[k], ts);
		assert_int_equal(fx->log->tid[k], (in_ts / 2) * 100 + ts * 2 + in_ts % 2);
	}
}

/* Pushed events, for the stable sort they must come out in. */
struct pushed {
	uint64_t ts;
	uint32_t id;	/* push order */
};

static int by_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static int by_ts_then_push(const void *a, const void *b)
{
	const struct pushed *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Rounds of three rings, each sorted, with ties, over a span three times
 * what each flush hands out, so that what a flush leaves behind and the
 * next rings interleave (as a switch storm's do behind the slack), and
 * some of a ring may sort before all of the left-behind: the events come
 * out as a stable sort of everything pushed.  None is late: each ring
 * starts past the last watermark.
 */
static void rings_interleaving_what_a_flush_left_come_out_as_a_stable_sort(void **state)
{
	struct fixture *fx = *state;
	static struct pushed all[40 * 3 * 50];
	uint64_t x = 88172645463325252ull, w = 0, ts[50];
	size_t n = 0;

	for (int round = 0; round < 40; round++) {
		for (uint32_t cpu = 0; cpu < 3; cpu++) {
			for (int i = 0; i < 50; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				ts[i] = w + 1 + x % (round % 5 == 4 ? 40 : 3000);
			}
			qsort(ts, 50, sizeof(*ts), by_u64);
			for (int i = 0; i < 50; i++) {
				all[n].ts = ts[i];
				all[n].id = (uint32_t)n;
				push(&fx->q, ts[i], (uint32_t)n++, cpu);
			}
		}
		w += 1000;
		order_queue_flush(&fx->q, w, record_ev, fx->log);
	}
	order_queue_flush(&fx->q, UINT64_MAX, record_ev, fx->log);
	qsort(all, n, sizeof(*all), by_ts_then_push);
	assert_int_equal(fx->log->n, n);
	assert_int_equal(fx->q.late, 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(fx->log->ts[i], all[i].ts);
		assert_int_equal(fx->log->tid[i], all[i].id);
	}
}

#define ORDER_TEST(t) cmocka_unit_test_setup_teardown(t, fixture_setup, fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		ORDER_TEST(events_from_two_rings_come_out_in_time_order),
		ORDER_TEST(equal_timestamps_across_many_runs_keep_their_push_order),
		ORDER_TEST(events_above_the_watermark_wait_for_a_later_flush),
		ORDER_TEST(equal_timestamps_keep_their_push_order),
		ORDER_TEST(many_equal_timestamps_keep_their_push_order),
		ORDER_TEST(an_event_at_or_below_a_flushed_watermark_is_late_but_delivered),
		ORDER_TEST(a_failing_callback_stops_the_flush_and_keeps_the_rest),
		ORDER_TEST(a_flush_to_uint64_max_empties_the_queue),
		ORDER_TEST(events_past_the_first_allocation_come_out_sorted),
		ORDER_TEST(events_left_behind_a_lagging_watermark_stay_in_order),
		ORDER_TEST(rings_interleaving_what_a_flush_left_come_out_as_a_stable_sort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
