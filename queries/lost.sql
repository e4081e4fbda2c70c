-- What the recording lost, and where: the kernel's reports of dropped
-- records and samples, throttling and undecodable records, per kind and
-- CPU, then the faults whose entry or completion went missing.
--
-- Parameters:
--   :session  INTEGER = NULL  the session; the latest when NULL
-- Columns:
--   what       TEXT     records, samples, throttled, malformed, spool (the
--                       lost table's kinds), unfinished faults, unpaired
--                       completions, rows not committed and records not
--                       stored (a failed write: a full disk), and fault
--                       samples in another clock (another recorder's:
--                       not lost, but their faults may be mistimed)
--   cpu        INTEGER  the CPU whose ring lost it; NULL when not known
--   reports    INTEGER  how many times it was reported
--   count      INTEGER  how many were lost in all
--   first_utc  TEXT     the first report, UTC
--   last_utc   TEXT     the last report, UTC
WITH sess AS (
  SELECT coalesce(:session, (SELECT max(session_id) FROM session)) AS id
)
SELECT what, cpu, reports, count,
       strftime('%Y-%m-%dT%H:%M:%S', first_ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', first_ts % 1000000000) AS first_utc,
       strftime('%Y-%m-%dT%H:%M:%S', last_ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', last_ts % 1000000000) AS last_utc
  FROM (
    SELECT l.kind AS what, l.cpu, count(*) AS reports, sum(l.count) AS count,
           min(l.ts) AS first_ts, max(l.ts) AS last_ts, 0 AS o
      FROM sess, lost l
     WHERE l.session_id = sess.id
     GROUP BY l.kind, l.cpu
    UNION ALL
    SELECT 'unfinished faults', NULL, NULL, s.faults_unfinished, NULL, NULL, 1
      FROM sess, session s
     WHERE s.session_id = sess.id AND s.faults_unfinished > 0
    UNION ALL
    SELECT 'unpaired completions', NULL, NULL, s.faults_unpaired_exit, NULL, NULL, 2
      FROM sess, session s
     WHERE s.session_id = sess.id AND s.faults_unpaired_exit > 0
    UNION ALL
    SELECT 'rows not committed', NULL, NULL, s.rows_unwritten, NULL, NULL, 3
      FROM sess, session s
     WHERE s.session_id = sess.id AND s.rows_unwritten > 0
    UNION ALL
    SELECT 'records not stored', NULL, NULL, s.records_unstored, NULL, NULL, 4
      FROM sess, session s
     WHERE s.session_id = sess.id AND s.records_unstored > 0
    UNION ALL
    SELECT 'samples in another clock', NULL, NULL, s.samples_mistimed, NULL, NULL, 5
      FROM sess, session s
     WHERE s.session_id = sess.id AND s.samples_mistimed > 0)
 ORDER BY o, what, cpu;
