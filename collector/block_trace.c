#include <errno.h>
#include <kbuffer.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../decoder/block_rq.h"
#include "block_trace.h"
#include "procfs.h"
#include "recorder.h"

#define INSTANCE_PREFIX "faultline-"

static const char *const block_events[] = {
	"block_rq_insert", "block_rq_issue", "block_rq_complete",
	"block_rq_requeue",
};

void block_trace_init(struct block_trace *bt)
{
	memset(bt, 0, sizeof(*bt));
	sampler_thread_init(&bt->thread);
	bt->last.size = sizeof(struct block_reading);
}

/* Is the instance "faultline-PID" stale: its PID runs no faultline now
 * (killed outright, its PID perhaps reused: a thread of another name),
 * or is this process's own, left by an earlier process of the same PID?
 * (Were a running recorder taken for stale, its instance would still
 * stay: tracefs refuses to remove an instance with open files, and its
 * readers are open while it records.) */
static int stale(const char *name)
{
	char comm[16], mine[16];
	char *end;
	long pid = strtol(name + strlen(INSTANCE_PREFIX), &end, 10);

	if (*end || pid <= 0)
		return 0;
	if (pid == (long)getpid() ||
	    proc_read_comm((pid_t)pid, (pid_t)pid, comm) < 0)
		return 1;
	if (proc_read_comm(getpid(), getpid(), mine) < 0)
		return 0;
	return strcmp(comm, mine) != 0;
}

struct stale_walk {
	char **names;		/* owned: tracefs_list_add's */
};

/* tracefs_instances_walk's callback: keeps the stale ones' names.  (Not
 * tracefs_instances(regex): libtracefs 1.6 does not free its regex.) */
static int note_stale(const char *name, void *ctx)
{
	struct stale_walk *w = ctx;
	size_t n = strlen(INSTANCE_PREFIX);
	char **more;

	if (strncmp(name, INSTANCE_PREFIX, n) || !name[n] ||
	    strspn(name + n, "0123456789") != strlen(name + n) || !stale(name))
		return 0;
	if (!(more = tracefs_list_add(w->names, name)))
		return 1;	/* out of memory: the walk stops, best effort */
	w->names = more;
	return 0;
}

/* Removes the stale instances; note names them (or stays empty).  Best
 * effort: one that cannot be removed stays, as it was. */
static void remove_stale(struct errmsg *note)
{
	struct stale_walk w = { NULL };
	struct tracefs_instance *old;
	const char *first = NULL;
	int n = 0;

	tracefs_instances_walk(note_stale, &w);
	for (int i = 0; w.names && w.names[i]; i++) {
		if (!(old = tracefs_instance_alloc(NULL, w.names[i])))
			continue;
		if (tracefs_instance_destroy(old) == 0 && n++ == 0)
			first = w.names[i];
		tracefs_instance_free(old);
	}
	if (n == 1)
		errmsg_set(note, 0, "removed the tracefs instance '%s' that a "
			   "killed faultline left behind", first);
	else if (n > 1)
		errmsg_set(note, 0, "removed %d tracefs instances that killed "
			   "faultlines left behind ('%s' first)", n, first);
	tracefs_list_free(w.names);
}

/* tracefs refused something: the cause and the fix. */
static int refused(struct errmsg *e, const char *what)
{
	int err = errno ? errno : EACCES;

	return errmsg_set(e, err, "cannot %s in %s for --block-io: %s; it needs "
			  "tracefs mounted and writable (run as root, or mount "
			  "it: mount -t tracefs nodev /sys/kernel/tracing)", what,
			  tracefs_tracing_dir() ? tracefs_tracing_dir() :
			  "tracefs", strerror(err));
}

static int make_instance(struct block_trace *bt, unsigned buffer_kb,
			 struct errmsg *e)
{
	char name[32];
	char buf[16];

	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d", (int)getpid());
	errno = 0;
	bt->inst = tracefs_instance_create(name);
	if (!bt->inst)
		return refused(e, "make a tracefs instance");
	snprintf(buf, sizeof(buf), "%u", buffer_kb);
	if (tracefs_trace_off(bt->inst) < 0 ||
	    tracefs_instance_file_write(bt->inst, "trace_clock", "mono") < 0 ||
	    tracefs_instance_file_write(bt->inst, "buffer_size_kb", buf) < 0)
		return refused(e, "set up the tracefs instance");
	return 0;
}

static int open_readers(struct block_trace *bt, const int *cpus, int ncpus,
			struct errmsg *e)
{
	bt->cpus = calloc((size_t)ncpus, sizeof(*bt->cpus));
	bt->tcpu = calloc((size_t)ncpus, sizeof(*bt->tcpu));
	bt->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST,
				 KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!bt->cpus || !bt->tcpu || !bt->kbuf)
		return errmsg_set(e, ENOMEM, "out of memory");
	for (int i = 0; i < ncpus; i++) {
		bt->cpus[i] = cpus[i];
		bt->tcpu[bt->ncpus] = tracefs_cpu_open(bt->inst, cpus[i], true);
		if (!bt->tcpu[bt->ncpus])
			return refused(e, "open a CPU's trace_pipe_raw");
		bt->ncpus++;
	}
	bt->page_size = bt->ncpus ? tracefs_cpu_read_size(bt->tcpu[0]) : 0;
	if (bt->page_size <= 0 || !(bt->page = malloc((size_t)bt->page_size)))
		return errmsg_set(e, ENOMEM, "out of memory");
	return 0;
}

