/*
 * fuzz_metric_line: arbitrary bytes as what an application sends to
 * record --flight's --metric-fifo or --metric-udp, cut into lines at
 * '\n' as collector/metric_feed.c does, each through metric_line_parse.
 *
 * Each line is handed over in a buffer of its exact size, so ASan sees a
 * read past it.  What must hold: an accepted line gives a name that lies
 * within the line and is a valid name (metric_name_valid), and a finite
 * value; a refused one is -EINVAL or -ERANGE.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../decoder/metric_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const uint8_t *p, size_t len)
{
	char *c = malloc(len ? len : 1);
	const char *name = NULL;
	size_t name_len = 0;
	double v = 0;
	int err;

	if (!c)
		abort();
	memcpy(c, p, len);
	err = metric_line_parse(c, len, &name, &name_len, &v);
	if (err == 0 && (name < c || name + name_len > c + len ||
			 !metric_name_valid(name, name_len) || !isfinite(v)))
		abort();
	if (err != 0 && err != -EINVAL && err != -ERANGE)
		abort();
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	while (size) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t n = nl ? (size_t)(nl - data) : size;

		one_line(data, n);
		data += n + (nl != NULL);
		size -= n + (nl != NULL);
	}
	return 0;
}
