#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/file.h"
#include "../common/strbuf.h"
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
	static const char *const names[] = { "INTEGER", "REAL", "TEXT", "DURATION",
					     "LABEL" };

	return names[t];
}

static int type_from(const char *s, size_t n, enum query_type *out)
{
	for (int t = QT_INTEGER; t <= QT_LABEL; t++)
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
	struct strbuf sb;

	strbuf_init(&sb);
	if (*text && **text) {
		strbuf_adds(&sb, *text);
		strbuf_addc(&sb, ' ');
	}
	strbuf_add(&sb, more, n);
	if (strbuf_error(&sb)) {
		strbuf_release(&sb);
		return -ENOMEM;
	}
	free(*text);
	*text = strbuf_detach(&sb);
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
	if (ARRAY_RESERVE(q->params, q->params_cap, q->nparams + 1) < 0)
		goto nomem;
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

	n = p = skip_space(p, end);
	ne = p = word_end(p, end);
	t = p = skip_space(p, end);
	te = p = word_end(p, end);
	if (ne == n || te == t)
		return -EINVAL;
	p = skip_space(p, end);
	if (ARRAY_RESERVE(q->columns, q->columns_cap, q->ncolumns + 1) < 0)
		return -ENOMEM;
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
				  "(TYPE: INTEGER, REAL, TEXT, DURATION or LABEL) or "
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

/* The canned query named name exactly, or NULL. */
static const char *embedded(const char *name)
{
	for (size_t i = 0; i < n_embedded_queries; i++)
		if (!strcmp(embedded_queries[i].name, name))
			return embedded_queries[i].sql;
	return NULL;
}

int query_def_find(const char *what, struct query_def *q, struct errmsg *e)
{
	size_t n = strlen(what);
	int err;

	if (strchr(what, '/') || (n > 4 && !strcmp(what + n - 4, ".sql"))) {
		size_t len;

		err = read_text_file(what, &q->sql_owned, &len, e);
		if (err == -ENOENT)
			err = errmsg_set(e, ENOENT, "cannot read query file '%s': %s",
					 what, strerror(ENOENT));
		return err ? err : query_def_parse(what, q->sql_owned, q, e);
	}
	if (embedded(what))
		return query_def_parse(what, embedded(what), q, e);
	return errmsg_set(e, ENOENT, "no query named '%s'; 'faultline query "
			  "--list' shows them, or give the path of a .sql file",
			  what);
}
