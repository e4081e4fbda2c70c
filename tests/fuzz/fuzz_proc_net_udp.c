/*
 * fuzz_proc_net_udp: arbitrary bytes as the text of /proc/net/udp{,6} or
 * /proc/net/snmp{,6}, through decoder/proc_net_udp's parsers.
 *
 * Input layout:
 *   byte 0  its low two bits choose the file: 0 /proc/net/udp,
 *           1 /proc/net/udp6, 2 /proc/net/snmp, 3 /proc/net/snmp6
 *           (seeds start with '0' to '3')
 *   then    the file's bytes.  A table is cut into lines at '\n' as
 *           collector/udp_sampler.c does, the first (the header) included;
 *           the snmp files are parsed whole.
 *
 * Each text is handed over in a buffer of its exact size, so ASan sees a
 * read past it.  What must hold: a refused input leaves the output as it
 * was; an accepted line has a port up to 65535 and a local address that
 * is a NUL-terminated "ADDR:PORT" ("[ADDR]:PORT" for udp6); an snmp parse
 * writes its own protocol's index only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../decoder/proc_net_udp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *exact_copy(const uint8_t *p, size_t len)
{
	char *c = malloc(len ? len : 1);

	if (!c)
		abort();
	memcpy(c, p, len);
	return c;
}

static void check_line(const struct udp_sock_line *x, int v6)
{
	char port[16];
	size_t n = strnlen(x->local, sizeof(x->local)), pn;

	if (n == sizeof(x->local) || x->port > 65535 || x->v6 != v6 ||
	    (x->local[0] == '[') != v6)
		abort();
	pn = (size_t)snprintf(port, sizeof(port), ":%u", x->port);
	if (n <= pn || strcmp(x->local + n - pn, port))
		abort();
}

static void one_line(const uint8_t *p, size_t len, int v6)
{
	struct udp_sock_line x, before;
	char *line = exact_copy(p, len);

	memset(&x, 0xa5, sizeof(x));
	before = x;
	if (udp_parse_line(line, len, v6, &x) == 0)
		check_line(&x, v6);
	else if (memcmp(&x, &before, sizeof(x)))
		abort();	/* a refusal wrote to out */
	free(line);
}

static void snmp(const uint8_t *p, size_t len, int v6)
{
	struct udp_host_counters h, before;
	char *text = exact_copy(p, len);
	int ok;

	memset(&h, 0xa5, sizeof(h));
	before = h;
	ok = (v6 ? udp_parse_snmp6(text, len, &h) : udp_parse_snmp(text, len, &h)) == 0;
	/* The other protocol's index is never written. */
	if (h.in_errors[!v6] != before.in_errors[!v6] ||
	    h.rcvbuf_errors[!v6] != before.rcvbuf_errors[!v6])
		abort();
	if (!ok && memcmp(&h, &before, sizeof(h)))
		abort();
	/* have_v6 is the IPv6 parser's to set, and only on success. */
	if (ok && h.have_v6 != (v6 ? 1 : before.have_v6))
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + 1, *end = data + size;
	int kind;

	if (size < 1)
		return 0;
	kind = data[0] & 3;
	if (kind >= 2) {
		snmp(p, size - 1, kind == 3);
		return 0;
	}
	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		one_line(p, len, kind);
		p += len + 1;
	}
	return 0;
}
