/*
 * fuzz_proc_net_sock: arbitrary bytes as a line of /proc/net/tcp{,6},
 * udp{,6} or unix, through decoder/proc_net_sock's parsers (what names a
 * socket descriptor for record --syscalls).
 *
 * Input layout:
 *   byte 0  its low two bits choose the parser: 0 inet, 1 inet6, 2 unix
 *           (3 is unix too); seeds start with '0' to '2'
 *   then    the line's bytes, handed over in a buffer of their exact
 *           size, so ASan sees a read past it.
 *
 * What must hold: a refused line leaves the output as it was; an
 * accepted one has NUL-terminated addresses that fit their buffer, and
 * an inet one a "->" only between two "ADDR:PORT" halves.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../decoder/proc_net_sock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sock_line out, before;
	char *line;
	int kind, err;

	if (size < 1)
		return 0;
	kind = data[0] & 3;
	line = malloc(size - 1 ? size - 1 : 1);
	if (!line)
		abort();
	memcpy(line, data + 1, size - 1);
	memset(&out, 0x5a, sizeof(out));
	before = out;
	err = kind == 2 || kind == 3 ?
	      sock_parse_unix_line(line, size - 1, &out) :
	      sock_parse_inet_line(line, size - 1, kind == 1, &out);
	if (err && memcmp(&out, &before, sizeof(out)))
		abort();
	if (!err && !memchr(out.addrs, '\0', sizeof(out.addrs)))
		abort();
	if (!err && kind < 2 && out.addrs[0] != '\0' && !strchr(out.addrs, ':'))
		abort();
	free(line);
	return 0;
}
