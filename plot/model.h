/*
 * model: what a timeline plot is made of, between the reader (source.c),
 * the reduction (reduce.c) and the writers (html.c, svg.c).
 *
 * A plot covers a window [from, to) of one session on the wall clock
 * (CLOCK_REALTIME ns) and has lanes, top to bottom: one per metric series,
 * then one per CPU the targets ran on (what ran there), then one per
 * thread (its states, its faults, its tracepoint hits), grouped by
 * process (plot_process, in the header).
 * Lost-record spans cross every lane.
 *
 * Every item is either a recorded row (n == 1, every field of the row) or
 * a merge of rows too short to tell apart at the plot's resolution
 * (n > 1, what they add up to).  The reduction keeps every fault at least
 * keep_fault_ns long as a recorded row, whatever the resolution.
 *
 * The sink is the writer: the driver (plot.c) calls, in this order,
 *   begin; per metric lane: lane, points...; per CPU lane: lane,
 *   cpu spans...; per thread lane: lane, states..., faults..., events...;
 *   lost...; stack...; end.
 * Items of a lane come in time order within each kind, except faults,
 * which come in time order within each fault kind.  Pointers in items
 * are borrowed: valid during the call only.
 */
#ifndef FL_PLOT_MODEL_H
#define FL_PLOT_MODEL_H

#include <stdint.h>

/* The states of thread_state.state, in the order the legend shows them;
 * PS_OTHER also takes a state this build does not know. */
enum plot_state_kind {
	PS_RUNNING, PS_RUNNABLE, PS_SLEEPING, PS_BLOCKED, PS_WAITING,
	PS_OTHER, PS_UNKNOWN, PS_NSTATES,
};

extern const char *const plot_state_names[PS_NSTATES];
/* Fill colours, CSS hex, one per state: shared by both writers. */
extern const char *const plot_state_colors[PS_NSTATES];

enum plot_state_kind plot_state_parse(const char *s);

enum plot_fault_kind { PF_MINOR, PF_MAJOR, PF_UNFINISHED, PF_NKINDS };

extern const char *const plot_fault_names[PF_NKINDS];

#define PLOT_UNCERTAIN 1	/* flags: a loss fell inside (thread_state.uncertain) */
#define PLOT_PREEMPTED 2	/* flags: the switch-out that began it was involuntary */

struct plot_state {
	int64_t ts, dur_ns;		/* CLOCK_REALTIME ns; a merge: first start
					 * to last end */
	enum plot_state_kind state;	/* a merge: the state it spent most in */
	unsigned n;			/* intervals: 1, a recorded one */
	unsigned flags;			/* PLOT_*: a merge, any of its intervals' */
	int64_t ns[PS_NSTATES];		/* a merge: time in each state */
	/* A recorded interval's own fields; -1 or NULL when absent. */
	int64_t cpu, waker_tid, next_tid, stack_id;
	int64_t waker_cpu;		/* where the wake-up ran */
	/* waker: what woke it, as the thread_state_waker view words it */
	const char *waker, *next_comm;	/* borrowed */
};

/*
 * What a CPU lane shows: a target thread running there (PC_RAN, its
 * thread_state row), or a thread that held the CPU while a target waited
 * for it (PC_HELD, a ran_instead row).  ran_instead keeps each holder's
 * total in the wait, not when it ran: a PC_HELD span is its share of the
 * wait, laid out longest first and ending with the wait (the shares add
 * up to the wait, or less where the history kept did not reach back to
 * its start), not its exact placement.
 */
enum plot_cpu_kind { PC_RAN, PC_HELD, PC_NKINDS };

struct plot_cpu_span {
	int64_t ts, dur_ns;		/* a merge: first start to last end */
	enum plot_cpu_kind kind;	/* a merge holds one kind */
	unsigned n;			/* spans: 1, a recorded one */
	int64_t busy_ns;		/* the spans' durations added up */
	/* The thread, as ran_instead_named words a holder ('cc1 (22745)',
	 * 'idle', 'others'); a merge: the thread of its longest span. */
	int64_t tid;			/* 0 the idle task, -1 the others */
	const char *name;		/* borrowed */
	/* PC_HELD, recorded: the wait it fills, by the waiting thread */
	int64_t wait_tid, wait_ts, wait_dur_ns;
};

