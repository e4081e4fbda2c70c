/*
 * record --block-io: block requests read through a tracefs instance of
 * faultline's own.  A workload makes a known number of direct reads of a
 * known size; each is one request of that thread, timed issue to
 * completion, and what is stored agrees with the disk's own counters
 * (/sys/block/DEV/stat).  The instance is gone after the recording, also
 * one stopped by SIGINT, and one a killed faultline left is removed by
 * the next.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "run.h"

#define READS 40
#define READ_SIZE 65536
#define INSTANCES "/sys/kernel/tracing/instances"

/* The fields of /sys/block/DEV/stat this test reads. */
struct disk_stat {
	long long reads, sectors, ms;	/* completed, sectors read, ms reading */
};

/* The stat file of the disk that holds path (a partition's disk), in
 * out; 0, or -1 when path is on no block device. */
static int disk_stat_path(const char *path, char *out, size_t n)
{
	struct stat st;
	char part[128];

	if (stat(path, &st) < 0 || major(st.st_dev) == 0)
		return -1;
	snprintf(part, sizeof(part), "/sys/dev/block/%u:%u/partition",
		 major(st.st_dev), minor(st.st_dev));
	snprintf(out, n, access(part, F_OK) == 0 ? "/sys/dev/block/%u:%u/../stat" :
		 "/sys/dev/block/%u:%u/stat", major(st.st_dev), minor(st.st_dev));
	return access(out, R_OK);
}

static struct disk_stat disk_stat(const char *stat_path)
{
	struct disk_stat d = { -1, -1, -1 };
	long long merges;
	FILE *f = fopen(stat_path, "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lld %lld %lld %lld", &d.reads, &merges,
				&d.sectors, &d.ms), 4);
	fclose(f);
	return d;
}

/* Does a line of the file at path hold both a and b (b after a)?  (The
 * whole output: run.out keeps only its first 4 KiB.) */
static int file_has_line(const char *path, const char *a, const char *b)
{
	char line[4096];
	const char *at;
	FILE *f = fopen(path, "r");
	int found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = (at = strstr(line, a)) && strstr(at, b);
	fclose(f);
	return found;
}

static int instance_exists(pid_t pid)
{
	char path[128];

	snprintf(path, sizeof(path), INSTANCES "/faultline-%d", (int)pid);
	return access(path, F_OK) == 0;
}

/*
 * 40 direct reads of 64 KiB are 40 read requests of 64 KiB of the
 * reading thread, each issued before it completed; the disk's counters
 * over a window that holds the recording bound what was stored: no more
 * read requests, sectors or time reading than the disk counted
 * (time: each request's service lies inside the span the kernel adds,
 * from its allocation to its end, and the file shows whole ms, so +1 ms).
 * When the disk completed no read the recording did not store, the
 * sectors are equal.  Returns the reading thread; skips where the file
 * system cannot hold the reads.
 */
