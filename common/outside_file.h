/*
 * outside_file: opening a file that someone other than faultline's user
 * may have put at its path, the one way.  faultline runs as root on
 * shared machines and reads files at paths an unprivileged user can
 * write to: /tmp/perf-PID.map, the files a target mapped, debug files
 * beside them.  A plain open() of such a path follows a planted symbolic
 * link anywhere, blocks for ever on a FIFO (no signal ends it), and a
 * read of /dev/zero never ends; a map written by another user names
 * code with that user's words.  So, as perf does for its JIT maps:
 *
 *   - the path is opened with O_NONBLOCK (a FIFO opens at once) and
 *     O_CLOEXEC, and with O_NOFOLLOW unless the rule follows links;
 *   - what was opened must be a regular file (fstat of the descriptor,
 *     not of the path, so nothing is swapped between check and read);
 *   - when the rule names an owner, the file must belong to root or to
 *     that owner;
 *   - it must not be larger than the rule's bound, and a read stops at
 *     the bound however the file grows meanwhile.
 *
 * A file that fails a check is skipped, never an error of the command:
 * the caller counts and names it, with the reason given here.
 */
#ifndef FL_OUTSIDE_FILE_H
#define FL_OUTSIDE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Any owner: the file's owner is not checked. */
#define OUTSIDE_ANY_OWNER ((uid_t)-1)

struct outside_rule {
	uid_t owner;		/* trusted besides root; OUTSIDE_ANY_OWNER: any */
	int follow;		/* a symbolic link at the path is followed */
	uint64_t max_size;	/* largest file read, bytes; 0: no bound */
};

/*
 * Opens path under rule r: a descriptor (the caller closes it; blocking
 * mode restored) with *st filled, -ENOENT when nothing is there, -EPERM
 * when something is there and fails a check (*why says which: static
 * text such as "a FIFO, not a regular file"), or another -errno (*why
 * strerror's text).
 */
int outside_file_open(const char *path, const struct outside_rule *r,
		      struct stat *st, const char **why);

/*
 * Reads the whole of path under rule r into *buf (owned by the caller,
 * free(); NUL-terminated) and *len.  Returns as outside_file_open, and
 * -EFBIG (*why says so) for a file that grew past the bound while read;
 * -ENOMEM.
 */
int outside_file_read(const char *path, const struct outside_rule *r,
		      char **buf, size_t *len, const char **why);

#endif
