/*
 * callchain: PERF_SAMPLE_CALLCHAIN's ips to frames.  The kernel writes
 * context markers (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER, ...: values
 * at or above (u64)-4095) before each part; they are dropped, the frames
 * after them marked kernel or user.  The first frame of each part is the
 * interrupted instruction itself; the others are return addresses.
 *
 * The kernel walks the user part by frame pointers and stores each
 * "return address" it reads, whatever it is.  Code built without frame
 * pointers leaves rbp holding data, and the walk then reads words of a
 * string or a counter as return addresses (0x76616a2f6d766a2f is
 * "/jvm/jav").  A user return address that no process can map ends the
 * user part there: it and everything the walk read after it are not the
 * thread's frames.
 */
#ifndef FL_CALLCHAIN_H
#define FL_CALLCHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "stack_table.h"

/* User space ends below 2^56 on x86-64 with 5-level paging (2^47 with 4
 * levels: an address between the two is left to symbolization, which
 * finds it in no mapping); page zero is never mapped for code. */
#define CALLCHAIN_USER_END (1ull << 56)
#define CALLCHAIN_USER_START 4096ull

/* Appends the frames of ips[0..nr) (borrowed, maybe unaligned) to
 * out[*n..max); user: keep the user part too.  Returns how many were
 * appended.  *cut_at: the user return address the user part was cut at
 * (outside [CALLCHAIN_USER_START, CALLCHAIN_USER_END)), else 0. */
size_t callchain_frames(const void *ips, uint64_t nr, int user,
			struct stack_frame_in *out, size_t *n, size_t max,
			uint64_t *cut_at);

#endif
