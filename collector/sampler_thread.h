/*
 * sampler_thread: a thread that reads something every interval and queues
 * what it read for another thread to take; the reading itself is a
 * callback's (collector/udp_sampler.c reads sockets with it).
 *
 * Why a thread of its own: the recorder's loop wakes only when the rings
 * fill or once a second, and a wake-up of that loop every millisecond
 * cost more than the sampling itself (44 us of CPU each on the 2-core VM,
 * see bench/collector/udp_sampling.sh).
 *
 * The timing rule: the thread wakes at the absolute CLOCK_MONOTONIC times
 * start + k * interval, k = 0, 1, 2, ..., by clock_nanosleep(TIMER_ABSTIME),
 * so the period does not drift with the time a sample takes.  Woken late
 * by an interval or more (the machine was busy, or the last sample took
 * that long), it samples once, and the due times it slept through count
 * as missed: tick.missed tells the callback, which may store it (a row
 * saying when sampling resumed); the counts add it up.
 *
 * The queue: each wake-up's readings (fixed-size records of the caller's
 * type, any number of them) are appended all together or not at all.  It
 * holds at most queue_max readings: when the taker falls that far behind,
 * the sample is dropped and counted as missed (and dropped); the thread
 * never blocks on the taker, and the taker holds the lock only to swap
 * buffers.
 *
 * Usage:
 *	sampler_thread_init(&t);
 *	sampler_thread_start(&t, &cfg, &e);	the thread; cfg.sample runs on it
 *	sampler_thread_take(&t, &batch);	what it read so far (repeat)
 *	sampler_thread_stop(&t);		joins it
 *	sampler_thread_take(&t, &batch);	the rest
 *	sampler_thread_counts(&t, &c);
 *	sampler_thread_release(&t);
 */
#ifndef FL_SAMPLER_THREAD_H
#define FL_SAMPLER_THREAD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"

/* Readings of one size, one after another. */
struct sampler_batch {
	void *v;		/* owned: n readings of size bytes (cap allocated) */
	size_t n, cap;
	size_t size;		/* bytes a reading */
};

static inline const void *sampler_batch_at(const struct sampler_batch *b,
					   size_t i)
{
	return (const char *)b->v + i * b->size;
}

/* Room for one more reading at the end of b: a zeroed reading (borrowed:
 * valid until the next call), or NULL when out of memory. */
void *sampler_batch_add(struct sampler_batch *b);

/* One wake-up, as the callback is told of it. */
struct sampler_tick {
	uint64_t due_mono_ns;	/* CLOCK_MONOTONIC: start + k * interval */
	uint64_t woke_mono_ns;	/* CLOCK_MONOTONIC: when the thread woke */
	uint64_t missed;	/* due times slept through just before this one */
};

/*
 * Reads one sample on the sampling thread, appending its readings to out
 * with sampler_batch_add (out is empty at the call; the callback may
 * lower out->n to take back what it added).  0, or a negative errno,
 * which ends the thread: sampler_thread_take returns it from then on and
 * that sample's readings are not queued.
 */
typedef int sampler_fn(void *ctx, const struct sampler_tick *tick,
		       struct sampler_batch *out);

struct sampler_config {
	const char *name;	/* borrowed, static: "socket sampling", for messages */
	uint64_t interval_ns;	/* > 0 */
	size_t reading_size;	/* bytes a reading, > 0 */
	size_t queue_max;	/* readings the queue holds at most, > 0 */
	sampler_fn *sample;
	void *ctx;		/* borrowed: handed to sample, on the thread */
};

struct sampler_counts {
	uint64_t samples;	/* wake-ups whose readings were queued */
	uint64_t missed;	/* due times that passed without a queued sample */
	uint64_t dropped;	/* of those, samples dropped for a full queue */
	uint64_t dropped_readings;	/* the readings of those samples */
	uint64_t busy_ns;	/* CLOCK_MONOTONIC time spent sampling and queuing */
};

struct sampler_thread {
	struct sampler_config cfg;
	pthread_t thread;
	int started;
	int stop;			/* set by stop; read and written atomically */
	struct sampler_batch local;	/* the thread's own: the sample being read */
	pthread_mutex_t lock;
	/* Guarded by lock: */
	struct sampler_batch queue;	/* filled by the thread */
	struct sampler_batch taken;	/* handed out by take; the taker's
					 * between two takes */
	int err;			/* the callback's -errno: the thread ended */
	struct sampler_counts counts;
};

/* Sets t up (no thread yet); allocates nothing. */
void sampler_thread_init(struct sampler_thread *t);

/* Stops the thread if it runs, frees the queues; t is as after init. */
void sampler_thread_release(struct sampler_thread *t);

/* Starts the thread with *cfg (copied; cfg->ctx must outlive the thread).
 * 0, or -errno with e naming cfg->name. */
int sampler_thread_start(struct sampler_thread *t,
			 const struct sampler_config *cfg, struct errmsg *e);

/* The readings queued since the last take, in the order they were read,
 * into *out (borrowed: valid until the next take or release).  0, or the
 * callback's -errno once it failed (what was read before is still in
 * *out). */
int sampler_thread_take(struct sampler_thread *t,
			const struct sampler_batch **out);

/* Stops and joins the thread; what it queued stays for the next take.
 * Returns within about SAMPLER_STOP_NS plus one callback's time, however
 * long the interval.  A no-op if it was not started. */
void sampler_thread_stop(struct sampler_thread *t);

/* The counts so far (final once stopped). */
void sampler_thread_counts(struct sampler_thread *t, struct sampler_counts *out);

/* The longest the thread sleeps without looking at the stop flag: a stop
 * waits no longer than this for a long interval to end. */
#define SAMPLER_STOP_NS (50ull * 1000 * 1000)

#endif
