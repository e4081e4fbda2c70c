#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

#include "pt_sideband.h"

static void gap_at(struct pt_gap *g, enum pt_gap_reason reason,
		   uint64_t mono_ns, int has_time, uint64_t offset)
{
	memset(g, 0, sizeof(*g));
	g->reason = (uint8_t)reason;
	g->mono_ns = has_time ? mono_ns : 0;
	g->has_time = has_time;
	g->offset = offset;
}

size_t pt_aux_gaps(const struct rec_aux *aux, uint64_t mono_ns, int has_time,
		   struct pt_gap gaps[PT_AUX_GAPS_MAX])
{
	size_t n = 0;

	if (aux->flags & PERF_AUX_FLAG_TRUNCATED) {
		gap_at(&gaps[n], PT_GAP_TRUNCATED, mono_ns, has_time, aux->aux_offset);
		snprintf(gaps[n++].message, sizeof(gaps[0].message), "the Intel PT "
			 "area was full: the kernel stopped tracing until faultline "
			 "read it (%llu bytes at AUX offset %llu were kept); a "
			 "larger --pt-size makes room", (unsigned long long)aux->aux_size,
			 (unsigned long long)aux->aux_offset);
	}
	if (aux->flags & PERF_AUX_FLAG_PARTIAL) {
		gap_at(&gaps[n], PT_GAP_PARTIAL, mono_ns, has_time, aux->aux_offset);
		snprintf(gaps[n++].message, sizeof(gaps[0].message), "the kernel "
			 "marked this trace partial: it has holes where tracing "
			 "could not run (e.g. while VMX was on)");
	}
	if (aux->flags & PERF_AUX_FLAG_COLLISION) {
		gap_at(&gaps[n], PT_GAP_COLLISION, mono_ns, has_time, aux->aux_offset);
		snprintf(gaps[n++].message, sizeof(gaps[0].message), "an AUX sample "
			 "collided with another being taken: its trace was left out");
	}
	return n;
}

void pt_snapshot_gap(uint64_t mono_ns, uint64_t dur_ns, struct pt_gap *g)
{
	gap_at(g, PT_GAP_SNAPSHOT, mono_ns, 1, 0);
	g->dur_ns = dur_ns;
	snprintf(g->message, sizeof(g->message), "tracing was stopped for %llu ns "
		 "while a stall snapshot was copied", (unsigned long long)dur_ns);
}

const char *pt_trigger_name(enum pt_trigger t)
{
	static const char *const names[] = {
		[PT_TRIG_FAULT] = "fault", [PT_TRIG_OFF_CPU] = "off-cpu",
		[PT_TRIG_SLOW_FAULT] = "slow-fault", [PT_TRIG_SIGNAL] = "signal",
		[PT_TRIG_FULL] = "full",
	};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}
