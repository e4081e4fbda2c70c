-- Secondary indexes, made after a session's rows are loaded (building an
-- index once is faster than keeping it during the load, but for those
-- in load_indexes.sql: see there).  Each leads with session_id, so a
-- later session's rows land at the end of every index and its load
-- stays cheap.
CREATE INDEX IF NOT EXISTS mapping_by_pid ON mapping (session_id, pid, start_addr);
CREATE INDEX IF NOT EXISTS thread_state_by_tid ON thread_state (session_id, tid, ts);
CREATE INDEX IF NOT EXISTS ran_instead_by_wait ON ran_instead (session_id, tid, ts);
CREATE INDEX IF NOT EXISTS syscall_by_tid ON syscall (session_id, tid, ts);
CREATE INDEX IF NOT EXISTS syscall_by_ts ON syscall (session_id, ts);
CREATE INDEX IF NOT EXISTS tracepoint_event_by_ts ON tracepoint_event (session_id, ts);
CREATE INDEX IF NOT EXISTS fault_by_stack ON fault (session_id, stack_id) WHERE stack_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS frame_by_addr ON frame (session_id, pid, addr);
CREATE INDEX IF NOT EXISTS metric_by_series ON metric (series_id, ts);
CREATE INDEX IF NOT EXISTS metric_series_by_name ON metric_series (name);
-- The cgroup samples around a stall (diagnose's cpu-quota).
CREATE INDEX IF NOT EXISTS cgroup_cpu_by_ts ON cgroup_cpu (session_id, ts);
-- Off-CPU intervals by length: the long ones, which stalls-near and
-- longest-stalls start from, without reading every interval.
CREATE INDEX IF NOT EXISTS thread_state_off_cpu_by_dur ON thread_state (session_id, dur) WHERE state != 'running';
-- Intel PT: a thread's traces by time (faultline pt --around), and the
-- fault a trace was taken at (the pt_fault view).
CREATE INDEX IF NOT EXISTS pt_trace_by_tid ON pt_trace (session_id, tid, ts);
CREATE INDEX IF NOT EXISTS pt_gap_by_trace ON pt_gap (session_id, trace_id);
-- A thread's block requests by completion (the blocked_on_request view).
CREATE INDEX IF NOT EXISTS block_request_by_tid ON block_request (session_id, tid, complete_ts) WHERE tid IS NOT NULL;
