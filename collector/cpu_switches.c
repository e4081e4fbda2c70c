#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "cpu_switches.h"
#include "perf_open.h"

/* The refusal, as a warning: runnable waits are still timed, only the
 * threads that held the CPU meanwhile go unnamed. */
static int refused(struct errmsg *warning, int err,
		   const struct perf_event_attr *a, int cpu)
{
	struct errmsg why;

	errmsg_init(&why);
	perf_open_explain(-err, a, "cpu-wide context switches", -1, cpu, &why);
	if (!warning->text[0])
		errmsg_set(warning, -err, "runnable waits will not say what "
			   "ran instead: %s", why.text);
	return 0;
}

int cpu_switches_open(struct event_set *set, const struct fault_attrs *fa,
		      struct errmsg *warning, struct errmsg *e)
{
	/* The fault events' attr, for the same sample_id trailer and clock. */
	struct perf_event_attr a = fa->attr[0];

	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap = a.mmap2 = a.mmap_data = a.build_id = 0;
	a.comm = a.comm_exec = a.task = 0;
	a.inherit = a.enable_on_exec = 0;
	a.sample_type &= ~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				     PERF_SAMPLE_STACK_USER);
	a.context_switch = 1;
	for (int c = 0; c < set->ncpus; c++) {
		int fd = perf_open(&a, -1, set->cpus[c]), err;

		if (fd == -EACCES || fd == -EPERM)
			return refused(warning, fd, &a, set->cpus[c]);
		if (fd < 0)
			return perf_open_explain(-fd, &a, "cpu-wide context switches",
						 -1, set->cpus[c], e);
		if (event_set_keep_fd(set, fd) < 0)
			return -ENOMEM;
		err = event_set_share_ring(set, c, fd, e);
		if (err < 0)
			return err;
	}
	return 1;
}
