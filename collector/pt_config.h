/*
 * pt_config: what `record --pt` asks of the intel_pt PMU, turned into a
 * perf_event_attr that the kernel will take: the config terms checked
 * against the CPU's caps the way the kernel's pt_event_valid() checks
 * them, each refusal naming the term and the cap it needs.
 *
 * Modes:
 *   fault  each major-fault completion sample carries the last `size`
 *          bytes of trace (PERF_SAMPLE_AUX with attr.aux_sample_size on
 *          the major-fault event, grouped under the PT event; the AUX
 *          area is in overwrite, snapshot mode).
 *   stall  the AUX area is an overwrite ring; a fault or an off-CPU span
 *          longer than --pt-trigger, or SIGUSR2, copies `size` bytes of it.
 *   full   every byte: the AUX area is drained (aux_head / aux_tail) as it
 *          fills.
 */
#ifndef FL_PT_CONFIG_H
#define FL_PT_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "../common/errmsg.h"
#include "pt_pmu.h"

enum pt_mode {
	PT_MODE_FAULT,
	PT_MODE_STALL,
	PT_MODE_FULL,
};

/* The kernel caps a sample at 64 KiB (header.size is a u16) and rounds
 * the AUX part down to 8 bytes: what is left after a fault sample's own
 * fields and the stack copy of --stacks=dwarf is at most this. */
#define PT_FAULT_SIZE_MAX (60u << 10)
#define PT_SIZE_DEFAULT (32u << 10)

struct pt_settings {		/* the --pt options */
	enum pt_mode mode;
	uint64_t size;		/* --pt-size: bytes per fault sample or
				 * snapshot; the AUX area in full mode */
	const char *terms;	/* --pt-config, borrowed; NULL: none */
	uint64_t trigger_ns;	/* --pt-trigger, stall mode */
};

/* "fault", "stall", "full". */
const char *pt_mode_name(enum pt_mode m);

/* Parses "fault", "stall" or "full".  0 or -EINVAL. */
int pt_mode_parse(const char *s, enum pt_mode *m);

/*
 * The attr.config value: faultline's defaults for the mode (tsc always;
 * mtc with mtc_period=3 where the CPU has MTC; for the snapshot modes
 * noretcomp, so a snapshot's returns decode without the calls before it,
 * and the shortest PSB period the CPU offers that puts several PSBs in a
 * snapshot), then the user's comma-separated terms ("cyc,psb_period=1",
 * a bare name means =1) on top.  0, or -EINVAL with e naming the term:
 * unknown to this kernel, too large for its bits, or needing a cap the
 * CPU lacks.
 */
int pt_config_build(const struct pt_pmu *p, const struct pt_settings *s,
		    uint64_t *config, struct errmsg *e);

/* The value of term name in config (0 when this kernel has no such term). */
uint64_t pt_config_get(const struct pt_pmu *p, uint64_t config,
		       const char *name);

/* The AUX area for the settings, a power of two of at least 4 pages:
 * fault mode 4x the sample size (the kernel copies the sample from it),
 * stall mode 4x the snapshot (the post-stall trace written before the
 * snapshot is taken must not overwrite what led in), full mode the size. */
size_t pt_aux_bytes(const struct pt_settings *s, size_t page);

/*
 * The PT event's attr: user-space only, disabled, the perf clock (the
 * PMU takes no clockid), context switches in its ring (which thread ran
 * when), the sample_id trailer (tid, time, id) on its records, a
 * wake-up at a quarter of the AUX area in full mode.
 */
void pt_attr_fill(const struct pt_pmu *p, uint64_t config,
		  const struct pt_settings *s, size_t aux_bytes,
		  struct perf_event_attr *a);

/* What the PT event's records carry after their fields: the same
 * trailer (tid, time, id) as the fault events', so the records of a PT
 * ring, where fault mode's carriers write too, share one layout. */
#define PT_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME)

/*
 * A major-fault event made into the carrier of fault mode: its samples
 * take the last `size` bytes of trace (PERF_SAMPLE_AUX, aux_sample_size),
 * and it runs on the PT event's clock, perf time (the kernel wants one
 * clock in a group).  It must be opened in the PT event's group.
 */
void pt_attr_aux_sample(struct perf_event_attr *a, uint64_t size);

#endif