static long long record_direct_reads(const char *db, const char *info,
				     const char *data, const char *stat_path)
{
	char reads[16], size[16];
	struct disk_stat before, after;
	long long tid, stored, sectors, service_ns;
	struct run r;

	snprintf(reads, sizeof(reads), "%d", READS);
	snprintf(size, sizeof(size), "%d", READ_SIZE);
	unlink(db);
	before = disk_stat(stat_path);
	run_faultline(&r, "record", "-o", db, "--block-io", "--",
		      "build/release/tests/block_workload", data, reads, size,
		      info, NULL);
	after = disk_stat(stat_path);
	if (r.status == 77)
		skip_msg("the file system holds no %d reads of %d bytes in one "
			 "extent each, or has no O_DIRECT", READS, READ_SIZE);
	if (r.status != 0)
		fail_msg("record failed (%d): %s", r.status, r.err);
	assert_non_null(strstr(r.err, "  block requests: "));
	assert_false(instance_exists(r.pid));
	tid = info_get(info, "tid");
	assert_int_equal(db_int(db, "SELECT count(*) FROM block_request WHERE tid"
				" = %lld AND op = 'R' AND bytes = %d AND error = 0"
				" AND complete_ts IS NOT NULL AND service_ns > 0"
				" AND issue_ts <= complete_ts AND (insert_ts IS NULL"
				" OR insert_ts <= issue_ts) AND pid = tid AND comm ="
				" 'block_workload' AND disk IS NOT NULL", tid,
				READ_SIZE), READS);
	/* every disk's read requests, whoever's, against the counters */
	stored = db_int(db, "SELECT count(*) FROM block_request b WHERE op = 'R'"
			" AND complete_ts IS NOT NULL AND dev = (SELECT dev FROM"
			" block_request WHERE tid = %lld LIMIT 1)", tid);
	sectors = db_int(db, "SELECT sum(bytes) / 512 FROM block_request WHERE"
			 " op = 'R' AND complete_ts IS NOT NULL AND dev = (SELECT"
			 " dev FROM block_request WHERE tid = %lld LIMIT 1)", tid);
	service_ns = db_int(db, "SELECT sum(service_ns) FROM block_request WHERE"
			    " op = 'R' AND complete_ts IS NOT NULL AND dev = (SELECT"
			    " dev FROM block_request WHERE tid = %lld LIMIT 1)", tid);
	assert_true(stored >= READS);
	assert_true(stored <= after.reads - before.reads);
	assert_true(sectors <= after.sectors - before.sectors);
	assert_true(service_ns <= (after.ms - before.ms + 1) * 1000000ll);
	if (stored == after.reads - before.reads)
		assert_int_equal(sectors, after.sectors - before.sectors);
	else
		print_message("the disk read %lld more times than recorded "
			      "(another process): sectors bounded, not equal\n",
			      after.reads - before.reads - stored);
	assert_int_equal(db_int(db, "SELECT count(*) FROM lost WHERE kind GLOB"
				" 'block_*'"), 0);
	return tid;
}

/*
 * A direct read's thread sleeps in D until the read completes: a blocked
 * interval of the thread that began while one of its direct reads was in
 * service ends after that read's completion, so blocked_on_request names
 * that read, and longest-stalls says it.  (A read is taken for a direct
 * one when it is 64 KiB and no other request of the thread was in
 * service beside it: a read-ahead's thread waits for one of its requests,
 * not for each.)  The kernel need not sleep at all: a disk that answers
 * before the thread gives up its CPU leaves no such interval (seen on a
 * VM whose host completed reads at once, the thread's context switches
 * counted by the kernel agreeing), hence a few recordings, at most, for
 * one that slept.
 */
static void direct_reads_are_requests_of_their_thread_the_disk_agrees(void **state)
{
	const char *db = scratch_path("blk.db"), *info = scratch_path("blk.info");
	const char *data = scratch_path("blk.bin");
	static const char slept_sql[] =
		"SELECT count(*) FROM block_request b WHERE b.tid = %lld AND"
		" b.op = 'R' AND b.bytes = %d AND NOT EXISTS (SELECT 1 FROM"
		" block_request o WHERE o.tid = b.tid AND o.rowid != b.rowid"
		" AND o.issue_ts < b.complete_ts AND o.complete_ts > b.issue_ts)"
		" AND EXISTS (SELECT 1 FROM thread_state x WHERE x.tid = b.tid"
		" AND x.state = 'blocked' AND x.ts >= b.issue_ts AND x.ts <"
		" b.complete_ts)%s";
	char stat_path[160], tidbuf[32];
	long long tid = 0, slept = 0;
	struct run q;

	(void)state;
	if (disk_stat_path(scratch_dir(), stat_path, sizeof(stat_path)) < 0)
		skip_msg("%s is on no block device", scratch_dir());
	for (int attempt = 1; attempt <= 3 && slept == 0; attempt++) {
		tid = record_direct_reads(db, info, data, stat_path);
		slept = db_int(db, slept_sql, tid, READ_SIZE, "");
		if (slept == 0)
			print_message("recording %d: no read of thread %lld slept "
				      "while in service\n", attempt, tid);
	}
	if (slept == 0)
		skip_msg("the disk answered each of %d direct reads before its "
			 "thread slept, in 3 recordings", READS);
	/* each read its thread slept on is tied to that blocked interval */
	assert_int_equal(db_int(db, slept_sql, tid, READ_SIZE, " AND b.rowid"
				" IN (SELECT request_id FROM blocked_on_request"
				" WHERE what LIKE 'disk read of 64 KiB on %')"),
			 slept);
	/* and longest-stalls says it of such an interval */
	snprintf(tidbuf, sizeof(tidbuf), "tid=%lld", tid);
	assert_int_equal(run_faultline(&q, "query", db, "longest-stalls",
				       "limit=1000", tidbuf, "--format", "csv",
				       NULL), 0);
	if (!file_has_line(q.outpath, ",blocked,", "disk read of 64 KiB on "))
		fail_msg("longest-stalls names no request of a blocked "
			 "interval:\n%s", q.out);
}

