/*
 * NUMA balancing: the kernel's automatic NUMA balancing unmapped the
 * thread's pages to see where they are used, and the hinting fault that
 * followed migrated them: do_numa_page / migrate_misplaced_* frames on
 * the thread's faults.
 */
#include "pattern.h"
#include "stack_match.h"

const struct diag_pattern diag_numa_balancing = {
	.name = "numa-balancing",
	.title = "NUMA balancing: a hinting fault moved the thread's memory "
		 "between nodes",
	.needs = "record --stacks (kernel frames), symbolized; a machine with "
		 "more than one NUMA node",
	.sql =
		"WITH k AS (" STACKS_WITH(
			"y.function IN ('do_numa_page', 'do_huge_pmd_numa_page',"
			" 'task_numa_fault') OR y.function LIKE 'migrate\\_misplaced\\_%' ESCAPE '\\'") "),\n"
		"s AS (" STACK_STALLS("k") ")\n"
		"SELECT s.tid, s.ts, s.dur, 'NUMA hinting faults',\n"
		"       s.what || ', in the NUMA balancing fault path',\n"
		"       s.stack_id, NULL, NULL\n"
		"  FROM s",
	.remedies =
		"turn automatic balancing off: sysctl kernel.numa_balancing=0\n"
		"bind the thread and its memory to one node: numactl --cpunodebind=N "
		"--membind=N\n"
		"first-touch memory from the thread that uses it",
};
