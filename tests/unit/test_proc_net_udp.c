/*
 * decoder/proc_net_udp: the lines of /proc/net/udp{,6} and the counters of
 * /proc/net/snmp{,6}, as the kernel prints them, and what is refused.
 * Every input is handed over in a heap buffer of its exact size, without
 * a NUL, so that a read past its length is an ASan error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../common/array.h"
#include "../../decoder/proc_net_sock.h"
#include "../../decoder/proc_net_udp.h"
#include "records.h"

/* An exact-size heap copy of text without its NUL.  Caller frees. */
static char *exact_copy(const char *text, size_t len)
{
	char *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, text, len);
	return p;
}

static int parse_line(const char *text, int v6, struct udp_sock_line *x)
{
	size_t len = strlen(text);
	char *p = exact_copy(text, len);
	int r = udp_parse_line(p, len, v6, x);

	free(p);
	return r;
}

static int parse_snmp(const char *text, struct udp_host_counters *h)
{
	size_t len = strlen(text);
	char *p = exact_copy(text, len);
	int r = udp_parse_snmp(p, len, h);

	free(p);
	return r;
}

static int parse_snmp6(const char *text, struct udp_host_counters *h)
{
	size_t len = strlen(text);
	char *p = exact_copy(text, len);
	int r = udp_parse_snmp6(p, len, h);

	free(p);
	return r;
}

/* A line of the 6.18 kernel: a socket on 127.0.0.1:48404 with 25600
 * bytes queued, 469 drops. */
#define LINE4 " 15485: 0100007F:BD14 00000000:0000 07 00000000:00006400 " \
	      "00:00000000 00000000     0        0 237398 2 00000000b99f9a6e 469"
#define LINE6 "  100: 00000000000000000000000001000000:2328 " \
	      "00000000000000000000000000000000:0000 07 00000000:00000300 " \
	      "00:00000000 00000000     0        0 4242 2 0000000000000000 7"

static void a_udp_line_gives_port_inode_depth_and_drops(void **state)
{
	struct udp_sock_line x;

	(void)state;
	memset(&x, 0, sizeof(x));
	assert_int_equal(parse_line(LINE4 "        ", 0, &x), 0);
	assert_int_equal(x.port, 48404);
	assert_int_equal(x.inode, 237398);
	assert_int_equal(x.rx_queue_bytes, 25600);
	assert_int_equal(x.drops, 469);
	assert_int_equal(x.v6, 0);
	assert_string_equal(x.local, "127.0.0.1:48404");
	/* The word in memory is the address in network order. */
	assert_memory_equal(x.addr, "\x7f\0\0\x01", 4);
}

static void a_udp6_line_gives_the_address_in_brackets(void **state)
{
	static const uint8_t loopback6[16] = { [15] = 1 };
	struct udp_sock_line x;

	(void)state;
	memset(&x, 0, sizeof(x));
	assert_int_equal(parse_line(LINE6, 1, &x), 0);
	assert_int_equal(x.port, 9000);
	assert_int_equal(x.inode, 4242);
	assert_int_equal(x.rx_queue_bytes, 0x300);
	assert_int_equal(x.drops, 7);
	assert_int_equal(x.v6, 1);
	assert_string_equal(x.local, "[::1]:9000");
	assert_memory_equal(x.addr, loopback6, 16);
}

static void fields_after_drops_and_tabs_between_fields_are_taken(void **state)
{
	struct udp_sock_line x;

	(void)state;
	assert_int_equal(parse_line(LINE4 " 17 future fields", 0, &x), 0);
	assert_int_equal(x.drops, 469);
	assert_int_equal(parse_line("1:\t0100007F:0001\t0:0\t07\t0:ff\t0\t0\t0\t0"
				    "\t18446744073709551615\t2\t0\t18446744073709551615",
				    0, &x), 0);
	assert_int_equal(x.port, 1);
	assert_int_equal(x.rx_queue_bytes, 255);
	assert_true(x.inode == UINT64_MAX && x.drops == UINT64_MAX);
}