/*
 * A faultline killed outright leaves its instance; the next recording
 * with --block-io removes it and says so, and leaves none of its own.
 */
static void a_killed_recorders_instance_is_removed_by_the_next(void **state)
{
	const char *db = scratch_path("killed.db"), *db2 = scratch_path("next.db");
	char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
			 (char *)db, "--block-io", "--", "/bin/sleep", "2", NULL };
	char says[96];
	struct run r, next;

	(void)state;
	assert_int_equal(start_recording(&r, argv, 10000), 0);
	assert_true(instance_exists(r.pid));
	kill(r.pid, SIGKILL);
	run_wait(&r);
	assert_true(instance_exists(r.pid));
	assert_int_equal(run_faultline(&next, "record", "-o", db2, "--block-io",
				       "--", "/bin/true", NULL), 0);
	snprintf(says, sizeof(says), "removed the tracefs instance 'faultline-%d'",
		 (int)r.pid);
	if (!strstr(next.err, says))
		fail_msg("no word of the stale instance:\n%s", next.err);
	assert_false(instance_exists(r.pid));
	assert_false(instance_exists(next.pid));
}

/*
 * diagnose's file-io finding names the block requests its calls waited
 * for: a direct read that blocked waited for its own request.  (A direct
 * read need not block: the host may answer before the thread sleeps; so
 * the count is not held to the reads.)
 */
static void diagnose_names_the_requests_a_files_reads_waited_for(void **state)
{
	const char *db = scratch_path("diag.db"), *info = scratch_path("diag.info");
	const char *data = scratch_path("diag.bin");
	char reads[16], size[16], tid[24];
	struct run r, d;

	(void)state;
	snprintf(reads, sizeof(reads), "%d", READS);
	snprintf(size, sizeof(size), "%d", READ_SIZE);
	setenv("LINGER_MS", "300", 1);	/* the descriptor named from /proc */
	run_faultline(&r, "record", "-q", "-o", db, "--block-io", "--syscalls",
		      "--", "build/release/tests/block_workload", data, reads,
		      size, info, NULL);
	unsetenv("LINGER_MS");
	if (r.status == 77)
		skip_msg("the file system cannot hold the direct reads");
	if (r.status != 0)
		fail_msg("record failed (%d): %s", r.status, r.err);
	if (db_int(db, "SELECT count(*) FROM syscall WHERE tid = %lld AND name ="
		   " 'pread64' AND blocked_ns > 0 AND fd_name = '%s'",
		   info_get(info, "tid"), data) == 0)
		skip_msg("no direct read blocked: the disk answered each before "
			 "the thread slept");
	snprintf(tid, sizeof(tid), "%lld", info_get(info, "tid"));
	assert_int_equal(run_faultline(&d, "diagnose", db, "--tid", tid, NULL), 0);
	if (!file_has_line(d.outpath, "   disk:      ",
			   "the longest: disk read of 64 KiB on "))
		fail_msg("the file-io finding names no disk request:\n%s", d.out);
}

/* The stalls of tid's findings of pattern in diagnose's JSON at path,
 * summed. */
static long long finding_stalls(const char *path, const char *pattern,
				long long tid)
{
	static char json[1 << 20];
	char head[96], tidkey[48];
	long long sum = 0;
	const char *p = json;

	slurp(path, json, sizeof(json));
	snprintf(head, sizeof(head), "{\"pattern\":\"%s\"", pattern);
	snprintf(tidkey, sizeof(tidkey), "\"tid\":%lld,", tid);
	while ((p = strstr(p, head))) {
		const char *end = strstr(p + 1, "{\"pattern\":");
		const char *t = strstr(p, tidkey), *n = strstr(p, "\"stalls\":");

		if (t && n && (!end || (t < end && n < end)))
			sum += strtoll(n + strlen("\"stalls\":"), NULL, 10);
		p += strlen(head);
	}
	return sum;
}

