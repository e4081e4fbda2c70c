/*
 * fault_stream: events as the rings deliver them, put in order by the
 * order queue, become stored faults, histogram counts and name spells.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../decoder/fault_stream.h"
#include "../../decoder/order.h"
#include "records.h"

#define MAX_OUT 32
#define ADDR 0x7f00deadb000ull

struct spell {
	uint32_t tid, pid;
	char comm[COMM_LEN];
	uint64_t first_mono_ts, last_mono_ts;
};

/* What the stream handed to its ops. */
struct sink {
	struct fault faults[MAX_OUT];
	size_t nfaults;
	struct spell spells[MAX_OUT];
	size_t nspells;
	struct syscall_call calls[MAX_OUT];
	size_t ncalls;
	struct state_interval states[MAX_OUT];
	size_t nstates;
	int resolves;
	uint32_t target_pid;	/* 0: every thread is a target */
	int store_err;		/* returned by store_fault */
};

static void resolve(void *ctx, struct thread *t)
{
	struct sink *k = ctx;

	k->resolves++;
	snprintf(t->comm, COMM_LEN, "t%u", t->tid);
}

static int wanted(void *ctx, const struct thread *t)
{
	const struct sink *k = ctx;

	return !k->target_pid || t->pid == k->target_pid;
}

static int store_fault(void *ctx, const struct fault *f)
{
	struct sink *k = ctx;

	assert_true(k->nfaults < MAX_OUT);
	k->faults[k->nfaults++] = *f;
	return k->store_err;
}

static int store_state(void *ctx, const struct state_interval *iv)
{
	struct sink *k = ctx;

	assert_true(k->nstates < MAX_OUT);
	k->states[k->nstates++] = *iv;
	return 0;
}

static int spell_end(void *ctx, const struct thread *t)
{
	struct sink *k = ctx;
	struct spell *sp;

	assert_true(k->nspells < MAX_OUT);
	sp = &k->spells[k->nspells++];
	sp->tid = t->tid;
	sp->pid = t->pid;
	memcpy(sp->comm, t->comm, COMM_LEN);
	sp->first_mono_ts = t->first_mono_ts;
	sp->last_mono_ts = t->last_mono_ts;
	return 0;
}

static int syscall_done(void *ctx, const struct syscall_call *c, int store)
{
	struct sink *k = ctx;

	assert_true(k->ncalls < MAX_OUT);
	if (store)
		k->calls[k->ncalls++] = *c;
	return 0;
}

struct fixture {
	struct sink sink;
	struct fault_stream s;
	struct order_queue q;
};

static int fixture_setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct fault_stream_ops ops = { .resolve = resolve, .wanted = wanted,
					.store_fault = store_fault,
					.spell_end = spell_end,
					.store_state = store_state,
					.syscall_done = syscall_done };

	if (!fx)
		return -1;
	ops.ctx = &fx->sink;
	fault_stream_init(&fx->s, &ops, 0);
	order_queue_init(&fx->q);
	*state = fx;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *fx = *state;

	order_queue_release(&fx->q);
	fault_stream_release(&fx->s);
	free(fx);
	return 0;
}

/* ---- events ---------------------------------------------------------------- */

static void push(struct fixture *fx, const struct ev *e)
{
	assert_int_equal(order_queue_push(&fx->q, e), 0);
}

