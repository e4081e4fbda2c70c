/*
 * block_rq: a block request's insert, issue and completion read from a
 * tracefs buffer's raw bytes and matched by device and sector, whatever
 * thread each ran in.
 */
#include <errno.h>
#include <event-parse.h>

#include "../../decoder/block_rq.h"
#include "records.h"

#define DEV ((254u << 20) | 0u)

static struct ev step(enum block_step what, uint64_t ts, uint32_t tid,
		      uint64_t sector)
{
	struct ev e;

	memset(&e, 0, sizeof(e));
	e.kind = EV_BLOCK;
	e.mono_ts = ts;
	e.tid = tid;
	e.cpu = 1;
	e.u.blk.step = (uint8_t)what;
	e.u.blk.dev = DEV;
	e.u.blk.sector = sector;
	e.u.blk.bytes = 4096;
	strcpy(e.u.blk.op, "RA");
	snprintf(e.u.blk.comm, sizeof(e.u.blk.comm), "t%u", tid);
	return e;
}

static int feed(struct block_pending *p, enum block_step what, uint64_t ts,
		uint32_t tid, uint32_t pid, uint64_t sector, struct block_req *out)
{
	struct ev e = step(what, ts, tid, sector);

	return block_rq_step(p, &e, pid, out);
}

/* Inserted by the target, issued by a kworker, completed in an
 * interrupt that hit a third thread: one request, the target's, with
 * its queue and service times and the target's name. */
static void a_request_is_matched_by_sector_and_kept_as_its_submitters(void **state)
{
	struct block_pending p;
	struct block_req r;

	(void)state;
	block_pending_init(&p);
	assert_int_equal(feed(&p, BLK_INSERT, 100, 42, 40, 800, &r), 0);
	assert_int_equal(feed(&p, BLK_INSERT, 105, 42, 40, 1600, &r), 0);
	assert_int_equal(feed(&p, BLK_ISSUE, 130, 7, 0, 800, &r), 0);
	assert_int_equal(feed(&p, BLK_COMPLETE, 200, 99, 0, 800, &r), BR_DONE);
	assert_int_equal(r.tid, 42);
	assert_int_equal(r.pid, 40);
	assert_string_equal(r.comm, "t42");
	assert_int_equal(r.insert_ts, 100);
	assert_int_equal(r.issue_ts, 130);
	assert_int_equal(r.complete_ts, 200);
	assert_int_equal(r.bytes, 4096);
	assert_string_equal(r.op, "RA");
	assert_int_equal(p.n, 1);	/* sector 1600 still pending */
	assert_int_equal(p.completed, 1);
	block_pending_release(&p);
}

/* A request of no target keeps the name the event gives and no thread;
 * one inserted by a kworker but issued in a target is the target's. */
static void a_request_of_no_target_keeps_only_the_events_name(void **state)
{
	struct block_pending p;
	struct block_req r;

	(void)state;
	block_pending_init(&p);
	assert_int_equal(feed(&p, BLK_ISSUE, 10, 7, 0, 8, &r), 0);
	assert_int_equal(feed(&p, BLK_COMPLETE, 20, 0, 0, 8, &r), BR_DONE);
	assert_int_equal(r.tid, 0);
	assert_int_equal(r.pid, 0);
	assert_string_equal(r.comm, "t7");
	assert_int_equal(feed(&p, BLK_INSERT, 30, 7, 0, 16, &r), 0);
	assert_int_equal(feed(&p, BLK_ISSUE, 40, 42, 40, 16, &r), 0);
	assert_int_equal(feed(&p, BLK_COMPLETE, 50, 0, 0, 16, &r), BR_DONE);
	assert_int_equal(r.tid, 42);
	assert_string_equal(r.comm, "t42");
	block_pending_release(&p);
}

/* An issue without an insert begins the request (no queue time); a
 * requeue gives an issued request back, its insert again is no new one,
 * its issue again is counted and its service runs from it; a completion
 * of nothing issued is counted; the end drains the rest. */
