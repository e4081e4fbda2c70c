#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../common/json.h"
#include "../common/strbuf.h"
#include "../decoder/perf_record.h"
#include "../schema/flight_store.h"
#include "flight.h"
#include "flight_watch.h"
#include "session.h"

/* The records a window needs from before it (see flight.h). */
#define NEEDED_BEFORE ((1ull << PERF_RECORD_MMAP) | (1ull << PERF_RECORD_MMAP2) | \
		       (1ull << PERF_RECORD_COMM))

static int needed_before(uint32_t type)
{
	return type < 64 && (NEEDED_BEFORE & (1ull << type));
}

struct aside_walk {
	struct flight *f;
	uint32_t cpu;
};

static int keep_aside(void *ctx, const void *rec, size_t len)
{
	struct aside_walk *w = ctx;

	if (!needed_before(((const struct perf_event_header *)rec)->type))
		return 0;
	if (flight_aside_add(&w->f->aside, w->cpu, rec, len) < 0)
		w->f->aside.dropped++;	/* out of memory: lost, and counted */
	return 0;
}

/* flight_history's on_drop: what a later window needs goes aside (what
 * does not fit is counted: flight_dump.aside_dropped). */
static void on_drop(void *ctx, uint64_t pos, const struct spool_entry *e)
{
	struct flight *f = ctx;
	struct aside_walk w = { f, e->cpu };
	uint64_t bad = 0;

	(void)pos;
	if (e->kind == SPOOL_ANCHOR)
		f->dropped_anchor = e->u.anchor;
	if (e->kind == SPOOL_DATA && (e->u.kept.types & NEEDED_BEFORE))
		perf_records_walk(spool_data(e), e->len, keep_aside, &w, &bad);
}

/* Bytes of the database and its WAL: what the dumps added to it is
 * what --max-disk limits. */
static uint64_t disk_bytes(const char *path)
{
	char wal[4096];
	struct stat st;
	uint64_t n = 0;

	if (stat(path, &st) == 0)
		n += (uint64_t)st.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &st) == 0)
		n += (uint64_t)st.st_size;
	return n;
}

int flight_init(struct flight *f, const struct flight_config *cfg,
		struct record_session *rs, struct errmsg *err)
{
	uint64_t block = rs->cfg.block_io ? cfg->max_memory / 8 : 0;

	memset(f, 0, sizeof(*f));
	f->cfg = cfg;
	f->rs = rs;
	f->err = err;
	/* An eighth for the aside (flight_aside.h), with --block-io an
	 * eighth for its events (flight_block.h), the rest the history. */
	flight_aside_init(&f->aside, cfg->max_memory / 8);
	if (flight_history_init(&f->hist, (size_t)(cfg->max_memory -
						   cfg->max_memory / 8 - block)) < 0)
		return -ENOMEM;
	if (block && flight_block_init(&f->blk, (size_t)block,
				       &rs->pipe.blk.trace) < 0)
		return -ENOMEM;
	if (block)
		record_block_io_elsewhere(&rs->pipe.blk);
	f->hist.on_drop = on_drop;
	f->hist.ctx = f;
	f->dump_times = calloc(cfg->max_dumps ? cfg->max_dumps : 1,
			       sizeof(*f->dump_times));
	if (!f->dump_times)
		return -ENOMEM;
	f->disk_at_start = disk_bytes(rs->cfg.output);
	f->watch = malloc(sizeof(*f->watch));
	if (!f->watch)
		return -ENOMEM;
	return flight_watch_open(f->watch, f);
}

void flight_release(struct flight *f)
{
	if (f->watch) {
		flight_watch_release(f->watch);
		free(f->watch);
	}
	free(f->dump_times);
	flight_block_release(&f->blk);
	flight_aside_release(&f->aside);
	flight_history_release(&f->hist);
}

/* Would a dump of a trigger at t_ns pass --max-dumps?  The oldest of the
 * last max_dumps dumps must have fired a period or more before. */
static int within_rate(const struct flight *f, uint64_t t_ns)
{
	uint64_t oldest;

	if (f->dumps < f->cfg->max_dumps)
		return 1;
	oldest = f->dump_times[f->dumps % f->cfg->max_dumps];
	return t_ns >= oldest + f->cfg->period_ns;
}

void flight_fire(struct flight *f, const struct flight_trigger *t)
{
	uint64_t *why = NULL;

	f->triggers++;
	if (f->pending)
		why = &f->why.pending;
	else if (!within_rate(f, t->mono_ns))
		why = &f->why.rate;
	else if (f->cfg->max_disk &&
		 disk_bytes(f->rs->cfg.output) >= f->disk_at_start + f->cfg->max_disk)
		why = &f->why.disk;
	if (why) {
		(*why)++;
		f->suppressed++;
		return;
	}
	f->pending = 1;
	f->trig = *t;
	f->dump_times[f->dumps % f->cfg->max_dumps] = t->mono_ns;
}

static int on_trigger(struct flight *f, const struct spool_entry *e)
{
	struct flight_trigger t;

	memset(&t, 0, sizeof(t));
	t.source = e->u.trigger.source;
	t.mono_ns = e->u.trigger.mono_ns;
	flight_fire(f, &t);
	return 0;
}

