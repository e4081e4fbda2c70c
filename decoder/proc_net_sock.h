/*
 * proc_net_sock: one line of /proc/net/tcp, tcp6, udp or udp6, or of
 * /proc/net/unix, into what names a socket as strace -y does: its inode
 * and its addresses ("127.0.0.1:6379->127.0.0.1:51234"), or a unix
 * socket's path.
 *
 * The inet formats (net/ipv4/tcp_ipv4.c get_tcp4_sock, and the udp and
 * IPv6 twins): fields separated by blanks, 1 local ADDR:PORT, 2 remote
 * ADDR:PORT, ..., 9 inode (decimal); ADDR 8 hex digits (32 for IPv6),
 * each 32-bit word printed as the number it is in the host's order.
 * /proc/net/unix (net/unix/af_unix.c unix_seq_show): 0 "Num:", 1
 * RefCount, 2 Protocol, 3 Flags, 4 Type, 5 St, 6 Inode, 7 Path (absent
 * when unbound; '@' first for an abstract name).
 *
 * Pure: no I/O, no allocation; 0 with *out filled, or -EINVAL with *out
 * untouched.
 */
#ifndef FL_PROC_NET_SOCK_H
#define FL_PROC_NET_SOCK_H

#include <stddef.h>
#include <stdint.h>

struct sock_line {
	uint64_t inode;
	char addrs[128];	/* "127.0.0.1:6379->127.0.0.1:51234";
				 * "[::1]:80->[::1]:4242"; the local address
				 * alone without a peer; a unix path or "" */
};

int sock_parse_inet_line(const char *line, size_t len, int v6,
			 struct sock_line *out);
int sock_parse_unix_line(const char *line, size_t len, struct sock_line *out);

#endif
