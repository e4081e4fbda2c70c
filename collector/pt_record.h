/*
 * pt_record: Intel PT in a recording.  The recorder (collector/recorder.c,
 * collector/fault_events.c) and the record engine (record/pt.c) call it
 * at named points:
 *
 *   pt_record_probe        before the database is opened: the PMU, the
 *                          config against caps, the TSC conversion.
 *                          Without Intel PT it fails here, with the one
 *                          message, and nothing is written.
 *   pt_record_open_leader  for each (target, CPU) the fault events are
 *                          opened for, before them: the PT event; the
 *                          first on a CPU (or per thread) maps its ring
 *                          and AUX area, the others share them.  Returns
 *                          the group fd for the fault mode's carrier.
 *   pt_record_carrier      fault mode: the major-fault event's attr made
 *                          to carry the trace; pt_record_carrier_opened
 *                          after it is opened in the group.
 *   pt_record_after_open   the vDSO from a target's memory, the first
 *                          calibration pair.
 *   pt_record_set_rows     once the session row exists: where traces go.
 *   pt_record_round        each round of the engine's pipeline, before
 *                          it orders the round's records (the PT buffers
 *                          are read by the pipeline's thread, not by the
 *                          drain thread; see record/pt.h):
 *                          the PT rings (AUX records: gaps, full-mode
 *                          traces, snapshot marks; SWITCH: off-CPU
 *                          spans, stall snapshots; the carriers' fault
 *                          samples: their trace stored, the sample handed
 *                          on on CLOCK_MONOTONIC without its AUX bytes),
 *                          SIGUSR2, a calibration pair a second.
 *   pt_record_stall        stall mode: the engine saw a fault longer than
 *                          --pt-trigger that did not leave the CPU.
 *   pt_record_finish       at the end: the rest, the last pair, the
 *                          pt_clock row.  Then pt_replay decodes.
 *
 * The PT events run on the perf clock (the PMU takes no clockid), so do
 * the fault-mode carriers (a group has one clock): every time that comes
 * out of here has been put on CLOCK_MONOTONIC by the calibration pairs.
 */
#ifndef FL_PT_RECORD_H
#define FL_PT_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "../common/errmsg.h"
#include "../decoder/idmap.h"
#include "../decoder/perf_record.h"
#include "../decoder/pt_flow.h"
#include "../decoder/pt_time.h"
#include "pt_aux.h"
#include "pt_clock.h"
#include "pt_config.h"
#include "pt_pmu.h"
#include "ring.h"

struct event_set;
struct recorder;
struct pt_trace;

/* Where a recording's PT rows go (record/pt.c writes them through
 * schema/pt_store.h; the collector writes no database).  Each returns 0
 * or -errno with e; what it is handed is borrowed for the call. */
struct pt_rows {
	void *ctx;
	int (*trace)(void *ctx, const struct pt_trace *t, struct errmsg *e);
	/* tid / cpu < 0: unknown */
	int (*gap)(void *ctx, int64_t tid, int cpu, const struct pt_gap *g,
		   struct errmsg *e);
	int (*vdso)(void *ctx, const void *image, size_t len, struct errmsg *e);
	/* At the end: the session's PT parameters and its clock. */
	int (*clock)(void *ctx, const struct pt_session_info *info,
		     const struct pt_clock *c, struct errmsg *e);
};

/* Where the fault-mode carriers' samples go on, rewritten on
 * CLOCK_MONOTONIC and without their AUX bytes: the record engine's
 * pipeline, which orders them with the other records.  rec is borrowed
 * for the call. */
struct pt_sink {
	void *ctx;
	int (*record)(void *ctx, int cpu, const void *rec, size_t len);
};

/* The data ring of a PT buffer: a page of meta and this much data
 * (sideband and, in fault mode, the carriers' samples with their trace). */
#define PT_RING_BYTES (256u << 10)

/* AUX records remembered per buffer in stall mode (the switch-out marks). */
#define PT_MARKS 64

struct pt_mark {
	uint64_t perf_ns;	/* the AUX record's time */
	uint64_t offset;	/* its aux_offset: the head offset at that stop */
	uint32_t tid;
};

struct pt_buffer {
	int fd;			/* borrowed (recorder's fds): the mapping's event */
	int cpu;		/* the CPU; -1 for a per-thread buffer */
	struct ring ring;	/* owned mapping */
	struct pt_aux aux;	/* owned mapping */
	int *fds;		/* owned array of borrowed: every PT event in it */
	size_t nfds, capfds;
	struct pt_mark marks[PT_MARKS];	/* stall mode, a ring of marks */
	size_t nmarks;		/* marks written; the last PT_MARKS are kept */
	uint64_t aux_read;	/* full mode: the AUX bytes handed on so far */
	uint32_t last_pid, last_tid;	/* who ran last on it */
};

