/*
 * faultline on programs nobody here wrote, from Debian's packages: what
 * it says about them must be what the kernel did.  python3's http.server
 * driven by a client on loopback (recorded, and also by the flight
 * recorder beside a full recording), and the sqlite3 shell scanning a
 * file whose pages were dropped from the page cache.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "run.h"

/* A TCP port on 127.0.0.1 that nothing listens on now. */
static int free_tcp_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Waits until something accepts connections on port, or 20 s pass. */
static int wait_listening(int port)
{
	for (int waited = 0; waited < 20000; waited += 20) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons((uint16_t)port) };
		int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
		if (fd >= 0)
			close(fd);
		if (ok)
			return 0;
		sleep_ms(20);
	}
	return -1;
}

static void write_bytes(const char *path, size_t n)
{
	static char block[65536];
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	memset(block, 'z', sizeof(block));
	for (size_t done = 0; done < n; done += sizeof(block))
		assert_int_equal(fwrite(block, sizeof(block), 1, f), 1);
	assert_int_equal(fclose(f), 0);
}

#define BIG_BYTES (1 << 21)

/* Starts python3's http.server on a free port of 127.0.0.1, serving dir
 * (made here, with big.bin of BIG_BYTES in it); returns the port once
 * it accepts connections. */
static int http_server_start(struct run *server, const char *dir)
{
	char port_s[16], big[512];
	int port = free_tcp_port();

	assert_true(port > 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(big, sizeof(big), "%s/big.bin", dir);
	write_bytes(big, BIG_BYTES);
	snprintf(port_s, sizeof(port_s), "%d", port);
	{
		char *argv[] = { "/usr/bin/python3", "-m", "http.server", port_s,
				 "--bind", "127.0.0.1", "--directory", (char *)dir,
				 NULL };

		run_start_as(server, -1, argv);
	}
	if (wait_listening(port) < 0)
		fail_msg("http.server did not listen on port %d", port);
	return port;
}

/* n requests for big.bin, one at a time, gap_ms apart, by a python3
 * client; the pid it ran as in *client_pid. */
static void http_fetch(int port, int n, int gap_ms, pid_t *client_pid)
{
	char script[512];
	struct run client;

	snprintf(script, sizeof(script), "import time, urllib.request as u\n"
		 "for i in range(%d):\n"
		 "    assert len(u.urlopen('http://127.0.0.1:%d/big.bin')"
		 ".read()) == %d\n"
		 "    time.sleep(%g)\n", n, port, BIG_BYTES, gap_ms / 1000.0);
	{
		char *argv[] = { "/usr/bin/python3", "-c", script, NULL };

		if (run_argv(&client, argv) != 0)
			fail_msg("the client failed: %s", client.err);
	}
	if (client_pid)
		*client_pid = client.pid;
}

/*
 * http.server sleeps in poll between requests, woken when a connection
 * arrives: by the network's softirq, which on loopback runs inside the
 * client's own system call.  That sleep is idle waiting, not a stall, and
 * its waker is the softirq, never the client.
 */
static void http_server_waits_idle_for_requests_and_no_client_is_its_waker(void **state)
{
	const char *db = scratch_path("http.db");
	struct run server, rec;
	pid_t client;
	int port;

	(void)state;
	port = http_server_start(&server, scratch_path("www"));
	{
		char pid_s[16];
		char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
				 (char *)db, "-p", pid_s, NULL };

		snprintf(pid_s, sizeof(pid_s), "%d", (int)server.pid);
		assert_int_equal(start_recording(&rec, argv, 30000), 0);
	}
	/* Ten requests, 150 ms apart: the server sleeps between them. */
	http_fetch(port, 10, 150, &client);
	kill(rec.pid, SIGINT);
	if (run_wait(&rec) != 0)
		fail_msg("record failed: %s", rec.err);
	kill(server.pid, SIGTERM);
	run_wait(&server);

	/* The accept loop slept between requests, idle, most of those
	 * sleeps ended by the network receive (a softirq: its stack says
	 * net_rx_action) that brought a connection. */
	assert_true(db_int(db, "SELECT count(*) FROM sleep_wait WHERE tid = %d "
			   "AND idle AND waited_on = 'network'", (int)server.pid) >= 5);
	/* No wake-up of the server is credited to the client. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state WHERE "
				"waker_tid = %d", (int)client), 0);
	/* And the readers list no idle sleep among the stalls. */
	assert_int_equal(run_faultline(&rec, "query", db, "longest-stalls",
				       "limit=50", "-f", "csv", NULL), 0);
	if (strstr(rec.out, ",sleeping,"))
		fail_msg("longest-stalls lists a sleep:\n%s", rec.out);
	assert_int_equal(run_faultline(&rec, "query", db, "idle-waits", "-f", "csv",
				       NULL), 0);
	assert_non_null(strstr(rec.out, ",network,"));
}

