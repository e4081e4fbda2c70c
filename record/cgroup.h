/*
 * cgroup: the record engine's cgroup sampling (record --cgroup, or the
 * first target's cgroup).  collector/'s cgroup_sampler reads the
 * cgroup's quota and cpu.stat on a thread of its own; at each round of
 * the pipeline this takes what it read and writes cgroup_cpu rows
 * through the loader (the database belongs to the pipeline's thread).
 *
 * As with record/udp.h: readings carry CLOCK_MONOTONIC times, made
 * wall-clock ts by the loader; a reading newer than the round's
 * watermark waits here for a later round, so the clock anchors up to its
 * time are known when it is stored.
 */
#ifndef FL_RECORD_CGROUP_H
#define FL_RECORD_CGROUP_H

#include <stdint.h>

#include "../collector/cgroup_sampler.h"
#include "../schema/loader.h"

struct record_cgroup {
	struct cgroup_sampler *sampler;	/* borrowed: opened by the command */
	struct loader *loader;		/* borrowed */
	uint64_t interval_ns;
	uint64_t rows;			/* cgroup_cpu rows written */
	struct cgroup_reading *held;	/* owned: newer than the last watermark */
	size_t nheld, held_cap;
};

void record_cgroup_init(struct record_cgroup *c, struct cgroup_sampler *s,
			struct loader *l, uint64_t interval_ns);
void record_cgroup_release(struct record_cgroup *c);

/* Starts and stops the sampler's thread.  Start: 0 or -errno with e. */
int record_cgroup_start(struct record_cgroup *c, struct errmsg *e);
void record_cgroup_stop(struct record_cgroup *c);

/* Writes what the sampler read up to watermark (CLOCK_MONOTONIC ns),
 * keeping the rest.  0 or -errno with e. */
int record_cgroup_flush(struct record_cgroup *c, uint64_t watermark,
			struct errmsg *e);

#endif
