-- faultline database schema, version 5 (PRAGMA user_version = 5).
--
-- Conventions (man faultline-schema(5) documents every column):
--   ts      INTEGER ns since the Unix epoch, CLOCK_REALTIME: recorded in
--           CLOCK_MONOTONIC and converted once, when stored, through the
--           session's clock anchors (clock_anchor)
--   dur     INTEGER ns
--   *_ns    INTEGER ns
--   addresses are 64-bit values stored as SQLite's signed INTEGER: a
--   kernel address reads negative; printf('%x', addr) shows it as hex.
-- Every table but session carries session_id; one database holds many
-- recording sessions.  Most secondary indexes are made (indexes.sql)
-- after a session's rows are in, not during the load; those whose keys
-- arrive in order are made before it and kept up (load_indexes.sql).

CREATE TABLE session (
	session_id	INTEGER PRIMARY KEY,
	start_ts	INTEGER NOT NULL,
	end_ts		INTEGER,
	-- recording: its recorder is at work (or was killed: faultline
	-- finds that out when it next opens the file, and says 'killed');
	-- complete: the targets exited or --duration was reached; stopped:
	-- a signal (Ctrl-C, SIGTERM) ended it; failed: error says why;
	-- killed: the recorder died without ending it (SIGKILL, the OOM
	-- killer), its last rows after stored_until_ts may be missing.  Only
	-- the one write that makes the indexes sets complete or stopped.
	status		TEXT NOT NULL DEFAULT 'recording'
			CHECK (status IN ('recording', 'complete', 'stopped',
					  'failed', 'killed')),
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
	error		TEXT,
	-- CLOCK_REALTIME steps seen between two anchors (clock_step rows).
	clock_steps	INTEGER,
	-- What the recorder itself cost: CPU time of all its threads, and
	-- its peak resident memory (getrusage RUSAGE_SELF).
	recorder_user_ns INTEGER,
	recorder_sys_ns	INTEGER,
	recorder_max_rss_bytes INTEGER,
	-- The memory the recorder may hold records in while decoding catches
	-- up, the most it held, and the records it dropped for want of room
	-- (the lost table's 'spool' rows).
	spool_bytes	INTEGER,
	spool_peak_bytes INTEGER,
	records_dropped	INTEGER,
	-- What lets a session travel between files and hosts (schema 5).
	-- uuid: random (RFC 4122 version 4), made when the row is; merge and
	-- export know a session by it.  The default is schema/db.h's
	-- FL_SQL_UUID, which the loader and the upgrade from schema 4 use.
	uuid		TEXT NOT NULL DEFAULT (lower(hex(randomblob(4))) || '-' ||
			lower(hex(randomblob(2))) || '-4' ||
			substr(lower(hex(randomblob(2))), 2) || '-' ||
			substr('89ab', 1 + abs(random()) % 4, 1) ||
			substr(lower(hex(randomblob(2))), 2) || '-' ||
			lower(hex(randomblob(6)))),
	-- /proc/cpuinfo's "model name" ('' where the kernel names none).
	cpu_model	TEXT,
	-- The user's KEY=VALUE labels (record --label): a JSON object whose
	-- values are strings.
	labels		TEXT NOT NULL DEFAULT '{}',
	-- The recording faultline's pid: its own threads are the observer.
	recorder_pid	INTEGER,
	-- What tells that recorder from a later process given its pid: its
	-- start time (/proc/PID/stat's starttime, clock ticks after boot)
	-- and the boot's /proc/sys/kernel/random/boot_id.
	recorder_start	INTEGER,
	recorder_boot_id TEXT,
	-- At each commit while recording (every LOADER_COMMIT_NS): when it
	-- was (alive_ts), and the time up to which every event is stored
	-- (stored_until_ts).  A recorder killed outright loses what came
	-- after stored_until_ts, and was alive at alive_ts.
	alive_ts	INTEGER,
	stored_until_ts	INTEGER,
	-- How the session ended, in words: 'stopped by SIGTERM', '--duration
	-- reached', 'the command exited with status 0', 'killed'...
	end_reason	TEXT,
	-- What a failed write lost (a full disk): rows of the transaction
	-- that could not commit, and ring records read after storing failed,
	-- never decoded.
	rows_unwritten	INTEGER,
	records_unstored INTEGER,
	-- (schema 10) Fault samples stamped with another recorder's clock
	-- (they went back in time within their CPU's ring): perf record
	-- without -k CLOCK_MONOTONIC sampled the same events on the same
	-- threads, and the faults around them may be mistimed or unfinished.
	samples_mistimed INTEGER,
	-- (schema 10) Records that waited in the spill file while decoding
	-- was behind (record --spill-size): bytes in all, and at most at once.
	spilled_bytes	INTEGER,
	spill_peak_bytes INTEGER
);
CREATE UNIQUE INDEX session_uuid ON session (uuid);

-- The recording faultline's own threads (schema 5), as they were while
-- it recorded: a target preempted or woken by one of them was disturbed
-- by the observer.  faultline never records itself, so its threads are
-- in no other table.
CREATE TABLE recorder_thread (
	session_id	INTEGER NOT NULL REFERENCES session,
	tid		INTEGER NOT NULL,
	comm		TEXT NOT NULL,
	PRIMARY KEY (session_id, tid)
) WITHOUT ROWID;

-- The session's environment (schema 8), read when the recording began:
-- the kernel, its command line and tunables, the CPU, cgroup limits of
-- the target, its ulimits, its LD_* and MALLOC_* environment, and at the
-- end the build ids of the files its processes mapped.  One row a key
-- ('kernel.release', 'thp.enabled', 'env.LD_BIND_NOW', 'build_id./usr/
-- lib/x86_64-linux-gnu/libc.so.6'; faultline-record(1) lists them); a
-- value that could not be read has no row.  compare and runs show what
-- differs between two sessions.
CREATE TABLE session_env (
	session_id	INTEGER NOT NULL REFERENCES session,
	key		TEXT NOT NULL,
	value		TEXT,
	PRIMARY KEY (session_id, key)
) WITHOUT ROWID;

-- The session's clock anchors: CLOCK_REALTIME read between two
-- CLOCK_MONOTONIC reads, the tightest of a few tries, taken when the
-- session starts, every CLOCK_ANCHOR_INTERVAL while it records, and at
-- its end.  Every stored ts was made from them: between two anchors a
-- monotonic time is interpolated, so the rate the realtime clock was
-- slewed at is followed; across a step (clock_step) it is not.
CREATE TABLE clock_anchor (
	session_id	INTEGER NOT NULL REFERENCES session,
	mono_ns		INTEGER NOT NULL,	-- CLOCK_MONOTONIC, the bracket's midpoint
	realtime_ns	INTEGER NOT NULL,	-- CLOCK_REALTIME, read inside it
	uncertainty_ns	INTEGER NOT NULL,	-- half the bracket's width
	PRIMARY KEY (session_id, mono_ns)
) WITHOUT ROWID;

-- A step of CLOCK_REALTIME (settimeofday, date -s, an NTP step) seen
-- between two anchors: realtime - monotonic moved by step_ns more than
-- a slewed clock can.  Durations, order and pairing never use
-- CLOCK_REALTIME, so a step changes none of them; a ts between the two
-- anchors is made from the earlier one, and may be off by up to step_ns.
CREATE TABLE clock_step (
	session_id	INTEGER NOT NULL REFERENCES session,
	from_mono_ns	INTEGER NOT NULL,	-- the anchor before the step
	to_mono_ns	INTEGER NOT NULL,	-- the anchor after it
	step_ns		INTEGER NOT NULL,	-- signed: + when the clock jumped ahead
	PRIMARY KEY (session_id, from_mono_ns)
) WITHOUT ROWID;

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
	stack_id	INTEGER,
	-- The thread that took the CPU at the switch-out that began this
	-- interval (sched_switch next_pid), and its name then; NULL when
	-- sched_switch was not seen for it.
	next_tid	INTEGER,
	next_comm	TEXT,
	-- The waker's name when it woke this thread (sched_waking), NULL
	-- when unknown or when no thread woke it (waker_tid 0).
	waker_comm	TEXT,
	-- What woke it, from the context sched_waking ran in: 'thread' (the
	-- thread waker_tid, or with waker_tid 0 a CPU's idle task), or
	-- 'hardirq', 'softirq', 'nmi': an interrupt on CPU waker_cpu, whatever
	-- thread it happened to interrupt (waker_tid 0).  NULL when no
	-- wake-up was seen, and in a session recorded before schema 6.
	waker_context	TEXT,
	-- The kernel stack of that wake-up (sched_waking's callchain, kernel
	-- frames only): what issued it.  NULL when no wake-up was seen, and
	-- in a session recorded before schema 7.
	waker_stack_id	INTEGER
);

-- What ran instead while a target thread waited for a CPU: for each
-- runnable interval of 100 us or more (thread_state, state 'runnable',
-- matched by session_id, tid and ts), one row per thread that held the
-- CPU the waiting thread ran on next, from the switch records of every
-- thread on that CPU (recorded CPU-wide; none where the kernel refused
-- them, perf_event_paranoid > 0 without CAP_PERFMON).  The eight longest
-- each have a row; the rest are summed under ran_tid -1.  ran_tid 0 is
-- the CPU's idle task: the CPU was free and the thread not yet on it.
-- The rows of a wait add up to its duration, or less where the history
-- kept (the last 2 s of each CPU) does not reach back to its start.
CREATE TABLE ran_instead (
	session_id	INTEGER NOT NULL REFERENCES session,
	tid		INTEGER NOT NULL,
	ts		INTEGER NOT NULL,
	cpu		INTEGER NOT NULL,
	ran_tid		INTEGER NOT NULL,
	-- Its name then, NULL when not known (and for ran_tid 0 and -1).
	ran_comm	TEXT,
	dur		INTEGER NOT NULL
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
	-- The longest duration this bucket counted, exact: on the highest
	-- bucket of a (tid, kind), where it is the thread's longest fault of
	-- that kind; NULL on the others.
	max_ns		INTEGER,
	PRIMARY KEY (session_id, tid, kind, lo_ns)
) WITHOUT ROWID;

-- One row per system call of a target thread (record --syscalls) that
-- took --min-syscall-duration or longer, or blocked (state D) at all,
-- timed from raw_syscalls:
-- sys_enter to sys_exit in the calling thread, or that was still in
-- progress when its thread exited or the recording ended (dur and ret
-- NULL).  Shorter calls are counted in syscall_histogram, every one.
CREATE TABLE syscall (
	session_id	INTEGER NOT NULL REFERENCES session,
	tid		INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	ts		INTEGER NOT NULL,	-- its entry
	dur		INTEGER,
	cpu		INTEGER NOT NULL,	-- of its entry
	nr		INTEGER NOT NULL,
	-- 'read', as in <sys/syscall.h>; 'syscall_N' where the build that
	-- recorded it did not know N.
	name		TEXT NOT NULL,
	ret		INTEGER,		-- a negative errno on failure
	-- Of dur, the thread's time blocked (state D: the disk, a page, a
	-- kernel lock); 0 when it never blocked, or without thread states.
	blocked_ns	INTEGER NOT NULL,
	-- The descriptor it worked on (its fd or epfd argument), and what
	-- that named as strace -y says it: a path, 'tcp 127.0.0.1:6379->
	-- 127.0.0.1:51234', 'pipe:[4242]'; NULL when it has none, or when
	-- /proc no longer said (read when the call was decoded).
	fd		INTEGER,
	fd_name		TEXT,
	-- Its arguments by the names of its syscalls:sys_enter_NAME format:
	-- 'fd=3, buf=0x7ffd5c9e1000, count=4096' (pointers in hex); a0..a5
	-- in hex where tracefs had no format for it.
	args		TEXT NOT NULL,
	-- An unfinished call off the CPU: the stack it waits in, from the
	-- switch out it has waited since (record --stacks); else NULL.
	stack_id	INTEGER
);

-- Every timed call of a thread, by call, in log2 buckets as
-- fault_histogram: the calls under the threshold are counted here.
CREATE TABLE syscall_histogram (
	session_id	INTEGER NOT NULL REFERENCES session,
	tid		INTEGER NOT NULL,
	name		TEXT NOT NULL,
	lo_ns		INTEGER NOT NULL,
	hi_ns		INTEGER NOT NULL,
	count		INTEGER NOT NULL,
	max_ns		INTEGER,	-- on the highest bucket: the longest call
	PRIMARY KEY (session_id, tid, name, lo_ns)
) WITHOUT ROWID;

-- Every timed call of a thread on a descriptor, summed per call and per
-- what the descriptor named (fd_name as in syscall; NULL when it could
-- not be known): the calls under the threshold too.  'read of
-- /var/lib/x.db: 10901 calls, 235 ms'.
CREATE TABLE syscall_file (
	session_id	INTEGER NOT NULL REFERENCES session,
	tid		INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	name		TEXT NOT NULL,
	fd_name		TEXT,
	calls		INTEGER NOT NULL,
	total_ns	INTEGER NOT NULL,
	max_ns		INTEGER NOT NULL,
	blocked_ns	INTEGER NOT NULL	-- of total_ns, blocked (state D)
);

-- One row per interval between two tracepoints (record --latency
-- START/END[:FIELD]): a START paired with the next END of its key (the
-- thread, or FIELD's value in both events), or a START still waiting for
-- its END when another of its key came or the recording ended (dur,
-- end_tid and fields NULL: unfinished).  An END without a START is
-- counted in latency_count, not stored.
CREATE TABLE latency (
	session_id	INTEGER NOT NULL REFERENCES session,
	-- 'block:block_rq_issue/block:block_rq_complete:sector', as given
	name		TEXT NOT NULL,
	tid		INTEGER NOT NULL,	-- the START's thread
	pid		INTEGER NOT NULL,
	ts		INTEGER NOT NULL,	-- the START
	dur		INTEGER,		-- END less START, ns
	cpu		INTEGER NOT NULL,	-- of the START
	key		INTEGER NOT NULL,	-- FIELD's value; the tid without
	-- The END's thread (in an interrupt: whichever one it hit), and
	-- its fields as a JSON object, as tracepoint_event.fields.
	end_tid		INTEGER,
	fields		TEXT
);

-- Each --latency pair's counts at the end of the recording, so nothing
-- is dropped unsaid: the ENDs without a START are here only.
CREATE TABLE latency_count (
	session_id	INTEGER NOT NULL REFERENCES session,
	name		TEXT NOT NULL,
	paired		INTEGER NOT NULL,	-- rows with a dur
	unfinished	INTEGER NOT NULL,	-- rows without
	unmatched_ends	INTEGER NOT NULL,
	PRIMARY KEY (session_id, name)
) WITHOUT ROWID;

-- One row per block request (record --block-io), every device's and
-- every process's, read through a tracefs instance of faultline's own:
-- from its insert into a queue (block_rq_insert) through its issue to
-- the device (block_rq_issue) to its completion (block_rq_complete),
-- matched by device and start sector.  Still pending at the end, or
-- replaced by another at its sector: complete_ts, service_ns, error NULL.
CREATE TABLE block_request (
	session_id	INTEGER NOT NULL REFERENCES session,
	dev		TEXT NOT NULL,		-- '254:0', major:minor of the disk
	disk		TEXT,			-- 'vda'; NULL when /sys did not say
	sector		INTEGER NOT NULL,	-- its first, of 512 bytes
	bytes		INTEGER NOT NULL,
	-- R, W, D (discard), E (secure erase), FLUSH, or N
	op		TEXT NOT NULL,
	-- The kernel's rwbs: F (preflush), the op, then S sync, M metadata,
	-- A read-ahead, F FUA ('RA', 'WS', 'FWFS', 'FN').
	rwbs		TEXT NOT NULL,
	insert_ts	INTEGER,		-- NULL: issued without one seen
	issue_ts	INTEGER,		-- the last issue; NULL: never issued
	complete_ts	INTEGER,
	queue_ns	INTEGER,		-- insert to (last) issue
	service_ns	INTEGER,		-- (last) issue to completion
	-- The target thread it was issued in (its insert ran there, or
	-- without one its issue); NULL for another process's, a kworker's.
	tid		INTEGER,
	pid		INTEGER,
	-- The thread it was issued in as the event names it, target or not
	-- ('kworker/u4:1', 'jbd2/vda-8').
	comm		TEXT,
	cpu		INTEGER NOT NULL,	-- of its first step
	requeues	INTEGER NOT NULL,	-- issued again after a requeue
	error		INTEGER			-- the completion's; 0: none
);

-- --block-io's counts at the end of the recording: nothing unsaid.  Its
-- losses (tracefs overruns, dropped events) are lost rows, 'block_*'.
CREATE TABLE block_request_count (
	session_id	INTEGER NOT NULL REFERENCES session PRIMARY KEY,
	completed	INTEGER NOT NULL,	-- rows with a complete_ts
	unfinished	INTEGER NOT NULL,	-- rows without
	requeued	INTEGER NOT NULL,	-- issues again of a pending request
	-- completions of no request seen (issued before the recording, or
	-- their events lost): not stored
	unmatched	INTEGER NOT NULL,
	malformed	INTEGER NOT NULL	-- events that did not decode
);

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
			CHECK (kind IN ('records', 'samples', 'throttled', 'malformed',
					'spool', 'block_overrun', 'block_dropped')),
	count		INTEGER NOT NULL
);

-- record --flight: one row per dump.  A dump is a session of its own
-- (session_id), holding the rows a full recording has for its window,
-- replayed from the flight recorder's memory; this row says why it was
-- taken and what that memory held.  Times are ns since the Unix epoch.
CREATE TABLE flight_dump (
	session_id	INTEGER PRIMARY KEY REFERENCES session,
	-- 'signal' (SIGUSR2), 'control' ('snapshot' on --control), or a
	-- --trigger's KIND: 'fault', 'offcpu', 'syscall', 'metric'
	trigger		TEXT NOT NULL,
	reason		TEXT NOT NULL,		-- in words
	-- When it fired: a span still going on, when it passed DUR
	trigger_ts	INTEGER NOT NULL,
	before_ns	INTEGER NOT NULL,	-- --keep BEFORE
	after_ns	INTEGER NOT NULL,	-- --keep AFTER
	-- The window: trigger_ts - before_ns, or later where the memory no
	-- longer held every CPU's records from then (whole_from_ts), to
	-- trigger_ts + after_ns, or earlier when the recording stopped first
	-- (cut_short = 1).  Rows cover at least the window: whole drain
	-- rounds are replayed, up to one more on either side.
	window_start_ts	INTEGER NOT NULL,
	window_end_ts	INTEGER NOT NULL,
	cut_short	INTEGER NOT NULL,
	-- From when every CPU's records (and --block-io's events) were kept
	-- (the oldest being dropped for --max-memory); NULL: all since the
	-- recording began.
	whole_from_ts	INTEGER,
	history_bytes	INTEGER NOT NULL,	-- --max-memory
	history_peak_bytes INTEGER NOT NULL,	-- most held at once so far
	-- Ring records dropped from the memory so far, oldest first.
	history_dropped_records INTEGER NOT NULL,
	history_dropped_bytes INTEGER NOT NULL,
	-- Triggers that fired while this dump was pending, not dumped.
	suppressed	INTEGER NOT NULL,
	-- Mappings and thread names from before the window dropped so far
	-- (the eighth of --max-memory kept for them was full).
	aside_dropped	INTEGER NOT NULL,
	-- --block-io's events dropped from the memory so far, oldest first
	-- (the eighth of --max-memory kept for them was full); NULL without
	-- --block-io.  The tracefs instance's own losses in the window are
	-- the dump's lost rows ('block_overrun', 'block_dropped').
	block_dropped	INTEGER,
	-- trigger 'metric' (schema 9): the line's NAME and value, and the
	-- --trigger metric:NAME>VALUE it passed; NULL for the others.
	metric		TEXT,
	metric_value	REAL,
	metric_threshold REAL
);

-- Each CPU's share of a flight dump: the ring records replayed, and the
-- losses inside the window ('records' the kernel's PERF_RECORD_LOST
-- counts, 'spool' those the recorder had no room for).
CREATE TABLE flight_dump_cpu (
	session_id	INTEGER NOT NULL REFERENCES flight_dump,
	cpu		INTEGER NOT NULL,
	records		INTEGER NOT NULL,
	bytes		INTEGER NOT NULL,
	lost_records	INTEGER NOT NULL,
	spool_dropped	INTEGER NOT NULL,
	PRIMARY KEY (session_id, cpu)
) WITHOUT ROWID;

-- The flight recording's own session (record --flight), written at its
-- end: every trigger that fired, the dumps made, and the triggers not
-- dumped, by reason.
CREATE TABLE flight_summary (
	session_id	INTEGER PRIMARY KEY REFERENCES session,
	triggers	INTEGER NOT NULL,
	dumps		INTEGER NOT NULL,
	suppressed_pending INTEGER NOT NULL,	-- a dump was pending
	suppressed_rate	INTEGER NOT NULL,	-- --max-dumps reached
	suppressed_disk	INTEGER NOT NULL,	-- --max-disk reached
	max_dumps	INTEGER NOT NULL,	-- --max-dumps N
	period_ns	INTEGER NOT NULL,	-- --max-dumps PERIOD
	max_disk	INTEGER,		-- --max-disk; NULL: no limit
	disk_bytes	INTEGER NOT NULL,	-- what the dumps added to the file
	-- The lines of --metric-fifo and --metric-udp (schema 9): every one
	-- not blank, those that were not "NAME VALUE", those of a name no
	-- --trigger metric: watches; NULL without either option.
	metric_lines	INTEGER,
	metric_malformed INTEGER,
	metric_ignored	INTEGER,
	-- --metric-udp's datagrams the kernel dropped, its receive buffer
	-- full; NULL without --metric-udp.
	metric_udp_dropped INTEGER
);

-- record --flight, kept whether it dumps or not, on the flight session:
-- every minute, each target thread's log2 histogram of its faults
-- ('fault:minor', 'fault:major'), off-CPU spans by state
-- ('offcpu:sleeping', 'offcpu:blocked', 'offcpu:runnable', ...) and
-- system calls ('syscall:read', with --syscalls).  A span counts in the
-- minute it was seen to end (within a drain round of its end).
CREATE TABLE flight_minute (
	session_id	INTEGER NOT NULL REFERENCES session,
	minute_ts	INTEGER NOT NULL,	-- the minute's start
	tid		INTEGER NOT NULL,
	kind		TEXT NOT NULL,
	lo_ns		INTEGER NOT NULL,
	hi_ns		INTEGER NOT NULL,
	count		INTEGER NOT NULL,
	max_ns		INTEGER,	-- exact, on the (tid, kind)'s top bucket
	PRIMARY KEY (session_id, minute_ts, tid, kind, lo_ns)
) WITHOUT ROWID;

-- record --flight: the recorder's own cost, every hour and at the end.
CREATE TABLE flight_cost (
	session_id	INTEGER NOT NULL REFERENCES session,
	ts		INTEGER NOT NULL,
	user_ns		INTEGER NOT NULL,	-- CPU time so far, all its threads
	sys_ns		INTEGER NOT NULL,
	rss_bytes	INTEGER NOT NULL,	-- resident now
	max_rss_bytes	INTEGER NOT NULL,	-- the most so far
	-- held in --max-memory now (records, and --block-io's events)
	history_bytes	INTEGER NOT NULL
);

-- Stacks (record --stacks), stored once per distinct sequence of frames.
-- A frame is an address in one address space; what it names is filled in
-- by symbolization (at the end of recording, or by faultline symbolize).
CREATE TABLE stack (
	session_id	INTEGER NOT NULL REFERENCES session,
	stack_id	INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	depth		INTEGER NOT NULL,	-- frames, kernel and user
	-- 'fp' or 'dwarf': how the user part was found; 'kernel' for the
	-- kernel-only stack of a wake-up (thread_state.waker_stack_id).
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
	-- 'ok', or why there is no name: 'no-mapping', 'not-code' (a
	-- mapping without PROT_EXEC), 'no-file',
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

-- A cgroup's CPU quota and throttling counters (record --cgroup, or the
-- first target's cgroup), one row per sample.  The counters count from
-- the cgroup's creation: what rose between two rows happened between
-- them (schema 5).
CREATE TABLE cgroup_cpu (
	session_id	INTEGER NOT NULL REFERENCES session,
	ts		INTEGER NOT NULL,	-- when it was read
	path		TEXT NOT NULL,		-- the cgroup's directory
	quota_us	INTEGER,		-- per period; NULL: no quota
	period_us	INTEGER NOT NULL,
	nr_periods	INTEGER NOT NULL,
	nr_throttled	INTEGER NOT NULL,
	throttled_ns	INTEGER NOT NULL
);

-- Intel PT (record --pt).  How the trace's TSC timestamps were put on
-- the session's clock: TSC -> perf time by the perf mmap page's
-- parameters, perf time -> CLOCK_MONOTONIC by the calibration pairs,
-- then -> ts by the clock anchors; and what the trace was recorded with.
CREATE TABLE pt_clock (
	session_id	INTEGER PRIMARY KEY REFERENCES session,
	mode		TEXT NOT NULL,		-- fault, stall or full
	pmu_type	INTEGER NOT NULL,	-- the intel_pt PMU's perf type
	config		INTEGER NOT NULL,	-- the PT event's attr.config
	snapshot_bytes	INTEGER NOT NULL,	-- --pt-size
	aux_bytes	INTEGER NOT NULL,	-- the AUX area of each buffer
	time_zero	INTEGER NOT NULL,
	time_mult	INTEGER NOT NULL,
	time_shift	INTEGER NOT NULL,
	-- cap_user_time_short only, else NULL.
	time_cycles	INTEGER,
	time_mask	INTEGER,
	-- For libipt: the CPU (errata), CPUID 0x15 (MTC timing) and
	-- MSR_PLATFORM_INFO's ratio (CBR); NULL when unknown.
	cpu_family	INTEGER,
	cpu_model	INTEGER,
	cpu_stepping	INTEGER,
	tsc_art_num	INTEGER,
	tsc_art_den	INTEGER,
	max_nonturbo_ratio INTEGER,
	mtc_period	INTEGER
);

-- Calibration pairs: CLOCK_MONOTONIC read, a record stamped in perf time,
-- CLOCK_MONOTONIC again.  Between two pairs a perf time is interpolated.
CREATE TABLE pt_calibration (
	session_id	INTEGER NOT NULL REFERENCES session,
	perf_ns		INTEGER NOT NULL,	-- the record's time, perf_clock
	mono_ns		INTEGER NOT NULL,	-- the bracket's midpoint
	uncertainty_ns	INTEGER NOT NULL,	-- half the bracket's width
	PRIMARY KEY (session_id, perf_ns)
) WITHOUT ROWID;

-- The vDSO image the traced processes ran, read from a target's memory,
-- so trace through clock_gettime decodes, now and in a later --decode.
CREATE TABLE pt_vdso (
	session_id	INTEGER PRIMARY KEY REFERENCES session,
	image		BLOB NOT NULL
);

-- One row per piece of trace kept: a major fault's sample, a stall
-- snapshot, or what one full-mode drain read.  data is the raw trace,
-- kept so faultline pt --decode can decode it again (with better images).
CREATE TABLE pt_trace (
	session_id	INTEGER NOT NULL REFERENCES session,
	trace_id	INTEGER NOT NULL,
	pid		INTEGER NOT NULL,
	tid		INTEGER NOT NULL,
	cpu		INTEGER,		-- a per-CPU buffer's CPU, else NULL
	-- fault, slow-fault, off-cpu, signal or full: what made it kept.
	trigger		TEXT NOT NULL,
	-- The trigger: a fault's completion, a stall's start, the signal, the
	-- drain.  ts: CLOCK_REALTIME like every ts; mono_ns: as recorded.
	ts		INTEGER NOT NULL,
	mono_ns		INTEGER NOT NULL,
	dur		INTEGER,		-- the fault's or the off-CPU span's
	-- trigger 'fault': the fault's entry, the ts of its fault row.
	fault_ts	INTEGER,
	bytes		INTEGER NOT NULL,
	data		BLOB NOT NULL,
	PRIMARY KEY (session_id, trace_id)
) WITHOUT ROWID;

-- The control flow decoded from a trace, in order (seq): each call,
-- return, indirect jump ('jump'), and each point where tracing stopped
-- ('disable': into the kernel, a fault, a switch-out) or started
-- ('enable').  depth: the call depth of the function the branch went to,
-- 0 at the shallowest point of the trace.
CREATE TABLE pt_call (
	session_id	INTEGER NOT NULL REFERENCES session,
	trace_id	INTEGER NOT NULL,
	seq		INTEGER NOT NULL,
	tid		INTEGER NOT NULL,
	ts		INTEGER,		-- NULL before the trace's first TSC
	depth		INTEGER NOT NULL,
	kind		TEXT NOT NULL,
	from_addr	INTEGER,		-- the branch; NULL when unknown
	to_addr		INTEGER,		-- where it went; NULL when unknown
	-- The function entered (call, jump, enable) or left (return,
	-- disable), when the image names it.
	symbol		TEXT,
	PRIMARY KEY (session_id, trace_id, seq)
) WITHOUT ROWID;

-- Where the trace cannot be followed: overflow (OVF: the CPU dropped
-- trace), truncated / partial / collision (the AUX record's flags),
-- snapshot (tracing stopped while a stall snapshot was copied),
-- overwritten, no-sync (no PSB to start from), nomap (code the image
-- does not hold), decode (libipt's error), lost.
CREATE TABLE pt_gap (
	session_id	INTEGER NOT NULL REFERENCES session,
	trace_id	INTEGER,		-- NULL: a gap of no one stored trace
	tid		INTEGER,
	cpu		INTEGER,
	ts		INTEGER,
	dur		INTEGER,		-- how long tracing stopped, when known
	reason		TEXT NOT NULL,
	offset		INTEGER,		-- byte offset in the trace
	ip		INTEGER,		-- where the flow stopped
	message		TEXT NOT NULL		-- libipt's message, and what it means
);

-- Each major fault with the trace its completion sample carried.
CREATE VIEW pt_fault AS
SELECT f.session_id, f.rowid AS fault_id, f.ts, f.dur, f.tid, f.kind, f.addr,
       t.trace_id, t.bytes
  FROM fault f
  JOIN pt_trace t ON t.session_id = f.session_id AND t.tid = f.tid
                 AND t.trigger = 'fault' AND t.fault_ts = f.ts;

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

-- What a kernel function says issued a wake-up, when it says one, read
-- from the names of the wake-up's kernel frames (symbol, frame.kernel =
-- 1; thread_state.waker_stack_id).  A source (rank 1) is where the
-- wake-up came from: 'timer', 'network receive', 'disk completion', or
-- 'irq NAME' for a device's interrupt handler; a means (rank 2) is how
-- a thread issued it: 'futex', 'pipe', 'epoll', 'socket', 'signal',
-- 'eventfd', 'child exit'.  A function may carry a compiler suffix
-- (".constprop.0"), hence GLOB.
CREATE VIEW frame_wake_class AS
SELECT session_id, frame_id, idx, function, class,
       CASE WHEN class IN ('futex', 'pipe', 'epoll', 'socket', 'signal',
                           'eventfd', 'child exit') THEN 2 ELSE 1 END AS rank
  FROM (SELECT y.session_id, y.frame_id, y.idx, y.function,
               CASE
                 WHEN y.function GLOB 'hrtimer_wakeup*' OR y.function GLOB 'call_timer_fn*'
                   OR y.function GLOB 'process_timeout*' OR y.function GLOB 'tick_sched_*'
                   THEN 'timer'
                 WHEN y.function GLOB 'net_rx_action*' OR y.function GLOB '__netif_receive_skb*'
                   OR y.function GLOB 'process_backlog*' OR y.function GLOB 'napi_*poll*'
                   THEN 'network receive'
                 WHEN y.function GLOB 'blk_mq_end_request*' OR y.function GLOB 'blk_update_request*'
                   OR y.function GLOB 'blk_mq_complete_request*' OR y.function GLOB 'bio_endio*'
                   OR y.function GLOB '*_end_io' OR y.function GLOB '*_end_io_*'
                   OR y.function GLOB 'blk_done_softirq*' THEN 'disk completion'
                 WHEN y.function GLOB 'futex_*' THEN 'futex'
                 WHEN y.function GLOB 'pipe_write*' OR y.function GLOB 'pipe_read*'
                   THEN 'pipe'
                 WHEN y.function GLOB 'ep_poll_callback*' THEN 'epoll'
                 WHEN y.function GLOB 'sock_def_*' OR y.function GLOB 'unix_*'
                   OR y.function GLOB 'tcp_*' THEN 'socket'
                 WHEN y.function GLOB 'signal_wake_up*' OR y.function GLOB 'complete_signal*'
                   THEN 'signal'
                 WHEN y.function GLOB 'eventfd_*' THEN 'eventfd'
                 WHEN y.function GLOB '__wake_up_parent*' OR y.function GLOB 'do_notify_parent*'
                   THEN 'child exit'
               END AS class
          FROM symbol y
          JOIN frame fr ON fr.session_id = y.session_id AND fr.frame_id = y.frame_id
         WHERE fr.kernel = 1)
 WHERE class IS NOT NULL;

-- What issued a wake-up, from its kernel stack (stack.method 'kernel',
-- thread_state.waker_stack_id): the innermost source in it ('timer',
-- 'network receive', 'disk completion'), else, under a device's
-- interrupt handler (the frame inside __handle_irq_event_percpu), 'irq'
-- and the handler's name ('irq vring_interrupt'), else the innermost
-- means ('futex', 'pipe', ...); NULL when the stack names none.  Worked
-- out once per stack: a busy thread's hundreds of thousands of wake-ups
-- share a few stacks, and classifying each interval's took 20 us.  The
-- GROUP BY keeps SQLite from folding it into a reader's query, where it
-- would run again for every interval.
CREATE VIEW wake_source_by_stack AS
SELECT s.session_id, s.stack_id,
       coalesce((SELECT c.class FROM stack_frame sf
                   JOIN frame_wake_class c ON c.session_id = sf.session_id
                                          AND c.frame_id = sf.frame_id
                  WHERE sf.session_id = s.session_id AND sf.stack_id = s.stack_id
                    AND c.rank = 1
                  ORDER BY sf.depth, c.idx LIMIT 1),
                (SELECT 'irq ' || y.function FROM stack_frame h
                   JOIN symbol hy ON hy.session_id = h.session_id AND hy.frame_id = h.frame_id
                   JOIN stack_frame sf ON sf.session_id = h.session_id
                    AND sf.stack_id = h.stack_id AND sf.depth = h.depth - 1
                   JOIN symbol y ON y.session_id = sf.session_id AND y.frame_id = sf.frame_id
                  WHERE h.session_id = s.session_id AND h.stack_id = s.stack_id
                    AND hy.function GLOB '__handle_irq_event_percpu*'
                  ORDER BY h.depth LIMIT 1),
                (SELECT c.class FROM stack_frame sf
                   JOIN frame_wake_class c ON c.session_id = sf.session_id
                                          AND c.frame_id = sf.frame_id
                  WHERE sf.session_id = s.session_id AND sf.stack_id = s.stack_id
                  ORDER BY sf.depth, c.idx LIMIT 1)) AS source
  FROM stack s
 WHERE s.method = 'kernel'
 GROUP BY s.session_id, s.stack_id;

-- What issued each wake-up that ended an interval (wake_source_by_stack
-- of its thread_state.waker_stack_id); source NULL when its stack names
-- none.  state_id is thread_state's rowid.
CREATE VIEW wake_source AS
SELECT x.session_id, x.rowid AS state_id, w.source
  FROM thread_state x
  LEFT JOIN wake_source_by_stack w ON w.session_id = x.session_id
                                  AND w.stack_id = x.waker_stack_id
 WHERE x.waker_stack_id IS NOT NULL;

-- What ended each interval off the CPU, in the one wording every reader
-- shows (report, query, diagnose, plot, export): 'NAME (TID)' for a
-- thread, by its name as the wake-up recorded it, else as the thread
-- table has it then; 'hard interrupt on CPU N', 'softirq on CPU N' or
-- 'NMI on CPU N' for an interrupt, whichever thread it interrupted,
-- with what issued it where its stack says (wake_source: 'softirq on
-- CPU 0 (network receive)', 'hard interrupt on CPU 1 (timer)');
-- 'idle task on CPU N' for a CPU's idle task ('interrupt on idle CPU N'
-- in a session recorded before schema 6, which did not tell interrupts
-- apart); NULL when no wake-up ended it.  state_id is thread_state's rowid.
CREATE VIEW thread_state_waker AS
SELECT x.session_id, x.rowid AS state_id, x.tid, x.ts, x.waker_tid, x.waker_cpu,
       x.waker_context,
       CASE WHEN x.waker_tid IS NULL THEN NULL
            WHEN x.waker_context = 'hardirq' THEN 'hard interrupt on CPU ' || x.waker_cpu
                 || coalesce(' (' || ws.source || ')', '')
            WHEN x.waker_context = 'softirq' THEN 'softirq on CPU ' || x.waker_cpu
                 || coalesce(' (' || ws.source || ')', '')
            WHEN x.waker_context = 'nmi' THEN 'NMI on CPU ' || x.waker_cpu
            WHEN x.waker_tid = 0 AND x.waker_context IS NULL
              THEN 'interrupt on idle CPU ' || x.waker_cpu
            WHEN x.waker_tid = 0 THEN 'idle task on CPU ' || x.waker_cpu
            ELSE coalesce(nullif(x.waker_comm, ''),
                          (SELECT nullif(t.comm, '') FROM thread t
                            WHERE t.session_id = x.session_id AND t.tid = x.waker_tid
                              AND t.first_ts <= x.ts + x.dur
                            ORDER BY t.first_ts DESC LIMIT 1),
                          (SELECT nullif(t.comm, '') FROM thread t
                            WHERE t.session_id = x.session_id AND t.tid = x.waker_tid
                            ORDER BY t.first_ts LIMIT 1), '?')
                 || ' (' || x.waker_tid || ')'
       END AS waker
  FROM thread_state x
  LEFT JOIN wake_source_by_stack ws ON ws.session_id = x.session_id
                                   AND ws.stack_id = x.waker_stack_id;

-- The system call each interval off the CPU lay in (record --syscalls):
-- its thread's latest stored call that began at or before the interval
-- and had not returned by its end, in the one wording every reader
-- shows, waited_in: 'pread64 of /var/lib/x.db', 'fsync of /var/log/a',
-- 'futex'.  No row for an interval in no stored call (a call shorter
-- than --min-syscall-duration that did not block is no row), nor in a
-- session recorded without --syscalls.  state_id: thread_state's rowid;
-- syscall_id: syscall's.
CREATE VIEW wait_in_call AS
SELECT x.session_id, x.rowid AS state_id, c.rowid AS syscall_id, c.name AS call,
       c.fd_name, c.name || coalesce(' of ' || c.fd_name, '') AS waited_in
  FROM thread_state x
  JOIN syscall c ON c.rowid = (SELECT c2.rowid FROM syscall c2
                                WHERE c2.session_id = x.session_id
                                  AND c2.tid = x.tid AND c2.ts <= x.ts
                                ORDER BY c2.ts DESC LIMIT 1)
 WHERE x.state != 'running'
   AND (c.dur IS NULL OR c.ts + c.dur >= x.ts + x.dur);

-- Each block request (record --block-io) in the one wording every reader
-- shows, what: 'disk read of 64 KiB on vda, 3.1 ms in service' ('still
-- in service' when it never completed).  request_id: block_request's
-- rowid.
CREATE VIEW block_request_named AS
SELECT b.rowid AS request_id, b.*,
       'disk ' || CASE b.op WHEN 'R' THEN 'read' WHEN 'W' THEN 'write'
                            WHEN 'D' THEN 'discard' WHEN 'FLUSH' THEN 'flush'
                            ELSE lower(b.op) END
       || CASE WHEN b.bytes >= 1048576 AND b.bytes % 1048576 = 0
               THEN printf(' of %d MiB', b.bytes / 1048576)
               WHEN b.bytes >= 1024 AND b.bytes % 1024 = 0
               THEN printf(' of %d KiB', b.bytes / 1024)
               WHEN b.bytes > 0 THEN printf(' of %d bytes', b.bytes)
               ELSE '' END
       || ' on ' || coalesce(b.disk, b.dev)
       || coalesce(printf(', %.1f ms in service', b.service_ns / 1e6),
                   ', still in service') AS what
  FROM block_request b;

-- Each blocked interval of a target thread (thread_state, 'blocked') with
-- the block requests issued in that thread that completed while it was
-- blocked (record --block-io), and their wording (block_request_named).
-- state_id: thread_state's rowid; request_id: block_request's.
CREATE VIEW blocked_on_request AS
SELECT x.session_id, x.rowid AS state_id, x.tid, b.request_id, b.disk, b.op,
       b.bytes, b.queue_ns, b.service_ns, b.complete_ts, b.what
  FROM thread_state x
  JOIN block_request_named b ON b.session_id = x.session_id AND b.tid = x.tid
                            AND b.complete_ts >= x.ts
                            AND b.complete_ts <= x.ts + x.dur
 WHERE x.state = 'blocked';

-- Each thread that ran instead during a runnable wait (ran_instead), in
-- the one wording every reader shows: holder 'cc1 (22745)', 'idle' for
-- the CPU's idle task, 'others' for the threads past the eighth; who
-- adds its time: 'cc1 (22745) 4.100 ms'.  A reader lists a wait's rows
-- by dur, longest first, joined with ', '.
CREATE VIEW ran_instead_named AS
SELECT session_id, tid, ts, cpu, ran_tid, dur, holder,
       holder || printf(' %.3f ms', dur / 1e6) AS who
  FROM (SELECT r.*,
               CASE r.ran_tid WHEN 0 THEN 'idle' WHEN -1 THEN 'others'
                    ELSE coalesce(r.ran_comm, '?') || ' (' || r.ran_tid || ')'
               END AS holder
          FROM ran_instead r);

-- The wait a kernel function stands for, when it stands for one, read
-- from the names of a stack's kernel frames (symbol, frame.kernel = 1):
-- what thread_state_reason classifies a blocked or sleeping interval by.
-- A function may carry a compiler suffix (".constprop.0"), hence GLOB.
CREATE VIEW frame_wait_class AS
SELECT y.session_id, y.frame_id, y.idx, y.function,
       CASE
         WHEN y.function GLOB '*futex*wait*' THEN 'futex'
         WHEN y.function GLOB 'io_schedule*' OR y.function GLOB 'blk_*'
           OR y.function GLOB '*_bio*' OR y.function GLOB 'folio_wait*'
           OR y.function GLOB '__folio_lock*' OR y.function GLOB 'wait_on_page*'
           THEN 'disk'
         WHEN y.function GLOB 'handle_mm_fault*' OR y.function GLOB 'do_*page*'
           OR y.function GLOB 'filemap_fault*' OR y.function GLOB 'do_user_addr_fault*'
           OR y.function GLOB 'exc_page_fault*' THEN 'page-fault'
         WHEN y.function GLOB 'sk_wait*' OR y.function GLOB 'tcp_*'
           OR y.function GLOB 'udp_*' OR y.function GLOB 'unix_*'
           OR y.function GLOB 'sock_*' OR y.function GLOB '__skb_*recv*'
           OR y.function GLOB '__skb_wait*' THEN 'network'
         WHEN y.function GLOB 'hrtimer_nanosleep*' OR y.function GLOB 'do_nanosleep*'
           OR y.function GLOB 'schedule_hrtimeout*' THEN 'timer'
         WHEN y.function GLOB 'ep_poll*' OR y.function GLOB 'do_epoll_wait*'
           OR y.function GLOB 'do_select*' OR y.function GLOB 'core_sys_select*'
           OR y.function GLOB 'do_sys_poll*' OR y.function GLOB 'do_poll*' THEN 'poll'
       END AS reason
  FROM symbol y
  JOIN frame fr ON fr.session_id = y.session_id AND fr.frame_id = y.frame_id
 WHERE fr.kernel = 1;

-- Where a stack's user part went off the stack: the first user return
-- address (depth) that lies in no executable mapping of the process
-- (frame.status 'no-mapping' or 'not-code') after a user frame that did.
-- A frame-pointer walk that reads a word which is not a saved frame
-- pointer goes on through whatever that word points at ("/jvm/jav" read
-- as 0x76616a2f6d766a2f): no code calls from outside code, so that frame
-- and every one after it are not the thread's.  A stack whose process's
-- mappings were never known (no frame in one) is left whole: it shows
-- as unnamed, not as cut.  Symbolization decides, so an unsymbolized
-- stack is not cut.  addr: the impossible return address.
CREATE VIEW stack_cut AS
SELECT sf.session_id, sf.stack_id, min(sf.depth) AS depth,
       fr.addr	-- of the row min() picked (SQLite's bare column)
  FROM stack_frame sf
  JOIN frame fr ON fr.session_id = sf.session_id AND fr.frame_id = sf.frame_id
 WHERE fr.kernel = 0 AND fr.return_addr = 1
   AND fr.status IN ('no-mapping', 'not-code')
   AND EXISTS (SELECT 1 FROM stack_frame p
                 JOIN frame pf ON pf.session_id = p.session_id AND pf.frame_id = p.frame_id
                WHERE p.session_id = sf.session_id AND p.stack_id = sf.stack_id
                  AND p.depth < sf.depth AND pf.kernel = 0
                  AND pf.status IS NOT NULL
                  AND pf.status NOT IN ('no-mapping', 'not-code'))
 GROUP BY sf.session_id, sf.stack_id;

-- Each stack as readers show it: its frames up to the cut (stack_cut),
-- and why its user part ends early (NULL: it reached the outermost
-- frame).  truncated: the recorder's reason, else the cut's.
CREATE VIEW stack_shown AS
SELECT s.session_id, s.stack_id, s.pid, s.method,
       coalesce(c.depth, s.depth) AS depth,
       coalesce(s.truncated,
                CASE WHEN c.depth IS NOT NULL THEN
                  printf('return address 0x%x is in no code of the process: the '
                         || 'frame-pointer walk left the stack', c.addr) END)
         AS truncated
  FROM stack s
  LEFT JOIN stack_cut c ON c.session_id = s.session_id AND c.stack_id = s.stack_id;

-- Each frame of a stack by name, the one naming every reader uses
-- (stacks, query, diagnose, plot, export): one row per function at the
-- frame, innermost frame first (depth), inlined functions before the
-- function that holds them (idx).  name: the function as stored (mangled
-- C++ and Rust names stay so here, for SQL on them; faultline demangles
-- when it prints), else FILE+0xOFFSET, else the address in hex.  Frames
-- past a stack's cut (stack_cut) are left out.
CREATE VIEW stack_frame_name AS
SELECT sf.session_id, sf.stack_id, sf.depth, coalesce(y.idx, 0) AS idx,
       fr.frame_id, fr.addr, fr.kernel, fr.dso, fr.dso_offset, fr.status,
       y.function, y.offset, y.size, y.file, y.line, y.inlined,
       coalesce(y.function,
                CASE WHEN fr.dso_offset IS NOT NULL
                     THEN fr.dso || printf('+0x%x', fr.dso_offset) END,
                printf('0x%x', fr.addr)) AS name
  FROM stack_frame sf
  JOIN frame fr ON fr.session_id = sf.session_id AND fr.frame_id = sf.frame_id
  LEFT JOIN symbol y ON y.session_id = fr.session_id AND y.frame_id = fr.frame_id
 WHERE sf.depth < coalesce((SELECT c.depth FROM stack_cut c
                             WHERE c.session_id = sf.session_id
                               AND c.stack_id = sf.stack_id), 1 << 62);

-- What each sleeping interval (S) waited on, and whether that was idle
-- waiting: the one place a sleep is told from a stall.  waited_on:
-- 'lock' when a frame of its stack is a lock's slow path (a mutex or
-- rwlock in user space, a kernel mutex or rwsem); else the innermost
-- kernel frame's class (frame_wait_class: 'futex', 'poll', 'timer',
-- 'network', 'disk', 'page-fault'); else what issued its wake-up, from
-- the wake-up's stack (wake_source: a disk completion is 'disk', a
-- network receive 'network', a timer 'timer'); else what woke it: 'interrupt' or
-- 'softirq' (a timer, a device, a packet: input the thread waited for),
-- 'thread' (a futex, a pipe, a join), 'waker not seen' (no sched_waking
-- came for it: still asleep at the end, or woken on a CPU leaving its
-- idle task, where the tracepoint has holes).  idle is 0 for 'lock', 'disk' and 'page-fault' (the thread had
-- work and waited for a resource), else 1.  Without a stack
-- (record --stacks), a sleep on a lock cannot be told from one waiting
-- for work, and counts as idle.
CREATE VIEW sleep_wait AS
SELECT session_id, state_id, tid, ts, dur, stack_id, waited_on,
       waited_on NOT IN ('lock', 'disk', 'page-fault') AS idle
  FROM (SELECT x.session_id, x.rowid AS state_id, x.tid, x.ts, x.dur, x.stack_id,
               CASE WHEN x.stack_id IS NOT NULL AND EXISTS (
                      SELECT 1 FROM stack_frame sf
                        JOIN symbol y ON y.session_id = sf.session_id
                                     AND y.frame_id = sf.frame_id
                       WHERE sf.session_id = x.session_id AND sf.stack_id = x.stack_id
                         AND (y.function GLOB '*mutex_lock*'
                              OR y.function GLOB '__lll_lock_wait*'
                              OR y.function GLOB '*rwlock_*lock*'
                              OR y.function GLOB 'rwsem_down_*'))
                    THEN 'lock'
                    ELSE coalesce(
                      (SELECT w.reason FROM stack_frame sf
                         JOIN frame_wait_class w ON w.session_id = sf.session_id
                                                AND w.frame_id = sf.frame_id
                        WHERE sf.session_id = x.session_id
                          AND sf.stack_id = x.stack_id AND w.reason IS NOT NULL
                        ORDER BY sf.depth, w.idx LIMIT 1),
                      CASE ws.source WHEN 'disk completion' THEN 'disk'
                           WHEN 'network receive' THEN 'network'
                           WHEN 'timer' THEN 'timer' END,
                      CASE WHEN x.waker_context = 'softirq' THEN 'softirq'
                           WHEN x.waker_context IN ('hardirq', 'nmi') THEN 'interrupt'
                           WHEN x.waker_tid = 0 THEN 'interrupt'
                           WHEN x.waker_tid > 0 THEN 'thread'
                           ELSE 'waker not seen' END)
               END AS waited_on
          FROM thread_state x
          LEFT JOIN wake_source_by_stack ws ON ws.session_id = x.session_id
                                           AND ws.stack_id = x.waker_stack_id
         -- state != 'running': the off-CPU partial indexes serve it
         WHERE x.state != 'running' AND x.state = 'sleeping'
           AND x.uncertain = 0);

-- What a stall is, once for every reader (report, stalls-near,
-- longest-stalls): time a thread had work and could not run.  A fault
-- (stall 'major fault' or 'minor fault'), or an interval off the CPU that
-- was runnable (preempted, or woken and waiting for a CPU), blocked (D:
-- the disk, a page, reclaim), waiting (S or D not known), or sleeping on
-- a resource the thread needed (sleep_wait.idle = 0).  Idle waiting (a
-- timer, poll or epoll with nothing ready, a join, a packet that has not
-- come) is no stall: sleep_wait has it.  An interval records were lost
-- in (uncertain) is none either: its state may be wrong, and a storm
-- that overflowed the rings left one a second long behind.  state_id:
-- thread_state's rowid, NULL for a fault; fault_id: fault's rowid, NULL
-- for an interval.
CREATE VIEW stall AS
SELECT f.session_id, f.tid, f.ts, f.dur, f.kind || ' fault' AS stall,
       NULL AS state_id, f.rowid AS fault_id, f.stack_id
  FROM fault f
 WHERE f.dur IS NOT NULL
UNION ALL
SELECT x.session_id, x.tid, x.ts, x.dur, x.state, x.rowid, NULL, x.stack_id
  FROM thread_state x
 WHERE x.state != 'running' AND x.state IN ('runnable', 'blocked', 'waiting')
   AND x.uncertain = 0
UNION ALL
SELECT w.session_id, w.tid, w.ts, w.dur, 'sleeping', w.state_id, NULL, w.stack_id
  FROM sleep_wait w
 WHERE w.idle = 0;

-- Why each interval off the CPU was off it: one row per thread_state row
-- that is not running and not uncertain (records were lost in it: its
-- state may be wrong, and nothing is said of why).  A runnable interval was 'preempted' (it began
-- with an involuntary switch: by_* is the thread that took the CPU) or
-- 'wakeup-latency' (it follows a sleep, a 0 ns one where the wake-up raced
-- the switch out: by_* is the waker, detail its
-- CPU, or for an interrupt or an idle task, by_tid 0, what woke it as
-- thread_state_waker says), else 'runnable'.  Any other interval takes the class of the
-- innermost kernel frame of its stack that names one (frame_wait_class):
-- 'futex', 'disk', 'page-fault', 'network', 'timer'; without a stack, or
-- with none that names one, its state.  Its by_* is the thread that woke
-- it.  by_recorder is 1 when by_tid is faultline's own (recorder_thread,
-- session.recorder_pid; for a session without recorder_thread rows, a
-- thread named 'faultline').  stack_id: the stack at the switch out that
-- began the wait (for 'wakeup-latency', the sleep's before it), or NULL.
CREATE VIEW thread_state_reason AS
SELECT session_id, state_id, tid, ts, dur, state,
       coalesce(reason, (SELECT w.reason FROM stack_frame sf
                           JOIN frame_wait_class w ON w.session_id = sf.session_id
                                                  AND w.frame_id = sf.frame_id
                          WHERE sf.session_id = r.session_id
                            AND sf.stack_id = r.stack_id AND w.reason IS NOT NULL
                          ORDER BY sf.depth, w.idx LIMIT 1), state) AS reason,
       by_tid, by_comm,
       CASE WHEN by_tid IS NULL OR by_tid = 0 THEN 0
            WHEN by_tid IN (SELECT t.tid FROM recorder_thread t
                             WHERE t.session_id = r.session_id) THEN 1
            WHEN by_tid = (SELECT s.recorder_pid FROM session s
                            WHERE s.session_id = r.session_id) THEN 1
            WHEN by_comm = 'faultline' AND NOT EXISTS (SELECT 1 FROM recorder_thread t
                             WHERE t.session_id = r.session_id) THEN 1
            ELSE 0 END AS by_recorder,
       coalesce(detail, (SELECT w.function FROM stack_frame sf
                           JOIN frame_wait_class w ON w.session_id = sf.session_id
                                                  AND w.frame_id = sf.frame_id
                          WHERE sf.session_id = r.session_id
                            AND sf.stack_id = r.stack_id AND w.reason IS NOT NULL
                          ORDER BY sf.depth, w.idx LIMIT 1)) AS detail,
       stack_id
  FROM (SELECT x.session_id, x.rowid AS state_id, x.tid, x.ts, x.dur, x.state,
               CASE WHEN x.state = 'runnable' AND x.preempted = 0
                     AND p.state != 'running' THEN p.stack_id
                    ELSE x.stack_id END AS stack_id,
               CASE WHEN x.state != 'runnable' THEN NULL
                    WHEN x.preempted = 1 THEN 'preempted'
                    WHEN p.state != 'running' THEN 'wakeup-latency'
                    ELSE 'runnable' END AS reason,
               CASE WHEN x.state != 'runnable' THEN x.waker_tid
                    WHEN x.preempted = 1 THEN x.next_tid
                    WHEN p.state != 'running' THEN p.waker_tid END AS by_tid,
               CASE WHEN x.state != 'runnable' THEN x.waker_comm
                    WHEN x.preempted = 1 THEN x.next_comm
                    WHEN p.state != 'running' THEN p.waker_comm END AS by_comm,
               CASE WHEN x.state != 'runnable' THEN NULL
                    WHEN x.preempted = 1 THEN 'on CPU ' || p.cpu
                    WHEN p.state != 'running' THEN
                      CASE WHEN p.waker_tid = 0 THEN
                             (SELECT w.waker FROM thread_state_waker w
                               WHERE w.session_id = p.session_id AND w.state_id = p.rowid)
                           WHEN p.waker_tid IS NULL THEN 'waker not seen'
                           ELSE 'waker on CPU ' || p.waker_cpu END
               END AS detail
          FROM thread_state x
          LEFT JOIN thread_state p ON x.state = 'runnable'
           AND p.rowid = (SELECT q.rowid FROM thread_state q
                           WHERE q.session_id = x.session_id AND q.tid = x.tid
                             AND q.ts <= x.ts AND (q.ts < x.ts OR q.rowid < x.rowid)
                           ORDER BY q.ts DESC, q.rowid DESC LIMIT 1)
         WHERE x.state != 'running' AND x.uncertain = 0) r;
