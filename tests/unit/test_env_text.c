/*
 * env_text: sysfs selections, /proc/PID/limits and environ blocks into
 * session_env pairs, as the kernel prints them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../decoder/env_text.h"

struct pairs {
	char text[4096];	/* "key=value;" each */
};

static int collect(void *ctx, const char *key, const char *value)
{
	struct pairs *p = ctx;
	size_t n = strlen(p->text);

	snprintf(p->text + n, sizeof(p->text) - n, "%s=%s;", key, value);
	return 0;
}

static void the_bracketed_word_is_the_choice(void **state)
{
	const char t[] = "always [madvise] never\n";
	char buf[16];

	(void)state;
	assert_int_equal(env_bracket_choice(t, strlen(t), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "madvise");
	assert_int_equal(env_bracket_choice("always never\n", 13, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(env_bracket_choice("[]", 2, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(env_bracket_choice(t, strlen(t), buf, 4), -EINVAL);
}

static void an_empty_cpu_mask_reads_empty(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(env_trim("(null)\n", 7, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(env_trim("  2-3\n", 6, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2-3");
}

/* As fs/proc/base.c prints it: %-25s %-20s %-20s %-10s. */
static void limits_give_soft_and_hard_values_by_setrlimit_name(void **state)
{
	const char t[] =
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max cpu time              unlimited            unlimited            seconds   \n"
		"Max open files            1024                 1048576              files     \n"
		"Max stack size            8388608              unlimited            bytes     \n"
		"Max frobs                 1                    2                    frobs     \n";
	struct pairs p = { "" };

	(void)state;
	assert_int_equal(env_limits_each(t, strlen(t), collect, &p), 0);
	assert_string_equal(p.text, "limit.cpu=unlimited;limit.cpu.hard=unlimited;"
			    "limit.nofile=1024;limit.nofile.hard=1048576;"
			    "limit.stack=8388608;limit.stack.hard=unlimited;");
}

static void only_loader_and_allocator_names_of_the_environment_are_kept(void **state)
{
	const char block[] = "PATH=/bin\0LD_BIND_NOW=1\0HOME=/root\0MALLOC_ARENA_MAX=2\0"
			     "LD_PRELOAD=\0GLIBC_TUNABLES=glibc.malloc.tcache_count=0\0"
			     "LD_=x\0OLD_X=1\0NOEQUALS\0LD_LIBRARY_PATH=/a:/b";
	struct pairs p = { "" };

	(void)state;
	/* the last entry has no NUL of its own */
	assert_int_equal(env_environ_each(block, sizeof(block) - 1, collect, &p), 0);
	assert_string_equal(p.text, "env.LD_BIND_NOW=1;env.MALLOC_ARENA_MAX=2;"
			    "env.LD_PRELOAD=;env.GLIBC_TUNABLES=glibc.malloc.tcache_count=0;"
			    "env.LD_LIBRARY_PATH=/a:/b;");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_bracketed_word_is_the_choice),
		cmocka_unit_test(an_empty_cpu_mask_reads_empty),
		cmocka_unit_test(limits_give_soft_and_hard_values_by_setrlimit_name),
		cmocka_unit_test(only_loader_and_allocator_names_of_the_environment_are_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
