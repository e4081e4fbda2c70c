/*
 * udp_workload: floods a UDP socket with a tiny receive buffer over
 * loopback, never reading it, then reports the kernel's own drop count
 * for that socket (the drops column of /proc/net/udp).
 *
 * Usage: udp_workload INFO_FILE [DATAGRAMS]   (default 2000)
 * INFO_FILE gets lines port=N, drops=N, sent=N
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int n = argc > 2 ? atoi(argv[2]) : 2000, one = 1, rx, tx;
	char payload[200];
	struct timespec settle = { 0, 50000000 };
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: udp_workload INFO_FILE [DATAGRAMS]\n");
		return 2;
	}
	memset(payload, 'u', sizeof(payload));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 ||
	    setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one)) < 0 ||
	    bind(rx, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(rx, (struct sockaddr *)&a, &alen) < 0)
		die("socket");
	for (int i = 0; i < n; i++)
		if (sendto(tx, payload, sizeof(payload), 0, (struct sockaddr *)&a,
			   sizeof(a)) < 0)
			die("sendto");
	nanosleep(&settle, NULL);	/* loopback delivery is done by now */
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	fprintf(f, "port=%u\ndrops=%ld\nsent=%d\n", ntohs(a.sin_port),
		drops_of(ntohs(a.sin_port)), n);
	return fclose(f) ? 1 : 0;
}
