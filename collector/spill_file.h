/*
 * spill_file: an unnamed file on disk that takes the spool's overflow.
 *
 * When decoding falls behind for longer than the spool's memory covers
 * (a switch storm on many CPUs makes records faster than one thread can
 * decode and store them), the drain thread appends the rings' bytes here
 * instead of dropping them, as perf record writes everything to its
 * file; the engine's thread reads them back in the same order, later.
 * The file is made with O_TMPFILE (or unlinked at once), so nothing is
 * left behind however the recorder ends, and the space of what was read
 * back is given back to the file system as reading goes on.
 *
 * One writer (the producer) and one reader (the consumer), who share two
 * byte positions: written, moved by the writer with release ordering
 * once the bytes are in the file, and read, moved by the reader once it
 * is done with them; the writer keeps written - read within cap.
 */
#ifndef FL_SPILL_FILE_H
#define FL_SPILL_FILE_H

#include <stddef.h>
#include <stdint.h>

struct spill_file {
	int fd;			/* owned; -1: no spill file */
	uint64_t cap;		/* the most bytes written and not yet read */
	uint64_t written;	/* the writer's: bytes appended */
	uint64_t read;		/* the reader's: bytes read back and done */
	uint64_t punched;	/* the reader's: given back up to here */
	/* Counters: read them once both sides are done. */
	uint64_t peak;		/* the most bytes waiting at once */
	uint64_t total;		/* every byte appended */
	int write_errno;	/* the first failed append's errno, or 0 */
};

/* No spill file: appends find no room. */
void spill_file_none(struct spill_file *f);
/* An unnamed file in dir for at most cap bytes waiting at once.  0 or
 * -errno (the directory's, say -EROFS). */
int spill_file_open(struct spill_file *f, const char *dir, uint64_t cap);
void spill_file_close(struct spill_file *f);

/* Writer: is there room for n more bytes? */
int spill_file_has_room(struct spill_file *f, uint64_t n);
/* Writer: appends n bytes; their offset, or -errno (-ENOSPC past cap or
 * on a full file system; nothing is then appended). */
int64_t spill_file_append(struct spill_file *f, const void *buf, size_t n);

/* Either side: the bytes appended and not yet read back (a moment's
 * view). */
uint64_t spill_file_waiting(const struct spill_file *f);

/* Reader: the n bytes at off, appended earlier.  0 or -errno. */
int spill_file_read(struct spill_file *f, uint64_t off, void *buf, size_t n);
/* Reader: done with everything before upto (a position it read up to). */
void spill_file_done(struct spill_file *f, uint64_t upto);

#endif
