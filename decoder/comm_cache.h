/*
 * comm_cache: the latest name seen for every thread on the machine, so a
 * thread that is no target (a waker, a preempting thread) can still be
 * named.  Fed from sched_switch, whose prev_comm and next_comm name every
 * thread that runs; a thread that has not run since the recording began
 * is not in it.  Names of reused tids are overwritten by the next switch.
 */
#ifndef FL_COMM_CACHE_H
#define FL_COMM_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define COMM_CACHE_LEN 16	/* TASK_COMM_LEN, including the NUL */

struct comm_cache_slot {
	uint64_t key;		/* tid + 1; 0: empty */
	char comm[COMM_CACHE_LEN];
};

struct comm_cache {
	struct comm_cache_slot *slots;	/* owned: open addressing */
	size_t nslots;			/* 0 or a power of two */
	size_t n;
};

void comm_cache_init(struct comm_cache *c);
void comm_cache_release(struct comm_cache *c);

/* Remembers comm (at most COMM_CACHE_LEN - 1 bytes of it, borrowed for
 * the call) as tid's name.  0 or -ENOMEM (the cache is then unchanged). */
int comm_cache_put(struct comm_cache *c, uint32_t tid, const char *comm);

/* tid's latest name (borrowed: valid until the next put), or NULL. */
const char *comm_cache_get(const struct comm_cache *c, uint32_t tid);

#endif
