/*
 * file page not cached: a major fault on a file's mapping: the page was
 * not in the page cache (evicted under memory pressure, dropped, or not
 * read since boot: a fault cannot tell which) and the thread waited for
 * it to be read.
 */
#include "file_backed.h"
#include "pattern.h"

const struct diag_pattern diag_file_evicted = {
	.name = "file-evicted",
	.title = "file page not cached: a major fault read a file's page from disk "
		 "(evicted, dropped, or never read)",
	.needs = "faults (record's default) and the target's mappings",
	.sql =
		"SELECT f.tid, f.ts, f.dur, m.path,\n"
		"       'fault row ' || f.id || ': major, ' ||\n"
		"         printf('%.3f ms', f.dur / 1e6) || ' at ' || m.path ||\n"
		"         printf(' offset 0x%x', m.pgoff + f.addr - m.start_addr),\n"
		"       f.stack_id, m.path, m.pgoff + f.addr - m.start_addr\n"
		"  FROM (SELECT f.rowid AS id, f.tid, f.ts, f.dur, f.addr, f.stack_id,\n"
		"               " FAULT_MAPPING " AS map_row\n"
		"          FROM fault f\n"
		"         WHERE f.session_id = :session AND f.dur >= :min_fault\n"
		"           AND f.kind = 'major') f\n"
		"  JOIN mapping m ON m.rowid = f.map_row\n"
		" WHERE " FILE_BACKED("m"),
	.remedies =
		"keep the file resident: mlock/mlockall(MCL_CURRENT), or vmtouch -l\n"
		"read it in at start-up (MAP_POPULATE, madvise(MADV_WILLNEED), "
		"posix_fadvise(POSIX_FADV_WILLNEED))\n"
		"leave the page cache more room: less memory pressure, a higher "
		"memory limit for the cgroup",
};
