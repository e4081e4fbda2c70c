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

#include "../common/errmsg.h"
#include "../common/strbuf.h"
#include "event.h"

/* One -e SUBSYS:NAME[/FILTER/]. */
struct tp_spec {
	char *system;		/* owned by the list */
	char *name;		/* owned by the list */
	char *full;		/* owned by the list: "SUBSYS:NAME", as stored in
				 * tracepoint_event.name */
	char *filter;		/* owned by the list; NULL: no filter */
};

/* The -e tracepoints, in the order given. */
struct tp_spec_list {
	struct tp_spec *v;	/* owned */
	size_t n, cap;
};

void tp_spec_list_init(struct tp_spec_list *l);
void tp_spec_list_release(struct tp_spec_list *l);

/*
 * Parses "SUBSYS:NAME" or "SUBSYS:NAME/FILTER/" (a kernel filter
 * expression between the slashes) and appends it to l.  SUBSYS and NAME
 * are letters, digits and '_'.  0, -EINVAL with e quoting opt and arg, or
 * -ENOMEM.
 */
int tp_spec_add(struct tp_spec_list *l, const char *arg, const char *opt,
		struct errmsg *e);

/* The fields of sched_switch and sched_waking that timelines need. */
struct sched_fields {
	struct tep_format_field *prev_pid;	/* sched_switch */
	struct tep_format_field *prev_state;
	struct tep_format_field *prev_comm;	/* may be NULL */
	struct tep_format_field *next_pid;
	struct tep_format_field *next_comm;	/* may be NULL */
	struct tep_format_field *woken_pid;	/* sched_waking: pid */
	struct tep_format_field *waking_flags;	/* its common_flags; may be NULL */
};

/* The context a wake-up ran in, from its sample's common_flags. */
enum wake_ctx wake_ctx_of_flags(uint32_t common_flags);

/* Finds the fields in the two events' formats.  0, or -ENOENT when this
 * kernel's formats lack one (the caller then goes without). */
int sched_fields_bind(struct sched_fields *f, struct tep_event *sched_switch,
		      struct tep_event *sched_waking);

/*
 * A sched_switch or sched_waking sample to an event for the timelines:
 * EV_SCHED_SWITCH about the thread switching out (its state, the thread
 * taking the CPU, both names), or EV_WAKING about the thread woken (the
 * sample's own thread is the waker).  Returns 1 when
 * *out is filled, 0 when the raw data is too short to hold the fields.
 */
int sched_ev(const struct sched_fields *f, enum ev_role role,
	     const struct sample *s, uint32_t cpu, struct ev *out);

/*
 * The event's own (non-common) fields as a JSON object into out (reset
 * first): numbers as numbers, strings as strings (common/json.h's rule),
 * arrays of numbers as arrays, and a field printed with
 * __print_symbolic() as its symbol's name ("SOCKET_RCVBUFF") when the
 * value has one.  0, -EBADMSG if raw is too short, -ENOMEM.
 */
int tp_fields_json(struct tep_event *ev, const void *raw, size_t size,
		   struct strbuf *out);

#endif
