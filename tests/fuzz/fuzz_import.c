/*
 * fuzz_import: arbitrary bytes as a metric file, parsed line by line as
 * faultline import does (cli/import.c's feed), under a spec the first two
 * bytes choose.
 *
 * Input layout:
 *   byte 0  bits 0-2 format (mod 5: auto, csv, tsv, jsonl, plain),
 *           bits 3-5 --ts-unit (mod 5: auto, s, ms, us, ns),
 *           bit 6 --metric m (else the metric column),
 *           bit 7 --label-column host
 *   byte 1  bit 0 --label dc=ams, bit 1 --time-column when,
 *           bit 2 --value-column v, bit 3 --metric-column name,
 *           bit 4 --time-column sent_us (a name that gives the unit)
 *   then    the file's bytes; lines end at '\n', the last one may not
 *
 * Each line is handed over in a buffer of its exact size, so ASan sees a
 * read past it.  Every row must hold: ts >= 0, a finite value, a non-empty
 * name, and labels that form a JSON object with no raw control byte.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../decoder/metric_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_row(const struct metric_row *r)
{
	if (r->ts < 0 || !isfinite(r->value) || !r->name || !r->name_len ||
	    r->labels_len < 2 || r->labels[0] != '{' ||
	    r->labels[r->labels_len - 1] != '}' ||
	    strlen(r->labels) != r->labels_len)
		abort();
	for (size_t i = 0; i < r->labels_len; i++)
		if ((unsigned char)r->labels[i] < 0x20)
			abort();
}

static void spec_from(const uint8_t *b, struct metric_spec *sp)
{
	static const char *const label_cols[] = { "host" };
	static const struct metric_label label = { "dc", "ams" };

	memset(sp, 0, sizeof(*sp));
	sp->format = (enum metric_format)((b[0] & 7) % 5);
	sp->ts_unit = (enum ts_kind)(((b[0] >> 3) & 7) % 5);
	if (b[0] & 0x40)
		sp->metric = "m";
	if (b[0] & 0x80) {
		sp->label_cols = label_cols;
		sp->nlabel_cols = 1;
	}
	if (b[1] & 1) {
		sp->labels = &label;
		sp->nlabels = 1;
	}
	if (b[1] & 2)
		sp->time_col = "when";
	if (b[1] & 16)
		sp->time_col = "sent_us";
	if (b[1] & 4)
		sp->value_col = "v";
	if (b[1] & 8)
		sp->metric_col = "name";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metric_parser p;
	struct metric_spec sp;
	struct errmsg e;
	size_t at = 2;
	int err;

	if (size < 2)
		return 0;
	spec_from(data, &sp);
	errmsg_init(&e);
	err = metric_parser_init(&p, &sp, &e);
	while (err == 0 && at < size) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - data) - at : size - at;
		char *line = malloc(len ? len : 1);
		struct metric_row row;
		int r;

		if (!line)
			abort();
		memcpy(line, data + at, len);
		r = metric_parse_line(&p, line, len, &row, &e);
		if (r == 1)
			check_row(&row);
		else if (r < 0 && !e.text[0])
			abort();	/* every refusal says why */
		err = r < 0 ? r : 0;
		free(line);
		at += len + 1;
	}
	if (err == 0)
		metric_parse_finish(&p, &e);
	metric_parser_release(&p);
	return 0;
}
