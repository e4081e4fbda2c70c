/*
 * A recorder killed outright (SIGKILL, the OOM killer) at a random
 * moment: the next faultline that opens the file finds the session
 * killed, says so with what may be missing, and marks it, with the
 * indexes it never got; and a session never says complete or stopped
 * without them.  How far the newest stored fault lies before the kill is
 * printed for each trial ("kill: ..." lines), and its largest over the
 * trials of each kind: the loss a SIGKILL costs, measured, not asserted
 * (it is time on a shared machine).
 *
 * FAULTLINE_KILL_SEED fixes the random moments (each run prints its
 * seed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "run.h"

#define TRIALS_EACH 7		/* idle, storm; and 6 killed while ending */
#define ENDING_TRIALS 6
#define MOMENT_MAX_MS 2500	/* kill at a random moment up to this */

static unsigned seed;

static long long realtime_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* The indexes indexes.sql makes on every recording's tables. */
static int indexes_made(const char *db)
{
	return (int)db_int(db, "SELECT count(*) FROM sqlite_master WHERE type = "
			   "'index' AND name IN ('fault_by_ts', 'fault_by_tid', "
			   "'thread_state_by_tid', 'pt_gap_by_trace')");
}

struct trial {
	const char *kind;	/* "idle", "storm" or "ending" */
	long moment_ms;
	double lag_ms;		/* kill time less the newest stored fault */
	int faults;
};

/* Starts the workload (mode: --trickle or --storm, until killed) and
 * faultline recording it into db; kills faultline at t->moment_ms, by
 * SIGTERM then SIGKILL for "ending"; returns with both reaped. */
static void record_and_kill(struct trial *t, const char *db, struct run *fl,
			    struct run *wl)
{
	char pid[16];
	char *wl_argv[] = { (char *)workload_bin(),
			    !strcmp(t->kind, "idle") ? "--trickle" : "--storm",
			    "0", NULL };
	char *fl_argv[] = { (char *)faultline_bin(), "record", "-q", "-o",
			    (char *)db, "-p", pid, NULL };
	long long killed_at;

	run_start_as(wl, -1, wl_argv);
	snprintf(pid, sizeof(pid), "%d", (int)wl->pid);
	if (start_recording(fl, fl_argv, 30000) != 0)
		fail_msg("faultline did not start recording: %s", fl->err);
	sleep_ms(t->moment_ms);
	if (!strcmp(t->kind, "ending")) {
		/* While it ends: the rings drained, rows finished, indexes. */
		kill(fl->pid, SIGTERM);
		sleep_ms(t->moment_ms % 400);
	}
	kill(fl->pid, SIGKILL);
	killed_at = realtime_now_ns();
	run_wait(fl);
	kill(wl->pid, SIGKILL);
	run_wait(wl);
	t->faults = (int)db_int(db, "SELECT count(*) FROM fault WHERE pid = %d",
				(int)wl->pid);
	t->lag_ms = t->faults ? (double)(killed_at - db_int(db, "SELECT max(ts) FROM "
				 "fault WHERE pid = %d", (int)wl->pid)) / 1e6 : -1;
}

