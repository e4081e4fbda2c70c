#include <math.h>
#include <string.h>

#include "csv.h"
#include "json.h"
#include "sql_value.h"

/* A finite REAL: the shortest text that reads back as the same double
 * (json_real), with ".0" after a whole number, as SQLite writes one, so a
 * REAL column stays visibly REAL ("5.0", not "5"). */
static void real_text(struct strbuf *sb, double d)
{
	size_t at = sb->len;

	json_real(sb, d);
	if (!sb->failed && !strpbrk(sb->buf + at, ".e"))
		strbuf_adds(sb, ".0");
}

static void blob_literal(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	static const char digit[] = "0123456789abcdef";
	const unsigned char *b = sqlite3_column_blob(st, col);
	int n = sqlite3_column_bytes(st, col);

	strbuf_adds(sb, "x'");
	for (int i = 0; i < n; i++) {
		strbuf_addc(sb, digit[b[i] >> 4]);
		strbuf_addc(sb, digit[b[i] & 15]);
	}
	strbuf_addc(sb, '\'');
}

void sql_value_csv(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	double d;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_NULL:
		return;
	case SQLITE_INTEGER:
		json_int(sb, sqlite3_column_int64(st, col));
		return;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, col);
		if (isfinite(d))
			real_text(sb, d);
		else
			strbuf_adds(sb, isnan(d) ? "nan" : d < 0 ? "-inf" : "inf");
		return;
	case SQLITE_BLOB:
		blob_literal(sb, st, col);
		return;
	default:
		csv_add_text(sb, (const char *)sqlite3_column_text(st, col),
			     (size_t)sqlite3_column_bytes(st, col));
	}
}

void sql_value_json(struct strbuf *sb, sqlite3_stmt *st, int col)
{
	struct strbuf blob;
	double d;

	switch (sqlite3_column_type(st, col)) {
	case SQLITE_NULL:
		strbuf_adds(sb, "null");
		return;
	case SQLITE_INTEGER:
		json_int(sb, sqlite3_column_int64(st, col));
		return;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, col);
		if (isfinite(d))
			real_text(sb, d);
		else
			strbuf_adds(sb, "null");
		return;
	case SQLITE_BLOB:
		strbuf_init(&blob);
		blob_literal(&blob, st, col);
		if (strbuf_error(&blob))
			sb->failed = 1;	/* cut, as any append that fails */
		else
			json_string(sb, blob.buf, blob.len);
		strbuf_release(&blob);
		return;
	default:
		json_string(sb, (const char *)sqlite3_column_text(st, col),
			    (size_t)sqlite3_column_bytes(st, col));
	}
}
