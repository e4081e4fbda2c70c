/*
 * render: a diagnosis as text for people, or as JSON, into a strbuf (the
 * command prints it).
 */
#ifndef FL_DIAG_RENDER_H
#define FL_DIAG_RENDER_H

#include "../common/strbuf.h"
#include "diagnose.h"

/* At most max findings (0: all), numbered, each with its pattern, thread,
 * time, loss, events, evidence, stack and remedies, then each finding
 * thread's time off the CPU by reason; "no findings" and what was looked
 * at when there are none. */
void diag_render_text(const struct diag_request *req,
		      const struct diag_result *res, size_t max,
		      struct strbuf *sb);

/* {"session": N, "event": ..., "findings": [...], "threads": [...]}:
 * every finding, then each finding thread's time off the CPU by reason,
 * with ns values as integers and times as CLOCK_REALTIME ns. */
void diag_render_json(const struct diag_request *req,
		      const struct diag_result *res, struct strbuf *sb);

#endif
