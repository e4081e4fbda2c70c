/*
 * A database of known contents for the tests of faultline plot and
 * faultline export, made through the real schema (db_open_write, then the
 * indexes) and filled by SQL, so what each command writes can be checked
 * exactly.  T0 = 2023-11-14T22:13:20Z.
 *
 * Session 1 (100 s earlier): one fault.
 * Session 2, T0 to T0+10s, process 100:
 *   thread 101 named 'init', then from +1s a name full of markup
 *     (FIXTURE_RX_NAME); thread 102 'worker'; thread 103 has a fault but
 *     no name (no thread row).
 *   faults, 101: major 150 ms at +2s (cpu 0, completed on 1, stack 1),
 *     minor 2 us at +2.5s (cpu 0), minor 3 ms at +5s, one that never
 *     completed at +6s, and 200 minor faults of 1.5 us every 100 us from
 *     +3s (cpu 1); 102: major 300 ms at +1.7s, minor 5 ms at +2.1s
 *     (cpu 1); 103: minor 4 us at +4s (cpu 0).
 *   states, 101: running +1.9s 100.5 ms, blocked 149 ms (uncertain,
 *     stack 2), runnable 0.5 ms (woken by 102 'worker'), running 50 ms,
 *     sleeping +2.2s 50 ms (woken by 102), running to +8s (then 102 took
 *     the CPU); 102: sleeping +1.5s 550 ms (woken by 101), running 250 ms,
 *     then 100 pairs of 10 us running and 10 us sleeping from +2.3s.
 *   tracepoint hits on cpu 1: two on 102 at +2.1s and 1 us later, one
 *     on 101 at +2.3s whose fields are not JSON, one on 102 at +3.6s.
 *   metrics: 'nak' (imported) at +2.2s = 12 and +6s = 3, and one 95 s
 *     before T0 (outside); 'udp_rx_queue_bytes' (sampled) every 50 ms from
 *     +1.95s to +2.25s, and an infinite value at +2.3s; 'latency'
 *     (imported) only 50 s before T0: beside no session.
 *   lost: 5 records on cpu 0 at +3s, 7 at +4s, throttled on cpu 1 at
 *     +3.5s, and a malformed record without a time.
 * Session 3, T0+20s to T0+21s: nothing recorded.
 */
#ifndef FL_TEST_PLOT_FIXTURE_H
#define FL_TEST_PLOT_FIXTURE_H

#include "../../schema/db.h"
#include "../integration/run.h"

#define FIXTURE_T0 1700000000000000000ll
#define T0 "1700000000000000000"
#define FIXTURE_RX_NAME "rx</script><!--\"\\\xc3\xa9"

