/*
 * recorder: opens the fault events for the targets, maps one ring per
 * CPU, and drains the rings until a stop condition, handing every raw
 * record to a sink.  It decodes nothing: bytes go to decoder/ through the
 * sink, which the record command wires to the decoder and the loader.
 *
 * Usage:
 *	recorder_init(&r);
 *	recorder_open(&r, &cfg, &err);	events opened, rings mapped, disabled
 *	recorder_run(&r, &sink, &err);	enable, drain until stopped, drain the
 *					rest and the kernel's pending LOST counts
 *	recorder_release(&r);
 */
#ifndef FL_RECORDER_H
#define FL_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/errmsg.h"
#include "../decoder/idmap.h"
#include "../decoder/perf_record.h"
#include "ring.h"
#include "stack_events.h"
#include "targets.h"
#include "tracepoints.h"

/* A record stamped this long before a ring's head was read has been
 * published in it: the kernel stamps a software event and copies it into
 * the ring with preemption off, microseconds apart; 50 ms leaves room
 * for a vCPU the hypervisor stalled in between.  The ordering queue holds
 * this much of the stream, which bounds its memory by the event rate. */
#define RECORDER_ORDER_SLACK_NS (50ull * 1000 * 1000)

/* How often the sink's tick runs (live status, commits), in ms. */
#define RECORDER_TICK_MS 1000

struct recorder_config {
	struct target_set *targets;	/* borrowed */
	size_t ring_bytes;		/* data bytes per CPU: a power of two */
	uint64_t duration_ns;		/* stop after this long; 0: no limit */
	const struct tp_spec *tracepoints;	/* borrowed: -e, in order */
	size_t ntracepoints;
	struct stack_config stacks;	/* --stacks, --stack-size, --stacks-on */
};

struct recorder_sink {
	void *ctx;
	/* One record from cpu's ring; rec is borrowed until return.
	 * monotonic: its timestamps are CLOCK_MONOTONIC (a tracepoint ring),
	 * else CLOCK_REALTIME. */
	int (*record)(void *ctx, int cpu, int monotonic, const void *rec,
		      size_t len);
	/* Every record stamped at or before watermark (CLOCK_REALTIME ns)
	 * has been handed to record(); UINT64_MAX at the very end. */
	int (*round)(void *ctx, uint64_t watermark);
	/* Every RECORDER_TICK_MS while recording. */
	int (*tick)(void *ctx);
};

enum stop_reason {
	STOP_NONE,
	STOP_SIGNAL,		/* SIGINT, SIGTERM or SIGHUP */
	STOP_DURATION,		/* --duration elapsed */
	STOP_TARGETS_GONE,	/* the command, or every -p/-t target, exited */
};

struct recorder {
	struct recorder_config cfg;
	int *cpus;			/* owned: online CPUs */
	int ncpus;
	struct ring *rings;		/* owned: rings[i] is cpus[i]'s */
	/* owned: cpus[i]'s ring for tracepoints.  The kernel refuses
	 * CLOCK_REALTIME for tracepoints (EINVAL on 6.18) and a ring's
	 * events must share one clock: these are in CLOCK_MONOTONIC, which
	 * the sink converts with a clock anchor. */
	struct ring *tp_rings;
	int *fds;			/* owned: every event fd opened */
	size_t nfds, capfds;
	size_t nfds_to_enable;		/* fds[0..this) are enabled by ioctl */
	struct idmap ids;		/* owned: event id -> role */
	struct sample_fmt fmt;		/* what every event samples */
	/* What the events whose idmap arg is 1 sample: fmt plus the stack. */
	struct sample_fmt stack_fmt;
	int sigfd;			/* owned: SIGINT/SIGTERM/SIGHUP */
	int child_pidfd;		/* owned: the command, or -1 */
	int *pidfds;			/* owned: -p processes, -1 once exited */
	size_t npidfds;
	struct tep_handle *tep;		/* owned: tracepoint formats, or NULL */
	struct tep_event *sched_switch;	/* borrowed from tep, or NULL */
	struct tep_event *sched_waking;	/* borrowed from tep, or NULL */
	struct tep_event **user_events;	/* owned array of borrowed: -e, in order */
	struct errmsg warning;		/* set when something is left out */

	/* Results of recorder_run. */
	enum stop_reason stop;
	int stop_signal;		/* with STOP_SIGNAL */
	int child_status;		/* wait status of the command, -1 if none */
	uint64_t records;		/* records handed to the sink */
	uint64_t bytes;			/* bytes read from the rings */
	uint64_t framing_errors;	/* ring reads cut short by impossible framing */
};

void recorder_init(struct recorder *r);

/* Maps cpus[idx]'s ring for fd into *ring; e says why not. */
int recorder_map_ring(struct recorder *r, struct ring *ring, int idx, int fd,
		      struct errmsg *e);

/* Keeps fd among the recorder's events (closed by recorder_release);
 * closes it and returns -ENOMEM if the list cannot grow. */
int recorder_keep_fd(struct recorder *r, int fd);

/* Opens and maps everything, spawning the command (held before exec) if
 * there is one.  0 or -errno with e saying what failed and how to fix it. */
int recorder_open(struct recorder *r, const struct recorder_config *cfg,
		  struct errmsg *e);

/* Records until a stop condition, then drains what is left.  0, or the
 * sink's negative return, or -errno with e set. */
int recorder_run(struct recorder *r, const struct recorder_sink *sink,
		 struct errmsg *e);

/* Closes the events and unmaps the rings; waits for nothing. */
void recorder_release(struct recorder *r);

#endif
