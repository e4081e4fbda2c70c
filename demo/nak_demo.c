/*
 * nak_demo: the stall faultline is built to explain, in one process.
 *
 * A publisher thread (nak-pub) sends sequenced datagrams at a steady rate
 * over loopback to a receiver thread (nak-rx) whose socket has a small
 * receive buffer.  The receiver logs each gap in the sequence (a NAK)
 * with the wall-clock time it noticed it.  Partway through, the receiver
 * reads a file whose pages were dropped from the page cache, in random
 * order with read-around off: one major fault after another, until it has
 * been held up as long as the story says (--stall-ms, 150 ms) and its
 * socket has dropped.  The NAK that follows is what an application would
 * see; faultline shows why.
 *
 * The stall is made, not left to the disk: a fault on a cold page costs
 * 20 us to several ms depending on the device and the host's cache, so
 * the receiver takes faults until the time is up, however many that
 * takes.  At --rate datagrams a second a 150 ms stall brings 300 of them,
 * while the buffer (--rcvbuf, doubled by the kernel) holds a few dozen:
 * the overflow follows on any disk, fast or slow, idle or busy.
 *
 * Usage: nak_demo --port P --naks FILE --cold FILE --info FILE
 *                 [--rate N] [--ms N] [--stall-at-ms N] [--stall-ms N]
 *                 [--cold-pages N] [--rcvbuf BYTES]
 *
 * --naks gets CSV "ts,gap": ns since the epoch (CLOCK_REALTIME), and how
 * many datagrams were missing.  --info gets key=value lines: port, the
 * receiver's tid, its buffer size (rcvbuf, as the kernel doubled it), the
 * stall's start and end (ns, CLOCK_REALTIME), how many of the file's
 * pages were still cached before it (0 is what makes the faults major),
 * the major faults the kernel counted for the receiver during the stall,
 * the passes over the file it took, datagrams sent during the stall and
 * the socket's drops at its end, datagrams sent and received, NAKs, and
 * the socket's drops.
 *
 * Exit status: 0 when the stall overflowed the socket; 1 when the machine
 * could not make it do so (said on stderr); 2 on a usage or system error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct opts {
	unsigned port;
	const char *naks, *cold, *info;
	long rate;		/* datagrams a second */
	long ms;		/* how long the publisher sends */
	long stall_at_ms;	/* when the receiver reads the cold file */
	long stall_ms;		/* how long it stalls at least */
	long cold_pages;
	int rcvbuf;
};

struct nak {
	uint64_t ts;
	uint64_t gap;
};

struct demo {
	struct opts o;
	int rx, tx;
	struct sockaddr_in to;
	int cold_fd;
	volatile const char *cold;	/* the mapped file */
	size_t page;
	long *order;		/* a permutation of the file's pages; malloc() */
	/* Results. */
	pid_t rx_tid;
	volatile int done;		/* the publisher sent its last */
	/* CLOCK_MONOTONIC ns when the receiver's stall ended; 0 before.
	 * The publisher sends on past it, so that datagrams after the ones
	 * the full socket dropped arrive and show the gap (a NAK), however
	 * late a loaded machine ran either thread. */
	uint64_t stall_end_mono;
	unsigned rcvbuf;		/* as the kernel set it */
	uint64_t sent, received, stall_start, stall_end;
	long cold_resident;
	long stall_faults;	/* the kernel's major-fault count, the stall's */
	long stall_passes;	/* over the file, each in a new order */
	uint64_t stall_sent;	/* datagrams sent while the receiver stalled */
	unsigned stall_drops;	/* the socket's drops when the stall ended */
	struct nak *naks;
	size_t nnaks, capnaks;
};

