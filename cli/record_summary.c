#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../common/clock.h"
#include "../schema/db.h"
#include "../common/fmt_dur.h"
#include "record_summary.h"
#include "usage.h"

/* --latency: each pair's counts, the ENDs without a START included. */
static void print_latency_pairs(FILE *out, const struct record_pipeline *p)
{
	const struct record_latency *rl = &p->lat;

	for (size_t i = 0; rl->specs && i < rl->specs->n; i++)
		fprintf(out, "  --latency %s: %llu paired, %llu unfinished, %llu "
			"ends without a start (the recording began inside them, "
			"or their start was lost)\n", rl->specs->v[i].name,
			(unsigned long long)rl->pending[i].paired,
			(unsigned long long)rl->pending[i].unfinished,
			(unsigned long long)rl->pending[i].unmatched_ends);
}

static void print_latency(FILE *out, const struct record_pipeline *p,
			  enum fault_kind kind)
{
	const struct thread_table *tt = &p->faults.threads;
	struct log2_hist h;
	char a[32], b[32], c[32];

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < tt->n; i++) {
		const struct log2_hist *th = &tt->by_order[i]->hist[kind];

		for (unsigned k = 0; k < HIST_BUCKETS; k++)
			h.count[k] += th->count[k];
		h.total += th->total;
	}
	if (!h.total)
		return;
	fprintf(out, "  %s faults: %llu timed, p50 < %s, p99 < %s, max < %s\n",
		fault_kind_name(kind), (unsigned long long)h.total,
		fmt_dur(a, sizeof(a), hist_quantile_hi(&h, 0.5)),
		fmt_dur(b, sizeof(b), hist_quantile_hi(&h, 0.99)),
		fmt_dur(c, sizeof(c), hist_quantile_hi(&h, 1.0)));
}

/* ns as --duration takes it back: the largest unit that holds it whole
 * ("2s", "1500ms"). */
static const char *option_dur(char *buf, size_t n, uint64_t ns)
{
	static const struct { uint64_t ns; const char *unit; } units[] = {
		{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" },
	};
	size_t i = 0;

	while (ns && ns % units[i].ns)
		i++;
	snprintf(buf, n, "%llu%s", (unsigned long long)(ns / units[i].ns),
		 units[i].unit);
	return buf;
}

/* A signal's name as kill(1) takes it: "SIGINT". */
static const char *sig_name(char *buf, size_t n, int sig)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, n, "SIG%s", abbrev);
	else
		snprintf(buf, n, "signal %d", sig);
	return buf;
}

