-- The longest faults of a session, longest first, with the thread's name
-- and the file mapped at the faulting address.
--
-- Parameters:
--   :session     INTEGER = NULL  the session; the latest when NULL
--   :limit       INTEGER = 10    how many faults
-- Columns:
--   time_utc  TEXT     fault entry, UTC, nanosecond precision
--   dur_ms    REAL     fault duration, ms
--   kind      TEXT     minor, major or unfinished
--   tid       INTEGER  faulting thread
--   comm      TEXT     thread name when the fault happened
--   addr      TEXT     faulting address, hex
--   file      TEXT     file mapped at addr; NULL for anonymous memory
WITH s AS (
  SELECT coalesce(:session, (SELECT max(session_id) FROM session)) AS id
)
SELECT f.time_utc, round(f.dur_ms, 3) AS dur_ms, f.kind, f.tid, f.comm,
       f.addr_hex AS addr,
       (SELECT m.path FROM mapping m
         WHERE m.session_id = f.session_id AND m.pid = f.pid
           AND m.start_addr <= f.addr AND f.addr < m.end_addr
         ORDER BY m.ts DESC LIMIT 1) AS file
  FROM fault_readable f, s
 WHERE f.session_id = s.id AND f.dur IS NOT NULL
 ORDER BY f.dur DESC
 LIMIT :limit;
