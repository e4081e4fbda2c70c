/*
 * file I/O in a system call: a read or write of a file (record
 * --syscalls) that blocked (state D) inside the call, however briefly:
 * the thread waited for the disk, or for the file system, not for data
 * to arrive (a FIFO read sleeps, and is no finding).  Every such call is
 * a row (record stores a call that blocked whatever its length), so a
 * thousand short disk reads of one file are one finding with their sum;
 * grouped by the file.  With record --block-io, refine names the block
 * requests the thread's calls on that file waited for: those issued in
 * the thread that completed inside one of them.
 */
#include <errno.h>

#include "../common/strbuf.h"
#include "../schema/views.h"
#include "pattern.h"
#include "syscall_sql.h"

/* The finding's block requests: how many, and the longest in service. */
static const char longest_sql[] =
	"SELECT count(*) OVER (), n.what\n"
	"  FROM block_request_named n\n"
	" WHERE n.session_id = :session AND n.tid = :tid\n"
	"   AND n.complete_ts BETWEEN :first AND :last\n"
	"   AND EXISTS (SELECT 1 FROM syscall c\n"
	"                WHERE c.session_id = n.session_id AND c.tid = n.tid\n"
	"                  AND c.fd_name = :file AND c.blocked_ns > 0\n"
	"                  AND c.name IN (" SYSCALL_READS ", " SYSCALL_WRITES ")\n"
	"                  AND n.complete_ts BETWEEN c.ts AND c.ts + c.dur)\n"
	" ORDER BY n.service_ns DESC LIMIT 1";

static void bind(sqlite3_stmt *st, const char *name, int64_t v)
{
	sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, name), v);
}

/* "12 disk requests, the longest: disk read of 64 KiB on vda, 3.1 ms in
 * service"; no detail without --block-io, or in a file older than it. */
static int name_requests(sqlite3 *db, const struct diag_ctx *c,
			 const struct diag_stall *s, struct diag_finding *f,
			 struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct errmsg ignored;
	struct strbuf sb;
	int rc;

	(void)s;
	(void)e;
	errmsg_init(&ignored);
	if (schema_view_current(db, "block_request_named", &ignored) < 0)
		return 0;	/* a file without block_request */
	rc = sqlite3_prepare_v2(db, longest_sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc == SQLITE_NOMEM ? -ENOMEM : 0;
	bind(st, ":session", c->session_id);
	bind(st, ":tid", f->tid);
	bind(st, ":first", f->first_ts);
	bind(st, ":last", f->last_end_ts);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":file"),
			  f->culprit, -1, SQLITE_STATIC);
	strbuf_init(&sb);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		strbuf_addf(&sb, "%lld disk request%s, the longest: %s",
			    (long long)sqlite3_column_int64(st, 0),
			    sqlite3_column_int64(st, 0) == 1 ? "" : "s",
			    (const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	if (sb.len && !strbuf_error(&sb))
		f->detail = strbuf_detach(&sb);
	rc = rc == SQLITE_NOMEM || strbuf_error(&sb) ? -ENOMEM : 0;
	strbuf_release(&sb);
	return rc;
}

const struct diag_pattern diag_file_io = {
	.name = "file-io",
	.title = "file I/O: a read or write of a file waited for the disk",
	.needs = "record --syscalls (the calls and their files) and thread "
		 "states (record's default)",
	.sql =
		"SELECT c.tid, c.ts, c.dur, c.fd_name,\n"
		"       'syscall row ' || c.rowid || ': ' || c.name || ' of ' ||\n"
		"         c.fd_name || ', ' || printf('%.3f ms', c.dur / 1e6) ||\n"
		"         ' (' || printf('%.3f ms', c.blocked_ns / 1e6) ||\n"
		"         ' blocked)',\n"
		"       NULL, c.fd_name, NULL\n"
		"  FROM syscall c\n"
		" WHERE c.session_id = :session AND c.blocked_ns > 0\n"
		"   AND c.name IN (" SYSCALL_READS ", " SYSCALL_WRITES ")\n"
		"   AND c.fd_name LIKE '/%' AND c.fd_name NOT LIKE '/dev/%'",
	.remedies =
		"keep the file in the page cache: read it ahead at start "
		"(posix_fadvise(POSIX_FADV_WILLNEED), readahead(2), vmtouch -t), and "
		"leave the cache room (less memory pressure, a higher cgroup memory "
		"limit)\n"
		"read it in fewer, larger requests, in order "
		"(posix_fadvise(POSIX_FADV_SEQUENTIAL)) where the access allows\n"
		"move it to faster storage, or its I/O off the thread that must not "
		"wait (a reader thread, io_uring)",
	.refine = name_requests,
};
