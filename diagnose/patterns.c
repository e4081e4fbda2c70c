/*
 * The registry of patterns, in the order the engine tries them: a stall
 * two of them claim goes to the one listed first, so the specific come
 * before the general (a major fault in the resolver is lazy binding
 * before it is an evicted file page; a minor fault's wait for a page
 * still being read is that before it is a block in the kernel; the
 * recorder's preemption before preemption; a quota's throttling before
 * preemption and slow wake-up); last, a thread blocked in the kernel for
 * a reason none of them names.  The waits for a CPU (waits_for_cpu)
 * claim apart from the rest: a fault or a call keeps its stall beside
 * the runnable intervals inside it, less their time (group.c).
 */
#include "../common/array.h"
#include "pattern.h"

const struct diag_pattern *const diag_patterns[] = {
	&diag_lazy_binding,
	&diag_reclaim,
	&diag_numa_balancing,
	&diag_file_evicted,
	&diag_file_in_flight,
	&diag_anon_swapped,
	&diag_file_io,
	&diag_fsync,
	&diag_futex,
	&diag_recorder,
	&diag_cpu_quota,
	&diag_preemption,
	&diag_slow_wakeup,
	&diag_blocked,
};

const size_t diag_npatterns = ARRAY_SIZE(diag_patterns);
