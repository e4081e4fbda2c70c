/*
 * Thread timelines from synthetic switch streams, through the order queue
 * and the stream as the record pipeline drives them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../decoder/fault_stream.h"
#include "../../decoder/order.h"
#include "records.h"

#define MAX_IV 32

struct fixture {
	struct fault_stream s;
	struct order_queue q;
	struct state_interval iv[MAX_IV];
	/* Copies of each interval's ran shares (iv.ran is borrowed). */
	struct cpu_share ran[MAX_IV][CPU_SHARES_MAX + 1];
	size_t n;
	/* What the recorder opened events on (ops.opened_on): process
	 * p_pid's threads, inherited (-p), and thread t_tid alone (-t). */
	uint32_t p_pid, t_tid;
};

static int store_state(void *ctx, const struct state_interval *iv)
{
	struct fixture *fx = ctx;

	assert_true(fx->n < MAX_IV);
	assert_true(iv->nran <= CPU_SHARES_MAX + 1);
	if (iv->nran)
		memcpy(fx->ran[fx->n], iv->ran, iv->nran * sizeof(*iv->ran));
	fx->iv[fx->n] = *iv;
	fx->iv[fx->n++].ran = NULL;
	return 0;
}

static int opened_on(void *ctx, uint32_t pid, uint32_t tid)
{
	struct fixture *fx = ctx;

	if (fx->p_pid && pid == fx->p_pid)
		return THREAD_EVENTS_INHERITED;
	if (fx->t_tid && tid == fx->t_tid)
		return THREAD_EVENTS_OWN;
	return THREAD_EVENTS_UNKNOWN;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct fault_stream_ops ops = { .store_state = store_state,
					.opened_on = opened_on };

	if (!fx)
		return -1;
	ops.ctx = fx;
	fault_stream_init(&fx->s, &ops, 0);
	order_queue_init(&fx->q);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	order_queue_release(&fx->q);
	fault_stream_release(&fx->s);
	free(fx);
	return 0;
}

/* An event of kind at ts about thread tid of process pid, on cpu. */
static struct ev ev_at(uint8_t kind, uint64_t ts, uint32_t pid, uint32_t tid,
		       uint32_t cpu)
{
	struct ev e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.mono_ts = ts;
	e.pid = pid;
	e.tid = tid;
	e.cpu = cpu;
	return e;
}

static void push(struct fixture *fx, uint8_t kind, uint64_t ts, uint32_t tid,
		 uint32_t cpu, int preempt)
{
	struct ev e = ev_at(kind, ts, tid, tid, cpu);

	e.u.sw.preempt = preempt;
	assert_int_equal(order_queue_push(&fx->q, &e), 0);
}

static void sched(struct fixture *fx, uint8_t kind, uint64_t ts, uint32_t tid,
		  uint32_t cpu, uint32_t value)
{
	struct ev e = ev_at(kind, ts, 0, tid, cpu);

	e.cpu_wide = 1;
	if (kind == EV_SCHED_SWITCH)
		e.u.sched.prev_state = value;
	else
		e.u.sched.waker_tid = value;
	assert_int_equal(order_queue_push(&fx->q, &e), 0);
}

static void finish(struct fixture *fx, uint64_t end_ts)
{
	assert_true(order_queue_flush(&fx->q, UINT64_MAX, fault_stream_event,
				      &fx->s) >= 0);
	assert_int_equal(fault_stream_finish(&fx->s, end_ts), 0);
}

static void assert_iv(const struct state_interval *iv, enum thread_state_kind st,
		      uint64_t ts, uint64_t dur, int32_t cpu)
{
	assert_string_equal(thread_state_name(iv->state), thread_state_name(st));
	assert_int_equal(iv->mono_ts, ts);
	assert_int_equal(iv->dur_ns, dur);
	assert_int_equal(iv->cpu, cpu);
}

/* The switch out on cpu 1 is drained before the switch in on cpu 0 that
 * preceded it; time order puts them right. */
