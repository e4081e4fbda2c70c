/*
 * pt_time: Intel PT timestamps to the one clock of a recording.
 *
 * Intel PT stamps its trace with the TSC, and the intel_pt PMU takes no
 * clockid (perf refuses it), so its own sideband records (AUX, SWITCH,
 * ITRACE_START) come in perf time, the kernel's perf_clock.  Two steps
 * make a CLOCK_MONOTONIC time of either:
 *
 *   TSC -> perf ns     the perf mmap page's time_zero, time_mult and
 *                      time_shift (published when cap_user_time_zero is
 *                      1; include/uapi/linux/perf_event.h gives the
 *                      formula, repeated at pt_tsc_to_perf_ns):
 *                      exact, integer arithmetic.
 *   perf ns -> mono    calibration pairs the collector takes: a
 *                      CLOCK_MONOTONIC read, then a record stamped in
 *                      perf time, then CLOCK_MONOTONIC again.  The pair
 *                      is the perf time and the bracket's midpoint, its
 *                      uncertainty half the bracket's width.  Between
 *                      two pairs a perf time is interpolated (the two
 *                      clocks may run at slightly different rates); before
 *                      the first and after the last, the nearest pair's
 *                      offset is used.
 *
 * Pure: no syscalls, no globals.  The parameters and the pairs are
 * stored with the session (pt_clock, pt_calibration) so a later decode
 * makes the same times.
 */
#ifndef FL_PT_TIME_H
#define FL_PT_TIME_H

#include <stddef.h>
#include <stdint.h>

/* The conversion fields of struct perf_event_mmap_page. */
struct pt_tsc_conv {
	uint64_t time_zero;
	uint32_t time_mult;
	uint16_t time_shift;
	/* cap_user_time_short: the page's TSC is narrower than 64 bits, and
	 * time_cycles / time_mask extend a reading first. */
	int cap_short;
	uint64_t time_cycles, time_mask;
};

/* A TSC value in perf time (ns), by the page's formula. */
uint64_t pt_tsc_to_perf_ns(const struct pt_tsc_conv *c, uint64_t tsc);

struct pt_calib_pair {
	uint64_t perf_ns;	/* the record's time, perf_clock */
	uint64_t mono_ns;	/* CLOCK_MONOTONIC, the bracket's midpoint */
	uint64_t uncertainty_ns;	/* half the bracket's width */
};

/* The pair of one bracketed reading: mono_before <= mono_after. */
struct pt_calib_pair pt_calib_bracket(uint64_t mono_before, uint64_t perf_ns,
				      uint64_t mono_after);

struct pt_clock {
	struct pt_tsc_conv tsc;
	struct pt_calib_pair *pairs;	/* owned; sorted by perf_ns */
	size_t n, cap;
};

void pt_clock_init(struct pt_clock *c, const struct pt_tsc_conv *tsc);
void pt_clock_release(struct pt_clock *c);

/*
 * Adds a pair, keeping them sorted by perf time.  -EINVAL when it
 * contradicts the pairs there (its monotonic time goes the other way
 * than its perf time against a neighbour: one of the readings is
 * wrong, and it is left out); -ENOMEM.
 */
int pt_clock_add(struct pt_clock *c, const struct pt_calib_pair *p);

/* perf ns to CLOCK_MONOTONIC ns as described above.  0, or -ENOENT
 * when there is no pair yet; -ERANGE when the result would be below 0. */
int pt_clock_perf_to_mono(const struct pt_clock *c, uint64_t perf_ns,
			  uint64_t *mono_ns);

/* Both steps: a TSC value to CLOCK_MONOTONIC ns. */
int pt_clock_tsc_to_mono(const struct pt_clock *c, uint64_t tsc,
			 uint64_t *mono_ns);

/* What pt_clock holds besides the time conversion. */
struct pt_session_info {
	const char *mode;	/* "fault", "stall", "full"; borrowed */
	uint32_t pmu_type;
	uint64_t config;
	uint64_t snapshot_bytes, aux_bytes;
	uint32_t cpu_family, cpu_model, cpu_stepping;	/* 0: unknown */
	uint32_t tsc_art_num, tsc_art_den, max_nonturbo_ratio, mtc_period;
};

#endif
