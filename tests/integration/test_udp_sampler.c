/*
 * record --udp-port: the sampled receive-queue depth and drop count of a
 * real UDP socket on loopback equal the socket's own (SO_MEMINFO), while
 * its queue fills to a known depth and then overflows; rows carry the
 * wall-clock time of the session; and the options' messages.  The
 * parsers of /proc/net/udp{,6} and /proc/net/snmp{,6} have their unit
 * tests (tests/unit/test_proc_net_udp.c), the sampling thread too
 * (tests/unit/test_sampler_thread.c).
 */
#include <arpa/inet.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <poll.h>

#include "run.h"

/* Waits until the workload's info file says it reached stage n. */
static int wait_stage(const char *info, int n)
{
	for (int waited = 0; waited < 60000; waited += 10) {
		if (info_get(info, "stage") >= n)
			return 0;
		sleep_ms(10);
	}
	return -1;
}

/* Waits until sql, run on the database being recorded, counts a row
 * (rows are committed once a second). */
static int wait_row(const char *db, const char *sql)
{
	for (int waited = 0; waited < 60000; waited += 20) {
		int64_t n = access(db, F_OK) == 0 ? db_int(db, "%s", sql) : 0;

		if (n > 0 && n != INT64_MIN)
			return 0;
		sleep_ms(20);
	}
	return -1;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fclose(f);
}

#define SERIES(name, inode) "(SELECT series_id FROM metric_series WHERE name = '" \
	name "' AND json_extract(labels, '$.inode') = '" inode "')"

static void sampled_depth_and_drops_equal_the_sockets_own(void **state)
{
	const char *db = scratch_path("udp-sampler.db");
	const char *info = scratch_path("udp-sampler.info");
	const char *wl = getenv("UDP_WORKLOAD");
	char port[16], pid[16], sql[1024], inode[32];
	char *wl_argv[] = { (char *)(wl ? wl : "build/release/tests/udp_workload"),
			    "--staged", (char *)info, (char *)scratch_dir(), "20",
			    "500", NULL };
	long long depth1, depth2, drops2;
	struct run w, f;

	(void)state;
	run_start_as(&w, -1, wl_argv);
	assert_int_equal(wait_stage(info, 0), 0);
	snprintf(port, sizeof(port), "%lld", info_get(info, "port"));
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	{
		char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
				 (char *)db, "-p", pid, "--udp-port", port, NULL };

		assert_int_equal(start_recording(&f, argv, 30000), 0);
	}

	/* The socket is bound only now, after recording began. */
	touch(scratch_path("go1"));
	assert_int_equal(wait_stage(info, 1), 0);
	depth1 = info_get(info, "depth1");
	snprintf(inode, sizeof(inode), "%lld", info_get(info, "inode"));
	assert_true(depth1 > 0);
	assert_int_equal(info_get(info, "drops1"), 0);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM metric WHERE series_id = "
		 SERIES("udp_rx_queue_bytes", "%s") " AND value = %lld", inode, depth1);
	assert_int_equal(wait_row(db, sql), 0);

	touch(scratch_path("go2"));
	assert_int_equal(wait_stage(info, 2), 0);
	depth2 = info_get(info, "depth2");
	drops2 = info_get(info, "drops2");
	assert_true(drops2 > 0);
	assert_true(depth2 > depth1);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM metric WHERE series_id = "
		 SERIES("udp_drops", "%s") " AND value = %lld", inode, drops2);
	assert_int_equal(wait_row(db, sql), 0);

	touch(scratch_path("go3"));
	assert_int_equal(run_wait(&w), 0);
	assert_int_equal(run_wait(&f), 0);

	/* Never more than the kernel said, and what it said at the end. */
	assert_int_equal(db_int(db, "SELECT max(value) FROM metric WHERE series_id = "
				SERIES("udp_rx_queue_bytes", "%s"), inode), depth2);
	assert_int_equal(db_int(db, "SELECT max(value) FROM metric WHERE series_id = "
				SERIES("udp_drops", "%s"), inode), drops2);
	/* Before the overflow, no drops: the depth1 samples say 0 drops. */
	assert_int_equal(db_int(db, "SELECT max(d.value) FROM metric d, metric q "
				"WHERE d.series_id = " SERIES("udp_drops", "%s")
				" AND q.series_id = " SERIES("udp_rx_queue_bytes", "%s")
				" AND d.ts = q.ts AND q.value = %lld", inode, inode,
				depth1), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric_series WHERE "
				"name IN ('udp_rx_queue_bytes', 'udp_drops') AND "
				"session_id = 1 AND source = 'sampler:/proc/net/udp' AND "
				"json_extract(labels, '$.port') = '%s' AND "
				"json_extract(labels, '$.local') = '127.0.0.1:%s'",
				port, port), 2);
	/* The host's counter saw those drops (and maybe others'). */
	assert_true(db_int(db, "SELECT max(value) - min(value) FROM metric WHERE "
			   "series_id = (SELECT series_id FROM metric_series WHERE "
			   "name = 'udp_rcvbuf_errors' AND labels = '{\"proto\":\"udp\"}')")
		    >= drops2);
}

