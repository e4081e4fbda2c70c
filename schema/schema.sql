-- faultline database schema, version 3 (PRAGMA user_version = 3).
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
	ip		INTEGER NOT NULL,
	-- The stack at the fault's completion (record --stacks), else NULL.
	stack_id	INTEGER
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
	uncertain	INTEGER NOT NULL,
	-- The stack at the switch-out that began this interval
	-- (record --stacks), else NULL.
	stack_id	INTEGER
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

-- Stacks (record --stacks), stored once per distinct sequence of frames.
-- A frame is an address in one address space; what it names is filled in
-- by symbolization (at the end of recording, or by faultline symbolize).
CREATE TABLE stack (
	session_id	INTEGER NOT NULL REFERENCES session,
	stack_id	INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	depth		INTEGER NOT NULL,	-- frames, kernel and user
	-- 'fp' or 'dwarf': how the user part was found.
	method		TEXT NOT NULL,
	-- Why the user part ends where it does: NULL when it reached the
	-- outermost frame, else the reason (a truncated stack copy, no CFI).
	truncated	TEXT,
	PRIMARY KEY (session_id, stack_id)
) WITHOUT ROWID;

-- The frames of a stack, innermost (depth 0) first.
CREATE TABLE stack_frame (
	session_id	INTEGER NOT NULL REFERENCES session,
	stack_id	INTEGER NOT NULL,
	depth		INTEGER NOT NULL,
	frame_id	INTEGER NOT NULL,
	PRIMARY KEY (session_id, stack_id, depth)
) WITHOUT ROWID;

-- One row per distinct (address space, address).  Kernel frames have
-- pid -1.  return_addr is 1 when addr is a return address (every frame
-- but the innermost of each part): it is looked up at addr - 1, the call.
CREATE TABLE frame (
	session_id	INTEGER NOT NULL REFERENCES session,
	frame_id	INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	addr		INTEGER NOT NULL,
	kernel		INTEGER NOT NULL,
	return_addr	INTEGER NOT NULL,
	-- Filled in by symbolization; NULL before it.
	dso		TEXT,		-- file path, [vdso], [kernel.kallsyms], [jit]
	dso_offset	INTEGER,	-- file offset (ELF) of addr
	build_id	TEXT,		-- hex, of the file that was used
	-- 'ok', or why there is no name: 'no-mapping', 'no-file',
	-- 'build-id-mismatch', 'no-symbol'.  NULL: not yet symbolized.
	status		TEXT,
	PRIMARY KEY (session_id, frame_id)
) WITHOUT ROWID;

-- What a frame's address names: one row for the function that holds it,
-- more when code was inlined there.  idx 0 is the innermost (inlined)
-- function; the highest idx is the function the address is in.
CREATE TABLE symbol (
	session_id	INTEGER NOT NULL REFERENCES session,
	frame_id	INTEGER NOT NULL,
	idx		INTEGER NOT NULL,
	function	TEXT NOT NULL,
	offset		INTEGER,	-- from the function's start (idx = max)
	size		INTEGER,	-- the function's size, when known
	file		TEXT,
	line		INTEGER,
	inlined		INTEGER NOT NULL,
	PRIMARY KEY (session_id, frame_id, idx)
) WITHOUT ROWID;

-- Application metrics: imported (faultline import) or sampled while
-- recording (record --udp-port).  A series is one metric with one set of
-- labels from one source.
CREATE TABLE metric_series (
	series_id	INTEGER PRIMARY KEY,
	-- The recording session that sampled it; NULL for an import.
	session_id	INTEGER REFERENCES session,
	name		TEXT NOT NULL,
	labels		TEXT NOT NULL,	-- JSON object, '{}' when none
	unit		TEXT,
	source		TEXT NOT NULL,	-- file path, '-' for stdin, or sampler
	imported_ts	INTEGER NOT NULL	-- when it was written
);

-- ts: ns since the epoch, CLOCK_REALTIME as the source wrote it.
CREATE TABLE metric (
	series_id	INTEGER NOT NULL REFERENCES metric_series,
	ts		INTEGER NOT NULL,
	value		REAL NOT NULL
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
