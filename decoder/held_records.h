/*
 * held_records: ring records held back until the end of a drain round,
 * then handed on in time order.
 *
 * Why: the recorder drains the CPUs' rings one after another, so a
 * record can be read before an earlier one of another CPU (a sample of a
 * thread that migrated, read before the MMAP2 its process wrote on the
 * CPU it left).  Unwinding a stack needs every mapping made before it;
 * any record written before a sample has been read by the end of the
 * round that read the sample (its ring is read later in that round, or
 * was read earlier).  Holding the records that matter to the unwinder
 * (MMAP2, COMM exec, samples with a stack copy) to the round's end and
 * replaying them by time gives the unwinder every mapping in order.
 *
 * Pure: copies and sorts bytes, no I/O.
 */
#ifndef FL_HELD_RECORDS_H
#define FL_HELD_RECORDS_H

#include <stddef.h>
#include <stdint.h>

struct held_record {
	uint64_t mono_ts;	/* the record's time, for the order */
	uint64_t seq;		/* arrival: keeps equal times in ring order */
	int cpu;
	size_t len;
	uint8_t *bytes;		/* owned: a copy of the ring record */
};

struct held_records {
	struct held_record *v;	/* owned */
	size_t n, cap;
	uint64_t seq;
};

void held_records_init(struct held_records *h);
void held_records_release(struct held_records *h);

/* Copies the record (bytes borrowed for the call).  0 or -ENOMEM. */
int held_records_push(struct held_records *h, uint64_t mono_ts, int cpu,
		      const void *bytes, size_t len);

/* Hands every held record to fn in (time, arrival) order, then forgets
 * them all.  Returns 0 or fn's first negative return (the rest are
 * dropped). */
int held_records_replay(struct held_records *h,
			int (*fn)(void *ctx, int cpu, const void *bytes,
				  size_t len),
			void *ctx);

#endif