static struct ev base_ev(uint8_t kind, uint64_t ts, uint32_t pid, uint32_t tid,
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

static void fault_at(struct fixture *fx, uint8_t kind, uint64_t ts, uint32_t tid,
		     uint32_t cpu, uint64_t addr)
{
	struct ev e = base_ev(kind, ts, tid, tid, cpu);

	e.u.fault.addr = addr;
	e.u.fault.ip = 0x401000;
	push(fx, &e);
}

static void entry(struct fixture *fx, uint64_t ts, uint32_t tid, uint32_t cpu)
{
	fault_at(fx, EV_FAULT_ENTRY, ts, tid, cpu, ADDR);
}

static void minor(struct fixture *fx, uint64_t ts, uint32_t tid, uint32_t cpu)
{
	fault_at(fx, EV_FAULT_MINOR, ts, tid, cpu, ADDR);
}

static void major(struct fixture *fx, uint64_t ts, uint32_t tid, uint32_t cpu)
{
	fault_at(fx, EV_FAULT_MAJOR, ts, tid, cpu, ADDR);
}

static void comm(struct fixture *fx, uint64_t ts, uint32_t tid, const char *name,
		 int exec)
{
	struct ev e = base_ev(EV_COMM, ts, tid, tid, 0);

	snprintf(e.u.comm.comm, COMM_LEN, "%s", name);
	e.u.comm.exec = exec;
	push(fx, &e);
}

static void fork_ev(struct fixture *fx, uint64_t ts, uint32_t pid, uint32_t tid,
		    uint32_t ptid)
{
	struct ev e = base_ev(EV_FORK, ts, pid, tid, 0);

	e.u.task.ppid = pid;
	e.u.task.ptid = ptid;
	push(fx, &e);
}

static void exit_ev(struct fixture *fx, uint64_t ts, uint32_t tid)
{
	struct ev e = base_ev(EV_EXIT, ts, tid, tid, 0);

	push(fx, &e);
}

static void sys_enter(struct fixture *fx, uint64_t ts, uint32_t tid, int32_t nr)
{
	struct ev e = base_ev(EV_SYS_ENTER, ts, tid, tid, 0);

	e.u.sys.nr = nr;
	e.u.sys.args[0] = 3;
	push(fx, &e);
}

/* A switch out on cpu 0, its stack sample just before it. */
static void switch_out(struct fixture *fx, uint64_t ts, uint32_t tid,
		       uint32_t stack_id)
{
	struct ev e = base_ev(EV_SWITCH_STACK, ts - 1, tid, tid, 0);

	e.u.fault.stack_id = stack_id;
	push(fx, &e);
	e = base_ev(EV_SWITCH_OUT, ts, tid, tid, 0);
	push(fx, &e);
}

static long flush_all(struct fixture *fx)
{
	return order_queue_flush(&fx->q, UINT64_MAX, fault_stream_event, &fx->s);
}

/* Flushes everything, then ends the recording. */
static void finish(struct fixture *fx)
{
	assert_true(flush_all(fx) >= 0);
	assert_int_equal(fault_stream_finish(&fx->s, UINT64_MAX), 0);
}

/* ---- checks ------------------------------------------------------------------ */

static void assert_stats(const struct fault_stats *got, struct fault_stats want)
{
	assert_int_equal(got->entries, want.entries);
	assert_int_equal(got->minor, want.minor);
	assert_int_equal(got->major, want.major);
	assert_int_equal(got->paired, want.paired);
	assert_int_equal(got->unfinished, want.unfinished);
	assert_int_equal(got->unpaired_exits, want.unpaired_exits);
	assert_int_equal(got->stored, want.stored);
	assert_int_equal(got->below_threshold, want.below_threshold);
	assert_int_equal(got->other_threads, want.other_threads);
}

static void assert_fault(const struct fault *f, uint32_t tid, enum fault_kind kind,
			 uint64_t ts, uint64_t dur, uint32_t cpu, uint32_t exit_cpu)
{
	assert_int_equal(f->tid, tid);
	assert_int_equal(f->pid, tid);
	assert_int_equal(f->kind, kind);
	assert_int_equal(f->mono_ts, ts);
	assert_int_equal(f->dur_ns, dur);
	assert_int_equal(f->cpu, cpu);
	assert_int_equal(f->exit_cpu, exit_cpu);
	assert_int_equal(f->addr, ADDR);
	assert_int_equal(f->ip, 0x401000);
}

static void assert_spell(const struct spell *sp, uint32_t tid, const char *name,
			 uint64_t first_mono_ts, uint64_t last_mono_ts)
{
	assert_int_equal(sp->tid, tid);
	assert_string_equal(sp->comm, name);
	assert_int_equal(sp->first_mono_ts, first_mono_ts);
	assert_int_equal(sp->last_mono_ts, last_mono_ts);
}

static const struct log2_hist *hist_of(struct fixture *fx, uint32_t tid,
				       enum fault_kind k)
{
	struct thread *t = thread_table_find(&fx->s.threads, tid);

	assert_non_null(t);
	return &t->hist[k];
}

/* ---- pairing ---------------------------------------------------------------- */

static void a_fault_whose_exit_lands_on_another_cpu_still_pairs(void **state)
{
	struct fixture *fx = *state;

	/* cpu 1's ring is drained first and holds the completion. */
	minor(fx, 2000, 10, 1);
	entry(fx, 1000, 10, 0);
	assert_int_equal(flush_all(fx), 2);
	assert_int_equal(fx->sink.nfaults, 1);
	assert_fault(&fx->sink.faults[0], 10, FAULT_MINOR, 1000, 1000, 0, 1);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 1, .minor = 1,
		     .paired = 1, .stored = 1 });
	assert_int_equal(fault_stream_finish(&fx->s, UINT64_MAX), 0);
	assert_int_equal(fx->sink.nspells, 1);
	assert_spell(&fx->sink.spells[0], 10, "t10", 1000, 2000);
}