/* How the command ended, after "the command " (wait status st). */
static void print_command_end(FILE *out, int st)
{
	char sig[32];

	if (WIFEXITED(st))
		fprintf(out, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		fprintf(out, "was ended by %s", sig_name(sig, sizeof(sig), WTERMSIG(st)));
	else
		fprintf(out, "ended (wait status %#x)", st);
}

/*
 * Why recording stopped, and what became of the command: a signal or
 * --duration ends it with SIGTERM while it still runs (collector/drain.c),
 * which the summary says, so a command cut short is never taken for one
 * that finished.  The session row's reason (record_end_reason) is
 * shorter; this line says more.  1 when it printed a line, 0 when r
 * stopped for none of these.
 */
static int print_stopped(FILE *out, const struct recorder *r)
{
	char what[64];
	int ended = r->child_status >= 0;

	switch (r->stop) {
	case STOP_SIGNAL:
		fprintf(out, "  stopped by %s", sig_name(what, sizeof(what),
							 r->stop_signal));
		break;
	case STOP_DURATION:
		fprintf(out, "  stopped after --duration %s",
			option_dur(what, sizeof(what), r->cfg.duration_ns));
		break;
	case STOP_CONTROL:
		fputs("  stopped by 'stop' on --control", out);
		break;
	case STOP_TARGETS_GONE:
		if (ended) {
			fputs("  the command ", out);
			print_command_end(out, r->child_status);
			fputc('\n', out);
		} else {
			fputs("  the targets exited\n", out);
		}
		return 1;
	case STOP_ERROR:
	case STOP_NONE:
		return 0;
	}
	if (ended) {
		fputs(WIFSIGNALED(r->child_status) &&
		      WTERMSIG(r->child_status) == SIGTERM ?
		      "; the command was still running and " : "; the command ", out);
		print_command_end(out, r->child_status);
	}
	fputc('\n', out);
	return 1;
}

/* How the session ended: failed, else why recording stopped
 * (print_stopped), else as its row says (record_end_reason). */
static void print_stop(FILE *out, const struct record_session *rs)
{
	if (rs->ended_failed > 0)
		fprintf(out, "  FAILED: the session is marked failed, with the "
			"error above\n");
	else if (rs->ended_failed < 0)
		fprintf(out, "  FAILED, and its row could not be ended either: "
			"the next faultline that opens the file finds it killed\n");
	else if (!print_stopped(out, &rs->rec) && rs->end_reason[0])
		fprintf(out, "  %s\n", rs->end_reason);
}

/* --block-io's requests, and what its tracefs instance lost. */
static void print_block_io(FILE *out, const struct record_block_io *b)
{
	fprintf(out, "  block requests: %llu completed, %llu unfinished, %llu "
		"requeued; %llu completions of a request not seen (issued before "
		"the recording)\n",
		(unsigned long long)b->pending.completed,
		(unsigned long long)b->pending.unfinished,
		(unsigned long long)b->pending.requeued,
		(unsigned long long)b->pending.unmatched);
	if (b->overrun || b->dropped || b->malformed)
		fprintf(out, "  BLOCK I/O LOST: %llu events overwritten and %llu "
			"dropped in the tracefs buffer (%u KiB a CPU), %llu "
			"malformed; the lost table's block_* rows say on which "
			"CPU\n", (unsigned long long)b->overrun,
			(unsigned long long)b->dropped, b->buffer_kb,
			(unsigned long long)b->malformed);
}

/* What a failure to store lost (a full disk): never a silent "nothing". */
static void print_unstored(FILE *out, const struct record_session *rs)
{
	const struct session_counts *c = &rs->counts;

	if (!rs->loader.rows_unwritten && !c->records_unstored)
		return;
	fprintf(out, "  LOST to the failure: %llu rows written but not "
		"committed, %llu records read but never stored (the session "
		"row's rows_unwritten and records_unstored)\n",
		(unsigned long long)rs->loader.rows_unwritten,
		(unsigned long long)c->records_unstored);
}

static void print_udp(FILE *out, const struct record_udp *u)
{
	struct udp_counts c;

	udp_sampler_counts(u->sampler, &c);
	fprintf(out, "  udp sampling: %llu samples every %.3g ms (%llu by lookup, "
		"%llu by scan), %llu sockets, %llu metric rows, %.1f ms spent "
		"(%.1f us a sample)\n",
		(unsigned long long)c.samples, (double)u->interval_ns / 1e6,
		(unsigned long long)c.lookups, (unsigned long long)c.scans,
		(unsigned long long)u->nsocks, (unsigned long long)u->rows,
		(double)c.busy_ns / 1e6,
		c.samples ? (double)c.busy_ns / 1e3 / (double)c.samples : 0.0);
	if (c.missed)
		fprintf(out, "  MISSED %llu sampling intervals (the sampling thread "
			"was not run in time); the sampler_missed_intervals "
			"series says when\n", (unsigned long long)c.missed);
}

/* What the session keeps in the database: --stacks' stacks and their
 * frames (stacks only rows below the threshold used are not stored), and
 * the kernel stacks of wake-ups; -1 each where it cannot be read. */
struct stored_stacks {
	long long stacks, frames;	/* --stacks' */
	long long wake_stacks;		/* method 'kernel' */
};

static void stored_stacks(const char *path, int64_t session,
			  struct stored_stacks *out)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct errmsg e;

	out->stacks = out->frames = out->wake_stacks = -1;
	errmsg_init(&e);
	if (db_open_read(path, &db, &e) < 0)
		return;
	if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM stack WHERE"
			       " session_id = ?1 AND method != 'kernel'),"
			       " (SELECT count(DISTINCT sf.frame_id) FROM stack s"
			       " JOIN stack_frame sf USING (session_id, stack_id)"
			       " WHERE s.session_id = ?1 AND s.method != 'kernel'),"
			       " (SELECT count(*) FROM stack WHERE session_id = ?1"
			       " AND method = 'kernel')",
			       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_bind_int64(st, 1, session) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		out->stacks = sqlite3_column_int64(st, 0);
		out->frames = sqlite3_column_int64(st, 1);
		out->wake_stacks = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	db_close(db);
}

