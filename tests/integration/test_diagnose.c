/*
 * faultline diagnose on real recordings: each workload makes one stall
 * pattern happen here (tests/integration/diagnose_workload.c, and the
 * lazy-binding and evicted-page workloads of the stack and fault tests),
 * faultline records it, and diagnose must name that pattern and that
 * thread (and, for lazy binding, the function being bound).  Healthy
 * workloads (an idle thread, a busy loop) must give no finding of their
 * own making.  No timing is asserted: the workloads force each case
 * (SCHED_FIFO threads pinned beside the victim), so a loaded machine
 * only adds stalls of other causes, which the checks ignore.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "run.h"

static const char *build_bin(const char *name)
{
	static char path[4][512];
	static int next;
	const char *build = getenv("BUILD");
	char *p = path[next++ % 4];

	snprintf(p, 512, "%s/tests/%s", build ? build : "build/release", name);
	return p;
}

/* Records argv (a workload and its arguments) with faultline's options
 * fl (NULL-terminated) into db. */
static void record(const char *db, char *const fl[], char *const argv[])
{
	char *full[48];
	struct run r;
	int n = 0;

	unlink(db);
	full[n++] = (char *)faultline_bin();
	full[n++] = "record";
	full[n++] = "-q";
	full[n++] = "-o";
	full[n++] = (char *)db;
	for (int i = 0; fl && fl[i]; i++)
		full[n++] = fl[i];
	full[n++] = "--";
	for (int i = 0; argv[i]; i++)
		full[n++] = argv[i];
	full[n] = NULL;
	if (run_argv(&r, full) != 0)
		fail_msg("faultline record exited %d: %s", r.status, r.err);
}

/* faultline diagnose DB --format json [extra...]: all its stdout (a
 * loaded machine adds findings of its own), static. */
static const char *diagnose_json2(const char *db, const char *extra,
				  const char *extra2)
{
	static char out[1 << 20];
	struct run r;

	if (run_faultline(&r, "diagnose", db, "--format", "json", extra, extra2,
			  NULL) != 0)
		fail_msg("faultline diagnose exited %d: %s", r.status, r.err);
	assert_string_equal(r.err, "");
	slurp(r.outpath, out, sizeof(out));
	return out;
}

static const char *diagnose_json(const char *db, const char *extra)
{
	return diagnose_json2(db, extra, NULL);
}

/*
 * Does json hold a finding of pattern for thread tid whose text holds
 * want (NULL: anything)?  Findings are the objects that begin with
 * {"pattern":.
 */
static int has_finding(const char *json, const char *pattern, long long tid,
		       const char *want)
{
	char head[128], tidkey[48];
	const char *p = json;

	snprintf(head, sizeof(head), "{\"pattern\":\"%s\"", pattern);
	snprintf(tidkey, sizeof(tidkey), "\"tid\":%lld,", tid);
	while ((p = strstr(p, head))) {
		const char *end = strstr(p + 1, "{\"pattern\":");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char obj[8192];

		snprintf(obj, sizeof(obj), "%.*s", (int)(len < sizeof(obj) ? len :
							sizeof(obj) - 1), p);
		if (strstr(obj, tidkey) && (!want || strstr(obj, want)))
			return 1;
		p += len;
	}
	return 0;
}

static void a_busier_thread_pinned_beside_it_is_named_as_preemption(void **state)
{
	const char *db = scratch_path("preempt.db"), *info = scratch_path("preempt.info");
	char *wl[] = { (char *)build_bin("diagnose_workload"), "--preempt", "--info",
		       (char *)info, NULL };
	char cause[64], tid[32];
	const char *json;
	sqlite3 *h = NULL;

	(void)state;
	record(db, NULL, wl);
	/* One finding for the victim, its preemptors ranked in the detail
	 * ("diagnose_worklo (4243) 80.361 ms, ..."): the busier thread is
	 * among the first named. */
	snprintf(cause, sizeof(cause), " (%lld) ", info_get(info, "culprit"));
	snprintf(tid, sizeof(tid), "%lld", info_get(info, "victim"));
	json = diagnose_json(db, NULL);
	if (!has_finding(json, "preemption", info_get(info, "victim"), cause))
		fail_msg("no preemption of %lld by %s in:\n%s",
			 info_get(info, "victim"), cause, json);
	/* thread_state_reason names the preempting thread, and diagnose
	 * counts the victim's time off the CPU by reason. */
	assert_true(db_int(db, "SELECT count(*) FROM thread_state_reason WHERE"
			   " tid = %lld AND reason = 'preempted' AND by_tid = %lld"
			   " AND by_recorder = 0", info_get(info, "victim"),
			   info_get(info, "culprit")) > 0);
	assert_non_null(strstr(json, "\"threads\":[{"));
	assert_non_null(strstr(json, "{\"reason\":\"preempted\",\"by_recorder\":false,"));
	/* --tid keeps that thread's findings only. */
	json = diagnose_json(db, "--tid=1");
	assert_non_null(strstr(json, "\"findings\":[]"));
	/* A file of an older faultline, without the views: diagnose makes
	 * them for itself and writes nothing. */
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "DROP VIEW thread_state_reason;"
				      " DROP VIEW thread_state_waker;"
				      " DROP VIEW frame_wait_class", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(h);
	json = diagnose_json(db, NULL);
	assert_true(has_finding(json, "preemption", info_get(info, "victim"), cause));
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master WHERE"
				" name = 'thread_state_reason'"), 0);
}