/* The block events the reader read since the last round, kept. */
static int take_block(struct flight *f)
{
	int err = f->blk.v ? flight_block_take(&f->blk) : 0;

	if (err == -ENOMEM)
		return errmsg_set(f->err, ENOMEM, "out of memory");
	if (err < 0)
		return errmsg_set(f->err, -err, "cannot read the block I/O events "
				  "from tracefs: %s", strerror(-err));
	return 0;
}

/* Has the pending dump's window passed: the rings' watermark, and the
 * block reader (it runs behind them, by up to BLOCK_TRACE_INTERVAL_NS)? */
static int window_passed(const struct flight *f, uint64_t watermark)
{
	uint64_t end = f->trig.mono_ns + f->cfg->after_ns;

	return watermark >= end && (!f->blk.v || f->blk.until >= end);
}

/* A metric line over its threshold fires; every one stays in the
 * history, for the dumps whose window holds it. */
static void on_metric(struct flight *f, const struct spool_entry *e)
{
	struct flight_trigger t;

	if (!e->u.metric.over)
		return;
	memset(&t, 0, sizeof(t));
	t.source = FLIGHT_METRIC;
	t.mono_ns = e->u.metric.mono_ns;
	t.metric = e->u.metric.watch;
	t.value = e->u.metric.value;
	flight_fire(f, &t);
}

static int take(struct flight *f, const struct spool_entry *e)
{
	uint64_t pos;
	int err = 0;

	switch (e->kind) {
	case SPOOL_TRIGGER:
		return on_trigger(f, e);
	case SPOOL_METRIC:
		on_metric(f, e);
		break;
	case SPOOL_ROUND:
		err = take_block(f);
		break;
	case SPOOL_ANCHOR:
		/* The flight session's end: its last anchor (not stored: its
		 * loader stays out of the dumps' transactions). */
		f->rs->pipe.clock.last = e->u.anchor;
		break;
	}
	if (err < 0)
		return err;
	/* Decoded first: what a DATA entry holds is counted as it is, not
	 * in a walk of its own. */
	if (f->watch && (err = flight_watch_take(f->watch, e)) < 0)
		return err;
	flight_history_add(&f->hist, e, f->watch && e->kind == SPOOL_DATA ?
			   &f->watch->p.last_data : NULL, &pos);
	if (e->kind == SPOOL_ROUND && f->pending &&
	    window_passed(f, e->u.watermark))
		return flight_dump(f, e->u.watermark == UINT64_MAX);
	return 0;
}

/* The flight session's own row: what fired, what was dumped, and why
 * the rest was not. */
static int store_summary(struct flight *f)
{
	struct flight_summary_row r = {
		f->triggers, f->dumps, f->why.pending, f->why.rate, f->why.disk,
		f->cfg->max_dumps, f->cfg->period_ns, f->cfg->max_disk,
		disk_bytes(f->rs->cfg.output) - f->disk_at_start,
	};
	/* The drain thread's counts: it wrote them before SPOOL_END. */
	const struct metric_feed *m = &f->rs->rec.metrics;

	r.metric_fed = m->cfg.fifo_fd >= 0 || m->cfg.udp_fd >= 0;
	r.metric_lines = m->n.lines;
	r.metric_malformed = m->n.malformed;
	r.metric_ignored = m->n.ignored;
	r.metric_udp = m->cfg.udp_fd >= 0;
	r.metric_udp_dropped = m->n.udp_dropped;

	return loader_flight_summary(&f->rs->loader, &r, f->err);
}

int flight_consume(struct flight *f, struct spool *sp, int *abort)
{
	const struct spool_entry *e;
	int err = 0;

	while ((e = spool_next(sp, 1))->kind != SPOOL_END) {
		if (err == 0)
			err = take(f, e);
		spool_done(sp);
		if (err < 0)
			__atomic_store_n(abort, 1, __ATOMIC_RELEASE);
	}
	spool_done(sp);
	/* The drain has ended: the block reader's last events, for a dump
	 * still pending. */
	if (err == 0 && f->blk.v) {
		record_block_io_stop(&f->rs->pipe.blk);
		err = take_block(f);
	}
	if (err == 0 && f->pending)
		err = flight_dump(f, 1);
	if (err == 0)
		err = flight_watch_finish(f->watch);
	if (err == 0)
		err = store_summary(f);
	return err;
}

/* Indexed by enum flight_trigger_kind; also --trigger's KIND words. */
static const char *const trigger_names[] = {
	[FLIGHT_SIGNAL] = "signal", [FLIGHT_CONTROL] = "control",
	[FLIGHT_FAULT] = "fault", [FLIGHT_OFFCPU] = "offcpu",
	[FLIGHT_SYSCALL] = "syscall", [FLIGHT_METRIC] = "metric",
};

const char *flight_trigger_name(enum flight_trigger_kind k)
{
	return (size_t)k < sizeof(trigger_names) / sizeof(trigger_names[0]) ?
	       trigger_names[k] : "unknown";
}

const char *flight_metric_words(const struct metric_watch *w, double value,
				char *buf, size_t n)
{
	struct strbuf v, t;

	strbuf_init(&v);
	strbuf_init(&t);
	json_real(&v, value);
	json_real(&t, w->threshold);
	snprintf(buf, n, "metric %s = %s > %s", w->name, strbuf_str(&v),
		 strbuf_str(&t));
	strbuf_release(&v);
	strbuf_release(&t);
	return buf;
}
