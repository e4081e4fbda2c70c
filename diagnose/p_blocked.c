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
		"SELECT b.tid, b.ts, b.dur,\n"
		"       CASE WHEN b.reason != 'blocked' THEN b.reason || ' (its kernel stack)'\n"
		"            WHEN b.call IS NOT NULL THEN 'in ' || b.call\n"
		"            WHEN b.source IS NOT NULL THEN 'woken by ' || b.source\n"
		"            WHEN b.context = 'softirq' THEN 'woken by a softirq'\n"
		"            WHEN b.context IN ('hardirq', 'nmi') OR b.by_tid = 0\n"
		"              THEN 'woken by an interrupt'\n"
		"            WHEN b.by_tid > 0 THEN 'woken by ' ||\n"
		"              coalesce(nullif(b.by_comm, ''), 'another thread')\n"
		"            ELSE 'not recorded: no kernel stack, and no wake-up seen' END,\n"
		"       'thread_state row ' || b.state_id || ': blocked for ' ||\n"
		"         printf('%.3f ms', b.dur / 1e6) ||\n"
		"         coalesce(' in ' || b.detail, '') ||\n"
		"         coalesce(', in ' || b.waited_in, '') ||\n"
		"         coalesce(', woken by ' || b.waker ||\n"
		"                  CASE WHEN coalesce(b.context, 'thread') = 'thread'\n"
		"                       THEN coalesce(' (' || b.source || ')', '')\n"
		"                       ELSE '' END, ''),\n"
		"       b.stack_id, NULL, NULL\n"
		/* Each looked up by the interval's rowid: joined as views, the
		 * waker's and the call's were worked out for every interval of
		 * the session, for each blocked one. */
		"  FROM (SELECT r.tid, r.ts, r.dur, r.reason, r.state_id, r.by_tid,\n"
		"               r.by_comm, r.detail, r.stack_id,\n"
		"               x.waker_context AS context, ws.source,\n"
		"               (SELECT w.waker FROM thread_state_waker w\n"
		"                 WHERE w.session_id = r.session_id\n"
		"                   AND w.state_id = r.state_id) AS waker,\n"
		"               (SELECT c.call FROM wait_in_call c\n"
		"                 WHERE c.session_id = r.session_id\n"
		"                   AND c.state_id = r.state_id) AS call,\n"
		"               (SELECT c.waited_in FROM wait_in_call c\n"
		"                 WHERE c.session_id = r.session_id\n"
		"                   AND c.state_id = r.state_id) AS waited_in\n"
		"          FROM thread_state_reason r\n"
		"          JOIN thread_state x ON x.rowid = r.state_id\n"
		"          LEFT JOIN wake_source_by_stack ws ON ws.session_id = x.session_id\n"
		"           AND ws.stack_id = x.waker_stack_id\n"
		"         WHERE r.session_id = :session AND r.state = 'blocked'\n"
		"           AND r.dur >= :min_dur) b",
	.remedies =
		"record with what the session lacks of --syscalls (the call and "
		"its file), --block-io (the disk requests) and --stacks=fp (the "
		"kernel path): a more specific pattern may then name the wait\n"
		"where it waits for the disk: read ahead of need, keep the data in "
		"memory, or move it to faster storage",
};
