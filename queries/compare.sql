-- Two runs side by side: two sessions, or the sessions of two values of a
-- label (label=run a=4711 b=4712), and what changed, per thread, in fault
-- latency, in off-CPU time by state, and in the application's imported
-- events.  Threads are matched by name (their ids differ from run to
-- run); the threads of one name are taken together.  Fault percentiles
-- are upper bounds of the power-of-two buckets of fault_histogram, never
-- above the longest fault.  A measure one side lacks is NULL there.
-- Figures are rounded to 3 decimals.  An imported series counts for a
-- side as in runs.  The same text runs on SQLite and PostgreSQL, with the
-- same answers.
--
-- Parameters:
--   :a      TEXT          the first side: a session id, or with label=
--                         a value of that label
--   :b      TEXT          the second side, the same way
--   :label  LABEL = NULL  the label key whose values a and b are
-- Columns:
--   thread   TEXT  the thread's name; '-' for the application's events
--   measure  TEXT  'minor faults', 'major p99 us', 'major max us',
--                  'off-cpu ms blocked', 'events nak', ...
--   a        REAL  the measure on side a
--   b        REAL  the measure on side b
--   change   REAL  b - a
--   ratio    REAL  b / a; NULL when a is 0 or missing
WITH sides AS (
  SELECT session_id, start_ts,
         coalesce(end_ts, (SELECT max(last_ts) FROM thread t
                            WHERE t.session_id = session.session_id),
                  start_ts) AS end_ts,
         CASE WHEN CASE WHEN :label IS NULL THEN CAST(session_id AS TEXT)
                        ELSE CAST(json_extract(labels, '$."' || :label || '"')
                                  AS TEXT) END = :a THEN 'a' ELSE 'b' END AS side
    FROM session
   WHERE CASE WHEN :label IS NULL THEN CAST(session_id AS TEXT)
              ELSE CAST(json_extract(labels, '$."' || :label || '"') AS TEXT) END
         IN (:a, :b)
),
names AS (
  SELECT session_id, tid, comm FROM (
    SELECT session_id, tid, comm,
           row_number() OVER (PARTITION BY session_id, tid
                              ORDER BY first_ts DESC) AS rk
      FROM thread) t
   WHERE rk = 1
),
fh AS (
  SELECT sd.side, coalesce(nm.comm, '?') AS comm, h.kind, h.hi_ns,
         sum(h.count) AS n, max(h.max_ns) AS mx
    FROM sides sd
    JOIN fault_histogram h ON h.session_id = sd.session_id
    LEFT JOIN names nm ON nm.session_id = h.session_id AND nm.tid = h.tid
   GROUP BY sd.side, coalesce(nm.comm, '?'), h.kind, h.hi_ns
),
fc AS (
  SELECT side, comm, kind, hi_ns, mx,
         sum(n) OVER (PARTITION BY side, comm, kind ORDER BY hi_ns) AS cum,
         sum(n) OVER (PARTITION BY side, comm, kind) AS total
    FROM fh
),
fk AS (
  SELECT side, comm, kind, max(total) AS faults,
         min(CASE WHEN cum * 100 >= total * 99 THEN hi_ns END) AS p99,
         max(mx) AS mx
    FROM fc GROUP BY side, comm, kind
),
m AS (
  SELECT side, comm, kind || ' faults' AS measure, faults * 1.0 AS v FROM fk
  UNION ALL
  SELECT side, comm, kind || ' p99 us', min(p99, coalesce(mx, p99)) / 1e3 FROM fk
  UNION ALL
  SELECT side, comm, kind || ' max us', coalesce(mx, p99) / 1e3 FROM fk
  UNION ALL
  SELECT sd.side, coalesce(nm.comm, '?'), 'off-cpu ms ' || x.state,
         sum(x.dur) / 1e6
    FROM sides sd
    JOIN thread_state x ON x.session_id = sd.session_id
    LEFT JOIN names nm ON nm.session_id = x.session_id AND nm.tid = x.tid
   WHERE x.state NOT IN ('running', 'unknown')
   GROUP BY sd.side, coalesce(nm.comm, '?'), x.state
  UNION ALL
  SELECT sd.side, '-', 'events ' || ms.name, count(*) * 1.0
    FROM sides sd
    JOIN metric_series ms ON (ms.session_id IS NULL OR
                              ms.session_id = sd.session_id)
                         AND ms.source NOT LIKE 'sampler:%'
    JOIN metric mt ON mt.series_id = ms.series_id
                  AND mt.ts BETWEEN sd.start_ts AND sd.end_ts
   GROUP BY sd.side, ms.name
),
p AS (
  SELECT comm AS thread, measure,
         max(CASE WHEN side = 'a' THEN v END) AS a,
         max(CASE WHEN side = 'b' THEN v END) AS b
    FROM m GROUP BY comm, measure
)
SELECT thread, measure, round(a, 3) AS a, round(b, 3) AS b,
       round(b - a, 3) AS change, round(CASE WHEN a <> 0 THEN b / a END, 3) AS ratio
  FROM p
 ORDER BY thread = '-', thread COLLATE "binary", measure COLLATE "binary";
