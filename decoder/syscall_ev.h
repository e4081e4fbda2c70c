/*
 * syscall_ev: raw_syscalls:sys_enter and sys_exit samples to events of
 * the ordered stream (record --syscalls).
 */
#ifndef FL_SYSCALL_EV_H
#define FL_SYSCALL_EV_H

#include <event-parse.h>

#include "event.h"

struct syscall_fields {
	struct tep_format_field *enter_id;	/* sys_enter: long id */
	struct tep_format_field *args;		/* unsigned long args[6] */
	struct tep_format_field *exit_id;	/* sys_exit: long id */
	struct tep_format_field *ret;		/* long ret */
};

/* Finds the fields in the two formats: 0, or -ENOENT when one lacks a
 * field faultline reads. */
int syscall_fields_bind(struct syscall_fields *f, struct tep_event *enter,
			struct tep_event *exit);

/* A sample of sys_enter (enter 1) or sys_exit into *out, about the
 * sample's own thread on cpu: 1, or 0 when the raw data is too short. */
int syscall_ev(const struct syscall_fields *f, int enter,
	       const struct sample *s, uint32_t cpu, struct ev *out);

#endif
