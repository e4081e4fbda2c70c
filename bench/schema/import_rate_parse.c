/*
 * import_rate_parse: rows per second of the metric parser alone
 * (decoder/metric_parse, as cli/import.c drives it: one line at a time,
 * from a buffer), on a CSV file, with --metric m and every other column
 * a label; best of ROUNDS.  bench/schema/import_rate.sh runs it on its
 * file, beside the whole import, to show what the parse costs of it.
 *
 * Usage: import_rate_parse FILE [ROUNDS]   (default 3)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../../decoder/metric_parse.h"

/* Parses all of buf; returns the rows, or -1 with the error printed. */
static long parse_all(const char *buf, size_t len, double *sum)
{
	struct metric_spec sp = { .metric = "m" };
	struct metric_parser p;
	struct errmsg e;
	size_t at = 0;
	long rows = 0;

	errmsg_init(&e);
	metric_parser_init(&p, &sp, &e);
	while (at < len) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - buf) : len;
		struct metric_row r;
		int got = metric_parse_line(&p, buf + at, end - at, &r, &e);

		if (got < 0) {
			fprintf(stderr, "import_rate_parse: line %lu: %s\n", p.line, e.text);
			rows = -1;
			break;
		}
		if (got == 1) {
			rows++;
			*sum += r.value;
		}
		at = end + 1;
	}
	metric_parser_release(&p);
	return rows;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 3, fd;
	double best = 0, sum = 0;
	struct stat st;
	long rows = 0;
	char *buf;

	if (argc < 2 || (fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "usage: import_rate_parse FILE [ROUNDS]\n");
		return 1;
	}
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (buf == MAP_FAILED) {
		perror("import_rate_parse: mmap");
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		uint64_t t0 = monotonic_ns();
		double s;

		rows = parse_all(buf, (size_t)st.st_size, &sum);
		if (rows < 0)
			return 1;
		s = (double)(monotonic_ns() - t0) / 1e9;
		if (!best || s < best)
			best = s;
	}
	/* sum keeps the values used, so nothing is optimised away. */
	printf("%ld %.4f %.0f\n", rows, best, sum / rounds);
	munmap(buf, (size_t)st.st_size);
	close(fd);
	return 0;
}
