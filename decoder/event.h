/*
 * event: the typed, self-contained events that leave the ring decoder and
 * flow through ordering and fault pairing.  Unlike struct perf_rec they
 * own all their bytes (a comm is copied), because they outlive the ring
 * read that produced them.
 */
#ifndef FL_EVENT_H
#define FL_EVENT_H

#include <stdint.h>

#include "idmap.h"
#include "perf_record.h"

enum ev_kind {
	EV_FAULT_ENTRY,		/* PERF_COUNT_SW_PAGE_FAULTS: fault taken */
	EV_FAULT_MINOR,		/* PERF_COUNT_SW_PAGE_FAULTS_MIN: completed minor */
	EV_FAULT_MAJOR,		/* PERF_COUNT_SW_PAGE_FAULTS_MAJ: completed major */
	EV_COMM,		/* thread renamed or exec'd */
	EV_FORK,		/* thread or process created */
	EV_EXIT,		/* thread exited */
	EV_SWITCH_IN,		/* PERF_RECORD_SWITCH(_CPU_WIDE): onto cpu */
	EV_SWITCH_OUT,		/* ... off cpu; u.sw.preempt if involuntary */
	EV_SCHED_SWITCH,	/* sched_switch: tid leaves cpu in
				 * u.sched.prev_state for u.sched.next_tid */
	EV_WAKING,		/* sched_waking: tid is woken by u.sched.waker_tid
				 * running on cpu */
	EV_SWITCH_STACK,	/* context-switches sample: tid is leaving the
				 * CPU with the stack u.fault.stack_id */
	EV_TRACEPOINT,		/* a hit of the -e tracepoint u.tp.idx by tid */
	EV_SYS_ENTER,		/* raw_syscalls:sys_enter: tid calls u.sys.nr */
	EV_SYS_EXIT,		/* raw_syscalls:sys_exit: it returns u.sys.ret */
	EV_LAT_START,		/* record --latency: pair u.tp.idx's START, of
				 * key u.tp.key (no fields) */
	EV_LAT_END,		/* ... its END, with its fields */
	EV_BLOCK,		/* record --block-io: a block request's insert,
				 * issue or completion (u.blk.step), read
				 * through tracefs (collector/block_trace.h) */
	EV_LOST,		/* records of cpu were lost (the kernel's LOST,
				 * the spool's drops), from mono_ts to
				 * u.lost.until_ts: in time order, so the
				 * intervals open then are the ones marked */
};

#define COMM_LEN 16		/* TASK_COMM_LEN, including the NUL */
#define BLOCK_OP_LEN 11		/* block_rq_*'s rwbs[10], and a NUL */

/*
 * The context a wake-up ran in, from sched_waking's common_flags.  In an
 * interrupt the thread the tracepoint reports (common_pid) is only the
 * one the interrupt happened to hit: the waker is the interrupt.
 */
enum wake_ctx {
	WAKE_THREAD,		/* a thread woke it (a syscall, a futex) */
	WAKE_HARDIRQ,		/* a hard interrupt: a timer, a device */
	WAKE_SOFTIRQ,		/* a softirq: network receive, timers, block */
	WAKE_NMI,
};

struct ev {
	uint64_t mono_ts;	/* CLOCK_MONOTONIC ns: the recording's clock */
	uint64_t seq;		/* arrival order, set by order_queue_push */
	uint32_t pid, tid;
	uint32_t cpu;
	uint8_t kind;		/* enum ev_kind */
	uint8_t cpu_wide;	/* from a CPU-wide event (a tracepoint, a
				 * SWITCH_CPU_WIDE record): it may be about
				 * a thread that is no target */
	union {
		struct {
			uint64_t addr;	/* faulting address */
			uint64_t ip;	/* instruction that faulted */
			uint32_t stack_id;	/* stack_table id, 0: none */
		} fault;
		struct {
			char comm[COMM_LEN];
			int exec;
		} comm;
		struct {
			uint32_t ppid, ptid;
		} task;
		struct {
			uint64_t until_ts;	/* >= mono_ts */
		} lost;
		struct {
			int preempt;
		} sw;
		struct {
			int32_t nr;	/* the call's number */
			int64_t ret;	/* EV_SYS_EXIT */
			uint64_t args[6];	/* EV_SYS_ENTER */
		} sys;
		struct {
			uint16_t idx;	/* which -e (--latency), in the order
					 * given */
			uint8_t keyed;	/* EV_LAT_*: key is a field's value,
					 * not the thread */
			uint64_t key;	/* EV_LAT_*: the pair's key */
			/* owned by the order queue that holds the event:
			 * the hit's fields as a JSON object, malloc'd */
			char *fields;
		} tp;
		struct {
			uint8_t step;	/* enum block_step (block_rq.h) */
			char op[BLOCK_OP_LEN];	/* rwbs: "R", "WS", "RA" */
			char comm[COMM_LEN];	/* the event's, "" for a
						 * completion */
			uint32_t dev;	/* dev_t: major << 20 | minor */
			uint32_t bytes;
			int32_t error;	/* a completion's */
			uint64_t sector;
		} blk;
		struct {
			uint32_t prev_state;	/* EV_SCHED_SWITCH */
			uint32_t next_tid;
			char prev_comm[COMM_LEN];	/* tid's name */
			char next_comm[COMM_LEN];
			uint32_t waker_tid, waker_pid;	/* EV_WAKING */
			uint8_t waker_ctx;		/* enum wake_ctx */
			uint32_t waker_stack_id;	/* the wake-up's kernel
							 * stack (stack_table
							 * id), 0: none */
		} sched;
	} u;
};

/*
 * Turns one decoded record into an event for the ordered stream.  role is
 * what the sample's id stands for (the caller has looked it up to choose
 * the sample's format); it is ignored for other records.  Returns 1 when
 * *out was filled, 0 when the record is not one the stream carries (MMAP2,
 * LOST and the like are handled by the caller directly, or the sample is
 * not a fault event's: an unknown id is no event).
 */
int ev_from_rec(enum ev_role role, const struct perf_rec *r, struct ev *out);

/*
 * The same event read in place, for the records of every switch and
 * fault (a third of the armed recorder's CPU went to their full decode):
 * a fault event's sample of layout l (sample_layout_of its format; role
 * ROLE_FAULT_ENTRY, _MINOR or _MAJOR), or a PERF_RECORD_SWITCH or
 * PERF_RECORD_SWITCH_CPU_WIDE of format f.  Returns 1 when *out was
 * filled as ev_from_rec fills it, 0 when rec is not of that fixed size:
 * decode it fully.
 */
int ev_from_fault_sample(enum ev_role role, const struct sample_layout *l,
			 const void *rec, size_t len, struct ev *out);
int ev_from_switch_rec(const struct sample_fmt *f, const void *rec, size_t len,
		       struct ev *out);

#endif
