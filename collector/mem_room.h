/*
 * mem_room: is there memory for what record may make resident (the
 * spool, the rings)?  The spool becomes resident as records fill it, all
 * of it when decoding falls behind by that much (collector/spool.c), so
 * one larger than the memory faultline may use is not refused by mmap:
 * the kernel's OOM killer ends faultline instead, in the middle of the
 * burst, with no word.  This looks first, at the two limits that apply: the
 * memory cgroup faultline runs in (v1 memory.limit_in_bytes, v2
 * memory.max, the lowest on its path, less what the cgroup uses) and
 * the machine's MemAvailable.
 */
#ifndef FL_MEM_ROOM_H
#define FL_MEM_ROOM_H

#include <stdint.h>

#include "../common/errmsg.h"

/* Memory faultline needs beside the spool and the rings, counted with
 * them (its own heap, SQLite's cache, the decoder's tables): the fault
 * loop of bench/collector peaked at 86.5 MiB with a 64 MiB spool. */
#define MEM_ROOM_SLACK_BYTES (32ull << 20)

/*
 * 0 when spool_bytes and ring_bytes (all rings) fit in what the cgroup
 * and the machine leave, with MEM_ROOM_SLACK_BYTES; else -ENOMEM with e
 * naming the limit, what fits, and the fix.  A limit that cannot be read
 * is taken as none.
 */
int mem_room_check(uint64_t spool_bytes, uint64_t ring_bytes,
		   struct errmsg *e);

#endif