static void switches_from_two_cpus_arriving_out_of_order_are_ordered(void **state)
{
	struct fixture *fx = *state;

	push(fx, EV_SWITCH_OUT, 300, 7, 1, 0);	/* ring of cpu 1 first */
	push(fx, EV_SWITCH_IN, 100, 7, 0, 0);
	push(fx, EV_SWITCH_OUT, 200, 7, 0, 1);
	push(fx, EV_SWITCH_IN, 250, 7, 1, 0);
	finish(fx, 400);
	assert_int_equal(fx->n, 4);
	assert_iv(&fx->iv[0], TS_RUNNING, 100, 100, 0);
	assert_iv(&fx->iv[1], TS_RUNNABLE, 200, 50, -1);
	assert_int_equal(fx->iv[1].preempted, 1);
	assert_iv(&fx->iv[2], TS_RUNNING, 250, 50, 1);	/* migrated to cpu 1 */
	assert_iv(&fx->iv[3], TS_WAITING, 300, 100, -1);
}

static void a_missing_switch_in_makes_the_gap_unknown(void **state)
{
	struct fixture *fx = *state;

	push(fx, EV_SWITCH_IN, 100, 7, 0, 0);
	push(fx, EV_SWITCH_OUT, 150, 7, 0, 0);
	/* the switch in at ~200 was lost */
	push(fx, EV_SWITCH_OUT, 260, 7, 0, 0);
	finish(fx, 300);
	assert_int_equal(fx->n, 3);
	assert_iv(&fx->iv[0], TS_RUNNING, 100, 50, 0);
	assert_iv(&fx->iv[1], TS_UNKNOWN, 150, 110, -1);
	assert_iv(&fx->iv[2], TS_WAITING, 260, 40, -1);	/* ends at the end */
}

/* A loss from ts to until, in the ordered stream. */
static void lost(struct fixture *fx, uint64_t ts, uint64_t until)
{
	struct ev e = ev_at(EV_LOST, ts, 0, 0, 0);

	e.u.lost.until_ts = until;
	assert_int_equal(order_queue_push(&fx->q, &e), 0);
}

static void a_lost_record_marks_the_open_interval_uncertain(void **state)
{
	struct fixture *fx = *state;

	push(fx, EV_SWITCH_IN, 100, 7, 0, 0);
	lost(fx, 150, 150);
	push(fx, EV_SWITCH_OUT, 200, 7, 0, 0);
	push(fx, EV_SWITCH_IN, 300, 7, 0, 0);
	finish(fx, 350);
	assert_int_equal(fx->iv[0].uncertain, 1);
	assert_int_equal(fx->iv[1].uncertain, 0);
	assert_int_equal(fx->iv[2].uncertain, 0);
}

/* The loss arrives after events later than it (a round's events wait in
 * the queue): still the interval it fell in is marked, not the one the
 * stream had reached; and one opening before the loss's end is too. */
static void a_loss_marks_the_intervals_of_its_own_time(void **state)
{
	struct fixture *fx = *state;

	push(fx, EV_SWITCH_IN, 100, 7, 0, 0);
	push(fx, EV_SWITCH_OUT, 200, 7, 0, 0);
	push(fx, EV_SWITCH_IN, 300, 7, 0, 0);
	push(fx, EV_SWITCH_OUT, 400, 7, 0, 0);
	push(fx, EV_SWITCH_IN, 500, 7, 0, 0);
	lost(fx, 250, 320);
	finish(fx, 600);
	assert_int_equal(fx->n, 5);
	assert_int_equal(fx->iv[0].uncertain, 0);	/* running 100-200 */
	assert_int_equal(fx->iv[1].uncertain, 1);	/* off 200-300: the loss */
	assert_int_equal(fx->iv[2].uncertain, 1);	/* running 300-400: opened
							 * before the loss ended */
	assert_int_equal(fx->iv[3].uncertain, 0);
	assert_int_equal(fx->iv[4].uncertain, 0);
}

static void prev_state_d_makes_the_wait_blocked_and_waking_names_the_waker(void **state)
{
	struct fixture *fx = *state;

	push(fx, EV_SWITCH_IN, 100, 7, 0, 0);
	sched(fx, EV_SCHED_SWITCH, 199, 7, 0, 0x2);	/* D, just before */
	push(fx, EV_SWITCH_OUT, 200, 7, 0, 0);
	sched(fx, EV_WAKING, 500, 7, 1, 42);	/* tid 42 on cpu 1 wakes it */
	push(fx, EV_SWITCH_IN, 520, 7, 0, 0);
	finish(fx, 600);
	assert_int_equal(fx->n, 4);
	assert_iv(&fx->iv[1], TS_BLOCKED, 200, 300, -1);
	assert_int_equal(fx->iv[1].waker_tid, 42);
	assert_int_equal(fx->iv[1].waker_cpu, 1);
	assert_iv(&fx->iv[2], TS_RUNNABLE, 500, 20, -1);
	assert_int_equal(fx->iv[2].waker_tid, -1);
}

