/*
 * query_def: a canned query (queries/NAME.sql, embedded into the binary
 * at build time) or any .sql file, with what its header comment declares:
 *
 *   -- One or more lines saying what the query answers.
 *   --
 *   -- Parameters:
 *   --   :name  TYPE [= DEFAULT]  what it means
 *   -- Columns:
 *   --   name  TYPE  what it holds
 *   SELECT ...
 *
 * TYPE of a parameter is INTEGER, REAL, TEXT or DURATION (INTEGER ns,
 * given with a unit as every duration option is: 200ms or 0.2s; a bare
 * 0 alone needs none) or LABEL (TEXT: a label key, checked by the one
 * label rule, common/labels.h).  A parameter without a
 * default must be given; "= NULL" makes it optional.  A default is
 * written as a value would be given ('quoted' for TEXT).  Lines indented
 * further than an entry continue its description.  Parsing needs no
 * database; nothing here prints.
 */
#ifndef FL_QUERY_DEF_H
#define FL_QUERY_DEF_H

#include <stddef.h>
#include <string.h>

#include "../common/errmsg.h"

enum query_type { QT_INTEGER, QT_REAL, QT_TEXT, QT_DURATION, QT_LABEL };

struct query_param {
	char *name;		/* owned; without the ':' */
	enum query_type type;
	int required;		/* no default: the user must give it */
	char *def;		/* owned: the default, quotes removed; NULL
				 * when required or when the default is NULL */
	char *help;		/* owned */
};

struct query_column {
	char *name;		/* owned */
	char *type;		/* owned: as written (INTEGER, TEXT, ...) */
	char *help;		/* owned */
};

struct query_def {
	char *name;		/* owned: "stalls-near", or the path given */
	char *summary;		/* owned: the header's first paragraph, one line */
	const char *sql;	/* the whole file: borrowed when embedded, else
				 * points into sql_owned */
	char *sql_owned;	/* owned: a file's text; NULL when embedded */
	struct query_param *params;	/* owned array */
	size_t nparams, params_cap;
	struct query_column *columns;	/* owned array */
	size_t ncolumns, columns_cap;
};

/* The canned queries, in name order, ending with a NULL name; generated
 * from queries/ by mk/embed_queries.sh. */
struct embedded_query {
	const char *name;
	const char *sql;
};
extern const struct embedded_query embedded_queries[];
extern const size_t n_embedded_queries;

void query_def_init(struct query_def *q);
void query_def_release(struct query_def *q);

/*
 * Parses sql's header into q; name is copied, sql borrowed (it must
 * outlive q).  Returns 0, -ENOMEM, or -EINVAL with e naming the header
 * line that is malformed.
 */
int query_def_parse(const char *name, const char *sql, struct query_def *q,
		    struct errmsg *e);

/*
 * Finds what the user named: a path (it contains '/' or ends in ".sql")
 * is read from the file, anything else is looked up among the canned
 * queries.  Returns 0, -ENOENT (no such query or file: e says where to
 * look), -EINVAL (a malformed header), -ENOMEM or the file's errno.
 */
int query_def_find(const char *what, struct query_def *q, struct errmsg *e);

/* The parameter named name (without ':'), or NULL. */
const struct query_param *query_def_param(const struct query_def *q,
					  const char *name);

/* "INTEGER", "DURATION", ... */
const char *query_type_name(enum query_type t);

#endif