static void a_line_of_another_shape_is_refused_and_out_kept(void **state)
{
	static const struct {
		const char *line;
		int v6;
	} bad[] = {
		{ "   sl  local_address rem_address   st tx_queue rx_queue tr "
		  "tm->when retrnsmt   uid  timeout inode ref pointer drops", 0 },
		{ "", 0 },
		{ "      ", 0 },
		{ " 1: 0100007F:BD14", 0 },
		/* twelve fields: drops missing */
		{ " 1: 0100007F:BD14 00000000:0000 07 00000000:0 00:0 0 0 0 1 2 0", 0 },
		/* sl without its colon */
		{ " 1 0100007F:BD14 00000000:0000 07 00000000:0 00:0 0 0 0 1 2 0 0", 0 },
		/* rx_queue not hex; no colon between tx and rx */
		{ " 1: 0100007F:BD14 00000000:0000 07 00000000:zz 00:0 0 0 0 1 2 0 0", 0 },
		{ " 1: 0100007F:BD14 00000000:0000 07 0000000000000300 00:0 0 0 0 1 2 0 0", 0 },
		/* rx_queue of 17 hex digits */
		{ " 1: 0100007F:BD14 0:0 07 0:10000000000000000 00:0 0 0 0 1 2 0 0", 0 },
		/* an address of 7 digits; one not hex; none */
		{ " 1: 100007F:BD14 00000000:0000 07 00000000:0 00:0 0 0 0 1 2 0 0", 0 },
		{ " 1: 0100007G:BD14 00000000:0000 07 00000000:0 00:0 0 0 0 1 2 0 0", 0 },
		{ " 1: :BD14 00000000:0000 07 00000000:0 00:0 0 0 0 1 2 0 0", 0 },
		/* an IPv6 address in udp, an IPv4 one in udp6 */
		{ LINE6, 0 },
		{ LINE4, 1 },
		/* a port over 65535, an empty one, none */
		{ " 1: 0100007F:10000 00000000:0000 07 00000000:0 00:0 0 0 0 1 2 0 0", 0 },
		{ " 1: 0100007F: 00000000:0000 07 00000000:0 00:0 0 0 0 1 2 0 0", 0 },
		{ " 1: 0100007FBD14 00000000:0000 07 00000000:0 00:0 0 0 0 1 2 0 0", 0 },
		/* inode or drops not decimal, signed, or past 64 bits */
		{ " 1: 0100007F:BD14 0:0 07 0:0 00:0 0 0 0 23a398 2 0 0", 0 },
		{ " 1: 0100007F:BD14 0:0 07 0:0 00:0 0 0 0 -1 2 0 0", 0 },
		{ " 1: 0100007F:BD14 0:0 07 0:0 00:0 0 0 0 1 2 0 +5", 0 },
		{ " 1: 0100007F:BD14 0:0 07 0:0 00:0 0 0 0 1 2 0 18446744073709551616", 0 },
	};
	static const char nul[] = " 1: 0100007F:BD14 0:0 07 0:0 00:0 0 0 0 1\0 2 0 0";
	struct udp_sock_line x, before;

	(void)state;
	memset(&x, 0x5a, sizeof(x));
	before = x;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse_line(bad[i].line, bad[i].v6, &x) != -EINVAL)
			fail_msg("accepted: '%s'", bad[i].line);
		assert_memory_equal(&x, &before, sizeof(x));
	}
	/* A NUL is no digit: the inode "1\0" is refused. */
	assert_int_equal(udp_parse_line(nul, sizeof(nul) - 1, 0, &x), -EINVAL);
}

