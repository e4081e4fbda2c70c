#include <arpa/inet.h>
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/clock.h"
#include "metric_feed.h"

void metric_feed_init(struct metric_feed *f, const struct metric_feed_config *c)
{
	memset(f, 0, sizeof(*f));
	f->cfg = *c;
}

static int blank_line(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

/* One line (without its '\n'), read as at says. */
static void take_line(struct metric_feed *f, const char *s, size_t len,
		      const struct metric_sample *at, metric_line_fn *fn,
		      void *ctx)
{
	struct metric_sample m = *at;
	const char *name;
	size_t name_len, i;
	double v;

	if (blank_line(s, len))
		return;
	f->n.lines++;
	if (metric_line_parse(s, len, &name, &name_len, &v) < 0) {
		f->n.malformed++;
		return;
	}
	for (i = 0; i < f->cfg.nwatch; i++)
		if (strlen(f->cfg.watch[i].name) == name_len &&
		    !memcmp(f->cfg.watch[i].name, name, name_len))
			break;
	if (i == f->cfg.nwatch) {
		f->n.ignored++;
		return;
	}
	m.watch = (uint32_t)i;
	m.value = v;
	m.over = v > f->cfg.watch[i].threshold;
	if (m.over)
		f->n.over++;
	else
		f->n.under++;
	fn(ctx, &m);
}

/* The FIFO is opened read-write (as --control's), so it never reads
 * EOF between writers; a line is taken once its '\n' arrives. */
void metric_feed_read_fifo(struct metric_feed *f, metric_line_fn *fn,
			   void *ctx)
{
	char buf[METRIC_DATAGRAM_MAX];
	ssize_t n = read(f->cfg.fifo_fd, buf, sizeof(buf));
	struct metric_sample at = { .mono_ns = monotonic_ns(),
				    .from = METRIC_FROM_FIFO };

	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (f->len < sizeof(f->line))
				f->line[f->len] = buf[i];
			f->len++;
			continue;
		}
		if (f->len < sizeof(f->line))
			take_line(f, f->line, f->len, &at, fn, ctx);
		else {
			f->n.lines++;
			f->n.malformed++;
		}
		f->len = 0;
	}
}

static void take_datagram(struct metric_feed *f, const char *buf, size_t len,
			  const struct metric_sample *at, metric_line_fn *fn,
			  void *ctx)
{
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		take_line(f, buf, n, at, fn, ctx);
		buf += n + (nl != NULL);
		len -= n + (nl != NULL);
	}
}

void metric_feed_read_udp(struct metric_feed *f, metric_line_fn *fn,
			  void *ctx)
{
	char buf[METRIC_DATAGRAM_MAX];

	for (int k = 0; k < METRIC_DATAGRAMS_A_WAKE; k++) {
		/* MSG_TRUNC: the datagram's own length, however long. */
		ssize_t n = recv(f->cfg.udp_fd, buf, sizeof(buf), MSG_TRUNC);
		struct metric_sample at = { .mono_ns = monotonic_ns(),
					    .from = METRIC_FROM_UDP };

		if (n < 0)
			return;		/* EAGAIN: no more for now */
		if ((size_t)n > sizeof(buf)) {
			f->n.lines++;
			f->n.malformed++;
			continue;
		}
		take_datagram(f, buf, (size_t)n, &at, fn, ctx);
	}
}

void metric_feed_finish(struct metric_feed *f)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (f->cfg.udp_fd >= 0 &&
	    getsockopt(f->cfg.udp_fd, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 &&
	    len > SK_MEMINFO_DROPS * sizeof(mem[0]))
		f->n.udp_dropped = mem[SK_MEMINFO_DROPS];
}

/* PORT: 1 to 65535, digits only. */
static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int metric_udp_parse(const char *spec, struct sockaddr_storage *sa,
		     socklen_t *len)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)sa;
	const char *colon = strrchr(spec, ':');
	char addr[INET6_ADDRSTRLEN + 2];
	size_t n = colon ? (size_t)(colon - spec) : 0;
	uint16_t port;

	memset(sa, 0, sizeof(*sa));
	if (parse_port(colon ? colon + 1 : spec, &port) < 0 || n >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, spec, n);
	addr[n] = '\0';
	if (n >= 2 && addr[0] == '[' && addr[n - 1] == ']') {
		addr[n - 1] = '\0';
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(port);
		*len = sizeof(*v6);
		return inet_pton(AF_INET6, addr + 1, &v6->sin6_addr) == 1 ?
		       0 : -EINVAL;
	}
	v4->sin_family = AF_INET;
	v4->sin_port = htons(port);
	*len = sizeof(*v4);
	return inet_pton(AF_INET, colon ? addr : "127.0.0.1",
			 &v4->sin_addr) == 1 ? 0 : -EINVAL;
}

int metric_udp_bind(const struct sockaddr_storage *sa, socklen_t len,
		    const char *spec, int *fd, struct errmsg *e)
{
	int s = socket(sa->ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int rcvbuf = METRIC_UDP_RCVBUF;

	if (s < 0)
		return errmsg_set(e, errno, "cannot make the --metric-udp socket: "
				  "%s", strerror(errno));
	/* A smaller buffer only drops sooner, and says so: no failure. */
	(void)setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(s, (const struct sockaddr *)sa, len) < 0) {
		int err = errno;

		close(s);
		return errmsg_set(e, err, "cannot listen on --metric-udp '%s': "
				  "%s; %s", spec, strerror(err),
				  err == EADDRINUSE ? "another socket has that "
				  "port: choose another" : err == EADDRNOTAVAIL ?
				  "the address is not one of this machine's" :
				  "choose another address or port");
	}
	*fd = s;
	return 0;
}