/* A sched_switch whose switch out was lost, or one from another CPU,
 * describes no switch out that comes later: matching is by sequence. */
static void a_prev_state_from_another_switch_is_not_used(void **state)
{
	struct fixture *fx = *state;

	push(fx, EV_SWITCH_IN, 100, 7, 0, 0);
	sched(fx, EV_SCHED_SWITCH, 150, 7, 0, 0x2);	/* its switch out lost */
	push(fx, EV_SWITCH_IN, 300, 7, 1, 0);		/* in again: stale now */
	push(fx, EV_SWITCH_OUT, 400, 7, 1, 0);
	sched(fx, EV_SCHED_SWITCH, 500, 7, 0, 0x2);	/* another CPU's */
	push(fx, EV_SWITCH_IN, 600, 7, 1, 0);
	push(fx, EV_SWITCH_OUT, 700, 7, 1, 0);
	finish(fx, 800);
	assert_iv(&fx->iv[0], TS_UNKNOWN, 100, 200, -1);	/* in, then in again */
	assert_iv(&fx->iv[2], TS_WAITING, 400, 200, -1);
	assert_iv(&fx->iv[4], TS_WAITING, 700, 100, -1);
}

/* Stamped the same nanosecond as its switch out, a sched_switch still
 * comes first: the kernel writes it first into the same ring. */
static void a_prev_state_stamped_with_its_switch_out_is_used(void **state)
{
	struct fixture *fx = *state;
	struct ev e = ev_at(EV_SCHED_SWITCH, 200, 0, 7, 0);

	push(fx, EV_SWITCH_IN, 100, 7, 0, 0);
	e.cpu_wide = 1;
	e.u.sched.prev_state = 0x2;
	e.u.sched.next_tid = 42;
	strcpy(e.u.sched.next_comm, "kworker/0:1");
	assert_int_equal(order_queue_push(&fx->q, &e), 0);
	push(fx, EV_SWITCH_OUT, 200, 7, 0, 0);
	finish(fx, 900);
	assert_iv(&fx->iv[1], TS_BLOCKED, 200, 700, -1);
	assert_int_equal(fx->iv[1].next_tid, 42);
	assert_string_equal(fx->iv[1].next_comm, "kworker/0:1");
}

/* A CPU-wide tracepoint about a thread no target event showed does not
 * make that thread a target. */
static void cpu_wide_events_do_not_add_threads_unless_told(void **state)
{
	struct fixture *fx = *state;

	sched(fx, EV_WAKING, 100, 99, 0, 42);
	finish(fx, 200);
	assert_int_equal(fx->s.threads.n, 0);
	assert_int_equal(fx->n, 0);
}

/* A CPU-wide switch record: tid of process pid took cpu (in) or left
 * it (out). */
static void cpu_switch_of(struct fixture *fx, uint8_t kind, uint64_t ts,
			  uint32_t pid, uint32_t tid, uint32_t cpu)
{
	struct ev e = ev_at(kind, ts, pid, tid, cpu);

	e.cpu_wide = 1;
	assert_int_equal(order_queue_push(&fx->q, &e), 0);
}

/* The same, of a thread that leads its process. */
static void cpu_switch(struct fixture *fx, uint8_t kind, uint64_t ts,
		       uint32_t tid, uint32_t cpu)
{
	cpu_switch_of(fx, kind, ts, tid, tid, cpu);
}

/*
 * Target 7 is preempted on cpu 0 at 1 ms; thread 50 runs there, then the
 * idle task, then thread 51, and 7 is back at 3 ms.  With per-thread
 * targets the CPU-wide records only say who held the CPU: 7's timeline is
 * its own records', and its runnable wait names 50, 51 and idle.
 */