static void a_wakeup_left_waiting_behind_a_spinning_thread_is_slow(void **state)
{
	const char *db = scratch_path("wakeup.db"), *info = scratch_path("wakeup.info");
	char *wl[] = { (char *)build_bin("diagnose_workload"), "--wakeup", "--info",
		       (char *)info, NULL };
	const char *json = NULL;

	(void)state;
	/* A wake-up lands in a spin most of the time, not always: on a
	 * machine busy with other work the victim's waits can all read as
	 * preemption by that work instead.  A few recordings, at most. */
	for (int attempt = 0; attempt < 3; attempt++) {
		record(db, NULL, wl);
		json = diagnose_json(db, NULL);
		assert_non_null(strstr(json, "\"no_wakers\":false"));
		assert_non_null(strstr(json, "\"no_wake_stacks\":false"));
		if (has_finding(json, "slow-wakeup", info_get(info, "victim"), NULL))
			return;
	}
	fail_msg("no slow wake-up of %lld in 3 recordings; the last:\n%s",
		 info_get(info, "victim"), json);
}

/* diagnose's text output on db holds note. */
static void assert_text_notes(const char *db, const char *note)
{
	char text[1 << 16];
	struct run r;

	if (run_faultline(&r, "diagnose", db, NULL) != 0)
		fail_msg("faultline diagnose exited %d: %s", r.status, r.err);
	slurp(r.outpath, text, sizeof(text));
	if (!strstr(text, note))
		fail_msg("no note '%s' in diagnose's text:\n%s", note, text);
}

/* The same workload recorded with --no-wakers: no wake-up, so no slow
 * one, and both outputs say why before any finding. */
static void without_wakers_diagnose_says_no_slow_wakeup_is_found(void **state)
{
	const char *db = scratch_path("nowakers.db"), *info = scratch_path("nowakers.info");
	char *wl[] = { (char *)build_bin("diagnose_workload"), "--wakeup", "--info",
		       (char *)info, NULL };
	char *fl[] = { "--no-wakers", NULL };
	const char *json;

	(void)state;
	record(db, fl, wl);
	json = diagnose_json(db, NULL);
	assert_non_null(strstr(json, "\"no_wakers\":true"));
	assert_false(has_finding(json, "slow-wakeup", info_get(info, "victim"), NULL));
	assert_text_notes(db, "recorded with --no-wakers: ");
}

/* The same workload recorded with --no-wake-stacks: the wakers are
 * there (a slow wake-up can still be found), what issued them is not,
 * and both outputs say so. */
static void without_wake_stacks_diagnose_says_what_is_not_named(void **state)
{
	const char *db = scratch_path("nowakestacks.db");
	char *wl[] = { (char *)build_bin("diagnose_workload"), "--wakeup", NULL };
	char *fl[] = { "--no-wake-stacks", NULL };
	const char *json;

	(void)state;
	record(db, fl, wl);
	json = diagnose_json(db, NULL);
	assert_non_null(strstr(json, "\"no_wakers\":false"));
	assert_non_null(strstr(json, "\"no_wake_stacks\":true"));
	assert_text_notes(db, "recorded with --no-wake-stacks: ");
}

/*
 * A wait of each kind, recorded with a stack at every switch out (a
 * futex wait and a nanosleep are sleeps, not blocking): the reason read
 * from each stack, and the waker of the futex wait.  The workload repeats
 * each wait, so one that did not happen as planned on a loaded machine
 * leaves others.  A read need not block at all: a host that answers
 * before its thread sleeps (seen here for all but one of the 16 reads
 * of a recording, the kernel's context switches agreeing) leaves no disk
 * wait, hence a few recordings, at most, for one.
 */
