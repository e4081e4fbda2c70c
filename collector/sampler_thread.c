#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/array.h"
#include "../common/clock.h"
#include "sampler_thread.h"

void *sampler_batch_add(struct sampler_batch *b)
{
	void *r;

	if (array_reserve(&b->v, &b->cap, b->n + 1, b->size) < 0)
		return NULL;
	r = (char *)b->v + b->n++ * b->size;
	memset(r, 0, b->size);
	return r;
}

void sampler_thread_init(struct sampler_thread *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
}

void sampler_thread_release(struct sampler_thread *t)
{
	sampler_thread_stop(t);
	free(t->local.v);
	free(t->queue.v);
	free(t->taken.v);
	pthread_mutex_destroy(&t->lock);
	sampler_thread_init(t);
}

static int stopping(struct sampler_thread *t)
{
	return __atomic_load_n(&t->stop, __ATOMIC_ACQUIRE);
}

/*
 * Sleeps until due (CLOCK_MONOTONIC), in steps of at most SAMPLER_STOP_NS
 * so that a stop is seen during a long interval.  1 with the time it woke
 * in *woke, or 0 once stopped.  An interval up to SAMPLER_STOP_NS costs
 * one clock_nanosleep a sample, as before there was a stop to look for.
 */
static int sleep_until(struct sampler_thread *t, uint64_t due, uint64_t *woke)
{
	while (!stopping(t)) {
		uint64_t now = monotonic_ns(), until;
		struct timespec ts;

		if (now >= due) {
			*woke = now;
			return 1;
		}
		until = due - now > SAMPLER_STOP_NS ? now + SAMPLER_STOP_NS : due;
		ts.tv_sec = (time_t)(until / 1000000000ull);
		ts.tv_nsec = (long)(until % 1000000000ull);
		/* EINTR or not, the loop looks at the clock again. */
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return 0;
}

/* Appends the sample in t->local to the queue, all or nothing; lock
 * held.  0, -ENOSPC when the queue has no room for it, or -ENOMEM. */
static int queue_append(struct sampler_thread *t)
{
	struct sampler_batch *q = &t->queue, *s = &t->local;

	if (s->n == 0)
		return 0;	/* a sample that found nothing to read */
	/* q->n <= queue_max always: the subtraction cannot wrap. */
	if (s->n > t->cfg.queue_max - q->n)
		return -ENOSPC;
	if (array_reserve(&q->v, &q->cap, q->n + s->n, q->size) < 0)
		return -ENOMEM;
	memcpy((char *)q->v + q->n * q->size, s->v, s->n * s->size);
	q->n += s->n;
	return 0;
}

/* Queues what the callback read (err: its return) and counts the
 * wake-up; returns the error that ends the thread, or 0. */
static int finish_sample(struct sampler_thread *t, const struct sampler_tick *tick,
			 int err)
{
	uint64_t missed = tick->missed;

	pthread_mutex_lock(&t->lock);
	if (err == 0)
		err = queue_append(t);
	if (err == -ENOSPC) {
		/* The taker is far behind: this sample is dropped. */
		err = 0;
		missed++;
		t->counts.dropped++;
		t->counts.dropped_readings += t->local.n;
	} else if (err == 0) {
		t->counts.samples++;
	}
	t->counts.missed += missed;
	t->counts.busy_ns += monotonic_ns() - tick->woke_mono_ns;
	t->err = err;
	pthread_mutex_unlock(&t->lock);
	return err;
}

/* The timing rule of the header: due times start + k * interval. */
static void *sampler_main(void *arg)
{
	struct sampler_thread *t = arg;
	uint64_t interval = t->cfg.interval_ns;
	struct sampler_tick tick = { .due_mono_ns = monotonic_ns() };
	int err = 0;

	while (err == 0 && sleep_until(t, tick.due_mono_ns, &tick.woke_mono_ns)) {
		tick.missed = 0;
		if (tick.woke_mono_ns - tick.due_mono_ns >= interval)
			tick.missed = (tick.woke_mono_ns - tick.due_mono_ns) / interval;
		t->local.n = 0;
		err = t->cfg.sample(t->cfg.ctx, &tick, &t->local);
		err = finish_sample(t, &tick, err);
		tick.due_mono_ns += (tick.missed + 1) * interval;
	}
	return NULL;
}

int sampler_thread_start(struct sampler_thread *t,
			 const struct sampler_config *cfg, struct errmsg *e)
{
	sigset_t all, old;
	int err;

	if (!cfg->interval_ns || !cfg->reading_size || !cfg->queue_max)
		return errmsg_set(e, EINVAL, "cannot start the %s thread: its "
				  "interval, reading size and queue must not be 0",
				  cfg->name);
	t->cfg = *cfg;
	t->local.size = t->queue.size = t->taken.size = cfg->reading_size;
	t->stop = 0;
	/* Signals are for the thread that owns the recording (the recorder
	 * reads them from a signalfd): the sampling thread takes none. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t->thread, NULL, sampler_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return errmsg_set(e, err, "cannot start the %s thread: %s",
				  cfg->name, strerror(err));
	t->started = 1;
	return 0;
}

int sampler_thread_take(struct sampler_thread *t,
			const struct sampler_batch **out)
{
	struct sampler_batch old;
	int err;

	pthread_mutex_lock(&t->lock);
	old = t->taken;
	old.n = 0;
	t->taken = t->queue;
	t->queue = old;
	err = t->err;
	pthread_mutex_unlock(&t->lock);
	*out = &t->taken;
	return err;
}

void sampler_thread_stop(struct sampler_thread *t)
{
	if (!t->started)
		return;
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	pthread_join(t->thread, NULL);
	t->started = 0;
}

void sampler_thread_counts(struct sampler_thread *t, struct sampler_counts *out)
{
	pthread_mutex_lock(&t->lock);
	*out = t->counts;
	pthread_mutex_unlock(&t->lock);
}