static void a_runnable_wait_names_what_held_its_cpu(void **state)
{
	struct fixture *fx = *state;
	const uint64_t ms = 1000000;

	push(fx, EV_SWITCH_IN, 0, 7, 0, 0);
	cpu_switch(fx, EV_SWITCH_IN, 0, 7, 0);
	push(fx, EV_SWITCH_OUT, 1 * ms, 7, 0, 1);
	cpu_switch(fx, EV_SWITCH_OUT, 1 * ms, 7, 0);
	cpu_switch(fx, EV_SWITCH_IN, 1 * ms, 50, 0);
	cpu_switch(fx, EV_SWITCH_IN, 1 * ms + 1200000, 0, 0);
	cpu_switch(fx, EV_SWITCH_IN, 1 * ms + 1500000, 51, 0);
	cpu_switch(fx, EV_SWITCH_IN, 3 * ms, 7, 0);
	push(fx, EV_SWITCH_IN, 3 * ms, 7, 0, 0);
	/* Another CPU's records say nothing about cpu 0. */
	cpu_switch(fx, EV_SWITCH_IN, 2 * ms, 60, 1);
	finish(fx, 4 * ms);
	assert_int_equal(fx->s.threads.n, 1);	/* 50, 51 and 60 are no targets */
	assert_int_equal(fx->n, 3);
	assert_iv(&fx->iv[1], TS_RUNNABLE, 1 * ms, 2 * ms, -1);
	assert_int_equal(fx->iv[1].nran, 3);
	assert_int_equal(fx->iv[1].ran_cpu, 0);
	assert_int_equal(fx->ran[1][0].tid, 50);
	assert_int_equal(fx->ran[1][0].ns, 1200000);
	assert_int_equal(fx->ran[1][1].tid, 51);
	assert_int_equal(fx->ran[1][1].ns, 500000);
	assert_int_equal(fx->ran[1][2].tid, 0);
	assert_int_equal(fx->ran[1][2].ns, 300000);
	assert_int_equal(fx->iv[0].nran, 0);	/* running: none */
	assert_int_equal(fx->iv[2].nran, 0);
}

/* A wait shorter than RAN_INSTEAD_MIN_NS says nothing of what ran. */
static void a_short_runnable_wait_names_nothing(void **state)
{
	struct fixture *fx = *state;

	push(fx, EV_SWITCH_IN, 0, 7, 0, 0);
	push(fx, EV_SWITCH_OUT, 1000, 7, 0, 1);
	cpu_switch(fx, EV_SWITCH_IN, 1000, 50, 0);
	push(fx, EV_SWITCH_IN, 1000 + RAN_INSTEAD_MIN_NS - 1, 7, 0, 0);
	finish(fx, 2 * RAN_INSTEAD_MIN_NS);
	assert_int_equal(fx->n, 3);
	assert_iv(&fx->iv[1], TS_RUNNABLE, 1000, RAN_INSTEAD_MIN_NS - 1, -1);
	assert_int_equal(fx->iv[1].nran, 0);
}

/* redis-server under redis-benchmark: the client's waking comes 0.7 us
 * before the server thread's switch out (it was still leaving the CPU),
 * and no waking comes while it is off.  The sleep is ended by it at
 * once, and the thread waits runnable until its switch in. */
static void a_waking_that_races_the_switch_out_ends_its_sleep(void **state)
{
	struct fixture *fx = *state;

	push(fx, EV_SWITCH_IN, 100, 7, 1, 0);
	sched(fx, EV_SCHED_SWITCH, 199, 7, 1, 0x1);	/* S */
	sched(fx, EV_WAKING, 200, 7, 0, 42);	/* tid 42 on cpu 0 */
	push(fx, EV_SWITCH_OUT, 201, 7, 1, 0);
	push(fx, EV_SWITCH_IN, 230, 7, 1, 0);
	finish(fx, 300);
	assert_int_equal(fx->n, 4);
	assert_iv(&fx->iv[0], TS_RUNNING, 100, 101, 1);
	assert_iv(&fx->iv[1], TS_SLEEPING, 201, 0, -1);
	assert_int_equal(fx->iv[1].waker_tid, 42);
	assert_int_equal(fx->iv[1].waker_cpu, 0);
	assert_iv(&fx->iv[2], TS_RUNNABLE, 201, 29, -1);
	assert_int_equal(fx->iv[2].waker_tid, -1);
	assert_iv(&fx->iv[3], TS_RUNNING, 230, 70, 1);
}

/* A waking while running whose sleep never began (the thread ran on):
 * the sleep that does begin later takes its own waking, not that one. */