/* Waits until db holds a complete dump, or 20 s pass: 0 or -1. */
static int wait_for_dump(const char *db)
{
	for (int waited = 0; waited < 20000; waited += 20) {
		if (db_int(db, "SELECT count(*) FROM session JOIN flight_dump "
			   "USING (session_id) WHERE status = 'complete'") > 0)
			return 0;
		sleep_ms(20);
	}
	return -1;
}

/* Records http.server answering five requests twice at once, with the
 * flight recorder (started first: 60 s kept, a snapshot by --control
 * once the requests are answered) into dump, and a full recording into
 * full, serving a directory of its own for each attempt.  0, or 1 when
 * either says records were lost or dropped. */
static int record_http_twice(const char *dump, const char *full, int attempt)
{
	const char *ctl = scratch_path("flight.ctl");
	char dir[64], pid_s[16];
	struct run server, fl, rec;
	int port;

	snprintf(dir, sizeof(dir), "www-%d", attempt);
	port = http_server_start(&server, scratch_path(dir));
	snprintf(pid_s, sizeof(pid_s), "%d", (int)server.pid);
	unlink(dump);
	unlink(full);
	{
		char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
				 (char *)dump, "-p", pid_s, "--flight", "--keep",
				 "60s,200ms", "--control", (char *)ctl, NULL };

		assert_int_equal(start_recording(&fl, argv, 30000), 0);
	}
	{
		char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
				 (char *)full, "-p", pid_s, NULL };

		assert_int_equal(start_recording(&rec, argv, 30000), 0);
	}
	http_fetch(port, 5, 50, NULL);
	write_line(ctl, "snapshot\n");
	if (wait_for_dump(dump) < 0)
		fail_msg("no dump 20 s after the snapshot");
	kill(rec.pid, SIGINT);
	kill(fl.pid, SIGINT);
	if (run_wait(&rec) != 0 || run_wait(&fl) != 0)
		fail_msg("record failed: %s%s", rec.err, fl.err);
	kill(server.pid, SIGTERM);
	run_wait(&server);
	return db_int(dump, "SELECT sum(records_lost + records_dropped) FROM "
		      "session") != 0 ||
	       db_int(full, "SELECT records_lost + records_dropped FROM "
		      "session") != 0;
}

/* The dump's window that the full recording covers too, 10 ms in from
 * each end: lo and hi, as a common table expression. */
#define BESIDE_WINDOW "WITH w AS (SELECT max(window_start_ts, (SELECT " \
	"start_ts FROM f.session)) + 10000000 AS lo, min(window_end_ts, (SELECT " \
	"end_ts FROM f.session)) - 10000000 AS hi FROM main.flight_dump) "

/* Request threads of the dump: the server's threads other than its
 * first, each with its whole timeline inside the window. */
#define BESIDE_REQUESTS BESIDE_WINDOW ", req AS (SELECT s.tid FROM " \
	"main.thread_state s JOIN main.thread t USING (session_id, tid), w " \
	"WHERE s.session_id = 2 AND t.tid != t.pid GROUP BY s.tid HAVING " \
	"min(s.ts) >= min(lo) AND max(s.ts + s.dur) <= min(hi)), " \
	"a AS (SELECT tid, state, waker_tid, ts, row_number() OVER (PARTITION " \
	"BY tid ORDER BY ts) AS n FROM main.thread_state WHERE session_id = 2 " \
	"AND tid IN req), b AS (SELECT tid, state, waker_tid, ts, row_number() " \
	"OVER (PARTITION BY tid ORDER BY ts) AS n FROM f.thread_state WHERE " \
	"tid IN req) "

/*
 * The flight recorder beside a full recording of the same http.server:
 * its dump, taken once the requests were answered, holds what the full
 * recording stored over the same time: every fault, row for row, and the
 * timeline of each thread that answered a request, interval by interval.
 * The flight recorder's per-minute histograms of those threads count
 * what the full recording stored of them.
 *
 * Two recorders of one thread do not stamp quite the same times for a
 * switch or a wake-up: the kernel writes each recorder's sample in turn,
 * and the one written second is stamped after the first is done, which
 * for a wake-up includes unwinding its kernel stack (wake-ups up to 40 us
 * apart, either way round, seen here).  A fault's samples share one time.
 * So the intervals are held to their order, states and wakers, and their
 * starts to within 1 ms.
 */
