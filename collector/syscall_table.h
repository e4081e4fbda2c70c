/*
 * syscall_table: this architecture's system call numbers and names, made
 * from <sys/syscall.h> when faultline is built (mk/syscall_table.sh).
 */
#ifndef FL_SYSCALL_TABLE_H
#define FL_SYSCALL_TABLE_H

#include <stddef.h>

struct syscall_entry {
	long nr;
	const char *name;	/* "read", as in __NR_read */
};

extern const struct syscall_entry syscall_table[];
extern const size_t syscall_table_n;

/* The number of the call named name, or -1. */
long syscall_nr(const char *name);
/* The name of call nr, or NULL when this build does not know it. */
const char *syscall_name(long nr);

#endif
