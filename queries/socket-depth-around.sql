-- The socket queue depth around each long fault: every sample of the
-- depth series from before the fault's entry to after its completion, so
-- the queue can be seen filling while the thread was held up.
--
-- Parameters:
--   :min_dur  DURATION = 1ms    the shortest fault to look around
--   :before   DURATION = 50ms   how long before the fault's entry
--   :after    DURATION = 50ms   how long after its completion
--   :metric   TEXT = 'udp_rx_queue_bytes'  the depth series' name
--   :tid      INTEGER = NULL    one thread's faults; all when NULL
--   :session  INTEGER = NULL    the session; the latest when NULL
-- Columns:
--   fault_utc   TEXT     the fault's entry, UTC
--   tid         INTEGER  the faulting thread
--   kind        TEXT     minor or major
--   dur_ms      REAL     the fault's duration, ms
--   labels      TEXT     the series' labels (JSON: the socket's port, inode)
--   sample_utc  TEXT     when the depth was sampled, UTC
--   offset_ms   REAL     the sample's time from the fault's entry, ms;
--                        negative before it
--   during      INTEGER  1 when the sample falls inside the fault
--   value       REAL     the depth (bytes for udp_rx_queue_bytes)
WITH sess AS (
  SELECT coalesce(:session, (SELECT max(session_id) FROM session)) AS id
),
f AS (
  SELECT f.ts, f.dur, f.tid, f.kind
    FROM sess, fault f
   WHERE f.session_id = sess.id AND f.dur >= :min_dur
     AND (:tid IS NULL OR f.tid = :tid)
)
SELECT strftime('%Y-%m-%dT%H:%M:%S', f.ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', f.ts % 1000000000) AS fault_utc,
       f.tid, f.kind, round(f.dur / 1e6, 3) AS dur_ms, ms.labels,
       strftime('%Y-%m-%dT%H:%M:%S', m.ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', m.ts % 1000000000) AS sample_utc,
       round((m.ts - f.ts) / 1e6, 3) AS offset_ms,
       m.ts >= f.ts AND m.ts <= f.ts + f.dur AS during, m.value
  FROM sess CROSS JOIN f CROSS JOIN metric_series ms CROSS JOIN metric m
 WHERE ms.name = :metric AND (ms.session_id IS NULL OR ms.session_id = sess.id)
   AND m.series_id = ms.series_id
   AND m.ts >= f.ts - :before AND m.ts <= f.ts + f.dur + :after
 ORDER BY f.ts, f.tid, ms.series_id, m.ts;
