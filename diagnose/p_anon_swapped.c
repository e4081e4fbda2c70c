/*
 * anonymous memory swapped out: a major fault on memory that is no
 * file's (heap, stack, anonymous or shared memory): the page had been
 * swapped out and was read back from swap.
 */
#include "file_backed.h"
#include "pattern.h"

const struct diag_pattern diag_anon_swapped = {
	.name = "anon-swapped",
	.title = "anonymous memory swapped out: a major fault read memory back "
		 "from swap",
	.needs = "faults (record's default) and the target's mappings",
	.sql =
		"SELECT f.tid, f.ts, f.dur, 'anonymous memory',\n"
		"       'fault row ' || f.id || ': major, ' ||\n"
		"         printf('%.3f ms', f.dur / 1e6) || printf(' at 0x%x', f.addr) ||\n"
		"         coalesce(' in ' || nullif(m.path, ''), ', in no file mapping'),\n"
		"       f.stack_id, NULL, NULL\n"
		"  FROM (SELECT f.rowid AS id, f.tid, f.ts, f.dur, f.addr, f.stack_id,\n"
		"               " FAULT_MAPPING " AS map_row\n"
		"          FROM fault f\n"
		"         WHERE f.session_id = :session AND f.dur >= :min_fault\n"
		"           AND f.kind = 'major') f\n"
		"  LEFT JOIN mapping m ON m.rowid = f.map_row\n"
		" WHERE NOT coalesce(" FILE_BACKED("m") ", 0)",
	.remedies =
		"lock the memory in: mlockall(MCL_CURRENT | MCL_FUTURE)\n"
		"lower vm.swappiness, or give the cgroup more memory "
		"(memory.max, memory.limit_in_bytes)\n"
		"take the service's memory out of swap: memory.swap.max=0 on cgroup v2",
};