static void a_sleep_with_its_own_waking_does_not_take_an_earlier_one(void **state)
{
	struct fixture *fx = *state;

	push(fx, EV_SWITCH_IN, 100, 7, 0, 0);
	sched(fx, EV_WAKING, 150, 7, 1, 42);
	push(fx, EV_SWITCH_OUT, 300, 7, 0, 0);
	sched(fx, EV_WAKING, 400, 7, 1, 43);
	push(fx, EV_SWITCH_IN, 450, 7, 0, 0);
	finish(fx, 500);
	assert_int_equal(fx->n, 4);
	assert_iv(&fx->iv[1], TS_WAITING, 300, 100, -1);
	assert_int_equal(fx->iv[1].waker_tid, 43);
	assert_iv(&fx->iv[2], TS_RUNNABLE, 400, 50, -1);
}

/* A waking while running is for the next switch out only: a preempted
 * one begins no sleep, and the switch in after it forgets the waking;
 * a later sleep without a waking of its own names no waker. */
static void an_early_waking_is_forgotten_at_the_next_switch_in(void **state)
{
	struct fixture *fx = *state;

	push(fx, EV_SWITCH_IN, 100, 7, 0, 0);
	sched(fx, EV_WAKING, 150, 7, 1, 42);
	push(fx, EV_SWITCH_OUT, 200, 7, 0, 1);	/* preempted */
	push(fx, EV_SWITCH_IN, 250, 7, 0, 0);
	push(fx, EV_SWITCH_OUT, 300, 7, 0, 0);
	push(fx, EV_SWITCH_IN, 350, 7, 0, 0);
	finish(fx, 400);
	assert_int_equal(fx->n, 5);
	assert_iv(&fx->iv[1], TS_RUNNABLE, 200, 50, -1);
	assert_iv(&fx->iv[3], TS_WAITING, 300, 50, -1);
	assert_int_equal(fx->iv[3].waker_tid, -1);
}

/* A thread's own FORK, EXIT or COMM record (per-thread targets), written
 * on cpu. */
static void task_rec(struct fixture *fx, uint8_t kind, uint64_t ts,
		     uint32_t pid, uint32_t tid, uint32_t ptid, uint32_t cpu)
{
	struct ev e = ev_at(kind, ts, pid, tid, cpu);

	e.u.task.ppid = pid;
	e.u.task.ptid = ptid;
	if (kind == EV_COMM)
		snprintf(e.u.comm.comm, COMM_LEN, "cmd");
	assert_int_equal(order_queue_push(&fx->q, &e), 0);
}

/* The intervals stored for tid, in order, into out (at most max). */
static size_t intervals_of(const struct fixture *fx, uint32_t tid,
			   const struct state_interval **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < fx->n && n < max; i++)
		if (fx->iv[i].tid == tid)
			out[n++] = &fx->iv[i];
	return n;
}

/*
 * -t 7: its events stay its own, so a thread it creates has none, and
 * the kernel says nothing more of it than its birth.  It is no target:
 * no interval (it was once stored "runnable" from its birth to the end
 * of the recording).  A -p process's new thread inherits: a target.
 */
static void a_thread_made_by_a_t_target_is_no_target(void **state)
{
	struct fixture *fx = *state;
	const struct state_interval *iv[4];

	fx->t_tid = 7;
	fx->p_pid = 20;
	push(fx, EV_SWITCH_IN, 0, 7, 0, 0);
	task_rec(fx, EV_FORK, 100, 7, 8, 7, 0);
	task_rec(fx, EV_FORK, 150, 20, 21, 20, 1);
	push(fx, EV_SWITCH_IN, 200, 21, 1, 0);
	finish(fx, 1000);
	assert_int_equal(intervals_of(fx, 8, iv, 4), 0);
	assert_false(thread_table_find(&fx->s.threads, 8)->wanted);
	assert_int_equal(intervals_of(fx, 7, iv, 4), 1);
	assert_true(thread_table_find(&fx->s.threads, 21)->wanted);
	assert_int_equal(intervals_of(fx, 21, iv, 4), 2);	/* runnable, running */
}

/*
 * cpu_wide_switches: the targets' own events write no switch records,
 * and the CPU-wide ones make their timelines.  20 is a -p process whose
 * thread 22 shows itself first in a CPU-wide record; 30 is a command's
 * thread, a target once its own COMM record showed it; 7 is -t, and its
 * child 8 is no target; 50 is another process's.  A switch out of tid
 * -1 (an exiting task the kernel released) and records after 22's EXIT
 * are no one's.
 */
