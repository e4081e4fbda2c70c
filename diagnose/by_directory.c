/*
 * by_directory: many files under one directory, each the culprit of its
 * own finding, made one finding: git gc reading 218 loose objects (in
 * .git/objects/4f/, a1/, ...) for the first time is one cause, not 218.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "by_directory.h"

/* A stall whose culprit is the file it names. */
struct file_ref {
	size_t stall;		/* index into res->stalls */
	const char *path;	/* borrowed: its culprit, until renamed (for
				 * sorting only) */
};

static int by_owner_path(const void *a, const void *b, void *ctx)
{
	const struct file_ref *x = a, *y = b;
	const struct diag_result *res = ctx;
	const struct diag_stall *s = &res->stalls[x->stall];
	const struct diag_stall *t = &res->stalls[y->stall];

	if (s->tid != t->tid)
		return s->tid < t->tid ? -1 : 1;
	if (s->pattern != t->pattern)
		return s->pattern < t->pattern ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The stalls whose culprit is the path of the file they name; *n. */
static struct file_ref *file_refs(const struct diag_result *res, size_t *n)
{
	struct file_ref *v = calloc(res->nstalls ? res->nstalls : 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < res->nstalls; i++) {
		const struct diag_stall *s = &res->stalls[i];

		if (s->file && !strcmp(s->file, s->culprit) && s->culprit[0] == '/') {
			v[*n].stall = i;
			v[(*n)++].path = s->culprit;
		}
	}
	return v;
}

/* The first of the sorted distinct paths u[0..n) not below "dir/"
 * (dir[0..len)) when past is set, else the first at or after it. */
static size_t bound(const char *const *u, size_t n, const char *dir, size_t len,
		    int past)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(u[mid], dir, len);

		if (c == 0)
			c = u[mid][len] == '/' ? (past ? -1 : 1) :
			    (unsigned char)u[mid][len] < '/' ? -1 : 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* How many distinct entries right below "dir/" (dir[0..len)) lead to
 * the sorted distinct paths u[0..n): "4f" and "a1" for .git/objects/4f/x
 * and .git/objects/a1/y.  Sorted paths through one entry are adjacent. */
static size_t entries_below(const char *const *u, size_t n, const char *dir,
			    size_t len)
{
	size_t lo = bound(u, n, dir, len, 0), hi = bound(u, n, dir, len, 1);
	size_t count = 0, last_len = 0;
	const char *last = NULL;

	for (size_t i = lo; i < hi; i++) {
		const char *e = u[i] + len + 1;
		size_t elen = strcspn(e, "/");

		if (!last || elen != last_len || strncmp(e, last, elen)) {
			count++;
			last = e;
			last_len = elen;
		}
	}
	return count;
}

/* The length of path's directory that holds path[0..len), two levels
 * down at least; 0 when there is none. */
static size_t parent_dir(const char *path, size_t len)
{
	while (len > 0 && path[len - 1] != '/')
		len--;
	if (len <= 1)
		return 0;
	len--;	/* the directory, without its '/' */
	return memchr(path + 1, '/', len - 1) ? len : 0;
}

/* The length of the directory of path that groups it, 0 when none does:
 * the deepest, two levels down at least ("/usr/lib", not "/usr"), with
 * more than DIR_GROUP_MIN of the distinct paths u[0..n) under it; or,
 * where a directory above that has more than DIR_GROUP_MIN entries right
 * below it leading to them, the highest such.  The second step keeps
 * git's loose objects one group where some of its 256 directories hold
 * many objects each: .git/objects/, not .git/objects/4f/ beside
 * .git/objects/a1/. */
static size_t group_of(const char *path, const char *const *u, size_t n)
{
	size_t len = strlen(path), up;

	while ((len = parent_dir(path, len)) > 0)
		if (bound(u, n, path, len, 1) - bound(u, n, path, len, 0) >
		    DIR_GROUP_MIN)
			break;
	if (len == 0)
		return 0;
	for (up = len; (up = parent_dir(path, up)) > 0;)
		if (entries_below(u, n, path, up) > DIR_GROUP_MIN)
			len = up;
	return len;
}

/* "DIR/ (N files)" for each distinct path u[0..n) under a directory with
 * many of them (NULL for the others), into names[0..n).  A directory that
 * has many only counting those that chose a deeper one is no group for
 * the few left: /usr/lib/locale/locale-archive stays itself beside
 * /usr/lib/x86_64-linux-gnu/ (9 files), not "/usr/lib/ (1 files)". */
static int name_groups(char *const *u, size_t n, char **names)
{
	size_t *ug = calloc(n ? n : 1, sizeof(*ug));

	if (!ug)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		ug[i] = group_of(u[i], (const char *const *)u, n);
	for (size_t i = 0; i < n; i++) {
		size_t files = 0;

		if (!ug[i])
			continue;
		for (size_t m = 0; m < n; m++)	/* the paths that chose it */
			files += ug[m] == ug[i] && !strncmp(u[m], u[i], ug[i]);
		if (files <= DIR_GROUP_MIN)
			continue;	/* the others went deeper: no group */
		if (!(names[i] = malloc(ug[i] + 32))) {
			free(ug);
			return -ENOMEM;
		}
		snprintf(names[i], ug[i] + 32, "%.*s/ (%zu files)", (int)ug[i], u[i],
			 files);
	}
	free(ug);
	return 0;
}

/* The files of one thread and pattern, refs[lo..hi) sorted by path:
 * each under a directory with many of them takes it as its culprit.
 * Worked out once per distinct path (u, copied: the culprits they were
 * are renamed), then given to its stalls. */
static int group_files(struct diag_result *res, const struct file_ref *refs,
		       size_t lo, size_t hi)
{
	char **u = calloc(hi - lo, sizeof(*u));
	char **names = calloc(hi - lo, sizeof(*names));
	size_t n = 0, j = 0;
	int err = u && names ? 0 : -ENOMEM;

	for (size_t k = lo; k < hi && err == 0; k++)
		if ((k == lo || strcmp(refs[k].path, refs[k - 1].path)) &&
		    !(u[n++] = strdup(refs[k].path)))
			err = -ENOMEM;
	if (err == 0)
		err = name_groups(u, n, names);
	for (size_t k = lo; k < hi && err == 0; k++) {
		struct diag_stall *s = &res->stalls[refs[k].stall];
		char *copy;

		if (k > lo && strcmp(s->culprit, u[j]))
			j++;
		if (!names[j])
			continue;
		if (!(copy = strdup(names[j]))) {
			err = -ENOMEM;
			break;
		}
		free(s->culprit);
		s->culprit = copy;
	}
	for (size_t i = 0; i < n; i++) {
		free(u[i]);
		free(names[i]);
	}
	free(u);
	free(names);
	return err;
}

int diag_by_directory(struct diag_result *res)
{
	size_t n, lo = 0;
	struct file_ref *refs = file_refs(res, &n);
	int err = 0;

	if (!refs)
		return -ENOMEM;
	qsort_r(refs, n, sizeof(*refs), by_owner_path, res);
	while (lo < n && err == 0) {
		const struct diag_stall *a = &res->stalls[refs[lo].stall];
		size_t hi = lo + 1;

		while (hi < n && res->stalls[refs[hi].stall].tid == a->tid &&
		       res->stalls[refs[hi].stall].pattern == a->pattern)
			hi++;
		err = group_files(res, refs, lo, hi);
		lo = hi;
	}
	free(refs);
	return err;
}
