/*
 * syscalls: the record engine's part of --syscalls.  Each finished call
 * the stream hands on (decoder/fault_stream.h syscall_done) keeps the
 * descriptor names current (collector/fd_names.h) and, when it is to be
 * stored, becomes a syscall row: its name, its arguments by the names the
 * kernel's syscalls:sys_enter_* formats give them, its descriptor named.
 *
 * A descriptor's name comes from /proc, read after the call: it is true
 * of the call only if the process did not close, replace or reopen that
 * number between the call and the reading.  So a named row is held until
 * the stream has passed the moment /proc was read (record_syscalls_flush,
 * at each round's watermark); a change of that number seen in between
 * unnames it (fd_name NULL) rather than store a wrong name.
 */
#ifndef FL_RECORD_SYSCALLS_H
#define FL_RECORD_SYSCALLS_H

#include <event-parse.h>

#include "../collector/fd_names.h"
#include "../collector/syscall_set.h"
#include "../common/strbuf.h"
#include "../decoder/syscall_pair.h"
#include "../decoder/thread_table.h"
#include "../schema/loader.h"
#include "syscall_files.h"

/* One call's arguments, as its syscalls:sys_enter_NAME format has them. */
struct syscall_sig {
	int nargs;		/* 0: not known (no format): a0..a5 */
	char names[6][24];
	unsigned char pointer[6], is_signed[6], size[6];
	int fd_arg;		/* the argument that is its descriptor, or -1 */
};

/* A call waiting for the stream to pass the reading of its descriptor's
 * name: a row to store, or a call to sum per file (syscall_files.h). */
struct held_syscall {
	struct syscall_call c;
	char *name_of_fd;		/* owned; NULL once unnamed */
	char *args;			/* owned; NULL: no row, only summed */
	int64_t fd;
	uint64_t read_ns;		/* when its name was read */
};

struct record_syscalls {
	const struct syscall_set *set;	/* borrowed; NULL without --syscalls */
	struct syscall_sig *sigs;	/* owned: [SYSCALL_NR_MAX], by number */
	/* what changes a descriptor number's file, by number: 1 the call
	 * returns a new descriptor, 2 it closes a range (close_range): all
	 * of the process's are forgotten */
	unsigned char *fd_effect;	/* owned: [SYSCALL_NR_MAX] */
	struct fd_names names;		/* owned */
	struct strbuf args;		/* owned: scratch */
	struct held_syscall *held;	/* owned: in the order of their exits */
	size_t nheld, capheld;
	uint64_t named, unnamed;	/* calls on a descriptor, by whether
					 * what it named is known */
	struct syscall_files files;	/* owned: per thread, call and file */
};

/* set NULL: off.  tep: where the calls' formats are read from (tracefs;
 * a call without one is stored with its arguments as a0..a5).  0 or
 * -ENOMEM. */
int record_syscalls_init(struct record_syscalls *rs,
			 const struct syscall_set *set, struct tep_handle *tep);
void record_syscalls_release(struct record_syscalls *rs);

/* Is nr a call the user asked for? */
int record_syscalls_wanted(const struct record_syscalls *rs, int32_t nr);

/* A finished call (store: to be stored).  0 or -errno with e. */
int record_syscalls_done(struct record_syscalls *rs, struct loader *l,
			 const struct syscall_call *c, int store,
			 struct errmsg *e);

/* The held rows whose names were read at or before watermark (every
 * event before it has been through the stream; UINT64_MAX at the end),
 * stored.  0 or -errno with e. */
int record_syscalls_flush(struct record_syscalls *rs, struct loader *l,
			  uint64_t watermark, struct errmsg *e);

/* The per-file sums, after the last flush.  0 or -errno with e. */
int record_syscalls_store_files(struct record_syscalls *rs, struct loader *l,
				struct errmsg *e);

/* pid exec'd at mono_ts: its descriptors may have closed. */
void record_syscalls_exec(struct record_syscalls *rs, uint32_t pid,
			  uint64_t mono_ts);

#endif