struct plot_fault {
	int64_t ts, dur_ns;		/* a merge: first entry to last exit */
	enum plot_fault_kind kind;	/* a merge holds one kind */
	unsigned n;
	int64_t max_ns, total_ns;	/* durations: the longest, the sum */
	/* A recorded fault's own fields; -1 when absent. */
	int64_t addr, ip, cpu, exit_cpu, stack_id;
};

/* A tracepoint hit on the thread (record -e). */
struct plot_event {
	int64_t ts, span_ns;		/* a merge: first to last hit */
	unsigned n;
	int names_differ;		/* a merge: of more than one tracepoint */
	const char *name;		/* borrowed; a merge: its first hit's */
	const char *fields;		/* borrowed JSON object; NULL for a merge */
};

/* A metric point, or a merge of the points within one column. */
struct plot_point {
	int64_t ts, span_ns;
	unsigned n;
	double min, max, first, last;	/* a recorded point: all its value */
};

struct plot_lost {
	int64_t from_ts, to_ts;		/* the span nothing can be said of */
	int64_t cpu;			/* -1: the report did not say */
	const char *kind;		/* borrowed: lost.kind */
	int64_t count;
};

enum plot_lane_kind { LANE_THREAD, LANE_METRIC, LANE_CPU };
enum plot_metric_style { STYLE_AUTO, STYLE_LINE, STYLE_TICKS };

struct plot_lane {
	enum plot_lane_kind kind;
	/* LANE_THREAD */
	int64_t tid, pid;
	const char *comm;		/* borrowed: its latest name in the window */
	const char *names;		/* borrowed: every name, ", " between */
	/* LANE_METRIC */
	int64_t series_id;
	const char *name, *labels, *unit;	/* borrowed; unit may be NULL */
	int imported;
	enum plot_metric_style style;	/* LINE or TICKS, never AUTO */
	double vmin, vmax;		/* of its points in the window */
	/* LANE_CPU */
	int64_t cpu;
};

/* A process of the plot's threads: its lanes follow its header, in one
 * fold.  nidle: its threads with rows in the window but neither a fault
 * nor a stall of PLOT_STALL_NS there, which get no lane unless asked for
 * (--all-threads). */
struct plot_process {
	int64_t pid;
	const char *comm;	/* borrowed: its main thread's name, else its
				 * first thread's; "" when none was recorded */
	unsigned nthreads;	/* lanes drawn */
	unsigned nidle;		/* idle threads not drawn */
};

/* What the page says about the plot and its reduction. */
struct plot_header {
	int64_t session;
	const char *db_path, *host, *command_line;	/* borrowed */
	int64_t session_start_ts, session_end_ts;	/* CLOCK_REALTIME ns */
	int64_t from_ts, to_ts;		/* the window */
	unsigned width_px, zoom;
	int64_t quantum_ns;		/* a column: (to - from) / (width * zoom) */
	int64_t keep_fault_ns;
	unsigned nthreads, nmetrics, ncpus;	/* lanes */
	const struct plot_process *procs;	/* borrowed: by pid, each
						 * with a thread drawn or
						 * idle */
	unsigned nprocs;
	unsigned nidle;			/* idle threads not drawn, in all */
	int all_threads;		/* idle threads were asked for */
};

struct plot_counts {
	uint64_t states_in, states_out;
	uint64_t faults_in, faults_kept, fault_merges;
	uint64_t events_in, events_out;
	uint64_t points_in, points_out;
	uint64_t lost_spans, lost_untimed;
	uint64_t cpu_in[PC_NKINDS], cpu_out[PC_NKINDS];
};

struct plot_sink_ops {
	int (*begin)(void *w, const struct plot_header *h);
	int (*lane)(void *w, const struct plot_lane *l);
	int (*state)(void *w, const struct plot_state *s);
	int (*fault)(void *w, const struct plot_fault *f);
	int (*event)(void *w, const struct plot_event *ev);
	int (*point)(void *w, const struct plot_point *p);
	int (*cpu)(void *w, const struct plot_cpu_span *c);
	int (*lost)(void *w, const struct plot_lost *l);
	/* The line of a stack an item named (stack_id), once per stack. */
	int (*stack)(void *w, int64_t stack_id, const char *text);
	int (*end)(void *w, const struct plot_counts *n);
};

#endif
