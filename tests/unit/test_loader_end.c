/*
 * loader_end on a full disk: the session row still ends ('failed', with
 * its error and its losses), however exactly the disk filled up.  The
 * disk is a 4 MiB tmpfs filled to its last page by another file, so the
 * case is forced, not waited for.  And which indexes a session's begin
 * makes, and which its end.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mount.h>
#include <unistd.h>
#include <cmocka.h>

#include "../integration/run.h"
#include "../../schema/db.h"
#include "../../schema/loader.h"

/* Writes a file in dir until the file system takes no more. */
static void fill_up(const char *dir)
{
	static const char page[4096];
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	while (write(fd, page, sizeof(page)) > 0)
		;
	assert_int_equal(errno, ENOSPC);
	close(fd);
}

/* One fault row, committed alone: each commit writes a WAL frame. */
static int commit_fault(struct loader *l, uint64_t mono, struct errmsg *e)
{
	struct fault f = { .mono_ts = mono, .dur_ns = 1000, .tid = 7,
			   .pid = 7, .kind = FAULT_MINOR, .exit_cpu = 0 };
	int err = loader_fault(l, &f, e);

	return err < 0 ? err : loader_commit(l, e);
}

/* A new session in the file at path, begun by l; the writer's handle. */
static sqlite3 *begin_session(const char *path, struct session_info *si,
			      struct clock_map *map, struct loader *l,
			      struct errmsg *e)
{
	struct clock_step step;
	sqlite3 *db = NULL;

	errmsg_init(e);
	clock_anchor_take(&si->start);
	clock_map_init(map);
	assert_int_equal(clock_map_add(map, &si->start, &step), 0);
	assert_int_equal(db_open_write(path, &db, e), 0);
	if (loader_begin(l, db, path, si, map, e) < 0)
		fail_msg("loader_begin: %s", e->text);
	return db;
}

/* Filled to the page after the session began: the commits that follow
 * find no room (a few may use what the file system had left past the
 * -wal's end), and then the row's end still goes in. */
static void a_disk_full_to_the_page_still_takes_the_rows_end(void **state)
{
	const char *mnt = scratch_path("full");
	struct session_info si = { .host = "testhost", .kernel = "6.18",
				   .command_line = "faultline record",
				   .options = "{}", .version = "test",
				   .cpus = 2 };
	struct session_counts counts = { .records_seen = 5 };
	struct clock_map map;
	struct loader l;
	struct errmsg e, end_e;
	sqlite3 *db;
	char path[300];
	int err = 0, commits;

	(void)state;
	errmsg_init(&end_e);
	mkdir(mnt, 0755);
	if (mount("faultline-test", mnt, "tmpfs", 0, "size=4m") != 0)
		fail_msg("cannot mount a small tmpfs at %s: %s", mnt,
			 strerror(errno));
	snprintf(path, sizeof(path), "%s/full.db", mnt);
	db = begin_session(path, &si, &map, &l, &e);

	fill_up(mnt);
	for (commits = 0; commits < 1000 && err == 0; commits++)
		err = commit_fault(&l, si.start.mono_ns + commits, &e);
	assert_int_equal(err, -ENOSPC);
	assert_non_null(strstr(e.text, "disk full writing"));

	err = loader_end(&l, &si.start, &counts, &(struct session_ending){
			 "failed", "failed", e.text }, &end_e);
	if (err < 0)
		fail_msg("the row's end did not go in: %s", end_e.text);
	loader_release(&l);
	db_close(db);
	clock_map_release(&map);
	assert_int_equal(db_int(path, "SELECT count(*) FROM session WHERE "
				"status = 'failed' AND error LIKE 'disk full%%'"
				" AND records_seen = 5 AND end_ts IS NOT NULL"), 1);
	umount(mnt);
}

/* How many of the named indexes the file at path has. */
static int64_t indexes_named(const char *path, const char *names)
{
	return db_int(path, "SELECT count(*) FROM sqlite_master WHERE type ="
		      " 'index' AND name IN (%s)", names);
}

/*
 * A session's begin makes the indexes kept up during its load
 * (load_indexes.sql) and none of the others; its end makes the rest.
 * The fault indexes hold every row the load wrote: faults of three
 * threads, interleaved, in several commits, each thread's found through
 * fault_by_tid, and integrity_check finds each index equal to its table.
 */
static void the_fault_indexes_come_first_and_the_rest_at_the_end(void **state)
{
	const char *path = scratch_path("indexes.db");
	struct session_info si = { .host = "testhost", .kernel = "6.18",
				   .command_line = "faultline record",
				   .options = "{}", .version = "test",
				   .cpus = 2 };
	struct session_counts counts = { .records_seen = 3000 };
	struct clock_map map;
	struct loader l;
	struct errmsg e;
	sqlite3 *db;

	(void)state;
	unlink(path);
	db = begin_session(path, &si, &map, &l, &e);
	assert_int_equal(indexes_named(path, "'fault_by_ts', 'fault_by_tid'"), 2);
	assert_int_equal(indexes_named(path, "'thread_state_by_tid',"
				       " 'fault_by_stack', 'mapping_by_pid'"), 0);
	for (uint32_t i = 0; i < 3000; i++) {
		struct fault f = { .mono_ts = si.start.mono_ns + 1000 * i,
				   .dur_ns = 1000, .tid = 7 + i % 3, .pid = 7,
				   .kind = FAULT_MINOR };

		assert_int_equal(loader_fault(&l, &f, &e), 0);
		if (i % 1000 == 999)
			assert_int_equal(loader_commit(&l, &e), 0);
	}
	assert_int_equal(db_int(path, "SELECT count(*) FROM fault INDEXED BY"
				" fault_by_tid WHERE session_id = 1 AND tid = 8"),
			 1000);
	assert_int_equal(loader_end(&l, &si.start, &counts, &(struct session_ending){
				    "complete", "complete", NULL }, &e), 0);
	loader_release(&l);
	db_close(db);
	clock_map_release(&map);
	assert_int_equal(indexes_named(path, "'thread_state_by_tid',"
				       " 'fault_by_stack', 'mapping_by_pid'"), 3);
	assert_int_equal(db_int(path, "SELECT count(*) FROM pragma_integrity_check"
				" WHERE integrity_check != 'ok'"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_disk_full_to_the_page_still_takes_the_rows_end),
		cmocka_unit_test(the_fault_indexes_come_first_and_the_rest_at_the_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
