/*
 * sock_diag: one UDP socket's receive-queue depth and drop count, asked
 * of the kernel by the socket's local address and port over
 * NETLINK_SOCK_DIAG (net/ipv4/udp_diag.c udp_dump_one).
 *
 * The kernel answers with a hash lookup, where /proc/net/udp walks every
 * slot of the UDP hash table (see collector/udp_sampler.h): the same
 * queue depth (idiag_rqueue, sk_rmem_alloc) and, in the INET_DIAG_SKMEMINFO
 * attribute, the socket's drop count (SK_MEMINFO_DROPS).
 *
 * Usage:
 *	sock_diag_init(&d);
 *	sock_diag_open(&d);			0 or -errno: no sock_diag
 *	sock_diag_udp(&d, 0, addr, 9000, &out);	as often as needed
 *	sock_diag_close(&d);
 */
#ifndef FL_SOCK_DIAG_H
#define FL_SOCK_DIAG_H

#include <stdint.h>

struct sock_diag {
	int fd;			/* owned: NETLINK_SOCK_DIAG, or -1 */
	uint32_t seq;		/* of the last request */
};

/* What the kernel said of one socket. */
struct sock_diag_udp {
	uint32_t inode;		/* idiag_inode: 32 bits on the wire */
	uint64_t rx_queue_bytes;	/* idiag_rqueue */
	uint64_t drops;		/* SK_MEMINFO_DROPS */
};

void sock_diag_init(struct sock_diag *d);

/* Opens the netlink socket.  0, or -errno (a kernel without sock_diag). */
int sock_diag_open(struct sock_diag *d);

/* Closes it, if open; d can be opened again. */
void sock_diag_close(struct sock_diag *d);

static inline int sock_diag_is_open(const struct sock_diag *d)
{
	return d->fd >= 0;
}

/*
 * The UDP socket bound to addr (network order; [0] only for IPv4, v6 = 0)
 * and port, into *out (meaningful on 0 only).  0; -ENOENT when no socket has them (the kernel's
 * answer); -EPROTO for an answer of another shape; another -errno when
 * netlink itself fails.  When several sockets share the port
 * (SO_REUSEPORT) the kernel answers with one of them: compare the inode.
 */
int sock_diag_udp(struct sock_diag *d, int v6, const uint32_t addr[4],
		  unsigned port, struct sock_diag_udp *out);

#endif
