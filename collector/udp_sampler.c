#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "udp_sampler.h"

void udp_sampler_init(struct udp_sampler *s)
{
	memset(s, 0, sizeof(*s));
	s->fd_udp = s->fd_udp6 = s->fd_snmp = s->fd_snmp6 = s->fd_diag = -1;
	pthread_mutex_init(&s->lock, NULL);
}

void udp_sampler_release(struct udp_sampler *s)
{
	int fds[] = { s->fd_udp, s->fd_udp6, s->fd_snmp, s->fd_snmp6, s->fd_diag };

	udp_sampler_stop(s);
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(s->ports);
	free(s->inodes);
	free(s->port_seen);
	free(s->inode_seen);
	free(s->buf);
	free(s->known);
	free(s->queue_local.v);
	free(s->queue.v);
	free(s->taken.v);
	pthread_mutex_destroy(&s->lock);
	udp_sampler_init(s);
}

int udp_sampler_wanted(const struct udp_sampler *s)
{
	return s->nports || s->ninodes;
}

/* Appends v to a list and a cleared seen flag beside it. */
static int push(uint64_t **list, uint8_t **seen, size_t *n, uint64_t v)
{
	uint64_t *l = realloc(*list, (*n + 1) * sizeof(*l));
	uint8_t *f;

	if (!l)
		return -ENOMEM;
	*list = l;
	f = realloc(*seen, *n + 1);
	if (!f)
		return -ENOMEM;
	*seen = f;
	l[*n] = v;
	f[(*n)++] = 0;
	return 0;
}

int udp_sampler_add_ports(struct udp_sampler *s, const char *arg,
			  const char *opt, struct errmsg *e)
{
	const char *p = arg;

	for (;;) {
		char *end;
		unsigned long v;

		errno = 0;
		v = *p >= '0' && *p <= '9' ? strtoul(p, &end, 10) : 0;
		if (v == 0 || v > 65535 || errno || (*end != ',' && *end))
			return errmsg_set(e, EINVAL, "invalid %s '%s': expected UDP "
					  "ports from 1 to 65535, separated by "
					  "commas, e.g. 9000,9001", opt, arg);
		if (push(&s->ports, &s->port_seen, &s->nports, v) < 0)
			return -ENOMEM;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

int udp_sampler_add_inode(struct udp_sampler *s, const char *arg,
			  const char *opt, struct errmsg *e)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = *arg >= '0' && *arg <= '9' ? strtoull(arg, &end, 10) : 0;
	if (v == 0 || errno || *end)
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected a socket's "
				  "inode number, as the inode column of "
				  "/proc/net/udp or 'ss -uae' shows it", opt, arg);
	return push(&s->inodes, &s->inode_seen, &s->ninodes, v);
}

int udp_sampler_open(struct udp_sampler *s, struct errmsg *e)
{
	static const char *const need[] = { "/proc/net/udp", "/proc/net/snmp" };
	int *fds[] = { &s->fd_udp, &s->fd_snmp };

	for (int i = 0; i < 2; i++) {
		*fds[i] = open(need[i], O_RDONLY | O_CLOEXEC);
		if (*fds[i] < 0)
			return errmsg_set(e, errno, "cannot open '%s' for --udp-port "
					  "and --socket: %s; is /proc mounted?",
					  need[i], strerror(errno));
	}
	/* Without IPv6 these are absent: there is nothing to sample there. */
	s->fd_udp6 = open("/proc/net/udp6", O_RDONLY | O_CLOEXEC);
	s->fd_snmp6 = open("/proc/net/snmp6", O_RDONLY | O_CLOEXEC);
	/* Without it (no sock_diag), every sample is a scan. */
	s->fd_diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
			    NETLINK_SOCK_DIAG);
	s->cap = 16384;
	s->buf = malloc(s->cap);
	return s->buf ? 0 : -ENOMEM;
}

/*
 * A seq_file read returns less than the buffer asked for at its end, or
 * when the kernel's own buffer (a page at least) filled up, which leaves
 * it at most one line short of a page: a read shorter than this ended the
 * file.  Reading on to the 0 of EOF would cost as much again for the
 * udp tables: each read walks the whole UDP hash table (16384 slots on
 * the 2-core VM, about 8 us a walk).
 */
#define SEQ_SHORT_READ 2048

