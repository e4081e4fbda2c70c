/*
 * common/outside_file: a file at a path another user may plant is read
 * only when it is a regular file of a trusted owner, never blocking and
 * never past a bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../common/outside_file.h"
#include "../integration/run.h"

static char dir[128];

/* name in the test's directory; two calls' results may be used at once. */
static const char *at(const char *name)
{
	static char path[2][256];
	static int i;

	i = !i;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void a_regular_file_of_the_trusted_owner_is_read_whole(void **state)
{
	struct outside_rule r = { geteuid(), 0, 1024 };
	const char *why = NULL;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	write_file(at("ok.map"), "1000 10 f\n");
	assert_int_equal(outside_file_read(at("ok.map"), &r, &buf, &len, &why), 0);
	assert_int_equal(len, 10);
	assert_string_equal(buf, "1000 10 f\n");
	free(buf);
	assert_int_equal(outside_file_read(at("none.map"), &r, &buf, &len, &why),
			 -ENOENT);
}

static void a_fifo_is_skipped_at_once_without_waiting_for_a_writer(void **state)
{
	struct outside_rule r = { OUTSIDE_ANY_OWNER, 0, 0 };
	const char *why = NULL;
	char *buf = NULL;
	size_t len;

	(void)state;
	assert_int_equal(mkfifo(at("fifo"), 0666), 0);
	alarm(10);	/* a blocking open ends the test, not the suite */
	assert_int_equal(outside_file_read(at("fifo"), &r, &buf, &len, &why), -EPERM);
	alarm(0);
	assert_string_equal(why, "a FIFO, not a regular file");
	assert_null(buf);
}

static void a_symbolic_link_is_skipped_unless_the_rule_follows_links(void **state)
{
	struct outside_rule nofollow = { OUTSIDE_ANY_OWNER, 0, 0 };
	struct outside_rule follow = { OUTSIDE_ANY_OWNER, 1, 0 };
	const char *why = NULL;
	struct stat st;
	int fd;

	(void)state;
	write_file(at("target"), "x");
	assert_int_equal(symlink(at("target"), at("link")), 0);
	assert_int_equal(outside_file_open(at("link"), &nofollow, &st, &why), -EPERM);
	assert_string_equal(why, "a symbolic link");
	fd = outside_file_open(at("link"), &follow, &st, &why);
	assert_true(fd >= 0);
	/* Blocking again: a caller's reads need not handle EAGAIN. */
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
}

static void a_device_is_skipped_even_through_a_followed_link(void **state)
{
	struct outside_rule follow = { OUTSIDE_ANY_OWNER, 1, 0 };
	const char *why = NULL;
	char *buf = NULL;
	size_t len;

	(void)state;
	assert_int_equal(symlink("/dev/zero", at("zero")), 0);
	assert_int_equal(outside_file_read(at("zero"), &follow, &buf, &len, &why),
			 -EPERM);
	assert_string_equal(why, "a character device, not a regular file");
}

static void a_file_of_another_user_is_skipped_and_root_s_is_read(void **state)
{
	struct outside_rule r = { 4321, 0, 0 };
	const char *why = NULL;
	char *buf = NULL;
	size_t len;

	(void)state;
	if (geteuid() != 0)
		skip_msg("needs root, to give a file to another user");
	write_file(at("other"), "x");
	assert_int_equal(chown(at("other"), 65534, 65534), 0);
	assert_int_equal(outside_file_read(at("other"), &r, &buf, &len, &why), -EPERM);
	assert_string_equal(why, "owned by another user");
	assert_int_equal(chown(at("other"), 4321, 4321), 0);
	assert_int_equal(outside_file_read(at("other"), &r, &buf, &len, &why), 0);
	free(buf);
	assert_int_equal(chown(at("other"), 0, 0), 0);
	assert_int_equal(outside_file_read(at("other"), &r, &buf, &len, &why), 0);
	free(buf);
}

static void a_file_larger_than_the_bound_is_skipped(void **state)
{
	struct outside_rule r = { OUTSIDE_ANY_OWNER, 0, 8 };
	const char *why = NULL;
	char *buf = NULL;
	size_t len;

	(void)state;
	write_file(at("big"), "123456789");
	assert_int_equal(outside_file_read(at("big"), &r, &buf, &len, &why), -EPERM);
	assert_string_equal(why, "larger than faultline reads");
	write_file(at("big"), "12345678");
	assert_int_equal(outside_file_read(at("big"), &r, &buf, &len, &why), 0);
	assert_int_equal(len, 8);
	free(buf);
}

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(tmp_template(dir, sizeof(dir), "faultline-outside")) ? 0 : -1;
}

static int remove_dir(void **state)
{
	static const char *names[] = { "ok.map", "fifo", "target", "link", "zero",
				       "other", "big" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(at(names[i]));
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_regular_file_of_the_trusted_owner_is_read_whole),
		cmocka_unit_test(a_fifo_is_skipped_at_once_without_waiting_for_a_writer),
		cmocka_unit_test(a_symbolic_link_is_skipped_unless_the_rule_follows_links),
		cmocka_unit_test(a_device_is_skipped_even_through_a_followed_link),
		cmocka_unit_test(a_file_of_another_user_is_skipped_and_root_s_is_read),
		cmocka_unit_test(a_file_larger_than_the_bound_is_skipped),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
