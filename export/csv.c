#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/csv.h"
#include "../common/sql_value.h"
#include "../common/out_file.h"
#include "../common/strbuf.h"
#include "../schema/db.h"
#include "csv.h"

/* Every table of schema/schema.sql and the rows of the session in it:
 * ?1 the session, ?2 and ?3 its span (CLOCK_REALTIME ns). */
static const struct csv_table {
	const char *name;
	const char *where;	/* after SELECT * FROM name */
} known[] = {
	{ "session", "WHERE session_id = ?1" },
	{ "session_env", "WHERE session_id = ?1 ORDER BY key" },
	{ "clock_anchor", "WHERE session_id = ?1 ORDER BY mono_ns" },
	{ "clock_step", "WHERE session_id = ?1 ORDER BY from_mono_ns" },
	{ "thread", "WHERE session_id = ?1 ORDER BY tid, first_ts" },
	{ "fault", "WHERE session_id = ?1 ORDER BY ts" },
	{ "thread_state", "WHERE session_id = ?1 ORDER BY tid, ts" },
	{ "ran_instead", "WHERE session_id = ?1 ORDER BY tid, ts, dur DESC" },
	{ "syscall", "WHERE session_id = ?1 ORDER BY ts" },
	{ "syscall_histogram", "WHERE session_id = ?1 ORDER BY tid, name, lo_ns" },
	{ "syscall_file", "WHERE session_id = ?1 ORDER BY tid, total_ns DESC" },
	{ "latency", "WHERE session_id = ?1 ORDER BY ts" },
	{ "latency_count", "WHERE session_id = ?1 ORDER BY name" },
	{ "tracepoint_event", "WHERE session_id = ?1 ORDER BY ts" },
	{ "fault_histogram", "WHERE session_id = ?1 ORDER BY tid, kind, lo_ns" },
	{ "mapping", "WHERE session_id = ?1 ORDER BY ts" },
	{ "lost", "WHERE session_id = ?1 ORDER BY ts" },
	{ "stack", "WHERE session_id = ?1 ORDER BY stack_id" },
	{ "stack_frame", "WHERE session_id = ?1 ORDER BY stack_id, depth" },
	{ "frame", "WHERE session_id = ?1 ORDER BY frame_id" },
	{ "symbol", "WHERE session_id = ?1 ORDER BY frame_id, idx" },
	{ "metric_series", "WHERE session_id = ?1 OR (session_id IS NULL AND"
	  " EXISTS (SELECT 1 FROM metric m WHERE m.series_id ="
	  " metric_series.series_id AND m.ts BETWEEN ?2 AND ?3))"
	  " ORDER BY series_id" },
	{ "metric", "WHERE series_id IN (SELECT series_id FROM metric_series"
	  " WHERE session_id = ?1 OR session_id IS NULL)"
	  " AND ts BETWEEN ?2 AND ?3 ORDER BY series_id, ts" },
};

/* A table the list above does not know (a later schema's): the session's
 * rows when it has a session_id column, else every row. */
static const char session_rows[] = "WHERE session_id = ?1";

struct table_ref {
	char *name;		/* owned */
	const char *where;	/* static */
};

/* The database's tables, as it holds them: one file each. */
static const char tables_sql[] =
	"SELECT t.name, EXISTS (SELECT 1 FROM pragma_table_info(t.name) c"
	"  WHERE c.name = 'session_id')"
	"  FROM sqlite_master t WHERE t.type = 'table' AND t.name NOT LIKE 'sqlite_%'"
	" ORDER BY t.name";

/* Writes one table's header and rows to o. */
static int write_table(sqlite3 *db, const char *db_path,
		       const struct session_info *s, const struct table_ref *t,
		       struct out_file *o, uint64_t *rows, struct errmsg *e)
{
	struct strbuf sb;
	sqlite3_stmt *st = NULL;
	char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" %s", t->name, t->where);
	int rc, err = 0, ncol;

	if (!sql)
		return errmsg_set(e, ENOMEM, "out of memory");
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, db_path, "cannot read", e);
	sqlite3_bind_int64(st, 1, s->id);
	if (sqlite3_bind_parameter_count(st) >= 3) {
		sqlite3_bind_int64(st, 2, s->start_ts);
		sqlite3_bind_int64(st, 3, s->end_ts);
	}
	strbuf_init(&sb);
	ncol = sqlite3_column_count(st);
	for (int i = 0; i < ncol; i++) {
		if (i)
			strbuf_addc(&sb, ',');
		csv_add_field(&sb, sqlite3_column_name(st, i), strlen(sqlite3_column_name(st, i)));
	}
	strbuf_adds(&sb, "\r\n");
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < ncol; i++) {
			if (i)
				strbuf_addc(&sb, ',');
			sql_value_csv(&sb, st, i);
		}
		strbuf_adds(&sb, "\r\n");
		(*rows)++;
		err = out_file_put(o, &sb, 0, e);
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(db, rc, db_path, "cannot read", e);
	if (err == 0)
		err = out_file_put(o, &sb, 1, e);
	strbuf_release(&sb);
	sqlite3_finalize(st);
	return err;
}

/* open_dir's work, on dir without its trailing slashes (bare): "link/"
 * would resolve the link before lstat or O_NOFOLLOW saw it. */
static int open_bare(const char *bare, const char *dir, int *made,
		     struct errmsg *e)
{
	struct stat sb;
	int fd;

