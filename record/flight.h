/*
 * flight: record --flight, the flight recorder.
 *
 * While armed, the engine's thread stores no rows: it copies each spool
 * entry into a bounded history (flight_history.h), oldest rounds dropped
 * first and counted, and its watch (flight_watch.h) decodes them only to
 * hold spans against the triggers and count the minutes' histograms.  A trigger (SIGUSR2, 'snapshot' on --control: a
 * SPOOL_TRIGGER from the drain thread) at time T asks for the window
 * [T - before, T + after]; once a round's watermark passes T + after
 * (recording going on meanwhile), the window is dumped: a session of its
 * own, in the same database, whose rows come from replaying the kept
 * entries through the same record pipeline a normal recording uses
 * (record/pipeline.h), so they are the rows a full recording has for
 * that stretch; the lines of --trigger metric: names read within the
 * window (SPOOL_METRIC entries, kept in the history like the records)
 * become metric rows of it.  Then it re-arms.
 *
 * The window starts no earlier than the history is whole for every CPU
 * (flight_history.h), and the replay takes whole drain rounds: the rows
 * cover at least the window, up to a round more on either side.  What a
 * window needs from before it comes first: the mappings and thread names
 * (MMAP, MMAP2, COMM records) kept aside when their round was dropped
 * (flight_aside.h: an eighth of --max-memory, the history the rest), or
 * that sit in the history before the window, and the clock anchor in
 * force at its start.
 *
 * With --block-io, the block events the reader takes from tracefs are
 * kept beside the history (flight_block.h: another eighth, taken from
 * the history's share), and a dump waits until the reader has passed its
 * window's end too; its window starts no earlier than they are whole.
 *
 * A trigger while a dump is pending, past --max-dumps in its period or
 * --max-disk is counted as suppressed: with the next dump (flight_dump),
 * and by reason at the end (flight_summary, on the flight session).  The flight recording's own session row stays
 * empty of events; each dump's row in flight_dump names the trigger,
 * the window and the history's state, flight_dump_cpu each CPU's share.
 */
#ifndef FL_RECORD_FLIGHT_H
#define FL_RECORD_FLIGHT_H

#include <stdint.h>

#include "../collector/metric_feed.h"
#include "../collector/spool.h"
#include "../common/errmsg.h"
#include "flight_aside.h"
#include "flight_block.h"
#include "flight_history.h"
#include "symbolize.h"

struct record_session;

/* What fired a dump: the spool's sources, then the duration triggers. */
enum flight_trigger_kind {
	FLIGHT_SIGNAL = TRIGGER_SIGNAL,
	FLIGHT_CONTROL = TRIGGER_CONTROL,
	FLIGHT_FAULT,		/* a target's fault longer than its DUR */
	FLIGHT_OFFCPU,		/* a target off the CPU longer than its DUR */
	FLIGHT_SYSCALL,		/* a target's system call longer than its DUR */
	FLIGHT_METRIC,		/* a metric line over its VALUE (SPOOL_METRIC) */
};

/* --trigger KIND[:STATE,...]>DUR[@THREAD]. */
struct flight_trigger_spec {
	enum flight_trigger_kind kind;	/* FLIGHT_FAULT and after */
	uint64_t dur_ns;
	/* FLIGHT_OFFCPU: the states that count, 1 << enum thread_state_kind;
	 * 0: any state off the CPU. */
	uint32_t states;
	/* @THREAD: the thread of this tid, or of this name (comm); 0 and
	 * "": any target thread. */
	uint32_t tid;
	char comm[16];
};

#define FLIGHT_TRIGGERS_MAX 8
#define FLIGHT_METRICS_MAX 16

struct flight_config {
	uint64_t before_ns, after_ns;	/* --keep BEFORE,AFTER */
	/* --max-memory: the history's, the aside's, the block events' */
	uint64_t max_memory;
	struct flight_trigger_spec triggers[FLIGHT_TRIGGERS_MAX];
	size_t ntriggers;
	/* --trigger metric:NAME>VALUE, one a NAME; their lines come from
	 * --metric-fifo or --metric-udp (collector/metric_feed.h). */
	struct metric_watch metrics[FLIGHT_METRICS_MAX];
	size_t nmetrics;
	/* --max-dumps N/PERIOD: at most max_dumps dumps whose triggers
	 * fired within any period_ns. */
	uint32_t max_dumps;
	uint64_t period_ns;
	uint64_t max_disk;	/* --max-disk: bytes the dumps may add; 0: no limit */
};

