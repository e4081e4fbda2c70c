/*
 * syscall_set: which system calls record --syscalls times, from a list of
 * names.  The default is the calls a thread waits in: reads and writes of
 * files, pipes and sockets, syncs, futexes, poll/epoll/select, accept,
 * connect and the receive and send calls, sleeps and waits for children.
 */
#ifndef FL_SYSCALL_SET_H
#define FL_SYSCALL_SET_H

#include <stddef.h>

#include "../common/errmsg.h"

/* Numbers up to this are kept in a bitmap (x86-64 has about 460). */
#define SYSCALL_NR_MAX 1024

struct syscall_set {
	unsigned char wanted[SYSCALL_NR_MAX / 8];	/* timed and stored */
	/* traced as well, unstored, for what they say of descriptors (a
	 * close, a dup2 onto a number, an open): wanted ones included */
	unsigned char traced[SYSCALL_NR_MAX / 8];
	size_t nwanted;
};

/* The default list, comma-separated: what --syscalls means alone. */
extern const char syscall_default_list[];

/*
 * Fills s from list ("read,write,fsync", or "default" for the default
 * list, which may be combined: "default,mmap").  An unknown name is an
 * error that names the closest known one.  0, or -EINVAL with e.
 */
int syscall_set_parse(struct syscall_set *s, const char *list,
		      struct errmsg *e);

static inline int syscall_set_has(const unsigned char *bits, long nr)
{
	return nr >= 0 && nr < SYSCALL_NR_MAX && (bits[nr / 8] >> (nr % 8)) & 1;
}

/* The kernel filter for raw_syscalls:sys_enter and sys_exit that passes
 * the traced calls only ("id == 0 || id == 1 ..."), malloc'd; NULL when
 * out of memory. */
char *syscall_set_filter(const struct syscall_set *s);

#endif