static void entry_without_exit_is_stored_as_unfinished_at_finish(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 1000, 10, 2);
	assert_int_equal(flush_all(fx), 1);
	assert_int_equal(fx->sink.nfaults, 0);
	assert_int_equal(fault_stream_finish(&fx->s, UINT64_MAX), 0);
	assert_int_equal(fx->sink.nfaults, 1);
	assert_fault(&fx->sink.faults[0], 10, FAULT_UNFINISHED, 1000, FAULT_NO_DUR,
		     2, UINT32_MAX);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 1, .unfinished = 1,
		     .stored = 1 });
}

static void exit_without_entry_is_stored_without_duration(void **state)
{
	struct fixture *fx = *state;

	major(fx, 3000, 10, 5);
	finish(fx);
	assert_int_equal(fx->sink.nfaults, 1);
	assert_fault(&fx->sink.faults[0], 10, FAULT_MAJOR, 3000, FAULT_NO_DUR, 5, 5);
	assert_stats(&fx->s.st, (struct fault_stats){ .major = 1,
		     .unpaired_exits = 1, .stored = 1 });
	assert_int_equal(hist_of(fx, 10, FAULT_MAJOR)->total, 0);
}

static void a_second_entry_leaves_the_first_fault_unfinished(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 100, 10, 0);
	entry(fx, 200, 10, 1);
	minor(fx, 230, 10, 1);
	finish(fx);
	assert_int_equal(fx->sink.nfaults, 2);
	assert_fault(&fx->sink.faults[0], 10, FAULT_UNFINISHED, 100, FAULT_NO_DUR,
		     0, UINT32_MAX);
	assert_fault(&fx->sink.faults[1], 10, FAULT_MINOR, 200, 30, 1, 1);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 2, .minor = 1,
		     .paired = 1, .unfinished = 1, .stored = 2 });
}

static void faults_under_the_threshold_are_counted_in_the_histogram_not_stored(void **state)
{
	struct fixture *fx = *state;

	fx->s.min_dur_ns = 1000;
	entry(fx, 100, 10, 0);
	minor(fx, 1099, 10, 0);		/* 999 ns: under */
	entry(fx, 2000, 10, 0);
	minor(fx, 3000, 10, 0);		/* 1000 ns: at the threshold */
	entry(fx, 4000, 10, 0);
	major(fx, 9000, 10, 0);		/* 5000 ns */
	minor(fx, 10000, 10, 0);	/* no entry: stored, not counted */
	finish(fx);
	assert_int_equal(fx->sink.nfaults, 3);
	assert_fault(&fx->sink.faults[0], 10, FAULT_MINOR, 2000, 1000, 0, 0);
	assert_fault(&fx->sink.faults[1], 10, FAULT_MAJOR, 4000, 5000, 0, 0);
	assert_fault(&fx->sink.faults[2], 10, FAULT_MINOR, 10000, FAULT_NO_DUR, 0, 0);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 3, .minor = 3,
		     .major = 1, .paired = 3, .unpaired_exits = 1, .stored = 3,
		     .below_threshold = 1 });
	assert_int_equal(hist_of(fx, 10, FAULT_MINOR)->total, 2);
	assert_int_equal(hist_of(fx, 10, FAULT_MINOR)->count[10], 2);	/* 512..1023, 1000 */
	assert_int_equal(hist_of(fx, 10, FAULT_MAJOR)->total, 1);
	assert_int_equal(hist_of(fx, 10, FAULT_MAJOR)->count[13], 1);	/* 4096..8191 */
}