static const char plot_fixture_sql[] =
	"INSERT INTO session (session_id, start_ts, end_ts, status, host, kernel,"
	" command_line, options, faultline_version, start_realtime_ns,"
	" start_monotonic_ns, min_fault_dur, buffer_bytes, cpus) VALUES"
	" (1, " T0 "-100000000000, " T0 "-90000000000, 'complete', 'h', 'k',"
	"  'faultline record -p 100', '', '0.1.0', 0, 0, 0, 4096, 2),"
	" (2, " T0 ", " T0 "+10000000000, 'complete', 'h', 'k',"
	"  'faultline record -o t.db -p 100', '', '0.1.0', 0, 0, 0, 4096, 2),"
	" (3, " T0 "+20000000000, " T0 "+21000000000, 'complete', 'h', 'k',"
	"  'faultline record -p 4242', '', '0.1.0', 0, 0, 0, 4096, 2);"
	"INSERT INTO thread VALUES (1, 101, 100, 'old', " T0 "-100000000000, " T0 "-90000000000),"
	" (2, 101, 100, 'init', " T0 ", " T0 "+1000000000),"
	" (2, 101, 100, '" FIXTURE_RX_NAME "', " T0 "+1000000000, " T0 "+8000000000),"
	" (2, 102, 100, 'worker', " T0 ", " T0 "+3000000000);"
	"INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, exit_cpu, kind, addr, ip,"
	" stack_id) VALUES"
	" (1, " T0 "-95000000000, 100000000, 101, 100, 0, 0, 'major', 4096, 8192, NULL),"
	" (2, " T0 "+2000000000, 150000000, 101, 100, 0, 1, 'major', 4096, 8192, 1),"
	" (2, " T0 "+2500000000, 2000, 101, 100, 0, 0, 'minor', -8192, 8192, NULL),"
	" (2, " T0 "+5000000000, 3000000, 101, 100, 0, 0, 'minor', 8192, 8192, NULL),"
	" (2, " T0 "+6000000000, NULL, 101, 100, 0, NULL, 'unfinished', 12288, 8192, NULL),"
	" (2, " T0 "+1700000000, 300000000, 102, 100, 1, 1, 'major', 4096, 8192, NULL),"
	" (2, " T0 "+2100000000, 5000000, 102, 100, 1, 1, 'minor', 4096, 8192, NULL),"
	" (2, " T0 "+4000000000, 4000, 103, 100, 0, 0, 'minor', 4096, 8192, NULL);"
	"INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, exit_cpu, kind, addr, ip)"
	" WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 199)"
	" SELECT 2, " T0 "+3000000000 + n * 100000, 1500, 101, 100, 1, 1, 'minor',"
	"  65536 + n * 4096, 8192 FROM c;"
	"INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, cpu, waker_tid,"
	" waker_cpu, preempted, uncertain, stack_id, next_tid, next_comm, waker_comm) VALUES"
	" (2, 101, 100, " T0 "+1900000000, 100500000, 'running', 0, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL),"
	" (2, 101, 100, " T0 "+2000500000, 149000000, 'blocked', NULL, NULL, NULL, 0, 1, 2, NULL, NULL, NULL),"
	" (2, 101, 100, " T0 "+2149500000, 500000, 'runnable', NULL, 102, 1, 0, 0, NULL, NULL, NULL, 'worker'),"
	" (2, 101, 100, " T0 "+2150000000, 50000000, 'running', 0, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL),"
	" (2, 101, 100, " T0 "+2200000000, 50000000, 'sleeping', NULL, 102, 1, 0, 0, NULL, NULL, NULL, NULL),"
	" (2, 101, 100, " T0 "+2250000000, 5750000000, 'running', 0, NULL, NULL, 0, 0, NULL, 102, 'worker', NULL),"
	" (2, 102, 100, " T0 "+1500000000, 550000000, 'sleeping', NULL, 101, 0, 0, 0, NULL, NULL, NULL, NULL),"
	" (2, 102, 100, " T0 "+2050000000, 250000000, 'running', 1, NULL, NULL, 1, 0, NULL, NULL, NULL, NULL);"
	"INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, cpu, waker_tid,"
	" waker_cpu, preempted, uncertain)"
	" WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 199)"
	" SELECT 2, 102, 100, " T0 "+2300000000 + n * 10000, 10000,"
	"  CASE n % 2 WHEN 0 THEN 'running' ELSE 'sleeping' END,"
	"  CASE n % 2 WHEN 0 THEN 1 END, NULL, NULL, 0, 0 FROM c;"
	"INSERT INTO tracepoint_event VALUES"
	" (2, " T0 "+2100000000, 102, 100, 1, 'skb:kfree_skb', '{\"reason\":\"SOCKET_RCVBUFF\"}'),"
	" (2, " T0 "+2100001000, 102, 100, 1, 'skb:kfree_skb', '{\"reason\":\"SOCKET_RCVBUFF\"}'),"
	" (2, " T0 "+2300000000, 101, 100, 1, 'sched:sched_waking', 'not json'),"
	" (2, " T0 "+3600000000, 102, 100, 1, 'skb:kfree_skb', '{}');"
	"INSERT INTO lost VALUES (2, " T0 "+3000000000, 0, 'records', 5),"
	" (2, " T0 "+4000000000, 0, 'records', 7),"
	" (2, " T0 "+3500000000, 1, 'throttled', 1),"
	" (2, NULL, NULL, 'malformed', 1);"
	"INSERT INTO stack VALUES (2, 1, 100, 3, 'fp', NULL), (2, 2, 100, 2, 'fp', NULL);"
	"INSERT INTO stack_frame VALUES (2, 1, 0, 10), (2, 1, 1, 11), (2, 1, 2, 13),"
	" (2, 2, 0, 20), (2, 2, 1, 13);"
	"INSERT INTO frame VALUES (2, 10, 100, 4096, 0, 0, '/lib/ld.so', 4096, NULL, 'ok'),"
	" (2, 11, 100, 8192, 0, 1, '/lib/ld.so', 8192, NULL, 'ok'),"
	" (2, 13, 100, 16384, 0, 1, '/usr/bin/rx', 8192, NULL, 'ok'),"
	" (2, 20, -1, -4096, 1, 0, '[kernel.kallsyms]', NULL, NULL, 'ok');"
	"INSERT INTO symbol VALUES (2, 10, 0, '_dl_fixup', 16, 200, NULL, NULL, 0),"
	" (2, 11, 0, '_dl_runtime_resolve', 8, 100, NULL, NULL, 0),"
	" (2, 13, 0, 'main', 32, 300, 'rx.c', 12, 0),"
	" (2, 20, 0, 'io_schedule', 4, 50, NULL, NULL, 0);"
	"INSERT INTO metric_series VALUES (1, NULL, 'nak', '{}', NULL, 'naks.csv', 0),"
	" (2, 2, 'udp_rx_queue_bytes', '{\"port\":9000}', 'bytes', 'sampler', 0),"
	" (3, NULL, 'latency', '{}', 'us', 'lat.csv', 0);"
	"INSERT INTO metric VALUES (1, " T0 "+2200000000, 12), (1, " T0 "+6000000000, 3),"
	" (1, " T0 "-95000000000, 1), (3, " T0 "-50000000000, 250),"
	" (2, " T0 "+1950000000, 0), (2, " T0 "+2000000000, 1000),"
	" (2, " T0 "+2050000000, 50000), (2, " T0 "+2100000000, 120000),"
	" (2, " T0 "+2150000000, 212992), (2, " T0 "+2200000000, 100),"
	" (2, " T0 "+2250000000, 0), (2, " T0 "+2300000000, 9e999);";

