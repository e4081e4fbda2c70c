/*
 * ring: the reader's side of a perf ring, over a malloc'd meta page and a
 * 4 KiB data area filled by hand.  data_head and data_tail are the
 * kernel's free-running byte counters; only their low bits are offsets.
 * ring_move takes records out into a buffer; perf_records_walk (the
 * engine's side) hands them out one by one and checks their framing.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../collector/ring.h"
#include "records.h"

#define DATA_BYTES 4096
#define MAX_RECS 16

struct fake_ring {
	void *mem;
	struct ring r;
};

static int ring_setup(void **state)
{
	struct fake_ring *fr = calloc(1, sizeof(*fr));
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!fr)
		return -1;
	fr->mem = calloc(1, page + DATA_BYTES);
	if (!fr->mem)
		return -1;
	ring_attach(&fr->r, fr->mem, page, DATA_BYTES);
	*state = fr;
	return 0;
}

static int ring_teardown(void **state)
{
	struct fake_ring *fr = *state;

	ring_unmap(&fr->r);
	free(fr->mem);
	free(fr);
	return 0;
}

static struct perf_event_mmap_page *meta(struct fake_ring *fr)
{
	return fr->r.meta;
}

/* An empty ring whose counters stand at pos. */
static void start_at(struct fake_ring *fr, uint64_t pos)
{
	meta(fr)->data_head = pos;
	meta(fr)->data_tail = pos;
}

/* Publishes bytes at data_head, wrapping at the end of the data area. */
static void publish(struct fake_ring *fr, const void *bytes, size_t len)
{
	uint8_t *data = fr->r.data;
	const uint8_t *b = bytes;

	for (size_t i = 0; i < len; i++)
		data[(meta(fr)->data_head + i) & (DATA_BYTES - 1)] = b[i];
	meta(fr)->data_head += len;
}

/* ---- what the callback saw ----------------------------------------------- */

struct seen {
	uint8_t bytes[8192];
	size_t used;
	size_t len[MAX_RECS];
	size_t n;
	size_t fail_on;		/* 1-based call that returns -EIO; 0: none */
};

static int collect(void *ctx, const void *rec, size_t len)
{
	struct seen *s = ctx;
	uint16_t size;

	memcpy(&size, (const uint8_t *)rec + 6, 2);
	assert_int_equal(size, len);
	assert_true(s->n < MAX_RECS && len <= sizeof(s->bytes) - s->used);
	memcpy(s->bytes + s->used, rec, len);
	s->used += len;
	s->len[s->n++] = len;
	return s->n == s->fail_on ? -EIO : 0;
}

/* ---- records to publish ------------------------------------------------- */

struct recs {
	uint8_t bytes[4096];
	size_t len[MAX_RECS];
	size_t n, total;
};

static void add(struct recs *rs, size_t len)
{
	rs->len[rs->n++] = len;
	rs->total += len;
}

static uint8_t *next(struct recs *rs)
{
	return rs->bytes + rs->total;
}

static size_t room(const struct recs *rs)
{
	return sizeof(rs->bytes) - rs->total;
}

/* Samples, side-band records and a long MMAP2: sizes 40 to ~400 bytes. */
static void make_records(struct recs *rs)
{
	struct sample_fmt f;
	struct sample_id sid = { .pid = 7, .tid = 8, .time = 9, .id = 10, .cpu = 1 };
	struct rec_comm c = { .pid = 7, .tid = 8, .comm = "renamed-thread" };
	struct rec_task t = { .pid = 7, .ppid = 7, .tid = 11, .ptid = 8, .time = 12 };
	struct rec_mmap m = { .pid = 7, .tid = 8, .start = 0x1000, .len = 0x2000 };
	char name[301];

	memset(name, 'n', 300);
	name[0] = '/';
	name[300] = '\0';
	m.filename = name;
	fault_sample_fmt(&f);
	memset(rs, 0, sizeof(*rs));
	add(rs, enc_fault_sample(next(rs), room(rs), 1, 7, 8, 100, 0xa000, 0xb000, 0));
	add(rs, enc_comm(next(rs), room(rs), &f, &c, &sid));
	add(rs, enc_switch(next(rs), room(rs), &f, 1, 0, &sid));
	add(rs, enc_mmap2(next(rs), room(rs), &f, &m, &sid));
	add(rs, enc_fork(next(rs), room(rs), &f, &t, &sid));
	add(rs, enc_fault_sample(next(rs), room(rs), 2, 7, 8, 200, 0xa008, 0xb004, 0));
	add(rs, enc_lost(next(rs), room(rs), &f, 10, 3, &sid));
	add(rs, enc_fault_sample(next(rs), room(rs), 3, 7, 8, 300, 0xa010, 0xb008, 0));
}

static void publish_all(struct fake_ring *fr, const struct recs *rs)
{
	publish(fr, rs->bytes, rs->total);
}