#define FLIGHT_MAX_DUMPS_MAX 10000

/* Why a trigger was not dumped. */
struct flight_suppressed {
	uint64_t pending;	/* another dump was pending */
	uint64_t rate;		/* --max-dumps reached */
	uint64_t disk;		/* --max-disk reached */
};

/* "fault", "offcpu", "syscall", "signal", "control", "metric": flight_dump's
 * trigger column, and --trigger's KIND. */
const char *flight_trigger_name(enum flight_trigger_kind k);

/* A metric trigger in words, into buf: "metric nak = 3 > 0" (numbers as
 * json_real writes them, the shortest that read back the same). */
const char *flight_metric_words(const struct metric_watch *w, double value,
				char *buf, size_t n);

struct flight_trigger {
	uint32_t source;		/* enum flight_trigger_kind */
	uint64_t mono_ns;		/* CLOCK_MONOTONIC: when it fired */
	/* Duration triggers: the thread, when its span began, how long it
	 * had lasted when it fired, and whether it was still going on. */
	uint32_t tid;
	uint64_t span_mono_ns;
	uint64_t dur_ns;
	int still;
	uint32_t state;			/* FLIGHT_OFFCPU: enum thread_state_kind */
	/* FLIGHT_METRIC: which of cfg->metrics, and the value that fired. */
	uint32_t metric;
	double value;
};

struct flight_watch;

struct flight {
	const struct flight_config *cfg;	/* borrowed */
	struct record_session *rs;	/* borrowed: its recorder, database, options */
	struct flight_history hist;	/* owned */
	struct flight_aside_list aside;	/* owned: what dumps need from before */
	struct flight_block blk;	/* owned: --block-io's events; v NULL
					 * without it */
	/* The newest anchor dropped with its round; mono_ns 0: none. */
	struct clock_anchor dropped_anchor;
	int pending;			/* trig waits for its after part */
	struct flight_trigger trig;
	uint64_t suppressed;		/* triggers not dumped since the last dump */
	uint64_t triggers;		/* every trigger that fired */
	uint64_t dumps;
	struct flight_suppressed why;	/* every trigger not dumped, by reason */
	/* owned: the trigger times (CLOCK_MONOTONIC) of the last max_dumps
	 * dumps, a ring; dump_times[dumps % max_dumps] is the oldest. */
	uint64_t *dump_times;
	uint64_t disk_at_start;		/* bytes of the database and its WAL */
	struct errmsg *err;		/* borrowed: where a failure is said */
	/* owned: the decoding for the duration triggers and the per-minute
	 * histograms (flight_watch.h). */
	struct flight_watch *watch;
	/* The dumps' frames, each dump's named after it is stored. */
	uint64_t dump_frames;
	struct record_symbolized sym;
};

/* A trigger fired (a SPOOL_TRIGGER taken, or flight_watch's): pending,
 * unless one already is, --max-dumps' were made within its period, or the
 * dumps added --max-disk: then counted as suppressed, by reason. */
void flight_fire(struct flight *f, const struct flight_trigger *t);

/* 0 or -ENOMEM.  rs must have begun (its recorder open, its database and
 * session row there); err is where failures are written. */
int flight_init(struct flight *f, const struct flight_config *cfg,
		struct record_session *rs, struct errmsg *err);
void flight_release(struct flight *f);

/*
 * The flight recorder's consumer loop, in place of
 * record_pipeline_consume: takes the spool's entries until SPOOL_END,
 * dumping as triggers ask; a trigger whose after part has not passed at
 * the end is dumped with what there is.  On a failure it sets *abort and
 * goes on taking entries unused.  0 or the first failure's -errno.
 */
int flight_consume(struct flight *f, struct spool *sp, int *abort);

/* Dumps f->trig's window now (record/flight_dump.c): cut_short says the
 * recording ended before its after part passed.  0 or -errno with f->err. */
int flight_dump(struct flight *f, int cut_short);

#endif
