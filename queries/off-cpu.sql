-- Where each thread's time off the CPU went: per thread, by state and by
-- the thread that woke it, most time first.
--
-- Parameters:
--   :tid      INTEGER = NULL  one thread; all when NULL
--   :session  INTEGER = NULL  the session; the latest when NULL
-- Columns:
--   tid          INTEGER  the thread
--   comm         TEXT     its latest name in the session
--   state        TEXT     runnable, sleeping, blocked, waiting, other or unknown
--   waker_tid    INTEGER  the thread that woke it; NULL when not known
--   waker_comm   TEXT     the waker's name: as the wake-up recorded it
--                         (thread_state.waker_comm), else as the thread
--                         table has it; 'interrupt (idle CPU)' for
--                         waker_tid 0; NULL when not known
--   intervals    INTEGER  how many intervals
--   total_ms     REAL     their summed duration, ms
--   max_ms       REAL     the longest, ms
--   pct_of_thread REAL    share of the thread's recorded time, percent
WITH sess AS (
  SELECT coalesce(:session, (SELECT max(session_id) FROM session)) AS id
),
x AS (
  SELECT x.tid, x.state, x.dur, x.waker_tid, nullif(x.waker_comm, '') AS waker_comm,
         sum(x.dur) OVER (PARTITION BY x.tid) AS thread_ns
    FROM sess, thread_state x
   WHERE x.session_id = sess.id AND (:tid IS NULL OR x.tid = :tid)
)
SELECT x.tid,
       (SELECT t.comm FROM sess, thread t WHERE t.session_id = sess.id
           AND t.tid = x.tid ORDER BY t.first_ts DESC LIMIT 1) AS comm,
       x.state, x.waker_tid,
       CASE WHEN x.waker_tid = 0 THEN 'interrupt (idle CPU)'
            ELSE coalesce(max(x.waker_comm),
                          (SELECT nullif(t.comm, '') FROM sess, thread t
                            WHERE t.session_id = sess.id AND t.tid = x.waker_tid
                            ORDER BY t.first_ts DESC LIMIT 1)) END AS waker_comm,
       count(*) AS intervals, round(sum(x.dur) / 1e6, 3) AS total_ms,
       round(max(x.dur) / 1e6, 3) AS max_ms,
       round(100.0 * sum(x.dur) / max(x.thread_ns), 2) AS pct_of_thread
  FROM x
 WHERE x.state != 'running'
 GROUP BY x.tid, x.state, x.waker_tid
 ORDER BY x.tid, sum(x.dur) DESC, x.state, x.waker_tid;
