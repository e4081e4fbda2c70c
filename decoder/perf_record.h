/*
 * perf_record: bytes of one perf ring record to a typed struct.
 *
 * Pure: no syscalls, no allocation, no globals.  Every entry takes the
 * record bytes, their length and the format the events were opened with,
 * fills the caller's struct and returns 0, or a negative errno:
 *   -EBADMSG   the record is shorter than its header or its fields claim
 *   -ENOMSG    a record type this decoder does not know (header still set)
 *
 * Strings and variable-length arrays in the decoded structs are borrowed:
 * they point into the bytes passed in and are valid as long as those are.
 */
#ifndef FL_PERF_RECORD_H
#define FL_PERF_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

/* What the events were opened with: all events that share a ring must
 * share this, which collector/ guarantees by building one attr template. */
struct sample_fmt {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t regs_user_mask;	/* attr.sample_regs_user */
	uint64_t regs_intr_mask;	/* attr.sample_regs_intr */
	uint64_t branch_sample_type;	/* for PERF_SAMPLE_BRANCH_HW_INDEX */
	int sample_id_all;
};

/* The sample_id trailer of non-sample records (attr.sample_id_all) and
 * the matching fields of a sample.  `present` says which were there. */
struct sample_id {
	uint64_t present;	/* PERF_SAMPLE_* bits that were decoded */
	uint32_t pid, tid;
	uint64_t time;		/* the event's clock: CLOCK_MONOTONIC for ours */
	uint64_t id;		/* PERF_SAMPLE_ID or _IDENTIFIER */
	uint64_t stream_id;
	uint32_t cpu;
};

struct sample {
	struct sample_id sid;
	uint64_t ip;
	uint64_t addr;
	uint64_t period;
	uint64_t callchain_nr;
	const void *callchain;		/* borrowed, callchain_nr u64s, maybe unaligned: read with memcpy */
	uint32_t raw_size;
	const void *raw;		/* borrowed */
	uint64_t regs_user_abi;
	const void *regs_user;		/* borrowed, weight(regs_user_mask) u64s, maybe unaligned */
	uint64_t stack_user_size;
	const void *stack_user;		/* borrowed */
	uint64_t stack_user_dyn_size;
	uint64_t weight;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t aux_size;
	const void *aux;		/* borrowed: PERF_SAMPLE_AUX, aux_size bytes */
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
};

struct rec_mmap {		/* PERF_RECORD_MMAP and MMAP2 */
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;	/* MMAP2 without build id */
	uint64_t ino, ino_generation;
	uint8_t build_id[20];
	uint8_t build_id_size;	/* 0 when the kernel sent maj/min/ino */
	uint32_t prot, flags;
	const char *filename;	/* borrowed, NUL-terminated within the record */
};

struct rec_comm {
	uint32_t pid, tid;
	const char *comm;	/* borrowed, NUL-terminated within the record */
	int exec;		/* PERF_RECORD_MISC_COMM_EXEC */
};

struct rec_task {		/* PERF_RECORD_FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct rec_lost {		/* PERF_RECORD_LOST and LOST_SAMPLES */
	uint64_t id;		/* 0 for LOST_SAMPLES */
	uint64_t lost;
};

struct rec_throttle {		/* THROTTLE and UNTHROTTLE */
	uint64_t time, id, stream_id;
};

struct rec_switch {		/* SWITCH and SWITCH_CPU_WIDE */
	int out;		/* PERF_RECORD_MISC_SWITCH_OUT */
	int preempt;		/* PERF_RECORD_MISC_SWITCH_OUT_PREEMPT */
	uint32_t next_prev_pid, next_prev_tid;	/* CPU_WIDE only */
};

struct rec_aux {
	uint64_t aux_offset, aux_size, flags;
};

struct rec_itrace_start {
	uint32_t pid, tid;
};

struct perf_rec {
	uint32_t type;		/* PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;
	struct sample_id sid;	/* trailer (or the sample's own fields) */
	union {
		struct sample sample;
		struct rec_mmap mmap;
		struct rec_comm comm;
		struct rec_task task;
		struct rec_lost lost;
		struct rec_throttle throttle;
		struct rec_switch sw;
		struct rec_aux aux;
		struct rec_itrace_start itrace;
	} u;
};

/* Size in bytes of the sample_id trailer for this format (0 if none). */
size_t sample_id_size(const struct sample_fmt *f);

/* Decodes one whole record: buf holds at least the header, len is the
 * number of bytes available; the header's size must fit in len. */
int perf_rec_decode(const struct sample_fmt *f, const void *buf, size_t len,
		    struct perf_rec *out);

