/*
 * collector/sampler_thread: the wake-up times, the intervals counted as
 * missed when a sample is late, the bounded queue that drops whole
 * samples, and stop.  Lateness is forced by a callback that sleeps, never
 * waited for from the machine's load; waits for the thread's progress are
 * bounded polls of its counts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../../collector/sampler_thread.h"
#include "../../common/clock.h"
#include "records.h"

#define MS (1000ull * 1000)
#define MAX_TICKS 256

struct reading {
	uint64_t seq;		/* the callback's call, from 0 */
	uint32_t part;		/* which of the sample's readings */
};

/* What the callback does and saw; the test reads it once the thread is
 * stopped (the join orders it), or through the thread's counts. */
struct probe {
	unsigned per_sample;	/* readings each sample adds */
	uint64_t slow_call;	/* this call sleeps slow_ns first */
	uint64_t slow_ns;
	uint64_t fail_call;	/* this call fails with -EIO; UINT64_MAX: none */
	uint64_t calls;
	uint64_t missed;	/* tick.missed, summed */
	struct sampler_tick ticks[MAX_TICKS];	/* of the first calls */
};

static void sleep_ns(uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000ull),
			      (long)(ns % 1000000000ull) };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

static int probe_sample(void *ctx, const struct sampler_tick *tick,
			struct sampler_batch *out)
{
	struct probe *p = ctx;
	uint64_t call = p->calls++;

	if (call < MAX_TICKS)
		p->ticks[call] = *tick;
	p->missed += tick->missed;
	if (call == p->slow_call)
		sleep_ns(p->slow_ns);
	for (unsigned i = 0; i < p->per_sample; i++) {
		struct reading *r = sampler_batch_add(out);

		if (!r)
			return -ENOMEM;
		r->seq = call;
		r->part = i;
	}
	return call == p->fail_call ? -EIO : 0;
}

static void probe_init(struct probe *p)
{
	memset(p, 0, sizeof(*p));
	p->per_sample = 1;
	p->slow_call = p->fail_call = UINT64_MAX;
}

static void start(struct sampler_thread *t, struct probe *p,
		  uint64_t interval_ns, size_t queue_max)
{
	const struct sampler_config cfg = {
		"probe sampling", interval_ns, sizeof(struct reading), queue_max,
		probe_sample, p,
	};
	struct errmsg e;

	errmsg_init(&e);
	sampler_thread_init(t);
	if (sampler_thread_start(t, &cfg, &e) < 0)
		fail_msg("%s", e.text);
}

/* Waits, at most 20 s, for n wake-ups that queued or dropped a sample. */
static void wait_wakeups(struct sampler_thread *t, uint64_t n)
{
	for (int waited_ms = 0; waited_ms < 20000; waited_ms++) {
		struct sampler_counts c;

		sampler_thread_counts(t, &c);
		if (c.samples + c.dropped >= n)
			return;
		sleep_ns(MS);
	}
	fail_msg("the thread did not wake %llu times in 20 s",
		 (unsigned long long)n);
}

static void a_slow_sample_counts_the_intervals_it_slept_through(void **state)
{
	const uint64_t interval = 10 * MS;
	struct sampler_thread t;
	struct sampler_counts c;
	struct probe p;

	(void)state;
	probe_init(&p);
	p.slow_call = 0;
	p.slow_ns = 35 * MS;	/* 3.5 intervals: the next two are slept through */
	start(&t, &p, interval, 1000);
	wait_wakeups(&t, 4);
	sampler_thread_stop(&t);
	sampler_thread_counts(&t, &c);

	assert_true(p.calls >= 4);
	assert_true(p.ticks[1].missed >= 2);
	for (uint64_t i = 0; i < p.calls && i < MAX_TICKS; i++) {
		const struct sampler_tick *k = &p.ticks[i];

		/* Woken at or after its due time, late by missed intervals. */
		assert_true(k->woke_mono_ns >= k->due_mono_ns);
		assert_int_equal((k->woke_mono_ns - k->due_mono_ns) / interval,
				 k->missed);
		/* Due at start + k * interval: no drift however long a
		 * sample took; the next is due after what was missed. */
		if (i > 0)
			assert_int_equal(k->due_mono_ns, p.ticks[i - 1].due_mono_ns +
					 (p.ticks[i - 1].missed + 1) * interval);
	}
	assert_int_equal(c.missed, p.missed);
	assert_int_equal(c.dropped, 0);
	assert_int_equal(c.samples, p.calls);
	assert_true(c.busy_ns >= p.slow_ns);
	sampler_thread_release(&t);
}

static void a_full_queue_drops_whole_samples_and_counts_them_missed(void **state)
{
	const struct sampler_batch *b;
	struct sampler_thread t;
	struct sampler_counts c;
	struct probe p;

	(void)state;
	probe_init(&p);
	p.per_sample = 2;
	/* Room for two samples and half of a third, which is not queued. */
	start(&t, &p, 1 * MS, 5);
	wait_wakeups(&t, 6);
	sampler_thread_counts(&t, &c);
	assert_int_equal(c.samples, 2);
	assert_true(c.dropped >= 4);
	assert_true(c.missed >= c.dropped);
	assert_int_equal(c.dropped_readings, 2 * c.dropped);

	/* The taker catches up: samples are queued again. */
	assert_int_equal(sampler_thread_take(&t, &b), 0);
	assert_int_equal(b->n, 4);
	for (size_t i = 0; i < 4; i++) {
		const struct reading *r = sampler_batch_at(b, i);

		assert_int_equal(r->seq, i / 2);
		assert_int_equal(r->part, i % 2);
	}
	wait_wakeups(&t, c.samples + c.dropped + 1);
	sampler_thread_stop(&t);
	sampler_thread_counts(&t, &c);
	assert_int_equal(sampler_thread_take(&t, &b), 0);
	assert_true(c.samples == 3 || c.samples == 4);
	assert_int_equal(b->n, 2 * (c.samples - 2));
	/* What came in after the drops is a later call's. */
	assert_true(((const struct reading *)sampler_batch_at(b, 0))->seq > 2);
	assert_int_equal(c.samples + c.dropped, p.calls);
	assert_int_equal(c.dropped_readings, 2 * c.dropped);
	sampler_thread_release(&t);
}

