/*
 * loader: the only writer of recorded rows.  Prepared statements, rows
 * batched into transactions of LOADER_BATCH_ROWS, committed early by
 * loader_commit() when the caller's clock says a batch has waited long
 * enough.  Everything committed stays committed when a later step fails.
 *
 * Times come in as CLOCK_MONOTONIC (`mono_ts`), the recording's one
 * clock, and are stored as CLOCK_REALTIME `ts`, converted here and only
 * here, through the session's clock anchors (decoder/clock_map.h): the
 * caller adds each anchor to the map as it takes it, and stores it with
 * loader_anchor.
 */
#ifndef FL_LOADER_H
#define FL_LOADER_H

#include <stdint.h>
#include <sqlite3.h>

#include "../common/clock.h"
#include "../common/proc_ident.h"
#include "../common/errmsg.h"
#include "../decoder/clock_map.h"
#include "../decoder/block_rq.h"
#include "../decoder/fault_pair.h"
#include "../decoder/latency_pair.h"
#include "../decoder/perf_record.h"
#include "../decoder/stack_table.h"
#include "../decoder/thread_table.h"
#include "../decoder/timeline.h"
#include "row_batch.h"

/* 100k rows a transaction: DESIGN.md's plain insert loop reached its best
 * rate there; bench/schema/load-rate checks it for the fault row. */
#define LOADER_BATCH_ROWS 100000

/*
 * How often a recording commits what it stored: a recorder killed
 * outright (SIGKILL, the OOM killer) loses what came after its last
 * commit.  With a round of the drain loop at least every 100 ms
 * (CLOCK_ANCHOR_INTERVAL_NS) and the order queue 50 ms behind it
 * (RECORDER_ORDER_SLACK_NS), 100 ms between commits keeps that under
 * 250 ms while the engine keeps up (tests/integration/test_kill.c
 * measures it); a commit writes the few pages it touched into the WAL,
 * no fsync (synchronous=NORMAL).
 */
#define LOADER_COMMIT_NS (100ull * 1000 * 1000)

struct session_info {		/* all strings borrowed for the call */
	struct clock_anchor start;	/* the session's first anchor */
	const char *host, *kernel, *command_line, *options, *version;
	const char *cpu_model;	/* "" when the kernel names none */
	const char *labels_json;	/* a JSON object of strings; NULL: {} */
	uint64_t min_fault_dur_ns;
	uint64_t buffer_bytes;	/* per CPU ring */
	int cpus;
	struct proc_ident recorder;	/* the recording faultline */
};

/* How a session ended, for its row: status "complete", "stopped" or
 * "failed"; reason in words ("stopped by SIGTERM"); error with
 * "failed", else NULL.  Strings borrowed for the call. */
struct session_ending {
	const char *status;
	const char *reason;
	const char *error;
};

struct session_counts {
	uint64_t records_seen;
	uint64_t faults_total, faults_stored, faults_below_threshold;
	uint64_t faults_unfinished, faults_unpaired_exit;
	uint64_t records_lost, samples_lost, records_malformed;
	uint64_t records_unknown, records_late, records_throttled;
	uint64_t clock_steps;
	/* What the recorder cost (getrusage of its process) when the
	 * caller measured it (recorder_measured): loader_end adds what
	 * building the indexes takes on its thread, after the measure. */
	uint64_t recorder_user_ns, recorder_sys_ns, recorder_max_rss_bytes;
	int recorder_measured;
	uint64_t spool_bytes, spool_peak_bytes, records_dropped;
	uint64_t records_unstored;	/* read after storing failed */
	uint64_t samples_mistimed;	/* in another recorder's clock */
	uint64_t spilled_bytes, spill_peak_bytes;	/* the spill file's */
};

