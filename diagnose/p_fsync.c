/*
 * fsync: a call that makes a file's writes durable (fsync, fdatasync,
 * sync_file_range, syncfs, sync; record --syscalls) took at least
 * :min_dur: the thread waited for write-back and the disk's flush.
 * Grouped by the file ("all files" for sync).
 */
#include "pattern.h"
#include "syscall_sql.h"

const struct diag_pattern diag_fsync = {
	.name = "fsync",
	.title = "fsync: waited for a file's writes to reach the disk",
	.needs = "record --syscalls (the calls and their files)",
	.sql =
		"SELECT c.tid, c.ts, c.dur, coalesce(c.fd_name, CASE c.name\n"
		"         WHEN 'sync' THEN 'all files' ELSE 'a file not named' END),\n"
		"       'syscall row ' || c.rowid || ': ' || c.name ||\n"
		"         coalesce(' of ' || c.fd_name, '') || ', ' ||\n"
		"         printf('%.3f ms', c.dur / 1e6) || ' (' ||\n"
		"         printf('%.3f ms', c.blocked_ns / 1e6) ||\n"
		"         ' blocked)',\n"
		"       NULL, c.fd_name, NULL\n"
		"  FROM syscall c\n"
		" WHERE c.session_id = :session AND c.dur >= :min_dur\n"
		"   AND c.name IN (" SYSCALL_SYNCS ")",
	.remedies =
		"fsync less often: group commits, or fsync from a thread that does "
		"not serve requests\n"
		"make durable only what must be (fdatasync, sync_file_range over the "
		"written range)\n"
		"put the file on a disk of its own, or on storage whose write cache "
		"survives power loss",
};
