/* record_summary: what `faultline record` prints while and after it
 * records. */
#ifndef FL_RECORD_SUMMARY_H
#define FL_RECORD_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "../record/session.h"

/* Events seen, faults counted and stored, latency by kind, what was lost
 * (with what to do about it), clock steps, how recording stopped, what
 * recording cost, the database size. */
void record_summary_print(FILE *out, const struct record_session *rs,
			  const char *path);

/* The live status line on stderr (a pipeline_status_fn; ctx unused). */
void record_status_line(void *ctx, const struct record_pipeline *p);

#endif
