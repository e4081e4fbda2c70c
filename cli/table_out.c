#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/csv.h"
#include "../common/json.h"
#include "../common/sql_value.h"
#include "../common/strbuf.h"
#include "../common/term_text.h"
#include "table_out.h"

int out_format_parse(const char *s, enum out_format *f)
{
	static const char *const names[] = { "table", "csv", "json" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*f = (enum out_format)i;
			return 0;
		}
	return -1;
}

int out_format_opt(void *value, const char *arg, const char *opt,
		   struct errmsg *e)
{
	if (out_format_parse(arg, value) < 0)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected table, csv "
				  "or json", opt, arg);
	return 0;
}

/* A value as a table shows it: NULL for SQL NULL, else owned (malloc);
 * text escaped for a terminal (common/term_text.h). */
static char *cell_text(sqlite3_stmt *st, int i)
{
	const unsigned char *b;
	int n = sqlite3_column_bytes(st, i);
	char *s;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return NULL;
	case SQLITE_BLOB:
		b = sqlite3_column_blob(st, i);
		n = sqlite3_column_bytes(st, i);
		s = malloc(2 * (size_t)n + 3);
		if (!s)
			return NULL;
		strcpy(s, "x'");
		for (int k = 0; k < n; k++)
			sprintf(s + 2 + 2 * k, "%02x", b[k]);
		strcat(s, "'");
		return s;
	default:
		b = sqlite3_column_text(st, i);
		return b ? term_text_dup((const char *)b) : NULL;
	}
}

/* Display width: UTF-8 code points. */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; s && *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* A column's name as a CSV field (common/csv.h). */
static void csv_name(FILE *out, const char *name)
{
	struct strbuf sb;

	strbuf_init(&sb);
	csv_add_field(&sb, name, strlen(name));
	fputs(strbuf_str(&sb), out);
	strbuf_release(&sb);
}

/* Rows of a table, kept until every width is known. */
struct grid {
	char **cells;		/* owned: ncols per row, each owned or NULL */
	int *numeric;		/* owned: per column, all values numbers so far */
	int *seen;		/* owned: per column, a value other than NULL */
	size_t *widths;		/* owned: per column */
	size_t nrows, cells_cap;	/* cells_cap: in cells, not rows */
	int ncols;
	size_t max_cell;	/* table_style's */
};

/* Cuts s (owned) to max characters, the last of them "...": UTF-8 code
 * points, as width() counts them. */
static void cut_cell(char *s, size_t max)
{
	size_t w = 0;
	char *p = s;

	if (!s || !max || width(s) <= max || max < 4)
		return;
	for (; *p && w < max - 3; p++)
		w += ((unsigned char)*p & 0xc0) != 0x80;
	while (((unsigned char)*p & 0xc0) == 0x80)
		p++;	/* the rest of the last code point kept */
	strcpy(p, "...");
}

static void grid_release(struct grid *g)
{
	for (size_t i = 0; i < g->nrows * (size_t)g->ncols; i++)
		free(g->cells[i]);
	free(g->cells);
	free(g->numeric);
	free(g->seen);
	free(g->widths);
}

static int grid_add(struct grid *g, sqlite3_stmt *st)
{
	char **row;

	if (ARRAY_RESERVE(g->cells, g->cells_cap,
			  (g->nrows + 1) * (size_t)g->ncols) < 0)
		return -ENOMEM;
	row = g->cells + g->nrows * (size_t)g->ncols;
	for (int i = 0; i < g->ncols; i++) {
		int type = sqlite3_column_type(st, i);

		row[i] = cell_text(st, i);
		if (!row[i] && type != SQLITE_NULL) {
			for (int k = 0; k < i; k++)
				free(row[k]);
			return -ENOMEM;
		}
		cut_cell(row[i], g->max_cell);
		if (type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_NULL)
			g->numeric[i] = 0;
		g->seen[i] |= type != SQLITE_NULL;
		if (width(row[i]) > g->widths[i])
			g->widths[i] = width(row[i]);
	}
	g->nrows++;
	return 0;
}

/* One line; numbers right-aligned; no blanks after the last value. */
static void grid_line(const struct grid *g, char *const *row, FILE *out)
{
	int n = g->ncols;

	while (n > 0 && (!row[n - 1] || !row[n - 1][0]))
		n--;
	for (int i = 0; i < n; i++) {
		const char *s = row[i] ? row[i] : "";
		size_t pad = g->widths[i] - width(s);

		if (i)
			fputs("  ", out);
		if (g->numeric[i] && g->seen[i])
			fprintf(out, "%*s%s", (int)pad, "", s);
		else
			fprintf(out, "%s%*s", s, i == n - 1 ? 0 : (int)pad, "");
	}
	fputc('\n', out);
}

