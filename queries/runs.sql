-- One line per recording session, for looking across runs: its labels,
-- how long it ran, the worst fault and the thread that took it, the fault
-- latency and off-CPU p99 of the whole session, the application's
-- imported events in its span (NAKs...), and what was lost.  The fault
-- p99 is the upper bound of its power-of-two bucket (fault_histogram,
-- every timed fault), never above the worst fault; the off-CPU p99 is
-- exact, over the thread_state intervals that are not running (unknown
-- left out).  An imported series counts for a session when it has points
-- in the session's span: on a file, any import; on PostgreSQL, the
-- imports the session was exported with (faultline-export(1)).  The same
-- text runs on both, with the same answers.
--
-- Parameters:
--   :label    LABEL = NULL    a label key: only the sessions that carry
--                             it, its value in column label, sorted by it
--   :session  INTEGER = NULL  one session; all when NULL
-- Columns:
--   session         INTEGER  the session's id (in this database)
--   uuid            TEXT     the session's id everywhere
--   host            TEXT     where it was recorded
--   start_utc       TEXT     when recording began, UTC
--   seconds         REAL     how long it ran
--   label           TEXT     the value of label= ; NULL without it
--   labels          TEXT     every label, KEY=VALUE, by key
--   faults          INTEGER  timed faults
--   fault_p99_us    REAL     99th percentile fault, upper bound, us
--   worst_fault_us  REAL     the longest fault, exact, us
--   worst_thread    TEXT     the thread that took it: COMM TID
--   off_cpu_p99_us  REAL     99th percentile off-CPU interval, us
--   events          TEXT     imported metric points in its span, NAME:COUNT
--                            by name
--   lost            INTEGER  records and samples lost or dropped
WITH s AS (
  SELECT session_id, uuid, host, start_ts,
         coalesce(end_ts, (SELECT max(last_ts) FROM thread t
                            WHERE t.session_id = session.session_id),
                  start_ts) AS end_ts,
         CAST(json_extract(labels, '$."' || :label || '"') AS TEXT) AS label,
         labels,
         coalesce(records_lost, 0) + coalesce(samples_lost, 0)
           + coalesce(records_dropped, 0) AS lost
    FROM session
   WHERE (:session IS NULL OR session_id = :session)
     AND (:label IS NULL OR json_extract(labels, '$."' || :label || '"') IS NOT NULL)
),
hb AS (
  SELECT h.session_id, h.hi_ns, sum(h.count) AS n
    FROM s JOIN fault_histogram h ON h.session_id = s.session_id
   GROUP BY h.session_id, h.hi_ns
),
hc AS (
  SELECT session_id, hi_ns,
         sum(n) OVER (PARTITION BY session_id ORDER BY hi_ns) AS cum,
         sum(n) OVER (PARTITION BY session_id) AS total
    FROM hb
),
fp AS (
  SELECT session_id, max(total) AS faults,
         min(CASE WHEN cum * 100 >= total * 99 THEN hi_ns END) AS p99
    FROM hc GROUP BY session_id
),
w AS (
  SELECT h.session_id, h.tid, h.max_ns,
         row_number() OVER (PARTITION BY h.session_id
                            ORDER BY h.max_ns DESC, h.tid) AS rk
    FROM s JOIN fault_histogram h ON h.session_id = s.session_id
   WHERE h.max_ns IS NOT NULL
),
o AS (
  SELECT x.session_id, x.dur,
         row_number() OVER (PARTITION BY x.session_id ORDER BY x.dur) AS rn,
         count(*) OVER (PARTITION BY x.session_id) AS n
    FROM s JOIN thread_state x ON x.session_id = s.session_id
   WHERE x.state NOT IN ('running', 'unknown')
),
op AS (
  SELECT session_id, min(dur) AS p99 FROM o WHERE rn * 100 >= n * 99
   GROUP BY session_id
),
ev AS (
  SELECT s.session_id, ms.name, count(*) AS n
    FROM s JOIN metric_series ms ON (ms.session_id IS NULL OR
                                     ms.session_id = s.session_id)
                                 AND ms.source NOT LIKE 'sampler:%'
           JOIN metric m ON m.series_id = ms.series_id
                        AND m.ts BETWEEN s.start_ts AND s.end_ts
   GROUP BY s.session_id, ms.name
)
SELECT s.session_id AS session, s.uuid, s.host,
       strftime('%Y-%m-%dT%H:%M:%S', s.start_ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', s.start_ts % 1000000000) AS start_utc,
       round((s.end_ts - s.start_ts) / 1e9, 3) AS seconds,
       s.label,
       (SELECT group_concat(kv, ' ') FROM (
          SELECT key || '=' || value AS kv FROM json_each(s.labels)
           ORDER BY key COLLATE "binary") AS kv) AS labels,
       fp.faults,
       min(fp.p99, w.max_ns) / 1e3 AS fault_p99_us,
       w.max_ns / 1e3 AS worst_fault_us,
       (SELECT t.comm FROM thread t WHERE t.session_id = w.session_id
           AND t.tid = w.tid ORDER BY t.first_ts DESC LIMIT 1)
         || ' ' || w.tid AS worst_thread,
       op.p99 / 1e3 AS off_cpu_p99_us,
       (SELECT group_concat(e, ' ') FROM (
          SELECT name || ':' || n AS e FROM ev
           WHERE ev.session_id = s.session_id
           ORDER BY name COLLATE "binary") AS e) AS events,
       s.lost
  FROM s
  LEFT JOIN fp ON fp.session_id = s.session_id
  LEFT JOIN w ON w.session_id = s.session_id AND w.rk = 1
  LEFT JOIN op ON op.session_id = s.session_id
 ORDER BY s.label COLLATE "binary", s.start_ts, s.session_id;
