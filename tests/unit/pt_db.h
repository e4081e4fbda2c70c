/*
 * pt_db: a faultline database holding one session recorded with
 * --pt=fault, built the way a recording builds it (loader for the
 * session, its mapping of libptcode.so and one major fault of 4 ms;
 * pt_store for the clock, the vDSO and the trace the fault's sample
 * carried), without Intel PT hardware: the trace is libipt-encoded.
 *
 * The trace: pt_top(7) runs, pt_middle calls pt_leaf, and pt_leaf faults
 * (FUP at its first instruction, then TIP.PGD: the fault entered the
 * kernel, which is not traced).
 */
#ifndef FL_TEST_PT_DB_H
#define FL_TEST_PT_DB_H

#include <sys/mman.h>

#include "../../common/clock.h"
#include "../../schema/db.h"
#include "../../schema/loader.h"
#include "../../schema/pt_replay.h"
#include "../../schema/pt_store.h"
#include "pt_fixture.h"
#include "pt_stream.h"

#define PTDB_PID 4000
#define PTDB_TID 4001

struct ptdb {
	int64_t session;
	struct clock_anchor start;	/* the session's first anchor */
	uint64_t entry_mono, exit_mono;	/* the fault, CLOCK_MONOTONIC */
	uint64_t row_mono;		/* the trace's TSC 1000 */
};

static int ptdb_fail(const char *what, const struct errmsg *e)
{
	fprintf(stderr, "ptdb: %s: %s\n", what, e->text);
	return -1;
}

/* The mapping row of the library's text, as MMAP2 sideband stores it. */
static int ptdb_mapping(struct loader *l, uint64_t mono_ts, struct errmsg *e)
{
	uint64_t off, vaddr, size;
	struct rec_mmap m;

	if (ptfix_text(&off, &vaddr, &size) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = PTDB_PID;
	m.start = PTFIX_BASE + (vaddr & ~4095ull);
	m.len = 4096;
	m.pgoff = off & ~4095ull;
	m.prot = PROT_READ | PROT_EXEC;
	m.filename = ptfix_path();
	return loader_mapping(l, mono_ts, &m, "mmap", e);
}

static int ptdb_trace(struct pt_store *st, const struct ptdb *d,
		      struct errmsg *e)
{
	uint64_t top = ptfix_addr("pt_top"), leaf = ptfix_addr("pt_leaf");
	struct pt_trace t;
	struct pt_stream s;
	int64_t id;
	int err;

	if (ps_init(&s, 4096) < 0)
		return -1;
	ps_psb(&s, 1000, 0);
	ps_pge(&s, top);
	ps_tnt(&s, 0, 1);	/* pt_middle: x > 5, it calls pt_leaf */
	ps_fup(&s, leaf);	/* the fault, at pt_leaf's first instruction */
	ps_pgd(&s, 0);
	memset(&t, 0, sizeof(t));
	t.pid = PTDB_PID;
	t.tid = PTDB_TID;
	t.cpu = 1;
	t.trigger = PT_TRIG_FAULT;
	t.trigger_mono_ns = d->exit_mono;
	t.bytes = s.buf;
	t.len = ps_len(&s);
	err = s.failed ? -1 : pt_store_trace(st, &t, &id, e);
	ps_release(&s);
	return err;
}

/* The clock: TSC t is perf time t + 500; perf 0 is d->start's monotonic
 * time (one calibration pair), so TSC 1000 is start + 1500 ns. */
static int ptdb_clock(struct pt_store *st, const struct ptdb *d,
		      struct errmsg *e)
{
	static const struct pt_tsc_conv conv = { .time_zero = 500, .time_mult = 1 };
	struct pt_session_info info = { .mode = "fault", .pmu_type = 8,
					.config = 0x2c00, .snapshot_bytes = 32768,
					.aux_bytes = 131072 };
	struct pt_calib_pair p = { 0, d->start.mono_ns, 20 };
	struct pt_clock c;
	int err;

	pt_clock_init(&c, &conv);
	pt_clock_add(&c, &p);
	err = pt_store_clock(st, &info, &c, e);
	pt_clock_release(&c);
	return err;
}

/* The session into db at path; with_pt 0: the same without Intel PT. */
static int ptdb_build(struct ptdb *d, const char *path, int with_pt)
{
	struct session_info si = { 0 };
	struct session_counts counts = { 0 };
	struct clock_map map;
	struct clock_step step;
	struct loader l;
	struct pt_store st;
	struct fault f = { 0 };
	struct errmsg e;
	sqlite3 *db = NULL;
	int err;

	errmsg_init(&e);
	memset(d, 0, sizeof(*d));
	clock_anchor_take(&d->start);
	clock_map_init(&map);
	clock_map_add(&map, &d->start, &step);
	d->row_mono = d->start.mono_ns + 1500;
	d->entry_mono = d->start.mono_ns + 2000;
	d->exit_mono = d->entry_mono + 4000000;
	si.start = d->start;
	si.host = "testhost";
	si.kernel = "6.18";
	si.command_line = "faultline record --pt";
	si.options = "{}";
	si.version = "test";
	si.cpus = 2;
	if (db_open_write(path, &db, &e) < 0 ||
	    loader_begin(&l, db, path, &si, &map, &e) < 0)
		return ptdb_fail("begin", &e);
	d->session = l.session_id;
	f.mono_ts = d->entry_mono;
	f.dur_ns = d->exit_mono - d->entry_mono;
	f.tid = PTDB_TID;
	f.pid = PTDB_PID;
	f.cpu = f.exit_cpu = 1;
	f.kind = FAULT_MAJOR;
	f.addr = 0x7f0000123000;
	f.ip = ptfix_addr("pt_leaf");
	err = ptdb_mapping(&l, d->start.mono_ns, &e);
	if (err == 0)
		err = loader_fault(&l, &f, &e);
	if (err == 0 && with_pt)
		err = pt_store_begin(&st, db, path, d->session, NULL, &e);
	if (err == 0 && with_pt) {
		err = ptdb_clock(&st, d, &e);
		if (err == 0)
			err = ptdb_trace(&st, d, &e);
		if (err == 0)
			err = loader_commit(&l, &e);
		if (err == 0)
			err = pt_store_link_faults(&st, &e);
		pt_store_release(&st);
	}
	if (err == 0)
		err = loader_end(&l, &d->start, &counts, &(struct session_ending){
				 "complete", "fixture", NULL }, &e);
	loader_release(&l);
	clock_map_release(&map);
	db_close(db);
	return err < 0 ? ptdb_fail("build", &e) : 0;
}

#endif