static void stop_joins_and_every_sample_read_before_it_is_taken(void **state)
{
	const struct sampler_batch *b;
	struct sampler_thread t;
	struct sampler_counts c;
	struct probe p;
	uint64_t next = 0;

	(void)state;
	probe_init(&p);
	start(&t, &p, 1 * MS, 1u << 20);
	for (int i = 0; i < 5; i++) {
		wait_wakeups(&t, 5 * (uint64_t)(i + 1));
		assert_int_equal(sampler_thread_take(&t, &b), 0);
		for (size_t k = 0; k < b->n; k++)
			assert_int_equal(((const struct reading *)
					  sampler_batch_at(b, k))->seq, next++);
	}
	sampler_thread_stop(&t);
	assert_int_equal(sampler_thread_take(&t, &b), 0);
	for (size_t k = 0; k < b->n; k++)
		assert_int_equal(((const struct reading *)sampler_batch_at(b, k))->seq,
				 next++);
	/* Nothing read was lost, and nothing is read once stopped. */
	sampler_thread_counts(&t, &c);
	assert_int_equal(next, p.calls);
	assert_int_equal(c.samples, p.calls);
	assert_int_equal(sampler_thread_take(&t, &b), 0);
	assert_int_equal(b->n, 0);
	sampler_thread_release(&t);
}

static void the_first_sample_is_at_start_and_stop_ends_a_long_interval(void **state)
{
	const struct sampler_batch *b;
	struct sampler_thread t;
	struct probe p;
	uint64_t before;

	(void)state;
	probe_init(&p);
	start(&t, &p, 3600ull * 1000 * MS, 10);
	wait_wakeups(&t, 1);
	before = monotonic_ns();
	sampler_thread_stop(&t);
	/* SAMPLER_STOP_NS, with room for a busy machine; not the hour. */
	assert_true(monotonic_ns() - before < 10000 * MS);
	assert_int_equal(sampler_thread_take(&t, &b), 0);
	assert_int_equal(b->n, 1);
	assert_int_equal(p.calls, 1);
	sampler_thread_release(&t);
}

static void a_failing_sample_ends_the_thread_and_take_says_why(void **state)
{
	const struct sampler_batch *b;
	struct sampler_thread t;
	struct probe p;
	size_t n = 0;
	int err = 0;

	(void)state;
	probe_init(&p);
	p.fail_call = 2;
	start(&t, &p, 1 * MS, 100);
	for (int waited_ms = 0; err == 0 && waited_ms < 20000; waited_ms++) {
		err = sampler_thread_take(&t, &b);
		n += b->n;
		if (err == 0)
			sleep_ns(MS);
	}
	assert_int_equal(err, -EIO);
	/* The two samples before it, not the failed one's reading. */
	assert_int_equal(n, 2);
	sampler_thread_stop(&t);
	assert_int_equal(p.calls, 3);
	assert_int_equal(sampler_thread_take(&t, &b), -EIO);
	sampler_thread_release(&t);
}

static void a_sample_that_reads_nothing_still_counts(void **state)
{
	const struct sampler_batch *b;
	struct sampler_thread t;
	struct sampler_counts c;
	struct probe p;

	(void)state;
	probe_init(&p);
	p.per_sample = 0;
	start(&t, &p, 1 * MS, 1);
	wait_wakeups(&t, 3);
	sampler_thread_stop(&t);
	sampler_thread_counts(&t, &c);
	assert_int_equal(c.samples, p.calls);
	assert_int_equal(c.dropped, 0);
	assert_int_equal(sampler_thread_take(&t, &b), 0);
	assert_int_equal(b->n, 0);
	sampler_thread_release(&t);
}

static void a_zero_interval_is_refused_naming_the_thread(void **state)
{
	const struct sampler_config cfg = {
		"probe sampling", 0, sizeof(struct reading), 10, probe_sample, NULL,
	};
	struct sampler_thread t;
	struct errmsg e;

	(void)state;
	errmsg_init(&e);
	sampler_thread_init(&t);
	assert_int_equal(sampler_thread_start(&t, &cfg, &e), -EINVAL);
	assert_non_null(strstr(e.text, "cannot start the probe sampling thread"));
	sampler_thread_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_slow_sample_counts_the_intervals_it_slept_through),
		cmocka_unit_test(a_full_queue_drops_whole_samples_and_counts_them_missed),
		cmocka_unit_test(stop_joins_and_every_sample_read_before_it_is_taken),
		cmocka_unit_test(the_first_sample_is_at_start_and_stop_ends_a_long_interval),
		cmocka_unit_test(a_failing_sample_ends_the_thread_and_take_says_why),
		cmocka_unit_test(a_sample_that_reads_nothing_still_counts),
		cmocka_unit_test(a_zero_interval_is_refused_naming_the_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
