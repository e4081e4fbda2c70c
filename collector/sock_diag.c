#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sock_diag.h"

void sock_diag_init(struct sock_diag *d)
{
	d->fd = -1;
	d->seq = 0;
}

int sock_diag_open(struct sock_diag *d)
{
	d->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	return d->fd < 0 ? -errno : 0;
}

void sock_diag_close(struct sock_diag *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

/* The answer to request seq into a; its length, or -errno.  Answers to
 * earlier requests (one that failed half way) are skipped. */
static ssize_t recv_answer(struct sock_diag *d, uint32_t seq, void *a,
			   size_t cap)
{
	const struct nlmsghdr *h = a;
	ssize_t n;

	do
		n = recv(d->fd, a, cap, 0);
	while ((n >= 0 && NLMSG_OK(h, n) && h->nlmsg_seq != seq) ||
	       (n < 0 && errno == EINTR));
	return n < 0 ? -errno : n;
}

/* The drop count from the attributes after m; -EPROTO without it. */
static int skmeminfo_drops(const struct inet_diag_msg *m, int len,
			   uint64_t *drops)
{
	const struct rtattr *at;

	for (at = (const void *)(m + 1); RTA_OK(at, len); at = RTA_NEXT(at, len))
		if (at->rta_type == INET_DIAG_SKMEMINFO &&
		    RTA_PAYLOAD(at) >= SK_MEMINFO_VARS * sizeof(uint32_t)) {
			*drops = ((const uint32_t *)RTA_DATA(at))[SK_MEMINFO_DROPS];
			return 0;
		}
	return -EPROTO;
}

int sock_diag_udp(struct sock_diag *d, int v6, const uint32_t addr[4],
		  unsigned port, struct sock_diag_udp *out)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} q;
	union {
		struct nlmsghdr h;
		char b[1024];
	} a;
	const struct inet_diag_msg *m;
	ssize_t n;

	memset(&q, 0, sizeof(q));
	q.h.nlmsg_len = sizeof(q);
	q.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.h.nlmsg_flags = NLM_F_REQUEST;
	q.h.nlmsg_seq = ++d->seq;
	q.r.sdiag_family = v6 ? AF_INET6 : AF_INET;
	q.r.sdiag_protocol = IPPROTO_UDP;
	q.r.idiag_ext = 1 << (INET_DIAG_SKMEMINFO - 1);
	/* udp_dump_one looks the socket up as a datagram's destination:
	 * the local address and port go in dst and dport. */
	q.r.id.idiag_dport = htons((uint16_t)port);
	memcpy(q.r.id.idiag_dst, addr, sizeof(q.r.id.idiag_dst));
	q.r.id.idiag_cookie[0] = q.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (send(d->fd, &q, sizeof(q), 0) < 0)
		return -errno;
	n = recv_answer(d, q.h.nlmsg_seq, a.b, sizeof(a.b));
	if (n < 0)
		return (int)n;
	if (!NLMSG_OK(&a.h, n))
		return -EPROTO;
	if (a.h.nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *err = NLMSG_DATA(&a.h);

		return err->error < 0 ? err->error : -EPROTO;
	}
	m = NLMSG_DATA(&a.h);
	if (a.h.nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return -EPROTO;
	out->inode = m->idiag_inode;
	out->rx_queue_bytes = m->idiag_rqueue;
	return skmeminfo_drops(m, (int)(a.h.nlmsg_len - NLMSG_LENGTH(sizeof(*m))),
			       &out->drops);
}