	if (lstat(bare, &sb) == 0) {
		if (S_ISLNK(sb.st_mode))
			return errmsg_set(e, ELOOP, "cannot write into '%s': it is a "
					  "symbolic link, and faultline writes no file "
					  "through one (another user may have made it); "
					  "remove it, or give the directory it points to",
					  dir);
		if (!S_ISDIR(sb.st_mode))
			return errmsg_set(e, ENOTDIR, "cannot write into '%s': it is a "
					  "file, and --format csv writes a directory of "
					  "files; give a directory", dir);
	} else if (mkdir(bare, 0700) != 0) {
		return errmsg_set(e, errno, "cannot create directory '%s': %s%s", dir,
				  strerror(errno), errno == ENOENT ?
				  "; create its parent first" : "");
	} else {
		*made = 1;
	}
	fd = open(bare, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errmsg_set(e, errno, "cannot open directory '%s': %s", dir,
				  strerror(errno));
	return fd;
}

/*
 * Makes dir (0700: the files hold what the database does) unless it is a
 * directory already, *made says which, and opens it: the descriptor, or
 * a negative errno with e set.  A symbolic link as dir is refused, as
 * for every output (out_file.h): the files are written relative to the
 * descriptor, so a directory swapped for a link later is not followed.
 */
static int open_dir(const char *dir, int *made, struct errmsg *e)
{
	char *bare = strdup(dir);
	size_t n = bare ? strlen(bare) : 0;
	int fd;

	*made = 0;
	if (!bare)
		return errmsg_set(e, ENOMEM, "out of memory");
	while (n > 1 && bare[n - 1] == '/')
		bare[--n] = '\0';
	fd = open_bare(bare, dir, made, e);
	free(bare);
	return fd;
}

static const char *where_of(const char *name, int has_session)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].name, name))
			return known[i].where;
	return has_session ? session_rows : "";
}

static void tables_free(struct table_ref *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].name);
	free(t);
}

static int list_tables(sqlite3 *db, const char *db_path, struct table_ref **out,
		       size_t *nout, struct errmsg *e)
{
	struct table_ref *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, tables_sql, -1, &st, NULL), err = 0;

	while (rc == SQLITE_OK && err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (ARRAY_RESERVE(v, cap, n + 1) < 0 || !(v[n].name = strdup(name))) {
			err = errmsg_set(e, ENOMEM, "out of memory");
			break;
		}
		v[n].where = where_of(name, sqlite3_column_int(st, 1));
		n++;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (err == 0 && rc != SQLITE_OK && rc != SQLITE_DONE)
		err = db_fail(db, rc, db_path, "cannot read", e);
	if (err < 0) {
		tables_free(v, n);
		return err;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* "<table>.csv" in dir (dir NULL: the name alone).  Caller frees. */
static char *file_of(const char *dir, const char *table)
{
	char *path;

	return asprintf(&path, "%s%s%s.csv", dir ? dir : "", dir ? "/" : "",
			table) < 0 ? NULL : path;
}

/* Writes every table's file, then renames them all into place. */
static int write_all(sqlite3 *db, const char *db_path, const struct session_info *s,
		     const char *dir, int dirfd, const struct table_ref *t, size_t nt,
		     struct out_file *files, struct csv_counts *count, struct errmsg *e)
{
	size_t opened = 0;
	int err = 0;

	for (size_t i = 0; err == 0 && i < nt; i++) {
		char *path = file_of(dir, t[i].name), *name = file_of(NULL, t[i].name);

		err = path && name ? out_file_open_at(&files[i], dirfd, name, path, e)
			   : errmsg_set(e, ENOMEM, "out of memory");
		free(path);
		free(name);
		if (err == 0)
			opened = i + 1;
		if (err == 0)
			err = write_table(db, db_path, s, &t[i], &files[i], &count->rows, e);
	}
	/* Only now, with every file whole, do they take their names.  A
	 * rename within one directory fails only when the directory itself
	 * goes bad; the files renamed before it are removed then, so the
	 * export is whole or absent. */
	for (size_t i = 0; err == 0 && i < opened; i++) {
		err = out_file_commit(&files[i], e);
		count->files += err == 0;
	}
	for (size_t i = 0; err < 0 && i < count->files; i++) {
		char *name = file_of(NULL, t[i].name);

		if (name)
			unlinkat(dirfd, name, 0);
		free(name);
	}
	for (size_t i = 0; i < opened; i++)
		out_file_abort(&files[i]);
	return err;
}

int csv_export(sqlite3 *db, const char *db_path, const struct session_info *s,
	       const char *dir, struct csv_counts *n, struct errmsg *e)
{
	struct csv_counts count = { 0, 0 };
	struct table_ref *t = NULL;
	struct out_file *files = NULL;
	size_t nt = 0;
	int made = 0, dirfd = -1, err = list_tables(db, db_path, &t, &nt, e);

	if (err == 0 && !(files = calloc(nt ? nt : 1, sizeof(*files))))
		err = errmsg_set(e, ENOMEM, "out of memory");
	if (err == 0)
		err = dirfd = open_dir(dir, &made, e);
	if (err >= 0)
		err = write_all(db, db_path, s, dir, dirfd, t, nt, files, &count, e);
	if (dirfd >= 0)
		close(dirfd);
	if (err < 0 && made)
		rmdir(dir);
	free(files);
	tables_free(t, nt);
	if (n)
		*n = count;
	return err;
}
