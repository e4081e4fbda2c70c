/*
 * recorder: opens the events for the targets (faults, switches,
 * tracepoints), maps one ring per CPU that every event on that CPU
 * writes into, and keeps what the drain loop (drain.h) needs to know
 * when to stop.  It decodes nothing.  What was opened is its event set
 * (event_set.h, which the openers fill); the rest is the run: signals,
 * the targets' pidfds, the waking filter's replacements, why it stopped.
 *
 * Usage:
 *	recorder_init(&r);
 *	recorder_open(&r, &cfg, &err);	events opened, rings mapped, disabled
 *	drain_run(&r, &spool, ...);	enable, move ring bytes into the spool
 *					until stopped (collector/drain.h)
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
#include "../decoder/tracepoint.h"
#include "event_close.h"
#include "event_set.h"
#include "pt_record.h"
#include "ring.h"
#include "stack_events.h"
#include "syscall_set.h"
#include "../decoder/latency_pair.h"
#include "targets.h"
#include "tracepoints.h"
#include "metric_feed.h"
#include "waking_filter.h"

/* A record stamped this long before a ring's head was read has been
 * published in it: the kernel stamps a software event and copies it into
 * the ring with preemption off, microseconds apart; 50 ms leaves room
 * for a vCPU the hypervisor stalled in between.  The ordering queue holds
 * this much of the stream, which bounds its memory by the event rate. */
#define RECORDER_ORDER_SLACK_NS (50ull * 1000 * 1000)

struct recorder_config {
	struct target_set *targets;	/* borrowed */
	size_t ring_bytes;		/* data bytes per CPU: a power of two */
	uint64_t duration_ns;		/* stop after this long; 0: no limit */
	const struct tp_spec_list *tracepoints;	/* borrowed: -e, in order */
	struct stack_config stacks;	/* --stacks, --stack-size, --stacks-on */
	int ready_fd;			/* --ready-fd: told once events are on; -1 */
	/* --pt: borrowed, probed by the engine (record/pt.h); NULL
	 * without --pt. */
	struct pt_recording *pt;
	/* 0: no switch records and no sched tracepoints (the engine then
	 * builds no thread states). */
	int thread_states;
	/* 0: no CPU-wide switch records for per-thread targets (runnable
	 * waits then do not say what ran instead: collector/cpu_switches.h). */
	int ran_instead;
	/* --syscalls: borrowed; NULL without it. */
	const struct syscall_set *syscalls;
	/* --latency: borrowed; NULL (or none) without it. */
	const struct lat_spec_list *latencies;
	/* --block-io: its formats are loaded here, its events read through
	 * a tracefs instance (block_trace.h), not perf_event_open. */
	int block_io;
	/* record --flight: SIGUSR2 and 'snapshot' on control_fd push a
	 * SPOOL_TRIGGER instead of stopping; 'stop' there stops. */
	int flight;
	int control_fd;			/* borrowed: --control's FIFO, or -1 */
	/* --flight --trigger metric:NAME>VALUE: its lines' fds, borrowed
	 * (-1 without them), and what is watched. */
	struct metric_feed_config metrics;
	/* 0: no sched_waking events (sleeps end at the switch in, with no
	 * waker and no runnable wait before it). */
	int wakers;
	/* 1: sched_waking without the wake-up's kernel stack (the stack is
	 * unwound in the waker's context: about 1.4 us a wake-up). */
	int no_wake_stacks;
};

enum stop_reason {
	STOP_NONE,
	STOP_SIGNAL,		/* SIGINT, SIGTERM or SIGHUP */
	STOP_DURATION,		/* --duration elapsed */
	STOP_TARGETS_GONE,	/* the command, or every -p/-t target, exited */
	STOP_ERROR,		/* the engine behind the spool failed */
	STOP_CONTROL,		/* 'stop' on the --control FIFO */
};

struct recorder {
	struct recorder_config cfg;
	struct event_set ev;		/* owned: the events and their rings */
	int sigfd;			/* owned: SIGINT/SIGTERM/SIGHUP */
	int child_pidfd;		/* owned: the command, or -1 */
	int *pidfds;			/* owned: -p processes, -1 once exited */
	size_t npidfds;
	/* owned: sched_waking for per-thread targets; unused (.set NULL)
	 * with -a or --comm, or without sched tracing. */
	struct waking_filter waking;
	/* owned: the events being closed (recorder_close_events) */
	struct event_close closing;
	struct errmsg warning;		/* set when something is left out */

	/* Results of recorder_run. */
	enum stop_reason stop;
	int stop_signal;		/* with STOP_SIGNAL */
	int child_status;		/* wait status of the command, -1 if none */
	uint64_t bytes;			/* bytes moved from the rings */
	uint64_t framing_errors;	/* ring reads cut short by impossible framing */
	/* The part of a --control line read so far. */
	char control_line[64];
	size_t control_len;
	/* --metric-fifo, --metric-udp: read while recording, and what the
	 * lines were (its counts: read them once drain_run returned, or
	 * once SPOOL_END was taken). */
	struct metric_feed metrics;
};

void recorder_init(struct recorder *r);

/* Opens and maps everything, spawning the command (held before exec) if
 * there is one.  0 or -errno with e saying what failed and how to fix it. */
int recorder_open(struct recorder *r, const struct recorder_config *cfg,
		  struct errmsg *e);

/* Begins to close the events, on a thread, once their rings were read
 * for the last time: the kernel's waits to unregister the tracepoints
 * (collector/event_close.h) then pass while the caller finishes the
 * database.  The rings stay mapped. */
void recorder_close_events(struct recorder *r);

/* Closes the events (waiting for those recorder_close_events began) and
 * unmaps the rings. */
void recorder_release(struct recorder *r);

#endif
