/*
 * syscall_sql: SQL the system-call patterns share (record --syscalls;
 * the syscall table).
 */
#ifndef FL_DIAG_SYSCALL_SQL_H
#define FL_DIAG_SYSCALL_SQL_H

/* The calls that read or write a file's data, and those that make its
 * writes durable, as SQL lists of names. */
#define SYSCALL_READS \
	"'read', 'pread64', 'readv', 'preadv', 'preadv2'"
#define SYSCALL_WRITES \
	"'write', 'pwrite64', 'writev', 'pwritev', 'pwritev2'"
#define SYSCALL_SYNCS \
	"'fsync', 'fdatasync', 'sync_file_range', 'syncfs', 'sync'"

#endif