static void each_wait_gets_the_reason_its_stack_shows(void **state)
{
	const char *db = scratch_path("waits.db"), *info = scratch_path("waits.info");
	const char *file = scratch_path("waits.dat");
	char *fl[] = { "--stacks=fp", "--stacks-on=switches", NULL };
	char *wl[] = { (char *)build_bin("diagnose_workload"), "--waits", "--file",
		       (char *)file, "--info", (char *)info, NULL };
	long long victim, culprit;
	int64_t disk;

	(void)state;
	for (int attempt = 1; attempt <= 3; attempt++) {
		record(db, fl, wl);
		victim = info_get(info, "victim");
		culprit = info_get(info, "culprit");
		if (db_int(db, "SELECT count(*) FROM thread_state_reason WHERE tid ="
			   " %lld AND reason = 'futex' AND state = 'sleeping' AND"
			   " by_tid = %lld AND detail GLOB '*futex*'", victim,
			   culprit) == 0)
			fail_msg("no futex wait of %lld woken by %lld", victim, culprit);
		if (db_int(db, "SELECT count(*) FROM thread_state_reason WHERE tid ="
			   " %lld AND reason = 'timer' AND state = 'sleeping'",
			   culprit) == 0)
			fail_msg("no timer sleep of %lld", culprit);
		/* Every interval off the CPU has a reason, and only those. */
		assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state_reason"),
				 db_int(db, "SELECT count(*) FROM thread_state WHERE"
					" state != 'running'"));
		assert_int_equal(db_int(db, "SELECT count(*) FROM thread_state_reason"
					" WHERE reason IS NULL"), 0);
		disk = db_int(db, "SELECT count(*) FROM thread_state_reason WHERE"
			      " tid = %lld AND reason = 'disk' AND state ="
			      " 'blocked'", victim);
		assert_true(disk >= 0);
		if (disk > 0)
			return;
		print_message("recording %d: no read of %lld blocked\n", attempt,
			      victim);
	}
	skip_msg("in 3 recordings the disk answered each read before its "
		 "thread slept");
}

static void lazy_binding_names_the_thread_and_the_function_being_bound(void **state)
{
	const char *db = scratch_path("lazy.db"), *info = scratch_path("lazy.info");
	char *fl[] = { "--stacks=dwarf", NULL };
	char *wl[] = { (char *)build_bin("stack_workload_fp"), "--lazy", "--info",
		       (char *)info, NULL };
	const char *json;

	(void)state;
	record(db, fl, wl);
	json = diagnose_json(db, NULL);
	if (!has_finding(json, "lazy-binding", info_get(info, "tid"),
			 "\"detail\":\"lazy_late_target\""))
		fail_msg("no lazy binding of lazy_late_target by %lld in:\n%s",
			 info_get(info, "tid"), json);
	assert_non_null(strstr(json, "call lazy_late_target once at start-up"));
}

static void a_major_fault_on_an_evicted_file_page_names_the_file(void **state)
{
	const char *db = scratch_path("evict.db"), *info = scratch_path("evict.info");
	const char *page = scratch_path("evict.dat");
	char *wl[] = { (char *)workload_bin(), "--major-file", (char *)page,
		       "--info", (char *)info, NULL };
	char cause[300];
	const char *json;

	(void)state;
	record(db, NULL, wl);
	snprintf(cause, sizeof(cause), "\"cause\":\"%s\"", page);
	/* A major fault can end before its thread sleeps (DESIGN.md): any
	 * length counts here. */
	json = diagnose_json(db, "--min-fault=0");
	if (!has_finding(json, "file-evicted", info_get(info, "tid"), cause))
		fail_msg("no evicted page of %s for %lld in:\n%s", page,
			 info_get(info, "tid"), json);
}

/*
 * A page the disk is still reading when its thread touches it: the
 * fault finds it in the page cache (minor) and sleeps until the read
 * ends (sqlite3 scanning a cold file through mmap does this).  Named by
 * its file, without stacks and with them (the wait's kernel stack is a
 * page's I/O, which must not hide it).  A kernel that counts such a
 * fault major, or a disk done before the fault, leaves no case: said.
 */
static void a_fault_on_a_page_still_being_read_names_the_file(void **state)
{
	const char *db = scratch_path("inflight.db"), *info = scratch_path("inflight.info");
	const char *file = scratch_path("inflight.dat");
	char *plain[] = { NULL };
	char *stacked[] = { "--stacks=fp", "--stacks-on=switches", NULL };
	char *const *fls[] = { plain, stacked };
	char *wl[] = { (char *)build_bin("diagnose_workload"), "--in-flight",
		       "--file", (char *)file, "--info", (char *)info, NULL };
	char cause[300];

	(void)state;
	snprintf(cause, sizeof(cause), "\"cause\":\"%s\"", file);
	for (size_t i = 0; i < sizeof(fls) / sizeof(fls[0]); i++) {
		long long victim;
		const char *json;

		record(db, fls[i], wl);
		victim = info_get(info, "victim");
		if (db_int(db, "SELECT count(*) FROM fault_blocked WHERE tid = %lld"
			   " AND kind = 'minor' AND blocked_ns > 0", victim) == 0) {
			printf("skipped: no minor fault of %lld blocked (%lld major"
			       " ones): the kernel or the disk made no page in"
			       " flight\n", victim,
			       (long long)db_int(db, "SELECT count(*) FROM fault"
						 " WHERE tid = %lld AND kind = 'major'",
						 victim));
			skip();
		}
		json = diagnose_json(db, "--min-fault=0");
		if (!has_finding(json, "file-in-flight", victim, cause) ||
		    !has_finding(json, "file-in-flight", victim, ": minor, "))
			fail_msg("no page in flight of %s for %lld (%s) in:\n%s",
				 file, victim, fls[i][0] ? fls[i][0] : "no stacks",
				 json);
	}
}

