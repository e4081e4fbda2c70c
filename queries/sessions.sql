-- The sessions in the database: when, how long, what was recorded and
-- what was lost.
--
-- Parameters:
--   :session  INTEGER = NULL  one session; all when NULL
-- Columns:
--   session       INTEGER  the session's id
--   status        TEXT     recording, complete (the targets exited or
--                          --duration was reached), stopped (by a signal),
--                          failed, or killed (its recorder died while
--                          recording)
--   ended         TEXT     how it ended, in words: 'stopped by SIGTERM',
--                          '--duration reached', 'killed'...
--   start_utc     TEXT     when recording began, UTC
--   seconds       REAL     how long it ran
--   command_line  TEXT     the record command
--   threshold_ms  REAL     --min-fault-duration: shorter faults were only counted
--   faults        INTEGER  faults seen
--   stored        INTEGER  faults stored as rows
--   lost          INTEGER  records and samples the kernel dropped, records
--                          the spool had no room for, and what a failed
--                          write lost (rows not committed, records not
--                          stored)
--   error         TEXT     why a failed session failed, as the recorder
--                          said, or what a killed one may be missing; NULL
--                          for the others
SELECT session_id AS session, status, end_reason AS ended,
       strftime('%Y-%m-%dT%H:%M:%S', start_ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', start_ts % 1000000000) AS start_utc,
       round((end_ts - start_ts) / 1e9, 3) AS seconds, command_line,
       min_fault_dur / 1e6 AS threshold_ms, faults_total AS faults,
       faults_stored AS stored,
       coalesce(records_lost, 0) + coalesce(samples_lost, 0)
         + coalesce(records_dropped, 0) + coalesce(rows_unwritten, 0)
         + coalesce(records_unstored, 0) AS lost,
       error
  FROM session
 WHERE :session IS NULL OR session_id = :session
 ORDER BY session_id;