/*
 * Recorded with the defaults (no --syscalls, no stacks), a direct read's
 * wait in state D is named by no specific pattern; diagnose still names
 * it, as time blocked in the kernel: every blocked interval of the
 * reader is a stall of a "blocked" finding (faults, which could claim
 * one first, are left out with --min-fault), but the 0 ns ones a
 * wake-up that raced the switch out leaves (decoder/timeline.h).  Before, they were no
 * finding at all, and a thread that lost its time to the disk was
 * missing from the output.
 */
static void a_wait_in_state_d_no_pattern_names_is_still_a_finding(void **state)
{
	const char *db = scratch_path("dstate.db"), *info = scratch_path("dstate.info");
	const char *data = scratch_path("dstate.bin");
	char reads[16], size[16], tid[24];
	long long blocked, found;
	struct run r, d;

	(void)state;
	snprintf(reads, sizeof(reads), "%d", READS);
	snprintf(size, sizeof(size), "%d", READ_SIZE);
	run_faultline(&r, "record", "-q", "-o", db, "--",
		      "build/release/tests/block_workload", data, reads, size, info,
		      NULL);
	if (r.status == 77)
		skip_msg("the file system cannot hold the direct reads");
	if (r.status != 0)
		fail_msg("record failed (%d): %s", r.status, r.err);
	blocked = db_int(db, "SELECT count(*) FROM thread_state WHERE tid = %lld"
			 " AND state = 'blocked' AND uncertain = 0 AND dur > 0",
			 info_get(info, "tid"));
	if (blocked == 0)
		skip_msg("no direct read blocked: the disk answered each before "
			 "the thread slept");
	snprintf(tid, sizeof(tid), "%lld", info_get(info, "tid"));
	assert_int_equal(run_faultline(&d, "diagnose", db, "--tid", tid,
				       "--min-duration", "1ns", "--min-fault", "1h",
				       "-f", "json", NULL), 0);
	found = finding_stalls(d.outpath, "blocked", info_get(info, "tid"));
	if (found != blocked)
		fail_msg("%lld blocked intervals, %lld stalls in blocked findings:\n%s",
			 blocked, found, d.out);
}

/*
 * What the instance's buffer overwrote is said: a buffer of 4 KiB a CPU
 * (a test hook) cannot hold the events of 3000 direct reads between two
 * passes of the reader (100 ms: at least 100 requests even at 1 ms a
 * read, 3 events each, against the 50 or so a page holds); the lost
 * table has the overruns the summary gives, and "nothing lost" is not
 * said.
 */
static void an_overrun_of_the_instances_buffer_is_stored_and_said(void **state)
{
	const char *db = scratch_path("over.db"), *info = scratch_path("over.info");
	const char *data = scratch_path("over.bin");
	char want[64];
	long long lost;
	struct run r;

	(void)state;
	setenv("FAULTLINE_TEST_BLOCK_BUFFER_KB", "4", 1);
	run_faultline(&r, "record", "-o", db, "--block-io", "--",
		      "build/release/tests/block_workload", data, "3000", "4096",
		      info, NULL);
	unsetenv("FAULTLINE_TEST_BLOCK_BUFFER_KB");
	if (r.status == 77)
		skip_msg("the file system cannot hold the direct reads");
	if (r.status != 0)
		fail_msg("record failed (%d): %s", r.status, r.err);
	lost = db_int(db, "SELECT sum(count) FROM lost WHERE kind = 'block_overrun'");
	assert_true(lost > 0);
	snprintf(want, sizeof(want), "BLOCK I/O LOST: %lld events overwritten", lost);
	if (!strstr(r.err, want) || strstr(r.err, "nothing lost"))
		fail_msg("the summary does not say %s:\n%s", want, r.err);
	assert_true(db_int(db, "SELECT count(*) FROM block_request WHERE tid = %lld"
			   " AND bytes = 4096 AND op = 'R'", info_get(info, "tid")) < 3000);
}