static void a_flight_dump_of_http_server_holds_what_a_full_recording_stored(void **state)
{
	const char *dump = scratch_path("beside-flight.db");
	const char *full = scratch_path("beside-full.db");
	int64_t faults, requests, rows;
	int missed = 1;

	(void)state;
	for (int attempt = 1; attempt <= 3 && missed; attempt++)
		if ((missed = record_http_twice(dump, full, attempt)))
			print_message("recording %d: records were lost or "
				      "dropped\n", attempt);
	if (missed)
		skip_msg("in 3 runs of two recorders at once, one lost or "
			 "dropped records");
	/* Where the kernel cannot tell the older recorder's samples from the
	 * other's (PERF_SAMPLE_READ refused on inherited events before Linux
	 * 6.12), the dump says so and holds fewer faults. */
	if (db_int(dump, "SELECT records_unknown FROM session WHERE "
		   "session_id = 2") > 0)
		skip_msg("the dump could not place some of its samples beside "
			 "another recorder: this kernel cannot name a sample's "
			 "own event");

	/* Every fault of the window in both, the same. */
	faults = db_int_beside(dump, full, BESIDE_WINDOW "SELECT count(*) FROM "
			       "main.fault, w WHERE session_id = 2 AND ts >= lo "
			       "AND ts < hi");
	assert_true(faults >= 5);
	assert_int_equal(db_int_beside(dump, full, BESIDE_WINDOW "SELECT "
				       "count(*) FROM f.fault, w WHERE ts >= lo AND "
				       "ts < hi"), faults);
	assert_int_equal(db_int_beside(dump, full, BESIDE_WINDOW "SELECT "
				       "count(*) FROM main.fault a JOIN f.fault b "
				       "USING (tid, kind, addr, dur), w WHERE "
				       "a.session_id = 2 AND a.ts >= lo AND a.ts < hi "
				       "AND abs(a.ts - b.ts) <= 1000"), faults);

	/* Each request's thread: the same intervals in the same order. */
	requests = db_int_beside(dump, full, BESIDE_REQUESTS "SELECT count(*) "
				 "FROM req");
	assert_true(requests >= 3);
	rows = db_int_beside(dump, full, BESIDE_REQUESTS "SELECT count(*) FROM a");
	assert_true(rows >= 2 * requests);	/* made, and ran */
	assert_int_equal(db_int_beside(dump, full, BESIDE_REQUESTS "SELECT "
				       "count(*) FROM b"), rows);
	assert_int_equal(db_int_beside(dump, full, BESIDE_REQUESTS "SELECT "
				       "count(*) FROM a JOIN b USING (tid, n) WHERE "
				       "a.state = b.state AND a.waker_tid IS "
				       "b.waker_tid AND abs(a.ts - b.ts) <= 1000000"),
			 rows);

	/* The flight recorder's per-minute histograms of those threads:
	 * bin by bin, the full recording's faults; state by state, its
	 * off-CPU intervals. */
	faults = db_int_beside(dump, full, BESIDE_REQUESTS "SELECT count(*) FROM "
			       "f.fault WHERE tid IN req AND dur IS NOT NULL");
	assert_int_equal(db_int_beside(dump, full, BESIDE_REQUESTS "SELECT "
				       "coalesce(sum(count), 0) FROM main.flight_minute "
				       "WHERE session_id = 1 AND kind GLOB 'fault:*' "
				       "AND tid IN req"), faults);
	assert_int_equal(db_int_beside(dump, full, BESIDE_REQUESTS "SELECT "
				       "count(*) FROM main.flight_minute m WHERE "
				       "session_id = 1 AND kind GLOB 'fault:*' AND tid "
				       "IN req AND count != (SELECT count(*) FROM "
				       "f.fault x WHERE x.tid = m.tid AND 'fault:' || "
				       "x.kind = m.kind AND x.dur >= m.lo_ns AND x.dur "
				       "< m.hi_ns AND x.ts >= m.minute_ts AND x.ts < "
				       "m.minute_ts + 60000000000)"), 0);
	assert_int_equal(db_int_beside(dump, full, BESIDE_REQUESTS ", "
				       "m AS (SELECT tid, substr(kind, 8) AS state, "
				       "sum(count) AS n FROM main.flight_minute WHERE "
				       "session_id = 1 AND kind GLOB 'offcpu:*' AND tid "
				       "IN req GROUP BY 1, 2), x AS (SELECT tid, state, "
				       "count(*) AS n FROM f.thread_state WHERE tid IN "
				       "req AND state NOT IN ('running', 'unknown') "
				       "GROUP BY 1, 2) SELECT (SELECT count(*) FROM (SELECT "
				       "* FROM m EXCEPT SELECT * FROM x)) + (SELECT "
				       "count(*) FROM (SELECT * FROM x EXCEPT SELECT * "
				       "FROM m))"), 0);
}

