/*
 * cpu_switches: what ran on each CPU, for per-thread targets.  A CPU-wide
 * dummy event on every CPU, with context_switch set, makes the kernel
 * write a PERF_RECORD_SWITCH_CPU_WIDE for every switch on that CPU,
 * whoever's, into the CPU's ring.  The decoder keeps a short history of
 * them to say which threads held a CPU while a target waited for it
 * (decoder/cpu_runs.h), and reads the targets' own switches from them.
 * With -a or --comm the fault events are CPU-wide and write these
 * records already: nothing is opened.
 */
#ifndef FL_CPU_SWITCHES_H
#define FL_CPU_SWITCHES_H

#include "event_set.h"
#include "fault_events.h"

/*
 * Opens the events (disabled; enabled with the rest) and points each at
 * its CPU's ring, after ring_owners_open and before the targets' own
 * events: since these records tell every switch of every thread, the
 * targets' own events need write none (fault_attrs_drop_switch_records;
 * the record engine takes a target's switches from these).  A CPU-wide
 * event needs CAP_PERFMON or perf_event_paranoid <= 0: when refused,
 * warning (if not set already) says what is left out and 0 is returned.
 * 1 when opened, or -errno with e.
 */
int cpu_switches_open(struct event_set *set, const struct fault_attrs *fa,
		      struct errmsg *warning, struct errmsg *e);

#endif
