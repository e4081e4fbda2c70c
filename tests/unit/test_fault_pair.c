/*
 * fault_pair: a thread's fault entry and the completion after it make one
 * fault with a duration; whatever breaks that rule is kept, undated.
 */
#include "../../decoder/fault_pair.h"
#include "records.h"

#define PID 4000
#define TID 4001

static struct ev fault_ev(enum ev_kind kind, uint64_t ts, uint32_t cpu,
			  uint64_t addr)
{
	struct ev e;

	memset(&e, 0, sizeof(e));
	e.kind = (uint8_t)kind;
	e.mono_ts = ts;
	e.pid = PID;
	e.tid = TID;
	e.cpu = cpu;
	e.u.fault.addr = addr;
	e.u.fault.ip = 0x400000 + (addr & 0xfff);
	return e;
}

static void assert_fault(const struct fault *f, enum fault_kind kind, uint64_t ts,
			 uint64_t dur, uint32_t cpu, uint32_t exit_cpu,
			 uint64_t addr)
{
	assert_int_equal(f->kind, kind);
	assert_int_equal(f->mono_ts, ts);
	assert_int_equal(f->dur_ns, dur);
	assert_int_equal(f->cpu, cpu);
	assert_int_equal(f->exit_cpu, exit_cpu);
	assert_int_equal(f->addr, addr);
	assert_int_equal(f->ip, 0x400000 + (addr & 0xfff));
	assert_int_equal(f->tid, TID);
	assert_int_equal(f->pid, PID);
}

static void assert_completes(enum ev_kind kind, enum fault_kind want)
{
	struct fault_pending p = { 0 };
	struct fault done, orphan;
	struct ev in = fault_ev(EV_FAULT_ENTRY, 1000, 2, 0x7f0000001234);
	struct ev out = fault_ev(kind, 1750, 3, 0x7f0000001234);

	assert_int_equal(fault_pair_entry(&p, &in, &orphan), 0);
	assert_int_equal(p.active, 1);
	assert_int_equal(fault_pair_complete(&p, &out, &done, &orphan), FP_DONE);
	assert_fault(&done, want, 1000, 750, 2, 3, 0x7f0000001234);
	assert_int_equal(p.active, 0);
}

static void an_entry_then_a_minor_completion_is_a_minor_fault_with_its_duration(void **state)
{
	(void)state;
	assert_completes(EV_FAULT_MINOR, FAULT_MINOR);
}

static void an_entry_then_a_major_completion_is_a_major_fault_with_its_duration(void **state)
{
	(void)state;
	assert_completes(EV_FAULT_MAJOR, FAULT_MAJOR);
}

static void a_completion_in_the_same_nanosecond_lasts_zero(void **state)
{
	struct fault_pending p = { 0 };
	struct fault done, orphan;
	struct ev in = fault_ev(EV_FAULT_ENTRY, 5000, 0, 0x1000);
	struct ev out = fault_ev(EV_FAULT_MINOR, 5000, 0, 0x1000);

	(void)state;
	fault_pair_entry(&p, &in, &orphan);
	assert_int_equal(fault_pair_complete(&p, &out, &done, &orphan), FP_DONE);
	assert_fault(&done, FAULT_MINOR, 5000, 0, 0, 0, 0x1000);
}

static void an_entry_after_an_entry_leaves_the_first_unfinished(void **state)
{
	struct fault_pending p = { 0 };
	struct fault done, orphan;
	struct ev first = fault_ev(EV_FAULT_ENTRY, 100, 1, 0xdead000);
	struct ev second = fault_ev(EV_FAULT_ENTRY, 200, 2, 0xbeef000);
	struct ev out = fault_ev(EV_FAULT_MINOR, 260, 2, 0xbeef000);

	(void)state;
	assert_int_equal(fault_pair_entry(&p, &first, &orphan), 0);
	assert_int_equal(fault_pair_entry(&p, &second, &orphan), FP_ORPHAN);
	assert_fault(&orphan, FAULT_UNFINISHED, 100, FAULT_NO_DUR, 1, UINT32_MAX,
		     0xdead000);
	assert_int_equal(fault_pair_complete(&p, &out, &done, &orphan), FP_DONE);
	assert_fault(&done, FAULT_MINOR, 200, 60, 2, 2, 0xbeef000);
}

