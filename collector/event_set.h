/*
 * event_set: the perf events a recording opened, apart from the run that
 * reads them (recorder.h): the CPUs, one ring per CPU that every event on
 * that CPU writes into, every event's fd, the role of each event id (the
 * idmap the engine decodes by), what the events sample, and the
 * tracepoint formats they were opened from.  recorder_open and the
 * openers (fault_events.h, tracepoints.h, syscall_events.h, ...) fill
 * it; the drain loop enables and reads it; the engine decodes by it.
 */
#ifndef FL_EVENT_SET_H
#define FL_EVENT_SET_H

#include <stddef.h>

#include "../common/errmsg.h"
#include "../decoder/idmap.h"
#include "../decoder/perf_record.h"
#include "ring.h"

struct tep_event;
struct tep_handle;

struct event_set {
	int *cpus;			/* owned: online CPUs */
	int ncpus;
	size_t ring_bytes;		/* data bytes per CPU: a power of two */
	/* owned: rings[i] is cpus[i]'s, owned by a dummy event on
	 * faultline's own thread; every event on that CPU writes into it
	 * (one clock, CLOCK_MONOTONIC, makes that possible). */
	struct ring *rings;
	int *fds;			/* owned: every event fd opened */
	size_t nfds, capfds;
	size_t nfds_to_enable;		/* fds[0..this) are enabled by ioctl */
	struct idmap ids;		/* owned: event id -> role */
	struct sample_fmt fmt;		/* what every event samples */
	/* What the events whose idmap arg is 1 sample: fmt plus the stack. */
	struct sample_fmt stack_fmt;
	struct tep_handle *tep;		/* owned: tracepoint formats, or NULL */
	/* Per-thread targets: their switches are read from the CPU-wide
	 * switch records (cpu_switches.h), their own events write none. */
	int switches_cpu_wide;
	/* sched_waking samples without the wake-up's kernel stack
	 * (recorder_config.no_wake_stacks): TP_SAMPLE_TYPE's format. */
	int waking_without_stacks;
	struct tep_event *sched_switch;	/* borrowed from tep, or NULL */
	struct tep_event *sched_waking;	/* borrowed from tep, or NULL */
	struct tep_event **user_events;	/* owned array of borrowed: -e, in order */
	struct tep_event *sys_enter;	/* borrowed from tep: --syscalls, or NULL */
	struct tep_event *sys_exit;
	char *sys_filter;		/* owned: their kernel filter, or NULL */
	/* owned array of borrowed: --latency's, START at 2i, END at 2i + 1 */
	struct tep_event **lat_events;
	/* borrowed from tep: --block-io's formats, by enum block_step */
	struct tep_event *blk_events[4];
};

void event_set_init(struct event_set *ev);

/* Keeps fd among the events (closed by whoever empties fds, or by
 * event_set_release); closes it and returns -ENOMEM if the list cannot
 * grow. */
int event_set_keep_fd(struct event_set *ev, int fd);

/* Maps cpus[idx]'s ring for fd into *ring; e says why not. */
int event_set_map_ring(struct event_set *ev, struct ring *ring, int idx, int fd,
		       struct errmsg *e);

/* Sends event fd's records into cpus[idx]'s ring.  0 or -errno with e. */
int event_set_share_ring(struct event_set *ev, int idx, int fd, struct errmsg *e);

/* Closes the fds still kept, unmaps the rings, frees the rest. */
void event_set_release(struct event_set *ev);

#endif
