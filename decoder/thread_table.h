/*
 * thread_table: what faultline knows of each thread it has seen, keyed by
 * tid: its process, its current name spell, its pending fault and its
 * latency histograms.  The table owns every struct thread; pointers it
 * returns stay valid until thread_table_release (threads are never
 * removed: an exited thread keeps its histograms until the end).
 */
#ifndef FL_THREAD_TABLE_H
#define FL_THREAD_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "fault_pair.h"
#include "hist.h"
#include "syscall_pair.h"
#include "timeline.h"

/* One call's latencies in one thread, every call counted. */
struct syscall_hist {
	int32_t nr;
	struct log2_hist h;
};

/* What a thread's own events are, with per-thread targets. */
enum thread_events {
	THREAD_EVENTS_UNKNOWN,	/* none seen, none opened on it */
	THREAD_EVENTS_NONE,	/* a child of a thread whose events stay
				 * its own (-t): no target */
	THREAD_EVENTS_OWN,	/* opened on it, not passed on (-t) */
	THREAD_EVENTS_INHERITED,	/* opened on it or inherited, and
				 * passed on to its children */
};

struct thread {
	uint32_t tid, pid;
	char comm[COMM_LEN];	/* name during this spell; "" if unknown */
	uint64_t first_mono_ts;	/* start of this name spell, CLOCK_MONOTONIC ns */
	uint64_t last_mono_ts;	/* latest event of this spell, CLOCK_MONOTONIC ns */
	int wanted;		/* its faults are recorded (a target thread) */
	int exited;
	/* Per-thread targets: which events of its own the thread has
	 * (enum thread_events; fault_stream.h). */
	int events;
	struct fault_pending pending;
	struct log2_hist hist[2];	/* by enum fault_kind: minor, major */
	struct timeline tl;		/* its states, while a target */
	struct syscall_pending sys;	/* its call in progress (--syscalls) */
	struct syscall_hist *sys_hist;	/* owned: by call, in order of first use */
	size_t nsys_hist, capsys_hist;
};

struct thread_table {
	struct thread **by_order;	/* owned: threads in order of creation */
	size_t n, cap;
	uint64_t *keys;			/* owned: open addressing, tid+1 (0 empty);
					 * 64-bit, as the kernel can report tid -1 */
	uint32_t *vals;			/* owned: index into by_order */
	size_t slots;			/* 0 or a power of two */
};

void thread_table_init(struct thread_table *t);
void thread_table_release(struct thread_table *t);
struct thread *thread_table_find(const struct thread_table *t, uint32_t tid);
/* Returns the thread for tid, creating a zeroed one (tid set) if needed;
 * *created says which.  NULL on allocation failure. */
struct thread *thread_table_get(struct thread_table *t, uint32_t tid,
				int *created);

#endif