static void a_requeued_request_is_one_request_issued_twice(void **state)
{
	struct block_pending p;
	struct block_req r;

	(void)state;
	block_pending_init(&p);
	assert_int_equal(feed(&p, BLK_COMPLETE, 50, 0, 0, 8, &r), 0);
	assert_int_equal(p.unmatched, 1);
	assert_int_equal(feed(&p, BLK_ISSUE, 100, 7, 0, 8, &r), 0);
	assert_int_equal(feed(&p, BLK_REQUEUE, 120, 7, 0, 8, &r), 0);
	assert_int_equal(feed(&p, BLK_INSERT, 130, 7, 0, 8, &r), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(feed(&p, BLK_ISSUE, 150, 7, 0, 8, &r), 0);
	assert_int_equal(feed(&p, BLK_COMPLETE, 190, 0, 0, 8, &r), BR_DONE);
	assert_int_equal(r.insert_ts, BLOCK_NO_TS);
	assert_int_equal(r.issue_ts, 150);
	assert_int_equal(r.requeues, 1);
	assert_int_equal(p.requeued, 1);
	/* inserted, never issued: a completion is none of its */
	assert_int_equal(feed(&p, BLK_INSERT, 200, 42, 40, 16, &r), 0);
	assert_int_equal(feed(&p, BLK_COMPLETE, 310, 0, 0, 16, &r), 0);
	assert_int_equal(p.unmatched, 2);
	assert_int_equal(block_rq_drain(&p, &r), 1);
	assert_int_equal(r.tid, 42);
	assert_int_equal(r.complete_ts, BLOCK_NO_TS);
	assert_int_equal(block_rq_drain(&p, &r), 0);
	assert_int_equal(p.unfinished, 1);
	assert_int_equal(p.completed, 1);
	block_pending_release(&p);
}

/* Two flushes at sector 0 pending together: each completion ends the
 * oldest issued one, so each keeps its own thread and times. */
static void requests_of_one_sector_complete_oldest_first(void **state)
{
	struct block_pending p;
	struct block_req r;

	(void)state;
	block_pending_init(&p);
	assert_int_equal(feed(&p, BLK_INSERT, 10, 42, 40, 0, &r), 0);
	assert_int_equal(feed(&p, BLK_INSERT, 20, 43, 40, 0, &r), 0);
	assert_int_equal(feed(&p, BLK_ISSUE, 30, 9, 0, 0, &r), 0);
	assert_int_equal(feed(&p, BLK_ISSUE, 40, 9, 0, 0, &r), 0);
	assert_int_equal(feed(&p, BLK_COMPLETE, 50, 0, 0, 0, &r), BR_DONE);
	assert_int_equal(r.tid, 42);
	assert_int_equal(r.insert_ts, 10);
	assert_int_equal(r.issue_ts, 30);
	assert_int_equal(feed(&p, BLK_COMPLETE, 60, 0, 0, 0, &r), BR_DONE);
	assert_int_equal(r.tid, 43);
	assert_int_equal(r.issue_ts, 40);
	assert_int_equal(p.requeued, 0);
	assert_int_equal(p.n, 0);
	block_pending_release(&p);
}

/* The formats of Linux 6.18, as tracefs gives them (the print fmt cut). */
#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"

static const char issue_fmt[] =
	"name: block_rq_issue\nID: 2104\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s\", REC->rwbs\n";
static const char insert_fmt[] =
	"name: block_rq_insert\nID: 2105\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s\", REC->rwbs\n";
static const char complete_fmt[] =
	"name: block_rq_complete\nID: 2107\nformat:\n" COMMON_FIELDS
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:44;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s\", REC->rwbs\n";

static const char requeue_fmt[] =
	"name: block_rq_requeue\nID: 2108\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned short ioprio;\toffset:28;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:30;\tsize:10;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:40;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s\", REC->rwbs\n";

static struct tep_event *parse(struct tep_handle *tep, const char *fmt)
{
	struct tep_event *ev = NULL;

	assert_int_equal(tep_parse_format(tep, &ev, fmt, strlen(fmt), "block"), 0);
	return ev;
}

/* An issue's raw bytes as the kernel lays them out (64 bytes and an
 * empty cmd). */
static size_t issue_raw(uint8_t *raw, uint16_t type, int32_t pid)
{
	uint32_t dev = DEV, nr = 128, bytes = 65536;
	uint64_t sector = 123456;

	memset(raw, 0, 72);
	memcpy(raw, &type, 2);
	memcpy(raw + 4, &pid, 4);
	memcpy(raw + 8, &dev, 4);
	memcpy(raw + 16, &sector, 8);
	memcpy(raw + 24, &nr, 4);
	memcpy(raw + 28, &bytes, 4);
	memcpy(raw + 34, "RS", 2);
	memcpy(raw + 44, "python3", 7);
	return 68;
}

/* Raw bytes to an event by their common_type; a short one, or another
 * event's, is none. */
static void raw_tracefs_bytes_decode_by_their_type(void **state)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev[BLK_STEPS];
	struct block_fields f[BLK_STEPS];
	uint8_t raw[72];
	struct ev e;
	size_t n;

	(void)state;
	ev[BLK_INSERT] = parse(tep, insert_fmt);
	ev[BLK_ISSUE] = parse(tep, issue_fmt);
	ev[BLK_COMPLETE] = parse(tep, complete_fmt);
	ev[BLK_REQUEUE] = parse(tep, requeue_fmt);
	assert_int_equal(block_fields_bind(f, ev), 0);
	n = issue_raw(raw, 2104, 4242);
	assert_int_equal(block_ev(f, raw, n, 777, 1, &e), 1);
	assert_int_equal(e.kind, EV_BLOCK);
	assert_int_equal(e.u.blk.step, BLK_ISSUE);
	assert_int_equal(e.mono_ts, 777);
	assert_int_equal(e.cpu, 1);
	assert_int_equal(e.tid, 4242);
	assert_int_equal(e.u.blk.dev, DEV);
	assert_int_equal(e.u.blk.sector, 123456);
	assert_int_equal(e.u.blk.bytes, 65536);
	assert_string_equal(e.u.blk.op, "RS");
	assert_string_equal(e.u.blk.comm, "python3");
	/* a completion's bytes are its sectors' */
	issue_raw(raw, 2107, 0);
	memset(raw + 28, 0, 4);		/* error 0 */
	assert_int_equal(block_ev(f, raw, 48, 900, 0, &e), 1);
	assert_int_equal(e.u.blk.step, BLK_COMPLETE);
	assert_int_equal(e.u.blk.bytes, 128 * 512);
	assert_string_equal(e.u.blk.comm, "");
	issue_raw(raw, 2108, 0);	/* a requeue: rwbs at 30 */
	memcpy(raw + 30, "WS", 3);
	assert_int_equal(block_ev(f, raw, 44, 950, 0, &e), 1);
	assert_int_equal(e.u.blk.step, BLK_REQUEUE);
	assert_int_equal(e.u.blk.sector, 123456);
	assert_string_equal(e.u.blk.op, "WS");
	issue_raw(raw, 2104, 4242);
	assert_int_equal(block_ev(f, raw, 59, 777, 1, &e), 0);	/* comm cut */
	issue_raw(raw, 5, 4242);				/* a marker */
	assert_int_equal(block_ev(f, raw, n, 777, 1, &e), 0);
	assert_int_equal(block_ev(f, raw, 1, 777, 1, &e), 0);
	ev[BLK_COMPLETE] = NULL;
	assert_int_equal(block_fields_bind(f, ev), -ENOENT);
	tep_free(tep);
}

