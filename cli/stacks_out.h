/*
 * stacks_out: faultline stacks' four ways to write a stack: text for
 * people, folded for flame graphs, JSON and CSV for programs.  The
 * command (stacks.c) picks the stacks and reads their frames from the
 * stack_frame_name view; these only write.
 */
#ifndef FL_STACKS_OUT_H
#define FL_STACKS_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "../common/strbuf.h"

enum stacks_format { STACKS_TEXT, STACKS_FOLDED, STACKS_JSON, STACKS_CSV };

/* One stack as the summary query found it.  Strings borrowed from the
 * statement: valid until it steps. */
struct stack_row {
	int rank;			/* 1: the first shown */
	int64_t stack_id, events, total_ns, longest_ns, longest_tid;
	int64_t all_ns;			/* every matched event's time */
	const char *what;		/* "major fault", "blocked", ... */
	const char *method;		/* "fp", "dwarf"; NULL: unknown */
	const char *truncated;		/* why it ends early; NULL: whole */
	int64_t folded_value;		/* folded's count or microseconds */
};

/* One function at one frame, as stack_frame_name has it.  Strings
 * borrowed from the statement. */
struct frame_row {
	int64_t depth, addr, offset, size, line;
	int kernel, inlined, has_offset, has_size, has_line;
	const char *dso, *status, *function, *file, *name;
};

/* What is being written, and what each writer keeps between calls. */
struct stacks_out {
	enum stacks_format format;
	FILE *out;
	char **names;			/* folded: owned, innermost first */
	size_t nnames, capnames;
	size_t nframes;			/* json: frames of this stack written */
	int nstacks;			/* json: stacks written */
};

void stacks_out_init(struct stacks_out *o, enum stacks_format f, FILE *out);
void stacks_out_release(struct stacks_out *o);

/* The document's start and end: JSON's object around the stacks (the
 * session, the filters, the totals), CSV's header line; nothing for text
 * and folded, whose summary the command prints itself. */
void stacks_out_begin(struct stacks_out *o, const char *json_head);
void stacks_out_end(struct stacks_out *o);

/* A stack, then each of its frames, then its end.  0 or -ENOMEM. */
int stacks_out_stack(struct stacks_out *o, const struct stack_row *s);
int stacks_out_frame(struct stacks_out *o, const struct stack_row *s,
		     const struct frame_row *f);
int stacks_out_stack_end(struct stacks_out *o, const struct stack_row *s);

#endif
