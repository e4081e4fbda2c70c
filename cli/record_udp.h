/*
 * record_udp: the record command's socket sampling (--udp-port,
 * --socket).  collector/'s udp_sampler reads the chosen sockets and the
 * host's UDP counters on a thread of its own; at each round of the
 * recorder's loop this takes what it read and writes it as metric rows
 * through the loader (the database belongs to that loop's thread), every
 * sample, changed or not, so the series show when they were read:
 *
 *   udp_rx_queue_bytes  {"port":N,"inode":N,"local":"ADDR:PORT","proto":P}
 *   udp_drops           the same labels
 *   udp_rcvbuf_errors   {"proto":"udp"} and {"proto":"udp6"}
 *   udp_in_errors       the same
 *   sampler_missed_intervals  {"interval_ns":N}: a row at each timer
 *                       expiry that came after intervals went unsampled
 *
 * Glue only: /proc parsing is the collector's, writing the loader's.
 */
#ifndef FL_RECORD_UDP_H
#define FL_RECORD_UDP_H

#include <stdint.h>
#include <stdio.h>

#include "../collector/udp_sampler.h"
#include "../schema/loader.h"

struct udp_series {
	uint64_t inode;
	int v6;
	int64_t depth_id, drops_id;	/* metric_series rows */
};

struct record_udp {
	struct udp_sampler *sampler;	/* borrowed: opened by the command */
	struct loader *loader;		/* borrowed */
	uint64_t interval_ns;
	struct udp_series *socks;	/* owned: one per socket seen */
	size_t nsocks;
	int64_t rcvbuf_id[2], in_errors_id[2];	/* [udp, udp6]; 0: not yet */
	int64_t missed_id;		/* 0: not yet */
	uint64_t rows;			/* metric rows written */
};

void record_udp_init(struct record_udp *u, struct udp_sampler *s,
		     struct loader *l, uint64_t interval_ns);
void record_udp_release(struct record_udp *u);

/* Starts and stops the sampler's thread.  Start: 0 or -errno with e. */
int record_udp_start(struct record_udp *u, struct errmsg *e);
void record_udp_stop(struct record_udp *u);

/* Writes what the sampler read since the last call.  0 or -errno with e
 * (the loader's, or the sampler's once its thread failed). */
int record_udp_flush(struct record_udp *u, struct errmsg *e);

/* The summary's lines about sampling, once stopped. */
void record_udp_summary(const struct record_udp *u, FILE *out);

#endif
