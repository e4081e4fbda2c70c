/*
 * udp: the record engine's socket sampling (record --udp-port,
 * --socket).  collector/'s udp_sampler reads the chosen sockets and the
 * host's UDP counters on a thread of its own; at each round of the
 * pipeline this takes what it read and writes it as metric rows through
 * the loader (the database belongs to the pipeline's thread), every
 * sample, changed or not, so the series show when they were read:
 *
 *   udp_rx_queue_bytes  {"port":N,"inode":N,"local":"ADDR:PORT","proto":P}
 *   udp_drops           the same labels
 *   udp_rcvbuf_errors   {"proto":"udp"} and {"proto":"udp6"}
 *   udp_in_errors       the same
 *   sampler_missed_intervals  {"interval_ns":N}: a row at each timer
 *                       expiry that came after intervals went unsampled
 *
 * Glue only: /proc parsing is the decoder's, reading the collector's,
 * writing the loader's.  The readings carry CLOCK_MONOTONIC times, made
 * wall-clock ts by the loader like every row's.  The sampler's thread
 * runs ahead of the pipeline, whose rounds may lag behind the drain
 * thread: a reading newer than the round's watermark waits here for a
 * later round, so the session's clock anchors up to its time are known
 * when it is stored (decoder/clock_map.h).
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
	size_t nsocks, socks_cap;
	int64_t rcvbuf_id[2], in_errors_id[2];	/* [udp, udp6]; 0: not yet */
	int64_t missed_id;		/* 0: not yet */
	uint64_t rows;			/* metric rows written */
	struct udp_reading *held;	/* owned: newer than the last watermark */
	size_t nheld, held_cap;
};

void record_udp_init(struct record_udp *u, struct udp_sampler *s,
		     struct loader *l, uint64_t interval_ns);
void record_udp_release(struct record_udp *u);

/* Starts and stops the sampler's thread.  Start: 0 or -errno with e. */
int record_udp_start(struct record_udp *u, struct errmsg *e);
void record_udp_stop(struct record_udp *u);

/* Writes what the sampler read up to watermark (CLOCK_MONOTONIC ns;
 * UINT64_MAX: all of it), keeping the rest.  0 or -errno with e (the
 * loader's, or the sampler's once its thread failed). */
int record_udp_flush(struct record_udp *u, uint64_t watermark,
		     struct errmsg *e);

#endif