/* --stacks' line: sampled, cut short, what the database keeps. */
static void print_stacks_sampled(FILE *f, const struct record_stacks *st,
				 const struct stored_stacks *kept)
{
	size_t seen = st->tab.nstacks - st->kernel_stacks;

	fprintf(f, "  stacks: %llu sampled, %llu cut short, %lld distinct "
		"stored with %lld frames", (unsigned long long)st->sampled,
		(unsigned long long)st->truncated, kept->stacks, kept->frames);
	if (kept->stacks >= 0 && (size_t)kept->stacks < seen)
		fprintf(f, " (of %zu seen: the others' rows were not stored)", seen);
	fputc('\n', f);
}

/* How the frames of what names were named (by symbolize at the end of a
 * recording, or after each flight dump), and a warning when that failed. */
static void print_symbolized(FILE *f, const struct record_symbolized *s,
			     const char *what, const char *path)
{
	if (s->symbolized)
		fprintf(f, "  %s: %llu named (%llu no file, %llu build id "
			"mismatch, %llu no symbol)\n", what,
			(unsigned long long)s->c.ok,
			(unsigned long long)s->c.no_file,
			(unsigned long long)s->c.build_id_mismatch,
			(unsigned long long)s->c.no_symbol);
	else
		fprintf(f, "  %s: not symbolized\n", what);
	if (s->symbolized && s->c.skipped)
		fprintf(f, "  stacks: %llu files skipped as not trusted (not a "
			"regular file of root or the process's owner, or too "
			"large), first %s\n", (unsigned long long)s->c.skipped,
			s->c.skipped_first);
	if (s->failed.text[0])
		warning("record", "the stacks were recorded but not symbolized: %s; "
			"run 'faultline symbolize %s --session %lld'",
			s->failed.text, path, (long long)s->session_id);
}

/* The summary lines about stacks: --stacks' own, the wake-ups' (kept
 * with the thread states whatever --stacks says), and how their frames
 * were named. */
static void print_stacks(FILE *f, const struct record_session *rs,
			 const char *path)
{
	const struct record_stacks *st = &rs->pipe.stacks;
	struct stored_stacks kept;

	if (!st->tab.nstacks)
		return;
	stored_stacks(path, rs->session_id, &kept);
	if (record_stacks_on(st))
		print_stacks_sampled(f, st, &kept);
	if (kept.wake_stacks > 0)
		fprintf(f, "  wake-up stacks: %lld distinct stored (kernel frames, "
			"what issued each wake-up)\n", kept.wake_stacks);
	print_symbolized(f, &rs->sym, "frames", path);
}

static void print_clock(FILE *out, const struct record_pipeline *p)
{
	const struct clock_map *m = &p->clock.map;

	if (m->steps)
		fprintf(out, "  CLOCK STEPPED %llu times while recording (the "
			"clock_step table says when and by how much): durations "
			"and order are unaffected; ts values after a step follow "
			"the clock\n", (unsigned long long)m->steps);
}

/* Intel PT: what was decoded at the end, or why not and what to run. */
static void print_pt(FILE *out, const struct record_session *rs,
		     const char *path)
{
	const struct record_pt *pt = &rs->pt;

	if (!rs->cfg.pt)
		return;
	if (!pt->decoded) {
		warning("record", "the Intel PT traces are stored but not decoded: "
			"%s; run 'faultline pt %s --decode'", pt->failed.text, path);
		return;
	}
	fprintf(out, "  Intel PT: %llu traces (%llu bytes) decoded into %llu rows "
		"and %llu gaps; 'faultline pt %s' shows the path into each "
		"fault\n", (unsigned long long)pt->st.traces,
		(unsigned long long)pt->st.bytes, (unsigned long long)pt->st.rows,
		(unsigned long long)pt->st.gaps, path);
}

/* Below this many records, starting and ending dominate a per-million
 * figure, which would then mislead. */
