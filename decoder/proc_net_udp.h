/*
 * proc_net_udp: the text of /proc/net/udp, /proc/net/udp6, /proc/net/snmp
 * and /proc/net/snmp6, as the kernel prints them, into numbers.
 *
 * Pure functions of their input: each takes the bytes and their length
 * (no NUL needed, none looked for), fills the caller's struct only when
 * the whole input had the kernel's shape, and returns 0 or -EINVAL.  No
 * I/O, no allocation; collector/udp_sampler.c reads the files.
 *
 * The formats, byte by byte:
 *
 *   /proc/net/udp (net/ipv4/udp.c udp4_format_sock), after one header
 *   line, a line per socket, fields separated by runs of blanks:
 *     0 sl ("15485:")  1 local ADDR:PORT  2 remote ADDR:PORT  3 st
 *     4 tx_queue:rx_queue (hex)  5 tr:tm->when  6 retrnsmt  7 uid
 *     8 timeout  9 inode (decimal)  10 ref  11 pointer  12 drops (decimal)
 *   ADDR is 8 hex digits, PORT 4: "0100007F:2328" is 127.0.0.1:9000.
 *   /proc/net/udp6 (net/ipv6/datagram.c __ip6_dgram_sock_seq_show) has
 *   the same fields with ADDR 32 hex digits.  Each 32-bit word of the
 *   address is printed as a number (%08X of the word as it lies in
 *   memory, network byte order), so the number is the word in the host's
 *   order.  Fields after drops are ignored: a later kernel may add some.
 *
 *   /proc/net/snmp (net/ipv4/proc.c): per protocol a line of names and
 *   the line after it of values, both starting with the protocol:
 *     Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors ...
 *     Udp: 37 3 112441 112542 112440 ...
 *   ("UdpLite:" lines follow, with the same names: not these.)
 *
 *   /proc/net/snmp6 (net/ipv6/proc.c): one counter a line, name, blanks,
 *   value: "Udp6InErrors                    \t12".
 */
#ifndef FL_PROC_NET_UDP_H
#define FL_PROC_NET_UDP_H

#include <stddef.h>
#include <stdint.h>

/* One socket's line of /proc/net/udp or /proc/net/udp6. */
struct udp_sock_line {
	uint64_t inode;
	unsigned port;			/* local port */
	int v6;				/* a line of /proc/net/udp6 */
	char local[64];			/* "127.0.0.1:9000", "[::1]:9000" */
	uint32_t addr[4];		/* local address, network order ([0] for IPv4) */
	/* rx_queue: bytes the socket's receive queue holds, counted as the
	 * kernel charges them against SO_RCVBUF (sk_rmem_alloc, buffer
	 * overhead included, less what a reader freed but the kernel has
	 * not yet given back), so it can be compared with SO_RCVBUF. */
	uint64_t rx_queue_bytes;
	uint64_t drops;			/* datagrams the socket dropped, ever */
};

/* The host's UDP counters, per protocol (Udp: of /proc/net/snmp, Udp6*
 * of /proc/net/snmp6): datagrams dropped for a full receive buffer, and
 * every datagram that could not be delivered (those included). */
struct udp_host_counters {
	uint64_t rcvbuf_errors[2];	/* [0] UDP over IPv4, [1] over IPv6 */
	uint64_t in_errors[2];
	int have_v6;			/* [1] was filled by udp_parse_snmp6 */
};

/* A socket's line of /proc/net/udp (v6 = 0) or /proc/net/udp6 (v6 = 1),
 * without its newline; the header line is refused.  0, or -EINVAL for a
 * line of another shape (out untouched). */
int udp_parse_line(const char *line, size_t len, int v6,
		   struct udp_sock_line *out);

/* The text of /proc/net/snmp: Udp's InErrors and RcvbufErrors into
 * index 0.  0, or -EINVAL when the Udp lines are missing or malformed
 * (out untouched). */
int udp_parse_snmp(const char *text, size_t len, struct udp_host_counters *out);

/* The text of /proc/net/snmp6: Udp6InErrors and Udp6RcvbufErrors into
 * index 1, and have_v6 set.  0, or -EINVAL if either is missing or not
 * a number (out untouched). */
int udp_parse_snmp6(const char *text, size_t len, struct udp_host_counters *out);

#endif
