/*
 * direct reclaim and compaction: the thread had to free (or move) memory
 * itself before its allocation could go on: the kernel's reclaim or
 * compaction frames under a long fault or block.  Under a memory cgroup's
 * limit the charge path reclaims the same way.
 */
#include "pattern.h"
#include "stack_match.h"

const struct diag_pattern diag_reclaim = {
	.name = "reclaim",
	.title = "direct reclaim or compaction: the thread freed memory itself "
		 "before it could go on",
	.needs = "record --stacks (kernel frames), symbolized",
	.sql =
		"WITH k AS (" STACKS_WITH(
			"y.function IN ('try_to_free_pages', 'try_to_free_mem_cgroup_pages',"
			" '__alloc_pages_direct_reclaim', '__alloc_pages_direct_compact',"
			" 'try_to_compact_pages', 'shrink_node', 'mem_cgroup_handle_over_high',"
			" 'reclaim_high', 'do_try_to_free_pages')") "),\n"
		"s AS (" STACK_STALLS("k") ")\n"
		"SELECT s.tid, s.ts, s.dur,\n"
		"       CASE WHEN EXISTS (SELECT 1 FROM stack_frame sf JOIN symbol y\n"
		"              ON y.session_id = sf.session_id AND y.frame_id = sf.frame_id\n"
		"             WHERE sf.session_id = :session AND sf.stack_id = s.stack_id\n"
		"               AND y.function LIKE '%compact%')\n"
		"            THEN 'compaction' ELSE 'reclaim' END,\n"
		"       s.what || ', with the kernel reclaiming memory on its stack',\n"
		"       s.stack_id, NULL, NULL\n"
		"  FROM s",
	.remedies =
		"give the cgroup more room (memory.high / memory.max on v2, "
		"memory.limit_in_bytes on v1) or use less memory\n"
		"let kswapd start earlier: raise vm.min_free_kbytes or "
		"vm.watermark_scale_factor\n"
		"allocate and touch memory at start-up; avoid huge allocations "
		"(and THP compaction: transparent_hugepage/defrag=defer) on the hot path",
};
