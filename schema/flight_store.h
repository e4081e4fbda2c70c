/*
 * flight_store: the rows of a record --flight dump (schema.sql's
 * flight_dump and flight_dump_cpu), written through the dump session's
 * loader: times given in CLOCK_MONOTONIC are stored through its clock.
 */
#ifndef FL_SCHEMA_FLIGHT_STORE_H
#define FL_SCHEMA_FLIGHT_STORE_H

#include <stdint.h>

#include "loader.h"

struct flight_dump_row {
	const char *trigger, *reason;	/* borrowed for the call */
	uint64_t trigger_mono_ns;
	uint64_t before_ns, after_ns;
	uint64_t window_start_mono_ns, window_end_mono_ns;
	int cut_short;
	uint64_t whole_from_mono_ns;	/* 0: whole since the start (NULL) */
	uint64_t history_bytes, history_peak_bytes;
	uint64_t history_dropped_records, history_dropped_bytes;
	uint64_t suppressed;
	uint64_t aside_dropped;
	int block_io;			/* 0: block_dropped is NULL */
	uint64_t block_dropped;
	/* trigger 'metric': borrowed for the call; NULL for the others. */
	const char *metric;
	double metric_value, metric_threshold;
};

struct flight_cpu_row {
	int cpu;
	uint64_t records, bytes, lost_records, spool_dropped;
};

/* The flight recording's own: written at its end. */
struct flight_summary_row {
	uint64_t triggers, dumps;
	uint64_t suppressed_pending, suppressed_rate, suppressed_disk;
	uint64_t max_dumps, period_ns, max_disk;
	uint64_t disk_bytes;		/* what the dumps added to the file */
	/* --metric-fifo, --metric-udp: metric_fed 0 without them. */
	int metric_fed, metric_udp;
	uint64_t metric_lines, metric_malformed, metric_ignored;
	uint64_t metric_udp_dropped;	/* with metric_udp */
};

/* A bucket of a thread's per-minute histogram (record/flight_minute.h). */
struct flight_minute_row {
	int64_t minute_ts;		/* the minute's start, ns since the epoch */
	uint32_t tid;
	char kind[48];			/* "fault:minor", "offcpu:sleeping", ... */
	uint64_t lo_ns, hi_ns, count;
	uint64_t max_ns;		/* the top bucket's; 0: NULL */
};

/* The recorder's own cost so far (record --flight, every hour). */
struct flight_cost_row {
	uint64_t mono_ns;
	uint64_t user_ns, sys_ns;	/* CPU time, all its threads */
	uint64_t rss_bytes, max_rss_bytes;
	uint64_t history_bytes;		/* held in --max-memory now */
};

/* Does db (at path, for messages) have the flight recorder's tables (and
 * flight_dump's block_dropped)?  A file made by a faultline from before
 * them has the same schema version but not them.  0, or -ENOENT with e
 * saying so and what to do. */
int flight_tables_check(sqlite3 *db, const char *path, struct errmsg *e);

/* 0 or -errno with e. */
int loader_flight_dump(struct loader *l, const struct flight_dump_row *r,
		       struct errmsg *e);
int loader_flight_cpu(struct loader *l, const struct flight_cpu_row *r,
		      struct errmsg *e);
/* n rows in one transaction. */
int loader_flight_minute(struct loader *l, const struct flight_minute_row *rows,
			 size_t n, struct errmsg *e);
int loader_flight_cost(struct loader *l, const struct flight_cost_row *r,
		       struct errmsg *e);
int loader_flight_summary(struct loader *l, const struct flight_summary_row *r,
			  struct errmsg *e);

#endif
