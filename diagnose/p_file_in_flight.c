/*
 * file page still being read: a minor fault on a file's mapping that
 * waited in state D.  The page was in the page cache, so the kernel
 * counts the fault minor, but not yet readable: its read, started by
 * read-ahead or by another thread, was still in flight, and the fault
 * slept on the page's lock until the disk finished (seen on sqlite3
 * scanning a cold file through mmap: filemap_fault ->
 * folio_wait_bit_common for 16 ms).  A blocked interval whose kernel
 * stack names another wait (a lock on the way into the fault: the
 * innermost classed frame is not a page's I/O) is not taken: the
 * blocked pattern names it by its stack.  Without stacks a fault's
 * blocked time is taken as the page's, which is what a file fault
 * waits on unless memory ran short (reclaim, listed before, needs
 * stacks to be told apart).  A writable shared mapping is left out: a
 * write fault there may wait for the page's writeback or the file
 * system's journal (page_mkwrite), not a read, and a fault row does not
 * say whether it wrote.  The stack shown is the fault's, else its
 * wait's (the kernel path it slept in).
 */
#include "file_backed.h"
#include "pattern.h"

/* The innermost classed frame of blocked interval s's kernel stack:
 * 'disk' for a wait on a page's I/O; NULL without a stack or a class. */
#define INNERMOST_CLASS \
	"(SELECT w.reason FROM stack_frame sf\n" \
	"   JOIN frame_wait_class w ON w.session_id = sf.session_id\n" \
	"                          AND w.frame_id = sf.frame_id\n" \
	"  WHERE sf.session_id = s.session_id AND sf.stack_id = s.stack_id\n" \
	"    AND w.reason IS NOT NULL ORDER BY sf.depth, w.idx LIMIT 1)"

const struct diag_pattern diag_file_in_flight = {
	.name = "file-in-flight",
	.title = "file page still being read: a minor fault on a file's mapping "
		 "waited for a page already in the page cache whose read had not "
		 "finished (read ahead, or asked for by another thread)",
	.needs = "faults and thread states (record's default) and the target's "
		 "mappings; --stacks tells a page's wait from a lock's",
	.sql =
		/* Each minor fault's blocked intervals: a thread's intervals
		 * do not overlap, so they are the last to begin by the
		 * fault's start and those that begin inside it. */
		"WITH f AS (\n"
		"SELECT f.rowid AS id, f.session_id, f.pid, f.tid, f.ts, f.dur,\n"
		"       f.addr, f.stack_id,\n"
		"       sum(min(s.ts + s.dur, f.ts + f.dur) - max(s.ts, f.ts)) AS blocked,\n"
		"       max(coalesce(" INNERMOST_CLASS " != 'disk', 0)) AS other,\n"
		"       max(s.stack_id) AS wait_stack\n"
		"  FROM fault f\n"
		"  JOIN thread_state s ON s.session_id = f.session_id AND s.tid = f.tid\n"
		"   AND s.ts >= coalesce((SELECT max(s2.ts) FROM thread_state s2\n"
		"                          WHERE s2.session_id = f.session_id\n"
		"                            AND s2.tid = f.tid AND s2.ts <= f.ts), f.ts)\n"
		"   AND s.ts < f.ts + f.dur AND s.ts + s.dur > f.ts\n"
		" WHERE f.session_id = :session AND f.kind = 'minor'\n"
		"   AND f.dur >= :min_fault AND s.state = 'blocked'\n"
		" GROUP BY f.rowid)\n"
		"SELECT f.tid, f.ts, f.dur, m.path,\n"
		"       'fault row ' || f.id || ': minor, ' ||\n"
		"         printf('%.3f ms', f.dur / 1e6) || ', ' ||\n"
		"         printf('%.3f ms', f.blocked / 1e6) || ' of it blocked, at ' ||\n"
		"         m.path || printf(' offset 0x%x', m.pgoff + f.addr - m.start_addr),\n"
		"       coalesce(f.stack_id, f.wait_stack), m.path,\n"
		"       m.pgoff + f.addr - m.start_addr\n"
		"  FROM (SELECT f.*, " FAULT_MAPPING " AS map_row\n"
		"          FROM f WHERE f.blocked >= :min_fault AND f.other = 0) f\n"
		"  JOIN mapping m ON m.rowid = f.map_row\n"
		" WHERE " FILE_BACKED("m") "\n"
		/* PROT_WRITE with MAP_SHARED */
		"   AND NOT (coalesce(m.prot, 0) & 2 AND coalesce(m.flags, 0) & 1)",
	.remedies =
		"read further ahead of need: madvise(MADV_SEQUENTIAL) or a larger "
		"read-ahead for a scan, madvise(MADV_WILLNEED) or "
		"posix_fadvise(POSIX_FADV_WILLNEED) for what is read next\n"
		"keep the file resident: vmtouch -l, or mlock the mapping\n"
		"move the file to faster storage",
};
