-- faultline database schema, version 2 (PRAGMA user_version = 2).
--
-- Conventions (man faultline-schema(5) documents every column):
--   ts      INTEGER ns since the Unix epoch, CLOCK_REALTIME
--   dur     INTEGER ns
--   *_ns    INTEGER ns
--   addresses are 64-bit values stored as SQLite's signed INTEGER: a
--   kernel address reads negative; printf('%x', addr) shows it as hex.
-- Every table but session carries session_id; one database holds many
-- recording sessions.  Secondary indexes are made by schema_finish_load
-- (indexes.sql) after a session's rows are in, not during the load.

CREATE TABLE session (
	session_id	INTEGER PRIMARY KEY,
	start_ts	INTEGER NOT NULL,
	end_ts		INTEGER,
	status		TEXT NOT NULL DEFAULT 'recording'
			CHECK (status IN ('recording', 'complete', 'failed')),
	host		TEXT NOT NULL,
	kernel		TEXT NOT NULL,
	command_line	TEXT NOT NULL,
	options		TEXT NOT NULL,
	faultline_version TEXT NOT NULL,
	start_realtime_ns  INTEGER NOT NULL,
	start_monotonic_ns INTEGER NOT NULL,
	end_realtime_ns	INTEGER,
	end_monotonic_ns INTEGER,
	min_fault_dur	INTEGER NOT NULL,
	buffer_bytes	INTEGER NOT NULL,
	cpus		INTEGER NOT NULL,
	records_seen	INTEGER,
	faults_total	INTEGER,
	faults_stored	INTEGER,
	faults_below_threshold INTEGER,
	faults_unfinished INTEGER,
	faults_unpaired_exit INTEGER,
	records_lost	INTEGER,
	samples_lost	INTEGER,
	records_malformed INTEGER,
	records_unknown	INTEGER,
	records_late	INTEGER,
	records_throttled INTEGER,
	error		TEXT
);

-- One row per thread name spell: a rename starts a new row.
CREATE TABLE thread (
	session_id	INTEGER NOT NULL REFERENCES session,
	tid		INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	comm		TEXT NOT NULL,
	first_ts	INTEGER NOT NULL,
	last_ts		INTEGER NOT NULL,
	PRIMARY KEY (session_id, tid, first_ts)
) WITHOUT ROWID;

CREATE TABLE fault (
	session_id	INTEGER NOT NULL REFERENCES session,
	ts		INTEGER NOT NULL,
	dur		INTEGER,
	tid		INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	cpu		INTEGER NOT NULL,
	exit_cpu	INTEGER,
	-- 'minor', 'major' or 'unfinished'.  No CHECK constraint: on this
	-- table it cut the load rate to a third (bench/schema/loader_rate.c),
	-- and the loader is the only writer.
	kind		TEXT NOT NULL,
	addr		INTEGER NOT NULL,
	ip		INTEGER NOT NULL
);

-- One row per interval of a target thread's timeline; a thread's rows do
-- not overlap and leave no hole between its first and last event.
CREATE TABLE thread_state (
	session_id	INTEGER NOT NULL REFERENCES session,
	tid		INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	ts		INTEGER NOT NULL,
	dur		INTEGER NOT NULL,
	-- running, runnable, sleeping, blocked, waiting, other or unknown.
	-- No CHECK constraint, as on fault.kind: the loader is the only writer.
	state		TEXT NOT NULL,
	cpu		INTEGER,
	waker_tid	INTEGER,
	waker_cpu	INTEGER,
	preempted	INTEGER NOT NULL,
	uncertain	INTEGER NOT NULL
);

-- One row per hit of a tracepoint given with -e, by a target thread
-- (any thread with -a).  fields: the event's own fields as a JSON object.
CREATE TABLE tracepoint_event (
	session_id	INTEGER NOT NULL REFERENCES session,
	ts		INTEGER NOT NULL,
	tid		INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	cpu		INTEGER NOT NULL,
	name		TEXT NOT NULL,
	fields		TEXT NOT NULL
);

