/*
 * metric_parse_cols: the columns (csv, tsv) or keys (jsonl) of a metric
 * line that hold its time, value, metric name and labels; for
 * metric_parse only (not an interface of its own).
 */
#ifndef FL_METRIC_PARSE_COLS_H
#define FL_METRIC_PARSE_COLS_H

#include "metric_parse.h"

/* For messages: the time column names looked for when none is named. */
extern const char mp_time_cols_text[];

/*
 * The rank of name among the time columns looked for when none is named
 * (lower is better: ts, time, timestamp, then each with _s, _ms, _us,
 * _ns), or -1 when it is none of them.
 */
int mp_time_col_rank(struct mp_slice name);

/* The index of the best-ranked time column among names[0..n), or -1. */
int mp_best_time_col(const struct mp_slice *names, size_t n);

/* The unit a time column's name ends in (_s, _ms, _us, _ns), else
 * TS_AUTO: ts_us, sent_at_ms and the like say what their numbers are. */
enum ts_kind mp_time_col_unit(struct mp_slice name);

/* Takes the header row (p->fields[0..nfields)): copies the names and
 * resolves the columns.  0 or -errno with e set. */
int mp_take_header(struct metric_parser *p, size_t nfields, struct errmsg *e);

/* Appends the spec's constant labels to l[n..]; a key already there is
 * refused.  The new count, or -errno with e set. */
long mp_add_constant_labels(const struct metric_parser *p, struct mp_label *l,
			    size_t n, struct errmsg *e);

/* Sorts labels by key (a few: insertion sort). */
void mp_sort_labels(struct mp_label *l, size_t n);

#endif
