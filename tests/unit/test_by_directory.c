/*
 * by_directory: which directory a stall's file is grouped under, so that
 * one cause (git reading its loose objects) is one finding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../diagnose/by_directory.h"

/* A stall of thread 7, pattern 0, whose culprit is the file it names. */
static void add_file_stall(struct diag_result *res, const char *path)
{
	struct diag_stall *s;

	res->stalls = realloc(res->stalls, (res->nstalls + 1) * sizeof(*s));
	assert_non_null(res->stalls);
	s = &res->stalls[res->nstalls++];
	memset(s, 0, sizeof(*s));
	s->tid = 7;
	assert_non_null(s->culprit = strdup(path));
	assert_non_null(s->file = strdup(path));
	s->file_offset = -1;
}

/* How many of res's stalls have culprit c. */
static size_t with_culprit(const struct diag_result *res, const char *c)
{
	size_t k = 0;

	for (size_t i = 0; i < res->nstalls; i++)
		k += !strcmp(res->stalls[i].culprit, c);
	return k;
}

/* git gc on a fresh clone: 12 object directories with 10 objects each
 * (each directory alone would be a group) and 30 with one. */
static void loose_objects_are_one_group_however_many_each_directory_holds(void **state)
{
	struct diag_result res;
	char path[128];

	(void)state;
	diag_result_init(&res);
	for (int d = 0; d < 42; d++)
		for (int k = 0; k < (d < 12 ? 10 : 1); k++) {
			snprintf(path, sizeof(path), "/src/.git/objects/%02x/obj%d", d, k);
			add_file_stall(&res, path);
		}
	assert_int_equal(diag_by_directory(&res), 0);
	assert_int_equal(with_culprit(&res, "/src/.git/objects/ (150 files)"), 150);
	diag_result_release(&res);
}

/* Two directories of libraries under /usr/lib, and a third file: each
 * directory is a group of its own, /usr/lib (three entries) is not one,
 * and the lone file stays itself. */
static void directories_few_side_by_side_stay_apart(void **state)
{
	struct diag_result res;
	char path[128];

	(void)state;
	diag_result_init(&res);
	for (int k = 0; k < 9; k++) {
		snprintf(path, sizeof(path), "/usr/lib/x86_64-linux-gnu/lib%d.so", k);
		add_file_stall(&res, path);
		snprintf(path, sizeof(path), "/usr/lib/jvm/lib/lib%d.so", k);
		add_file_stall(&res, path);
	}
	add_file_stall(&res, "/usr/lib/locale/locale-archive");
	assert_int_equal(diag_by_directory(&res), 0);
	assert_int_equal(with_culprit(&res, "/usr/lib/x86_64-linux-gnu/ (9 files)"), 9);
	assert_int_equal(with_culprit(&res, "/usr/lib/jvm/lib/ (9 files)"), 9);
	assert_int_equal(with_culprit(&res, "/usr/lib/locale/locale-archive"), 1);
	diag_result_release(&res);
}

/* Eight files under a directory are not a group; nine are. */
static void a_group_takes_more_than_eight_files(void **state)
{
	struct diag_result res;
	char path[128];

	(void)state;
	diag_result_init(&res);
	for (int k = 0; k < 8; k++) {
		snprintf(path, sizeof(path), "/data/a/f%d", k);
		add_file_stall(&res, path);
	}
	assert_int_equal(diag_by_directory(&res), 0);
	assert_int_equal(with_culprit(&res, "/data/a/f0"), 1);
	add_file_stall(&res, "/data/a/f8");
	assert_int_equal(diag_by_directory(&res), 0);
	assert_int_equal(with_culprit(&res, "/data/a/ (9 files)"), 9);
	diag_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loose_objects_are_one_group_however_many_each_directory_holds),
		cmocka_unit_test(directories_few_side_by_side_stay_apart),
		cmocka_unit_test(a_group_takes_more_than_eight_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
