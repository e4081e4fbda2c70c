/*
 * flight_watch: record --flight's duration triggers (--trigger
 * fault>DUR, offcpu>DUR, syscall>DUR), and what is kept dump or not.
 *
 * While armed, the entries the history keeps are also decoded, by a
 * record pipeline of its own (record/pipeline.h), so a fault, an
 * off-CPU span or a system call is found exactly as a recording finds
 * it; but nothing of it is stored: the fault stream's store callbacks
 * are replaced by checks against the triggers, and the few rows the
 * pipeline writes besides (mappings, losses, clock anchors) go to a
 * scratch database in memory, emptied every WATCH_SCRATCH_EMPTY_NS.
 *
 * A span fires when it ends longer than DUR, and, as a latency tracker's
 * timeout, when it passes DUR while still going on: after each round,
 * every target thread's open fault, off-CPU span and call is held
 * against the triggers, and one that has lasted DUR fires at the moment
 * it passed DUR (so the trigger comes before the span's end).  A span
 * fires once: its end does not fire again.
 */
#ifndef FL_RECORD_FLIGHT_WATCH_H
#define FL_RECORD_FLIGHT_WATCH_H

#include <sqlite3.h>

#include "flight.h"
#include "flight_minute.h"
#include "pipeline.h"

struct flight_watch {
	struct flight *f;		/* borrowed */
	struct record_pipeline p;	/* owned */
	sqlite3 *scratch;		/* owned: in memory */
	struct loader l;		/* owned once begun, on scratch */
	int begun;
	uint64_t next_empty;		/* CLOCK_MONOTONIC */
	/* The spans fired while still going on, so their end does not fire
	 * again: (tid, kind, span start), a few. */
	struct fired { uint32_t tid, kind; uint64_t since; } fired[64];
	size_t nfired;
	struct flight_minute minute;	/* owned: the current minute's counts */
	uint64_t next_cost;		/* CLOCK_MONOTONIC: the next flight_cost row */
};

/* Sets w up for f (its session open, its config's triggers); 0 or
 * -errno with f->err. */
int flight_watch_open(struct flight_watch *w, struct flight *f);
void flight_watch_release(struct flight_watch *w);

/* One spool entry, after the history took it: decoded, and after a
 * round the open spans checked.  0 or -errno with f->err. */
int flight_watch_take(struct flight_watch *w, const struct spool_entry *e);

/* After the last entry: the minute so far and the cost, stored.  0 or
 * -errno with f->err. */
int flight_watch_finish(struct flight_watch *w);

#endif
