-- Idle waiting, per thread, by what it waited on, most time first: the
-- sleeps that are no stall (sleep_wait.idle: a timer, poll or epoll with
-- nothing ready, a join or a condition variable, a packet that had not
-- come), kept in view beside the stalls they are told apart from.
--
-- Parameters:
--   :tid      INTEGER = NULL  one thread; all when NULL
--   :session  INTEGER = NULL  the session; the latest when NULL
-- Columns:
--   tid          INTEGER  the thread
--   comm         TEXT     its latest name in the session
--   waited_on    TEXT     what the sleeps waited on (sleep_wait.waited_on):
--                         poll, futex, timer, network from the stack's
--                         kernel frames (record --stacks); else what woke
--                         them: interrupt, softirq, thread, or 'waker
--                         not seen'
--   sleeps       INTEGER  how many sleeps
--   total_ms     REAL     their summed duration, ms
--   max_ms       REAL     the longest, ms
--   longest_utc  TEXT     when the longest began, UTC
WITH sess AS (
  SELECT coalesce(:session, (SELECT max(session_id) FROM session)) AS id
),
w AS (
  SELECT w.tid, w.waited_on, count(*) AS sleeps, sum(w.dur) AS total,
         max(w.dur) AS longest, w.ts
    FROM sess, sleep_wait w
   WHERE w.session_id = sess.id AND w.idle AND (:tid IS NULL OR w.tid = :tid)
   GROUP BY w.tid, w.waited_on
)
SELECT w.tid,
       (SELECT t.comm FROM sess, thread t WHERE t.session_id = sess.id
           AND t.tid = w.tid ORDER BY t.first_ts DESC LIMIT 1) AS comm,
       w.waited_on, w.sleeps, round(w.total / 1e6, 3) AS total_ms,
       round(w.longest / 1e6, 3) AS max_ms,
       strftime('%Y-%m-%dT%H:%M:%S', w.ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', w.ts % 1000000000) AS longest_utc
  FROM w
 ORDER BY w.total DESC, w.tid, w.waited_on;