CREATE TABLE fault_histogram (
	session_id	INTEGER NOT NULL REFERENCES session,
	tid		INTEGER NOT NULL,
	kind		TEXT NOT NULL CHECK (kind IN ('minor', 'major')),
	lo_ns		INTEGER NOT NULL,
	hi_ns		INTEGER NOT NULL,
	count		INTEGER NOT NULL,
	PRIMARY KEY (session_id, tid, kind, lo_ns)
) WITHOUT ROWID;

CREATE TABLE mapping (
	session_id	INTEGER NOT NULL REFERENCES session,
	ts		INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	tid		INTEGER NOT NULL,
	start_addr	INTEGER NOT NULL,
	end_addr	INTEGER NOT NULL,
	pgoff		INTEGER NOT NULL,
	path		TEXT NOT NULL,
	build_id	TEXT,
	dev_major	INTEGER,
	dev_minor	INTEGER,
	inode		INTEGER,
	prot		INTEGER,
	flags		INTEGER,
	source		TEXT NOT NULL CHECK (source IN ('mmap', 'proc'))
);

CREATE TABLE lost (
	session_id	INTEGER NOT NULL REFERENCES session,
	ts		INTEGER,
	cpu		INTEGER,
	kind		TEXT NOT NULL
			CHECK (kind IN ('records', 'samples', 'throttled', 'malformed')),
	count		INTEGER NOT NULL
);

-- Readable timestamps, computed, never stored.
CREATE VIEW fault_readable AS
SELECT f.session_id, f.ts,
       strftime('%Y-%m-%dT%H:%M:%S', f.ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', f.ts % 1000000000) AS time_utc,
       f.dur, f.dur / 1e6 AS dur_ms, f.tid, f.pid,
       (SELECT t.comm FROM thread t
         WHERE t.session_id = f.session_id AND t.tid = f.tid
           AND t.first_ts <= f.ts ORDER BY t.first_ts DESC LIMIT 1) AS comm,
       f.cpu, f.exit_cpu, f.kind, f.addr, f.ip,
       printf('0x%x', f.addr) AS addr_hex, printf('0x%x', f.ip) AS ip_hex
  FROM fault f;

-- Each fault with a duration, and how much of it its thread spent off
-- the CPU, and blocked (D: waiting for the page's I/O, a lock, reclaim),
-- from thread_state; both 0 when it never left the CPU.
CREATE VIEW fault_blocked AS
SELECT f.session_id, f.ts, f.dur, f.tid, f.pid, f.kind, f.addr,
       coalesce((SELECT sum(min(s.ts + s.dur, f.ts + f.dur) - max(s.ts, f.ts))
                   FROM thread_state s
                  WHERE s.session_id = f.session_id AND s.tid = f.tid
                    AND s.state = 'blocked'
                    AND s.ts < f.ts + f.dur AND s.ts + s.dur > f.ts), 0)
         AS blocked_ns,
       coalesce((SELECT sum(min(s.ts + s.dur, f.ts + f.dur) - max(s.ts, f.ts))
                   FROM thread_state s
                  WHERE s.session_id = f.session_id AND s.tid = f.tid
                    AND s.state != 'running'
                    AND s.ts < f.ts + f.dur AND s.ts + s.dur > f.ts), 0)
         AS off_cpu_ns
  FROM fault f
 WHERE f.dur IS NOT NULL;

CREATE VIEW session_readable AS
SELECT session_id, status,
       strftime('%Y-%m-%dT%H:%M:%S', start_ts / 1000000000, 'unixepoch')
         || printf('.%09dZ', start_ts % 1000000000) AS start_utc,
       (end_ts - start_ts) / 1e9 AS seconds, host, command_line,
       faults_total, faults_stored, records_lost, samples_lost
  FROM session;
