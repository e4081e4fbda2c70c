/*
 * fd_names: what a descriptor of a process names, as strace -y says it:
 * a file's path, "tcp 127.0.0.1:6379->127.0.0.1:51234", "udp
 * 0.0.0.0:9000", "unix /run/x.sock", "pipe:[4242]", "anon_inode:[eventfd]".
 *
 * Read from /proc/PID/fd when a call is decoded, a fraction of a second
 * after it, and kept until the process's descriptor table changes at that
 * number (fd_names_forget: a close, a dup2 onto it, a call that returned
 * it) or the process execs.  /proc says what the number names when it is
 * read, not when the call ran: the caller holds what it names with a
 * name read after the call until its stream has passed the moment of the
 * reading (record/syscalls.h).
 */
#ifndef FL_FD_NAMES_H
#define FL_FD_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct fd_name_slot {
	uint64_t key;		/* (pid << 32 | fd) + 1; 0: empty */
	char *name;		/* owned; NULL: to be read again */
	uint64_t read_ns;	/* when /proc was read, CLOCK_MONOTONIC */
	uint32_t handed;	/* times name was handed out since it was read */
};

struct fd_names {
	struct fd_name_slot *slots;	/* owned: open addressing */
	size_t nslots, n;		/* nslots 0 or a power of two */
};

void fd_names_init(struct fd_names *c);
void fd_names_release(struct fd_names *c);

/* What fd of pid names, or NULL when it cannot be known (the process or
 * the descriptor is gone, out of memory); *read_ns: when /proc said so
 * (CLOCK_MONOTONIC).  Borrowed until the next call. */
const char *fd_names_get(struct fd_names *c, uint32_t pid, int64_t fd,
			 uint64_t *read_ns);

/* Whether fd of pid's current name has been handed out (so a change of
 * the number may make a name handed out untrue). */
int fd_names_handed(const struct fd_names *c, uint32_t pid, int64_t fd);

/* fd of pid may name something else from now on. */
void fd_names_forget(struct fd_names *c, uint32_t pid, int64_t fd);
/* Every descriptor of pid may (an exec closed some). */
void fd_names_forget_pid(struct fd_names *c, uint32_t pid);

#endif