/* info's key once the workload has written it; -1 after timeout_ms. */
static long long wait_info(const char *info, const char *key, long timeout_ms)
{
	long long v;

	for (long waited = 0; waited < timeout_ms; waited += 10) {
		if ((v = info_get(info, key)) >= 0)
			return v;
		sleep_ms(10);
	}
	return -1;
}

/*
 * record --flight --block-io: a dump whose window holds the whole run
 * (--keep 1h, SIGUSR2 once the reads are done, the workload lingering)
 * has the rows a full recording has: the 40 direct reads are 40 read
 * requests of 64 KiB of the reading thread, each issued before it
 * completed, no more, and what it stored agrees with the disk's
 * counters over the recording, as a recording's does.  The flight
 * session itself holds none.
 */
static void a_flight_dump_holds_the_requests_a_recording_holds(void **state)
{
	const char *db = scratch_path("flight.db"), *info = scratch_path("flight.info");
	const char *data = scratch_path("flight.bin");
	char stat_path[160], reads[16], size[16];
	char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
			 (char *)db, "--flight", "--block-io", "--keep",
			 "1h,100ms", "--", "build/release/tests/block_workload",
			 (char *)data, reads, size, (char *)info, NULL };
	struct disk_stat before, after;
	long long done, tid, stored, sectors;
	struct run r;

	(void)state;
	if (disk_stat_path(scratch_dir(), stat_path, sizeof(stat_path)) < 0)
		skip_msg("%s is on no block device", scratch_dir());
	snprintf(reads, sizeof(reads), "%d", READS);
	snprintf(size, sizeof(size), "%d", READ_SIZE);
	setenv("LINGER_MS", "2000", 1);	/* alive when the trigger comes */
	before = disk_stat(stat_path);
	assert_int_equal(start_recording(&r, argv, 10000), 0);
	unsetenv("LINGER_MS");
	/* The reads done (the info file's last line): the trigger. */
	done = wait_info(info, "read_ns", 20000);
	if (done >= 0)
		kill(r.pid, SIGUSR2);
	run_wait(&r);
	after = disk_stat(stat_path);
	if (r.status == 77)
		skip_msg("the file system holds no %d reads of %d bytes in one "
			 "extent each, or has no O_DIRECT", READS, READ_SIZE);
	if (r.status != 0 || done < 0)
		fail_msg("record failed (%d): %s", r.status, r.err);
	tid = info_get(info, "tid");
	assert_false(instance_exists(r.pid));
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump f JOIN"
				" session s USING (session_id) WHERE f.trigger ="
				" 'signal' AND s.status = 'complete' AND"
				" f.block_dropped = 0"), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM block_request WHERE"
				" session_id = 2 AND tid = %lld AND op = 'R' AND"
				" bytes = %d AND error = 0 AND complete_ts IS NOT NULL"
				" AND service_ns > 0 AND issue_ts <= complete_ts AND"
				" (insert_ts IS NULL OR insert_ts <= issue_ts) AND pid"
				" = tid AND comm = 'block_workload' AND disk IS NOT"
				" NULL", tid, READ_SIZE), READS);
	/* The flight session holds none: only the dump does.  (The thread
	 * may have read more than its 40, a page of its own text that an
	 * earlier test dropped from the cache: the dump holds those too.) */
	assert_int_equal(db_int(db, "SELECT count(*) FROM block_request WHERE"
				" session_id != 2"), 0);
	stored = db_int(db, "SELECT count(*) FROM block_request WHERE op = 'R'"
			" AND complete_ts IS NOT NULL AND dev = (SELECT dev FROM"
			" block_request WHERE tid = %lld LIMIT 1)", tid);
	sectors = db_int(db, "SELECT sum(bytes) / 512 FROM block_request WHERE"
			 " op = 'R' AND complete_ts IS NOT NULL AND dev = (SELECT"
			 " dev FROM block_request WHERE tid = %lld LIMIT 1)", tid);
	assert_true(stored >= READS);
	assert_true(stored <= after.reads - before.reads);
	assert_true(sectors <= after.sectors - before.sectors);
	if (stored == after.reads - before.reads)
		assert_int_equal(sectors, after.sectors - before.sectors);
	else
		print_message("the disk read %lld more times than the dump holds "
			      "(another process, or before its window): sectors "
			      "bounded, not equal\n",
			      after.reads - before.reads - stored);
	/* The flight session stores no request and no count of its own. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM block_request WHERE"
				" session_id = 1"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM block_request_count"
				" WHERE session_id = 1"), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM block_request_count"
				" WHERE session_id = 2 AND completed >= %d", READS), 1);
	assert_int_equal(db_int(db, "SELECT count(*) FROM lost WHERE kind GLOB"
				" 'block_*'"), 0);
}

/*
 * Armed, what the instance's buffer overwrote goes to the dump whose
 * window its events were in: the 4 KiB buffer of the test above, 3000
 * direct reads, a window over the whole run.  The dump's lost rows have
 * overruns, no more than the summary says the instance lost while
 * armed, and the flight session has none of its own.
 */
