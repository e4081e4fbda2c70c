/*
 * latency_pair: record --latency START/END[:FIELD], its option and the
 * pairing of a START with the next END of its key.
 */
#include <errno.h>

#include "../../decoder/latency_pair.h"
#include "records.h"

static void a_pair_of_tracepoints_parses_with_or_without_a_key(void **state)
{
	struct lat_spec_list l;
	struct errmsg e;

	(void)state;
	lat_spec_list_init(&l);
	errmsg_init(&e);
	assert_int_equal(lat_spec_add(&l, "block:block_rq_issue/block:block_rq_complete"
				      ":sector", "--latency", &e), 0);
	assert_int_equal(lat_spec_add(&l, "syscalls:sys_enter_read/syscalls:"
				      "sys_exit_read", "--latency", &e), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.tps.n, 4);
	assert_string_equal(l.v[0].key, "sector");
	assert_null(l.v[1].key);
	assert_string_equal(l.v[1].name, "syscalls:sys_enter_read/syscalls:sys_exit_read");
	assert_string_equal(l.tps.v[0].full, "block:block_rq_issue");
	assert_string_equal(l.tps.v[1].full, "block:block_rq_complete");
	assert_string_equal(l.tps.v[3].name, "sys_exit_read");
	assert_null(l.tps.v[1].filter);
	lat_spec_list_release(&l);
}

static void a_malformed_pair_is_refused_naming_the_option(void **state)
{
	static const char *const bad[] = {
		"sched:sched_waking", "sched:sched_waking/", "/sched:sched_wakeup",
		"sched/sched:sched_wakeup", "sched:sched_waking/sched:sched_wakeup:",
		"sched:sched_waking/sched:sched_wakeup:pid x",
		"sched:sched_waking/sched:sched_wakeup:pid:comm",
		"sched:sched_waking/sched:sched_wakeup/pid == 1/",
	};
	struct lat_spec_list l;
	struct errmsg e;

	(void)state;
	lat_spec_list_init(&l);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		errmsg_init(&e);
		if (lat_spec_add(&l, bad[i], "--latency", &e) != -EINVAL)
			fail_msg("'%s' was taken", bad[i]);
		assert_non_null(strstr(e.text, "--latency"));
	}
	assert_int_equal(l.n, 0);
	assert_int_equal(l.tps.n, 0);
	lat_spec_list_release(&l);
}

static struct lat_start start_of(uint64_t key, uint64_t ts, uint32_t tid)
{
	return (struct lat_start){ key, ts, tid, tid, 0 };
}

/* Interleaved keys pair each with its own; an END matches the latest
 * START of its key, however its thread differs (an interrupt's). */
static void each_end_pairs_with_the_start_of_its_key(void **state)
{
	struct lat_pending p;
	struct lat_start s = start_of(8, 100, 7), got, orphan;
	uint64_t dur;

	(void)state;
	lat_pending_init(&p);
	assert_int_equal(lat_pair_start(&p, &s, &orphan), 0);
	s = start_of(16, 110, 9);
	assert_int_equal(lat_pair_start(&p, &s, &orphan), 0);
	assert_int_equal(lat_pair_end(&p, 16, 150, &got, &dur), 1);
	assert_int_equal(got.tid, 9);
	assert_int_equal(dur, 40);
	assert_int_equal(lat_pair_end(&p, 8, 175, &got, &dur), 1);
	assert_int_equal(got.tid, 7);
	assert_int_equal(got.mono_ts, 100);
	assert_int_equal(dur, 75);
	assert_int_equal(p.paired, 2);
	assert_int_equal(p.n, 0);
	lat_pending_release(&p);
}

/* An END without a START is counted; a second START of a key hands the
 * first out unfinished; what is left at the end is drained unfinished. */
static void what_does_not_pair_is_counted_or_handed_out_unfinished(void **state)
{
	struct lat_pending p;
	struct lat_start s = start_of(5, 100, 5), got;
	uint64_t dur;

	(void)state;
	lat_pending_init(&p);
	assert_int_equal(lat_pair_end(&p, 5, 90, &got, &dur), 0);
	assert_int_equal(p.unmatched_ends, 1);
	assert_int_equal(lat_pair_start(&p, &s, &got), 0);
	s = start_of(5, 200, 5);
	assert_int_equal(lat_pair_start(&p, &s, &got), 1);
	assert_int_equal(got.mono_ts, 100);
	assert_int_equal(lat_pair_end(&p, 5, 260, &got, &dur), 1);
	assert_int_equal(dur, 60);
	s = start_of(6, 300, 6);
	assert_int_equal(lat_pair_start(&p, &s, &got), 0);
	assert_int_equal(lat_pair_drain(&p, &got), 1);
	assert_int_equal(got.key, 6);
	assert_int_equal(lat_pair_drain(&p, &got), 0);
	assert_int_equal(p.paired, 1);
	assert_int_equal(p.unfinished, 2);
	assert_int_equal(p.unmatched_ends, 1);
	lat_pending_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_pair_of_tracepoints_parses_with_or_without_a_key),
		cmocka_unit_test(a_malformed_pair_is_refused_naming_the_option),
		cmocka_unit_test(each_end_pairs_with_the_start_of_its_key),
		cmocka_unit_test(what_does_not_pair_is_counted_or_handed_out_unfinished),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