/* Bytes charged to fd's receive buffer (SO_MEMINFO). */
static long long rmem_alloc(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t mlen = sizeof(mem);

	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &mlen), 0);
	return mem[SK_MEMINFO_RMEM_ALLOC];
}

/* A socket of this process with n datagrams queued to itself; its
 * inode and SO_MEMINFO's queue depth into *inode and *depth.  Loopback
 * delivery runs in a softirq, which a busy machine may leave to
 * ksoftirqd: the first datagram's arrival gives what each one is
 * charged, and the queue is read once it holds all n. */
static int queued_socket(int family, int n, unsigned *port,
			 unsigned long long *inode, long long *depth)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr *a = family == AF_INET6 ? (struct sockaddr *)&a6 :
						  (struct sockaddr *)&a4;
	socklen_t alen = family == AF_INET6 ? sizeof(a6) : sizeof(a4);
	int fd = socket(family, SOCK_DGRAM, 0);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long long unit;
	struct stat st;

	a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, a, alen), 0);
	assert_int_equal(getsockname(fd, a, &alen), 0);
	assert_int_equal(sendto(fd, "abcdefgh", 8, 0, a, alen), 8);
	assert_int_equal(poll(&p, 1, 10000), 1);
	unit = rmem_alloc(fd);
	for (int i = 1; i < n; i++)
		assert_int_equal(sendto(fd, "abcdefgh", 8, 0, a, alen), 8);
	for (int waited = 0; rmem_alloc(fd) < n * unit && waited < 10000; waited++)
		sleep_ms(1);
	assert_int_equal(rmem_alloc(fd), n * unit);
	assert_int_equal(fstat(fd, &st), 0);
	*port = ntohs(family == AF_INET6 ? a6.sin6_port : a4.sin_port);
	*inode = (unsigned long long)st.st_ino;
	*depth = rmem_alloc(fd);
	return fd;
}

static void an_ipv6_socket_and_one_chosen_by_inode_read_as_the_kernel_says(void **state)
{
	const char *db = scratch_path("udp-inode.db");
	unsigned port4, port6;
	unsigned long long inode4, inode6;
	long long depth4, depth6;
	int fd4 = queued_socket(AF_INET, 3, &port4, &inode4, &depth4);
	int fd6 = queued_socket(AF_INET6, 5, &port6, &inode6, &depth6);
	char sock[32], port[16];
	struct run r;

	(void)state;
	assert_true(depth4 > 0 && depth6 > 0);
	snprintf(sock, sizeof(sock), "%llu", inode4);
	snprintf(port, sizeof(port), "%u", port6);
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--socket", sock,
				       "--udp-port", port, "--duration", "300ms",
				       "--", "/bin/sleep", "10", NULL), 0);
	close(fd4);
	close(fd6);
	/* Both ways of reading were used (see collector/udp_sampler.h). */
	{
		const char *by = strstr(r.err, " samples every 1 ms (");
		long lookups = -1, scans = -1;

		assert_non_null(by);
		assert_int_equal(sscanf(by, " samples every 1 ms (%ld by lookup, "
					"%ld by scan)", &lookups, &scans), 2);
		assert_true(lookups > 0 && scans > 0);
	}
	/* The queues held still: every sample, by table scan or by
	 * sock_diag lookup, says what SO_MEMINFO said. */
	assert_int_equal(db_int(db, "SELECT min(m.value) FROM metric m JOIN "
				"metric_series s USING (series_id) WHERE s.name = "
				"'udp_rx_queue_bytes' AND json_extract(s.labels, "
				"'$.inode') = '%llu'", inode4), depth4);
	assert_int_equal(db_int(db, "SELECT max(m.value) FROM metric m JOIN "
				"metric_series s USING (series_id) WHERE s.name = "
				"'udp_rx_queue_bytes' AND json_extract(s.labels, "
				"'$.inode') = '%llu'", inode4), depth4);
	assert_int_equal(db_int(db, "SELECT min(m.value) = max(m.value) AND "
				"min(m.value) = %lld FROM metric m JOIN metric_series s "
				"USING (series_id) WHERE s.name = 'udp_rx_queue_bytes' "
				"AND s.labels = '{\"inode\":\"%llu\",\"local\":"
				"\"[::1]:%u\",\"port\":\"%u\",\"proto\":\"udp6\"}'",
				depth6, inode6, port6, port6), 1);
	assert_int_equal(db_int(db, "SELECT max(m.value) FROM metric m JOIN "
				"metric_series s USING (series_id) WHERE s.name = "
				"'udp_drops'"), 0);
	/* Every row is on the session's wall clock (CLOCK_REALTIME), between
	 * its start and its end, whatever clock the sampler read. */
	assert_true(db_int(db, "SELECT count(*) FROM metric") > 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric m JOIN "
				"metric_series USING (series_id) JOIN session s "
				"USING (session_id) WHERE m.ts < s.start_ts OR "
				"m.ts > s.end_ts OR s.end_ts IS NULL"), 0);
	/* An IPv6 socket was sampled: the host's IPv6 counters were too. */
	assert_true(db_int(db, "SELECT count(*) FROM metric_series WHERE name = "
			   "'udp_rcvbuf_errors' AND labels = '{\"proto\":\"udp6\"}' "
			   "AND source = 'sampler:/proc/net/snmp6'") == 1);
}