static void a_line_is_read_up_to_its_length_only(void **state)
{
	const char *two = LINE4 "\n" LINE4 "99";
	struct udp_sock_line x;

	(void)state;
	/* The first line, without its newline: drops 469, not 46999. */
	assert_int_equal(udp_parse_line(two, strlen(LINE4), 0, &x), 0);
	assert_int_equal(x.drops, 469);
	/* Cut inside the drops field: what is there is what counts. */
	assert_int_equal(udp_parse_line(two, strlen(LINE4) - 1, 0, &x), 0);
	assert_int_equal(x.drops, 46);
	/* Cut before it: twelve fields. */
	assert_int_equal(udp_parse_line(two, strlen(LINE4) - 4, 0, &x), -EINVAL);
}

#define SNMP "Ip: Forwarding DefaultTTL\nIp: 1 64\n" \
	"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors\n" \
	"Udp: 37 3 112441 112542 112440\n" \
	"UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors\n" \
	"UdpLite: 0 0 9 0 9\n"

static void the_host_counters_are_read_by_name(void **state)
{
	struct udp_host_counters h;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(parse_snmp(SNMP, &h), 0);
	assert_int_equal(h.in_errors[0], 112441);
	assert_int_equal(h.rcvbuf_errors[0], 112440);
	assert_int_equal(h.have_v6, 0);
	assert_int_equal(parse_snmp6("Ip6InReceives   5\nUdp6InDatagrams 1\n"
		"Udp6InErrors                    \t12\nUdp6RcvbufErrors\t11\n", &h), 0);
	assert_int_equal(h.in_errors[1], 12);
	assert_int_equal(h.rcvbuf_errors[1], 11);
	assert_int_equal(h.have_v6, 1);
	/* Index 0 was left alone by the IPv6 parser. */
	assert_int_equal(h.in_errors[0], 112441);
}

static void counters_in_another_order_or_first_in_the_text_are_found(void **state)
{
	struct udp_host_counters h;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(parse_snmp("Udp: RcvbufErrors X InErrors\n"
				    "Udp: 5 -1 6", &h), 0);
	assert_int_equal(h.rcvbuf_errors[0], 5);
	assert_int_equal(h.in_errors[0], 6);
	assert_int_equal(parse_snmp6("Udp6RcvbufErrors 3\nUdp6InErrors 4", &h), 0);
	assert_int_equal(h.rcvbuf_errors[1], 3);
	assert_int_equal(h.in_errors[1], 4);
}

static void malformed_snmp_text_is_refused_and_out_kept(void **state)
{
	static const char *const bad[] = {
		"",
		"Ip: Forwarding\nIp: 1\n",
		/* UdpLite is another protocol */
		"UdpLite: InDatagrams InErrors RcvbufErrors\nUdpLite: 1 2 3\n",
		/* names with no values, or values not on the next line */
		"Udp: InErrors RcvbufErrors\n",
		"Udp: InErrors RcvbufErrors\nIp: 1 2\nUdp: 1 2\n",
		/* fewer values than names */
		"Udp: InDatagrams InErrors RcvbufErrors\nUdp: 1 2\n",
		/* a counter missing, or not a number */
		"Udp: InDatagrams InErrors\nUdp: 1 2\n",
		"Udp: InErrors RcvbufErrors\nUdp: 1 2x\n",
		"Udp: InErrors RcvbufErrors\nUdp: -1 2\n",
		"Udp: InErrors RcvbufErrors\nUdp: 1 99999999999999999999\n",
	};
	struct udp_host_counters h, before;

	(void)state;
	memset(&h, 0x5a, sizeof(h));
	before = h;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse_snmp(bad[i], &h) != -EINVAL)
			fail_msg("accepted: '%s'", bad[i]);
		assert_memory_equal(&h, &before, sizeof(h));
	}
}

