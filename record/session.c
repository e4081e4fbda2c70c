#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../collector/drain.h"
#include "../collector/mem_room.h"
#include "../collector/procfs.h"
#include "../common/clock.h"
#include "../common/version.h"
#include "../schema/db.h"
#include "../schema/flight_store.h"
#include "environment.h"
#include "session.h"

void record_session_init(struct record_session *rs)
{
	memset(rs, 0, sizeof(*rs));
	recorder_init(&rs->rec);
	record_pt_init(&rs->pt);
	errmsg_init(&rs->warning);
	errmsg_init(&rs->end_warning);
}

/* What the recorder cost: all its threads' CPU time, its peak memory. */
static void own_cost(struct session_counts *c)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	c->recorder_user_ns = timeval_ns(ru.ru_utime);
	c->recorder_sys_ns = timeval_ns(ru.ru_stime);
	c->recorder_max_rss_bytes = (uint64_t)ru.ru_maxrss * 1024ull;
	c->recorder_measured = 1;
}

void record_end_reason(const struct recorder *r, char *buf, size_t n)
{
	const char *sig;

	switch (r->stop) {
	case STOP_SIGNAL:
		sig = sigabbrev_np(r->stop_signal);
		if (sig)
			snprintf(buf, n, "stopped by SIG%s", sig);
		else
			snprintf(buf, n, "stopped by signal %d", r->stop_signal);
		return;
	case STOP_DURATION:
		snprintf(buf, n, "--duration reached");
		return;
	case STOP_CONTROL:
		snprintf(buf, n, "stopped by 'stop' on --control");
		return;
	case STOP_TARGETS_GONE:
		if (r->child_status >= 0 && WIFEXITED(r->child_status))
			snprintf(buf, n, "the command exited with status %d",
				 WEXITSTATUS(r->child_status));
		else if (r->child_status >= 0 && WIFSIGNALED(r->child_status) &&
			 (sig = sigabbrev_np(WTERMSIG(r->child_status))))
			snprintf(buf, n, "the command was killed by SIG%s", sig);
		else
			snprintf(buf, n, "the targets exited");
		return;
	case STOP_ERROR:
	case STOP_NONE:
		break;
	}
	snprintf(buf, n, "failed");
}

/* The spool's figures, and its spill file's, for the session row. */
static void spool_counts(const struct record_session *rs,
			 struct session_counts *c)
{
	c->spool_bytes = rs->spool.cap;
	c->spool_peak_bytes = rs->spool.peak;
	c->spilled_bytes = rs->spool.spill.total;
	c->spill_peak_bytes = rs->spool.spill.peak;
}

/* Ends a begun session as failed with e's text, keeping e; what the
 * failure lost goes into rs->counts for the summary. */
static int end_failed(struct record_session *rs, int err, struct errmsg *e)
{
	struct session_ending how = { "failed", "failed",
				      e->text[0] ? e->text : strerror(-err) };
	struct errmsg ignored;

	if (!rs->begun)
		return err;
	errmsg_init(&ignored);
	record_pipeline_counts(&rs->pipe, &rs->rec, &rs->counts);
	spool_counts(rs, &rs->counts);
	own_cost(&rs->counts);
	rs->ended_failed = loader_end(&rs->loader, &rs->pipe.clock.last,
				      &rs->counts, &how, &ignored) == 0 ? 1 : -1;
	return err;
}

/*
 * The spool's spill file, in the database's directory: the user chose that
 * file system for a file that grows with the recording.  At most half of
 * its free space is taken.  Without one (a file system that refuses it),
 * records that find the spool full are dropped and counted, and a warning
 * says why.
 */
static void open_spill(struct record_session *rs, const struct record_config *cfg)
{
	char *path = strdup(cfg->output);
	const char *dir = path ? dirname(path) : ".";
	uint64_t cap = cfg->spill_bytes, half;
	struct statvfs fs;
	int err;

	if (statvfs(dir, &fs) == 0) {
		half = (uint64_t)fs.f_bavail * fs.f_frsize / 2;
		cap = half < cap ? half : cap;
	}
	err = cap ? spool_spill_to(&rs->spool, dir, cap) : -ENOSPC;
	if (err < 0 && !rs->warning.text[0])
		errmsg_set(&rs->warning, -err, "no spill file in %s (%s): records "
			   "that find the spool full will be dropped", dir,
			   strerror(-err));
	free(path);
}

