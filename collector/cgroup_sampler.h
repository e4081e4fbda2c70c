/*
 * cgroup_sampler: a cgroup's CPU quota and its cpu.stat throttling
 * counters, read every interval on a sampling thread
 * (collector/sampler_thread.h), for record --cgroup.
 *
 * Both cgroup versions: v1's cpu controller (cpu.cfs_quota_us,
 * cpu.cfs_period_us, cpu.stat with throttled_time in ns), mounted at
 * /sys/fs/cgroup/cpu,cpuacct or /sys/fs/cgroup/cpu; v2's cpu.max and
 * cpu.stat (throttled_usec), at /sys/fs/cgroup or, beside v1,
 * /sys/fs/cgroup/unified.  decoder/cgroup_cpu.h parses the files.
 *
 * The files stay open while recording; each sample reads them again from
 * offset 0 (two or three small reads).  A cgroup removed while recording
 * ends its readings, not the recording: the reads fail, nothing is
 * queued, and cgroup_sampler_counts says how many samples failed.
 *
 * Usage:
 *	cgroup_sampler_init(&s);
 *	cgroup_sampler_open(&s, "/sys/fs/cgroup/cpu/app", &e);	or
 *	cgroup_sampler_open_pid(&s, pid, &e);	the cgroup of a process
 *	cgroup_sampler_start(&s, interval_ns, &e);
 *	cgroup_sampler_take(&s, &v, &n);	what it read so far (repeat)
 *	cgroup_sampler_stop(&s);		joins it; take the rest
 *	cgroup_sampler_release(&s);
 */
#ifndef FL_CGROUP_SAMPLER_H
#define FL_CGROUP_SAMPLER_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../common/errmsg.h"
#include "../decoder/cgroup_cpu.h"
#include "sampler_thread.h"

/* One sample of the cgroup. */
struct cgroup_reading {
	uint64_t mono_ns;		/* CLOCK_MONOTONIC ns: when it was read */
	int64_t quota_us;		/* CGROUP_NO_QUOTA: none */
	int64_t period_us;
	struct cgroup_cpu_stat stat;
};

/* Readings the queue holds at most (40 bytes each: 10 MB, over an hour
 * at 10 ms with the pipeline stalled). */
#define CGROUP_QUEUE_MAX (256u * 1024)

struct cgroup_sampler {
	char dir[PATH_MAX];	/* the cgroup's directory; "" until opened */
	int v2;			/* cpu.max and throttled_usec */
	int fd_quota;		/* owned: cpu.cfs_quota_us (v1), cpu.max (v2); or -1 */
	int fd_period;		/* owned: cpu.cfs_period_us (v1), or -1 */
	int fd_stat;		/* owned: cpu.stat, or -1 */
	char buf[4096];		/* the sampling thread's: one file's text */
	uint64_t failed;	/* samples whose reads failed (the thread's
				 * while it runs) */
	struct sampler_thread thread;
};

void cgroup_sampler_init(struct cgroup_sampler *s);
void cgroup_sampler_release(struct cgroup_sampler *s);

/* Has a cgroup been opened? */
int cgroup_sampler_wanted(const struct cgroup_sampler *s);

/*
 * The cgroup named by path: a cgroup's directory ("/sys/fs/cgroup/cpu/app"),
 * or its path inside the hierarchy as /proc/PID/cgroup shows it ("/app"),
 * looked for under the v1 cpu mounts, then the v2 ones.  Opens its files
 * and reads them once.  0, or -errno with e saying what is missing.
 */
int cgroup_sampler_open(struct cgroup_sampler *s, const char *path,
			struct errmsg *e);

/*
 * The cgroup of process (or thread) pid for the cpu controller, from
 * /proc/PID/cgroup: 0 opened; 1 when that is the hierarchy's root, which
 * has no quota (nothing opened); or -errno with e.
 */
int cgroup_sampler_open_pid(struct cgroup_sampler *s, pid_t pid,
			    struct errmsg *e);

/* Starts the thread, sampling every interval_ns, the first time at once.
 * 0 or -errno with e. */
int cgroup_sampler_start(struct cgroup_sampler *s, uint64_t interval_ns,
			 struct errmsg *e);

/* What the thread read since the last call, in order: *v (borrowed:
 * valid until the next call) and *n readings.  0, or -ENOMEM once the
 * thread ran out of memory and stopped (what it read before is in *v). */
int cgroup_sampler_take(struct cgroup_sampler *s,
			 const struct cgroup_reading **v, size_t *n);

/* Stops and joins the thread; no-op if it was not started. */
void cgroup_sampler_stop(struct cgroup_sampler *s);

#endif