static void interleaved_threads_pair_independently(void **state)
{
	struct fixture *fx = *state;

	/* Same address in both threads; each migrates between the CPUs.
	 * Ring 1 is drained before ring 0. */
	entry(fx, 150, 20, 1);
	minor(fx, 300, 10, 1);
	entry(fx, 100, 10, 0);
	major(fx, 400, 20, 0);
	finish(fx);
	assert_int_equal(fx->sink.nfaults, 2);
	assert_fault(&fx->sink.faults[0], 10, FAULT_MINOR, 100, 200, 0, 1);
	assert_fault(&fx->sink.faults[1], 20, FAULT_MAJOR, 150, 250, 1, 0);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 2, .minor = 1,
		     .major = 1, .paired = 2, .stored = 2 });
}

static void a_store_failure_stops_the_stream_with_its_error(void **state)
{
	struct fixture *fx = *state;

	fx->sink.store_err = -ENOSPC;
	entry(fx, 100, 10, 0);
	minor(fx, 200, 10, 0);
	entry(fx, 300, 10, 0);
	assert_int_equal(flush_all(fx), -ENOSPC);
	assert_int_equal(fx->sink.nfaults, 1);
	assert_int_equal(order_queue_count(&fx->q), 2);	/* the failing event and the one after */
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 1, .minor = 1,
		     .paired = 1, .stored = 1 });
}

/* ---- threads and names ---------------------------------------------------- */

static void a_rename_ends_the_name_spell_and_starts_another(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 100, 10, 0);
	minor(fx, 200, 10, 0);
	comm(fx, 300, 10, "worker", 0);
	entry(fx, 400, 10, 0);
	minor(fx, 450, 10, 0);
	assert_true(flush_all(fx) >= 0);
	assert_int_equal(fx->sink.nspells, 1);
	assert_spell(&fx->sink.spells[0], 10, "t10", 100, 300);
	assert_int_equal(fault_stream_finish(&fx->s, UINT64_MAX), 0);
	assert_int_equal(fx->sink.nspells, 2);
	assert_spell(&fx->sink.spells[1], 10, "worker", 300, 450);
	assert_int_equal(fx->sink.resolves, 1);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 2, .minor = 2,
		     .paired = 2, .stored = 2 });
}

static void the_same_name_again_keeps_the_spell_but_an_exec_ends_it(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 100, 10, 0);
	comm(fx, 200, 10, "t10", 0);
	comm(fx, 300, 10, "t10", 1);
	minor(fx, 350, 10, 0);
	finish(fx);
	assert_int_equal(fx->sink.nspells, 2);
	assert_spell(&fx->sink.spells[0], 10, "t10", 100, 300);
	assert_spell(&fx->sink.spells[1], 10, "t10", 300, 350);
	assert_int_equal(fx->sink.nfaults, 1);
	assert_fault(&fx->sink.faults[0], 10, FAULT_MINOR, 100, 250, 0, 0);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 1, .minor = 1,
		     .paired = 1, .stored = 1 });
}

static void faults_of_non_target_threads_are_counted_apart_and_not_stored(void **state)
{
	struct fixture *fx = *state;

	fx->sink.target_pid = 10;
	entry(fx, 100, 10, 0);
	entry(fx, 110, 20, 1);
	minor(fx, 150, 20, 1);
	minor(fx, 200, 10, 0);
	major(fx, 250, 20, 1);
	finish(fx);
	assert_int_equal(fx->sink.nfaults, 1);
	assert_fault(&fx->sink.faults[0], 10, FAULT_MINOR, 100, 100, 0, 0);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 1, .minor = 1,
		     .paired = 1, .stored = 1, .other_threads = 3 });
	assert_int_equal(fx->sink.nspells, 1);
	assert_spell(&fx->sink.spells[0], 10, "t10", 100, 200);
	assert_int_equal(hist_of(fx, 20, FAULT_MINOR)->total, 0);
}

