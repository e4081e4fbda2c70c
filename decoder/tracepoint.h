/*
 * tracepoint: the raw bytes of a tracepoint sample (PERF_SAMPLE_RAW) to
 * fields, through libtraceevent and the event's format from tracefs.
 * Pure: the struct tep_event is loaded by collector/ and borrowed here.
 */
#ifndef FL_TRACEPOINT_H
#define FL_TRACEPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <event-parse.h>

#include "event.h"

/* The fields of sched_switch and sched_waking that timelines need. */
struct sched_fields {
	struct tep_format_field *prev_pid;	/* sched_switch */
	struct tep_format_field *prev_state;
	struct tep_format_field *woken_pid;	/* sched_waking: pid */
};

/* Finds the fields in the two events' formats.  0, or -ENOENT when this
 * kernel's formats lack one (the caller then goes without). */
int sched_fields_bind(struct sched_fields *f, struct tep_event *sched_switch,
		      struct tep_event *sched_waking);

/*
 * A sched_switch or sched_waking sample to an event for the timelines:
 * EV_PREV_STATE about the thread switching out, or EV_WAKING about the
 * thread woken (the sample's own thread is the waker).  Returns 1 when
 * *out is filled, 0 when the raw data is too short to hold the fields.
 */
int sched_ev(const struct sched_fields *f, enum ev_role role,
	     const struct sample *s, uint32_t cpu, struct ev *out);

/*
 * The event's own (non-common) fields as a JSON object into buf (cap
 * bytes, NUL-terminated): numbers as numbers, strings as strings, arrays
 * of numbers as arrays, and a field printed with __print_symbolic() as
 * its symbol's name ("SOCKET_RCVBUFF") when the value has one.  Returns
 * the length, -ENOSPC if buf is too small, -EBADMSG if raw is too short.
 */
int tp_fields_json(struct tep_event *ev, const void *raw, size_t size,
		   char *buf, size_t cap);

#endif
