/*
 * syscall_files: every timed call on a descriptor, summed per thread,
 * call and what the descriptor named: "read of /var/lib/x.db: 10,901
 * calls, 235 ms" holds the calls under the threshold too, which have no
 * row of their own.  The syscall_file table.
 */
#ifndef FL_SYSCALL_FILES_H
#define FL_SYSCALL_FILES_H

#include <stddef.h>
#include <stdint.h>

struct syscall_file_sum {
	uint32_t tid, pid;
	int32_t nr;
	char *fd_name;		/* owned; NULL: not known */
	uint64_t calls, total_ns, max_ns, blocked_ns;
};

struct syscall_files {
	struct syscall_file_sum *slots;	/* owned: open addressing; calls 0: empty */
	size_t nslots, n;
};

void syscall_files_init(struct syscall_files *f);
void syscall_files_release(struct syscall_files *f);

/* One call of dur_ns (blocked_ns of it in state D) on a descriptor that
 * named fd_name (NULL: not known; copied).  0 or -ENOMEM. */
int syscall_files_add(struct syscall_files *f, uint32_t tid, uint32_t pid,
		      int32_t nr, const char *fd_name, uint64_t dur_ns,
		      uint64_t blocked_ns);

#endif
