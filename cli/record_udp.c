#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record_udp.h"

#define SOCK_SOURCE "sampler:/proc/net/udp"

static const char *const proto_name[2] = { "udp", "udp6" };

void record_udp_init(struct record_udp *u, struct udp_sampler *s,
		     struct loader *l, uint64_t interval_ns)
{
	memset(u, 0, sizeof(*u));
	u->sampler = s;
	u->loader = l;
	u->interval_ns = interval_ns;
}

void record_udp_release(struct record_udp *u)
{
	free(u->socks);
	u->socks = NULL;
	u->nsocks = 0;
}

/* The socket's two series, made the first time it is seen.  A socket is
 * its inode: a port bound again later is a new socket, with new series. */
static int sock_series(struct record_udp *u, const struct udp_sock_sample *x,
		       struct udp_series **out, struct errmsg *e)
{
	struct udp_series *v, *n;
	char labels[160];
	int err;

	for (size_t i = 0; i < u->nsocks; i++)
		if (u->socks[i].inode == x->inode && u->socks[i].v6 == x->v6) {
			*out = &u->socks[i];
			return 0;
		}
	v = realloc(u->socks, (u->nsocks + 1) * sizeof(*v));
	if (!v)
		return errmsg_set(e, ENOMEM, "out of memory");
	u->socks = v;
	n = &v[u->nsocks];
	memset(n, 0, sizeof(*n));
	n->inode = x->inode;
	n->v6 = x->v6;
	/* local is hex digits, dots, colons and brackets: no JSON escapes. */
	snprintf(labels, sizeof(labels), "{\"port\":%u,\"inode\":%llu,"
		 "\"local\":\"%s\",\"proto\":\"%s\"}", x->port,
		 (unsigned long long)x->inode, x->local, proto_name[x->v6]);
	err = loader_metric_series(u->loader, "udp_rx_queue_bytes", labels,
				   "bytes", SOCK_SOURCE, &n->depth_id, e);
	if (err == 0)
		err = loader_metric_series(u->loader, "udp_drops", labels,
					   "datagrams", SOCK_SOURCE, &n->drops_id, e);
	if (err < 0)
		return err;
	u->nsocks++;
	*out = n;
	return 0;
}

static int store_sock(struct record_udp *u, const struct udp_sock_sample *x,
		      struct errmsg *e)
{
	struct udp_series *s = NULL;
	int err = sock_series(u, x, &s, e);

	if (err == 0)
		err = loader_metric(u->loader, s->depth_id, x->ts,
				    (double)x->rx_queue_bytes, e);
	if (err == 0)
		err = loader_metric(u->loader, s->drops_id, x->ts,
				    (double)x->drops, e);
	u->rows += err == 0 ? 2 : 0;
	return err;
}

/* A host-wide series, made on first use. */
static int host_metric(struct record_udp *u, int64_t *id, const char *name,
		       const char *labels, const char *source, const char *unit,
		       uint64_t ts, double value, struct errmsg *e)
{
	int err = 0;

	if (!*id)
		err = loader_metric_series(u->loader, name, labels, unit, source,
					   id, e);
	if (err == 0)
		err = loader_metric(u->loader, *id, ts, value, e);
	u->rows += err == 0;
	return err;
}

static int store_host(struct record_udp *u, const struct udp_host_sample *h,
		      struct errmsg *e)
{
	static const char *const source[2] = { "sampler:/proc/net/snmp",
					       "sampler:/proc/net/snmp6" };
	char labels[32];
	int err = 0;

	for (int p = 0; p < 1 + h->have_v6 && err == 0; p++) {
		snprintf(labels, sizeof(labels), "{\"proto\":\"%s\"}", proto_name[p]);
		err = host_metric(u, &u->rcvbuf_id[p], "udp_rcvbuf_errors", labels,
				  source[p], "datagrams", h->ts,
				  (double)h->rcvbuf_errors[p], e);
		if (err == 0)
			err = host_metric(u, &u->in_errors_id[p], "udp_in_errors",
					  labels, source[p], "datagrams", h->ts,
					  (double)h->in_errors[p], e);
	}
	return err;
}

int record_udp_start(struct record_udp *u, struct errmsg *e)
{
	return udp_sampler_start(u->sampler, u->interval_ns, e);
}

void record_udp_stop(struct record_udp *u)
{
	udp_sampler_stop(u->sampler);
}

static int store_missed(struct record_udp *u, uint64_t ts, uint64_t count,
			struct errmsg *e)
{
	char labels[48];

	snprintf(labels, sizeof(labels), "{\"interval_ns\":%llu}",
		 (unsigned long long)u->interval_ns);
	return host_metric(u, &u->missed_id, "sampler_missed_intervals", labels,
			   "sampler:clock_nanosleep", "intervals", ts,
			   (double)count, e);
}

static int store(struct record_udp *u, const struct udp_reading *r,
		 struct errmsg *e)
{
	switch (r->kind) {
	case UDP_READING_SOCK:
		return store_sock(u, &r->u.sock, e);
	case UDP_READING_HOST:
		return store_host(u, &r->u.host, e);
	case UDP_READING_MISSED:
		return store_missed(u, r->u.missed.ts, r->u.missed.count, e);
	}
	return 0;
}

int record_udp_flush(struct record_udp *u, struct errmsg *e)
{
	const struct udp_batch *b;
	int failed = udp_sampler_take(u->sampler, &b), err = 0;

	for (size_t i = 0; i < b->n && err == 0; i++)
		err = store(u, &b->v[i], e);
	if (err == 0 && failed < 0)
		err = errmsg_set(e, -failed, "socket sampling stopped: cannot read "
				 "/proc/net/udp or /proc/net/snmp: %s",
				 strerror(-failed));
	return err;
}

void record_udp_summary(const struct record_udp *u, FILE *out)
{
	const struct udp_sampler *s = u->sampler;

	fprintf(out, "  udp sampling: %llu samples every %.3g ms (%llu by lookup, "
		"%llu by scan), %llu sockets, %llu metric rows, %.1f ms spent "
		"(%.1f us a sample)\n",
		(unsigned long long)s->samples, (double)u->interval_ns / 1e6,
		(unsigned long long)s->lookups, (unsigned long long)s->scans,
		(unsigned long long)u->nsocks, (unsigned long long)u->rows,
		(double)s->busy_ns / 1e6,
		s->samples ? (double)s->busy_ns / 1e3 / (double)s->samples : 0.0);
	if (s->missed)
		fprintf(out, "  MISSED %llu sampling intervals (the sampling thread "
			"was not run in time); the sampler_missed_intervals "
			"series says when\n", (unsigned long long)s->missed);
}
