/*
 * perf_open: perf_event_open(2), and the one explainer that turns its
 * failures into a cause and a fix by checking the real condition (is the
 * PMU there, what does perf_event_paranoid say, does the target exist)
 * rather than trusting errno alone.
 */
#ifndef FL_PERF_OPEN_H
#define FL_PERF_OPEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "../common/errmsg.h"

/*
 * What every faultline event shares: every occurrence sampled with
 * sample_type, the sample_id trailer on other records, disabled until
 * enabled, and a wake-up for the reader when a quarter of its ring
 * (ring_bytes) is used: three quarters are left to absorb the time a
 * drain takes.  Timestamps are CLOCK_MONOTONIC, the recording's one
 * clock: the kernel refuses CLOCK_REALTIME for tracepoints, events of
 * different clocks cannot share a ring, and durations, order and matches
 * must not move when someone steps the realtime clock.  Zeroes the rest
 * of *a.
 */
void perf_attr_sampling(struct perf_event_attr *a, uint32_t type,
			uint64_t config, uint64_t sample_type, size_t ring_bytes);

/* Returns an fd (close-on-exec) or a negative errno. */
int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu);

/*
 * Sets e to "cannot open '<event>' for <target>: <cause>; <fix>" for a
 * failed perf_open(...) that returned -err, and returns -err.  pid -1
 * means every thread on cpu.
 */
int perf_open_explain(int err, const struct perf_event_attr *attr,
		      const char *event, pid_t pid, int cpu, struct errmsg *e);

/* The machine's perf_event_paranoid, or 99 if unreadable. */
int perf_paranoid(void);

#endif
