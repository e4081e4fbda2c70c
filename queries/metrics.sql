-- The application metrics beside a session: the series sampled while it
-- recorded and the imported ones with points in its time span.
--
-- Parameters:
--   :session  INTEGER = NULL  the session; the latest when NULL
-- Columns:
--   name       TEXT     the metric
--   labels     TEXT     its labels, JSON
--   unit       TEXT     its unit, when given
--   imported   INTEGER  1 for an import, 0 when sampled by record
--   points     INTEGER  points in the session's time span
--   first_utc  TEXT     the first of them, UTC
--   last_utc   TEXT     the last, UTC
WITH sess AS (
  SELECT session_id AS id, start_ts, coalesce(end_ts, 1 << 62) AS end_ts
    FROM session
   WHERE session_id = coalesce(:session, (SELECT max(session_id) FROM session))
),
p AS (
  SELECT ms.series_id, ms.name, ms.labels, ms.unit, ms.session_id IS NULL AS imported,
         count(*) AS points, min(m.ts) AS first_ts, max(m.ts) AS last_ts
    FROM sess, metric_series ms, metric m
   WHERE (ms.session_id IS NULL OR ms.session_id = sess.id)
     AND m.series_id = ms.series_id
     AND m.ts >= sess.start_ts AND m.ts <= sess.end_ts
   GROUP BY ms.series_id
)
SELECT name, labels, unit, imported, points,
       strftime('%Y-%m-%dT%H:%M:%S', first_ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', first_ts % 1000000000) AS first_utc,
       strftime('%Y-%m-%dT%H:%M:%S', last_ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', last_ts % 1000000000) AS last_utc
  FROM p
 ORDER BY name, labels;