static void malformed_snmp6_text_is_refused_and_out_kept(void **state)
{
	static const char *const bad[] = {
		"",
		"Udp6InErrors 1\n",
		"Udp6RcvbufErrors 1\n",
		/* a longer name is another counter */
		"Udp6InErrorsX 1\nUdp6RcvbufErrors 2\n",
		"Udp6InErrors 1\nUdp6RcvbufErrorsX 2\n",
		/* no value, or not a number */
		"Udp6InErrors\nUdp6RcvbufErrors 2\n",
		"Udp6InErrors 1\nUdp6RcvbufErrors 0x2\n",
		"Udp6InErrors -1\nUdp6RcvbufErrors 2\n",
	};
	struct udp_host_counters h, before;

	(void)state;
	memset(&h, 0x5a, sizeof(h));
	before = h;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse_snmp6(bad[i], &h) != -EINVAL)
			fail_msg("accepted: '%s'", bad[i]);
		assert_memory_equal(&h, &before, sizeof(h));
	}
}

/* What names a socket descriptor (record --syscalls): its addresses,
 * the peer left out where there is none, a unix socket's path. */
static void socket_lines_name_the_socket_as_strace_does(void **state)
{
	static const char tcp[] = "   3: 0100007F:18EB 0100007F:C8A2 01 "
		"00000000:00000000 00:00000000 00000000     0        0 12345 1 "
		"0000000000000000 20 4 30 10 -1\n";
	static const char listen[] = "   0: 00000000:18EB 00000000:0000 0A "
		"00000000:00000000 00:00000000 00000000     0        0 99 1\n";
	static const char tcp6[] = "   0: 00000000000000000000000001000000:0050 "
		"00000000000000000000000001000000:1092 01 00000000:00000000 "
		"00:00000000 00000000     0        0 777 1\n";
	static const char unix_line[] = "00000000e1b734ec: 00000003 00000000 "
		"00000000 0001 03  1658 /run/x.sock\n";
	static const char unbound[] = "00000000e1b734ec: 00000003 00000000 "
		"00000000 0001 03  1659\n";
	struct sock_line s;

	(void)state;
	assert_int_equal(sock_parse_inet_line(tcp, sizeof(tcp) - 1, 0, &s), 0);
	assert_int_equal(s.inode, 12345);
	assert_string_equal(s.addrs, "127.0.0.1:6379->127.0.0.1:51362");
	assert_int_equal(sock_parse_inet_line(listen, sizeof(listen) - 1, 0, &s), 0);
	assert_string_equal(s.addrs, "0.0.0.0:6379");
	assert_int_equal(sock_parse_inet_line(tcp6, sizeof(tcp6) - 1, 1, &s), 0);
	assert_int_equal(s.inode, 777);
	assert_string_equal(s.addrs, "[::1]:80->[::1]:4242");
	assert_int_equal(sock_parse_unix_line(unix_line, sizeof(unix_line) - 1, &s), 0);
	assert_int_equal(s.inode, 1658);
	assert_string_equal(s.addrs, "/run/x.sock");
	assert_int_equal(sock_parse_unix_line(unbound, sizeof(unbound) - 1, &s), 0);
	assert_string_equal(s.addrs, "");
	/* A header line, and an inet line given as IPv6, are refused. */
	assert_int_equal(sock_parse_inet_line("  sl  local_address rem_address", 31,
					      0, &s), -EINVAL);
	assert_int_equal(sock_parse_inet_line(tcp, sizeof(tcp) - 1, 1, &s), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_udp_line_gives_port_inode_depth_and_drops),
		cmocka_unit_test(socket_lines_name_the_socket_as_strace_does),
		cmocka_unit_test(a_udp6_line_gives_the_address_in_brackets),
		cmocka_unit_test(fields_after_drops_and_tabs_between_fields_are_taken),
		cmocka_unit_test(a_line_of_another_shape_is_refused_and_out_kept),
		cmocka_unit_test(a_line_is_read_up_to_its_length_only),
		cmocka_unit_test(the_host_counters_are_read_by_name),
		cmocka_unit_test(counters_in_another_order_or_first_in_the_text_are_found),
		cmocka_unit_test(malformed_snmp_text_is_refused_and_out_kept),
		cmocka_unit_test(malformed_snmp6_text_is_refused_and_out_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
