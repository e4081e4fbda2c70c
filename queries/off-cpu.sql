-- Where each thread's time off the CPU went: per thread, by state and by
-- what woke it (a thread, or an interrupt on a CPU), most time first.
--
-- Parameters:
--   :tid      INTEGER = NULL  one thread; all when NULL
--   :session  INTEGER = NULL  the session; the latest when NULL
-- Columns:
--   tid          INTEGER  the thread
--   comm         TEXT     its latest name in the session
--   state        TEXT     runnable, sleeping, blocked, waiting, other or unknown
--   waker_tid    INTEGER  the thread that woke it; 0 for an interrupt or
--                         a CPU's idle task; NULL when not known
--   waker        TEXT     what woke it as thread_state_waker words it:
--                         'rx (4242)', 'hard interrupt on CPU 1',
--                         'softirq on CPU 0'; NULL when not known
--   intervals    INTEGER  how many intervals
--   total_ms     REAL     their summed duration, ms
--   max_ms       REAL     the longest, ms
--   pct_of_thread REAL    share of the thread's recorded time, percent
WITH sess AS (
  SELECT coalesce(:session, (SELECT max(session_id) FROM session)) AS id
),
x AS (
  SELECT x.tid, x.state, x.dur, x.waker_tid, w.waker,
         sum(x.dur) OVER (PARTITION BY x.tid) AS thread_ns
    FROM sess, thread_state x
    JOIN thread_state_waker w ON w.session_id = x.session_id AND w.state_id = x.rowid
   WHERE x.session_id = sess.id AND (:tid IS NULL OR x.tid = :tid)
)
SELECT x.tid,
       (SELECT t.comm FROM sess, thread t WHERE t.session_id = sess.id
           AND t.tid = x.tid ORDER BY t.first_ts DESC LIMIT 1) AS comm,
       x.state, x.waker_tid, x.waker,
       count(*) AS intervals, round(sum(x.dur) / 1e6, 3) AS total_ms,
       round(max(x.dur) / 1e6, 3) AS max_ms,
       round(100.0 * sum(x.dur) / max(x.thread_ns), 2) AS pct_of_thread
  FROM x
 WHERE x.state != 'running'
 GROUP BY x.tid, x.state, x.waker_tid, x.waker
 ORDER BY x.tid, sum(x.dur) DESC, x.state, x.waker_tid, x.waker;
