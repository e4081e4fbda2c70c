/*
 * debug_paths: the places libdwfl's standard search may look for a
 * separate debug file, listed before it looks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../common/strbuf.h"
#include "../../decoder/debug_paths.h"

static int add_line(void *ctx, const char *path)
{
	strbuf_addf(ctx, "%s\n", path);
	return 0;
}

static const char *listed(const char *debuginfo_path, const unsigned char *id,
			  size_t len, const char *file, const char *link)
{
	static struct strbuf sb;

	strbuf_release(&sb);
	assert_int_equal(debug_paths_each(debuginfo_path, id, len, file, link,
					  add_line, &sb), 0);
	return strbuf_str(&sb);
}

static void build_id_paths_come_from_absolute_dirs_and_names_from_every_dir(void **state)
{
	static const unsigned char id[] = { 0x7e, 0xbc, 0x65, 0x01 };

	(void)state;
	assert_string_equal(listed(":.debug:/usr/lib/debug", id, sizeof(id),
				   "/usr/lib/x86_64-linux-gnu/libc.so.6",
				   "libc.so.6.debug"),
		"/usr/lib/x86_64-linux-gnu/libc.so.6.debug\n"
		"/usr/lib/x86_64-linux-gnu/.debug/libc.so.6.debug\n"
		"/usr/lib/debug/.build-id/7e/bc6501.debug\n"
		"/usr/lib/debug/usr/lib/x86_64-linux-gnu/libc.so.6.debug\n"
		"/usr/lib/debug/lib/x86_64-linux-gnu/libc.so.6.debug\n"
		"/usr/lib/debug/x86_64-linux-gnu/libc.so.6.debug\n"
		"/usr/lib/debug/libc.so.6.debug\n");
}

static void without_a_debuglink_the_name_is_made_up_and_the_file_s_own_tried(void **state)
{
	(void)state;
	assert_string_equal(listed("+.debug:-/dbg", NULL, 0, "/opt/f", NULL),
		"/opt/.debug/f.debug\n"
		"/opt/.debug/f\n"
		"/dbg/opt/f.debug\n"
		"/dbg/opt/f\n"
		"/dbg/f.debug\n"
		"/dbg/f\n");
}

static void a_relative_file_has_no_directory_of_its_own(void **state)
{
	(void)state;
	assert_string_equal(listed(":/dbg", NULL, 0, "f", "f.dbg"), "f.dbg\n");
	assert_string_equal(listed(":/dbg", NULL, 0, NULL, "f.dbg"), "");
}

static int stop_at_second(void *ctx, const char *path)
{
	(void)path;
	return ++*(int *)ctx == 2 ? 7 : 0;
}

static void the_walk_stops_when_told(void **state)
{
	int n = 0;

	(void)state;
	assert_int_equal(debug_paths_each(":/a:/b", NULL, 0, "/x/f", "l",
					  stop_at_second, &n), 7);
	assert_int_equal(n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(build_id_paths_come_from_absolute_dirs_and_names_from_every_dir),
		cmocka_unit_test(without_a_debuglink_the_name_is_made_up_and_the_file_s_own_tried),
		cmocka_unit_test(a_relative_file_has_no_directory_of_its_own),
		cmocka_unit_test(the_walk_stops_when_told),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
