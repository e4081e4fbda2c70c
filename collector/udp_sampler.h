/*
 * udp_sampler: the receive-queue depth and drop count of chosen UDP
 * sockets, from /proc/net/udp and /proc/net/udp6, and the host's UDP
 * error counters, from /proc/net/snmp and /proc/net/snmp6.
 *
 * Sockets are chosen by local port or by inode.  A scan reads the whole
 * tables, so a socket bound after recording began (or closed and bound
 * again) is found by the next scan; one that never matches is reported
 * by udp_sampler_missing.
 *
 * Reading /proc/net/udp walks every slot of the kernel's UDP hash table
 * (16384 on the 2-core VM: 60% of the sampling thread's time went there,
 * about 10 us a table).  So the thread scans the tables every
 * UDP_RESCAN_NS only, and in between asks sock_diag (NETLINK_SOCK_DIAG,
 * net/ipv4/udp_diag.c udp_dump_one) for each socket it found, by its
 * local address and port: a hash lookup, answered with the same queue
 * depth (idiag_rqueue) and the socket's drop count (SK_MEMINFO_DROPS).
 * A lookup that finds no socket, or another one (a new socket on the
 * port, or one of several sharing it with SO_REUSEPORT), or that fails,
 * makes that sample a scan; after UDP_DIAG_GIVE_UP such samples in a row
 * the thread scans every time.
 *
 * The sampling runs on a thread of its own, woken every interval by
 * clock_nanosleep: the recorder's loop wakes only when the rings fill or
 * once a second, and a wake-up of that loop every millisecond cost more
 * than the sampling itself (44 us of CPU each on the 2-core VM, see
 * bench/collector/udp_sampling.sh).  The thread queues what it reads;
 * the thread that owns the database takes the queue now and then.
 *
 * Usage:
 *	udp_sampler_init(&s);
 *	udp_sampler_add_ports(&s, "9000,9001", "--udp-port", &e);
 *	udp_sampler_add_inode(&s, "123456", "--socket", &e);
 *	udp_sampler_open(&s, &e);		the /proc files, kept open
 *	udp_sampler_start(&s, interval_ns, &e);	the thread
 *	udp_sampler_take(&s, &batch);		what it read so far (repeat)
 *	udp_sampler_stop(&s);			joins it; take the rest
 *	udp_sampler_release(&s);
 * or, without the thread, udp_sampler_scan() and udp_sampler_host().
 */
#ifndef FL_UDP_SAMPLER_H
#define FL_UDP_SAMPLER_H

#include <pthread.h>
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
struct udp_host_sample {
	uint64_t ts;			/* CLOCK_REALTIME ns */
	uint64_t rcvbuf_errors[2];	/* [0] UDP over IPv4, [1] over IPv6 */
	uint64_t in_errors[2];
	int have_v6;			/* /proc/net/snmp6 was there */
};

/* One thing the thread read: a socket, the host's counters, or the
 * intervals that passed without a sample (the thread was not scheduled
 * in time). */
struct udp_reading {
	enum { UDP_READING_SOCK, UDP_READING_HOST, UDP_READING_MISSED } kind;
	union {
		struct udp_sock_sample sock;
		struct udp_host_sample host;
		struct { uint64_t ts, count; } missed;
	} u;
};

struct udp_batch {
	struct udp_reading *v;		/* owned */
	size_t n, cap;
};

/* How often the thread reads the whole tables for new sockets. */
#define UDP_RESCAN_NS (100ull * 1000 * 1000)
/* How often the thread reads the host's counters: /proc/net/snmp costs
 * about 20 us of CPU a read on the 2-core VM, as much as the rest of a
 * sample; the sockets' own drop counts are read at every sample. */
#define UDP_HOST_EVERY_NS (10ull * 1000 * 1000)
/* Samples in a row whose lookups failed before lookups are given up. */
#define UDP_DIAG_GIVE_UP 8

/* The queue holds at most this many readings (about 30 MB); a taker
 * that falls further behind loses samples, counted as missed. */
#define UDP_QUEUE_MAX (256u * 1024)

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
	int fd_diag;			/* owned: NETLINK_SOCK_DIAG, or -1 */
	uint32_t diag_seq;
	int diag_misses;		/* samples in a row a lookup failed */
	struct udp_sock_sample *known;	/* owned: what the last scan found */
	size_t nknown, capknown;
	uint64_t next_scan_ns;		/* CLOCK_MONOTONIC */
	uint64_t next_host_ns;		/* CLOCK_MONOTONIC */
	uint64_t scans, lookups;	/* how the samples were taken */
	char *buf;			/* owned: one file's text */
	size_t cap;

	/* The thread.  Fields below lock are guarded by it. */
	pthread_t thread;
	int started;
	uint64_t interval_ns;
	pthread_mutex_t lock;
	struct udp_batch queue_local;	/* the thread's: one sample */
	struct udp_batch queue;		/* filled by the thread */
	struct udp_batch taken;		/* handed out by udp_sampler_take */
	int stop;			/* set by udp_sampler_stop */
	int err;			/* the thread's failure: -errno, it ended */
	uint64_t samples;		/* intervals sampled */
	uint64_t missed;		/* intervals that passed without a sample */
	uint64_t busy_ns;		/* CLOCK_MONOTONIC time spent reading */
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

/* Starts the thread, sampling every interval_ns.  0 or -errno with e. */
int udp_sampler_start(struct udp_sampler *s, uint64_t interval_ns,
		      struct errmsg *e);

/* What the thread read since the last call, in order, into *out
 * (borrowed: valid until the next call).  0, or the thread's -errno once
 * it failed (what it read before is still in *out). */
int udp_sampler_take(struct udp_sampler *s, const struct udp_batch **out);

/* Stops and joins the thread; no-op if it was not started. */
void udp_sampler_stop(struct udp_sampler *s);

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