static void a_completion_without_a_pending_entry_has_no_duration(void **state)
{
	struct fault_pending p = { 0 };
	struct fault done, orphan;
	struct ev out = fault_ev(EV_FAULT_MAJOR, 500, 4, 0x5000);

	(void)state;
	assert_int_equal(fault_pair_complete(&p, &out, &done, &orphan), FP_DONE);
	assert_fault(&done, FAULT_MAJOR, 500, FAULT_NO_DUR, 4, 4, 0x5000);
	assert_int_equal(p.active, 0);
}

static void a_completion_at_another_address_is_unpaired_and_ends_the_entry(void **state)
{
	struct fault_pending p = { 0 };
	struct fault done, orphan;
	struct ev in = fault_ev(EV_FAULT_ENTRY, 100, 0, 0xa000);
	struct ev out = fault_ev(EV_FAULT_MINOR, 150, 1, 0xb000);

	(void)state;
	fault_pair_entry(&p, &in, &orphan);
	assert_int_equal(fault_pair_complete(&p, &out, &done, &orphan),
			 FP_DONE | FP_ORPHAN);
	assert_fault(&done, FAULT_MINOR, 150, FAULT_NO_DUR, 1, 1, 0xb000);
	assert_fault(&orphan, FAULT_UNFINISHED, 100, FAULT_NO_DUR, 0, UINT32_MAX,
		     0xa000);
	assert_int_equal(p.active, 0);
}

static void a_completion_stamped_before_its_entry_gets_no_negative_duration(void **state)
{
	struct fault_pending p = { 0 };
	struct fault done, orphan;
	struct ev in = fault_ev(EV_FAULT_ENTRY, 200, 0, 0xa000);
	struct ev out = fault_ev(EV_FAULT_MINOR, 150, 1, 0xa000);

	(void)state;
	fault_pair_entry(&p, &in, &orphan);
	assert_int_equal(fault_pair_complete(&p, &out, &done, &orphan),
			 FP_DONE | FP_ORPHAN);
	assert_fault(&done, FAULT_MINOR, 150, FAULT_NO_DUR, 1, 1, 0xa000);
	assert_fault(&orphan, FAULT_UNFINISHED, 200, FAULT_NO_DUR, 0, UINT32_MAX,
		     0xa000);
}

static void draining_a_pending_entry_makes_it_unfinished_once(void **state)
{
	struct fault_pending p = { 0 };
	struct fault orphan;
	struct ev in = fault_ev(EV_FAULT_ENTRY, 900, 6, 0xc000);

	(void)state;
	assert_int_equal(fault_pair_drain(&p, TID, &orphan), 0);
	fault_pair_entry(&p, &in, &orphan);
	assert_int_equal(fault_pair_drain(&p, TID, &orphan), FP_ORPHAN);
	assert_fault(&orphan, FAULT_UNFINISHED, 900, FAULT_NO_DUR, 6, UINT32_MAX,
		     0xc000);
	assert_int_equal(p.active, 0);
	assert_int_equal(fault_pair_drain(&p, TID, &orphan), 0);
}

static void fault_kinds_have_the_names_stored_in_the_database(void **state)
{
	(void)state;
	assert_string_equal(fault_kind_name(FAULT_MINOR), "minor");
	assert_string_equal(fault_kind_name(FAULT_MAJOR), "major");
	assert_string_equal(fault_kind_name(FAULT_UNFINISHED), "unfinished");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_entry_then_a_minor_completion_is_a_minor_fault_with_its_duration),
		cmocka_unit_test(an_entry_then_a_major_completion_is_a_major_fault_with_its_duration),
		cmocka_unit_test(a_completion_in_the_same_nanosecond_lasts_zero),
		cmocka_unit_test(an_entry_after_an_entry_leaves_the_first_unfinished),
		cmocka_unit_test(a_completion_without_a_pending_entry_has_no_duration),
		cmocka_unit_test(a_completion_at_another_address_is_unpaired_and_ends_the_entry),
		cmocka_unit_test(a_completion_stamped_before_its_entry_gets_no_negative_duration),
		cmocka_unit_test(draining_a_pending_entry_makes_it_unfinished_once),
		cmocka_unit_test(fault_kinds_have_the_names_stored_in_the_database),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
