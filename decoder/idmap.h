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
	ROLE_RING_OWNER,	/* faultline's own dummy event: records nothing
				 * of the targets (see recorder_flush_lost) */
};

struct idmap_slot {
	uint64_t id;		/* 0: empty (the kernel never hands out id 0) */
	uint8_t role;
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
enum ev_role idmap_get(const struct idmap *m, uint64_t id);

#endif
