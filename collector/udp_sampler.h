/*
 * udp_sampler: the receive-queue depth and drop count of chosen UDP
 * sockets, from /proc/net/udp and /proc/net/udp6, and the host's UDP
 * error counters, from /proc/net/snmp and /proc/net/snmp6.
 *
 * Sockets are chosen by local port or by inode.  Every scan reads the
 * whole table, so a socket bound after recording began (or closed and
 * bound again) is found by the next scan; one that never matches is
 * reported by udp_sampler_missing.
 *
 * Usage:
 *	udp_sampler_init(&s);
 *	udp_sampler_add_ports(&s, "9000,9001", "--udp-port", &e);
 *	udp_sampler_add_inode(&s, 123456);
 *	udp_sampler_open(&s, &e);		the /proc files, kept open
 *	udp_sampler_scan(&s, on_sock, ctx);	each matching socket
 *	udp_sampler_host(&s, &host);		the host's counters
 *	udp_sampler_release(&s);
 */
#ifndef FL_UDP_SAMPLER_H
#define FL_UDP_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"

/* One socket's line of /proc/net/udp or /proc/net/udp6. */
struct udp_sock_sample {
	uint64_t ts;			/* CLOCK_REALTIME ns: when its table was read */
	uint64_t inode;
	unsigned port;			/* local port */
	int v6;				/* from /proc/net/udp6 */
	char local[64];			/* "127.0.0.1:9000", "[::1]:9000" */
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
struct udp_host_sample {
	uint64_t ts;			/* CLOCK_REALTIME ns */
	uint64_t rcvbuf_errors[2];	/* [0] UDP over IPv4, [1] over IPv6 */
	uint64_t in_errors[2];
	int have_v6;			/* /proc/net/snmp6 was there */
};

struct udp_sampler {
	uint64_t *ports;		/* owned: local ports */
	size_t nports;
	uint64_t *inodes;		/* owned */
	size_t ninodes;
	uint8_t *port_seen;		/* owned: [nports], set when matched */
	uint8_t *inode_seen;		/* owned: [ninodes] */
	int seen_v6;			/* an IPv6 socket was chosen */
	int fd_udp, fd_udp6;		/* owned, or -1 */
	int fd_snmp, fd_snmp6;		/* owned, or -1 */
	char *buf;			/* owned: one file's text */
	size_t cap;
};

void udp_sampler_init(struct udp_sampler *s);
void udp_sampler_release(struct udp_sampler *s);

/* Is anything asked for? */
int udp_sampler_wanted(const struct udp_sampler *s);

/* Ports from a list like "9000,9001" (each 1 to 65535).  0, -EINVAL with
 * e naming opt and the bad item, or -ENOMEM. */
int udp_sampler_add_ports(struct udp_sampler *s, const char *arg,
			  const char *opt, struct errmsg *e);
/* An inode number, as /proc/net/udp, ss -e and /proc/PID/fd show it.
 * 0, -EINVAL with e (0 is no socket's), or -ENOMEM. */
int udp_sampler_add_inode(struct udp_sampler *s, const char *arg,
			  const char *opt, struct errmsg *e);

/* Opens the /proc files.  /proc/net/udp6 and /proc/net/snmp6 are
 * optional (a kernel without IPv6).  0 or -errno with e. */
int udp_sampler_open(struct udp_sampler *s, struct errmsg *e);

/* Reads both tables and calls fn for each chosen socket; sample is
 * borrowed for the call.  0, -errno of a read, or fn's negative return. */
int udp_sampler_scan(struct udp_sampler *s,
		     int (*fn)(void *ctx, const struct udp_sock_sample *sample),
		     void *ctx);

/* The host's counters into out: those of UDP over IPv4 always, those of
 * IPv6 once a chosen socket was an IPv6 one (reading /proc/net/snmp6
 * costs as much as a table scan).  0 or -errno. */
int udp_sampler_host(struct udp_sampler *s, struct udp_host_sample *out);

/* Writes "port 9000, inode 123456" for the ports and inodes asked for
 * that no scan has matched yet into buf (n bytes, NUL-terminated);
 * returns how many there are. */
size_t udp_sampler_missing(const struct udp_sampler *s, char *buf, size_t n);

/* Parsers, exposed for the tests.  A line of /proc/net/udp (v6 = 0) or
 * /proc/net/udp6 (v6 = 1), header excluded: 0, or -EINVAL for a line
 * that does not have the kernel's shape.  out->ts is left alone. */
int udp_parse_line(const char *line, int v6, struct udp_sock_sample *out);
/* The text of /proc/net/snmp: Udp's InErrors and RcvbufErrors into
 * index 0.  0, or -EINVAL if the Udp lines are missing or malformed. */
int udp_parse_snmp(const char *text, struct udp_host_sample *out);
/* The text of /proc/net/snmp6: Udp6InErrors and Udp6RcvbufErrors into
 * index 1.  0, or -EINVAL if either is missing. */
int udp_parse_snmp6(const char *text, struct udp_host_sample *out);

#endif
