/*
 * cpu_holders: who held the CPU while a finding's thread waited for one,
 * for the preemption and slow wake-up findings' detail line.
 */
#ifndef FL_DIAG_CPU_HOLDERS_H
#define FL_DIAG_CPU_HOLDERS_H

#include "pattern.h"

/*
 * Sets f->detail to the threads that held the CPU during f's stalls,
 * its thread's runnable waits (preempted ones, or those after a
 * wake-up), most time first: "cc1 (22745) 4.100 ms, idle 0.300 ms,
 * 3 others 0.400 ms"; never more than the time the finding lost.  From ran_instead (every thread that ran there
 * meanwhile); where the session has none, for preempted waits, from the
 * thread that took the CPU at each switch (sched_switch's next_pid).
 * faultline's own threads are the recorder finding's, not named here.
 * 0, or -ENOMEM; with nothing to say, f->detail stays NULL.
 */
int diag_cpu_holders(sqlite3 *db, const struct diag_ctx *c,
		     struct diag_finding *f, int preempted);

#endif
