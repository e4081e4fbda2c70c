/*
 * callchain: PERF_SAMPLE_CALLCHAIN's ips to frames.  The kernel writes
 * context markers (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER, ...: values
 * at or above (u64)-4095) before each part; they are dropped, the frames
 * after them marked kernel or user.  The first frame of each part is the
 * interrupted instruction itself; the others are return addresses.
 */
#ifndef FL_CALLCHAIN_H
#define FL_CALLCHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "stack_table.h"

/* Appends the frames of ips[0..nr) (borrowed, maybe unaligned) to
 * out[*n..max); user: keep the user part too.  Returns how many were
 * appended. */
size_t callchain_frames(const void *ips, uint64_t nr, int user,
			struct stack_frame_in *out, size_t *n, size_t max);

#endif
