/*
 * record_pt: the record command's Intel PT options (record --pt): their
 * checks and defaults.  What a recording does with them is the engine's
 * (record/pt.h).
 */
#ifndef FL_CLI_RECORD_PT_H
#define FL_CLI_RECORD_PT_H

#include <stdint.h>

#include "../collector/pt_record.h"

/* --pt=stall without --pt-trigger: the stalls of a market-data thread
 * that matter are milliseconds long. */
#define DEFAULT_PT_TRIGGER_NS 10000000ull
/* --pt=full without --pt-size: the AUX area per CPU. */
#define DEFAULT_PT_FULL_BYTES (4ull << 20)

/* --pt[=MODE]: arg NULL is the default, fault.  0 or -EINVAL with e. */
int record_pt_mode(struct pt_settings *p, const char *arg, const char *opt,
		   struct errmsg *e);

/* What the --pt options must satisfy together (prints the usage error
 * and returns -1), and their defaults.  dwarf_stack: --stack-size with
 * --stacks=dwarf, else 0 (it shares a fault sample with the trace). */
int record_pt_check(int pt_on, struct pt_settings *p, uint64_t dwarf_stack);

#endif
