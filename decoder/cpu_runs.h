/*
 * cpu_runs: which thread held each CPU, lately, from the switch-in
 * records of every thread on it (PERF_RECORD_SWITCH_CPU_WIDE), so that a
 * target's runnable wait can say what ran instead: "runnable 6.4 ms:
 * cc1 4.1 ms, faultline 1.2 ms".
 *
 * Per CPU, a history of (since, tid) in time order (CLOCK_MONOTONIC ns,
 * the recording's clock): tid held the CPU from since until the next
 * entry's since; tid 0 is the CPU's idle task.  Entries older than
 * CPU_RUNS_HORIZON_NS behind the newest are forgotten, and at most
 * CPU_RUNS_MAX entries are kept per CPU, so memory is bounded under a
 * switch storm; a wait longer than what is kept is covered only in part
 * (the shares then add up to less than the wait, never to a guess).
 */
#ifndef FL_CPU_RUNS_H
#define FL_CPU_RUNS_H

#include <stddef.h>
#include <stdint.h>

#define CPU_RUNS_HORIZON_NS 2000000000ull	/* 2 s */
#define CPU_RUNS_MAX 65536
/* The threads kept for one wait, the longest first; the rest are summed
 * under tid -1. */
#define CPU_SHARES_MAX 8

struct cpu_run {
	uint64_t since;		/* CLOCK_MONOTONIC ns */
	uint32_t tid;
};

struct cpu_history {
	struct cpu_run *v;	/* owned; v[head..n) are live */
	size_t head, n, cap;
};

struct cpu_runs {
	struct cpu_history *cpu;	/* owned, indexed by CPU number */
	size_t ncpu;
};

/* What held a CPU during a wait: tid (0 the idle task, -1 the other
 * threads together) for ns of it. */
struct cpu_share {
	int64_t tid;
	uint64_t ns;
	char comm[16];		/* its name, where the caller knows it; "" */
};

void cpu_runs_init(struct cpu_runs *r);
void cpu_runs_release(struct cpu_runs *r);

/* tid took cpu at mono_ts (in time order per CPU).  0 or -ENOMEM. */
int cpu_runs_switch_in(struct cpu_runs *r, uint32_t cpu, uint32_t tid,
		       uint64_t mono_ts);

/*
 * The threads that held cpu during [from, to), other than `self` (the
 * waiting thread, which cannot have run there meanwhile but may be the
 * entry at `to`), into out[CPU_SHARES_MAX + 1], the longest first, then
 * one entry of tid -1 for the rest when there are more.  Returns the
 * number of entries; 0 when the history does not reach into the wait.
 */
size_t cpu_runs_shares(const struct cpu_runs *r, uint32_t cpu, uint64_t from,
		       uint64_t to, uint32_t self, struct cpu_share *out);

#endif
