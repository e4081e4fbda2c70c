/*
 * file I/O in a system call: a read or write of a file (record
 * --syscalls) that blocked (state D) inside the call, however briefly:
 * the thread waited for the disk, or for the file system, not for data
 * to arrive (a FIFO read sleeps, and is no finding).  Every such call is
 * a row (record stores a call that blocked whatever its length), so a
 * thousand short disk reads of one file are one finding with their sum;
 * grouped by the file.
 */
#include "pattern.h"
#include "syscall_sql.h"

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
};
