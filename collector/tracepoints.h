/*
 * tracepoints: tracefs (mounted when it is not and faultline may), the
 * formats of tracepoints (libtracefs + libtraceevent), and opening them
 * per CPU into the rings, with a kernel-side filter.
 */
#ifndef FL_TRACEPOINTS_H
#define FL_TRACEPOINTS_H

#include <event-parse.h>
#include <linux/perf_event.h>
#include <stddef.h>

#include "../common/errmsg.h"
#include "../decoder/idmap.h"

struct event_set;

/* Every tracepoint sample: who, when, and the raw record. */
#define TP_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
/* sched_waking's: with the kernel stack of the wake-up, which names what
 * issued it (a timer, a network receive, a block completion, a device's
 * interrupt handler; a futex wake or a pipe write in a thread). */
#define WAKING_SAMPLE_TYPE (TP_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN)
/* Deep enough to reach the interrupt's entry from try_to_wake_up (a
 * network receive's is about 20 frames). */
#define WAKING_MAX_STACK 32

/*
 * Finds tracefs (mounting it at /sys/kernel/tracing when needed and
 * permitted) and makes an empty set of formats for tracepoint_load.  On
 * success *tep is the caller's, freed with tep_free.  0 or -errno with e
 * saying how to mount it.
 */
int tracepoints_init(struct tep_handle **tep, struct errmsg *e);

/*
 * Reads one tracepoint's format from tracefs into tep and returns the
 * event (owned by tep), or NULL with e naming what to check.  Only the
 * formats asked for are read: libtracefs's whole-system loaders also read
 * /proc/kallsyms, which took 18 s under AddressSanitizer.
 */
struct tep_event *tracepoint_load(struct tep_handle *tep, const char *system,
				  const char *name, struct errmsg *e);

/* ev's attr: disabled, TP_SAMPLE_TYPE, every hit sampled. */
void tracepoint_attr(struct perf_event_attr *a, const struct tep_event *ev,
		     size_t ring_bytes);

/* Opens ev, disabled, on set's CPU cpus[idx] for every thread, its
 * records going to that CPU's ring, its id in set->ids with role and arg,
 * the filter applied.  The fd (the caller's) or -errno with e. */
int tracepoint_open_cpu(struct event_set *set, struct tep_event *ev, int idx,
			enum ev_role role, uint16_t arg, const char *filter,
			struct errmsg *e);

/* Opens ev on every CPU of set (all threads), its records going to each
 * CPU's ring, its id in set->ids with role and arg, the filter applied.
 * 0 or -errno with e (a rejected filter quotes the kernel's reason). */
int tracepoint_open(struct event_set *set, struct tep_event *ev,
		    enum ev_role role, uint16_t arg, const char *filter,
		    struct errmsg *e);

#endif