static void cpu_wide_switches_make_the_targets_timelines(void **state)
{
	struct fixture *fx = *state;
	const struct state_interval *iv[8];
	const uint64_t ms = 1000000;

	fx->s.cpu_wide_switches = 1;
	fx->p_pid = 20;
	fx->t_tid = 7;
	cpu_switch_of(fx, EV_SWITCH_IN, 0, 20, 22, 0);
	cpu_switch(fx, EV_SWITCH_IN, 0, 30, 1);	/* before its COMM: not yet */
	task_rec(fx, EV_COMM, 10, 30, 30, 0, 1);
	cpu_switch_of(fx, EV_SWITCH_OUT, 1 * ms, 20, 22, 0);
	cpu_switch(fx, EV_SWITCH_IN, 1 * ms, 50, 0);
	cpu_switch(fx, EV_SWITCH_OUT, 1 * ms, 30, 1);
	cpu_switch(fx, EV_SWITCH_IN, 1 * ms, 7, 1);
	task_rec(fx, EV_FORK, 1 * ms + 10, 7, 8, 7, 1);
	cpu_switch(fx, EV_SWITCH_OUT, 1 * ms + 20, 7, 1);
	cpu_switch(fx, EV_SWITCH_IN, 1 * ms + 20, 8, 1);
	cpu_switch(fx, EV_SWITCH_OUT, 2 * ms, 8, 1);
	cpu_switch_of(fx, EV_SWITCH_IN, 3 * ms, 20, 22, 0);
	task_rec(fx, EV_EXIT, 4 * ms, 20, 22, 0, 0);
	cpu_switch_of(fx, EV_SWITCH_OUT, 4 * ms + 10, UINT32_MAX, UINT32_MAX, 0);
	cpu_switch_of(fx, EV_SWITCH_IN, 5 * ms, 20, 22, 0);	/* after its exit */
	finish(fx, 6 * ms);
	assert_null(thread_table_find(&fx->s.threads, 50));
	assert_null(thread_table_find(&fx->s.threads, UINT32_MAX));
	/* 22: running 0-1 ms, off (sleeping: no sched_switch says why)
	 * 1-3 ms, running 3-4 ms, to its exit. */
	assert_int_equal(intervals_of(fx, 22, iv, 8), 3);
	assert_iv(iv[0], TS_RUNNING, 0, 1 * ms, 0);
	assert_int_equal(iv[1]->mono_ts, 1 * ms);
	assert_int_equal(iv[1]->dur_ns, 2 * ms);
	assert_iv(iv[2], TS_RUNNING, 3 * ms, 1 * ms, 0);
	/* 30: from its COMM, running to its switch out at 1 ms. */
	assert_int_equal(intervals_of(fx, 30, iv, 8), 2);
	assert_iv(iv[0], TS_RUNNING, 10, 1 * ms - 10, 1);
	/* 7, -t: in at 1 ms, out 20 ns later. */
	assert_int_equal(intervals_of(fx, 7, iv, 8), 2);
	assert_iv(iv[0], TS_RUNNING, 1 * ms, 20, 1);
	assert_int_equal(intervals_of(fx, 8, iv, 8), 0);
}

#define TL_TEST(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TL_TEST(switches_from_two_cpus_arriving_out_of_order_are_ordered),
		TL_TEST(a_missing_switch_in_makes_the_gap_unknown),
		TL_TEST(a_lost_record_marks_the_open_interval_uncertain),
		TL_TEST(a_loss_marks_the_intervals_of_its_own_time),
		TL_TEST(prev_state_d_makes_the_wait_blocked_and_waking_names_the_waker),
		TL_TEST(a_prev_state_from_another_switch_is_not_used),
		TL_TEST(a_prev_state_stamped_with_its_switch_out_is_used),
		TL_TEST(cpu_wide_events_do_not_add_threads_unless_told),
		TL_TEST(a_runnable_wait_names_what_held_its_cpu),
		TL_TEST(a_short_runnable_wait_names_nothing),
		TL_TEST(a_waking_that_races_the_switch_out_ends_its_sleep),
		TL_TEST(a_sleep_with_its_own_waking_does_not_take_an_earlier_one),
		TL_TEST(an_early_waking_is_forgotten_at_the_next_switch_in),
		TL_TEST(a_thread_made_by_a_t_target_is_no_target),
		TL_TEST(cpu_wide_switches_make_the_targets_timelines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
