#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_def.h"

enum section { S_SUMMARY, S_GAP, S_PARAMS, S_COLUMNS, S_DONE };

void query_def_init(struct query_def *q)
{
	memset(q, 0, sizeof(*q));
}

void query_def_release(struct query_def *q)
{
	for (size_t i = 0; i < q->nparams; i++) {
		free(q->params[i].name);
		free(q->params[i].def);
		free(q->params[i].help);
	}
	for (size_t i = 0; i < q->ncolumns; i++) {
		free(q->columns[i].name);
		free(q->columns[i].type);
		free(q->columns[i].help);
	}
	free(q->params);
	free(q->columns);
	free(q->name);
	free(q->summary);
	free(q->sql_owned);
	query_def_init(q);
}

const char *query_type_name(enum query_type t)
{
	static const char *const names[] = { "INTEGER", "REAL", "TEXT", "DURATION" };

	return names[t];
}

static int type_from(const char *s, size_t n, enum query_type *out)
{
	for (int t = QT_INTEGER; t <= QT_DURATION; t++)
		if (strlen(query_type_name(t)) == n &&
		    !strncmp(s, query_type_name(t), n)) {
			*out = t;
			return 0;
		}
	return -1;
}

/* Appends " more" to *text (owned, may be NULL). */
static int append(char **text, const char *more, size_t n)
{
	size_t len = *text ? strlen(*text) : 0;
	char *t = realloc(*text, len + n + 2);

	if (!t)
		return -ENOMEM;
	if (len)
		t[len++] = ' ';
	memcpy(t + len, more, n);
	t[len + n] = '\0';
	*text = t;
	return 0;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static const char *word_end(const char *p, const char *end)
{
	while (p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
		p++;
	return p;
}

/* The default after "= ": 'quoted' or a bare word; *out NULL for NULL. */
static int parse_default(const char **pp, const char *end, char **out)
{
	const char *p = *pp, *v = p, *ve;

	if (p < end && *p == '\'') {
		v = ++p;
		while (p < end && *p != '\'')
			p++;
		if (p == end)
			return -EINVAL;
		ve = p++;
	} else {
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		ve = p;
		if (ve == v)
			return -EINVAL;
		if (ve - v == 4 && !strncmp(v, "NULL", 4)) {
			*out = NULL;
			*pp = p;
			return 0;
		}
	}
	*out = strndup(v, (size_t)(ve - v));
	*pp = p;
	return *out ? 0 : -ENOMEM;
}

/* "  :name  TYPE [= DEFAULT]  help" */
static int parse_param(const char *p, const char *end, struct query_def *q)
{
	struct query_param qp = { 0 };
	const char *n, *ne, *t, *te;
	struct query_param *v;
	int err = -EINVAL;

	p = skip_space(p, end);
	if (p == end || *p != ':')
		return -EINVAL;
	n = ++p;
	ne = p = word_end(p, end);
	t = p = skip_space(p, end);
	te = p = word_end(p, end);
	if (ne == n || t == ne || type_from(t, (size_t)(te - t), &qp.type) < 0)
		return -EINVAL;
	p = skip_space(p, end);
	qp.required = 1;
	if (p < end && *p == '=') {
		qp.required = 0;
		p = skip_space(p + 1, end);
		if (parse_default(&p, end, &qp.def) < 0)
			goto out;
		p = skip_space(p, end);
	}
	v = realloc(q->params, (q->nparams + 1) * sizeof(*v));
	if (!v)
		goto nomem;
	q->params = v;
	qp.name = strndup(n, (size_t)(ne - n));
	if (!qp.name || append(&qp.help, p, (size_t)(end - p)) < 0)
		goto nomem;
	q->params[q->nparams++] = qp;
	return 0;
nomem:
	err = -ENOMEM;
out:
	free(qp.name);
	free(qp.def);
	free(qp.help);
	return err;
}

/* "  name  TYPE  help" */
static int parse_column(const char *p, const char *end, struct query_def *q)
{
	struct query_column c = { 0 };
	const char *n, *ne, *t, *te;
	struct query_column *v;

	n = p = skip_space(p, end);
	ne = p = word_end(p, end);
	t = p = skip_space(p, end);
	te = p = word_end(p, end);
	if (ne == n || te == t)
		return -EINVAL;
	p = skip_space(p, end);
	v = realloc(q->columns, (q->ncolumns + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	q->columns = v;
	c.name = strndup(n, (size_t)(ne - n));
	c.type = strndup(t, (size_t)(te - t));
	if (!c.name || !c.type || append(&c.help, p, (size_t)(end - p)) < 0) {
		free(c.name);
		free(c.type);
		free(c.help);
		return -ENOMEM;
	}
	q->columns[q->ncolumns++] = c;
	return 0;
}

/* The help text the last entry of the current section continues. */
static char **last_help(struct query_def *q, enum section s)
{
	if (s == S_PARAMS && q->nparams)
		return &q->params[q->nparams - 1].help;
	if (s == S_COLUMNS && q->ncolumns)
		return &q->columns[q->ncolumns - 1].help;
	return NULL;
}

/* One header line's text after "--" (and one space). */
static int header_line(const char *p, const char *end, struct query_def *q,
		       enum section *s, size_t *indent)
{
	const char *text = skip_space(p, end);
	size_t ind = (size_t)(text - p);
	char **help;

	if (text == end) {
		if (*s == S_SUMMARY)
			*s = S_GAP;
		else if (*s != S_GAP)
			*s = S_DONE;
		return 0;
	}
	if (*s == S_DONE)
		return 0;
	if (end - text == 11 && !strncmp(text, "Parameters:", 11)) {
		*s = S_PARAMS;
		*indent = 0;
		return 0;
	}
	if (end - text == 8 && !strncmp(text, "Columns:", 8)) {
		*s = S_COLUMNS;
		*indent = 0;
		return 0;
	}
	if (*s == S_SUMMARY)
		return append(&q->summary, text, (size_t)(end - text));
	if (*s == S_GAP)
		return 0;
	/* An entry is indented; a line indented further continues it. */
	help = last_help(q, *s);
	if (*indent && ind > *indent && help)
		return append(help, text, (size_t)(end - text));
	*indent = ind;
	return *s == S_PARAMS ? parse_param(p, end, q) : parse_column(p, end, q);
}

int query_def_parse(const char *name, const char *sql, struct query_def *q,
		    struct errmsg *e)
{
	enum section s = S_SUMMARY;
	size_t indent = 0;
	int line = 0, err = 0;

	q->sql = sql;
	q->name = strdup(name);
	if (!q->name)
		return -ENOMEM;
	for (const char *p = sql; *p && err == 0; line++) {
		const char *end = strchr(p, '\n'), *next;

		if (!end)
			end = p + strlen(p);
		next = *end ? end + 1 : end;
		if (end > p && end[-1] == '\r')
			end--;		/* a file written with CR LF lines */
		if (strncmp(p, "--", 2))
			break;
		err = header_line(p + 2, end, q, &s, &indent);
		p = next;
	}
	if (err == -EINVAL)
		return errmsg_set(e, EINVAL, "query '%s': header line %d is not "
				  "':name TYPE [= DEFAULT] what' under Parameters "
				  "(TYPE: INTEGER, REAL, TEXT or DURATION) or "
				  "'name TYPE what' under Columns", name, line);
	if (err == 0 && !q->summary)
		return errmsg_set(e, EINVAL, "query '%s': no header comment saying "
				  "what it answers; start the file with '-- ...' "
				  "lines (see faultline-query(1))", name);
	return err;
}

const struct query_param *query_def_param(const struct query_def *q,
					  const char *name)
{
	for (size_t i = 0; i < q->nparams; i++)
		if (!strcmp(q->params[i].name, name))
			return &q->params[i];
	return NULL;
}

/* The whole file into *out (owned, NUL-terminated). */
static int read_file(const char *path, char **out, struct errmsg *e)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, n;
	int err = 0;

	if (!f)
		return errmsg_set(e, errno, "cannot read query file '%s': %s",
				  path, strerror(errno));
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	if (!err && ferror(f))
		err = errmsg_set(e, EIO, "cannot read query file '%s': I/O error",
				 path);
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int query_def_find(const char *what, struct query_def *q, struct errmsg *e)
{
	size_t n = strlen(what);
	int err;

	if (strchr(what, '/') || (n > 4 && !strcmp(what + n - 4, ".sql"))) {
		err = read_file(what, &q->sql_owned, e);
		return err ? err : query_def_parse(what, q->sql_owned, q, e);
	}
	for (size_t i = 0; i < n_embedded_queries; i++)
		if (!strcmp(embedded_queries[i].name, what))
			return query_def_parse(what, embedded_queries[i].sql, q, e);
	return errmsg_set(e, ENOENT, "no query named '%s'; 'faultline query "
			  "--list' shows them, or give the path of a .sql file",
			  what);
}