/* The session row, and the mappings that existed before recording. */
static int begin(struct record_session *rs, struct errmsg *e)
{
	const struct record_config *c = &rs->cfg;
	char *options = record_options_json(c);
	struct session_info si;
	struct utsname un;
	char cpu_model[128];
	int err;

	if (!options)
		return errmsg_set(e, ENOMEM, "out of memory");

	err = record_pipeline_init(&rs->pipe, &rs->rec, c->targets,
				   c->min_fault_dur_ns, c->min_syscall_dur_ns);
	rs->piped = 1;
	if (err == -ENOENT)
		return errmsg_set(e, ENOENT, "cannot use --block-io: this kernel's "
				  "block tracepoints lack a field it reads (dev, "
				  "sector, nr_sector, rwbs, bytes, comm, error)");
	if (err < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	rs->pipe.status = c->status;
	rs->pipe.status_ctx = c->status_ctx;
	if (record_pipeline_clock_start(&rs->pipe, &si.start) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	uname(&un);
	si.host = un.nodename;
	si.kernel = un.release;
	si.command_line = c->command_line;
	si.options = options;
	si.version = FAULTLINE_VERSION;
	si.min_fault_dur_ns = c->min_fault_dur_ns;
	si.buffer_bytes = c->ring_bytes;
	si.cpus = rs->rec.ev.ncpus;
	proc_cpu_model(cpu_model, sizeof(cpu_model));
	si.cpu_model = cpu_model;
	si.labels_json = c->labels_json;
	proc_ident_self(&si.recorder);
	err = loader_begin(&rs->loader, rs->db, c->output, &si,
			   &rs->pipe.clock.map, e);
	free(options);
	if (err < 0)
		return err;
	rs->begun = 1;
	rs->session_id = rs->loader.session_id;
	if ((err = record_environment_begin(&rs->loader, c->targets, e)) < 0)
		return err;
	record_udp_init(&rs->udp, c->udp, &rs->loader, c->sample_interval_ns);
	if (c->udp)
		rs->pipe.udp = &rs->udp;
	record_cgroup_init(&rs->cgroup, c->cgroup, &rs->loader,
			   c->cgroup_interval_ns);
	if (c->cgroup)
		rs->pipe.cgroup = &rs->cgroup;
	if (c->pt)
		rs->pipe.pt = &rs->pt.rec;
	err = record_pipeline_begin(&rs->pipe, &rs->loader);
	if (err == 0)
		err = loader_commit(&rs->loader, &rs->pipe.err);
	if (err < 0) {
		*e = rs->pipe.err;
		return err;
	}
	if (c->pt)
		err = record_pt_begin(&rs->pt, rs->db, c->output, rs->session_id,
				      &rs->pipe.clock.map, e);
	/* After the first anchor: every block event is stamped after it. */
	if (err == 0 && c->block_io)
		err = record_block_io_open(&rs->pipe.blk, rs->rec.ev.cpus,
					   rs->rec.ev.ncpus, e);
	return err;
}

int record_session_open(struct record_session *rs,
			const struct record_config *cfg, struct errmsg *e)
{
	struct recorder_config rc = {
		cfg->targets, cfg->ring_bytes, cfg->duration_ns, cfg->tracepoints,
		cfg->stacks, cfg->ready_fd, cfg->pt ? &rs->pt.rec : NULL,
		cfg->thread_states, cfg->ran_instead, cfg->syscalls,
		cfg->latencies, cfg->block_io,
	};
	int err;

	rc.wakers = cfg->wakers;
	rc.no_wake_stacks = !cfg->wake_stacks;
	rc.flight = cfg->flight != NULL;
	rc.control_fd = cfg->flight ? cfg->control_fd : -1;
	rc.metrics.fifo_fd = rc.metrics.udp_fd = -1;
	if (cfg->flight && cfg->flight->nmetrics) {
		rc.metrics.fifo_fd = cfg->metric_fifo_fd;
		rc.metrics.udp_fd = cfg->metric_udp_fd;
		rc.metrics.watch = cfg->flight->metrics;
		rc.metrics.nwatch = cfg->flight->nmetrics;
	}
	rs->cfg = *cfg;
	if (cfg->cpus && sched_setaffinity(0, sizeof(*cfg->cpus), cfg->cpus) < 0)
		return errmsg_set(e, errno, "cannot run on the CPUs of --cpu: %s; "
				  "name online CPUs", strerror(errno));
	err = target_check(cfg->targets, &rs->warning, e);
	/* Before the database is opened: a machine without Intel PT leaves
	 * it untouched. */
	if (err == 0 && cfg->pt)
		err = record_pt_probe(&rs->pt, cfg->pt, e);
	if (err == 0)
		err = mem_room_check(cfg->spool_bytes, (uint64_t)cfg->ring_bytes *
				     (uint64_t)sysconf(_SC_NPROCESSORS_ONLN), e);
	if (err == 0 && spool_init(&rs->spool, cfg->spool_bytes) < 0)
		err = errmsg_set(e, ENOMEM, "cannot allocate a %zu MiB spool; use a "
				 "smaller --spool-size", cfg->spool_bytes >> 20);
	if (err == 0)
		err = db_open_write(cfg->output, &rs->db, e);
	/* After the database: a directory it cannot be made in says so. */
	if (err == 0 && cfg->spill_bytes && !cfg->flight)
		open_spill(rs, cfg);
	if (err == 0 && cfg->flight)
		err = flight_tables_check(rs->db, cfg->output, e);
	if (err == 0)
		err = recorder_open(&rs->rec, &rc, e);
	if (err == 0 && rs->rec.warning.text[0] && !rs->warning.text[0])
		rs->warning = rs->rec.warning;
	if (err == 0)
		err = begin(rs, e);
	if (err == 0 && cfg->flight) {
		rs->flying = 1;
		if (flight_init(&rs->flight, cfg->flight, rs, &rs->pipe.err) < 0)
			err = errmsg_set(e, ENOMEM, "cannot map --max-memory's %llu "
					 "bytes; give a smaller --max-memory",
					 (unsigned long long)cfg->flight->max_memory);
	}
	return err < 0 ? end_failed(rs, err, e) : 0;
}

/*
 * The pipeline thread runs 10 nice levels below the drain thread, which
 * must win whenever both want a CPU: the drain thread's work is short
 * (moving ring bytes), the pipeline's long, and what the pipeline does
 * not get done waits in the spool, while what the drain thread does not
 * get done is lost in the kernel.  On the 2-core VM, at load average 6,
 * the switch storm of bench/collector/switch_overhead.sh with faultline
 * pinned to one CPU lost 74,000 to 133,000 records at equal priority and
 * 0 to 6,000 this way.  (The kernel applies a nice value to the calling
 * thread only.)
 */
#define PIPELINE_NICE_BELOW_DRAIN 10

static void lower_priority(void)
{
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);
	if (nice != -1 || errno == 0)
		setpriority(PRIO_PROCESS, 0, nice + PIPELINE_NICE_BELOW_DRAIN);
}

static void *pipeline_main(void *arg)
{
	struct record_session *rs = arg;

	lower_priority();
	if (rs->flying)
		return (void *)(intptr_t)flight_consume(&rs->flight, &rs->spool,
							&rs->abort);
	return (void *)(intptr_t)record_pipeline_consume(&rs->pipe, &rs->spool,
							 &rs->abort);
}

/* faultline's threads, read while every one of them runs (the drain,
 * the decoding thread, a sampler): stored at the end as recorder_thread
 * rows.  Best effort: a thread gone or a failed read is left out. */
static void note_own_threads(struct record_session *rs)
{
	pid_t *tids = NULL;
	size_t n = 0, kept = 0;

	if (proc_list_tids(getpid(), &tids, &n) < 0 || n == 0)
		return;
	rs->own_comms = calloc(n, sizeof(*rs->own_comms));
	if (!rs->own_comms) {
		free(tids);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (proc_read_comm(getpid(), tids[i], rs->own_comms[kept]) == 0)
			tids[kept++] = tids[i];
	rs->own_tids = tids;
	rs->own_n = kept;
}

static int store_own_threads(struct record_session *rs, struct errmsg *e)
{
	int err = 0;

	for (size_t i = 0; err == 0 && i < rs->own_n; i++)
		err = loader_recorder_thread(&rs->loader, rs->own_tids[i],
					     rs->own_comms[i], e);
	return err;
}

/* Drains on this thread while the pipeline decodes and stores on its
 * own, and a third thread checkpoints what it stored (without one the
 * pipeline checkpoints, as SQLite does by default: slower where fsync
 * is); 0 or the first failure, the pipeline's first (its error is the
 * cause of an abort). */
static int drain_and_decode(struct record_session *rs, struct errmsg *e)
{
	pthread_t pipeline;
	struct errmsg ignored;
	void *ret;
	int err, perr;

	errmsg_init(&ignored);
	checkpointer_start(&rs->ckpt, rs->db, rs->cfg.output, &ignored);
	err = pthread_create(&pipeline, NULL, pipeline_main, rs);

	if (err == 0)
		note_own_threads(rs);

	if (err) {
		checkpointer_stop(&rs->ckpt);
		return errmsg_set(e, err, "cannot start the decoding thread: %s",
				  strerror(err));
	}
	err = drain_run(&rs->rec, &rs->spool, &rs->abort, e);
	pthread_join(pipeline, &ret);
	checkpointer_stop(&rs->ckpt);
	perr = (int)(intptr_t)ret;
	if (perr < 0) {
		*e = rs->pipe.err;
		return perr;
	}
	return err;
}

int record_session_run(struct record_session *rs, struct errmsg *e)
{
	struct session_counts *counts = &rs->counts;
	struct session_ending how = { NULL, NULL, NULL };
	struct clock_anchor end;
	int err = rs->cfg.udp ? record_udp_start(&rs->udp, e) : 0;

	if (err == 0 && rs->cfg.cgroup)
		err = record_cgroup_start(&rs->cgroup, e);
	if (err == 0)
		err = record_block_io_start(&rs->pipe.blk, e);
	if (err == 0)
		err = drain_and_decode(rs, e);
	/* Its last events are read before the pipeline's last round. */
	record_block_io_stop(&rs->pipe.blk);
	if (rs->cfg.udp)
		record_udp_stop(&rs->udp);
	if (rs->cfg.cgroup)
		record_cgroup_stop(&rs->cgroup);
	if (err == 0 && (err = record_pipeline_finish(&rs->pipe, &end)) < 0)
		*e = rs->pipe.err;
	if (err < 0)
		return end_failed(rs, err, e);
	/* Nothing reads the rings now: the kernel's waits in closing their
	 * events pass while the database is finished (recorder.h). */
	recorder_close_events(&rs->rec);
	record_symbolize_end(&rs->sym, rs->db, rs->cfg.output, rs->session_id,
			     rs->pipe.stacks.tab.nframes, rs->cfg.symbolize);
	record_pipeline_counts(&rs->pipe, &rs->rec, counts);
	spool_counts(rs, counts);
	own_cost(counts);
	record_end_reason(&rs->rec, rs->end_reason, sizeof(rs->end_reason));
	how.status = rs->rec.stop == STOP_SIGNAL || rs->rec.stop == STOP_CONTROL ?
		     "stopped" : "complete";
	how.reason = rs->end_reason;
	err = store_own_threads(rs, e);
	if (err == 0)
		err = record_environment_end(&rs->loader, e);
	if (err == 0)
		err = loader_end(&rs->loader, &end, counts, &how, e);
	if (err < 0)
		return end_failed(rs, err, e);
	if (err == 0 && rs->cfg.pt)
		record_pt_end(&rs->pt, rs->db, rs->cfg.output, rs->session_id);
	return err;
}

void record_session_close(struct record_session *rs)
{
	if (rs->begun)
		loader_release(&rs->loader);
	/* The finished file stands alone, with no side files (db.h). */
	if (rs->db)
		db_end_write(rs->db, rs->cfg.output, &rs->end_warning);
	db_close(rs->db);
	rs->db = NULL;
}

void record_session_release(struct record_session *rs)
{
	record_session_close(rs);
	if (rs->begun) {
		record_udp_release(&rs->udp);
		record_cgroup_release(&rs->cgroup);
	}
	if (rs->piped)
		record_pipeline_release(&rs->pipe);
	recorder_release(&rs->rec);
	record_pt_release(&rs->pt);
	if (rs->flying)
		flight_release(&rs->flight);
	spool_release(&rs->spool);
	free(rs->own_tids);
	free(rs->own_comms);
}
