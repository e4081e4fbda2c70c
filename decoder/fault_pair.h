/*
 * fault_pair: turns a thread's fault entry and completion events into
 * faults with a duration.
 *
 * The pairing rule (see DESIGN.md's facts): PERF_COUNT_SW_PAGE_FAULTS
 * fires once when x86 do_user_addr_fault takes a user-address fault;
 * PERF_COUNT_SW_PAGE_FAULTS_MIN or _MAJ fires at most once when that
 * fault completes (mm_account_fault, after any retries; a retried fault is
 * major).  A thread takes one fault at a time, so in time order a thread's
 * completion belongs to its latest entry, and both carry the same address.
 *
 * What breaks the rule, and what becomes of it:
 *   - an entry followed by another entry: the first fault never completed
 *     (SIGSEGV, VM_FAULT_ERROR, a fatal signal during retry).  It is kept
 *     as an `unfinished` fault with no duration.
 *   - a completion with no pending entry (recording began mid-fault, or
 *     the entry was lost), or whose address differs from the pending
 *     entry's: kept as a minor/major fault with no duration, and the
 *     pending entry (if any) becomes unfinished.
 */
#ifndef FL_FAULT_PAIR_H
#define FL_FAULT_PAIR_H

#include <stdint.h>

#include "event.h"

enum fault_kind {
	FAULT_MINOR,
	FAULT_MAJOR,
	FAULT_UNFINISHED,	/* an entry with no completion */
};

#define FAULT_NO_DUR UINT64_MAX

struct fault {
	uint64_t mono_ts;	/* entry, CLOCK_MONOTONIC ns; the completion's
				 * own when there was no entry */
	uint64_t dur_ns;	/* completion - entry; FAULT_NO_DUR if unpaired */
	uint32_t tid, pid;
	uint32_t cpu;		/* CPU of the entry (of the completion if none) */
	uint32_t exit_cpu;	/* CPU of the completion; UINT32_MAX if none */
	enum fault_kind kind;
	uint64_t addr, ip;
	uint32_t stack_id;	/* the completion's stack (stack_table), 0: none */
};

struct fault_pending {
	int active;
	uint64_t mono_ts;	/* entry, CLOCK_MONOTONIC ns */
	uint64_t addr, ip;
	uint32_t cpu, pid;
};

/* Result bits of the pairing calls. */
#define FP_DONE		1	/* *done holds a completed or unpaired fault */
#define FP_ORPHAN	2	/* *orphan holds an entry that never completed */

/* An entry event.  Returns FP_ORPHAN when a previous entry was pending. */
int fault_pair_entry(struct fault_pending *p, const struct ev *e,
		     struct fault *orphan);

/* A completion event (EV_FAULT_MINOR or _MAJOR).  Always sets FP_DONE:
 * *done has a duration when it matched the pending entry. */
int fault_pair_complete(struct fault_pending *p, const struct ev *e,
			struct fault *done, struct fault *orphan);

/* The pending entry, if any, as an unfinished fault (end of recording or
 * thread exit).  Returns FP_ORPHAN or 0. */
int fault_pair_drain(struct fault_pending *p, uint32_t tid,
		     struct fault *orphan);

const char *fault_kind_name(enum fault_kind k);

#endif