static void an_overrun_while_armed_is_stored_in_the_dump(void **state)
{
	const char *db = scratch_path("fover.db"), *info = scratch_path("fover.info");
	const char *data = scratch_path("fover.bin");
	char *argv[] = { (char *)faultline_bin(), "record", "-o", (char *)db,
			 "--flight", "--block-io", "--keep", "1h,100ms", "--",
			 "build/release/tests/block_workload", (char *)data, "3000",
			 "4096", (char *)info, NULL };
	long long lost, said = -1;
	const char *at;
	struct run r;

	(void)state;
	setenv("FAULTLINE_TEST_BLOCK_BUFFER_KB", "4", 1);
	setenv("LINGER_MS", "2000", 1);
	assert_int_equal(start_recording(&r, argv, 10000), 0);
	unsetenv("LINGER_MS");
	unsetenv("FAULTLINE_TEST_BLOCK_BUFFER_KB");
	if (wait_info(info, "read_ns", 60000) >= 0)
		kill(r.pid, SIGUSR2);
	run_wait(&r);
	if (r.status == 77)
		skip_msg("the file system cannot hold the direct reads");
	if (r.status != 0)
		fail_msg("record failed (%d): %s", r.status, r.err);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_dump"), 1);
	lost = db_int(db, "SELECT sum(count) FROM lost WHERE session_id = 2 AND"
		      " kind = 'block_overrun'");
	if ((at = strstr(r.err, "BLOCK I/O LOST: ")))
		said = atoll(at + strlen("BLOCK I/O LOST: "));
	print_message("overruns: %lld in the dump, %lld while armed\n", lost, said);
	assert_true(lost > 0);
	assert_true(lost <= said);
	assert_int_equal(db_int(db, "SELECT count(*) FROM lost WHERE session_id ="
				" 1 AND kind GLOB 'block_*'"), 0);
	assert_true(db_int(db, "SELECT count(*) FROM block_request WHERE"
			   " session_id = 2 AND bytes = 4096 AND op = 'R' AND"
			   " comm = 'block_workload'") < 3000);
}

/* SIGINT stops a recording; its instance goes with it. */
static void a_recording_stopped_by_sigint_removes_its_instance(void **state)
{
	const char *db = scratch_path("int.db");
	char *argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
			 (char *)db, "--block-io", "--", "/bin/sleep", "30", NULL };
	struct run r;

	(void)state;
	assert_int_equal(start_recording(&r, argv, 10000), 0);
	assert_true(instance_exists(r.pid));
	kill(r.pid, SIGINT);
	assert_int_equal(run_wait(&r), 0);
	assert_false(instance_exists(r.pid));
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE status ="
				" 'stopped'"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(direct_reads_are_requests_of_their_thread_the_disk_agrees),
		cmocka_unit_test(diagnose_names_the_requests_a_files_reads_waited_for),
		cmocka_unit_test(a_wait_in_state_d_no_pattern_names_is_still_a_finding),
		cmocka_unit_test(an_overrun_of_the_instances_buffer_is_stored_and_said),
		cmocka_unit_test_teardown(a_flight_dump_holds_the_requests_a_recording_holds,
					  kill_leftovers),
		cmocka_unit_test_teardown(an_overrun_while_armed_is_stored_in_the_dump,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_recording_stopped_by_sigint_removes_its_instance,
					  kill_leftovers),
		cmocka_unit_test_teardown(a_killed_recorders_instance_is_removed_by_the_next,
					  kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
