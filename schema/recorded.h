/*
 * recorded: whether a session recorded anything (a fault, a fault
 * histogram, a thread state or a tracepoint hit), as SQL that reads the
 * same on SQLite and on the tables faultline export --to fills in
 * PostgreSQL.  The readers take the latest such session by default, so
 * a failed last attempt does not hide the run before it.  Each table is
 * looked up by an index (or key) that leads with session_id.
 */
#ifndef FL_RECORDED_H
#define FL_RECORDED_H

/* A boolean SQL expression; id: SQL for the session's id. */
#define SESSION_RECORDED(id) \
	"(EXISTS (SELECT 1 FROM fault WHERE session_id = " id ")" \
	" OR EXISTS (SELECT 1 FROM fault_histogram WHERE session_id = " id ")" \
	" OR EXISTS (SELECT 1 FROM thread_state WHERE session_id = " id ")" \
	" OR EXISTS (SELECT 1 FROM tracepoint_event WHERE session_id = " id "))"

#endif
