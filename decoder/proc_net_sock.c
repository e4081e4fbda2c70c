#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc_net_sock.h"

/* The n-th blank-separated field of line[0..len) into f (NUL-ended,
 * cut at size - 1): 0, or -1 when the line has fewer. */
static int field(const char *line, size_t len, int n, char *f, size_t size)
{
	size_t i = 0, k;

	for (int at = 0;; at++) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len || line[i] == '\n')
			return -1;
		for (k = 0; i < len && line[i] != ' ' && line[i] != '\t' &&
			    line[i] != '\n'; i++)
			if (at == n && k + 1 < size)
				f[k++] = line[i];
		if (at == n) {
			f[k] = '\0';
			return 0;
		}
	}
}

/* "0100007F:18EB" (or 32 hex digits before the colon) to "127.0.0.1:6379". */
static int inet_text(const char *hex, int v6, char *out, size_t size)
{
	unsigned char bytes[16];
	uint32_t words[4];
	char addr[INET6_ADDRSTRLEN], *end;
	const char *colon = strchr(hex, ':');
	size_t digits = v6 ? 32 : 8;
	unsigned long port;

	if (!colon || (size_t)(colon - hex) != digits)
		return -1;
	for (size_t w = 0; w < digits / 8; w++) {
		char word[9];

		memcpy(word, hex + w * 8, 8);
		word[8] = '\0';
		words[w] = (uint32_t)strtoul(word, &end, 16);
		if (*end)
			return -1;
	}
	memcpy(bytes, words, digits / 2);	/* the words as they lay in memory */
	port = strtoul(colon + 1, &end, 16);
	if (*end || colon[1] == '\0' || port > 65535 ||
	    !inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, addr, sizeof(addr)))
		return -1;
	snprintf(out, size, v6 ? "[%s]:%lu" : "%s:%lu", addr, port);
	return 0;
}

int sock_parse_inet_line(const char *line, size_t len, int v6,
			 struct sock_line *out)
{
	char local[64], remote[64], inode[32], l[60], r[60], *end;
	uint64_t ino;

	if (field(line, len, 1, local, sizeof(local)) ||
	    field(line, len, 2, remote, sizeof(remote)) ||
	    field(line, len, 9, inode, sizeof(inode)) ||
	    inet_text(local, v6, l, sizeof(l)) || inet_text(remote, v6, r, sizeof(r)))
		return -EINVAL;
	ino = strtoull(inode, &end, 10);
	if (*end || !inode[0])
		return -EINVAL;
	out->inode = ino;
	/* A listening or unconnected socket has no peer: port 0. */
	if (!strcmp(strrchr(r, ':'), ":0"))
		snprintf(out->addrs, sizeof(out->addrs), "%s", l);
	else
		snprintf(out->addrs, sizeof(out->addrs), "%s->%s", l, r);
	return 0;
}

int sock_parse_unix_line(const char *line, size_t len, struct sock_line *out)
{
	char num[32], inode[32], *end;
	uint64_t ino;

	if (field(line, len, 0, num, sizeof(num)) || !strchr(num, ':') ||
	    field(line, len, 6, inode, sizeof(inode)))
		return -EINVAL;
	ino = strtoull(inode, &end, 10);
	if (*end || !inode[0])
		return -EINVAL;
	out->inode = ino;
	if (field(line, len, 7, out->addrs, sizeof(out->addrs)))
		out->addrs[0] = '\0';
	return 0;
}
