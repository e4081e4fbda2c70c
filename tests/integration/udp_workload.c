/*
 * udp_workload: floods a UDP socket with a tiny receive buffer over
 * loopback, never reading it, then reports the kernel's own drop count
 * for that socket (the drops column of /proc/net/udp).
 *
 * Usage: udp_workload INFO_FILE [DATAGRAMS]   (default 2000)
 * INFO_FILE gets lines port=N, drops=N, sent=N
 *
 * Or, in stages that a test steps through (see staged()):
 *        udp_workload --staged INFO_FILE DIR FILL OVERFLOW
 */
#include <arpa/inet.h>
#include <linux/sock_diag.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAYLOAD 200	/* bytes of each datagram sent */

static void die(const char *what)
{
	fprintf(stderr, "udp_workload: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* /proc/net/udp: "sl local_address rem_address st tx_queue:rx_queue ...
 * ... drops", padded with spaces, the local port in hex after the colon;
 * drops is the last field. */
static long drops_of(unsigned port)
{
	char line[512], want[16];
	FILE *f = fopen("/proc/net/udp", "r");
	long drops = -1;

	if (!f)
		die("/proc/net/udp");
	snprintf(want, sizeof(want), ":%04X ", port);
	while (fgets(line, sizeof(line), f)) {
		char *local = strchr(line, ':');

		if (!local || !(local = strchr(local + 1, ':')) ||
		    strncmp(local, want, strlen(want)))
			continue;
		for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n"))
			drops = atol(tok);
	}
	fclose(f);
	return drops;
}

/* Appends lines to the info file in one write, "stage=N" last, so a
 * reader that sees the stage sees the lines before it. */
static void info_add(const char *path, const char *lines)
{
	FILE *f = fopen(path, "a");

	if (!f || fputs(lines, f) < 0 || fclose(f))
		die(path);
}

/* Waits for DIR/NAME to exist; gives up after ten minutes (whoever
 * started it died: a test, or bench/collector/udp_sampling.sh). */
static void wait_for(const char *dir, const char *name)
{
	char path[512];
	struct timespec t = { 0, 5000000 };

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (int i = 0; i < 120000; i++) {
		if (access(path, F_OK) == 0)
			return;
		nanosleep(&t, NULL);
	}
	fprintf(stderr, "udp_workload: no %s after ten minutes\n", path);
	exit(3);
}

/* SO_MEMINFO's bytes charged to fd's receive buffer, and its drops. */
static void queue_and_drops(int fd, uint32_t *queued, uint32_t *drops)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0)
		die("SO_MEMINFO");
	*queued = mem[SK_MEMINFO_RMEM_ALLOC];
	*drops = mem[SK_MEMINFO_DROPS];
}

/* What one PAYLOAD-byte datagram over loopback is charged to a receive
 * buffer, measured on a socket of its own. */
static uint32_t datagram_truesize(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	char payload[PAYLOAD] = { 0 };
	struct pollfd p = { .events = POLLIN };
	uint32_t queued, drops;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p.fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (p.fd < 0 || bind(p.fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(p.fd, (struct sockaddr *)&a, &alen) < 0 ||
	    sendto(p.fd, payload, sizeof(payload), 0, (struct sockaddr *)&a,
		   alen) < 0 || poll(&p, 1, 10000) != 1)
		die("probe socket");
	queue_and_drops(p.fd, &queued, &drops);
	close(p.fd);
	return queued;
}

/*
 * Sends n datagrams to rx (bound at to) and waits until each one is
 * queued there or counted as dropped: loopback delivery runs in a
 * softirq, which a busy machine may leave to ksoftirqd.  Gives up after
 * ten seconds.
 */
static void send_n(int tx, int rx, const struct sockaddr_in *to, int n)
{
	char payload[PAYLOAD];
	struct timespec ms = { 0, 1000000 };
	uint32_t unit = datagram_truesize(), q0, d0, q, d;

	memset(payload, 'u', sizeof(payload));
	queue_and_drops(rx, &q0, &d0);
	for (int i = 0; i < n; i++)
		if (sendto(tx, payload, sizeof(payload), 0,
			   (const struct sockaddr *)to, sizeof(*to)) < 0)
			die("sendto");
	for (int waited = 0; waited < 10000; waited++) {
		queue_and_drops(rx, &q, &d);
		if ((q - q0) / unit + (d - d0) >= (uint32_t)n)
			return;
		nanosleep(&ms, NULL);
	}
	fprintf(stderr, "udp_workload: %d datagrams sent, not all delivered "
		"after 10 s\n", n);
	exit(3);
}

/* The socket's own view (SO_MEMINFO): bytes charged to its receive
 * buffer, the buffer's size, and its drops, as the info file's lines. */
static void meminfo_lines(int fd, int stage, char *out, size_t n)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0)
		die("SO_MEMINFO");
	snprintf(out, n, "depth%d=%u\ndrops%d=%u\nrcvbuf=%u\nstage=%d\n", stage,
		 mem[SK_MEMINFO_RMEM_ALLOC], stage, mem[SK_MEMINFO_DROPS],
		 mem[SK_MEMINFO_RCVBUF], stage);
}

/*
 * For the socket sampler's test, each stage ends by writing its lines
 * and waits for the test's go file:
 *   1. picks a free port (binds port 0, closes the socket); port=P.
 *      Waits for DIR/go1: recording has started with no socket on P.
 *   2. binds a socket on P (a socket that appears after recording
 *      began), sends FILL datagrams that fit; inode=I, depth1, drops1.
 *      Waits for DIR/go2.
 *   3. sends OVERFLOW more, which overflow it; depth2, drops2.
 *      Waits for DIR/go3, then exits.
 * The socket is never read, so the queue holds still between stages.
 */
static int staged(const char *info, const char *dir, int fill, int overflow)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int rcvbuf = 32768, rx, tx;
	char lines[256];
	struct stat st;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(rx, (struct sockaddr *)&a, &alen) < 0)
		die("socket");
	close(rx);
	snprintf(lines, sizeof(lines), "port=%u\nstage=0\n", ntohs(a.sin_port));
	info_add(info, lines);
	wait_for(dir, "go1");

	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 ||
	    setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0 ||
	    bind(rx, (struct sockaddr *)&a, sizeof(a)) < 0 || fstat(rx, &st) < 0)
		die("socket");
	send_n(tx, rx, &a, fill);
	snprintf(lines, sizeof(lines), "inode=%llu\n", (unsigned long long)st.st_ino);
	meminfo_lines(rx, 1, lines + strlen(lines), sizeof(lines) - strlen(lines));
	info_add(info, lines);
	wait_for(dir, "go2");

	send_n(tx, rx, &a, overflow);
	meminfo_lines(rx, 2, lines, sizeof(lines));
	info_add(info, lines);
	wait_for(dir, "go3");
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int n = argc > 2 ? atoi(argv[2]) : 2000, one = 1, rx, tx;
	FILE *f;

	if (argc == 6 && !strcmp(argv[1], "--staged"))
		return staged(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	if (argc < 2) {
		fprintf(stderr, "usage: udp_workload INFO_FILE [DATAGRAMS]\n");
		return 2;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 ||
	    setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one)) < 0 ||
	    bind(rx, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(rx, (struct sockaddr *)&a, &alen) < 0)
		die("socket");
	send_n(tx, rx, &a, n);
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	fprintf(f, "port=%u\ndrops=%ld\nsent=%d\n", ntohs(a.sin_port),
		drops_of(ntohs(a.sin_port)), n);
	return fclose(f) ? 1 : 0;
}