static void an_idle_thread_is_no_stall(void **state)
{
	const char *db = scratch_path("idle.db"), *info = scratch_path("idle.info");
	char *wl[] = { (char *)build_bin("diagnose_workload"), "--idle", "--info",
		       (char *)info, NULL };
	struct run w, r;
	char pid[32];

	(void)state;
	unlink(info);
	run_start_as(&w, -1, wl);
	for (int i = 0; i < 500 && info_get(info, "victim") <= 0; i++)
		sleep_ms(10);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "-p", pid,
				       "--duration", "500ms", NULL), 0);
	kill(w.pid, SIGKILL);
	run_wait(&w);
	assert_non_null(strstr(diagnose_json(db, NULL), "\"findings\":[]"));
	assert_int_equal(run_faultline(&r, "diagnose", db, NULL), 0);
	assert_non_null(strstr(r.out, "no findings: no stall of a thread that had work"));
}

/* A busy loop alone: whatever the machine's other load does to its
 * waits for a CPU (real preemption, and named as such), no memory
 * pattern fires on the looping thread.  The recording starts at exec,
 * so the start-up may truly major-fault (a library page the last test's
 * memory pressure evicted): findings of other threads are the kernel's,
 * and a major-fault finding is the loop's own only if it had none. */
static void a_busy_loop_alone_gives_no_finding_of_its_own(void **state)
{
	const char *db = scratch_path("busy.db"), *info = scratch_path("busy.info");
	char *wl[] = { (char *)build_bin("diagnose_workload"), "--busy", "--info",
		       (char *)info, NULL };
	const char *json;
	long long victim;
	int64_t majors;

	(void)state;
	unlink(info);
	record(db, NULL, wl);
	victim = info_get(info, "victim");
	assert_true(victim > 0);
	majors = db_int(db, "SELECT count(*) FROM fault WHERE tid = %lld"
			    " AND kind = 'major'", victim);
	json = diagnose_json(db, NULL);
	for (const char *p = "lazy-binding\0reclaim\0numa-balancing\0file-evicted\0"
			     "file-in-flight\0anon-swapped\0"; *p; p += strlen(p) + 1) {
		int by_major = !strncmp(p, "file-", 5) || !strcmp(p, "anon-swapped");

		if (has_finding(json, p, victim, NULL) && !(by_major && majors > 0))
			fail_msg("the busy loop %lld (%lld major faults) gave a %s"
				 " finding:\n%s", victim, (long long)majors, p, json);
	}
}

/*
 * What this machine cannot make happen (one NUMA node, no swap) or not
 * on demand (the recorder preempting a target, reclaim), as rows added
 * to a real recording: each pattern must still be named, for the right
 * thread.  S is the session, T0 a time inside it.
 */
