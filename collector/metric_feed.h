/*
 * metric_feed: an application's live metric lines for record --flight's
 * --trigger metric:NAME>VALUE, read where the --control FIFO is read (the
 * drain thread, collector/drain.h), so that each line of a watched name
 * becomes a SPOOL_METRIC in order with the records, stamped with
 * CLOCK_MONOTONIC as it was read: a trigger when over its threshold, and
 * a sample for the dumps whose window holds it.
 *
 * Two sources, either or both:
 *   --metric-fifo PATH   a FIFO (made and opened as --control's is):
 *                        lines end in '\n'; a line longer than
 *                        METRIC_LINE_MAX - 1 bytes is malformed
 *   --metric-udp ADDR    a UDP socket bound to ADDR (127.0.0.1 unless
 *                        given): one or more lines a datagram, separated
 *                        by '\n'; a datagram over METRIC_DATAGRAM_MAX
 *                        bytes is one malformed line
 * Each line is "NAME VALUE" (decoder/metric_line.h).  Blank lines are
 * skipped.  Nothing a sender does can block the thread or stop the
 * recording: both fds are non-blocking, each wake reads a bounded
 * amount, and every line is counted as what it was.
 */
#ifndef FL_METRIC_FEED_H
#define FL_METRIC_FEED_H

#include <stdint.h>
#include <sys/socket.h>

#include "../common/errmsg.h"
#include "../decoder/metric_line.h"

/* The longest FIFO line kept, with its NUL. */
#define METRIC_LINE_MAX 256
/* The largest datagram read whole: one page of lines. */
#define METRIC_DATAGRAM_MAX 4096
/* Datagrams read a wake: the rings are drained between batches. */
#define METRIC_DATAGRAMS_A_WAKE 64

/* --trigger metric:NAME>VALUE: fires on a line "NAME V" with V > VALUE. */
struct metric_watch {
	char name[METRIC_NAME_MAX];
	double threshold;
};

struct metric_feed_config {
	int fifo_fd;		/* borrowed: non-blocking, or -1 */
	int udp_fd;		/* borrowed: bound, non-blocking, or -1 */
	const struct metric_watch *watch;	/* borrowed: nwatch of them */
	size_t nwatch;
};

/* Every line received, by what became of it; written by the drain
 * thread, read once it ended. */
struct metric_counts {
	uint64_t lines;		/* not blank: all the others' sum */
	uint64_t malformed;	/* not "NAME VALUE", or too long */
	uint64_t ignored;	/* a name no --trigger watches */
	uint64_t under;		/* at or under the threshold */
	uint64_t over;		/* over it: a trigger each */
	/* Not lines: --metric-udp's datagrams the kernel dropped, its
	 * receive buffer full (SK_MEMINFO_DROPS), read at the end. */
	uint64_t udp_dropped;
};

/* Where a line came from. */
enum metric_source { METRIC_FROM_FIFO, METRIC_FROM_UDP };

/* A line of a watched name. */
struct metric_sample {
	uint64_t mono_ns;	/* CLOCK_MONOTONIC: when it was read */
	uint32_t watch;		/* which of the watched: cfg.watch[watch] */
	uint16_t over;		/* value > its threshold: a trigger */
	uint16_t from;		/* enum metric_source */
	double value;
};

/* Called for each line of a watched name, at or under its threshold
 * too. */
typedef void metric_line_fn(void *ctx, const struct metric_sample *s);

struct metric_feed {
	struct metric_feed_config cfg;
	/* The FIFO's line read so far; len past the buffer: too long. */
	char line[METRIC_LINE_MAX];
	size_t len;
	struct metric_counts n;
};

void metric_feed_init(struct metric_feed *f, const struct metric_feed_config *c);

/* What the FIFO has (one read), and what the UDP socket has (up to
 * METRIC_DATAGRAMS_A_WAKE datagrams): each line of a watched name calls
 * fn. */
void metric_feed_read_fifo(struct metric_feed *f, metric_line_fn *fn,
			   void *ctx);
void metric_feed_read_udp(struct metric_feed *f, metric_line_fn *fn,
			  void *ctx);

/* At the end: what the kernel dropped of --metric-udp (n.udp_dropped). */
void metric_feed_finish(struct metric_feed *f);

/* The receive buffer asked of --metric-udp's socket (the kernel caps it
 * at net.core.rmem_max): lines sent faster than the drain thread reads
 * them wait there, and what does not fit is dropped and counted. */
#define METRIC_UDP_RCVBUF (1 << 20)

/* --metric-udp's [ADDR:]PORT: ADDR an IPv4 address, or an IPv6 one in
 * brackets ([::1]:9125); 127.0.0.1 when left out.  0 or -EINVAL. */
int metric_udp_parse(const char *spec, struct sockaddr_storage *sa,
		     socklen_t *len);
/* A non-blocking UDP socket bound to sa, into *fd (the caller closes
 * it).  0 or -errno with e saying why and what to do; spec is the
 * option's text, for the message. */
int metric_udp_bind(const struct sockaddr_storage *sa, socklen_t len,
		    const char *spec, int *fd, struct errmsg *e);

#endif