/*
 * The whole file into s->buf, NUL-terminated.  The /proc/net files are
 * seq_files: reading again from offset 0 makes the kernel print them
 * afresh, so the descriptors stay open and no scan pays for an open().
 */
static int read_all(struct udp_sampler *s, int fd)
{
	size_t len = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (s->cap - len < 8192) {
			char *b = realloc(s->buf, s->cap * 2);

			if (!b)
				return -ENOMEM;
			s->buf = b;
			s->cap *= 2;
		}
		n = read(fd, s->buf + len, s->cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		len += (size_t)n;
		if (n < SEQ_SHORT_READ)
			break;
	}
	s->buf[len] = '\0';
	return 0;
}

/* Splits at blanks, up to max fields; returns how many. */
static int split(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		line += strspn(line, " \t");
		if (!*line || *line == '\n')
			break;
		f[n++] = line;
		line += strcspn(line, " \t\n");
		if (*line)
			*line++ = '\0';
	}
	return n;
}

static int hex_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 16)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) :
			     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;

		if (d > 15)
			return -EINVAL;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

static int dec_u64(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/*
 * "0100007F:2328" (IPv4) or 32 hex digits and a port (IPv6): the kernel
 * prints each 32-bit word of the address as a number in the host's byte
 * order (%08X of the raw word), so the words go back into memory as
 * numbers, and the port as a plain number.
 */
static int parse_local(const char *s, int v6, struct udp_sock_sample *out)
{
	const char *colon = strchr(s, ':');
	size_t alen = v6 ? 32 : 8;
	uint32_t words[4];
	uint64_t w, port;
	char addr[INET6_ADDRSTRLEN];

	if (!colon || (size_t)(colon - s) != alen ||
	    hex_u64(colon + 1, strlen(colon + 1), &port) < 0 || port > 65535)
		return -EINVAL;
	memset(out->addr, 0, sizeof(out->addr));
	for (size_t i = 0; i < alen / 8; i++) {
		if (hex_u64(s + 8 * i, 8, &w) < 0)
			return -EINVAL;
		words[i] = out->addr[i] = (uint32_t)w;
	}
	inet_ntop(v6 ? AF_INET6 : AF_INET, words, addr, sizeof(addr));
	snprintf(out->local, sizeof(out->local), v6 ? "[%s]:%u" : "%s:%u", addr,
		 (unsigned)port);
	out->port = (unsigned)port;
	return 0;
}

/*
 * A line of /proc/net/udp{,6} (net/ipv4/udp.c udp4_format_sock,
 * net/ipv6/datagram.c __ip6_dgram_sock_seq_show), fields by blanks:
 *   0 sl:  1 local ADDR:PORT  2 remote  3 st  4 tx_queue:rx_queue (hex)
 *   5 tr:tm->when  6 retrnsmt  7 uid  8 timeout  9 inode  10 ref
 *   11 pointer  12 drops
 */
int udp_parse_line(const char *line, int v6, struct udp_sock_sample *out)
{
	char copy[512], *f[13];
	const char *rx;
	size_t len = strlen(line);

	if (len >= sizeof(copy))
		return -EINVAL;
	memcpy(copy, line, len + 1);
	if (split(copy, f, 13) != 13 || f[0][strlen(f[0]) - 1] != ':')
		return -EINVAL;
	rx = strchr(f[4], ':');
	if (!rx || parse_local(f[1], v6, out) < 0 ||
	    hex_u64(rx + 1, strlen(rx + 1), &out->rx_queue_bytes) < 0 ||
	    dec_u64(f[9], &out->inode) < 0 || dec_u64(f[12], &out->drops) < 0)
		return -EINVAL;
	out->v6 = v6;
	return 0;
}

static int chosen(struct udp_sampler *s, const struct udp_sock_sample *x)
{
	int hit = 0;

	for (size_t i = 0; i < s->nports; i++)
		if (s->ports[i] == x->port)
			hit = s->port_seen[i] = 1;
	for (size_t i = 0; i < s->ninodes; i++)
		if (s->inodes[i] == x->inode)
			hit = s->inode_seen[i] = 1;
	s->seen_v6 |= hit && x->v6;
	return hit;
}

static int scan_table(struct udp_sampler *s, int fd, int v6,
		      int (*fn)(void *, const struct udp_sock_sample *),
		      void *ctx)
{
	struct udp_sock_sample x;
	char *line, *next;
	int err = read_all(s, fd);

	memset(&x, 0, sizeof(x));
	x.ts = realtime_ns();
	if (err < 0)
		return err;
	line = strchr(s->buf, '\n');	/* after the header */
	for (; line && *++line && err == 0; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next = '\0';
		if (udp_parse_line(line, v6, &x) == 0 && chosen(s, &x))
			err = fn(ctx, &x);
		if (!next)
			break;
	}
	return err;
}

int udp_sampler_scan(struct udp_sampler *s,
		     int (*fn)(void *ctx, const struct udp_sock_sample *sample),
		     void *ctx)
{
	int err = scan_table(s, s->fd_udp, 0, fn, ctx);

	if (err == 0 && s->fd_udp6 >= 0)
		err = scan_table(s, s->fd_udp6, 1, fn, ctx);
	return err;
}

/* The value under name in a pair of "Udp: names..." / "Udp: values..."
 * lines (names and values are the rest of each line). */
static int field_by_name(const char *names, const char *values,
			 const char *name, uint64_t *out)
{
	char nb[1024], vb[1024], *n[32], *v[32];
	int nn, nv;

	snprintf(nb, sizeof(nb), "%.*s", (int)strcspn(names, "\n"), names);
	snprintf(vb, sizeof(vb), "%.*s", (int)strcspn(values, "\n"), values);
	nn = split(nb, n, 32);
	nv = split(vb, v, 32);
	for (int i = 0; i < nn && i < nv; i++)
		if (!strcmp(n[i], name))
			return dec_u64(v[i], out);
	return -EINVAL;
}

/* /proc/net/snmp: "Udp: InDatagrams NoPorts InErrors ..." then
 * "Udp: 37 3 112441 ...", the names line first (net/ipv4/proc.c). */
int udp_parse_snmp(const char *text, struct udp_host_sample *out)
{
	const char *names = strstr(text, "\nUdp: "), *values;

	if (!names)
		return -EINVAL;
	names += 6;
	values = strstr(names, "\nUdp: ");
	if (!values)
		return -EINVAL;
	values += 6;
	if (field_by_name(names, values, "InErrors", &out->in_errors[0]) < 0 ||
	    field_by_name(names, values, "RcvbufErrors", &out->rcvbuf_errors[0]) < 0)
		return -EINVAL;
	return 0;
}

/* "Udp6InErrors   0": one counter a line, Ip6 ones first
 * (net/ipv6/proc.c). */
static int snmp6_field(const char *text, const char *name, uint64_t *out)
{
	char key[64], val[32];
	const char *p;

	snprintf(key, sizeof(key), "\n%s", name);
	p = strstr(text, key);
	if (!p || (p[strlen(key)] != ' ' && p[strlen(key)] != '\t'))
		return -EINVAL;
	p += strlen(key);
	p += strspn(p, " \t");
	snprintf(val, sizeof(val), "%.*s", (int)strcspn(p, " \t\n"), p);
	return dec_u64(val, out);
}

int udp_parse_snmp6(const char *text, struct udp_host_sample *out)
{
	if (snmp6_field(text, "Udp6InErrors", &out->in_errors[1]) < 0 ||
	    snmp6_field(text, "Udp6RcvbufErrors", &out->rcvbuf_errors[1]) < 0)
		return -EINVAL;
	return 0;
}

int udp_sampler_host(struct udp_sampler *s, struct udp_host_sample *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	out->ts = realtime_ns();
	err = read_all(s, s->fd_snmp);
	if (err == 0)
		err = udp_parse_snmp(s->buf, out);
	if (err == 0 && s->fd_snmp6 >= 0 && s->seen_v6) {
		err = read_all(s, s->fd_snmp6);
		if (err == 0)
			err = udp_parse_snmp6(s->buf, out);
		out->have_v6 = err == 0;
	}
	return err;
}

size_t udp_sampler_missing(const struct udp_sampler *s, char *buf, size_t n)
{
	size_t count = 0, len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->nports + s->ninodes; i++) {
		int port = i < s->nports;
		size_t k = port ? i : i - s->nports;

		if (port ? s->port_seen[k] : s->inode_seen[k])
			continue;
		if (len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s %llu",
						count ? ", " : "",
						port ? "port" : "inode",
						(unsigned long long)(port ? s->ports[k] :
								      s->inodes[k]));
		count++;
	}
	return count;
}

