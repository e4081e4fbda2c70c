/*
 * flight_minute: what record --flight keeps whether it dumps or not:
 * every minute, a log2 histogram of each target thread's faults (by
 * kind), off-CPU spans (by state: sleeping, blocked, runnable, ...) and
 * system calls (by name, those --syscalls asks for), so the database
 * says how often things happened between dumps (flight_minute rows, on
 * the flight session).  Spans are counted when the engine sees them end,
 * which is within a drain round of their end: one that ends at a
 * minute's edge may count in the next minute.
 *
 * The counts live in a small hash of (thread, kind) for the current
 * minute, emptied when the minute is written: memory follows the threads
 * and kinds active in a minute, not the time armed.
 */
#ifndef FL_RECORD_FLIGHT_MINUTE_H
#define FL_RECORD_FLIGHT_MINUTE_H

#include <stddef.h>
#include <stdint.h>

#include "../decoder/hist.h"
#include "../schema/loader.h"

#define FLIGHT_MINUTE_NS (60ull * 1000 * 1000 * 1000)

/* Kinds: FM_FAULT + enum fault_kind, FM_OFFCPU + enum thread_state_kind,
 * FM_SYSCALL + the call's number. */
#define FM_FAULT 0u
#define FM_OFFCPU 16u
#define FM_SYSCALL 64u

struct flight_minute_cell {
	uint32_t tid, kind;
	struct log2_hist h;
};

struct flight_minute {
	struct flight_minute_cell *cells;	/* owned: in order of first use */
	size_t n, cap;
	uint32_t *slots;		/* owned: index + 1 into cells, 0 empty */
	size_t nslots;			/* 0 or a power of two, over 2n */
	uint64_t start_mono_ns;		/* the current minute's start */
	uint64_t rows;			/* histogram rows written so far */
};

void flight_minute_init(struct flight_minute *m, uint64_t start_mono_ns);
void flight_minute_release(struct flight_minute *m);

/* Counts a span of dur_ns of tid's kind.  0 or -ENOMEM. */
int flight_minute_add(struct flight_minute *m, uint32_t tid, uint32_t kind,
		      uint64_t dur_ns);

/* Writes the current minute through l (its session: the flight
 * recording's), its start converted with offset_ns (realtime - mono),
 * and starts the next at next_mono_ns.  0 or -errno with e. */
int flight_minute_flush(struct flight_minute *m, struct loader *l,
			int64_t offset_ns, uint64_t next_mono_ns,
			struct errmsg *e);

#endif
