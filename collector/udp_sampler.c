#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/clock.h"
#include "udp_sampler.h"

void udp_sampler_init(struct udp_sampler *s)
{
	memset(s, 0, sizeof(*s));
	s->fd_udp = s->fd_udp6 = s->fd_snmp = s->fd_snmp6 = -1;
	sock_diag_init(&s->diag);
	sampler_thread_init(&s->thread);
}

void udp_sampler_release(struct udp_sampler *s)
{
	int fds[] = { s->fd_udp, s->fd_udp6, s->fd_snmp, s->fd_snmp6 };

	sampler_thread_release(&s->thread);
	sock_diag_close(&s->diag);
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(s->ports);
	free(s->inodes);
	free(s->port_seen);
	free(s->inode_seen);
	free(s->buf);
	free(s->known);
	udp_sampler_init(s);
}

int udp_sampler_wanted(const struct udp_sampler *s)
{
	return s->nports || s->ninodes;
}

int udp_sampler_add_port(struct udp_sampler *s, uint64_t port)
{
	if (port == 0 || port > 65535)
		return -EINVAL;
	if (ARRAY_RESERVE(s->ports, s->ports_cap, s->nports + 1) < 0 ||
	    ARRAY_RESERVE(s->port_seen, s->port_seen_cap, s->nports + 1) < 0)
		return -ENOMEM;
	s->port_seen[s->nports] = 0;
	s->ports[s->nports++] = port;
	return 0;
}

int udp_sampler_add_inode(struct udp_sampler *s, uint64_t inode)
{
	if (inode == 0)
		return -EINVAL;
	if (ARRAY_RESERVE(s->inodes, s->inodes_cap, s->ninodes + 1) < 0 ||
	    ARRAY_RESERVE(s->inode_seen, s->inode_seen_cap, s->ninodes + 1) < 0)
		return -ENOMEM;
	s->inode_seen[s->ninodes] = 0;
	s->inodes[s->ninodes++] = inode;
	return 0;
}