static void a_port_no_socket_ever_had_is_named_at_the_end(void **state)
{
	const char *db = scratch_path("udp-none.db");
	struct run r;
	char port[16], want[128];
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);

	(void)state;
	/* A port that was free a moment ago, and is not bound again. */
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	close(fd);
	snprintf(port, sizeof(port), "%u", ntohs(a.sin_port));
	/* A command that lasts a few sampling turns: /bin/true can end
	 * before the sampling thread first gets a CPU on a busy machine,
	 * and the host's counters below would have no sample. */
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--udp-port", port,
				       "--", "/bin/sleep", "0.2", NULL), 0);
	snprintf(want, sizeof(want), "warning: no UDP socket matched port %s "
		 "during the recording", port);
	assert_non_null(strstr(r.err, want));
	assert_non_null(strstr(r.err, "udp sampling: "));
	assert_int_equal(db_int(db, "SELECT count(*) FROM metric_series WHERE "
				"name = 'udp_rx_queue_bytes'"), 0);
	assert_true(db_int(db, "SELECT count(*) FROM metric_series WHERE "
			   "name = 'udp_rcvbuf_errors'") >= 1);
}

static void bad_ports_inodes_and_intervals_are_usage_errors(void **state)
{
	static const char *const bad[][3] = {
		{ "--udp-port", "0", "invalid --udp-port '0': expected UDP ports from 1 to 65535" },
		{ "--udp-port", "65536", "invalid --udp-port '65536'" },
		{ "--udp-port", "9000,", "invalid --udp-port '9000,'" },
		{ "--udp-port", "x", "invalid --udp-port 'x'" },
		{ "--socket", "0", "invalid --socket '0': expected a socket's inode" },
		{ "--sample-interval", "5ms", "--sample-interval samples sockets" },
	};
	const char *db = scratch_path("udp-bad.db");
	struct run r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run_faultline(&r, "record", "-o", db, bad[i][0],
					       bad[i][1], "--", "/bin/true", NULL),
				 2);
		if (!strstr(r.err, bad[i][2]))
			fail_msg("%s %s: got '%s'", bad[i][0], bad[i][1], r.err);
	}
	assert_int_equal(run_faultline(&r, "record", "-o", db, "--udp-port", "9",
				       "--sample-interval", "0", "--", "/bin/true",
				       NULL), 2);
	assert_non_null(strstr(r.err, "invalid --sample-interval '0': it must be "
			       "more than 0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(sampled_depth_and_drops_equal_the_sockets_own, kill_leftovers),
		cmocka_unit_test_teardown(an_ipv6_socket_and_one_chosen_by_inode_read_as_the_kernel_says, kill_leftovers),
		cmocka_unit_test_teardown(a_port_no_socket_ever_had_is_named_at_the_end, kill_leftovers),
		cmocka_unit_test_teardown(bad_ports_inodes_and_intervals_are_usage_errors, kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
