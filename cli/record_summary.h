/* record_summary: what `faultline record` prints when it ends. */
#ifndef FL_RECORD_SUMMARY_H
#define FL_RECORD_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "record_pipeline.h"

/* Events seen, faults counted and stored, latency by kind, what was lost
 * (with what to do about it), how recording stopped, the database size. */
void record_summary_print(FILE *out, const struct record_pipeline *p,
			  const struct recorder *r, int64_t session_id,
			  const char *path);

#endif