/* The fixture, made once per test process. */
static const char *plot_fixture_db(void)
{
	static char path[256];	/* scratch_path's buffers are reused */
	struct errmsg e;
	sqlite3 *db = NULL;

	if (path[0])
		return path;
	snprintf(path, sizeof(path), "%s", scratch_path("fixture.db"));
	errmsg_init(&e);
	if (db_open_write(path, &db, &e) < 0)
		fail_msg("%s", e.text);
	if (sqlite3_exec(db, plot_fixture_sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("fixture: %s", sqlite3_errmsg(db));
	if (db_build_indexes(db, path, &e) < 0)
		fail_msg("%s", e.text);
	db_close(db);
	return path;
}

/* Runs a python3 checker (tests/NAME) with the arguments given
 * (NULL-terminated); fails the test with its output unless it says ok. */
static void python_check(struct run *r, const char *script, ...)
{
	char *argv[32];
	char path[256];
	int n = 0;
	va_list ap;

	snprintf(path, sizeof(path), "tests/%s", script);
	argv[n++] = "/usr/bin/python3";
	argv[n++] = path;
	va_start(ap, script);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	if (run_argv(r, argv) != 0)
		fail_msg("%s %s said:\n%s%s", script, argv[2], r->out, r->err);
	assert_non_null(strstr(r->out, "ok"));
}

/* Does dir hold a file whose name starts with prefix?  (A temporary file
 * left behind is ".NAME.XXXXXX".) */
static int dir_has(const char *dir, const char *prefix)
{
	char cmd[512];
	struct run r;
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -q '^%s'", dir, prefix);
	return run_argv(&r, argv) == 0;
}

#endif
