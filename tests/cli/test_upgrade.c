/*
 * faultline upgrade, and the upgrade a write does: a database of schema 3
 * (tests/fixtures/schema3.sql, written by that faultline) comes to this
 * schema with every row kept, every table and column of a new file, and
 * a uuid for each session; readers refuse it until then and name the
 * command; schemas this build cannot upgrade are refused unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../common/array.h"
#include "../../common/file.h"
#include "../../schema/db.h"
#include "../integration/run.h"

/* A version-4 uuid, spelt so that no "??" reads as a trigraph. */
#define UUID_GLOB "[0-9a-f]*-[0-9a-f]*-4[0-9a-f]*-[89ab][0-9a-f]*-[0-9a-f]*"

static const char *const tables[] = {
	"session", "thread", "fault", "thread_state", "tracepoint_event",
	"fault_histogram", "mapping", "lost", "stack", "stack_frame", "frame",
	"symbol", "metric_series", "metric",
};

/* A schema-3 file at path, from the fixture. */
static void make_v3(const char *path)
{
	char *sql = NULL;
	size_t len;
	struct errmsg e;
	sqlite3 *db = NULL;

	errmsg_init(&e);
	unlink(path);
	assert_int_equal(read_text_file("tests/fixtures/schema3.sql", &sql, &len, &e), 0);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 3", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	free(sql);
}

/* The columns of every table and view, one "table.column type" a line,
 * sorted: what a schema looks like from a query's side. */
static char *columns_of(const char *path)
{
	static char out[65536];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t n = 0;

	out[0] = '\0';
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT m.name || '.' || p.name"
		" || ' ' || p.type FROM sqlite_master m, pragma_table_info(m.name) p"
		" WHERE m.type IN ('table', 'view') ORDER BY 1", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && n + 256 < sizeof(out))
		n += snprintf(out + n, sizeof(out) - n, "%s\n", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

static void readers_refuse_an_old_file_and_name_the_command(void **state)
{
	const char *db = scratch_path("old-read.db");
	struct run r;

	(void)state;
	make_v3(db);
	assert_int_equal(run_faultline(&r, "report", db, NULL), 1);
	assert_non_null(strstr(r.err, "schema 3"));
	assert_non_null(strstr(r.err, "faultline upgrade"));
	/* And wrote nothing: it is still schema 3. */
	assert_int_equal(db_int(db, "PRAGMA user_version"), 3);
}

static void upgrade_keeps_every_row_and_gives_the_new_schema(void **state)
{
	const char *db = scratch_path("old.db");
	const char *fresh = scratch_path("fresh.db");
	long long before[ARRAY_SIZE(tables)];
	char *want;
	struct run r;

	(void)state;
	make_v3(db);
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++)
		before[i] = db_int(db, "SELECT count(*) FROM %s", tables[i]);
	assert_true(before[2] > 0 && before[7] > 0 && before[13] > 0);
	assert_int_equal(run_faultline(&r, "upgrade", db, NULL), 0);
	assert_non_null(strstr(r.out, "from schema 3 to"));
	/* Written before faultline marked its files: marked now. */
	assert_int_equal(db_int(db, "PRAGMA application_id"), FL_APPLICATION_ID);
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++)
		assert_int_equal(db_int(db, "SELECT count(*) FROM %s", tables[i]),
				 before[i]);
	/* Each session a distinct version-4 uuid; labels an empty object. */
	assert_int_equal(db_int(db, "SELECT count(DISTINCT uuid) FROM session WHERE "
				"length(uuid) = 36 AND uuid GLOB '" UUID_GLOB "'"),
			 before[0]);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE labels = '{}'"),
			 before[0]);
	/* The tables, views and columns of a file made new. */
	unlink(fresh);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", fresh, "--", "true",
				       NULL), 0);
	want = strdup(columns_of(fresh));
	assert_string_equal(columns_of(db), want);
	free(want);
	/* lost takes the kinds of this schema, and the file reads. */
	assert_int_equal(db_int(db, "SELECT count(*) FROM pragma_integrity_check "
				"WHERE integrity_check = 'ok'"), 1);
	assert_int_equal(run_faultline(&r, "report", db, "--session", "1", NULL), 0);
	assert_int_equal(run_faultline(&r, "upgrade", db, NULL), 0);
	assert_non_null(strstr(r.out, "nothing to do"));
}

