#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perf_open.h"

void perf_attr_sampling(struct perf_event_attr *a, uint32_t type,
			uint64_t config, uint64_t sample_type, size_t ring_bytes)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->sample_period = 1;
	a->sample_type = sample_type;
	a->sample_id_all = 1;
	a->disabled = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ring_bytes / 4);
}

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

int perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 99;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 99;
		fclose(f);
	}
	return v;
}

static int path_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

static void describe_target(char *buf, size_t n, pid_t pid, int cpu)
{
	if (pid == -1)
		snprintf(buf, n, "all threads on CPU %d", cpu);
	else if (pid == 0 && cpu == -1)	/* the caller: faultline's own events */
		snprintf(buf, n, "faultline's own thread");
	else if (pid == 0)
		snprintf(buf, n, "faultline's own thread on CPU %d", cpu);
	else if (cpu == -1)
		snprintf(buf, n, "thread %d", (int)pid);
	else
		snprintf(buf, n, "thread %d on CPU %d", (int)pid, cpu);
}

int perf_open_explain(int err, const struct perf_event_attr *attr,
		      const char *event, pid_t pid, int cpu, struct errmsg *e)
{
	char target[64];
	char proc[64];

	describe_target(target, sizeof(target), pid, cpu);
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if (pid > 0 && !path_exists(proc))
		return errmsg_set(e, err, "cannot open '%s' for %s: no such thread "
				  "(it exited); check the pid or tid", event, target);
	if (attr->type == PERF_TYPE_HARDWARE &&
	    !path_exists("/sys/bus/event_source/devices/cpu"))
		return errmsg_set(e, err, "cannot open '%s': this machine has no "
				  "hardware PMU (no cpu PMU under "
				  "/sys/bus/event_source/devices, as on most VMs); "
				  "use software events or tracepoints", event);
	switch (err) {
	case EACCES:
	case EPERM:
		return errmsg_set(e, err, "cannot open '%s' for %s: permission "
				  "denied (perf_event_paranoid=%d); run as root or "
				  "grant CAP_PERFMON", event, target, perf_paranoid());
	case ESRCH:
		return errmsg_set(e, err, "cannot open '%s' for %s: no such thread; "
				  "check the pid or tid", event, target);
	case EMFILE:
	case ENFILE:
		return errmsg_set(e, err, "cannot open '%s' for %s: too many open "
				  "files (one per event, thread and CPU); raise the "
				  "limit with 'ulimit -n'", event, target);
	case ENODEV:
		return errmsg_set(e, err, "cannot open '%s' on CPU %d: the CPU is "
				  "offline or the event does not exist there", event, cpu);
	case EINVAL:
		if (attr->use_clockid && attr->type != PERF_TYPE_SOFTWARE &&
		    attr->type != PERF_TYPE_TRACEPOINT)
			return errmsg_set(e, err, "cannot open '%s': its PMU refuses "
					  "CLOCK_REALTIME timestamps (not NMI-safe)",
					  event);
		return errmsg_set(e, err, "cannot open '%s' for %s: the kernel "
				  "rejected the event's settings (EINVAL); it may "
				  "be too old for them", event, target);
	case EBUSY:
		return errmsg_set(e, err, "cannot open '%s' for %s: the PMU is in "
				  "exclusive use by another tool", event, target);
	default:
		return errmsg_set(e, err, "cannot open '%s' for %s: %s", event,
				  target, strerror(err));
	}
}
