-- Fault latency per thread and kind: percentiles and the histogram.
-- Taken from fault_histogram, which counts every timed fault, also those
-- shorter than --min-fault-duration that have no row in fault; its
-- buckets are powers of two, so each percentile is the upper bound of the
-- bucket that holds it (the true value is at most that, and more than
-- half of it).  A session that failed while recording has no histogram.
--
-- Parameters:
--   :tid      INTEGER = NULL  one thread; all when NULL
--   :session  INTEGER = NULL  the session; the latest when NULL
-- Columns:
--   tid        INTEGER  the thread
--   comm       TEXT     its latest name in the session
--   kind       TEXT     minor or major
--   faults     INTEGER  timed faults
--   p50_us     REAL     median, upper bucket bound, us
--   p90_us     REAL     90th percentile, upper bucket bound, us
--   p99_us     REAL     99th percentile, upper bucket bound, us
--   max_us     REAL     the longest, upper bucket bound, us
--   histogram  TEXT     'LOW:COUNT' per bucket, lowest first; LOW is the
--                       bucket's lower bound (ns, us, ms or s)
WITH sess AS (
  SELECT coalesce(:session, (SELECT max(session_id) FROM session)) AS id
),
h AS (
  SELECT h.tid, h.kind, h.lo_ns, h.hi_ns, h.count,
         sum(h.count) OVER (PARTITION BY h.tid, h.kind ORDER BY h.lo_ns) AS cum,
         sum(h.count) OVER (PARTITION BY h.tid, h.kind) AS total
    FROM sess, fault_histogram h
   WHERE h.session_id = sess.id AND (:tid IS NULL OR h.tid = :tid)
)
SELECT h.tid,
       (SELECT t.comm FROM sess, thread t WHERE t.session_id = sess.id
           AND t.tid = h.tid ORDER BY t.first_ts DESC LIMIT 1) AS comm,
       h.kind, h.total AS faults,
       min(CASE WHEN h.cum * 100 >= h.total * 50 THEN h.hi_ns END) / 1e3 AS p50_us,
       min(CASE WHEN h.cum * 100 >= h.total * 90 THEN h.hi_ns END) / 1e3 AS p90_us,
       min(CASE WHEN h.cum * 100 >= h.total * 99 THEN h.hi_ns END) / 1e3 AS p99_us,
       max(h.hi_ns) / 1e3 AS max_us,
       (SELECT group_concat(b, ' ') FROM (
          SELECT CASE WHEN g.lo_ns >= 1000000000 THEN printf('%gs', g.lo_ns / 1e9)
                      WHEN g.lo_ns >= 1000000 THEN printf('%gms', g.lo_ns / 1e6)
                      WHEN g.lo_ns >= 1000 THEN printf('%gus', g.lo_ns / 1e3)
                      ELSE g.lo_ns || 'ns' END || ':' || g.count AS b
            FROM sess, fault_histogram g
           WHERE g.session_id = sess.id AND g.tid = h.tid AND g.kind = h.kind
           ORDER BY g.lo_ns)) AS histogram
  FROM h
 GROUP BY h.tid, h.kind
 ORDER BY h.tid, h.kind;
