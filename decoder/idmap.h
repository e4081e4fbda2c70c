/*
 * idmap: event id (PERF_EVENT_IOC_ID, PERF_SAMPLE_IDENTIFIER) to the role
 * that event plays.  Open addressing, power-of-two capacity, linear probe.
 * Inherited child events report their parent's id, so the map only holds
 * the ids of the events faultline opened itself.
 */
#ifndef FL_IDMAP_H
#define FL_IDMAP_H

#include <stddef.h>
#include <stdint.h>

enum ev_role {
	ROLE_NONE = 0,		/* not ours */
	ROLE_FAULT_ENTRY,
	ROLE_FAULT_MINOR,
	ROLE_FAULT_MAJOR,
	ROLE_SWITCH_SAMPLE,	/* context-switches: a target's switch-out,
				 * sampled for its stack (record --stacks) */
	ROLE_RING_OWNER,	/* faultline's own dummy event: records nothing
				 * of the targets (see recorder_flush_lost) */
	ROLE_TP_SCHED_SWITCH,	/* sched:sched_switch, for prev_state */
	ROLE_TP_SCHED_WAKING,	/* sched:sched_waking, for who woke whom */
	ROLE_TP_USER,		/* a tracepoint of -e; arg: its index */
	ROLE_TP_SYS_ENTER,	/* raw_syscalls:sys_enter (record --syscalls) */
	ROLE_TP_SYS_EXIT,	/* raw_syscalls:sys_exit */
	ROLE_TP_LAT_START,	/* a --latency pair's START; arg: its index */
	ROLE_TP_LAT_END,	/* ... its END */
};

struct idmap_slot {
	uint64_t id;		/* 0: empty (the kernel never hands out id 0) */
	uint8_t role;
	uint16_t arg;		/* role-specific, e.g. the -e event's index;
				 * for fault and switch events 1 when their
				 * samples carry a stack (recorder.stack_fmt) */
};

struct idmap {
	struct idmap_slot *slots;	/* owned: malloc'd, freed by idmap_release */
	size_t cap;			/* 0 or a power of two */
	size_t n;
};

void idmap_init(struct idmap *m);
void idmap_release(struct idmap *m);
/* Returns 0, or -ENOMEM; -EINVAL for id 0. */
int idmap_put(struct idmap *m, uint64_t id, enum ev_role role);
int idmap_put_arg(struct idmap *m, uint64_t id, enum ev_role role,
		  uint16_t arg);
enum ev_role idmap_get(const struct idmap *m, uint64_t id);
/* The role, and its arg in *arg (0 if none). */
enum ev_role idmap_lookup(const struct idmap *m, uint64_t id, uint16_t *arg);

#endif
