/*
 * pt_sideband: what the records around the trace say about it.  A
 * PERF_RECORD_AUX announces trace the kernel put in the AUX area, and
 * its flags (include/uapi/linux/perf_event.h) say what went wrong there:
 *
 *   TRUNCATED   the area was full: the kernel stopped the trace and lost
 *               what the CPU produced until the reader made room
 *   PARTIAL     the data has holes (the kernel could not trace, e.g.
 *               while VMX was on)
 *   COLLISION   an AUX sample collided with another being taken
 *   OVERWRITE   the area is in overwrite (snapshot) mode: not a loss
 *
 * Each loss becomes a gap, stored like the decoder's own, so a reader of
 * the flow sees every place it cannot be trusted.
 */
#ifndef FL_PT_SIDEBAND_H
#define FL_PT_SIDEBAND_H

#include <stddef.h>
#include <stdint.h>

#include "perf_record.h"
#include "pt_flow.h"
#include "pt_trace.h"

#define PT_AUX_GAPS_MAX 3

/* The gaps of one AUX record, at mono_ns when has_time, into gaps;
 * returns how many (0 for a clean record). */
size_t pt_aux_gaps(const struct rec_aux *aux, uint64_t mono_ns, int has_time,
		   struct pt_gap gaps[PT_AUX_GAPS_MAX]);

/* The gap a stall snapshot makes: tracing was stopped from mono_ns for
 * dur_ns while its bytes were copied. */
void pt_snapshot_gap(uint64_t mono_ns, uint64_t dur_ns, struct pt_gap *g);

#endif