static void assert_seen_all(const struct seen *s, const struct recs *rs)
{
	assert_int_equal(s->n, rs->n);
	for (size_t i = 0; i < rs->n; i++)
		assert_int_equal(s->len[i], rs->len[i]);
	assert_int_equal(s->used, rs->total);
	assert_memory_equal(s->bytes, rs->bytes, rs->total);
}

/* ---- moving and walking ---------------------------------------------------- */

/* Moves the ring into buf (cap bytes) and walks what came out into s. */
static void move_and_walk(struct fake_ring *fr, uint8_t *buf, size_t cap,
			  struct ring_moved *m, struct seen *s, uint64_t *bad)
{
	ring_move(&fr->r, buf, cap, m);
	assert_int_equal(perf_records_walk(buf, m->bytes, collect, s, bad), 0);
}

/* ---- tests ------------------------------------------------------------------ */

static void records_that_wrap_around_the_ring_end_arrive_whole_and_in_order(void **state)
{
	struct fake_ring *fr = *state;
	struct recs *rs = malloc(sizeof(*rs));
	struct seen *s = malloc(sizeof(*s));
	uint8_t *buf = malloc(DATA_BYTES);
	struct ring_moved m;
	uint64_t bad = 0;

	assert_true(rs && s && buf);
	make_records(rs);
	/* Every 8-byte step puts the ring's end at another point of the
	 * records, header included; the counters are well past one lap. */
	for (uint64_t pos = 5 * DATA_BYTES - rs->total - 8; pos <= 5 * DATA_BYTES + 8;
	     pos += 8) {
		memset(s, 0, sizeof(*s));
		start_at(fr, pos);
		publish_all(fr, rs);
		move_and_walk(fr, buf, DATA_BYTES, &m, s, &bad);
		assert_int_equal(m.bytes, rs->total);
		assert_int_equal(m.dropped_records, 0);
		assert_seen_all(s, rs);
		assert_int_equal(meta(fr)->data_tail, meta(fr)->data_head);
		assert_int_equal(meta(fr)->data_tail, pos + rs->total);
	}
	assert_int_equal(fr->r.framing_errors, 0);
	assert_int_equal(bad, 0);
	free(rs);
	free(s);
	free(buf);
}

static void a_move_releases_exactly_what_was_published(void **state)
{
	struct fake_ring *fr = *state;
	struct recs rs;
	uint8_t buf[DATA_BYTES];
	struct ring_moved m;

	make_records(&rs);
	start_at(fr, 123 * 8);
	publish_all(fr, &rs);
	assert_int_equal(ring_pending(&fr->r), rs.total);
	ring_move(&fr->r, buf, sizeof(buf), &m);
	assert_int_equal(m.bytes, rs.total);
	assert_int_equal(meta(fr)->data_tail, 123 * 8 + rs.total);
	assert_int_equal(ring_pending(&fr->r), 0);
	ring_move(&fr->r, buf, sizeof(buf), &m);	/* nothing new */
	assert_int_equal(m.bytes, 0);
	assert_int_equal(m.dropped_records, 0);
}

static void an_empty_ring_moves_nothing(void **state)
{
	struct fake_ring *fr = *state;
	uint8_t buf[64];
	struct ring_moved m;

	start_at(fr, 3 * DATA_BYTES + 24);
	ring_move(&fr->r, buf, sizeof(buf), &m);
	assert_int_equal(m.bytes, 0);
	assert_int_equal(meta(fr)->data_tail, 3 * DATA_BYTES + 24);
	assert_int_equal(fr->r.framing_errors, 0);
}

/* With room for only some, the whole records that fit come out, the rest
 * are counted as dropped, and all of them are released: the kernel is
 * never left without room. */
static void records_that_do_not_fit_are_dropped_whole_and_counted(void **state)
{
	struct fake_ring *fr = *state;
	struct recs rs;
	uint8_t buf[DATA_BYTES];
	struct seen s = { .n = 0 };
	struct ring_moved m;
	uint64_t bad = 0;
	size_t fit, room;

	make_records(&rs);
	fit = rs.len[0] + rs.len[1] + rs.len[2];
	room = fit + rs.len[3] - 8;	/* the MMAP2 misses by 8 bytes */
	start_at(fr, DATA_BYTES - rs.len[0] - 16);	/* the second wraps */
	publish_all(fr, &rs);
	move_and_walk(fr, buf, room, &m, &s, &bad);
	assert_int_equal(m.bytes, fit);
	assert_int_equal(s.n, 3);
	assert_memory_equal(s.bytes, rs.bytes, fit);
	assert_int_equal(m.dropped_records, rs.n - 3);
	assert_int_equal(m.dropped_bytes, rs.total - fit);
	assert_int_equal(meta(fr)->data_tail, meta(fr)->data_head);
	assert_int_equal(fr->r.framing_errors, 0);
}

