/*
 * import_check: what faultline import says about a file it has read,
 * before and after it commits: whether the same content was imported
 * before, whether its points line up with any recorded session, and the
 * summary line.  Messages go to stderr (cli/usage.h).
 */
#ifndef FL_IMPORT_CHECK_H
#define FL_IMPORT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "../schema/metric_store.h"

/* "faultline import: NAME: 2 series, 3 rows, FROM to TO" on stderr, and
 * how many rows lie outside every recorded session, if any. */
void import_print_summary(const char *name, const struct metric_store *s);

/*
 * Refuses (-ERANGE, e set) the rows of s, read from the file called name,
 * when every one of them lies outside every recorded session: they would
 * line up with nothing (relative seconds read as 1970, a wrong
 * --ts-unit), unless any_time.  With no session to compare, points
 * before 2000 get a warning instead.  0 otherwise.
 */
int import_check_times(const char *name, const struct metric_store *s,
		       int any_time, struct errmsg *e);

/*
 * Was content with this digest imported before (metric_store_seen)?
 * Then says so, naming the earlier import and --again, and returns 1:
 * the caller skips the file.  0 when not; -errno with e set on failure.
 */
int import_seen_before(const char *name, struct metric_store *s,
		       const char *digest, struct errmsg *e);

#endif