struct loader {
	sqlite3 *db;		/* borrowed: opened and closed by the caller */
	const char *path;	/* borrowed: for messages */
	struct clock_map *clock;	/* borrowed: the session's anchors */
	int64_t session_id;
	/* owned: rows held to be written many to a statement */
	struct row_batch faults, states, ran;
	sqlite3_stmt *thread, *mapping, *lost, *hist, *tp;	/* owned */
	sqlite3_stmt *series, *metric;	/* owned */
	sqlite3_stmt *stack, *stack_frame, *frame;	/* owned */
	sqlite3_stmt *anchor, *step;	/* owned */
	sqlite3_stmt *sys, *sys_hist;	/* owned: syscall, syscall_histogram */
	sqlite3_stmt *sys_file;		/* owned: syscall_file */
	sqlite3_stmt *cgroup;	/* owned: prepared at the first cgroup_cpu row */
	sqlite3_stmt *lat;	/* owned: prepared at the first latency row */
	sqlite3_stmt *blk;	/* owned: prepared at the first block_request row */
	sqlite3_stmt *alive;	/* owned: the session row's alive_ts */
	uint64_t batch_rows;	/* rows in the open transaction */
	int in_txn;
	uint64_t rows;		/* rows written by this loader */
	/* Rows of transactions that could not commit (a full disk): lost. */
	uint64_t rows_unwritten;
	int end_room;		/* owned: db_end_room_take's file, or -1 */
};

/* Prepares the statements and writes the session row and its first
 * anchor (si->start, which clock already holds), committed at once so a
 * session is visible even if recording dies.  0 or -errno with e. */
int loader_begin(struct loader *l, sqlite3 *db, const char *path,
		 const struct session_info *si, struct clock_map *clock,
		 struct errmsg *e);

/* A clock anchor the caller took and added to the map; a step the map
 * reported when it was added. */
int loader_anchor(struct loader *l, const struct clock_anchor *a,
		  struct errmsg *e);
int loader_clock_step(struct loader *l, const struct clock_step *s,
		      struct errmsg *e);

int loader_fault(struct loader *l, const struct fault *f, struct errmsg *e);

/* A system call row (record --syscalls); all borrowed for the call. */
struct loader_syscall {
	const struct syscall_call *c;
	const char *name;	/* "read" */
	int64_t fd;		/* the descriptor it worked on, or -1 */
	const char *fd_name;	/* what fd named, or NULL */
	const char *args;	/* "fd=3, buf=0x7ffd5c9e1000, count=4096" */
};
int loader_syscall(struct loader *l, const struct loader_syscall *s,
		   struct errmsg *e);
/* A thread's calls of one name on one file, summed (strings borrowed;
 * fd_name NULL: not known). */
struct loader_syscall_file {
	uint32_t tid, pid;
	const char *name, *fd_name;
	uint64_t calls, total_ns, max_ns, blocked_ns;
};
int loader_syscall_file(struct loader *l, const struct loader_syscall_file *s,
			struct errmsg *e);
/* The non-empty buckets of t's per-call histograms; name_of names a
 * call's number (a build that does not know it: "syscall_N"). */
int loader_syscall_histograms(struct loader *l, const struct thread *t,
			      const char *(*name_of)(long nr), struct errmsg *e);
int loader_thread(struct loader *l, const struct thread *t, struct errmsg *e);
int loader_state(struct loader *l, const struct state_interval *iv,
		 struct errmsg *e);
/* name "subsys:event"; fields a JSON object; both borrowed for the call. */
int loader_tracepoint(struct loader *l, uint64_t mono_ts, uint32_t tid,
		      uint32_t pid, uint32_t cpu, const char *name,
		      const char *fields, struct errmsg *e);
int loader_mapping(struct loader *l, uint64_t mono_ts, const struct rec_mmap *m,
		   const char *source, struct errmsg *e);
/* A stack row and its stack_frame rows; a frame row (symbol columns
 * NULL, for symbolization to fill).  Both borrowed for the call. */
int loader_stack(struct loader *l, uint32_t stack_id, const struct st_stack *s,
		 struct errmsg *e);
int loader_frame(struct loader *l, uint32_t frame_id, const struct st_frame *f,
		 struct errmsg *e);
/* One of the recording faultline's own threads (comm borrowed). */
/* A cgroup_cpu row: a sample of the cgroup at dir (borrowed for the
 * call) read at mono_ts; quota_us < 0: no quota (NULL). */