static void a_thread_exit_ends_its_pending_fault_as_unfinished(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 100, 10, 1);
	exit_ev(fx, 500, 10);
	assert_true(flush_all(fx) >= 0);
	assert_int_equal(fx->sink.nfaults, 1);
	assert_fault(&fx->sink.faults[0], 10, FAULT_UNFINISHED, 100, FAULT_NO_DUR,
		     1, UINT32_MAX);
	assert_int_equal(fx->sink.nspells, 1);
	assert_spell(&fx->sink.spells[0], 10, "t10", 100, 500);
	assert_int_equal(fault_stream_finish(&fx->s, UINT64_MAX), 0);
	assert_int_equal(fx->sink.nfaults, 1);
	assert_int_equal(fx->sink.nspells, 1);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 1, .unfinished = 1,
		     .stored = 1 });
}

static void a_forked_thread_takes_its_creators_name(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 100, 10, 0);
	minor(fx, 120, 10, 0);
	comm(fx, 150, 10, "server", 0);
	fork_ev(fx, 200, 10, 11, 10);
	entry(fx, 300, 11, 1);
	minor(fx, 350, 11, 1);
	finish(fx);
	assert_int_equal(fx->sink.resolves, 1);		/* tid 10 only */
	assert_int_equal(fx->sink.nspells, 3);
	assert_spell(&fx->sink.spells[0], 10, "t10", 100, 150);
	assert_spell(&fx->sink.spells[1], 10, "server", 150, 150);
	assert_spell(&fx->sink.spells[2], 11, "server", 200, 350);
	assert_int_equal(fx->sink.spells[2].pid, 10);
	assert_int_equal(fx->sink.nfaults, 2);
	assert_int_equal(fx->sink.faults[1].tid, 11);
	assert_int_equal(fx->sink.faults[1].dur_ns, 50);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 2, .minor = 2,
		     .paired = 2, .stored = 2 });
}

static void a_forked_thread_of_an_unseen_creator_is_resolved(void **state)
{
	struct fixture *fx = *state;

	fork_ev(fx, 200, 30, 31, 30);
	finish(fx);
	assert_int_equal(fx->sink.resolves, 1);
	assert_int_equal(fx->sink.nspells, 1);
	assert_spell(&fx->sink.spells[0], 31, "t31", 200, 200);
	assert_int_equal(fx->sink.spells[0].pid, 30);
	assert_stats(&fx->s.st, (struct fault_stats){ .entries = 0 });
}

/* The kernel reports tid -1 for a task it cannot name; it is a thread
 * like any other, found again by its tid. */
static void a_thread_with_tid_minus_one_pairs_its_faults(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 100, UINT32_MAX, 0);
	minor(fx, 102, UINT32_MAX, 0);
	finish(fx);
	assert_int_equal(fx->s.threads.n, 1);
	assert_int_equal(fx->sink.nfaults, 1);
	assert_int_equal(fx->sink.faults[0].dur_ns, 2);
}

/* A late entry can arrive after its thread's EXIT: it is not dropped. */
static void an_entry_after_the_threads_exit_is_stored_as_unfinished(void **state)
{
	struct fixture *fx = *state;

	exit_ev(fx, 100, 7);
	entry(fx, 101, 7, 0);
	finish(fx);
	assert_int_equal(fx->sink.nfaults, 1);
	assert_int_equal(fx->sink.faults[0].kind, FAULT_UNFINISHED);
	assert_int_equal(fx->s.st.unfinished, 1);
}

/* A tid reused by a new thread: the old thread's pending fault ends and
 * does not pair with the new thread's completion. */
/* A call in progress at the end is handed on unfinished; off the CPU
 * since a switch out inside it, with that switch out's stack; one that
 * was switched out before it began, or runs, with none. */
