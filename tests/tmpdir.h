/*
 * Where a test's temporary files go: $TMPDIR, which tests/run.sh sets to
 * a directory of the suite's own (on disk, and checked empty at the end:
 * nothing a test makes outlives the suite), else /var/tmp (on disk, not
 * tmpfs: a major-fault test needs pages that can leave the page cache).
 */
#ifndef FL_TEST_TMPDIR_H
#define FL_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

/* Fills buf with "<tmpdir>/<prefix>.XXXXXX", ready for mkdtemp. */
static inline char *tmp_template(char *buf, size_t n, const char *prefix)
{
	const char *t = getenv("TMPDIR");

	snprintf(buf, n, "%s/%s.XXXXXX", t && *t ? t : "/var/tmp", prefix);
	return buf;
}

#endif