/*
 * Reads CPU i's buffer until it is empty, calling fn for each event with
 * its raw bytes and CLOCK_MONOTONIC stamp.  0, fn's negative return, or
 * -errno of a read that failed otherwise than for want of data.
 */
static int read_cpu(struct block_trace *bt, int i,
		    int (*fn)(void *ctx, int cpu, uint64_t ts, const void *raw,
			      int size),
		    void *ctx)
{
	unsigned long long ts;
	void *data;
	int n, err = 0;

	while (err == 0 && (n = tracefs_cpu_read(bt->tcpu[i], bt->page, true)) > 0) {
		if (kbuffer_load_subbuffer(bt->kbuf, bt->page) < 0)
			return -EBADMSG;
		while (err == 0 && (data = kbuffer_read_event(bt->kbuf, &ts))) {
			err = fn(ctx, bt->cpus[i], ts, data,
				 kbuffer_event_size(bt->kbuf));
			kbuffer_next_event(bt->kbuf, NULL);
		}
	}
	if (err == 0 && n < 0 && errno != EAGAIN && errno != EINTR)
		err = -errno;
	return err;
}

struct first_event {
	int seen;
	uint64_t ts;
};

static int note_first(void *ctx, int cpu, uint64_t ts, const void *raw,
		      int size)
{
	struct first_event *f = ctx;

	(void)cpu;
	(void)raw;
	(void)size;
	if (!f->seen)
		f->ts = ts;
	f->seen = 1;
	return 0;
}

/*
 * The instance's clock is CLOCK_MONOTONIC, as the session's anchors: a
 * marker written between two monotonic reads comes back stamped between
 * them.  Runs before the block events are on, so the marker is the only
 * event in the buffers.
 */
static int check_clock(struct block_trace *bt, struct errmsg *e)
{
	struct first_event f = { 0, 0 };
	uint64_t before, after;
	int err = 0;

	if (tracefs_trace_on(bt->inst) < 0)
		return refused(e, "turn tracing on");
	before = monotonic_ns();
	if (tracefs_printf(bt->inst, "faultline clock check\n") < 0)
		return refused(e, "write a trace marker");
	after = monotonic_ns();
	tracefs_print_close(bt->inst);
	for (int i = 0; i < bt->ncpus && err == 0; i++)
		err = read_cpu(bt, i, note_first, &f);
	if (err < 0)
		return errmsg_set(e, -err, "cannot read the tracefs instance's "
				  "buffers: %s", strerror(-err));
	if (!f.seen || f.ts < before || f.ts > after)
		return errmsg_set(e, EINVAL, "the tracefs instance's clock is not "
				  "CLOCK_MONOTONIC: a marker written between %llu "
				  "and %llu came back %s %llu; --block-io needs "
				  "trace_clock 'mono' (Linux 4.1 or later)",
				  (unsigned long long)before,
				  (unsigned long long)after,
				  f.seen ? "stamped" : "not", (unsigned long long)f.ts);
	return 0;
}

int block_trace_open(struct block_trace *bt, const int *cpus, int ncpus,
		     unsigned buffer_kb, struct errmsg *note, struct errmsg *e)
{
	int err;

	remove_stale(note);
	err = make_instance(bt, buffer_kb, e);
	if (err == 0)
		err = open_readers(bt, cpus, ncpus, e);
	if (err == 0)
		err = check_clock(bt, e);
	for (size_t i = 0; err == 0 && i < sizeof(block_events) /
					       sizeof(block_events[0]); i++) {
		errno = 0;
		if (tracefs_event_enable(bt->inst, "block", block_events[i]) < 0)
			err = refused(e, "enable the block tracepoints");
	}
	return err;
}

struct sample_ctx {
	struct sampler_batch *out;
	uint64_t *read;
};

/* One event as a reading; the raw bytes past BLOCK_RAW_MAX are cut. */
static int add_event(void *ctx, int cpu, uint64_t ts, const void *raw,
		     int size)
{
	struct sample_ctx *s = ctx;
	struct block_reading *r = sampler_batch_add(s->out);

	if (!r)
		return -ENOMEM;
	r->mono_ns = ts;
	r->cpu = (uint32_t)cpu;
	r->kind = BLOCK_READ_EVENT;
	r->size = (uint16_t)(size < 0 ? 0 : size > BLOCK_RAW_MAX ? BLOCK_RAW_MAX :
			     size);
	memcpy(r->raw, raw, r->size);
	(*s->read)++;
	return 0;
}

/* One pass over every CPU, ending with what it guarantees. */
static int read_all(struct block_trace *bt, uint64_t until,
		    struct sampler_batch *out)
{
	struct sample_ctx s = { out, &bt->read };
	struct block_reading *r;
	int err = 0;

