/*
 * session: one `faultline record` from start to end, as a library: the
 * targets checked, the database opened, the events opened (the command
 * spawned, held before exec), the session row and what existed before
 * recording written, the rings drained through the pipeline until a stop
 * condition, the rows finished, the stacks symbolized, and the session
 * row ended: 'complete' (the targets exited, --duration), 'stopped' (a
 * signal), or 'failed' with the error's text, whatever step failed once
 * the row exists.  A recorder killed outright leaves it 'recording',
 * with what it committed up to LOADER_COMMIT_NS before (schema/killed.h).
 *
 * Threads: the calling thread runs the drain loop (collector/drain.h),
 * which only moves ring bytes into the spool; a thread of its own runs
 * the pipeline (decoding, ordering, storing) behind it; the socket
 * sampler and --block-io's tracefs reader have their own.  All of them run on cfg.cpus when given.
 *
 * Usage:
 *	record_session_init(&rs);
 *	record_session_open(&rs, &cfg, &e);	nothing recorded yet
 *	record_session_run(&rs, &e);		records, then ends the session
 *	record_session_close(&rs);		closes the database (the counts
 *						stay for a summary)
 *	record_session_release(&rs);
 * The command file (cli/record.c) owns options and everything printed.
 */
#ifndef FL_RECORD_SESSION_H
#define FL_RECORD_SESSION_H

#include <sched.h>
#include <sqlite3.h>
#include <stdint.h>

#include "../collector/recorder.h"
#include "../collector/spool.h"
#include "../collector/udp_sampler.h"
#include "../schema/checkpointer.h"
#include "../schema/loader.h"
#include "flight.h"
#include "pipeline.h"
#include "pt.h"
#include "symbolize.h"
#include "udp.h"
#include "cgroup.h"

struct record_config {
	const char *output;		/* borrowed: the database's path */
	struct target_set *targets;	/* borrowed: -p, -t, --comm, -a, command */
	const struct tp_spec_list *tracepoints;	/* borrowed: -e */
	uint64_t min_fault_dur_ns;	/* store faults at least this long */
	uint64_t duration_ns;		/* 0: until a signal or the targets exit */
	size_t ring_bytes;		/* per CPU, a power of two */
	size_t spool_bytes;		/* between the rings and the engine */
	/* The most bytes of records waiting in a file beside the database
	 * when the spool is full (collector/spill_file.h); 0: none, the
	 * records are dropped.  Not with flight. */
	uint64_t spill_bytes;
	const cpu_set_t *cpus;		/* borrowed: where faultline's own
					 * threads run; NULL: anywhere */
	struct stack_config stacks;
	int symbolize;			/* name the stacks at the end */
	/* 0 (--no-thread-states): no switch records, no sched tracepoints,
	 * no thread_state rows: faults (and -e hits) only. */
	int thread_states;
	/* 0 (--no-ran-instead): no CPU-wide switch records for per-thread
	 * targets, no ran_instead rows. */
	int ran_instead;
	/* 0 (--no-wakers): no sched:sched_waking events, no wakers named. */
	int wakers;
	/* 0 (--no-wake-stacks): wakers without their kernel stacks. */
	int wake_stacks;
	/* --syscalls: borrowed, NULL without it; calls this long or longer
	 * are stored, shorter ones counted. */
	const struct syscall_set *syscalls;
	uint64_t min_syscall_dur_ns;
	/* --latency: borrowed, NULL (or none) without it. */
	const struct lat_spec_list *latencies;
	/* --block-io: every block request, read through a tracefs instance
	 * of its own (record/block_io.h). */
	int block_io;
	struct udp_sampler *udp;	/* borrowed, opened; NULL: no sampling */
	uint64_t sample_interval_ns;	/* with udp */
	struct cgroup_sampler *cgroup;	/* borrowed, opened; NULL: none */
	uint64_t cgroup_interval_ns;	/* with cgroup */
	const char *command_line;	/* borrowed: for the session row */
	const char *labels_json;	/* borrowed: --label's JSON object; NULL: {} */
	int ready_fd;			/* told once the events are on; -1: none */
	const struct pt_settings *pt;	/* borrowed: --pt, or NULL */
	pipeline_status_fn status;	/* every tick while recording, or NULL */
	void *status_ctx;		/* borrowed */
	/* --flight: borrowed; NULL records as usual.  control_fd: the
	 * --control FIFO, borrowed, or -1; metric_fifo_fd and
	 * metric_udp_fd: --metric-fifo's and --metric-udp's, likewise. */
	const struct flight_config *flight;
	int control_fd;
	int metric_fifo_fd, metric_udp_fd;
};

struct record_session {
	struct record_config cfg;
	sqlite3 *db;			/* owned */
	struct recorder rec;		/* owned */
	struct spool spool;		/* owned */
	int abort;			/* the engine failed: stop draining */
	struct loader loader;		/* owned once begun */
	struct checkpointer ckpt;	/* started while draining */
	struct record_pipeline pipe;	/* owned once begun */
	struct record_udp udp;		/* owned once begun, used with cfg.udp */
	struct record_cgroup cgroup;	/* owned once begun, used with cfg.cgroup */
	struct record_symbolized sym;	/* what the end's symbolization did */
	struct record_pt pt;		/* owned: with cfg.pt */
	struct flight flight;		/* owned once flying: with cfg.flight */
	int flying;
	struct session_counts counts;	/* what the session row got at the end */
	struct errmsg warning;		/* set when something is left out */
	struct errmsg end_warning;	/* set when the file kept its WAL */
	pid_t *own_tids;		/* owned: faultline's threads while */
	char (*own_comms)[16];		/* it records, and their names */
	size_t own_n;
	char end_reason[64];		/* how it ended (record_end_reason) */
	int ended_failed;		/* 1: the row was ended 'failed'; -1:
					 * that write failed too */
	int piped;			/* pipe was initialized */
	int begun;			/* the session row exists */
	int64_t session_id;
};

void record_session_init(struct record_session *rs);

/* The session row's options column: cfg as JSON.  Caller frees; NULL when
 * out of memory.  (record/options_json.c) */
char *record_options_json(const struct record_config *cfg);

/* Checks, opens and begins (see above).  0 or -errno with e; when the
 * session row was written before the failure, it is ended 'failed'. */
int record_session_open(struct record_session *rs,
			const struct record_config *cfg, struct errmsg *e);

/* Records until a stop condition (rs->rec.stop says which), then ends
 * the session.  0 or -errno with e (the session row then says 'failed'
 * with e's text; everything committed before stays). */
int record_session_run(struct record_session *rs, struct errmsg *e);

/* Ends the write (schema/db.h's db_end_write: the file left standing
 * alone, or end_warning says why not) and closes the database, once.
 * What the session counted stays readable. */
void record_session_close(struct record_session *rs);

/* How r's recording ended, in words, into buf: "stopped by SIGTERM",
 * "--duration reached", "the command exited with status 0"... */
void record_end_reason(const struct recorder *r, char *buf, size_t n);

/* Closes the database if still open and frees everything. */
void record_session_release(struct record_session *rs);

#endif
