-- For each event of a metric (each NAK, say), the long faults and off-CPU
-- intervals of the recorded threads in the window before it: those that
-- began before the event and had not ended window before it.  Longest
-- first within each event, with the stack where one was recorded.
--
-- Parameters:
--   :metric   TEXT              the metric's name, e.g. nak
--   :window   DURATION = 200ms  how far before each event to look
--   :min_dur  DURATION = 1ms    the shortest fault or off-CPU interval shown
--   :tid      INTEGER = NULL    one thread; all of the session's when NULL
--   :session  INTEGER = NULL    the session; the latest when NULL
-- Columns:
--   event_utc  TEXT     the metric event, UTC
--   value      REAL     the event's value (a NAK's gap size, ...)
--   tid        INTEGER  the thread that stalled
--   comm       TEXT     its name at the time
--   stall      TEXT     'major fault', 'minor fault', or the off-CPU state
--   start_utc  TEXT     when the stall began, UTC
--   before_ms  REAL     from the stall's start to the event, ms
--   dur_ms     REAL     the stall's duration, ms
--   waker_tid  INTEGER  the thread that ended an off-CPU interval, if known
--   stack      TEXT     innermost function first ('c <- b <- main'); NULL
--                       when none was recorded
--
-- Each thread's faults follow one another, and so do its thread_state
-- intervals: only a thread's last fault (interval) that began before the
-- window can reach into it, so each lookup is a range of the
-- (session_id, tid, ts) indexes starting there.  CROSS JOIN fixes that
-- order of the loops (events, threads, rows) and the unary + keeps the
-- planner off fault_by_dur: without statistics it would scan every long
-- fault for every event.
WITH sess AS (
  SELECT session_id AS id, start_ts, coalesce(end_ts, 1 << 62) AS end_ts
    FROM session
   WHERE session_id = coalesce(:session, (SELECT max(session_id) FROM session))
),
ev AS (
  SELECT m.ts, m.value
    FROM sess, metric_series ms, metric m
   WHERE ms.name = :metric AND (ms.session_id IS NULL OR ms.session_id = sess.id)
     AND m.series_id = ms.series_id
     AND m.ts >= sess.start_ts AND m.ts <= sess.end_ts + :window
),
thr AS (
  SELECT DISTINCT t.tid FROM sess, thread t
   WHERE t.session_id = sess.id AND (:tid IS NULL OR t.tid = :tid)
),
stall AS (
  SELECT e.ts AS event_ts, e.value, f.tid, f.kind || ' fault' AS stall,
         f.ts, f.dur, NULL AS waker_tid, f.stack_id
    FROM sess CROSS JOIN ev e CROSS JOIN thr CROSS JOIN fault f
   WHERE f.session_id = sess.id AND f.tid = thr.tid
     AND f.ts >= coalesce((SELECT p.ts FROM fault p
                            WHERE p.session_id = sess.id AND p.tid = thr.tid
                              AND p.ts < e.ts - :window
                            ORDER BY p.ts DESC LIMIT 1), e.ts - :window)
     AND f.ts < e.ts AND f.ts + f.dur > e.ts - :window AND +f.dur >= :min_dur
  UNION ALL
  SELECT e.ts, e.value, x.tid, x.state, x.ts, x.dur, x.waker_tid, x.stack_id
    FROM sess CROSS JOIN ev e CROSS JOIN thr CROSS JOIN thread_state x
   WHERE x.session_id = sess.id AND x.tid = thr.tid
     AND x.ts >= coalesce((SELECT p.ts FROM thread_state p
                            WHERE p.session_id = sess.id AND p.tid = thr.tid
                              AND p.ts < e.ts - :window
                            ORDER BY p.ts DESC LIMIT 1), e.ts - :window)
     AND x.ts < e.ts AND x.ts + x.dur > e.ts - :window AND +x.dur >= :min_dur
     AND x.state != 'running'
)
SELECT strftime('%Y-%m-%dT%H:%M:%S', s.event_ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', s.event_ts % 1000000000) AS event_utc,
       s.value, s.tid,
       (SELECT t.comm FROM thread t
         WHERE t.session_id = sess.id AND t.tid = s.tid AND t.first_ts <= s.ts
         ORDER BY t.first_ts DESC LIMIT 1) AS comm,
       s.stall,
       strftime('%Y-%m-%dT%H:%M:%S', s.ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', s.ts % 1000000000) AS start_utc,
       round((s.event_ts - s.ts) / 1e6, 3) AS before_ms,
       round(s.dur / 1e6, 3) AS dur_ms, s.waker_tid,
       (SELECT group_concat(name, ' <- ') FROM (
          SELECT coalesce(y.function, fr.dso || printf('+0x%x', fr.dso_offset),
                          printf('0x%x', fr.addr)) AS name
            FROM stack_frame sf
            JOIN frame fr ON fr.session_id = sf.session_id AND fr.frame_id = sf.frame_id
            LEFT JOIN symbol y ON y.session_id = fr.session_id AND y.frame_id = fr.frame_id
           WHERE sf.session_id = sess.id AND sf.stack_id = s.stack_id
           ORDER BY sf.depth, y.idx)) AS stack
  FROM sess, stall s
 ORDER BY s.event_ts, s.dur DESC, s.tid;