/* ---- the sampling thread ------------------------------------------- */

/* Room in *v (cap elements of size) for one more after n. */
static int grow(void *v, size_t *cap, size_t n, size_t size)
{
	void **p = v, *nv;
	size_t c = *cap ? 2 * *cap : 16;

	if (n < *cap)
		return 0;
	nv = realloc(*p, c * size);
	if (!nv)
		return -ENOMEM;
	*p = nv;
	*cap = c;
	return 0;
}

static int batch_push(struct udp_batch *b, const struct udp_reading *r)
{
	if (grow(&b->v, &b->cap, b->n, sizeof(*b->v)) < 0)
		return -ENOMEM;
	b->v[b->n++] = *r;
	return 0;
}

/*
 * One socket by sock_diag, as known from the last scan: 0 with out
 * filled, -ENOENT if no socket has its address and port now, -ESTALE if
 * another one has, or another -errno.
 */
static int diag_one(struct udp_sampler *s, const struct udp_sock_sample *known,
		    struct udp_sock_sample *out)
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
	const struct rtattr *at;
	ssize_t n;
	int len;

	memset(&q, 0, sizeof(q));
	q.h.nlmsg_len = sizeof(q);
	q.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.h.nlmsg_flags = NLM_F_REQUEST;
	q.h.nlmsg_seq = ++s->diag_seq;
	q.r.sdiag_family = known->v6 ? AF_INET6 : AF_INET;
	q.r.sdiag_protocol = IPPROTO_UDP;
	q.r.idiag_ext = 1 << (INET_DIAG_SKMEMINFO - 1);
	/* udp_dump_one looks the socket up as a datagram's destination:
	 * the local address and port go in dst and dport. */
	q.r.id.idiag_dport = htons((uint16_t)known->port);
	memcpy(q.r.id.idiag_dst, known->addr, sizeof(q.r.id.idiag_dst));
	q.r.id.idiag_cookie[0] = q.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	*out = *known;
	out->ts = realtime_ns();
	if (send(s->fd_diag, &q, sizeof(q), 0) < 0)
		return -errno;
	do
		n = recv(s->fd_diag, a.b, sizeof(a.b), 0);
	while (n >= 0 && NLMSG_OK(&a.h, n) && a.h.nlmsg_seq != q.h.nlmsg_seq);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(&a.h, n))
		return -EPROTO;
	if (a.h.nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *err = NLMSG_DATA(&a.h);

		return err->error < 0 ? err->error : -EPROTO;
	}
	m = NLMSG_DATA(&a.h);
	if (a.h.nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return -EPROTO;
	if (m->idiag_inode != (uint32_t)known->inode)
		return -ESTALE;
	out->rx_queue_bytes = m->idiag_rqueue;
	len = (int)(a.h.nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
	for (at = (const void *)(m + 1); RTA_OK(at, len); at = RTA_NEXT(at, len))
		if (at->rta_type == INET_DIAG_SKMEMINFO &&
		    RTA_PAYLOAD(at) >= SK_MEMINFO_VARS * sizeof(uint32_t)) {
			out->drops = ((const uint32_t *)RTA_DATA(at))[SK_MEMINFO_DROPS];
			return 0;
		}
	return -EPROTO;
}

static int batch_push_sock(struct udp_batch *b, const struct udp_sock_sample *x)
{
	struct udp_reading r = { .kind = UDP_READING_SOCK, .u.sock = *x };

	return batch_push(b, &r);
}

/* A scan's socket: into the batch, and remembered for the lookups. */
static int push_scanned(void *ctx, const struct udp_sock_sample *x)
{
	struct udp_sampler *s = ctx;

	if (grow(&s->known, &s->capknown, s->nknown, sizeof(*s->known)) < 0)
		return -ENOMEM;
	s->known[s->nknown++] = *x;
	return batch_push_sock(&s->queue_local, x);
}

static int scan_sockets(struct udp_sampler *s)
{
	s->nknown = 0;
	s->scans++;
	s->next_scan_ns = monotonic_ns() + UDP_RESCAN_NS;
	return udp_sampler_scan(s, push_scanned, s);
}

/* The known sockets by sock_diag; a failed lookup makes it a scan. */
static int lookup_sockets(struct udp_sampler *s)
{
	struct udp_batch *b = &s->queue_local;
	size_t first = b->n;
	struct udp_sock_sample x;

	for (size_t i = 0; i < s->nknown; i++) {
		int err = diag_one(s, &s->known[i], &x);

		/* Any failed lookup (no socket, another one, or netlink
		 * itself failing) leaves the sample to a scan. */
		if (err < 0) {
			b->n = first;
			if (++s->diag_misses >= UDP_DIAG_GIVE_UP) {
				close(s->fd_diag);
				s->fd_diag = -1;
			}
			return scan_sockets(s);
		}
		err = batch_push_sock(b, &x);
		if (err < 0)
			return err;
	}
	s->diag_misses = 0;
	s->lookups++;
	return 0;
}

/* One sample into s->queue_local: the sockets, the host's counters if
 * they are due, and the intervals missed before it, if any. */
static int sample_once(struct udp_sampler *s, uint64_t missed)
{
	struct udp_batch *b = &s->queue_local;
	struct udp_reading r = { .kind = UDP_READING_HOST };
	int err;

	b->n = 0;
	if (s->fd_diag < 0 || monotonic_ns() >= s->next_scan_ns)
		err = scan_sockets(s);
	else
		err = lookup_sockets(s);
	if (err == 0 && monotonic_ns() >= s->next_host_ns) {
		s->next_host_ns = monotonic_ns() + UDP_HOST_EVERY_NS;
		err = udp_sampler_host(s, &r.u.host);
		if (err == 0)
			err = batch_push(b, &r);
	}
	if (err == 0 && missed) {
		r.kind = UDP_READING_MISSED;
		r.u.missed.ts = realtime_ns();
		r.u.missed.count = missed;
		err = batch_push(b, &r);
	}
	return err;
}

/* Appends b to the queue, all or nothing; lock held. */
static int queue_append(struct udp_sampler *s, const struct udp_batch *b)
{
	if (s->queue.n + b->n > UDP_QUEUE_MAX)
		return -ENOSPC;
	for (size_t i = 0; i < b->n; i++)
		if (batch_push(&s->queue, &b->v[i]) < 0)
			return -ENOMEM;
	return 0;
}

static void sleep_until(uint64_t mono_ns)
{
	struct timespec t = { (time_t)(mono_ns / 1000000000ull),
			      (long)(mono_ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
}

/*
 * Wakes at start + k * interval (absolute times, so the period does not
 * drift with the time a sample takes).  Woken late by more than an
 * interval, it samples once and counts the intervals it skipped.
 */
static void *sampler_main(void *arg)
{
	struct udp_sampler *s = arg;
	uint64_t next = monotonic_ns() + s->interval_ns;
	int err = 0, stop = 0;

	while (!stop && err == 0) {
		uint64_t start, missed = 0;

		sleep_until(next);
		start = monotonic_ns();
		if (start >= next + s->interval_ns)
			missed = (start - next) / s->interval_ns;
		next += (missed + 1) * s->interval_ns;
		err = sample_once(s, missed);
		pthread_mutex_lock(&s->lock);
		stop = s->stop;
		if (err == 0 && queue_append(s, &s->queue_local) == -ENOSPC)
			missed++;	/* the taker is far behind: dropped */
		else if (err == 0)
			s->samples++;
		s->missed += missed;
		s->busy_ns += monotonic_ns() - start;
		s->err = err;
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

int udp_sampler_start(struct udp_sampler *s, uint64_t interval_ns,
		      struct errmsg *e)
{
	int err;

	s->interval_ns = interval_ns;
	err = pthread_create(&s->thread, NULL, sampler_main, s);
	if (err)
		return errmsg_set(e, err, "cannot start the socket sampling "
				  "thread: %s", strerror(err));
	s->started = 1;
	return 0;
}

int udp_sampler_take(struct udp_sampler *s, const struct udp_batch **out)
{
	struct udp_batch t;
	int err;

	pthread_mutex_lock(&s->lock);
	t = s->taken;
	t.n = 0;
	s->taken = s->queue;
	s->queue = t;
	err = s->err;
	pthread_mutex_unlock(&s->lock);
	*out = &s->taken;
	return err;
}

void udp_sampler_stop(struct udp_sampler *s)
{
	if (!s->started)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	s->started = 0;
}