static void grid_write(const struct grid *g, sqlite3_stmt *st, FILE *out)
{
	char **names = calloc((size_t)g->ncols, sizeof(*names));

	if (!names)
		return;
	for (int i = 0; i < g->ncols; i++)
		names[i] = term_text_dup(sqlite3_column_name(st, i));
	grid_line(g, names, out);
	for (int i = 0; i < g->ncols; i++) {
		if (i)
			fputs("  ", out);
		for (size_t k = 0; k < g->widths[i]; k++)
			fputc('-', out);
	}
	fputc('\n', out);
	for (size_t r = 0; r < g->nrows; r++)
		grid_line(g, g->cells + r * (size_t)g->ncols, out);
	for (int i = 0; i < g->ncols; i++)
		free(names[i]);
	free(names);
}

static int grid_init(struct grid *g, sqlite3_stmt *st)
{
	memset(g, 0, sizeof(*g));
	g->ncols = sqlite3_column_count(st);
	g->numeric = calloc((size_t)g->ncols + 1, sizeof(*g->numeric));
	g->seen = calloc((size_t)g->ncols + 1, sizeof(*g->seen));
	g->widths = calloc((size_t)g->ncols + 1, sizeof(*g->widths));
	if (!g->numeric || !g->seen || !g->widths)
		return -ENOMEM;
	for (int i = 0; i < g->ncols; i++) {
		char *name = term_text_dup(sqlite3_column_name(st, i));

		g->numeric[i] = 1;
		g->widths[i] = width(name);
		free(name);
	}
	return 0;
}

static void stream_header(sqlite3_stmt *st, enum out_format f, FILE *out)
{
	int n = sqlite3_column_count(st);

	if (f == OUT_VERTICAL)
		return;
	if (f == OUT_JSON) {
		fputc('[', out);
		return;
	}
	for (int i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		csv_name(out, sqlite3_column_name(st, i));
	}
	fputs("\r\n", out);
}

/* A row as "name  value" lines, names padded to the longest; a NULL
 * (a failed session's end, an error that is not there) is left out. */
static void vertical_row(sqlite3_stmt *st, size_t row, FILE *out)
{
	int n = sqlite3_column_count(st);
	size_t w = 0;

	for (int i = 0; i < n; i++) {
		char *name = term_text_dup(sqlite3_column_name(st, i));

		if (width(name) > w)
			w = width(name);
		free(name);
	}
	if (row)
		fputc('\n', out);
	for (int i = 0; i < n; i++) {
		char *name = term_text_dup(sqlite3_column_name(st, i));
		char *v = term_text_dup((const char *)sqlite3_column_text(st, i));

		if (sqlite3_column_type(st, i) != SQLITE_NULL && name) {
			if (v && *v)
				fprintf(out, "%s%*s  %s\n", name,
					(int)(w - width(name)), "", v);
			else
				fprintf(out, "%s\n", name);
		}
		free(name);
		free(v);
	}
}

static void stream_row(sqlite3_stmt *st, enum out_format f, size_t row, FILE *out)
{
	int n = sqlite3_column_count(st);
	struct strbuf sb;

	if (f == OUT_VERTICAL) {
		vertical_row(st, row, out);
		return;
	}
	/* Each value by common/sql_value.h's rules, which export's CSV
	 * follows too. */
	strbuf_init(&sb);
	if (f == OUT_CSV) {
		for (int i = 0; i < n; i++) {
			if (i)
				strbuf_addc(&sb, ',');
			sql_value_csv(&sb, st, i);
		}
		strbuf_adds(&sb, "\r\n");
	} else {
		strbuf_adds(&sb, row ? ",\n{" : "\n{");
		for (int i = 0; i < n; i++) {
			if (i)
				strbuf_adds(&sb, ", ");
			json_cstring(&sb, sqlite3_column_name(st, i));
			strbuf_adds(&sb, ": ");
			sql_value_json(&sb, st, i);
		}
		strbuf_addc(&sb, '}');
	}
	fputs(strbuf_str(&sb), out);
	strbuf_release(&sb);
}

int table_out(sqlite3_stmt *st, const struct table_style *style, FILE *out,
	      size_t *nrows, const char *what, struct errmsg *e)
{
	enum out_format f = style->format;
	struct grid g;
	size_t n = 0;
	int rc = SQLITE_DONE, err = 0;

	if (f == OUT_TABLE) {
		err = grid_init(&g, st);
		g.max_cell = style->max_cell;
	} else
		stream_header(st, f, out);
	while (err == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (f != OUT_TABLE)
			stream_row(st, f, n, out);
		else if (!style->max_rows || n < style->max_rows)
			err = grid_add(&g, st);
		n++;
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = errmsg_set(e, EIO, "query '%s' failed: %s", what,
				 sqlite3_errmsg(sqlite3_db_handle(st)));
	if (err == 0 && n == 0 && style->empty && (f == OUT_TABLE || f == OUT_VERTICAL)) {
		fprintf(out, "(%s)\n", style->empty);
	} else if (err == 0 && f == OUT_TABLE) {
		grid_write(&g, st, out);
		if (n == 0)
			fputs("(no rows)\n", out);
	} else if (err == 0 && f == OUT_JSON) {
		fputs(n ? "\n]\n" : "]\n", out);
	}
	if (f == OUT_TABLE)
		grid_release(&g);
	*nrows = n;
	return err;
}