/* Drops path's pages from the page cache; the pages still cached after
 * it (mincore over a mapping), which a test expects to be none. */
static long drop_from_cache(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	long page = sysconf(_SC_PAGESIZE), in = 0;
	unsigned char *vec;
	void *map;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc((size_t)(st.st_size + page - 1) / (size_t)page);
	assert_true(map != MAP_FAILED && vec);
	assert_int_equal(mincore(map, (size_t)st.st_size, vec), 0);
	for (long i = 0; i < (st.st_size + page - 1) / page; i++)
		in += vec[i] & 1;
	munmap(map, (size_t)st.st_size);
	free(vec);
	close(fd);
	return in;
}

/* Records the sqlite3 shell scanning big, its pages dropped from the
 * page cache first, into db (made anew); its blocked intervals. */
static int64_t record_cold_scan(const char *db, const char *big)
{
	struct run r;
	long cached = -1;
	int64_t n;

	for (int tries = 0; tries < 3 && cached != 0; tries++)
		cached = drop_from_cache(big);
	if (cached != 0)
		skip_msg("%ld pages of a synced file stayed cached after "
			 "POSIX_FADV_DONTNEED, 3 tries", cached);
	unlink(db);
	if (run_faultline(&r, "record", "-q", "-o", db, "--", "/usr/bin/sqlite3", big,
			  "SELECT count(*) FROM t WHERE b > x'80'", NULL) != 0)
		fail_msg("record failed: %s", r.err);
	n = db_int(db, "SELECT count(*) FROM thread_state x JOIN thread t "
		   "USING (session_id, tid) WHERE t.comm = 'sqlite3' AND "
		   "x.state = 'blocked'");
	if (n < 0)
		fail_msg("cannot read the recording's thread states");
	return n;
}

/*
 * The sqlite3 shell scanning a database whose pages left the page cache
 * reads it from the disk: it waits blocked (D), a stall, until the disk's
 * completion wakes it: an interrupt, or a kernel worker, never a user
 * thread.  (A completion on an idle CPU often reports no sched_waking on
 * these machines, so the waker may be unknown; where it is known it must
 * not be the thread the interrupt hit, faultline's own, say.)  Read-ahead
 * makes the scan a handful of reads, and a host may answer each before
 * the reader sleeps (tests/integration/test_block_io.c): a few
 * recordings, at most, for one that blocked.
 */
static void sqlite3_on_a_cold_file_stalls_blocked_on_the_disk(void **state)
{
	const char *db = scratch_path("sq.db"), *big = scratch_path("big.db");
	struct run r;
	int64_t blocked = 0;

	(void)state;
	{
		char *argv[] = { "/usr/bin/sqlite3", (char *)big, "CREATE TABLE t(a, b); "
				 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
				 "FROM c WHERE x < 60000) INSERT INTO t SELECT x, "
				 "randomblob(300) FROM c;", NULL };

		if (run_argv(&r, argv) != 0)
			fail_msg("sqlite3 could not make the file: %s", r.err);
	}
	for (int attempt = 1; attempt <= 3 && blocked == 0; attempt++)
		if ((blocked = record_cold_scan(db, big)) == 0)
			print_message("recording %d: the scan never blocked\n",
				      attempt);
	if (blocked == 0)
		skip_msg("in 3 recordings the disk answered each of the scan's "
			 "reads before sqlite3 slept");
	/* Blocked on the disk, never woken by a user thread. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state WHERE "
				"state = 'blocked' AND waker_tid > 0 AND "
				"coalesce(waker_comm, '') NOT GLOB 'kworker*'"), 0);
	/* Each of those waits is a stall, and the reader shows them: all
	 * of them, as on a busy machine the ten longest stalls can all be
	 * waits for a CPU. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state x WHERE "
				"x.state = 'blocked' AND x.rowid NOT IN (SELECT "
				"state_id FROM stall WHERE state_id IS NOT NULL)"), 0);
	assert_int_equal(run_faultline(&r, "query", db, "longest-stalls",
				       "limit=1000000", "-f", "csv", NULL), 0);
	{
		static char all[1 << 22];	/* r.out keeps only the start */

		slurp(r.outpath, all, sizeof(all));
		assert_non_null(strstr(all, ",sqlite3,blocked,"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(http_server_waits_idle_for_requests_and_no_client_is_its_waker,
					  kill_leftovers),
		cmocka_unit_test_teardown(sqlite3_on_a_cold_file_stalls_blocked_on_the_disk,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_flight_dump_of_http_server_holds_what_a_full_recording_stored,
					  kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