/* rwbs to the operation; the stats file's two losses. */
static void the_operation_and_the_losses_are_read_from_the_kernels_text(void **state)
{
	uint64_t overrun = 9, dropped = 9;

	(void)state;
	assert_string_equal(block_op("R"), "R");
	assert_string_equal(block_op("RA"), "R");
	assert_string_equal(block_op("WS"), "W");
	assert_string_equal(block_op("FWFS"), "W");
	assert_string_equal(block_op("FN"), "FLUSH");
	assert_string_equal(block_op("D"), "D");
	assert_string_equal(block_op("N"), "N");
	assert_int_equal(block_stats_parse("entries: 0\noverrun: 17\ncommit overrun: 0\n"
					   "bytes: 0\ndropped events: 3\nread events: 40\n",
					   &overrun, &dropped), 0);
	assert_int_equal(overrun, 17);
	assert_int_equal(dropped, 3);
	assert_int_equal(block_stats_parse("entries: 0\ncommit overrun: 5\n",
					   &overrun, &dropped), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_request_is_matched_by_sector_and_kept_as_its_submitters),
		cmocka_unit_test(a_request_of_no_target_keeps_only_the_events_name),
		cmocka_unit_test(a_requeued_request_is_one_request_issued_twice),
		cmocka_unit_test(requests_of_one_sector_complete_oldest_first),
		cmocka_unit_test(raw_tracefs_bytes_decode_by_their_type),
		cmocka_unit_test(the_operation_and_the_losses_are_read_from_the_kernels_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