/* The body of a PERF_RECORD_SAMPLE, without its 8-byte header. */
int sample_decode(const struct sample_fmt *f, const void *body, size_t len,
		  struct sample *out);

/* Reads the sample_id trailer at the end of a non-sample record body. */
int sample_id_decode(const struct sample_fmt *f, const void *body, size_t len,
		     struct sample_id *out);

/* The id of a PERF_RECORD_SAMPLE whose format starts with
 * PERF_SAMPLE_IDENTIFIER (rec points at the header): how a reader picks
 * the format of a sample before decoding it.  0 or -EBADMSG. */
int sample_peek_id(const void *rec, size_t len, uint64_t *id);

/* The time of a PERF_RECORD_SAMPLE of format f (with PERF_SAMPLE_TIME),
 * without decoding the rest.  0, -ENOENT (no time in f) or -EBADMSG. */
int sample_peek_time(const struct sample_fmt *f, const void *rec, size_t len,
		     uint64_t *time);

/*
 * Where a format's fixed fields sit, for samples read many times a
 * second (the fault events'): IP, TID, TIME, ADDR and CPU come before
 * any field of variable size, so their offsets follow from the format
 * alone.  size is the whole record's (header included) when every field
 * of the format has a fixed size, and 0 otherwise: a record of another
 * size is malformed or of another format, and goes through
 * perf_rec_decode.
 */
struct sample_layout {
	size_t size;			/* 0: no fixed size */
	uint64_t present;		/* which of IP, TID, TIME, ADDR, CPU */
	uint16_t ip, tid, time, addr, cpu;	/* offsets from the header's start */
	/* Where CALLCHAIN (else RAW) begins when the format is a
	 * tracepoint's: IDENTIFIER, IP, TID, TIME, ADDR and CPU at most,
	 * then CALLCHAIN and RAW, RAW at least (sample_decode_tail); 0
	 * for any other format. */
	uint16_t tail;
	uint64_t tail_type;		/* with tail: the format's sample_type */
};

struct sample_fixed {
	uint64_t ip, time, addr;	/* 0 where the format has none */
	uint32_t pid, tid, cpu;
};

void sample_layout_of(const struct sample_fmt *f, struct sample_layout *out);

/* The fixed fields of a PERF_RECORD_SAMPLE of layout l: what
 * sample_decode reads for them.  0, or -1 when len is not l->size. */
static inline int sample_read_fixed(const struct sample_layout *l,
				    const void *rec, size_t len,
				    struct sample_fixed *out)
{
	const uint8_t *b = (const uint8_t *)rec;

	if (!l->size || len != l->size)
		return -1;
	memset(out, 0, sizeof(*out));
	if (l->present & PERF_SAMPLE_IP)
		memcpy(&out->ip, b + l->ip, 8);
	if (l->present & PERF_SAMPLE_TID) {
		memcpy(&out->pid, b + l->tid, 4);
		memcpy(&out->tid, b + l->tid + 4, 4);
	}
	if (l->present & PERF_SAMPLE_TIME)
		memcpy(&out->time, b + l->time, 8);
	if (l->present & PERF_SAMPLE_ADDR)
		memcpy(&out->addr, b + l->addr, 8);
	if (l->present & PERF_SAMPLE_CPU)
		memcpy(&out->cpu, b + l->cpu, 4);
	return 0;
}

/*
 * A sample of layout l with a tail (a tracepoint's format) decoded where
 * it lies, without sample_decode's walk over every field: what
 * perf_rec_decode puts in its u.sample.  0, or -1 when l has no tail,
 * the record is no PERF_RECORD_SAMPLE, or its length is not exactly what
 * its callchain and raw sizes say: perf_rec_decode then reads it, and
 * says whether it is malformed.
 */
int sample_decode_tail(const struct sample_layout *l, const void *rec,
		       size_t len, struct sample *out);

/*
 * Hands each record of buf (len bytes of whole ring records, in ring
 * order, as collector/ring.h's ring_move leaves them) to fn with its
 * length; rec is borrowed for the call.  A header that cannot be (size
 * under 8 or not a multiple of 8, or past the end) ends the walk, since
 * nothing after it can be trusted, and counts in *framing_errors.
 * Returns 0 or fn's first negative return.
 */
int perf_records_walk(const void *buf, size_t len,
		      int (*fn)(void *ctx, const void *rec, size_t len),
		      void *ctx, uint64_t *framing_errors);

/* A short name for a record type ("SAMPLE", "MMAP2", ...); "UNKNOWN". */
const char *perf_rec_type_name(uint32_t type);

#endif