/* One good record, then a header of `bad_size` (with `follow` bytes after
 * its 8 published), then another good record: the walk hands out only
 * the first and counts the bad framing. */
static void assert_bad_header_stops(struct fake_ring *fr, uint64_t pos,
				    uint16_t bad_size, size_t follow, int more)
{
	uint8_t good[64], junk[64] = { 0 }, buf[DATA_BYTES];
	size_t n = enc_fault_sample(good, sizeof(good), 1, 2, 3, 4, 5, 6, 7);
	uint32_t type = PERF_RECORD_SAMPLE;
	struct seen s = { .n = 0 };
	struct ring_moved m;
	uint64_t bad = 0;

	memcpy(junk, &type, 4);
	memcpy(junk + 6, &bad_size, 2);
	start_at(fr, pos);
	publish(fr, good, n);
	publish(fr, junk, 8 + follow);
	if (more)
		publish(fr, good, n);
	move_and_walk(fr, buf, sizeof(buf), &m, &s, &bad);
	assert_int_equal(m.bytes, meta(fr)->data_head - pos);
	assert_int_equal(s.n, 1);
	assert_memory_equal(s.bytes, good, n);
	assert_int_equal(bad, 1);
	assert_int_equal(meta(fr)->data_tail, meta(fr)->data_head);
}

static void a_header_of_size_zero_stops_the_walk(void **state)
{
	struct fake_ring *fr = *state;

	assert_bad_header_stops(fr, 0, 0, 0, 1);
	assert_bad_header_stops(fr, 7 * DATA_BYTES - 56, 0, 8, 1);	/* at offset 0 */
	assert_bad_header_stops(fr, 64, 4, 0, 1);
}

static void a_size_that_is_not_a_multiple_of_eight_stops_the_walk(void **state)
{
	struct fake_ring *fr = *state;

	assert_bad_header_stops(fr, 0, 12, 8, 1);
	assert_bad_header_stops(fr, 2 * DATA_BYTES - 80, 60, 56, 1);
	assert_bad_header_stops(fr, 0, 65535, 0, 1);
}

static void a_record_longer_than_what_was_published_stops_the_walk(void **state)
{
	struct fake_ring *fr = *state;

	assert_bad_header_stops(fr, 0, 64, 8, 0);	/* 16 of its 64 bytes */
	assert_bad_header_stops(fr, DATA_BYTES - 56, 24, 8, 0);
	assert_bad_header_stops(fr, 0, 65528, 56, 0);
}

/* Cutting a ring that does not fit walks its headers: bad framing there
 * counts in the ring, drops the rest, and still releases everything. */
static void bad_framing_found_while_cutting_drops_the_rest(void **state)
{
	struct fake_ring *fr = *state;
	uint8_t good[64], junk[16] = { 0 }, buf[64];
	size_t n = enc_fault_sample(good, sizeof(good), 1, 2, 3, 4, 5, 6, 7);
	struct ring_moved m;

	start_at(fr, 40);
	publish(fr, good, n);
	publish(fr, junk, sizeof(junk));
	publish(fr, good, n);
	ring_move(&fr->r, buf, n + 8, &m);
	assert_int_equal(m.bytes, n);
	assert_int_equal(fr->r.framing_errors, 1);
	assert_int_equal(m.dropped_bytes, sizeof(junk) + n);
	assert_int_equal(meta(fr)->data_tail, meta(fr)->data_head);
}

/* The walk stops at the callback's failure and passes it on. */
static void a_failing_callback_stops_the_walk(void **state)
{
	struct fake_ring *fr = *state;
	struct recs rs;
	uint8_t buf[DATA_BYTES];
	struct seen s = { .fail_on = 3 };
	struct ring_moved m;
	uint64_t bad = 0;

	make_records(&rs);
	start_at(fr, 16);
	publish_all(fr, &rs);
	ring_move(&fr->r, buf, sizeof(buf), &m);
	assert_int_equal(perf_records_walk(buf, m.bytes, collect, &s, &bad), -EIO);
	assert_int_equal(s.n, 3);
	assert_int_equal(bad, 0);
}

#define RING_TEST(t) cmocka_unit_test_setup_teardown(t, ring_setup, ring_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RING_TEST(records_that_wrap_around_the_ring_end_arrive_whole_and_in_order),
		RING_TEST(a_move_releases_exactly_what_was_published),
		RING_TEST(an_empty_ring_moves_nothing),
		RING_TEST(records_that_do_not_fit_are_dropped_whole_and_counted),
		RING_TEST(a_header_of_size_zero_stops_the_walk),
		RING_TEST(a_size_that_is_not_a_multiple_of_eight_stops_the_walk),
		RING_TEST(a_record_longer_than_what_was_published_stops_the_walk),
		RING_TEST(bad_framing_found_while_cutting_drops_the_rest),
		RING_TEST(a_failing_callback_stops_the_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