/* A recording into an old file upgrades it first, then adds its session. */
static void recording_into_an_old_file_upgrades_it(void **state)
{
	const char *db = scratch_path("old-rec.db");
	struct run r;

	(void)state;
	make_v3(db);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--", "true",
				       NULL), 0);
	assert_int_equal(db_int(db, "PRAGMA user_version"), SCHEMA_VERSION);
	assert_int_equal(db_int(db, "SELECT count(DISTINCT uuid) FROM session"), 3);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session WHERE "
				"recorder_pid = %d", (int)r.pid), 1);
}

/* Views, tables and indexes a user added to an old file are theirs: an
 * upgrade keeps them, and makes faultline's own views again. */
static void upgrade_keeps_what_a_user_added(void **state)
{
	const char *db = scratch_path("old-user.db");
	sqlite3 *h = NULL;
	struct run r;

	(void)state;
	make_v3(db);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
		"CREATE VIEW my_majors AS SELECT * FROM fault WHERE kind = 'major';"
		"CREATE VIEW my_readable AS SELECT count(*) AS n FROM fault_readable;"
		"CREATE TABLE my_notes (session_id INTEGER, note TEXT);"
		"INSERT INTO my_notes VALUES (1, 'slow run');"
		"CREATE INDEX my_lost_kind ON lost (kind);"
		"CREATE INDEX my_fault_tid ON fault (tid)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_int_equal(run_faultline(&r, "upgrade", db, NULL), 0);
	assert_int_equal(db_int(db, "PRAGMA user_version"), SCHEMA_VERSION);
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master WHERE "
				"name IN ('my_majors', 'my_readable', 'my_notes', "
				"'my_lost_kind', 'my_fault_tid')"), 5);
	assert_int_equal(db_int(db, "SELECT count(*) FROM my_majors"),
			 db_int(db, "SELECT count(*) FROM fault WHERE kind = 'major'"));
	assert_int_equal(db_int(db, "SELECT n FROM my_readable"),
			 db_int(db, "SELECT count(*) FROM fault"));
	assert_int_equal(db_int(db, "SELECT count(*) FROM my_notes"), 1);
	/* faultline's own views are this schema's (schema 3 had no stall). */
	assert_int_equal(db_int(db, "SELECT count(*) FROM sqlite_master WHERE "
				"type = 'view' AND name = 'stall'"), 1);
}

static void schemas_it_cannot_upgrade_are_refused_unchanged(void **state)
{
	const char *db = scratch_path("odd.db");
	static const struct { int version; const char *says; } cases[] = {
		{ 2, "record into a new file" },
		{ SCHEMA_VERSION + 1, "upgrade faultline" },
	};
	struct run r;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char pragma[64];
		sqlite3 *h = NULL;

		make_v3(db);
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d",
			 cases[i].version);
		assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
		assert_int_equal(sqlite3_exec(h, pragma, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(h);
		assert_int_equal(run_faultline(&r, "upgrade", db, NULL), 1);
		assert_non_null(strstr(r.err, cases[i].says));
		assert_int_equal(db_int(db, "PRAGMA user_version"), cases[i].version);
		assert_int_equal(db_int(db, "SELECT count(*) FROM pragma_table_info("
					"'session') WHERE name = 'uuid'"), 0);
	}
	assert_int_equal(run_faultline(&r, "upgrade", scratch_path("none.db"), NULL), 1);
	assert_non_null(strstr(r.err, "no such file"));
	assert_int_equal(access(scratch_path("none.db"), F_OK), -1);
	/* An empty file is not made a faultline database by an upgrade. */
	close(open(scratch_path("empty.db"), O_WRONLY | O_CREAT | O_TRUNC, 0644));
	assert_int_equal(run_faultline(&r, "upgrade", scratch_path("empty.db"), NULL), 1);
	assert_non_null(strstr(r.err, "not a faultline database"));
	assert_int_equal(db_int(scratch_path("empty.db"), "SELECT count(*) FROM "
				"sqlite_master"), 0);
}

