#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "udp.h"

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
	free(u->held);
	memset(u, 0, sizeof(*u));
}

/* The socket's two series, made the first time it is seen.  A socket is
 * its inode: a port bound again later is a new socket, with new series. */
static int sock_series(struct record_udp *u, const struct udp_sock_line *x,
		       struct udp_series **out, struct errmsg *e)
{
	struct udp_series *n;
	char labels[160];
	int err;

	for (size_t i = 0; i < u->nsocks; i++)
		if (u->socks[i].inode == x->inode && u->socks[i].v6 == x->v6) {
			*out = &u->socks[i];
			return 0;
		}
	if (ARRAY_RESERVE(u->socks, u->socks_cap, u->nsocks + 1) < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	n = &u->socks[u->nsocks];
	memset(n, 0, sizeof(*n));
	n->inode = x->inode;
	n->v6 = x->v6;
	/* The stored label object (common/labels.h): keys sorted, values
	 * strings.  local is hex digits, dots, colons and brackets: no JSON
	 * escapes. */
	snprintf(labels, sizeof(labels), "{\"inode\":\"%llu\",\"local\":\"%s\","
		 "\"port\":\"%u\",\"proto\":\"%s\"}", (unsigned long long)x->inode,
		 x->local, x->port, proto_name[x->v6]);
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

/* The one place a reading becomes a row (the loader makes its ts from
 * the CLOCK_MONOTONIC time, as for every row). */
static int put_row(struct record_udp *u, int64_t series_id, uint64_t mono_ns,
		   double value, struct errmsg *e)
{
	int err = loader_metric(u->loader, series_id, mono_ns, value, e);

	u->rows += err == 0;
	return err;
}

static int store_sock(struct record_udp *u, uint64_t mono_ns,
		      const struct udp_sock_line *x, struct errmsg *e)
{
	struct udp_series *s = NULL;
	int err = sock_series(u, x, &s, e);

	if (err == 0)
		err = put_row(u, s->depth_id, mono_ns, (double)x->rx_queue_bytes, e);
	if (err == 0)
		err = put_row(u, s->drops_id, mono_ns, (double)x->drops, e);
	return err;
}

/* A host-wide series, made on first use. */
static int host_metric(struct record_udp *u, int64_t *id, const char *name,
		       const char *labels, const char *source, const char *unit,
		       uint64_t mono_ns, double value, struct errmsg *e)
{
	int err = 0;

	if (!*id)
		err = loader_metric_series(u->loader, name, labels, unit, source,
					   id, e);
	if (err == 0)
		err = put_row(u, *id, mono_ns, value, e);
	return err;
}

static int store_host(struct record_udp *u, uint64_t mono_ns,
		      const struct udp_host_counters *h, struct errmsg *e)
{
	static const char *const source[2] = { "sampler:/proc/net/snmp",
					       "sampler:/proc/net/snmp6" };
	char labels[32];
	int err = 0;

	for (int p = 0; p < 1 + h->have_v6 && err == 0; p++) {
		snprintf(labels, sizeof(labels), "{\"proto\":\"%s\"}", proto_name[p]);
		err = host_metric(u, &u->rcvbuf_id[p], "udp_rcvbuf_errors", labels,
				  source[p], "datagrams", mono_ns,
				  (double)h->rcvbuf_errors[p], e);
		if (err == 0)
			err = host_metric(u, &u->in_errors_id[p], "udp_in_errors",
					  labels, source[p], "datagrams", mono_ns,
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

static int store_missed(struct record_udp *u, uint64_t mono_ns, uint64_t count,
			struct errmsg *e)
{
	char labels[48];

	snprintf(labels, sizeof(labels), "{\"interval_ns\":\"%llu\"}",
		 (unsigned long long)u->interval_ns);
	return host_metric(u, &u->missed_id, "sampler_missed_intervals", labels,
			   "sampler:clock_nanosleep", "intervals", mono_ns,
			   (double)count, e);
}

static int store(struct record_udp *u, const struct udp_reading *r,
		 struct errmsg *e)
{
	switch (r->kind) {
	case UDP_READING_SOCK:
		return store_sock(u, r->mono_ns, &r->u.sock, e);
	case UDP_READING_HOST:
		return store_host(u, r->mono_ns, &r->u.host, e);
	case UDP_READING_MISSED:
		return store_missed(u, r->mono_ns, r->u.missed, e);
	}
	return 0;
}

/* Keeps a reading newer than the round's watermark for a later flush. */
static int hold(struct record_udp *u, const struct udp_reading *r)
{
	if (ARRAY_RESERVE(u->held, u->held_cap, u->nheld + 1) < 0)
		return -ENOMEM;
	u->held[u->nheld++] = *r;
	return 0;
}

/* Stores the held readings at or before watermark, keeps the rest. */
static int store_held(struct record_udp *u, uint64_t watermark,
		      struct errmsg *e)
{
	size_t kept = 0;
	int err = 0;

	for (size_t i = 0; i < u->nheld && err == 0; i++) {
		if (u->held[i].mono_ns <= watermark)
			err = store(u, &u->held[i], e);
		else
			u->held[kept++] = u->held[i];
	}
	u->nheld = err == 0 ? kept : u->nheld;
	return err;
}

int record_udp_flush(struct record_udp *u, uint64_t watermark, struct errmsg *e)
{
	const struct udp_reading *v;
	size_t n;
	int failed = udp_sampler_take(u->sampler, &v, &n), err;

	err = store_held(u, watermark, e);
	for (size_t i = 0; i < n && err == 0; i++)
		err = v[i].mono_ns <= watermark ? store(u, &v[i], e) :
		      hold(u, &v[i]) < 0 ? errmsg_set(e, ENOMEM, "out of memory") : 0;
	if (err == 0 && failed < 0)
		err = errmsg_set(e, -failed, "socket sampling stopped: cannot read "
				 "/proc/net/udp or /proc/net/snmp: %s",
				 strerror(-failed));
	return err;
}
