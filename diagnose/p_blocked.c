/*
 * blocked in the kernel: an interval in state D (uninterruptible: the
 * disk, a page's I/O, a kernel lock, reclaim) of at least :min_dur that
 * no pattern before this one explains.  Listed last: a fault's, a file
 * read's or an fsync's blocked time goes to its own pattern first, so
 * this one holds what the recording could not tell more of, which is
 * still time the thread lost, and never left out of the findings.
 * Grouped by what the interval's kernel stack names (record --stacks),
 * else by the system call it lay in (record --syscalls: a call no
 * pattern above takes, an openat, a getdents64), else by what ended it:
 * the source of its wake-up ('disk completion', from the wake-up's
 * kernel stack), the kind of interrupt, or the waking thread's name.
 */
#include "pattern.h"

const struct diag_pattern diag_blocked = {
	.name = "blocked",
	.title = "blocked in the kernel (state D: the disk, a page's I/O, a kernel "
		 "lock), for a reason no other pattern names",
	.needs = "thread states (record's default); record --syscalls, --stacks "
		 "and --block-io say more",
	.sql =
		"SELECT r.tid, r.ts, r.dur,\n"
		"       CASE WHEN r.reason != 'blocked' THEN r.reason || ' (its kernel stack)'\n"
		"            WHEN c.call IS NOT NULL THEN 'in ' || c.call\n"
		"            WHEN s.source IS NOT NULL THEN 'woken by ' || s.source\n"
		"            WHEN w.waker_context = 'softirq' THEN 'woken by a softirq'\n"
		"            WHEN w.waker_context IN ('hardirq', 'nmi') OR w.waker_tid = 0\n"
		"              THEN 'woken by an interrupt'\n"
		"            WHEN w.waker_tid > 0 THEN 'woken by ' ||\n"
		"              coalesce(nullif(r.by_comm, ''), 'another thread')\n"
		"            ELSE 'not recorded: no kernel stack, and no wake-up seen' END,\n"
		"       'thread_state row ' || r.state_id || ': blocked for ' ||\n"
		"         printf('%.3f ms', r.dur / 1e6) ||\n"
		"         coalesce(' in ' || r.detail, '') ||\n"
		"         coalesce(', in ' || c.waited_in, '') ||\n"
		"         coalesce(', woken by ' || w.waker ||\n"
		"                  CASE WHEN coalesce(w.waker_context, 'thread') = 'thread'\n"
		"                       THEN coalesce(' (' || s.source || ')', '')\n"
		"                       ELSE '' END, ''),\n"
		"       r.stack_id, NULL, NULL\n"
		"  FROM thread_state_reason r\n"
		"  LEFT JOIN thread_state_waker w ON w.session_id = r.session_id\n"
		"   AND w.state_id = r.state_id\n"
		"  LEFT JOIN wake_source s ON s.session_id = r.session_id\n"
		"   AND s.state_id = r.state_id\n"
		"  LEFT JOIN wait_in_call c ON c.session_id = r.session_id\n"
		"   AND c.state_id = r.state_id\n"
		" WHERE r.session_id = :session AND r.state = 'blocked'\n"
		"   AND r.dur >= :min_dur",
	.remedies =
		"record with what the session lacks of --syscalls (the call and "
		"its file), --block-io (the disk requests) and --stacks=fp (the "
		"kernel path): a more specific pattern may then name the wait\n"
		"where it waits for the disk: read ahead of need, keep the data in "
		"memory, or move it to faster storage",
};