/* What every trial must show, whichever moment the kill took. */
static void check_trial(struct trial *t, const char *db, pid_t recorder)
{
	char want[200];
	struct run r;
	int reported = 0;
	int64_t status_recording = db_int(db, "SELECT count(*) FROM session WHERE "
					  "status = 'recording'");

	/* Killed while leaving WAL mode at its end, the recorder leaves a
	 * hot rollback journal, which a read-only open cannot roll back:
	 * the first faultline that opens the file does, as any opener would. */
	if (status_recording == INT64_MIN) {
		assert_int_equal(run_faultline(&r, "report", db, NULL), 0);
		reported = 1;
		status_recording = db_int(db, "SELECT count(*) FROM session WHERE "
					  "status = 'recording'");
		assert_true(status_recording >= 0);
	}

	/* Ended in time, it is complete with every index; killed first, it
	 * still says recording, never complete. */
	if (!status_recording) {
		assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE "
					"status = 'stopped'"), 1);
		assert_string_equal(t->kind, "ending");
		assert_int_equal(indexes_made(db), 4);
		return;
	}
	if (!reported)
		assert_int_equal(run_faultline(&r, "report", db, NULL), 0);
	snprintf(want, sizeof(want), "faultline report: warning: session 1 was "
		 "killed while recording (recorder pid %d gone); its last ",
		 (int)recorder);
	if (!strstr(r.err, want))
		fail_msg("expected '%s', got: %s", want, r.err);
	assert_non_null(strstr(r.err, " s may be missing\n"));
	/* Marked, once, by the reader: a second read says nothing. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE status = "
				"'killed' AND end_reason = 'killed' AND error LIKE "
				"'killed while recording (recorder pid %d gone); its "
				"last %% s may be missing'", (int)recorder), 1);
	assert_int_equal(indexes_made(db), 4);
	assert_int_equal(db_int(db, "SELECT count(*) FROM pragma_integrity_check "
				"WHERE integrity_check = 'ok'"), 1);
	assert_int_equal(run_faultline(&r, "report", db, NULL), 0);
	assert_null(strstr(r.err, "was killed"));
	assert_non_null(strstr(r.out, "status        killed"));
	/* The file stands alone again: its marker ended the write. */
	assert_true(db_opens(db));
	(void)t;
}

static void print_trial(const struct trial *t, int i)
{
	if (t->faults)
		printf("kill: trial %2d %-6s at %4ld ms: %6d faults stored, the "
		       "newest %7.1f ms before the kill\n", i, t->kind, t->moment_ms,
		       t->faults, t->lag_ms);
	else
		printf("kill: trial %2d %-6s at %4ld ms: no fault stored\n", i,
		       t->kind, t->moment_ms);
}

static void run_trials(const char *kind, int n)
{
	double worst = -1;

	for (int i = 0; i < n; i++) {
		struct trial t = { kind, (long)(rand_r(&seed) % MOMENT_MAX_MS), 0, 0 };
		char name[64];
		const char *db;
		struct run fl, wl;

		snprintf(name, sizeof(name), "kill-%s-%d.db", kind, i);
		db = scratch_path(name);
		record_and_kill(&t, db, &fl, &wl);
		print_trial(&t, i);
		check_trial(&t, db, fl.pid);
		if (t.faults && t.lag_ms > worst && strcmp(kind, "ending"))
			worst = t.lag_ms;
	}
	if (worst >= 0)
		printf("kill: %s: the newest stored fault at most %.1f ms before "
		       "the kill, over %d trials\n", kind, worst, n);
}

/* One fresh page every 10 ms: the recorder keeps up. */
static void a_recorder_killed_while_idle_is_found_killed(void **state)
{
	(void)state;
	run_trials("idle", TRIALS_EACH);
}

/* Faults and switches without a pause: the engine may fall behind. */
static void a_recorder_killed_in_a_storm_is_found_killed(void **state)
{
	(void)state;
	run_trials("storm", TRIALS_EACH);
}

/* Killed while it ends (after SIGTERM: draining, storing, indexing):
 * stopped with every index, or found killed; never stopped without. */
static void a_recorder_killed_while_ending_is_never_called_stopped(void **state)
{
	(void)state;
	run_trials("ending", ENDING_TRIALS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_recorder_killed_while_idle_is_found_killed, kill_leftovers),
		cmocka_unit_test_teardown(a_recorder_killed_in_a_storm_is_found_killed, kill_leftovers),
		cmocka_unit_test_teardown(a_recorder_killed_while_ending_is_never_called_stopped, kill_leftovers),
	};
	const char *s = getenv("FAULTLINE_KILL_SEED");

	seed = s ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL);
	printf("kill: FAULTLINE_KILL_SEED=%u\n", seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