/* A thread's last switch-out, for stall mode's off-CPU spans. */
struct pt_out {
	uint32_t tid, pid;	/* tid 0: empty slot */
	uint64_t perf_ns;
	int buffer;		/* where it ran; -1 unknown */
	uint64_t mark;		/* the AUX offset at its stop */
	int has_mark;
};

struct pt_record_stats {
	uint64_t traces, bytes;		/* stored */
	uint64_t snapshots, overwritten;
	uint64_t aux_gaps, lost;	/* AUX flags, PT ring LOST records */
	uint64_t pairs, pairs_refused;	/* calibration */
};

struct pt_recording {
	struct pt_settings set;
	struct pt_pmu pmu;
	uint64_t config;
	size_t aux_bytes;
	struct perf_event_attr attr;	/* the PT event's */
	struct pt_calibrator cal;	/* owned */
	struct pt_clock clock;		/* owned */
	struct pt_buffer *bufs;		/* owned */
	size_t nbufs, capbufs;
	int *cpu_buf;			/* owned: CPU index -> buffer, -1 */
	int ncpus;
	struct idmap carriers;		/* owned: carrier event ids */
	struct pt_out *outs;		/* owned: stall mode, by tid hash */
	size_t capouts;
	int sigfd;			/* owned: SIGUSR2, stall mode; -1 */
	const struct pt_rows *rows;	/* borrowed, from pt_record_set_rows */
	void *vdso;			/* owned copy, or NULL */
	size_t vdso_len;
	uint8_t *scratch;		/* owned: a forwarded record, a copy */
	size_t scratch_cap;
	uint8_t *tbuf;			/* owned: a trace copied out of AUX */
	size_t tcap;
	uint64_t next_pair_mono;
	struct pt_record_stats st;
	struct errmsg warning;		/* what was left out */
};

void pt_record_init(struct pt_recording *pr);
void pt_record_release(struct pt_recording *pr);

/*
 * Reads the PMU under root ("/"), builds and checks the config, opens
 * the calibrator and reads the TSC conversion.  0, or -errno with e: the
 * message a user sees when this machine cannot record Intel PT.
 */
int pt_record_probe(struct pt_recording *pr, const struct pt_settings *s,
		    const char *root, struct errmsg *e);

/* The PT event for (pid, set->cpus[cpu_idx]), as described above;
 * *group_fd the fd the carrier joins (fault mode), else -1.  A thread
 * that exited first gives -ESRCH with e untouched.  0 or -errno with e. */
int pt_record_open_leader(struct pt_recording *pr, struct event_set *set,
			  pid_t pid, int cpu_idx, int inherit, int on_exec,
			  int *group_fd, struct errmsg *e);

/* Fault mode: is this event role the carrier?  And its attr. */
int pt_record_is_carrier(const struct pt_recording *pr, int role);
void pt_record_carrier(const struct pt_recording *pr,
		       struct perf_event_attr *a);

/* Opens a carrier in group_fd's group and sends its samples into the
 * group's PT ring.  Returns the fd or -errno. */
int pt_record_open_carrier(struct pt_recording *pr, struct perf_event_attr *a,
			   pid_t pid, int cpu, int group_fd);

/* Remembers a carrier's event id. */
int pt_record_carrier_opened(struct pt_recording *pr, uint64_t id);

int pt_record_after_open(struct pt_recording *pr, struct recorder *r,
			 struct errmsg *e);

/* Also hands on the vDSO image.  0 or -errno with e. */
int pt_record_set_rows(struct pt_recording *pr, const struct pt_rows *rows,
		       struct errmsg *e);

int pt_record_round(struct pt_recording *pr, const struct recorder *r,
		    const struct pt_sink *sink, struct errmsg *e);

int pt_record_stall(struct pt_recording *pr, uint32_t pid, uint32_t tid,
		    uint64_t start_mono_ns, uint64_t dur_ns, struct errmsg *e);

int pt_record_finish(struct pt_recording *pr, const struct recorder *r,
		     const struct pt_sink *sink, struct errmsg *e);

/* Between pt_record.c and pt_drain.c: a calibration pair when one is
 * due (a second after the last). */
int pt_record_pair_due(struct pt_recording *pr, struct errmsg *e);

/* perf ns -> CLOCK_MONOTONIC by the pairs so far.  0 or -ENOENT. */
int pt_record_to_mono(const struct pt_recording *pr, uint64_t perf_ns,
		      uint64_t *mono_ns);

#endif
