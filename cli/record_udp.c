#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/clock.h"
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

struct scan_ctx {
	struct record_udp *u;
	struct errmsg *e;
};

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

static int on_sock(void *ctx, const struct udp_sock_sample *x)
{
	struct scan_ctx *c = ctx;
	struct udp_series *s = NULL;
	int err = sock_series(c->u, x, &s, c->e);

	if (err == 0)
		err = loader_metric(c->u->loader, s->depth_id, x->ts,
				    (double)x->rx_queue_bytes, c->e);
	if (err == 0)
		err = loader_metric(c->u->loader, s->drops_id, x->ts,
				    (double)x->drops, c->e);
	c->u->rows += err == 0 ? 2 : 0;
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

static int sample_host(struct record_udp *u, struct errmsg *e)
{
	static const char *const source[2] = { "sampler:/proc/net/snmp",
					       "sampler:/proc/net/snmp6" };
	struct udp_host_sample h;
	char labels[32];
	int err = udp_sampler_host(u->sampler, &h);

	if (err < 0)
		return errmsg_set(e, -err, "cannot read the UDP counters of "
				  "/proc/net/snmp: %s", strerror(-err));
	for (int p = 0; p < 1 + h.have_v6 && err == 0; p++) {
		snprintf(labels, sizeof(labels), "{\"proto\":\"%s\"}", proto_name[p]);
		err = host_metric(u, &u->rcvbuf_id[p], "udp_rcvbuf_errors", labels,
				  source[p], "datagrams", h.ts,
				  (double)h.rcvbuf_errors[p], e);
		if (err == 0)
			err = host_metric(u, &u->in_errors_id[p], "udp_in_errors",
					  labels, source[p], "datagrams", h.ts,
					  (double)h.in_errors[p], e);
	}
	return err;
}

int record_udp_sample(struct record_udp *u, uint64_t missed, struct errmsg *e)
{
	uint64_t start = monotonic_ns();
	struct scan_ctx c = { u, e };
	int err = udp_sampler_scan(u->sampler, on_sock, &c);

	if (err < 0 && !e->text[0])
		return errmsg_set(e, -err, "cannot read /proc/net/udp: %s",
				  strerror(-err));
	if (err == 0)
		err = sample_host(u, e);
	if (err == 0 && missed) {
		char labels[48];

		snprintf(labels, sizeof(labels), "{\"interval_ns\":%llu}",
			 (unsigned long long)u->interval_ns);
		err = host_metric(u, &u->missed_id, "sampler_missed_intervals",
				  labels, "sampler:timerfd", "intervals",
				  realtime_ns(), (double)missed, e);
	}
	u->samples++;
	u->missed += missed;
	u->busy_ns += monotonic_ns() - start;
	return err;
}

void record_udp_summary(const struct record_udp *u, FILE *out)
{
	fprintf(out, "  udp sampling: %llu samples every %.3g ms, %llu sockets, "
		"%llu metric rows, %.1f ms spent (%.1f us a sample)\n",
		(unsigned long long)u->samples, (double)u->interval_ns / 1e6,
		(unsigned long long)u->nsocks, (unsigned long long)u->rows,
		(double)u->busy_ns / 1e6,
		u->samples ? (double)u->busy_ns / 1e3 / (double)u->samples : 0.0);
	if (u->missed)
		fprintf(out, "  MISSED %llu sampling intervals (faultline was busy); "
			"the sampler_missed_intervals series says when\n",
			(unsigned long long)u->missed);
}