int udp_sampler_open(struct udp_sampler *s, struct errmsg *e)
{
	static const char *const need[] = { "/proc/net/udp", "/proc/net/snmp" };
	int *fds[] = { &s->fd_udp, &s->fd_snmp };

	for (size_t i = 0; i < ARRAY_SIZE(need); i++) {
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
	sock_diag_open(&s->diag);
	return ARRAY_RESERVE(s->buf, s->cap, 16384) < 0 ? -ENOMEM : 0;
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
 * The whole file into s->buf, NUL-terminated; its length into *len.  The
 * /proc/net files are seq_files: reading again from offset 0 makes the
 * kernel print them afresh, so the descriptors stay open and no scan
 * pays for an open().
 */
static int read_all(struct udp_sampler *s, int fd, size_t *len)
{
	size_t at = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		/* Room for a read of 8 KiB at least, and the NUL. */
		if (ARRAY_RESERVE(s->buf, s->cap, at + 8192) < 0)
			return -ENOMEM;
		n = read(fd, s->buf + at, s->cap - at - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		at += (size_t)n;
		if (n < SEQ_SHORT_READ)
			break;
	}
	s->buf[at] = '\0';
	*len = at;
	return 0;
}

/* Whether x is one of the sockets asked for; marks what it matched. */
static int chosen(struct udp_sampler *s, const struct udp_sock_line *x)
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

/* A chosen socket into the sample, and remembered for the lookups. */
static int add_sock(struct udp_sampler *s, struct sampler_batch *out,
		    uint64_t mono_ns, const struct udp_sock_line *x, int remember)
{
	struct udp_reading *r = sampler_batch_add(out);

	if (!r)
		return -ENOMEM;
	r->kind = UDP_READING_SOCK;
	r->mono_ns = mono_ns;
	r->u.sock = *x;
	if (!remember)
		return 0;
	if (ARRAY_RESERVE(s->known, s->known_cap, s->nknown + 1) < 0)
		return -ENOMEM;
	s->known[s->nknown++] = *x;
	return 0;
}

/* One table: each chosen socket into the sample, all with the time the
 * read began. */
static int scan_table(struct udp_sampler *s, int fd, int v6,
		      struct sampler_batch *out)
{
	uint64_t mono_ns = monotonic_ns();
	struct udp_sock_line x;
	const char *line, *end;
	size_t len;
	int err = read_all(s, fd, &len);

	if (err < 0)
		return err;
	end = s->buf + len;
	line = memchr(s->buf, '\n', len);	/* after the header */
	for (line = line ? line + 1 : end; line < end && err == 0; ) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		if (udp_parse_line(line, n, v6, &x) == 0 && chosen(s, &x))
			err = add_sock(s, out, mono_ns, &x, 1);
		line += n + 1;
	}
	return err;
}

static int scan_sockets(struct udp_sampler *s, struct sampler_batch *out)
{
	int err;

	s->nknown = 0;
	s->scans++;
	s->next_scan_ns = monotonic_ns() + UDP_RESCAN_NS;
	err = scan_table(s, s->fd_udp, 0, out);
	if (err == 0 && s->fd_udp6 >= 0)
		err = scan_table(s, s->fd_udp6, 1, out);
	return err;
}

/* One socket as known from the last scan, by sock_diag: 0 with *x its
 * fresh reading, -ESTALE if another socket has its address and port now,
 * or the lookup's -errno. */
static int lookup_one(struct udp_sampler *s, const struct udp_sock_line *known,
		      struct udp_sock_line *x)
{
	struct sock_diag_udp d;
	int err = sock_diag_udp(&s->diag, known->v6, known->addr, known->port, &d);

	if (err < 0)
		return err;
	if (d.inode != (uint32_t)known->inode)
		return -ESTALE;
	*x = *known;
	x->rx_queue_bytes = d.rx_queue_bytes;
	x->drops = d.drops;
	return 0;
}

/* The known sockets by sock_diag; a failed lookup makes it a scan. */
static int lookup_sockets(struct udp_sampler *s, struct sampler_batch *out)
{
	size_t first = out->n;
	struct udp_sock_line x;

	for (size_t i = 0; i < s->nknown; i++) {
		uint64_t mono_ns = monotonic_ns();
		int err = lookup_one(s, &s->known[i], &x);

		/* Any failed lookup (no socket, another one, or netlink
		 * itself failing) leaves the sample to a scan. */
		if (err < 0) {
			out->n = first;
			if (++s->diag_misses >= UDP_DIAG_GIVE_UP)
				sock_diag_close(&s->diag);
			return scan_sockets(s, out);
		}
		err = add_sock(s, out, mono_ns, &x, 0);
		if (err < 0)
			return err;
	}
	s->diag_misses = 0;
	s->lookups++;
	return 0;
}

/* The host's counters into *h: those of UDP over IPv4 always, those of
 * IPv6 once a chosen socket was an IPv6 one (reading /proc/net/snmp6
 * costs as much as a table scan). */
static int read_host(struct udp_sampler *s, struct udp_host_counters *h)
{
	size_t len;
	int err = read_all(s, s->fd_snmp, &len);

	if (err == 0)
		err = udp_parse_snmp(s->buf, len, h);
	if (err == 0 && s->fd_snmp6 >= 0 && s->seen_v6) {
		err = read_all(s, s->fd_snmp6, &len);
		if (err == 0)
			err = udp_parse_snmp6(s->buf, len, h);
	}
	return err;
}

static int add_host(struct udp_sampler *s, struct sampler_batch *out)
{
	struct udp_reading *r = sampler_batch_add(out);

	if (!r)
		return -ENOMEM;
	r->kind = UDP_READING_HOST;
	r->mono_ns = monotonic_ns();
	return read_host(s, &r->u.host);
}

static int add_missed(const struct sampler_tick *tick, struct sampler_batch *out)
{
	struct udp_reading *r = sampler_batch_add(out);

	if (!r)
		return -ENOMEM;
	r->kind = UDP_READING_MISSED;
	r->mono_ns = tick->woke_mono_ns;
	r->u.missed = tick->missed;
	return 0;
}

/* The sampling thread's callback: the sockets, the host's counters if
 * they are due, and the intervals missed before this sample, if any. */
static int sample_once(void *ctx, const struct sampler_tick *tick,
		       struct sampler_batch *out)
{
	struct udp_sampler *s = ctx;
	int err;

	if (!sock_diag_is_open(&s->diag) || monotonic_ns() >= s->next_scan_ns)
		err = scan_sockets(s, out);
	else
		err = lookup_sockets(s, out);
	if (err == 0 && monotonic_ns() >= s->next_host_ns) {
		s->next_host_ns = monotonic_ns() + UDP_HOST_EVERY_NS;
		err = add_host(s, out);
	}
	if (err == 0 && tick->missed)
		err = add_missed(tick, out);
	return err;
}

int udp_sampler_start(struct udp_sampler *s, uint64_t interval_ns,
		      struct errmsg *e)
{
	const struct sampler_config cfg = {
		.name = "socket sampling",
		.interval_ns = interval_ns,
		.reading_size = sizeof(struct udp_reading),
		.queue_max = UDP_QUEUE_MAX,
		.sample = sample_once,
		.ctx = s,
	};

	return sampler_thread_start(&s->thread, &cfg, e);
}

int udp_sampler_take(struct udp_sampler *s, const struct udp_reading **v,
		     size_t *n)
{
	const struct sampler_batch *b;
	int err = sampler_thread_take(&s->thread, &b);

	*v = b->v;
	*n = b->n;
	return err;
}

void udp_sampler_stop(struct udp_sampler *s)
{
	sampler_thread_stop(&s->thread);
}

void udp_sampler_counts(struct udp_sampler *s, struct udp_counts *out)
{
	struct sampler_counts c;

	sampler_thread_counts(&s->thread, &c);
	out->samples = c.samples;
	out->missed = c.missed;
	out->busy_ns = c.busy_ns;
	out->scans = s->scans;
	out->lookups = s->lookups;
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
