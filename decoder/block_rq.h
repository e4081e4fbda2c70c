/*
 * block_rq: block requests (record --block-io), each from its insert
 * into a queue (block:block_rq_insert) through its issue to the device
 * (block:block_rq_issue) to its completion (block:block_rq_complete),
 * read from a tracefs instance's raw buffers (collector/block_trace.h).
 *
 * The completion runs in an interrupt, in whatever thread it hit, and an
 * issue may run in a kworker (kblockd) rather than the submitter: so the
 * steps are matched by device and start sector, never by thread, and a
 * request is a target thread's when its insert (or, without one, its
 * issue) ran in that thread.  Requests of one device and sector may be
 * pending together (flushes are all at sector 0): each step goes to the
 * oldest pending one it can apply to, an issue to one not issued, a
 * completion to one issued.  What breaks the rule:
 *   - an issue without an insert (virtio-blk with no I/O scheduler
 *     issues directly, or it was inserted before the recording): the
 *     request begins at its issue, with no queue time.
 *   - a requeue (block_rq_requeue): the device gave an issued request
 *     back; its insert again is no new request, its issue again is
 *     counted, and its service time runs from that last issue.
 *   - a completion with no issued request pending (issued before the
 *     recording, or its events were lost): counted, not stored.
 *   - a request pending at the end: unfinished.  (One whose completion
 *     was lost would take the next completion at its sector: the
 *     instance's losses are stored, so such a recording says so.)
 * Pure: no I/O.  The fields are read with the formats the caller loaded.
 */
#ifndef FL_BLOCK_RQ_H
#define FL_BLOCK_RQ_H

#include <stddef.h>
#include <stdint.h>
#include <event-parse.h>

#include "event.h"

enum block_step { BLK_INSERT, BLK_ISSUE, BLK_COMPLETE, BLK_REQUEUE, BLK_STEPS };

/* The fields of one of the four events (bytes and comm: insert and
 * issue; error: complete; requeue has neither); borrowed from the
 * caller's tep. */
struct block_fields {
	int id;			/* the event's common_type */
	struct tep_format_field *pid, *dev, *sector, *nr_sector, *rwbs;
	struct tep_format_field *bytes, *comm, *error;
};

/* f[BLK_INSERT..BLK_REQUEUE] from the four formats (ev[step]).  0, or
 * -ENOENT when this kernel's formats lack a field. */
int block_fields_bind(struct block_fields f[BLK_STEPS],
		      struct tep_event *const ev[BLK_STEPS]);

/*
 * One raw tracefs event (raw, size bytes: its common_type first) stamped
 * mono_ts on cpu, to an EV_BLOCK event.  1 with *out; 0 when it is none
 * of the four, or too short for its fields (malformed).
 */
int block_ev(const struct block_fields f[BLK_STEPS], const void *raw,
	     size_t size, uint64_t mono_ts, uint32_t cpu, struct ev *out);

#define BLOCK_NO_TS UINT64_MAX

/* A request, pending or handed out. */
struct block_req {
	uint32_t dev;		/* the kernel's dev_t: major << 20 | minor */
	uint64_t sector;
	uint32_t bytes;
	char op[BLOCK_OP_LEN];	/* rwbs: "R", "WS", "RA", "FF" ... */
	char comm[COMM_LEN];	/* the thread it was issued in, as the event
				 * names it: a kworker's, or the target's */
	uint64_t insert_ts;	/* CLOCK_MONOTONIC ns; BLOCK_NO_TS: none seen */
	uint64_t issue_ts;	/* the last issue; BLOCK_NO_TS: not issued */
	uint64_t complete_ts;	/* BLOCK_NO_TS: unfinished */
	uint32_t tid, pid;	/* the target thread it was issued in; 0:
				 * none (another process, a kworker) */
	uint32_t cpu;		/* of its first step */
	uint32_t requeues;
	uint8_t given_back;	/* requeued, not issued again yet */
	int32_t error;		/* the completion's: 0, or a negative errno */
};

struct block_pending {
	/* owned, oldest first; few: the devices' queue depths */
	struct block_req *v;
	size_t n, cap;
	uint64_t completed, unfinished, unmatched, requeued;
};

void block_pending_init(struct block_pending *p);
void block_pending_release(struct block_pending *p);

/* What block_rq_step handed out. */
#define BR_DONE		1	/* *done holds a completed request */

/* An EV_BLOCK event in time order; pid: the process of e->tid when that
 * is a target thread, else 0.  BR_DONE, 0, or -ENOMEM. */
int block_rq_step(struct block_pending *p, const struct ev *e, uint32_t pid,
		  struct block_req *done);

/* One pending request as unfinished (the end): 1 with *out, 0 none left. */
int block_rq_drain(struct block_pending *p, struct block_req *out);

/* The operation of a request's rwbs: "R", "W", "D" (discard), "E"
 * (secure erase), "FLUSH" (a flush alone: "FN"), else "N" (none); the
 * flags after it (S sync, M metadata, A read-ahead, F FUA) stay in the
 * rwbs.  Static text. */
const char *block_op(const char *rwbs);

/* A tracefs per_cpu/cpuN/stats text: its "overrun:" (events the writer
 * overwrote before they were read) and "dropped events:" (events refused
 * for a full buffer) counts.  0, or -EINVAL when either is missing. */
int block_stats_parse(const char *text, uint64_t *overrun, uint64_t *dropped);

#endif
