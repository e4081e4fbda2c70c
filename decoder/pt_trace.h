/*
 * pt_trace: one piece of Intel PT trace as it leaves the collector, with
 * who it belongs to and what made faultline keep it.  The bytes are
 * stored as they are (pt_trace.data), then decoded into pt_call and
 * pt_gap rows; `faultline pt --decode` decodes the stored bytes again.
 */
#ifndef FL_PT_TRACE_H
#define FL_PT_TRACE_H

#include <stddef.h>
#include <stdint.h>

enum pt_trigger {
	PT_TRIG_FAULT,		/* a major fault's completion sample carried it */
	PT_TRIG_OFF_CPU,	/* stall mode: an off-CPU span over --pt-trigger */
	PT_TRIG_SLOW_FAULT,	/* stall mode: a fault over --pt-trigger */
	PT_TRIG_SIGNAL,		/* stall mode: SIGUSR2 */
	PT_TRIG_FULL,		/* full mode: a drain of the AUX area */
};

/* "fault", "off-cpu", "slow-fault", "signal", "full": pt_trace.trigger. */
const char *pt_trigger_name(enum pt_trigger t);

struct pt_trace {
	uint32_t pid, tid;	/* whose trace: the thread that triggered it */
	int32_t cpu;		/* the CPU of a per-CPU buffer; -1 per thread */
	uint8_t trigger;	/* enum pt_trigger */
	uint64_t trigger_mono_ns;	/* CLOCK_MONOTONIC: the fault's completion,
				 * the stall's start, the signal, the drain */
	uint64_t trigger_dur_ns;	/* the fault's or span's length; 0 */
	uint64_t fault_mono_ns;	/* PT_TRIG_FAULT: the fault's entry; 0 */
	const uint8_t *bytes;	/* borrowed for the call */
	size_t len;
};

#endif
