/*
 * cgroup_cpu: the text of a cgroup's CPU bandwidth files, as the kernel
 * prints them, into numbers; and which cgroup of /proc/PID/cgroup holds
 * the cpu controller.
 *
 * Pure functions of their input: each takes the bytes and their length
 * (no NUL needed, none looked for), fills the caller's struct only when
 * the input had the kernel's shape, and returns 0 or -EINVAL.  No I/O;
 * collector/cgroup_sampler.c reads the files.
 *
 * The formats (kernel/sched/core.c, Documentation/admin-guide/cgroup-v*):
 *
 *   cgroup v1, cpu controller:
 *     cpu.cfs_quota_us   "20000\n", or "-1\n": no quota
 *     cpu.cfs_period_us  "100000\n"
 *     cpu.stat           "nr_periods 12\nnr_throttled 9\n"
 *                        "throttled_time 712345678\n" (ns), and more
 *                        lines (nr_bursts, burst_time, wait_sum) on
 *                        later kernels
 *   cgroup v2:
 *     cpu.max            "20000 100000\n", or "max 100000\n": no quota
 *     cpu.stat           "usage_usec 1\n...nr_periods 12\nnr_throttled 9\n"
 *                        "throttled_usec 712345\n..."; the root cgroup
 *                        has no nr_* lines (no quota there)
 *
 *   /proc/PID/cgroup: one line a hierarchy, "ID:CONTROLLERS:PATH"; v1
 *   lists the controllers ("4:cpu,cpuacct:/a/b"), v2 is "0::/a/b".
 *
 * Lines a later kernel adds are ignored; a counter line whose value is
 * not a number is refused.
 */
#ifndef FL_CGROUP_CPU_H
#define FL_CGROUP_CPU_H

#include <stddef.h>
#include <stdint.h>

/* No quota: v1's -1, v2's "max". */
#define CGROUP_NO_QUOTA (-1)

/* What cpu.stat says of the quota; counts since the cgroup was made. */
struct cgroup_cpu_stat {
	uint64_t nr_periods;	/* periods in which the cgroup had runnable work */
	uint64_t nr_throttled;	/* of those, periods it ran out of quota */
	uint64_t throttled_ns;	/* time its threads were held back, ns */
};

/* cpu.stat of v1 (v2 = 0: throttled_time in ns) or v2 (throttled_usec).
 * A cpu.stat without the three counters is refused. */
int cgroup_parse_cpu_stat(const char *p, size_t len, int v2,
			  struct cgroup_cpu_stat *out);

/* cpu.max (v2): quota (CGROUP_NO_QUOTA for "max") and period, in us. */
int cgroup_parse_cpu_max(const char *p, size_t len, int64_t *quota_us,
			 int64_t *period_us);

/* One number (v1's cpu.cfs_quota_us, -1 allowed; cpu.cfs_period_us). */
int cgroup_parse_us(const char *p, size_t len, int64_t *us);

/*
 * /proc/PID/cgroup: the path of the hierarchy that holds the cpu
 * controller, into path (n bytes, NUL-terminated), and *v2: 0 for a v1
 * hierarchy whose controllers name cpu, 1 for the v2 line ("0::"), taken
 * only when no v1 hierarchy has cpu.  -EINVAL when neither, or the path
 * does not fit.
 */
int cgroup_parse_proc_cgroup(const char *p, size_t len, char *path, size_t n,
			     int *v2);

#endif