static const char fixture_rows[] =
	"INSERT INTO thread VALUES (S, 900001, 900001, 'numa-t', T0, T0 + 9e8),"
	" (S, 900002, 900001, 'rec-victim', T0, T0 + 9e8),"
	" (S, 900003, 900001, 'reclaimer', T0, T0 + 9e8),"
	" (S, 900004, 900001, 'swapper-t', T0, T0 + 9e8),"
	" (S, 900006, 900001, 'held-victim', T0, T0 + 9e8),"
	" (S, 900008, 900001, 'lock-in-fault', T0, T0 + 9e8),"
	" (S, 900009, 900001, 'page-in-fault', T0, T0 + 9e8),"
	" (S, 900010, 900001, 'shared-writer', T0, T0 + 9e8),"
	" (S, 900011, 900001, 'sync-victim', T0, T0 + 9e8);"
	"INSERT OR IGNORE INTO recorder_thread VALUES (S, 900100, 'faultline');"
	/* Three stacks: NUMA hinting, reclaim under a cgroup's limit, and
	 * a fault waiting for the mmap lock. */
	"INSERT INTO stack VALUES (S, 9001, 900001, 2, 'fp', NULL),"
	" (S, 9002, 900001, 2, 'fp', NULL), (S, 9003, 900001, 2, 'fp', NULL);"
	"INSERT INTO frame VALUES (S, 9001, -1, -100, 1, 0, '[kernel.kallsyms]', NULL, NULL, 'ok'),"
	" (S, 9002, -1, -200, 1, 1, '[kernel.kallsyms]', NULL, NULL, 'ok'),"
	" (S, 9003, -1, -300, 1, 0, '[kernel.kallsyms]', NULL, NULL, 'ok'),"
	" (S, 9004, -1, -400, 1, 1, '[kernel.kallsyms]', NULL, NULL, 'ok'),"
	" (S, 9005, -1, -500, 1, 0, '[kernel.kallsyms]', NULL, NULL, 'ok');"
	"INSERT INTO symbol VALUES (S, 9001, 0, 'migrate_misplaced_folio', 0, 100, NULL, NULL, 0),"
	" (S, 9002, 0, 'do_numa_page', 0, 100, NULL, NULL, 0),"
	" (S, 9003, 0, 'try_to_free_mem_cgroup_pages', 0, 100, NULL, NULL, 0),"
	" (S, 9004, 0, 'handle_mm_fault', 0, 100, NULL, NULL, 0),"
	" (S, 9005, 0, 'rwsem_down_read_slowpath', 0, 100, NULL, NULL, 0);"
	"INSERT INTO stack_frame VALUES (S, 9001, 0, 9001), (S, 9001, 1, 9002),"
	" (S, 9002, 0, 9003), (S, 9002, 1, 9004),"
	" (S, 9003, 0, 9005), (S, 9003, 1, 9004);"
	/* A file mapped where two of the last faults land: minor faults
	 * that blocked, one in the mmap lock (its stack says), one where no
	 * stack says (a page in flight); and a file mapped shared and
	 * writable, where a fault may wait for writeback instead. */
	"INSERT INTO mapping (session_id, ts, pid, tid, start_addr, end_addr,"
	" pgoff, path, prot, flags, source) VALUES"
	" (S, T0, 900001, 900001, 65536, 131072, 0, '/x/data.bin', 1, 2, 'proc'),"
	" (S, T0, 900001, 900001, 131072, 196608, 0, '/x/shared.bin', 3, 1, 'proc');"
	"INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, kind, addr, ip, stack_id)"
	" VALUES (S, T0 + 1e8, 3e6, 900001, 900001, 0, 'minor', 4096, 4096, 9001),"
	" (S, T0 + 2e8, 4e6, 900003, 900001, 0, 'minor', 8192, 4096, 9002),"
	" (S, T0 + 3e8, 5e6, 900004, 900001, 0, 'major', 12288, 4096, NULL),"
	" (S, T0 + 7e8, 5e6, 900008, 900001, 0, 'minor', 69632, 4096, NULL),"
	" (S, T0 + 7e8, 5e6, 900009, 900001, 0, 'minor', 73728, 4096, NULL),"
	" (S, T0 + 7e8, 5e6, 900010, 900001, 0, 'minor', 135168, 4096, NULL);"
	"INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, preempted,"
	" uncertain, next_tid, next_comm) VALUES"
	" (S, 900002, 900001, T0 + 4e8, 3e6, 'runnable', 1, 0, 900100, 'faultline'),"
	" (S, 900002, 900001, T0 + 5e8, 2e6, 'runnable', 0, 0, NULL, NULL),"
	/* Preemptions of 3 ms and 2 ms (stalls) with a 0.2 ms one (none)
	 * between them, each with the thread that ran meanwhile. */
	" (S, 900008, 900001, T0 + 7e8, 1e5, 'running', 0, 0, NULL, NULL),"
	" (S, 900009, 900001, T0 + 7e8, 1e5, 'running', 0, 0, NULL, NULL),"
	" (S, 900010, 900001, T0 + 7e8, 1e5, 'running', 0, 0, NULL, NULL),"
	" (S, 900006, 900001, T0 + 6e8, 1e6, 'running', 0, 0, NULL, NULL),"
	" (S, 900006, 900001, T0 + 601e6, 3e6, 'runnable', 1, 0, 900001, 'numa-t'),"
	" (S, 900006, 900001, T0 + 604e6, 1e6, 'running', 0, 0, NULL, NULL),"
	" (S, 900006, 900001, T0 + 605e6, 2e5, 'runnable', 1, 0, 900003, 'reclaimer'),"
	" (S, 900006, 900001, T0 + 6052e5, 8e5, 'running', 0, 0, NULL, NULL),"
	" (S, 900006, 900001, T0 + 606e6, 2e6, 'runnable', 1, 0, 900001, 'numa-t');"
	"INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, preempted,"
	" uncertain, stack_id) VALUES"
	" (S, 900008, 900001, T0 + 7001e5, 49e5, 'blocked', 0, 0, 9003),"
	" (S, 900009, 900001, T0 + 7001e5, 49e5, 'blocked', 0, 0, NULL),"
	" (S, 900010, 900001, T0 + 7001e5, 49e5, 'blocked', 0, 0, NULL);"
	/* A 10 ms fdatasync that ran 1 ms, was preempted for 6 ms, then
	 * blocked 3 ms: 4 ms of it the call's, 6 ms the CPU's. */
	"INSERT INTO syscall VALUES (S, 900011, 900001, T0 + 8e8, 1e7, 0, 75,"
	" 'fdatasync', 0, 3e6, 5, '/x/wal', '{}', NULL);"
	"INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, preempted,"
	" uncertain, next_tid, next_comm) VALUES"
	" (S, 900011, 900001, T0 + 8e8, 1e6, 'running', 0, 0, NULL, NULL),"
	" (S, 900011, 900001, T0 + 801e6, 6e6, 'runnable', 1, 0, 900001, 'numa-t'),"
	" (S, 900011, 900001, T0 + 807e6, 3e6, 'blocked', 0, 0, NULL, NULL);"
	"INSERT INTO ran_instead VALUES (S, 900006, T0 + 601e6, 0, 900001, 'numa-t', 3e6),"
	" (S, 900011, T0 + 801e6, 0, 900001, 'numa-t', 6e6),"
	" (S, 900006, T0 + 605e6, 0, 900003, 'reclaimer', 2e5),"
	" (S, 900006, T0 + 606e6, 0, 900001, 'numa-t', 2e6);";