#define PER_MILLION_FROM 100000

/* What observing cost, so nobody has to guess: faultline's CPU time and
 * memory (per million records read, on a recording large enough to say);
 * the spool's high-water mark; what it dropped. */
static void print_own_cost(FILE *out, const struct record_session *rs)
{
	const struct session_counts *c = &rs->counts;
	const struct spill_file *sp = &rs->spool.spill;
	double cpu_ms = (double)(c->recorder_user_ns + c->recorder_sys_ns) / 1e6;

	fprintf(out, "  faultline used %.0f ms of CPU (%.0f user, %.0f system",
		cpu_ms, (double)c->recorder_user_ns / 1e6,
		(double)c->recorder_sys_ns / 1e6);
	if (c->records_seen >= PER_MILLION_FROM)
		fprintf(out, "; %.0f ms per million records",
			cpu_ms * 1e6 / (double)c->records_seen);
	fprintf(out, ") and %.0f MB at most; the spool held %.1f MB at most "
		"of %.0f MB\n", (double)c->recorder_max_rss_bytes / 1e6,
		(double)c->spool_peak_bytes / 1e6, (double)c->spool_bytes / 1e6);
	if (c->spilled_bytes)
		fprintf(out, "  decoding fell behind: %.1f MB of records waited "
			"in a file beside the database (%.1f MB at most at once)\n",
			(double)c->spilled_bytes / 1e6,
			(double)c->spill_peak_bytes / 1e6);
	if (c->records_dropped)
		fprintf(out, "  DROPPED %llu records: decoding and storing fell "
			"behind and the spool was full; %s (the lost table's "
			"spool rows say when)\n",
			(unsigned long long)c->records_dropped,
			sp->write_errno ? "writing the spill file failed" :
			sp->fd >= 0 ? "raise --spill-size or --spool-size" :
			"raise --spool-size");
}

/* record --flight --block-io: what its memory of block events held, and
 * what the tracefs instance lost while armed (each dump stores its own). */
static void print_flight_block(FILE *out, const struct flight_block *fb)
{
	uint64_t overrun = 0, dropped = 0;

	for (int i = 0; i <= fb->ncpus; i++) {
		overrun += fb->overrun_seen[i];
		dropped += fb->dropped_seen[i];
	}
	fprintf(out, "  block events: %llu held of %llu it may hold; %llu dropped "
		"from it, oldest first\n",
		(unsigned long long)(fb->head - fb->tail),
		(unsigned long long)fb->cap, (unsigned long long)fb->dropped);
	if (overrun || dropped)
		fprintf(out, "  BLOCK I/O LOST: %llu events overwritten and %llu "
			"dropped (a full tracefs buffer, or reader's queue) while "
			"armed; the dumps' lost rows (block_*) say which were in "
			"their windows\n",
			(unsigned long long)overrun, (unsigned long long)dropped);
}

/* record --flight: what the flight session did instead of storing rows
 * (its dumps are sessions of their own). */
static void print_flight(FILE *out, const struct record_session *rs,
			 const char *path)
{
	const struct flight *f = &rs->flight;
	const struct metric_feed *m = &rs->rec.metrics;

	fprintf(out, "  flight recorder: %llu triggers, %llu dumps (sessions after "
		"%lld), %llu not dumped (%llu pending, %llu past --max-dumps, %llu "
		"past --max-disk)\n", (unsigned long long)f->triggers,
		(unsigned long long)f->dumps, (long long)rs->session_id,
		(unsigned long long)(f->why.pending + f->why.rate + f->why.disk),
		(unsigned long long)f->why.pending, (unsigned long long)f->why.rate,
		(unsigned long long)f->why.disk);
	fprintf(out, "  its memory held up to %.1f of %.1f MiB of records; %llu "
		"records dropped from it, oldest first\n",
		(double)f->hist.peak / 1048576, (double)f->hist.cap / 1048576,
		(unsigned long long)f->hist.dropped_records);
	if (f->blk.v)
		print_flight_block(out, &f->blk);
	if (f->dump_frames)
		print_symbolized(out, &f->sym, "frames of the dumps", path);
	if (m->cfg.fifo_fd >= 0 || m->cfg.udp_fd >= 0)
		fprintf(out, "  metric lines: %llu read, %llu over a --trigger "
			"metric: threshold, %llu at or under it, %llu malformed, "
			"%llu of names no trigger watches\n",
			(unsigned long long)m->n.lines,
			(unsigned long long)m->n.over,
			(unsigned long long)m->n.under,
			(unsigned long long)m->n.malformed,
			(unsigned long long)m->n.ignored);
	if (m->n.udp_dropped)
		fprintf(out, "  DROPPED %llu --metric-udp datagrams: its receive "
			"buffer was full; send fewer lines, or raise "
			"net.core.rmem_max (faultline asks for %d bytes)\n",
			(unsigned long long)m->n.udp_dropped, METRIC_UDP_RCVBUF);
}