	for (int i = 0; i < bt->ncpus && err == 0; i++)
		err = read_cpu(bt, i, add_event, &s);
	if (err == 0 && !(r = sampler_batch_add(out)))
		err = -ENOMEM;
	if (err == 0) {
		r->kind = BLOCK_READ_UNTIL;
		r->mono_ns = until;
	}
	return err;
}

/* The reading thread's pass: everything stamped before it woke, less the
 * time a writer may still take to commit an event it stamped
 * (RECORDER_ORDER_SLACK_NS, as for the rings), is read once the buffers
 * are empty. */
static int sample(void *ctx, const struct sampler_tick *tick,
		  struct sampler_batch *out)
{
	uint64_t woke = tick->woke_mono_ns;

	return read_all(ctx, woke > RECORDER_ORDER_SLACK_NS ?
			woke - RECORDER_ORDER_SLACK_NS : 0, out);
}

int block_trace_start(struct block_trace *bt, struct errmsg *e)
{
	struct sampler_config cfg = {
		.name = "block I/O reading",
		.interval_ns = BLOCK_TRACE_INTERVAL_NS,
		.reading_size = sizeof(struct block_reading),
		/* 32 MiB of readings at most: seconds of a busy disk */
		.queue_max = (32u << 20) / sizeof(struct block_reading),
		.sample = sample,
		.ctx = bt,
	};

	return sampler_thread_start(&bt->thread, &cfg, e);
}

void block_trace_stop(struct block_trace *bt)
{
	if (bt->stopped || !bt->inst)
		return;
	bt->stopped = 1;
	tracefs_trace_off(bt->inst);
	sampler_thread_stop(&bt->thread);
	/* The thread is gone: its buffers and counts are this thread's. */
	bt->last.n = 0;
	read_all(bt, UINT64_MAX, &bt->last);
}

static int each(const struct sampler_batch *b,
		int (*fn)(void *ctx, const struct block_reading *r), void *ctx,
		uint64_t *taken)
{
	int err = 0;

	for (size_t i = 0; i < b->n && err == 0; i++) {
		const struct block_reading *r = sampler_batch_at(b, i);

		*taken += r->kind == BLOCK_READ_EVENT;
		err = fn(ctx, r);
	}
	return err;
}

int block_trace_take(struct block_trace *bt,
		     int (*fn)(void *ctx, const struct block_reading *r),
		     void *ctx)
{
	const struct sampler_batch *b;
	int failed = sampler_thread_take(&bt->thread, &b);
	int err = each(b, fn, ctx, &bt->taken);

	if (err == 0 && bt->stopped) {
		err = each(&bt->last, fn, ctx, &bt->taken);
		bt->last.n = 0;
		/* What the thread read and no take saw: samples it dropped
		 * when the queue was full. */
		bt->dropped_readings = bt->read - bt->taken;
	}
	return err ? err : failed;
}

uint64_t block_trace_queue_dropped(struct block_trace *bt)
{
	struct sampler_counts c;

	sampler_thread_counts(&bt->thread, &c);
	/* Each dropped pass ended with its BLOCK_READ_UNTIL reading. */
	return c.dropped_readings - c.dropped;
}

int block_trace_losses(struct block_trace *bt,
		       int (*fn)(void *ctx, int cpu, uint64_t overrun,
				 uint64_t dropped),
		       void *ctx)
{
	char path[48];
	int err = 0;

	for (int i = 0; i < bt->ncpus && err == 0; i++) {
		uint64_t overrun = 0, dropped = 0;
		char *text;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", bt->cpus[i]);
		if (!(text = tracefs_instance_file_read(bt->inst, path, NULL)))
			return -(errno ? errno : EIO);
		if (block_stats_parse(text, &overrun, &dropped) < 0)
			err = -EBADMSG;
		free(text);
		if (err == 0 && (overrun || dropped))
			err = fn(ctx, bt->cpus[i], overrun, dropped);
	}
	return err;
}

void block_disk_name(uint32_t dev, char *out, size_t n)
{
	char path[64], target[256];
	const char *base;
	ssize_t len;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", dev >> 20,
		 dev & 0xfffffu);
	len = readlink(path, target, sizeof(target) - 1);
	if (len <= 0)
		return;
	target[len] = '\0';
	base = strrchr(target, '/');
	snprintf(out, n, "%s", base ? base + 1 : target);
}

void block_trace_release(struct block_trace *bt)
{
	block_trace_stop(bt);
	sampler_thread_release(&bt->thread);
	for (int i = 0; i < bt->ncpus; i++)
		tracefs_cpu_close(bt->tcpu[i]);
	/* The readers are closed first: a tracefs instance with an open
	 * file cannot be removed (EBUSY). */
	if (bt->inst) {
		tracefs_instance_destroy(bt->inst);
		tracefs_instance_free(bt->inst);
	}
	kbuffer_free(bt->kbuf);
	free(bt->page);
	free(bt->last.v);
	free(bt->tcpu);
	free(bt->cpus);
	block_trace_init(bt);
}
