/*
 * The one label model (common/labels.h, faultline(1) LABELS): the same
 * label text is accepted or refused the same way by record --label,
 * faultline label, import --label, runs --label, export --label and
 * query label= (its key), and stored as the same JSON text by record,
 * label and import.  A file of an older version, with a session's keys
 * in the order given and a series' integer-looking values as numbers,
 * still reads: queries, runs, compare and label take it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../integration/run.h"

static const char *db;		/* one recorded session, from make_db */
static const char *points;	/* a plain metric file inside that session */

static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *h = NULL;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	if (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	sqlite3_close(h);
}

static int make_db(void **state)
{
	long long t0;
	char text[64];
	FILE *f;
	struct run r;

	(void)state;
	db = strdup(scratch_path("labels.db"));
	if (run_faultline(&r, "record", "-q", "-o", db, "--", "/bin/true", NULL) != 0)
		fail_msg("record: %s", r.err);
	t0 = atoll(db_text(db, text, sizeof(text),
			   "SELECT start_ts FROM session WHERE session_id = 1"));
	points = strdup(scratch_path("points.dat"));
	f = fopen(points, "w");
	assert_non_null(f);
	/* microseconds since the epoch, within the session */
	fprintf(f, "%lld 1\n", t0 / 1000 + 1);
	fclose(f);
	return 0;
}

struct label_case {
	const char *text;	/* as the user gives it */
	const char *says;	/* the cause a refusal names; NULL: accepted */
	int key_bad;		/* the KEY itself is refused (query label=) */
};

static const struct label_case cases[] = {
	{ "run=41", NULL, 0 },
	{ "a.b-c_D9=x=y", NULL, 0 },		/* the value holds '=' */
	{ "note=two words ", NULL, 0 },		/* spaces kept */
	{ "who=\xc3\xa9t\xc3\xa9", NULL, 0 },	/* UTF-8 */
	{ "x", "expected KEY=VALUE", 0 },
	{ "=v", "no key; a key is letters, digits", 0 },
	{ "bad key=1", "a key is made of letters, digits, '_', '.' and '-' only", 1 },
	{ "k\"=1", "a key is made of letters, digits, '_', '.' and '-' only", 1 },
	{ "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk=1",
	  "a key is at most 64 bytes", 1 },
	{ "k=", "no value after '='", 0 },
	{ "k=a\tb", "holds a control character or bytes that are not UTF-8", 0 },
	{ "k=\xff", "holds a control character or bytes that are not UTF-8", 0 },
};

/* Exit 2 and one line naming the cause, or exit 0. */
static void expect(const struct run *r, const struct label_case *c,
		   const char *cmd)
{
	if (!c->says) {
		if (r->status != 0)
			fail_msg("%s refused '%s': %s", cmd, c->text, r->err);
		return;
	}
	if (r->status != 2 || !strstr(r->err, c->says))
		fail_msg("%s '%s': exit %d, stderr: %s(want '%s')", cmd, c->text,
			 r->status, r->err, c->says);
	assert_ptr_equal(strchr(r->err, '\n'), r->err + strlen(r->err) - 1);
}

static void a_label_is_accepted_or_refused_alike_everywhere(void **state)
{
	char key[128];
	struct run r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct label_case *c = &cases[i];
		const char *eq = strchr(c->text, '=');

		/* record: a refused label stops it before anything is recorded */
		if (c->says) {
			run_faultline(&r, "record", "-q", "-o", scratch_path("never.db"),
				      "--label", c->text, "--", "/bin/true", NULL);
			expect(&r, c, "record");
		}
		/* "KEY=" is faultline label's "remove KEY": accepted there only */
		run_faultline(&r, "label", db, c->text, NULL);
		if (eq && !eq[1])
			assert_int_equal(r.status, 0);
		else
			expect(&r, c, "label");
		run_faultline(&r, "import", db, points, "-m", "m", "--again",
			      "--label", c->text, NULL);
		expect(&r, c, "import");
		/* the session was just labelled so: runs finds it */
		run_faultline(&r, "runs", db, "--label", c->text, NULL);
		expect(&r, c, "runs");
		run_faultline(&r, "export", db, "--to", "postgresql:///none",
			      "--label", c->text, NULL);
		if (c->says)
			expect(&r, c, "export");
		if (!eq || eq == c->text)
			continue;
		snprintf(key, sizeof(key), "label=%.*s", (int)(eq - c->text), c->text);
		run_faultline(&r, "query", db, "runs", key, NULL);
		if (c->key_bad)
			expect(&r, c, "query");
		else
			assert_int_equal(r.status, 0);
		run_faultline(&r, "compare", db, "1", "1", "--label", key + 6, NULL);
		if (c->key_bad)
			expect(&r, c, "compare");
	}
}