static void what_the_machine_cannot_make_is_named_from_its_rows(void **state)
{
	const char *db = scratch_path("fixture.db"), *info = scratch_path("fx.info");
	char *wl[] = { (char *)build_bin("diagnose_workload"), "--busy", "--ms", "50",
		       "--info", (char *)info, NULL };
	char sql[4 * sizeof(fixture_rows)], *p, *err = NULL;
	const char *json;
	sqlite3 *h = NULL;
	long long s, t0;

	(void)state;
	record(db, NULL, wl);
	s = db_int(db, "SELECT max(session_id) FROM session");
	t0 = db_int(db, "SELECT start_ts FROM session WHERE session_id = %lld", s);
	/* S and T0 into the rows. */
	sql[0] = 0;
	for (const char *q = fixture_rows; *q; q++) {
		char v[32];

		p = sql + strlen(sql);
		if (*q == 'S' && q[1] == ',' ) {
			snprintf(v, sizeof(v), "%lld", s);
			strcat(sql, v);
		} else if (*q == 'T' && q[1] == '0') {
			snprintf(v, sizeof(v), "%lld", t0);
			strcat(sql, v);
			q++;
		} else {
			p[0] = *q;
			p[1] = 0;
		}
	}
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	if (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("fixture rows: %s", err);
	sqlite3_close(h);
	json = diagnose_json(db, "--tid=900001,900002,900003,900004");
	assert_true(has_finding(json, "numa-balancing", 900001, NULL));
	assert_true(has_finding(json, "recorder", 900002, "\"detail\":\"60.0% of its 5.000 ms"));
	/* Its time off the CPU shows the recorder's part apart. */
	assert_non_null(strstr(json, "{\"tid\":900002,\"comm\":\"rec-victim\","
			       "\"off_cpu_ns\":5000000,\"reasons\":[{\"reason\":"
			       "\"preempted\",\"by_recorder\":true,\"ns\":3000000,"));
	assert_true(has_finding(json, "reclaim", 900003, "\"cause\":\"reclaim\""));
	assert_true(has_finding(json, "anon-swapped", 900004, NULL));
	/* The recorder's stall is not counted again as preemption. */
	assert_false(has_finding(json, "preemption", 900002, NULL));
	/* A minor fault's wait is a page in flight unless its stack names
	 * another (here the mmap lock) or the file is mapped shared and
	 * writable: those are left to blocked. */
	json = diagnose_json(db, "--tid=900008,900009,900010");
	if (!has_finding(json, "file-in-flight", 900009, "\"cause\":\"/x/data.bin\"") ||
	    has_finding(json, "file-in-flight", 900008, NULL) ||
	    !has_finding(json, "blocked", 900008, NULL) ||
	    has_finding(json, "file-in-flight", 900010, NULL) ||
	    !has_finding(json, "blocked", 900010, NULL))
		fail_msg("a lock's or a writer's wait in a fault taken as a"
			 " page's, or the page's not named, in:\n%s", json);
	/* A call's wait for a CPU inside it is the CPU's: the fsync lost
	 * what was left, and the preemption is a finding of its own. */
	json = diagnose_json(db, "--tid=900011");
	if (!has_finding(json, "fsync", 900011, "\"lost_ns\":4000000,") ||
	    !has_finding(json, "fsync", 900011, "6.000 ms of it waiting for a CPU") ||
	    !has_finding(json, "preemption", 900011, "\"lost_ns\":6000000,"))
		fail_msg("a wait for a CPU inside a call counted as the call's,"
			 " in:\n%s", json);
	/* What held the CPU is told for the finding's stalls only: not for
	 * the wait under --min-duration between them. */
	json = diagnose_json(db, "--tid=900006");
	if (!has_finding(json, "preemption", 900006,
			 "\"detail\":\"numa-t (900001) 5.000 ms\""))
		fail_msg("not only the stall's holder in:\n%s", json);

	/* A 0.3 ms preemption on CPU 5, under --min-duration: a finding only
	 * where CPU 5 is isolated, named with --isolated or, without it, by
	 * the machine's isolcpus when it recorded. */
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO thread VALUES (%lld, 900005, 900001, 'iso-victim', %lld, %lld);"
		 "INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, cpu,"
		 " preempted, uncertain, next_tid, next_comm) VALUES"
		 " (%lld, 900005, 900001, %lld, 2e6, 'running', 5, 0, 0, NULL, NULL),"
		 " (%lld, 900005, 900001, %lld, 3e5, 'runnable', NULL, 1, 0, 900001, 'numa-t');"
		 "INSERT OR REPLACE INTO session_env VALUES (%lld, 'cpu.isolated', '');",
		 s, t0, t0 + 900000000ll, s, t0 + 600000000ll, s, t0 + 602000000ll, s);
	if (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("isolated rows: %s", err);
	json = diagnose_json(db, "--tid=900005");
	assert_false(has_finding(json, "preemption", 900005, NULL));
	assert_non_null(strstr(json, "\"isolated_recorded\":null"));
	json = diagnose_json2(db, "--tid=900005", "--isolated=5");
	assert_true(has_finding(json, "preemption", 900005, NULL));
	snprintf(sql, sizeof(sql), "UPDATE session_env SET value = '4-5' WHERE "
		 "session_id = %lld AND key = 'cpu.isolated'", s);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	json = diagnose_json(db, "--tid=900005");
	assert_true(has_finding(json, "preemption", 900005, NULL));
	assert_non_null(strstr(json, "\"isolated_recorded\":\"4-5\""));
	/* Named CPUs win over the recorded ones. */
	json = diagnose_json2(db, "--tid=900005", "--isolated=7");
	assert_false(has_finding(json, "preemption", 900005, NULL));
}

/*
 * Time no pattern explains is said, never left out: rows added to a real
 * recording for a thread of their own.  A 3 ms minor fault without a
 * stack is no pattern's; a 2 ms blocked interval is the blocked
 * pattern's, and a 4 ms minor fault around it is held by that finding;
 * a 1 ms fault of 10 us is under --min-fault.  So one stall of 3 ms is
 * not named, in the JSON and in the text.  And a blocked interval in a
 * system call no other pattern takes is named by the call.
 */
static void a_stall_no_pattern_names_is_counted_and_said(void **state)
{
	const char *db = scratch_path("unnamed.db"), *info = scratch_path("un.info");
	char *wl[] = { (char *)build_bin("diagnose_workload"), "--busy", "--ms", "50",
		       "--info", (char *)info, NULL };
	char sql[2048], *err = NULL;
	const char *json;
	sqlite3 *h = NULL;
	long long s, t0;
	struct run r;

	(void)state;
	record(db, NULL, wl);
	s = db_int(db, "SELECT max(session_id) FROM session");
	t0 = db_int(db, "SELECT start_ts FROM session WHERE session_id = %lld", s);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO thread VALUES (%lld, 900007, 900007, 'unnamed-t', %lld, %lld);"
		 "INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, kind, addr, ip)"
		 " VALUES (%lld, %lld, 3e6, 900007, 900007, 0, 'minor', 4096, 4096),"
		 " (%lld, %lld, 4e6, 900007, 900007, 0, 'minor', 8192, 4096),"
		 " (%lld, %lld, 1e4, 900007, 900007, 0, 'minor', 12288, 4096);"
		 "INSERT INTO thread_state (session_id, tid, pid, ts, dur, state,"
		 " preempted, uncertain) VALUES"
		 " (%lld, 900007, 900007, %lld, 2e6, 'blocked', 0, 0);",
		 s, t0, t0 + 900000000ll,
		 s, t0 + 100000000ll, s, t0 + 200000000ll, s, t0 + 300000000ll,
		 s, t0 + 201000000ll);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	if (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("rows: %s", err);
	sqlite3_close(h);
	json = diagnose_json(db, "--tid=900007");
	assert_true(has_finding(json, "blocked", 900007, NULL));
	if (!strstr(json, "\"unnamed_stalls\":1,\"unnamed_ns\":3000000,"))
		fail_msg("not one unnamed stall of 3 ms in:\n%s", json);
	assert_int_equal(run_faultline(&r, "diagnose", db, "--tid=900007", NULL), 0);
	assert_non_null(strstr(r.out, "not named: 1 stall (3.000 ms) that no "
			       "pattern explains"));

	/* A blocked interval inside a call no pattern above takes (record
	 * --syscalls) is named by the call. */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO thread VALUES (%lld, 900008, 900008, 'getdents-t', %lld, %lld);"
		 "INSERT INTO syscall (session_id, tid, pid, ts, dur, cpu, nr, name,"
		 " blocked_ns, fd, fd_name, args) VALUES (%lld, 900008, 900008, %lld, 4e6,"
		 " 0, 217, 'getdents64', 2e6, 3, '/x/dir', 'fd=3');"
		 "INSERT INTO thread_state (session_id, tid, pid, ts, dur, state,"
		 " preempted, uncertain) VALUES"
		 " (%lld, 900008, 900008, %lld, 2e6, 'blocked', 0, 0);",
		 s, t0, t0 + 900000000ll, s, t0 + 400000000ll, s, t0 + 401000000ll);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	if (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("rows: %s", err);
	sqlite3_close(h);
	json = diagnose_json(db, "--tid=900008");
	if (!has_finding(json, "blocked", 900008, "\"cause\":\"in getdents64\"") ||
	    !has_finding(json, "blocked", 900008, ", in getdents64 of /x/dir"))
		fail_msg("no blocked finding in getdents64 of /x/dir in:\n%s", json);
}

/*
 * Major faults on 30 files, each in a directory of its own under one
 * (as git's loose objects are): one finding for the directory, not 30.
 */
static void many_cold_files_under_one_directory_are_one_finding(void **state)
{
	const char *db = scratch_path("objs.db"), *top = scratch_path("objs");
	char path[512], script[1024], needle[600];
	struct run r;

	(void)state;
	assert_int_equal(mkdir(top, 0755), 0);
	for (int i = 0; i < 30; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%02x", top, i);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/%02x/obj", top, i);
		assert_non_null(f = fopen(path, "w"));
		for (int k = 0; k < 8192; k++)
			fputc(k * 7 + i, f);
		assert_int_equal(fclose(f), 0);
		if (file_evict(path) > 0)
			skip_msg("the page cache kept %s after POSIX_FADV_DONTNEED", path);
	}
	snprintf(script, sizeof(script), "import mmap, glob\n"
		 "for f in sorted(glob.glob('%s/*/obj')):\n"
		 "    with open(f, 'rb') as fh:\n"
		 "        m = mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ)\n"
		 "        m[0]\n"
		 "        m.close()\n", top);
	if (run_faultline(&r, "record", "-q", "-o", db, "--", "/usr/bin/python3",
			  "-c", script, NULL) != 0)
		fail_msg("record failed: %s", r.err);
	assert_int_equal(run_faultline(&r, "diagnose", db, "--min-fault", "1ns",
				       NULL), 0);
	snprintf(needle, sizeof(needle), "cause:     %s/ (30 files)", top);
	if (!strstr(r.out, needle))
		fail_msg("no one finding for %s:\n%s", top, r.out);
	snprintf(needle, sizeof(needle), "cause:     %s/00/obj", top);
	if (strstr(r.out, needle))
		fail_msg("a file of %s has a finding of its own:\n%s", top, r.out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(many_cold_files_under_one_directory_are_one_finding, kill_leftovers),
		cmocka_unit_test_teardown(a_busier_thread_pinned_beside_it_is_named_as_preemption, kill_leftovers),
		cmocka_unit_test_teardown(a_wakeup_left_waiting_behind_a_spinning_thread_is_slow, kill_leftovers),
		cmocka_unit_test_teardown(without_wakers_diagnose_says_no_slow_wakeup_is_found, kill_leftovers),
		cmocka_unit_test_teardown(without_wake_stacks_diagnose_says_what_is_not_named, kill_leftovers),
		cmocka_unit_test_teardown(each_wait_gets_the_reason_its_stack_shows, kill_leftovers),
		cmocka_unit_test_teardown(lazy_binding_names_the_thread_and_the_function_being_bound, kill_leftovers),
		cmocka_unit_test_teardown(a_major_fault_on_an_evicted_file_page_names_the_file, kill_leftovers),
		cmocka_unit_test_teardown(a_fault_on_a_page_still_being_read_names_the_file, kill_leftovers),
		cmocka_unit_test_teardown(an_idle_thread_is_no_stall, kill_leftovers),
		cmocka_unit_test_teardown(a_busy_loop_alone_gives_no_finding_of_its_own, kill_leftovers),
		cmocka_unit_test_teardown(what_the_machine_cannot_make_is_named_from_its_rows, kill_leftovers),
		cmocka_unit_test_teardown(a_stall_no_pattern_names_is_counted_and_said, kill_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
