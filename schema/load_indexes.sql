-- Secondary indexes kept up while a session's rows are loaded: made when
-- a session begins, where they do not exist yet.  Their keys arrive
-- nearly in order (a fault row is written when the fault ends, and a
-- thread faults in bursts), so each entry lands beside the one before,
-- where SQLite finds it without a search.  For 1.3M faults of one thread
-- (bench/collector/record_overhead.sh) keeping them up cost 0.44 s of
-- CPU where building them afterwards cost 1.33 s, and with the faults of
-- two threads interleaved row by row it cost the same either way.  (No
-- semicolon in these comments: export/pg_schema.c splits at each.)  The
-- others (indexes.sql) are built once the rows are in: for thread_state
-- by thread, kept up and built cost the same, and an index by duration
-- is in no order at all.
CREATE INDEX IF NOT EXISTS fault_by_ts ON fault (session_id, ts);
CREATE INDEX IF NOT EXISTS fault_by_tid ON fault (session_id, tid, ts);
-- No index of faults by duration: sorting a million random durations was
-- a sixth of what recording a million faults cost (bench/collector/
-- record_overhead.sh), and the readers that want the longest (report,
-- longest-faults) read a session's faults in 0.1 to 0.2 s a million.
-- Files of earlier versions lose it before a session loads, so the load
-- does not keep it up.
DROP INDEX IF EXISTS fault_by_dur;