/* A file of one recording (of `true`), then sql run on it: a file of an
 * older schema, made from this one. */
static void record_then_alter(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	struct run r;

	unlink(db);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--", "true",
				       NULL), 0);
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
}

/* Schema 8 added session_env: a schema-7 file gains it empty (its
 * sessions' environment was never read), keeps its sessions, and the
 * next recording into it stores its own. */
static void a_schema_7_file_gains_the_environment_table(void **state)
{
	const char *db = scratch_path("v7.db");
	struct run r;

	(void)state;
	record_then_alter(db, "DROP TABLE session_env; PRAGMA user_version = 7");
	assert_int_equal(run_faultline(&r, "upgrade", db, NULL), 0);
	assert_non_null(strstr(r.out, "from schema 7 to " FL_STR(SCHEMA_VERSION)));
	assert_int_equal(db_int(db, "SELECT count(*) FROM session_env"), 0);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", db, "--", "true",
				       NULL), 0);
	assert_int_equal(db_int(db, "SELECT count(*) FROM session"), 2);
	assert_int_equal(db_int(db, "SELECT count(DISTINCT session_id) FROM session_env"
				" WHERE key = 'kernel.release'"), 1);
	assert_int_equal(db_int(db, "SELECT session_id FROM session_env WHERE"
				" key = 'kernel.release'"), 2);
}

/* Schema 9 gave flight_dump the metric that fired it and flight_summary
 * the metric lines' counts: a schema-8 file gains them, NULL in the rows
 * it had. */
static void a_schema_8_file_gains_the_metric_columns(void **state)
{
	const char *db = scratch_path("v8.db");
	struct run r;

	(void)state;
	/* Made again without them (DROP COLUMN stumbles on the comments
	 * that schema.sql leaves before the last ones). */
	record_then_alter(db, "CREATE TABLE d8 AS SELECT session_id,"
			      " trigger, reason, trigger_ts, before_ns, after_ns,"
			      " window_start_ts, window_end_ts, cut_short,"
			      " whole_from_ts, history_bytes, history_peak_bytes,"
			      " history_dropped_records, history_dropped_bytes,"
			      " suppressed, aside_dropped FROM flight_dump;"
			      " CREATE TABLE s8 AS SELECT session_id, triggers,"
			      " dumps, suppressed_pending, suppressed_rate,"
			      " suppressed_disk, max_dumps, period_ns, max_disk,"
			      " disk_bytes FROM flight_summary;"
			      " DROP TABLE flight_dump; DROP TABLE flight_summary;"
			      " ALTER TABLE d8 RENAME TO flight_dump;"
			      " ALTER TABLE s8 RENAME TO flight_summary;"
			      " INSERT INTO flight_summary VALUES (1, 0, 0, 0, 0, 0,"
			      " 10, 3600000000000, NULL, 0);"
			      " PRAGMA user_version = 8");
	assert_int_equal(db_int(db, "SELECT count(*) FROM pragma_table_info("
				"'flight_dump') WHERE name = 'metric'"), 0);
	assert_int_equal(run_faultline(&r, "upgrade", db, NULL), 0);
	assert_non_null(strstr(r.out, "from schema 8 to " FL_STR(SCHEMA_VERSION)));
	assert_int_equal(db_int(db, "SELECT count(*) FROM pragma_table_info("
				"'flight_dump') WHERE name IN ('metric', 'metric_value',"
				" 'metric_threshold')"), 3);
	assert_int_equal(db_int(db, "SELECT count(*) FROM flight_summary WHERE"
				" metric_lines IS NULL AND metric_malformed IS NULL"
				" AND metric_ignored IS NULL AND metric_udp_dropped"
				" IS NULL"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(readers_refuse_an_old_file_and_name_the_command),
		cmocka_unit_test(upgrade_keeps_every_row_and_gives_the_new_schema),
		cmocka_unit_test(recording_into_an_old_file_upgrades_it),
		cmocka_unit_test(upgrade_keeps_what_a_user_added),
		cmocka_unit_test(schemas_it_cannot_upgrade_are_refused_unchanged),
		cmocka_unit_test(a_schema_7_file_gains_the_environment_table),
		cmocka_unit_test(a_schema_8_file_gains_the_metric_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
