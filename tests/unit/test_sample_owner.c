/*
 * sample_owner: a sample is its event's by its identifier, or where
 * another session's id took that place (the kernel fills it once for the
 * events that fire together), by the id its READ value carries.
 */
#include <errno.h>

#include "records.h"
#include "../../decoder/sample_owner.h"

#define OURS_ENTRY 101
#define OURS_MINOR 102
#define OURS_TP 103
#define THEIRS 900

/* The fault format with its READ id (fault_sample_fmt_read_id). */
static struct sample_fmt read_id_fmt(void)
{
	struct sample_fmt f;

	fault_sample_fmt(&f);
	f.sample_type |= PERF_SAMPLE_READ;
	f.read_format = PERF_FORMAT_ID;
	return f;
}

/* A fault sample as the kernel writes it in that format: header,
 * identifier, ip, pid/tid, time, addr, then the READ value and id. */
static size_t fault_sample(uint8_t *buf, uint64_t ident, uint64_t read_id)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 64 };
	uint64_t v[7] = { ident, 0x401000, (7ull << 32) | 7, 123456789,
			  0x7f0000001000, 1, read_id };

	memcpy(buf, &h, 8);
	memcpy(buf + 8, v, sizeof(v));
	return 64;
}

static void ours(struct idmap *m)
{
	idmap_init(m);
	assert_int_equal(idmap_put(m, OURS_ENTRY, ROLE_FAULT_ENTRY), 0);
	assert_int_equal(idmap_put_arg(m, OURS_MINOR, ROLE_FAULT_MINOR, 1), 0);
	assert_int_equal(idmap_put(m, OURS_TP, ROLE_TP_SCHED_SWITCH), 0);
}

static void the_identifier_names_the_owner_when_it_is_ours(void **state)
{
	struct sample_fmt f = read_id_fmt();
	struct sample_owner o;
	struct idmap m;
	uint8_t buf[64];
	size_t n = fault_sample(buf, OURS_ENTRY, THEIRS);

	(void)state;
	ours(&m);
	sample_owner_of(&m, &f, buf, n, &o);
	assert_int_equal(o.role, ROLE_FAULT_ENTRY);
	assert_int_equal(o.id, OURS_ENTRY);
	assert_int_equal(o.by_read, 0);
	idmap_release(&m);
}

static void another_sessions_identifier_gives_way_to_the_read_id(void **state)
{
	struct sample_fmt f = read_id_fmt();
	struct sample_owner o;
	struct idmap m;
	uint8_t buf[64];
	size_t n = fault_sample(buf, THEIRS, OURS_MINOR);
	uint64_t id;

	(void)state;
	ours(&m);
	assert_int_equal(sample_peek_read_id(&f, buf, n, &id), 0);
	assert_int_equal(id, OURS_MINOR);
	sample_owner_of(&m, &f, buf, n, &o);
	assert_int_equal(o.role, ROLE_FAULT_MINOR);
	assert_int_equal(o.arg, 1);
	assert_int_equal(o.id, OURS_MINOR);
	assert_int_equal(o.by_read, 1);
	idmap_release(&m);
}

/* Neither id ours; a READ id of an event without that format (a
 * tracepoint); no READ in the format; a record cut short; no sample. */
static void a_sample_of_no_event_of_ours_has_no_owner(void **state)
{
	struct sample_fmt f = read_id_fmt(), plain;
	struct sample_owner o;
	struct idmap m;
	uint8_t buf[64];
	size_t n;
	uint64_t id;

	(void)state;
	ours(&m);
	fault_sample_fmt(&plain);
	n = fault_sample(buf, THEIRS, THEIRS + 1);
	sample_owner_of(&m, &f, buf, n, &o);
	assert_int_equal(o.role, ROLE_NONE);
	assert_int_equal(o.id, 0);
	n = fault_sample(buf, THEIRS, OURS_TP);
	sample_owner_of(&m, &f, buf, n, &o);
	assert_int_equal(o.role, ROLE_NONE);
	assert_int_equal(o.arg, 0);
	n = fault_sample(buf, THEIRS, OURS_ENTRY);
	assert_int_equal(sample_peek_read_id(&plain, buf, n, &id), -ENOENT);
	sample_owner_of(&m, &plain, buf, n, &o);
	assert_int_equal(o.role, ROLE_NONE);
	assert_int_equal(sample_peek_read_id(&f, buf, n - 1, &id), -EBADMSG);
	sample_owner_of(&m, &f, buf, n - 1, &o);
	assert_int_equal(o.role, ROLE_NONE);
	((struct perf_event_header *)buf)->type = PERF_RECORD_COMM;
	sample_owner_of(&m, &f, buf, n, &o);
	assert_int_equal(o.role, ROLE_NONE);
	idmap_release(&m);
}

static void a_samples_time_is_read_where_its_format_puts_it(void **state)
{
	struct sample_fmt f = read_id_fmt();
	uint8_t buf[64];
	size_t n = fault_sample(buf, OURS_ENTRY, OURS_ENTRY);
	uint64_t t;

	(void)state;
	assert_int_equal(sample_peek_time(&f, buf, n, &t), 0);
	assert_int_equal(t, 123456789);
	assert_int_equal(sample_peek_time(&f, buf, 39, &t), -EBADMSG);
	f.sample_type &= ~(uint64_t)PERF_SAMPLE_TIME;
	assert_int_equal(sample_peek_time(&f, buf, n, &t), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_identifier_names_the_owner_when_it_is_ours),
		cmocka_unit_test(another_sessions_identifier_gives_way_to_the_read_id),
		cmocka_unit_test(a_sample_of_no_event_of_ours_has_no_owner),
		cmocka_unit_test(a_samples_time_is_read_where_its_format_puts_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
