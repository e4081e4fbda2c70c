-- The long stalls of the recorded threads (the stall view: faults, and
-- time off the CPU with work to do; idle waiting is no stall) that
-- preceded a metric's events (NAKs, say): those that began before an
-- event and had not ended window before it.  One row per stall, with the
-- events it preceded counted and listed in it, so a stall that reached
-- into the windows of many events is shown once; ordered by its first
-- event, longest first, with the stack where one was recorded.
--
-- Parameters:
--   :metric   TEXT              the metric's name, e.g. nak
--   :window   DURATION = 200ms  how far before each event to look
--   :after    DURATION = 0      how far after it: a stall that began this
--                               soon after an event counts too (a latency
--                               sample stamped at the request's start)
--   :min_value REAL = NULL      only the events whose value is this or more
--   :min_dur  DURATION = 1ms    the shortest fault or off-CPU interval shown
--   :tid      INTEGER = NULL    one thread; all of the session's when NULL
--   :session  INTEGER = NULL    the session; the latest when NULL
-- Columns:
--   tid              INTEGER  the thread that stalled
--   comm             TEXT     its name at the time
--   stall            TEXT     'major fault', 'minor fault', or the off-CPU state
--                             (runnable, blocked, waiting, or sleeping on a lock)
--   start_utc        TEXT     when the stall began, UTC
--   dur_ms           REAL     the stall's duration, ms
--   waker_tid        INTEGER  the thread that ended an off-CPU interval, if
--                             known; 0 for an interrupt or an idle task
--   waker            TEXT     what ended it as thread_state_waker words it:
--                             'rx (4242)', 'hard interrupt on CPU 1'
--   events           INTEGER  how many of the metric's events it preceded
--   first_event_utc  TEXT     the first of them, UTC
--   before_ms        REAL     from the stall's start to that event, ms;
--                             negative when the stall began after it
--   event_values     TEXT     the events' values, in order, ', '-separated
--   stack            TEXT     innermost function first ('c <- b <- main');
--                             NULL when none was recorded
--
-- A stall of at least min_dur is rare next to the faults and intervals
-- below it, so the query starts from those stalls (the session's faults,
-- read once, and thread_state_off_cpu_by_dur) and looks up, for each,
-- the events from after before its start to window after its end
-- (metric_by_series): its cost follows the long stalls, not the events
-- or the rows in each window.  CROSS JOIN
-- holds the planner to that order, which it cannot tell without
-- statistics.
WITH sess AS (
  SELECT session_id AS id, start_ts, coalesce(end_ts, 1 << 62) AS end_ts
    FROM session
   WHERE session_id = coalesce(:session, (SELECT max(session_id) FROM session))
),
long_stall AS (
  SELECT s.tid, s.stall, s.ts, s.dur,
         (SELECT x.waker_tid FROM thread_state x WHERE x.rowid = s.state_id) AS waker_tid,
         s.state_id, s.stack_id
    FROM sess, stall s
   WHERE s.session_id = sess.id AND s.dur >= :min_dur
     AND (:tid IS NULL OR s.tid = :tid)
),
hit AS (
  SELECT m.ts AS event_ts, m.value, s.*
    FROM sess CROSS JOIN long_stall s CROSS JOIN metric_series ms CROSS JOIN metric m
   WHERE ms.name = :metric AND (ms.session_id IS NULL OR ms.session_id = sess.id)
     AND m.series_id = ms.series_id
     AND m.ts > s.ts - :after AND m.ts < s.ts + s.dur + :window
     AND (:min_value IS NULL OR m.value >= :min_value)
     AND m.ts >= sess.start_ts AND m.ts <= sess.end_ts + :window
),
per_stall AS (
  SELECT h.tid, h.stall, h.ts, h.dur, h.waker_tid, h.state_id, h.stack_id,
         count(*) AS events, min(h.event_ts) AS first_event_ts,
         group_concat(h.value, ', ') AS event_values
    FROM (SELECT * FROM hit ORDER BY event_ts) h
   GROUP BY h.tid, h.stall, h.ts, h.dur
)
SELECT h.tid,
       (SELECT t.comm FROM thread t
         WHERE t.session_id = sess.id AND t.tid = h.tid AND t.first_ts <= h.ts
         ORDER BY t.first_ts DESC LIMIT 1) AS comm,
       h.stall,
       strftime('%Y-%m-%dT%H:%M:%S', h.ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', h.ts % 1000000000) AS start_utc,
       round(h.dur / 1e6, 3) AS dur_ms, h.waker_tid,
       (SELECT w.waker FROM thread_state_waker w
         WHERE w.session_id = sess.id AND w.state_id = h.state_id) AS waker,
       h.events,
       strftime('%Y-%m-%dT%H:%M:%S', h.first_event_ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', h.first_event_ts % 1000000000) AS first_event_utc,
       round((h.first_event_ts - h.ts) / 1e6, 3) AS before_ms, h.event_values,
       (SELECT group_concat(name, ' <- ') FROM (
          SELECT name FROM stack_frame_name n
           WHERE n.session_id = sess.id AND n.stack_id = h.stack_id
           ORDER BY n.depth, n.idx)) AS stack
  FROM sess, per_stall h
 ORDER BY h.first_event_ts, h.dur DESC, h.tid, h.stall;
