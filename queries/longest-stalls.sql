-- The longest stalls of a session, longest first: the longest faults and
-- the longest intervals off the CPU that were stalls (the stall view:
-- runnable, blocked, or asleep on a resource; idle waiting is in
-- idle-waits), with what the thread's state was meanwhile and the stack
-- where one was recorded.
--
-- Parameters:
--   :limit    INTEGER = 10    how many faults, and how many intervals
--   :tid      INTEGER = NULL  one thread; all when NULL
--   :session  INTEGER = NULL  the session; the latest when NULL
-- Columns:
--   start_utc  TEXT     when the stall began, UTC
--   dur_ms     REAL     how long it lasted, ms
--   tid        INTEGER  the thread
--   comm       TEXT     its name at the time
--   stall      TEXT     'major fault', 'minor fault', or the off-CPU state
--                       (runnable, blocked, waiting, or sleeping on a lock)
--   states     TEXT     for a fault, the thread's time off the CPU during
--                       it by state ('blocked 4.812ms'), 'on cpu' when none;
--                       for a runnable interval, 'preempted by cc1 (4242)'
--                       or 'after a wake-up by rx (4242)' (or by 'hard
--                       interrupt on CPU 1'; thread_state_reason), then
--                       what held the CPU meanwhile ('; ran: cc1 (4242)
--                       4.100 ms, idle 0.200 ms': ran_instead_named); for
--                       another, what woke the thread as thread_state_waker
--                       words it: 'woken by rx (4242)', then the system
--                       call it waited in (wait_in_call, record
--                       --syscalls): '; in pread64 of /var/lib/x.db'; a
--                       futex wait a thread ended names the lock's
--                       holder instead: 'in futex 0x7f12a000 held by
--                       nak-pub (4244)'; then the block request whose
--                       completion ended a blocked interval, the last of
--                       those issued in the thread that completed in it
--                       (blocked_on_request, record --block-io): '; disk
--                       read of 64 KiB on vda, 3.1 ms in service (the last
--                       of 3)'
--   stack      TEXT     innermost function first ('c <- b <- main'); NULL
--                       when none was recorded
WITH sess AS (
  SELECT coalesce(:session, (SELECT max(session_id) FROM session)) AS id
),
top AS (
  SELECT * FROM (
    SELECT f.ts, f.dur, f.tid, f.kind || ' fault' AS stall, NULL AS state_id,
           0 AS preempted, f.stack_id, 1 AS is_fault
      FROM sess, fault f
     WHERE f.session_id = sess.id AND f.dur IS NOT NULL
       AND (:tid IS NULL OR f.tid = :tid)
     ORDER BY f.dur DESC LIMIT :limit)
  UNION ALL
  SELECT * FROM (
    SELECT x.ts, x.dur, x.tid, x.state, x.rowid, x.preempted, x.stack_id, 0
      FROM sess, stall s
      JOIN thread_state x ON x.rowid = s.state_id
     WHERE s.session_id = sess.id AND s.state_id IS NOT NULL
       AND (:tid IS NULL OR s.tid = :tid)
     ORDER BY s.dur DESC LIMIT :limit)
)
SELECT strftime('%Y-%m-%dT%H:%M:%S', s.ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', s.ts % 1000000000) AS start_utc,
       round(s.dur / 1e6, 3) AS dur_ms, s.tid,
       (SELECT t.comm FROM thread t
         WHERE t.session_id = sess.id AND t.tid = s.tid AND t.first_ts <= s.ts
         ORDER BY t.first_ts DESC LIMIT 1) AS comm,
       s.stall,
       CASE WHEN s.is_fault THEN coalesce((
         SELECT group_concat(state || ' ' || round(ns / 1e6, 3) || 'ms', ', ')
           FROM (SELECT x.state,
                        sum(min(x.ts + x.dur, s.ts + s.dur) - max(x.ts, s.ts)) AS ns
                   FROM thread_state x
                  WHERE x.session_id = sess.id AND x.tid = s.tid
                    AND x.state != 'running'
                    AND x.ts < s.ts + s.dur AND x.ts + x.dur > s.ts
                  GROUP BY x.state ORDER BY ns DESC)), 'on cpu')
       WHEN s.stall = 'runnable' THEN (
         SELECT CASE r.reason
                  WHEN 'preempted' THEN 'preempted' || coalesce(' by ' ||
                    coalesce(nullif(r.by_comm, ''), '?') || ' (' || r.by_tid || ')', '')
                  WHEN 'wakeup-latency' THEN 'after a wake-up by ' ||
                    CASE WHEN r.by_tid = 0 THEN r.detail
                         WHEN r.by_tid IS NULL THEN 'an unseen waker'
                         ELSE coalesce(nullif(r.by_comm, ''), '?') || ' (' ||
                              r.by_tid || ')' END
                  ELSE 'runnable' END
                || coalesce('; ran: ' || (SELECT group_concat(i.who, ', ') FROM (
                     SELECT i.who FROM ran_instead_named i
                      WHERE i.session_id = sess.id AND i.tid = s.tid AND i.ts = s.ts
                      ORDER BY i.dur DESC, i.ran_tid) i), '')
           FROM thread_state_reason r
          WHERE r.session_id = sess.id AND r.state_id = s.state_id)
       ELSE (SELECT nullif(ltrim(CASE WHEN h.holder IS NULL
                                      THEN coalesce('woken by ' || h.waker, '') ELSE '' END
                                 || coalesce('; in ' || h.waited_in ||
                                             coalesce(' ' || h.uaddr, '') ||
                                             coalesce(' held by ' || h.holder, ''), '')
                                 || coalesce('; ' || h.disk ||
                                             CASE WHEN h.ndisk > 1 THEN
                                               printf(' (the last of %d)', h.ndisk)
                                             ELSE '' END, ''),
                                 '; '), '')
               FROM (SELECT w.waker, c.waited_in,
                            (SELECT b.what FROM blocked_on_request b
                              WHERE b.session_id = w.session_id
                                AND b.state_id = w.state_id
                              ORDER BY b.complete_ts DESC LIMIT 1) AS disk,
                            (SELECT count(*) FROM blocked_on_request b
                              WHERE b.session_id = w.session_id
                                AND b.state_id = w.state_id) AS ndisk,
                            CASE WHEN c.call = 'futex' AND y.args LIKE 'uaddr=%,%'
                                 THEN substr(y.args, 7, instr(y.args, ',') - 7) END AS uaddr,
                            CASE WHEN c.call = 'futex' AND w.waker_tid > 0
                                  AND coalesce(w.waker_context, 'thread') = 'thread'
                                 THEN w.waker END AS holder
                       FROM thread_state_waker w
                       LEFT JOIN wait_in_call c ON c.session_id = w.session_id
                        AND c.state_id = w.state_id
                       LEFT JOIN syscall y ON y.rowid = c.syscall_id
                      WHERE w.session_id = sess.id AND w.state_id = s.state_id) h)
       END AS states,
       (SELECT group_concat(name, ' <- ') FROM (
          SELECT name FROM stack_frame_name n
           WHERE n.session_id = sess.id AND n.stack_id = s.stack_id
           ORDER BY n.depth, n.idx)) AS stack
  FROM sess, top s
 ORDER BY s.dur DESC, s.ts, s.tid;
