/*
 * udp_sampler: the receive-queue depth and drop count of chosen UDP
 * sockets, and the host's UDP error counters, read every interval on a
 * sampling thread (collector/sampler_thread.h).  This file is the policy:
 * which sockets, read how and how often.
 *
 * Sockets are chosen by local port or by inode.  A scan reads the whole
 * of /proc/net/udp and /proc/net/udp6 (decoder/proc_net_udp.h parses
 * them), so a socket bound after recording began (or closed and bound
 * again) is found by the next scan; one that never matches is reported
 * by udp_sampler_missing.
 *
 * Reading /proc/net/udp walks every slot of the kernel's UDP hash table
 * (16384 on the 2-core VM: 60% of the sampling thread's time went there,
 * about 10 us a table).  So the thread scans the tables every
 * UDP_RESCAN_NS only, and in between asks sock_diag (collector/sock_diag.h)
 * for each socket it found, by its local address and port: a hash lookup,
 * answered with the same queue depth and the socket's drop count.  A
 * lookup that finds no socket, or another one (a new socket on the port,
 * or one of several sharing it with SO_REUSEPORT), or that fails, makes
 * that sample a scan; after UDP_DIAG_GIVE_UP such samples in a row the
 * thread scans every time.
 *
 * The host's counters (/proc/net/snmp, and /proc/net/snmp6 once a chosen
 * socket was an IPv6 one) are read every UDP_HOST_EVERY_NS.
 *
 * Usage:
 *	udp_sampler_init(&s);
 *	udp_sampler_add_port(&s, 9000);		ports and inodes, checked by
 *	udp_sampler_add_inode(&s, 123456);	the caller (cli/record_udp.c)
 *	udp_sampler_open(&s, &e);		the /proc files, kept open
 *	udp_sampler_start(&s, interval_ns, &e);	the thread
 *	udp_sampler_take(&s, &v, &n);		what it read so far (repeat)
 *	udp_sampler_stop(&s);			joins it; take the rest
 *	udp_sampler_counts(&s, &c);
 *	udp_sampler_release(&s);
 */
#ifndef FL_UDP_SAMPLER_H
#define FL_UDP_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"
#include "../decoder/proc_net_udp.h"
#include "sampler_thread.h"
#include "sock_diag.h"

/* One thing the thread read: a socket, the host's counters, or the
 * intervals that passed without a sample before this one (the thread was
 * not run in time). */
struct udp_reading {
	enum { UDP_READING_SOCK, UDP_READING_HOST, UDP_READING_MISSED } kind;
	uint64_t mono_ns;		/* CLOCK_MONOTONIC ns: when it was read */
	union {
		struct udp_sock_line sock;
		struct udp_host_counters host;
		uint64_t missed;	/* intervals */
	} u;
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

struct udp_counts {
	uint64_t samples;		/* intervals sampled */
	uint64_t missed;		/* intervals that passed without a sample */
	uint64_t busy_ns;		/* CLOCK_MONOTONIC time spent reading */
	uint64_t scans, lookups;	/* how the samples were taken */
};

struct udp_sampler {
	uint64_t *ports;		/* owned: local ports asked for */
	size_t nports, ports_cap;
	uint64_t *inodes;		/* owned: inodes asked for */
	size_t ninodes, inodes_cap;
	/* Set by the thread when a scan matched; read once it is stopped. */
	uint8_t *port_seen;		/* owned: [nports] */
	size_t port_seen_cap;
	uint8_t *inode_seen;		/* owned: [ninodes] */
	size_t inode_seen_cap;
	int fd_udp, fd_udp6;		/* owned, or -1 */
	int fd_snmp, fd_snmp6;		/* owned, or -1 */
	char *buf;			/* owned: one file's text, NUL-terminated */
	size_t cap;

	/* The sampling thread's own while it runs (udp_sampler_counts
	 * reads scans and lookups once it is stopped). */
	struct sock_diag diag;		/* closed once lookups are given up */
	int diag_misses;		/* samples in a row a lookup failed */
	int seen_v6;			/* an IPv6 socket was chosen */
	struct udp_sock_line *known;	/* owned: what the last scan found */
	size_t nknown, known_cap;
	uint64_t next_scan_ns;		/* CLOCK_MONOTONIC */
	uint64_t next_host_ns;		/* CLOCK_MONOTONIC */
	uint64_t scans, lookups;

	struct sampler_thread thread;
};

void udp_sampler_init(struct udp_sampler *s);
void udp_sampler_release(struct udp_sampler *s);

/* Is anything asked for? */
int udp_sampler_wanted(const struct udp_sampler *s);

/* A local port to sample (1 to 65535), or an inode (not 0), before the
 * thread starts.  0, -EINVAL out of range, or -ENOMEM. */
int udp_sampler_add_port(struct udp_sampler *s, uint64_t port);
int udp_sampler_add_inode(struct udp_sampler *s, uint64_t inode);

/* Opens the /proc files and sock_diag.  /proc/net/udp6 and
 * /proc/net/snmp6 are optional (a kernel without IPv6), so is sock_diag
 * (every sample is then a scan).  0 or -errno with e. */
int udp_sampler_open(struct udp_sampler *s, struct errmsg *e);

/* Starts the thread, sampling every interval_ns, the first time at once.
 * 0 or -errno with e. */
int udp_sampler_start(struct udp_sampler *s, uint64_t interval_ns,
		      struct errmsg *e);

/* What the thread read since the last call, in order: *v (borrowed:
 * valid until the next call) and *n readings.  0, or the thread's -errno
 * once it failed (what it read before is still in *v). */
int udp_sampler_take(struct udp_sampler *s, const struct udp_reading **v,
		     size_t *n);

/* Stops and joins the thread; no-op if it was not started. */
void udp_sampler_stop(struct udp_sampler *s);

/* How the sampling went; once the thread is stopped (scans and lookups
 * are the thread's own while it runs). */
void udp_sampler_counts(struct udp_sampler *s, struct udp_counts *out);

/* Writes "port 9000, inode 123456" for the ports and inodes asked for
 * that no scan has matched yet into buf (n bytes, NUL-terminated);
 * returns how many there are.  Only while the thread is stopped. */
size_t udp_sampler_missing(const struct udp_sampler *s, char *buf, size_t n);

#endif
