/*
 * syscall_pair: a thread's system calls, each timed from its entry
 * (raw_syscalls:sys_enter) to its exit (sys_exit).
 *
 * Both tracepoints fire in the calling thread, which makes one call at a
 * time, so in time order a thread's exit belongs to its latest entry of
 * the same call number.  What breaks the rule:
 *   - an entry while another is pending: the first call's exit was lost
 *     (or the call never returns: exit, exit_group, a successful execve
 *     of a thread that is not the leader).  The first is dropped, counted
 *     as unpaired.
 *   - an exit with no pending entry, or of another number (recording
 *     began inside the call, its entry was lost): counted, not stored,
 *     as nothing says when it began.
 * A call pending when the thread exits or the recording ends is stored
 * as unfinished: its entry and arguments, with no duration, and the
 * stack it waits in when the stream has one (fault_stream.c).
 */
#ifndef FL_SYSCALL_PAIR_H
#define FL_SYSCALL_PAIR_H

#include <stdint.h>

#include "event.h"

#define SYSCALL_NO_DUR UINT64_MAX

struct syscall_call {
	uint64_t mono_ts;	/* entry, CLOCK_MONOTONIC ns */
	uint64_t dur_ns;	/* exit - entry; SYSCALL_NO_DUR: unfinished */
	uint32_t tid, pid;
	uint32_t cpu;		/* of the entry */
	int32_t nr;
	int64_t ret;		/* the exit's return value; 0 when unfinished */
	uint64_t blocked_ns;	/* of it, the thread's time blocked (state D) */
	uint64_t args[6];
	/* Unfinished only: the stack at the switch out it has waited off
	 * the CPU since, where it sits (stack_table id); 0: none, or it
	 * was running. */
	uint32_t stack_id;
};

struct syscall_pending {
	int active;
	uint64_t mono_ts;
	uint32_t cpu, pid;
	int32_t nr;
	uint64_t blocked_ns;	/* blocked intervals that ended during it */
	uint64_t args[6];
};

/* Result bits of syscall_pair_exit. */
#define SP_DONE		1	/* *done holds a timed call */
#define SP_UNPAIRED	2	/* an exit without its entry, or an entry
				 * dropped for a later one */

/* An entry (EV_SYS_ENTER).  Returns SP_UNPAIRED when one was pending. */
int syscall_pair_enter(struct syscall_pending *p, const struct ev *e);

/* An exit (EV_SYS_EXIT) of thread tid: SP_DONE with *done, or
 * SP_UNPAIRED. */
int syscall_pair_exit(struct syscall_pending *p, const struct ev *e,
		      struct syscall_call *done);

/* The pending call, if any, as unfinished into *out: 1, else 0. */
int syscall_pair_drain(struct syscall_pending *p, uint32_t tid,
		       struct syscall_call *out);

#endif
