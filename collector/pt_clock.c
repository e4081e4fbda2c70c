#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../common/file.h"
#include "../decoder/perf_record.h"
#include "perf_open.h"
#include "pt_clock.h"

/* The calibrator's ring: COMM records only, one per pair. */
#define CALIB_RING_BYTES 4096

int pt_tsc_conv_read(const struct perf_event_mmap_page *pg,
		     struct pt_tsc_conv *out)
{
	uint32_t seq;
	int zero;

	/* The kernel bumps `lock` around each update of the page
	 * (perf_event_update_userpage): a read between two equal values of
	 * it saw one consistent version. */
	do {
		seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		zero = pg->cap_user_time_zero;
		out->time_zero = pg->time_zero;
		out->time_mult = pg->time_mult;
		out->time_shift = pg->time_shift;
		out->cap_short = pg->cap_user_time_short;
		out->time_cycles = pg->time_cycles;
		out->time_mask = pg->time_mask;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) != seq);
	return zero ? 0 : -EOPNOTSUPP;
}

void pt_calibrator_init(struct pt_calibrator *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

int pt_calibrator_open(struct pt_calibrator *c, struct errmsg *e)
{
	struct perf_event_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.comm = 1;
	/* No use_clockid: its records must be in perf time, the PT clock. */
	c->fd = perf_open(&a, 0, -1);
	if (c->fd < 0) {
		err = c->fd;
		c->fd = -1;
		return perf_open_explain(-err, &a, "dummy", 0, -1, e);
	}
	if (ioctl(c->fd, PERF_EVENT_IOC_ID, &c->id) < 0)
		return errmsg_set(e, errno, "cannot read an event id: %s",
				  strerror(errno));
	err = ring_map(&c->ring, c->fd, -1, CALIB_RING_BYTES);
	if (err < 0)
		return errmsg_set(e, -err, "cannot map the clock calibration "
				  "ring: %s", strerror(-err));
	return 0;
}

int pt_calibrator_conv(struct pt_calibrator *c, const char *root,
		       struct pt_tsc_conv *out, struct errmsg *e)
{
	char path[PATH_MAX], *source = NULL;
	size_t len;
	struct errmsg ignored;
	int err = pt_tsc_conv_read(c->ring.meta, out);

	if (err == 0)
		return 0;
	errmsg_init(&ignored);
	snprintf(path, sizeof(path), "%s/sys/devices/system/clocksource/"
		 "clocksource0/current_clocksource", strcmp(root, "/") ? root : "");
	if (read_text_file(path, &source, &len, &ignored) == 0)
		source[strcspn(source, "\n")] = '\0';
	errmsg_set(e, EOPNOTSUPP, "cannot record Intel PT: no usable TSC "
		   "conversion: the perf mmap page has cap_user_time_zero = 0 "
		   "(clocksource '%s'), so the trace's TSC timestamps cannot be "
		   "put on the recording's clock; on a machine with a stable "
		   "TSC, switch the clocksource to tsc (echo tsc > /sys/devices/"
		   "system/clocksource/clocksource0/current_clocksource), or "
		   "record without --pt", source ? source : "unknown");
	free(source);
	return -EOPNOTSUPP;
}

struct comm_find {
	uint64_t id;
	uint32_t tid;
	int found;
	uint64_t perf_ns;
};

static int find_comm(void *ctx, const void *rec, size_t len)
{
	static const struct sample_fmt fmt = {
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_IDENTIFIER,
		.sample_id_all = 1,
	};
	struct comm_find *f = ctx;
	struct perf_rec r;

	if (perf_rec_decode(&fmt, rec, len, &r) == 0 &&
	    r.type == PERF_RECORD_COMM && r.sid.id == f->id &&
	    r.u.comm.tid == f->tid) {
		f->found = 1;
		f->perf_ns = r.sid.time;
	}
	return 0;
}

int pt_calibrator_take(struct pt_calibrator *c, struct pt_calib_pair *out,
		       struct errmsg *e)
{
	char comm[16] = "";
	struct comm_find f = { c->id, (uint32_t)gettid(), 0, 0 };
	uint64_t before, after;

	if (prctl(PR_GET_NAME, comm, 0, 0, 0) < 0)
		return errmsg_set(e, errno, "cannot read the thread's name: %s",
				  strerror(errno));
	/* Leave nothing older in the ring to be taken for this pair's. */
	ring_drain(&c->ring, find_comm, &(struct comm_find){ 0, 0, 0, 0 });
	before = monotonic_ns();
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	after = monotonic_ns();
	ring_drain(&c->ring, find_comm, &f);
	if (!f.found)
		return -EAGAIN;
	*out = pt_calib_bracket(before, f.perf_ns, after);
	return 0;
}

void pt_calibrator_close(struct pt_calibrator *c)
{
	if (c->ring.meta)
		ring_unmap(&c->ring);
	if (c->fd >= 0)
		close(c->fd);
	pt_calibrator_init(c);
}
