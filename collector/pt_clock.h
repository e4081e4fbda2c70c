/*
 * pt_clock: the kernel's side of decoder/pt_time.h.  Reads the TSC
 * conversion a perf mmap page publishes, and takes calibration pairs
 * between perf time and CLOCK_MONOTONIC.
 *
 * A calibration pair is a bracketed reading: CLOCK_MONOTONIC, then a
 * record the kernel stamps in perf time, then CLOCK_MONOTONIC again.  The
 * record is a PERF_RECORD_COMM that faultline makes by renaming its own
 * thread (to the name it has: nothing changes), written into the ring of
 * a dummy event on faultline's thread opened without use_clockid, so its
 * sample_id time is perf_clock, the clock of the PT event's records.
 */
#ifndef FL_PT_CLOCK_H
#define FL_PT_CLOCK_H

#include <stdint.h>
#include <linux/perf_event.h>

#include "../common/errmsg.h"
#include "../decoder/pt_time.h"
#include "ring.h"

/*
 * The page's time_zero, time_mult, time_shift (and the cap_user_time_short
 * fields), read under its `lock` seqcount: retried while the kernel
 * updates them.  0; -EOPNOTSUPP when cap_user_time_zero is 0 (the kernel
 * publishes no TSC conversion: a clocksource other than tsc, or an event
 * opened with use_clockid).
 */
int pt_tsc_conv_read(const struct perf_event_mmap_page *pg,
		     struct pt_tsc_conv *out);

struct pt_calibrator {
	int fd;			/* owned: the dummy event; -1 when closed */
	struct ring ring;	/* owned mapping */
	uint64_t id;		/* the dummy's id, in its records' trailer */
};

void pt_calibrator_init(struct pt_calibrator *c);

/* Opens and maps the dummy event.  0 or -errno with e. */
int pt_calibrator_open(struct pt_calibrator *c, struct errmsg *e);

/*
 * The TSC conversion of this kernel, from the calibrator's own page
 * (time_zero is published on any event's page opened without
 * use_clockid).  root: "/" (for the clocksource's name in a message).
 * 0, or -EOPNOTSUPP with e saying there is no usable conversion, why,
 * and what to do.
 */
int pt_calibrator_conv(struct pt_calibrator *c, const char *root,
		       struct pt_tsc_conv *out, struct errmsg *e);

/* One calibration pair.  0, or -EAGAIN when the COMM record did not
 * show up (the ring is full or the kernel dropped it: try again), or
 * -errno with e. */
int pt_calibrator_take(struct pt_calibrator *c, struct pt_calib_pair *out,
		       struct errmsg *e);

void pt_calibrator_close(struct pt_calibrator *c);

#endif
