/*
 * thread_names: the name and process of every target thread alive when
 * recording began, read from /proc once, at the start, as perf writes
 * the names of existing threads before its first sample.
 *
 * Why not on first sight: the pipeline meets a thread at its first event,
 * which can come seconds after the event itself behind a full spool; the
 * thread may be gone by then (no name at all) or renamed (a wrong one).
 * Threads born later are named by their FORK record (the creator's name)
 * and COMM records; /proc stays the fallback for a thread met before
 * either (one born between this read and its events' start).
 *
 * Which threads: those of -p, -t, and with -a or --comm every thread on
 * the machine that target_wanted accepts; none for a command, which is
 * started after this and named by its exec's COMM record.
 */
#ifndef FL_THREAD_NAMES_H
#define FL_THREAD_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "../collector/targets.h"

struct thread_name {
	uint32_t tid, pid;
	char comm[16];
};

struct thread_names {
	struct thread_name *v;	/* owned: sorted by tid */
	size_t n, cap;
};

void thread_names_init(struct thread_names *n);
void thread_names_release(struct thread_names *n);

/* Reads the targets' threads.  0, or -ENOMEM (a thread or process gone
 * meanwhile is left out, not an error). */
int thread_names_read(struct thread_names *n, const struct target_set *t);

/* tid's entry, or NULL. */
const struct thread_name *thread_names_find(const struct thread_names *n,
					    uint32_t tid);

#endif