static void record_label_and_import_store_the_same_text(void **state)
{
	static const char want[] = "{\"a\":\"y=z\",\"b\":\"two words\",\"run\":\"42\","
				   "\"who\":\"\xc3\xa9t\xc3\xa9\"}";
	const char *path = scratch_path("stored.db");
	char text[256];
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--label", "run=41",
				       "--label", "who=\xc3\xa9t\xc3\xa9", "--label",
				       "b=two words", "--label", "a=y=z", "--label",
				       "run=42", "--", "/bin/true", NULL), 0);
	assert_string_equal(db_text(path, text, sizeof(text),
				    "SELECT labels FROM session WHERE session_id = 1"), want);
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--", "/bin/true",
				       NULL), 0);
	assert_int_equal(run_faultline(&r, "label", path, "a=y=z", "run=1", "b=two words",
				       "who=\xc3\xa9t\xc3\xa9", "run=42", NULL), 0);
	assert_string_equal(db_text(path, text, sizeof(text),
				    "SELECT labels FROM session WHERE session_id = 2"), want);
	assert_int_equal(run_faultline(&r, "import", path, points, "-m", "m", "--any-time",
				       "--label", "who=\xc3\xa9t\xc3\xa9", "--label", "run=42",
				       "--label", "b=two words", "--label", "a=y=z", NULL), 0);
	assert_string_equal(db_text(path, text, sizeof(text),
				    "SELECT labels FROM metric_series WHERE name = 'm'"), want);
	/* a number is text like any value */
	assert_int_equal(run_faultline(&r, "import", path, points, "-m", "n", "--any-time",
				       "--again", "--label", "port=9000", NULL), 0);
	assert_string_equal(db_text(path, text, sizeof(text),
				    "SELECT labels FROM metric_series WHERE name = 'n'"),
			    "{\"port\":\"9000\"}");
}

/* What versions before the one label model wrote, byte for byte. */
static void an_older_files_label_encodings_still_read(void **state)
{
	const char *path = scratch_path("old.db");
	char text[256];
	struct run r;

	(void)state;
	assert_int_equal(run_faultline(&r, "record", "-q", "-o", path, "--", "/bin/true",
				       NULL), 0);
	exec_sql(path, "UPDATE session SET labels = '{\"run\":\"9\",\"role\":\"gw\"}';"
		 "INSERT INTO metric_series (series_id, session_id, name, labels, unit,"
		 " source, imported_ts) VALUES (77, 1, 'udp_drops', '{\"port\":9000,\"inode\":41,"
		 "\"local\":\"127.0.0.1\",\"proto\":\"udp\"}', 'datagrams',"
		 " 'sampler:/proc/net/udp', 0);"
		 "INSERT INTO metric SELECT 77, start_ts + 1, 3 FROM session");
	assert_int_equal(run_faultline(&r, "query", path, "runs", "label=role", "-f", "csv",
				       NULL), 0);
	assert_non_null(strstr(r.out, ",gw,"));
	assert_non_null(strstr(r.out, "role=gw run=9"));
	assert_int_equal(run_faultline(&r, "runs", path, "--label", "role=gw", "-f", "csv",
				       NULL), 0);
	assert_int_equal(run_faultline(&r, "compare", path, "9", "9", "--label", "run",
				       NULL), 0);
	assert_int_equal(run_faultline(&r, "query", path, "metrics", "-f", "csv", NULL), 0);
	assert_non_null(strstr(r.out, "udp_drops,\"{\"\"port\"\":9000,"));
	/* labelled again, the session's labels take today's form */
	assert_int_equal(run_faultline(&r, "label", path, "build=abc", NULL), 0);
	assert_string_equal(db_text(path, text, sizeof(text), "SELECT labels FROM session"),
			    "{\"build\":\"abc\",\"role\":\"gw\",\"run\":\"9\"}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_label_is_accepted_or_refused_alike_everywhere),
		cmocka_unit_test(record_label_and_import_store_the_same_text),
		cmocka_unit_test(an_older_files_label_encodings_still_read),
	};

	return cmocka_run_group_tests(tests, make_db, NULL);
}