int loader_cgroup_cpu(struct loader *l, uint64_t mono_ts, const char *dir,
		      int64_t quota_us, int64_t period_us, uint64_t nr_periods,
		      uint64_t nr_throttled, uint64_t throttled_ns,
		      struct errmsg *e);
int loader_recorder_thread(struct loader *l, pid_t tid, const char *comm,
			   struct errmsg *e);
/* A session_env row (both borrowed for the call); a key written again
 * keeps the later value. */
int loader_env(struct loader *l, const char *key, const char *value,
	       struct errmsg *e);
/* session_env's build_id.PATH rows: the build id the kernel gave for
 * each file mapped by a process with a thread stored, from the mapping
 * rows; call after the threads are stored. */
int loader_env_build_ids(struct loader *l, struct errmsg *e);
/* kind: "records", "samples", "throttled", "malformed" or "spool";
 * mono_ts 0 / cpu < 0 when unknown. */
int loader_lost(struct loader *l, uint64_t mono_ts, int cpu, const char *kind,
		uint64_t count, struct errmsg *e);
/* A metric series of this session (record's samplers); its id into
 * *series_id.  Strings borrowed for the call; unit may be NULL.  The
 * import command writes series of its own (schema/metric_store.c). */
int loader_metric_series(struct loader *l, const char *name,
			 const char *labels, const char *unit,
			 const char *source, int64_t *series_id,
			 struct errmsg *e);
/* One value of a series at mono_ts (CLOCK_MONOTONIC ns). */
int loader_metric(struct loader *l, int64_t series_id, uint64_t mono_ts,
		  double value, struct errmsg *e);
/* The non-empty buckets of t's histograms. */
int loader_histograms(struct loader *l, const struct thread *t,
		      struct errmsg *e);

/* Commits the open transaction, if any.  One that cannot commit is
 * rolled back, its rows counted in rows_unwritten. */
int loader_commit(struct loader *l, struct errmsg *e);

/* Notes in the session row, in the open transaction, that the recorder
 * is alive now and has stored every event before stored_mono_ts
 * (CLOCK_MONOTONIC); the caller commits next. */
int loader_alive(struct loader *l, uint64_t stored_mono_ts, struct errmsg *e);

/*
 * Commits, then in one transaction builds the indexes and writes the
 * end (the last anchor, end, which the caller took, added to the map and
 * stored), the counts and how it ended into the session row: a session
 * says complete or stopped only once its indexes exist, and a recorder
 * killed before that leaves it 'recording' (then found killed).  A
 * failed session whose indexes cannot be made (a full disk) still gets
 * its row, without them.  With c->recorder_measured, what building the
 * indexes cost is added to c's recorder cost first (most of a large
 * recording's end), so the row and the caller say the same.
 */
int loader_end(struct loader *l, const struct clock_anchor *end,
	       struct session_counts *c, const struct session_ending *how,
	       struct errmsg *e);

/* Finalizes the statements (rolls back nothing: call commit first). */
void loader_release(struct loader *l);

/* A --latency interval (name "START/END[:FIELD]", s its START); dur_ns
 * LAT_NO_DUR: unfinished (end_tid and fields unused); fields: the END's
 * as JSON.  Strings borrowed for the call.  0 or -errno with e. */
int loader_latency(struct loader *l, const char *name, const struct lat_start *s,
		   uint64_t dur_ns, uint32_t end_tid, const char *fields,
		   struct errmsg *e);
/* A --latency pair's counts at the end.  0 or -errno with e. */
int loader_latency_count(struct loader *l, const char *name,
			 const struct lat_pending *p, struct errmsg *e);

/* A block request (record --block-io), completed or not; disk: the
 * device's name ("vda"), or NULL when unknown.  0 or -errno with e. */
int loader_block_request(struct loader *l, const struct block_req *r,
			 const char *disk, struct errmsg *e);
/* --block-io's counts at the end; malformed: events that did not
 * decode.  0 or -errno with e. */
int loader_block_count(struct loader *l, const struct block_pending *p,
		       uint64_t malformed, struct errmsg *e);

#endif