static void die(const char *what)
{
	fprintf(stderr, "nak_demo: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t ns_of(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void sleep_until(uint64_t mono_ns)
{
	struct timespec t = { (time_t)(mono_ns / 1000000000ull),
			      (long)(mono_ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
}

/*
 * The cold file: written, synced (dirty pages cannot be dropped), dropped
 * from the page cache, mapped with readahead off, so that each page read
 * later is a major fault that waits for the disk.
 */
static void make_cold(struct demo *d)
{
	size_t len = (size_t)d->o.cold_pages * d->page;
	char *buf = malloc(d->page);
	int fd = open(d->o.cold, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (!buf || fd < 0)
		die(d->o.cold);
	for (long i = 0; i < d->o.cold_pages; i++) {
		memset(buf, (int)('a' + i % 26), d->page);
		if (write(fd, buf, d->page) != (ssize_t)d->page)
			die("write");
	}
	if (fsync(fd) < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		die("dropping the cold file's pages");
	d->cold = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (d->cold == MAP_FAILED || madvise((void *)d->cold, len, MADV_RANDOM) < 0)
		die("mmap");
	d->cold_fd = fd;
	d->order = malloc((size_t)d->o.cold_pages * sizeof(*d->order));
	if (!d->order)
		die("malloc");
	for (long i = 0; i < d->o.cold_pages; i++)
		d->order[i] = i;
	free(buf);
}

static long resident_pages(struct demo *d)
{
	size_t n = (size_t)d->o.cold_pages;
	unsigned char *v = malloc(n);
	long in = 0;

	if (!v || mincore((void *)d->cold, n * d->page, v) < 0)
		die("mincore");
	for (size_t i = 0; i < n; i++)
		in += v[i] & 1;
	free(v);
	return in;
}

/* Is the receiver's stall over by 100 ms at mono_ns (or the demo past
 * its last minute, stall or not)? */
static int after_stall(struct demo *d, uint64_t mono_ns, uint64_t give_up)
{
	uint64_t end = __atomic_load_n(&d->stall_end_mono, __ATOMIC_ACQUIRE);

	return (end && mono_ns >= end + 100000000ull) || mono_ns >= give_up;
}

static void *publisher(void *arg)
{
	struct demo *d = arg;
	uint64_t period = 1000000000ull / (uint64_t)d->o.rate;
	uint64_t next = ns_of(CLOCK_MONOTONIC);
	uint64_t n = (uint64_t)(d->o.rate * d->o.ms / 1000);
	uint64_t give_up = next + 60ull * 1000000000ull;
	char msg[64];

	pthread_setname_np(pthread_self(), "nak-pub");
	memset(msg, 0, sizeof(msg));
	for (uint64_t seq = 1; seq <= n || !after_stall(d, next, give_up); seq++) {
		next += period;
		sleep_until(next);
		memcpy(msg, &seq, sizeof(seq));
		if (sendto(d->tx, msg, sizeof(msg), 0, (struct sockaddr *)&d->to,
			   sizeof(d->to)) < 0)
			die("sendto");
		__atomic_store_n(&d->sent, seq, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&d->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void log_nak(struct demo *d, uint64_t ts, uint64_t gap)
{
	if (d->nnaks == d->capnaks) {
		d->capnaks = d->capnaks ? 2 * d->capnaks : 64;
		d->naks = realloc(d->naks, d->capnaks * sizeof(*d->naks));
		if (!d->naks)
			die("realloc");
	}
	d->naks[d->nnaks++] = (struct nak){ ts, gap };
}

/* Shuffles the page order (Fisher-Yates, xorshift64): no two pages read
 * in a row are neighbours, so no read-ahead can serve the next one. */
static void shuffle(long *v, long n, uint64_t *seed)
{
	for (long i = n - 1; i > 0; i--) {
		long j, t;

		*seed ^= *seed << 13;
		*seed ^= *seed >> 7;
		*seed ^= *seed << 17;
		j = (long)(*seed % (uint64_t)(i + 1));
		t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

/*
 * Makes every page of the file cold again after a pass: MADV_DONTNEED
 * takes them out of this process's page tables, and POSIX_FADV_DONTNEED
 * can then drop them from the page cache (they are clean, and no longer
 * mapped).
 */
static void drop_cold(struct demo *d)
{
	size_t len = (size_t)d->o.cold_pages * d->page;

	if (madvise((void *)d->cold, len, MADV_DONTNEED) < 0 ||
	    posix_fadvise(d->cold_fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		die("dropping the cold file's pages again");
}

static unsigned socket_drops(struct demo *d)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(d->rx, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0)
		die("SO_MEMINFO");
	return mem[SK_MEMINFO_DROPS];
}

static long major_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		die("getrusage");
	return ru.ru_majflt;
}

/*
 * The stall: one major fault after another on the cold file's pages, until
 * it has lasted --stall-ms and the socket has dropped.  A stall that long
 * overflows the buffer; should a machine still not drop within 20 times
 * that (or 10 s), the demo stops stalling and says so.
 */
static void read_cold(struct demo *d)
{
	uint64_t t0, now, give_up, seed, sent0;
	uint64_t want = (uint64_t)d->o.stall_ms * 1000000ull;
	unsigned drops0 = socket_drops(d), drops = drops0;
	long majflt0 = major_faults();
	unsigned sum = 0;

	d->cold_resident = resident_pages(d);
	/* The stall's span, as stored, holds the whole of want. */
	d->stall_start = ns_of(CLOCK_REALTIME);
	t0 = now = ns_of(CLOCK_MONOTONIC);
	give_up = t0 + (want * 20 < 10000000000ull ? want * 20 : 10000000000ull);
	seed = t0 | 1;
	sent0 = __atomic_load_n(&d->sent, __ATOMIC_RELAXED);
	while (now < t0 + want || (drops == drops0 && now < give_up)) {
		if (d->stall_passes++)
			drop_cold(d);
		shuffle(d->order, d->o.cold_pages, &seed);
		for (long i = 0; i < d->o.cold_pages; i++) {
			sum += (unsigned char)d->cold[(size_t)d->order[i] * d->page];
			now = ns_of(CLOCK_MONOTONIC);
			if (now < t0 + want)
				continue;
			drops = socket_drops(d);
			if (drops != drops0 || now >= give_up)
				break;
		}
	}
	d->stall_end = ns_of(CLOCK_REALTIME);
	d->stall_faults = major_faults() - majflt0;
	d->stall_sent = __atomic_load_n(&d->sent, __ATOMIC_RELAXED) - sent0;
	d->stall_drops = drops - drops0;
	if (sum == 0)
		fprintf(stderr, "nak_demo: the cold file read back as zeros\n");
}

/* Receives until the publisher is done and the socket stays quiet. */
static void *receiver(void *arg)
{
	struct demo *d = arg;
	uint64_t expect = 1, start = ns_of(CLOCK_MONOTONIC);
	uint64_t stall_at = start + (uint64_t)d->o.stall_at_ms * 1000000ull;
	int stalled = 0;
	char msg[64];

	pthread_setname_np(pthread_self(), "nak-rx");
	d->rx_tid = (pid_t)syscall(SYS_gettid);
	for (;;) {
		uint64_t seq;
		ssize_t n = recv(d->rx, msg, sizeof(msg), 0);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    __atomic_load_n(&d->done, __ATOMIC_ACQUIRE))
			break;	/* all sent, and quiet for the timeout since */
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (n < (ssize_t)sizeof(seq))
			die("recv");
		memcpy(&seq, msg, sizeof(seq));
		d->received++;
		if (seq > expect)
			log_nak(d, ns_of(CLOCK_REALTIME), seq - expect);
		if (seq >= expect)
			expect = seq + 1;
		if (!stalled && ns_of(CLOCK_MONOTONIC) >= stall_at) {
			stalled = 1;
			read_cold(d);
			__atomic_store_n(&d->stall_end_mono, ns_of(CLOCK_MONOTONIC),
					 __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "naks", required_argument, NULL, 'n' },
		{ "cold", required_argument, NULL, 'c' },
		{ "info", required_argument, NULL, 'i' },
		{ "rate", required_argument, NULL, 'r' },
		{ "ms", required_argument, NULL, 'm' },
		{ "stall-at-ms", required_argument, NULL, 's' },
		{ "stall-ms", required_argument, NULL, 'l' },
		{ "cold-pages", required_argument, NULL, 'g' },
		{ "rcvbuf", required_argument, NULL, 'b' },
		{ 0, 0, 0, 0 },
	};
	int c;

	/* 8192 pages (32 MiB): one pass lasts 150 ms at 18 us a fault; a
	 * faster disk takes more passes. */
	*o = (struct opts){ .rate = 2000, .ms = 1500, .stall_at_ms = 600,
			    .stall_ms = 150, .cold_pages = 8192, .rcvbuf = 16384 };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o->port = (unsigned)atoi(optarg); break;
		case 'n': o->naks = optarg; break;
		case 'c': o->cold = optarg; break;
		case 'i': o->info = optarg; break;
		case 'r': o->rate = atol(optarg); break;
		case 'm': o->ms = atol(optarg); break;
		case 's': o->stall_at_ms = atol(optarg); break;
		case 'l': o->stall_ms = atol(optarg); break;
		case 'g': o->cold_pages = atol(optarg); break;
		case 'b': o->rcvbuf = atoi(optarg); break;
		default: exit(2);
		}
	}
	if (!o->port || o->port > 65535 || !o->naks || !o->cold || !o->info ||
	    o->rate <= 0 || o->ms <= 0 || o->stall_ms <= 0 || o->cold_pages <= 0 ||
	    o->rcvbuf <= 0) {
		fprintf(stderr, "usage: nak_demo --port P --naks FILE --cold FILE "
			"--info FILE [--rate N] [--ms N] [--stall-at-ms N] "
			"[--stall-ms N] [--cold-pages N] [--rcvbuf BYTES]\n");
		exit(2);
	}
}

static void open_sockets(struct demo *d)
{
	struct timeval quiet = { 0, 300000 };

	d->to = (struct sockaddr_in){ .sin_family = AF_INET,
				      .sin_port = htons((uint16_t)d->o.port) };
	d->to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d->rx = socket(AF_INET, SOCK_DGRAM, 0);
	d->tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (d->rx < 0 || d->tx < 0 ||
	    setsockopt(d->rx, SOL_SOCKET, SO_RCVBUF, &d->o.rcvbuf,
		       sizeof(d->o.rcvbuf)) < 0 ||
	    setsockopt(d->rx, SOL_SOCKET, SO_RCVTIMEO, &quiet, sizeof(quiet)) < 0 ||
	    bind(d->rx, (struct sockaddr *)&d->to, sizeof(d->to)) < 0)
		die("socket");
}

static void write_results(struct demo *d)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);
	FILE *f = fopen(d->o.naks, "w");

	if (!f)
		die(d->o.naks);
	fprintf(f, "ts,gap\n");
	for (size_t i = 0; i < d->nnaks; i++)
		fprintf(f, "%llu,%llu\n", (unsigned long long)d->naks[i].ts,
			(unsigned long long)d->naks[i].gap);
	if (fclose(f))
		die(d->o.naks);
	if (getsockopt(d->rx, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0)
		die("SO_MEMINFO");
	d->rcvbuf = mem[SK_MEMINFO_RCVBUF];
	f = fopen(d->o.info, "w");
	if (!f)
		die(d->o.info);
	fprintf(f, "port=%u\nrx_tid=%d\nrcvbuf=%u\nstall_start=%llu\n"
		"stall_end=%llu\ncold_resident=%ld\nstall_faults=%ld\n"
		"stall_passes=%ld\nstall_sent=%llu\nstall_drops=%u\n"
		"sent=%llu\nreceived=%llu\nnaks=%zu\ndrops=%u\n", d->o.port,
		(int)d->rx_tid, mem[SK_MEMINFO_RCVBUF],
		(unsigned long long)d->stall_start, (unsigned long long)d->stall_end,
		d->cold_resident, d->stall_faults, d->stall_passes,
		(unsigned long long)d->stall_sent, d->stall_drops,
		(unsigned long long)d->sent, (unsigned long long)d->received,
		d->nnaks, mem[SK_MEMINFO_DROPS]);
	if (fclose(f))
		die(d->o.info);
}

int main(int argc, char **argv)
{
	struct demo d;
	pthread_t pub, rx;

	memset(&d, 0, sizeof(d));
	parse(argc, argv, &d.o);
	d.page = (size_t)sysconf(_SC_PAGESIZE);
	make_cold(&d);
	open_sockets(&d);
	if (pthread_create(&rx, NULL, receiver, &d) ||
	    pthread_create(&pub, NULL, publisher, &d))
		die("pthread_create");
	pthread_join(pub, NULL);
	pthread_join(rx, NULL);
	write_results(&d);
	printf("nak_demo: the receiver stalled %.1f ms in %ld major faults on "
	       "cold pages (random order, %ld pass%s over %ld pages); %llu "
	       "datagrams came meanwhile into a %u-byte buffer, which dropped "
	       "%u\n", (double)(d.stall_end - d.stall_start) / 1e6,
	       d.stall_faults, d.stall_passes, d.stall_passes == 1 ? "" : "es",
	       d.o.cold_pages, (unsigned long long)d.stall_sent, d.rcvbuf,
	       d.stall_drops);
	printf("nak_demo: sent %llu, received %llu, %zu NAKs\n",
	       (unsigned long long)d.sent, (unsigned long long)d.received, d.nnaks);
	if (!d.stall_drops || !d.nnaks) {
		fprintf(stderr, "nak_demo: this machine could not make the receiver's "
			"socket overflow: %u drops, %zu NAKs after a %.1f ms stall; "
			"try a longer one (--stall-ms) or a smaller buffer (--rcvbuf)\n",
			d.stall_drops, d.nnaks,
			(double)(d.stall_end - d.stall_start) / 1e6);
		return 1;
	}
	return 0;
}