/* Samples that named another session's event (decoder/sample_owner.h):
 * stored by their READ id where they carry one, else not stored. */
static void print_foreign_ids(FILE *out, const struct record_pipeline *p)
{
	if (p->n.by_read_id)
		fprintf(out, "  %llu samples carried another recorder's event id "
			"(a second faultline or perf samples the same events on "
			"these threads); each was stored by the id its own event "
			"wrote\n", (unsigned long long)p->n.by_read_id);
	if (p->n.foreign)
		warning("record", "%llu samples carried another recorder's "
			"event id and were not stored: a second faultline or "
			"perf samples the same events on these threads, and the "
			"kernel gives their samples its ids. Record with one at a "
			"time, or with -a, -t, or --flight with -p (Linux 6.12 "
			"or later), whose samples also carry their own ids",
			(unsigned long long)p->n.foreign);
	if (p->n.time_reversed)
		warning("record", "%llu fault samples went back in time within "
			"their CPU's ring: another recorder in another clock "
			"(perf record without -k CLOCK_MONOTONIC) samples the "
			"same events on these threads, and the kernel stamps "
			"faultline's samples with its clock. Faults of those "
			"times may be mistimed or stored as unfinished; record "
			"with one at a time",
			(unsigned long long)p->n.time_reversed);
}

/* The file's size, and its -wal's where one stays beside it (the end
 * could not fold it in: a full disk, a reader holding the file): the
 * rows there are the file's too, and the disk holds them. */
static void print_db_size(FILE *out, const char *path)
{
	struct stat sb, wal_sb;
	char wal[PATH_MAX];

	if (stat(path, &sb) != 0)
		return;
	if (snprintf(wal, sizeof(wal), "%s-wal", path) < (int)sizeof(wal) &&
	    stat(wal, &wal_sb) == 0 && wal_sb.st_size > 0)
		fprintf(out, "  database %.1f MB, and %.1f MB more in its -wal\n",
			(double)sb.st_size / 1e6, (double)wal_sb.st_size / 1e6);
	else
		fprintf(out, "  database %.1f MB\n", (double)sb.st_size / 1e6);
}