static void an_unfinished_call_takes_the_stack_it_waits_in(void **state)
{
	struct fixture *fx = *state;
	const struct syscall_call *c = fx->sink.calls;

	sys_enter(fx, 100, 7, 0);
	switch_out(fx, 120, 7, 42);
	switch_out(fx, 130, 8, 43);	/* 8 entered after it: none */
	sys_enter(fx, 140, 8, 0);
	sys_enter(fx, 150, 9, 0);	/* 9 runs */
	finish(fx);
	assert_int_equal(fx->sink.ncalls, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(c[i].dur_ns, SYSCALL_NO_DUR);
		assert_int_equal(c[i].args[0], 3);
		assert_int_equal(c[i].stack_id, c[i].tid == 7 ? 42 : 0);
	}
	assert_int_equal(fx->s.st.sys_unfinished, 3);
}

static void a_reused_tid_does_not_pair_across_threads(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 100, 7, 0);
	exit_ev(fx, 100, 7);
	entry(fx, 101, 7, 0);		/* late, after the exit */
	fork_ev(fx, 200, 7, 7, 1);
	minor(fx, 210, 7, 0);
	finish(fx);
	assert_int_equal(fx->s.st.unfinished, 2);
	assert_int_equal(fx->s.st.unpaired_exits, 1);
	assert_int_equal(fx->s.st.paired, 0);
}

/* A CPU-wide switch record (-a) of tid on cpu 0. */
static void cpu_wide_switch(struct fixture *fx, uint8_t kind, uint64_t ts,
			    uint32_t tid)
{
	struct ev e = base_ev(kind, ts, tid, tid, 0);

	e.cpu_wide = 1;
	push(fx, &e);
}

/* With -a, an exiting thread's last switch-out comes after its EXIT
 * record: its timeline ends at the exit, and the dead thread waits in no
 * interval after it. */
static void with_a_a_thread_ends_at_its_exit_not_its_last_switch(void **state)
{
	struct fixture *fx = *state;

	fx->s.cpu_wide_adds_threads = 1;
	fork_ev(fx, 50, 7, 7, 1);
	cpu_wide_switch(fx, EV_SWITCH_IN, 100, 7);
	exit_ev(fx, 200, 7);
	cpu_wide_switch(fx, EV_SWITCH_OUT, 300, 7);
	finish(fx);
	assert_true(fx->sink.nstates >= 1);
	for (size_t i = 0; i < fx->sink.nstates; i++)
		assert_true(fx->sink.states[i].mono_ts +
			    fx->sink.states[i].dur_ns <= 200);
	assert_int_equal(fx->sink.states[fx->sink.nstates - 1].state, TS_RUNNING);
	assert_int_equal(fx->sink.states[fx->sink.nstates - 1].mono_ts +
			 fx->sink.states[fx->sink.nstates - 1].dur_ns, 200);
}

#define STREAM_TEST(t) cmocka_unit_test_setup_teardown(t, fixture_setup, fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		STREAM_TEST(a_fault_whose_exit_lands_on_another_cpu_still_pairs),
		STREAM_TEST(entry_without_exit_is_stored_as_unfinished_at_finish),
		STREAM_TEST(exit_without_entry_is_stored_without_duration),
		STREAM_TEST(a_second_entry_leaves_the_first_fault_unfinished),
		STREAM_TEST(faults_under_the_threshold_are_counted_in_the_histogram_not_stored),
		STREAM_TEST(interleaved_threads_pair_independently),
		STREAM_TEST(a_store_failure_stops_the_stream_with_its_error),
		STREAM_TEST(a_rename_ends_the_name_spell_and_starts_another),
		STREAM_TEST(the_same_name_again_keeps_the_spell_but_an_exec_ends_it),
		STREAM_TEST(faults_of_non_target_threads_are_counted_apart_and_not_stored),
		STREAM_TEST(a_thread_exit_ends_its_pending_fault_as_unfinished),
		STREAM_TEST(a_forked_thread_takes_its_creators_name),
		STREAM_TEST(a_forked_thread_of_an_unseen_creator_is_resolved),
		STREAM_TEST(a_thread_with_tid_minus_one_pairs_its_faults),
		STREAM_TEST(an_entry_after_the_threads_exit_is_stored_as_unfinished),
		STREAM_TEST(a_reused_tid_does_not_pair_across_threads),
		STREAM_TEST(an_unfinished_call_takes_the_stack_it_waits_in),
		STREAM_TEST(with_a_a_thread_ends_at_its_exit_not_its_last_switch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
