-- Fault latency per thread and kind, the most harmful threads first:
-- percentiles, the longest fault and the histogram.  Taken from
-- fault_histogram, which counts every timed fault, also those shorter
-- than --min-fault-duration that have no row in fault.  Its buckets are
-- powers of two, and every bucket and percentile here is named by its
-- upper bound: p99_us 65.536 says 99% of the faults took less than
-- 65.536 us, '<4.096us:25' counts 25 faults of at least 2.048 us and less
-- than 4.096 us.  The longest fault is exact (fault_histogram.max_ns), and
-- no percentile bound exceeds it.  Threads rank by their longest fault,
-- then by how many faults they took.  A session that failed while
-- recording has no histogram.
--
-- Parameters:
--   :tid      INTEGER = NULL  one thread; all when NULL
--   :session  INTEGER = NULL  the session; the latest when NULL
--   :limit    INTEGER = NULL  only the most harmful threads, this many;
--                             all when NULL
-- Columns:
--   tid        INTEGER  the thread
--   comm       TEXT     its latest name in the session
--   kind       TEXT     minor or major
--   faults     INTEGER  timed faults
--   p50_us     REAL     median, upper bound, us
--   p90_us     REAL     90th percentile, upper bound, us
--   p99_us     REAL     99th percentile, upper bound, us
--   max_us     REAL     the longest fault, exact, us
--   histogram  TEXT     '<HI:COUNT' per bucket, shortest first: COUNT
--                       faults shorter than HI and at least half of it
--                       (HI in ns, us, ms or s)
WITH sess AS (
  SELECT coalesce(:session, (SELECT max(session_id) FROM session)) AS id
),
h AS (
  SELECT h.tid, h.kind, h.lo_ns, h.hi_ns, h.count, h.max_ns,
         sum(h.count) OVER (PARTITION BY h.tid, h.kind ORDER BY h.lo_ns) AS cum,
         sum(h.count) OVER (PARTITION BY h.tid, h.kind) AS total
    FROM sess, fault_histogram h
   WHERE h.session_id = sess.id AND (:tid IS NULL OR h.tid = :tid)
),
k AS (
  SELECT tid, kind, max(total) AS faults,
         min(CASE WHEN cum * 100 >= total * 50 THEN hi_ns END) AS p50,
         min(CASE WHEN cum * 100 >= total * 90 THEN hi_ns END) AS p90,
         min(CASE WHEN cum * 100 >= total * 99 THEN hi_ns END) AS p99,
         coalesce(max(max_ns), max(hi_ns)) AS max_ns
    FROM h
   GROUP BY tid, kind
),
r AS (
  SELECT tid, row_number() OVER (ORDER BY max(max_ns) DESC, sum(faults) DESC,
                                 tid) AS rank
    FROM k
   GROUP BY tid
)
SELECT k.tid,
       (SELECT t.comm FROM sess, thread t WHERE t.session_id = sess.id
           AND t.tid = k.tid ORDER BY t.first_ts DESC LIMIT 1) AS comm,
       k.kind, k.faults,
       min(k.p50, k.max_ns) / 1e3 AS p50_us,
       min(k.p90, k.max_ns) / 1e3 AS p90_us,
       min(k.p99, k.max_ns) / 1e3 AS p99_us,
       k.max_ns / 1e3 AS max_us,
       (SELECT group_concat(b, ' ') FROM (
          SELECT '<' || CASE WHEN g.hi_ns >= 1000000000 THEN printf('%gs', g.hi_ns / 1e9)
                             WHEN g.hi_ns >= 1000000 THEN printf('%gms', g.hi_ns / 1e6)
                             WHEN g.hi_ns >= 1000 THEN printf('%gus', g.hi_ns / 1e3)
                             ELSE g.hi_ns || 'ns' END || ':' || g.count AS b
            FROM sess, fault_histogram g
           WHERE g.session_id = sess.id AND g.tid = k.tid AND g.kind = k.kind
           ORDER BY g.lo_ns)) AS histogram
  FROM k JOIN r USING (tid)
 WHERE :limit IS NULL OR r.rank <= :limit
 ORDER BY r.rank, k.max_ns DESC, k.kind;