void record_summary_print(FILE *out, const struct record_session *rs,
			  const char *path)
{
	const struct record_pipeline *p = &rs->pipe;
	const struct recorder *r = &rs->rec;
	const struct fault_stats *st = &p->faults.st;
	uint64_t lost = p->n.lost_records + p->n.lost_samples;

	if (!rs->begun)
		return;
	fprintf(out, "faultline record: session %lld in '%s'",
		(long long)rs->session_id, path);
	if (rs->cfg.labels_json && strcmp(rs->cfg.labels_json, "{}"))
		fprintf(out, ", labels %s", rs->cfg.labels_json);
	fputc('\n', out);
	print_stop(out, rs);
	print_unstored(out, rs);
	if (rs->flying)
		print_flight(out, rs, path);
	else
		fprintf(out, "  %llu records read, %llu faults (%llu minor, %llu major, "
		"%llu unfinished), %llu rows stored, %llu below the threshold\n",
		(unsigned long long)p->n.records,
		(unsigned long long)(st->minor + st->major + st->unfinished),
		(unsigned long long)st->minor, (unsigned long long)st->major,
		(unsigned long long)st->unfinished, (unsigned long long)st->stored,
		(unsigned long long)st->below_threshold);
	if (rs->flying)
		;	/* its dumps' rows are in their own sessions */
	else if (!rs->cfg.thread_states)
		fprintf(out, "  no thread states (--no-thread-states), %llu "
			"tracepoint rows\n", (unsigned long long)p->n.tracepoints);
	else if (st->intervals || p->n.tracepoints)
		fprintf(out, "  %llu thread-state intervals (%llu runnable waits "
			"with what ran instead), %llu tracepoint rows\n",
			(unsigned long long)st->intervals,
			(unsigned long long)st->ran_waits,
			(unsigned long long)p->n.tracepoints);
	if (st->tracepoints_other)
		fprintf(out, "  -e: %llu hits in no target thread, not stored (an "
			"interrupt's, or another process's)\n",
			(unsigned long long)st->tracepoints_other);
	if (st->tracepoints_other && !p->n.tracepoints)
		warning("record", "no -e hit was in a target thread: the "
			"tracepoint fires in interrupt context or in other threads "
			"(block:block_rq_complete, irq:*, the kernel's workers); "
			"record the whole machine with -a to keep its hits");
	if (rs->cfg.syscalls)
		fprintf(out, "  system calls: %llu timed, %llu stored (%llu unfinished), "
			"%llu unpaired; on descriptors %llu named, %llu not (closed, "
			"reused or gone before /proc could say)\n",
			(unsigned long long)st->sys_timed,
			(unsigned long long)st->sys_stored,
			(unsigned long long)st->sys_unfinished,
			(unsigned long long)st->sys_unpaired,
			(unsigned long long)p->sys.named,
			(unsigned long long)p->sys.unnamed);
	print_latency_pairs(out, p);
	if (p->blk.on && !rs->flying)
		print_block_io(out, &p->blk);
	if (p->udp)
		print_udp(out, p->udp);
	print_latency(out, p, FAULT_MINOR);
	print_latency(out, p, FAULT_MAJOR);
	if (lost)
		fprintf(out, "  LOST: %llu records and %llu samples dropped by the "
			"kernel (ring full); faults near them may be unpaired. "
			"Raise --buffer-size or narrow the targets; the lost table "
			"says when and on which CPU\n",
			(unsigned long long)p->n.lost_records,
			(unsigned long long)p->n.lost_samples);
	else if (!p->n.dropped && !rs->loader.rows_unwritten &&
		 !rs->counts.records_unstored && !p->blk.overrun &&
		 !p->blk.dropped)
		fprintf(out, "  nothing lost\n");
	if (p->n.throttles)
		fprintf(out, "  THROTTLED %llu times: the kernel paused sampling "
			"(perf_event_max_sample_rate); faults in those pauses were "
			"not seen. The lost table says when\n",
			(unsigned long long)p->n.throttles);
	if (p->n.malformed || r->framing_errors || p->order.late)
		fprintf(out, "  %llu malformed records, %llu read out of time "
			"order (see the session row)\n",
			(unsigned long long)(p->n.malformed + r->framing_errors),
			(unsigned long long)p->order.late);
	print_foreign_ids(out, p);
	print_clock(out, p);
	print_stacks(out, rs, path);
	print_pt(out, rs, path);
	print_own_cost(out, rs);
	print_db_size(out, path);
}

void record_status_line(void *ctx, const struct record_pipeline *p)
{
	const struct fault_stats *st = &p->faults.st;
	uint64_t start = p->clock.map.n ? p->clock.map.v[0].mono_ns : monotonic_ns();
	uint64_t waiting = p->spool ? spill_file_waiting(&p->spool->spill) : 0;

	(void)ctx;
	fprintf(stderr, "\rfaultline record: %.0f s, %llu records, %llu faults, "
		"%llu stored, %llu lost",
		(double)(monotonic_ns() - start) / 1e9,
		(unsigned long long)p->n.records,
		(unsigned long long)(st->minor + st->major + st->unfinished),
		(unsigned long long)st->stored,
		(unsigned long long)(p->n.lost_records + p->n.lost_samples));
	/* Decoding behind: why the line goes on after the targets end. */
	if (waiting)
		fprintf(stderr, ", %.0f MB waiting on disk", (double)waiting / 1e6);
	fputs("\033[K", stderr);	/* erase what a longer line left */
	fflush(stderr);
}
