/*
 * pt_flow: Intel PT trace bytes to the function-level control flow of the
 * code that ran: every call and return (and indirect jump, and the points
 * where tracing stopped and started), on CLOCK_MONOTONIC, with the call
 * depth; and every place the flow cannot be followed, as a gap.
 *
 * libipt's block decoder does the decoding (pt_blk_*): a block is a run
 * of instructions that needs no trace; blocks are made to end after each
 * call (end_on_call), so the class of a block's last instruction says
 * whether the flow entered or left a function, and the next block's first
 * address is where it went.  An indirect jump (a tail call, a PLT stub)
 * is no row: libipt 2.0 ends a block there only once its block cache
 * knows the code, so the row would depend on what was decoded before;
 * the function it reached shows in the next call or return from it.
 * Far transfers are 'jump' rows.
 *
 * Time: a row carries libipt's time when it produced it (pt_blk_time):
 * the last TSC (or MTC, CYC) packet it had read.  libipt reads ahead to
 * the next event, so the branch right before a disable or an overflow
 * may carry the time of a timing packet just after it.
 *
 * What becomes a gap: an OVF packet (the CPU dropped trace: 'overflow'),
 * code the image does not hold ('nomap', naming the file that could not
 * be read, or anonymous memory), any other decode error ('decode', with
 * libipt's message), and trace with no PSB to start from ('no-sync').
 * After a gap, decoding resumes at the next PSB.  The reasons that come
 * from outside the trace bytes (AUX record flags, snapshots) are made by
 * pt_sideband.h.
 *
 * Depth: a row's depth is the call depth of the function the branch went
 * to, counted from the shallowest point of this decode (0), so the rows
 * of one trace read as an indented call tree.
 */
#ifndef FL_PT_FLOW_H
#define FL_PT_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

#include "pt_image.h"
#include "pt_time.h"

enum pt_row_kind {
	PT_ROW_CALL,		/* from: the call; to: the callee's entry */
	PT_ROW_RETURN,		/* from: the ret; to: the return address */
	PT_ROW_JUMP,		/* a far transfer (not an indirect jump) */
	PT_ROW_ENABLE,		/* tracing (re)starts at `to` */
	PT_ROW_DISABLE,		/* tracing stops at `from` (a fault or system
				 * call entering the kernel, a switch-out) */
};

/* "call", "return", "jump", "enable", "disable": pt_call.kind. */
const char *pt_row_kind_name(enum pt_row_kind k);

/* 32 bytes: a busy trace makes a row every few bytes. */
struct pt_row {
	uint64_t mono_ns;	/* CLOCK_MONOTONIC; valid when has_time */
	uint64_t from, to;	/* 0: not known */
	int32_t depth;
	uint8_t kind;		/* enum pt_row_kind */
	uint8_t has_time;	/* a TSC preceded it and the clock converts it */
};

enum pt_gap_reason {
	PT_GAP_OVERFLOW,	/* OVF: the CPU's trace buffer overflowed */
	PT_GAP_TRUNCATED,	/* AUX: the area was full, trace was lost */
	PT_GAP_PARTIAL,		/* AUX: the kernel marked the data partial */
	PT_GAP_COLLISION,	/* AUX: a sample collided with another */
	PT_GAP_SNAPSHOT,	/* a stall snapshot stopped tracing this long */
	PT_GAP_OVERWRITTEN,	/* the trace before a stall was overwritten */
	PT_GAP_NO_SYNC,		/* bytes with no PSB to start decoding from */
	PT_GAP_NOMAP,		/* code the image does not hold */
	PT_GAP_DECODE,		/* libipt could not go on */
	PT_GAP_LOST,		/* sideband records were lost */
};

/* "overflow", "truncated", ...: pt_gap.reason. */
const char *pt_gap_reason_name(enum pt_gap_reason r);

struct pt_gap {
	uint64_t mono_ns;	/* where it starts, when has_time */
	int has_time;
	uint64_t dur_ns;	/* how long tracing stopped; 0 when unknown */
	uint8_t reason;		/* enum pt_gap_reason */
	uint64_t offset;	/* byte offset in the trace */
	uint64_t ip;		/* where the flow stopped; 0 when unknown */
	char message[240];	/* what libipt said and what it means */
};

struct pt_flow_config {
	const struct pt_clock *clock;	/* borrowed */
	struct pt_cpu cpu;		/* for errata; vendor pcv_unknown: none */
	/* MTC and CBR timing (pt_config): CPUID 0x15 (tsc_art_ratio den:num),
	 * the mtc_period term, MSR_PLATFORM_INFO's ratio; 0: not used. */
	uint32_t cpuid_0x15_eax, cpuid_0x15_ebx;
	uint8_t mtc_freq;
	uint8_t nom_freq;
};

struct pt_flow_stats {
	uint64_t bytes;		/* trace bytes handed in */
	uint64_t bytes_unsynced;	/* before the first PSB: not decodable */
	uint64_t blocks, insns;
	uint64_t rows, gaps;
};

/*
 * What decodes produce, appended across calls until reset.  A trace of
 * megabytes can make millions of rows: with flush set, pt_flow_decode
 * hands them on every flush_rows rows (flush takes the rows and gaps and
 * empties them, returns 0 or a negative errno that ends the decode), and
 * their depths are then left as counted from the trace's start, which
 * may go below 0: min_depth says how far, for the taker to add back.
 * With flush, out is to be empty when a decode starts.
 */
struct pt_flow_out {
	struct pt_row *rows;	/* owned */
	size_t nrows, caprows;
	struct pt_gap *gaps;	/* owned */
	size_t ngaps, capgaps;
	struct pt_flow_stats st;
	int (*flush)(void *ctx, struct pt_flow_out *o);
	void *flush_ctx;
	size_t flush_rows;	/* 0: never flush */
	int flushed;		/* the last decode flushed: depths are raw */
	int32_t min_depth;	/* the last decode's shallowest depth, raw */
};

void pt_flow_out_init(struct pt_flow_out *o);
/* Empties rows and gaps (keeps the memory and the stats). */
void pt_flow_out_reset(struct pt_flow_out *o);
void pt_flow_out_release(struct pt_flow_out *o);

/*
 * Decodes buf (len bytes of one trace: a fault sample's, a snapshot, or
 * what a full-mode drain read) over space's image and appends its rows
 * (depths counted within this buffer: 0 the shallowest, unless it
 * flushed) and gaps to out.  0, -ENOMEM, or flush's error.  Bad trace is
 * never an error: it is gaps.
 */
int pt_flow_decode(const struct pt_flow_config *cfg, struct pt_space *space,
		   const uint8_t *buf, size_t len, struct pt_flow_out *out);

#endif
