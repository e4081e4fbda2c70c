#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "proc_net_udp.h"

/* A run of bytes inside the caller's text (borrowed from it). */
struct slice {
	const char *p;
	size_t len;
};

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next blank-separated field of s[0..len) from *at into *f; 0 when
 * there is none left. */
static int next_field(const char *s, size_t len, size_t *at, struct slice *f)
{
	size_t i = *at;

	while (i < len && blank(s[i]))
		i++;
	if (i == len)
		return 0;
	f->p = s + i;
	while (i < len && !blank(s[i]))
		i++;
	f->len = (size_t)(s + i - f->p);
	*at = i;
	return 1;
}

/* The next line of s[0..len) from *at into *l, without its '\n'; 0 at
 * the end. */
static int next_line(const char *s, size_t len, size_t *at, struct slice *l)
{
	const char *nl;

	if (*at >= len)
		return 0;
	l->p = s + *at;
	nl = memchr(l->p, '\n', len - *at);
	l->len = nl ? (size_t)(nl - l->p) : len - *at;
	*at += l->len + 1;
	return 1;
}

static int slice_is(struct slice s, const char *word)
{
	return s.len == strlen(word) && !memcmp(s.p, word, s.len);
}

/* 1 to 16 hex digits, either case. */
static int hex_u64(struct slice s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s.len || s.len > 16)
		return -EINVAL;
	for (size_t i = 0; i < s.len; i++) {
		char c = s.p[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) :
			     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;

		if (d > 15)
			return -EINVAL;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* Decimal digits only (no sign, no blank), at most UINT64_MAX. */
static int dec_u64(struct slice s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s.len)
		return -EINVAL;
	for (size_t i = 0; i < s.len; i++) {
		unsigned d = (unsigned)(s.p[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* s split at its first ':' into *a and *b; -EINVAL without one. */
static int split_colon(struct slice s, struct slice *a, struct slice *b)
{
	const char *colon = memchr(s.p, ':', s.len);

	if (!colon)
		return -EINVAL;
	a->p = s.p;
	a->len = (size_t)(colon - s.p);
	b->p = colon + 1;
	b->len = s.len - a->len - 1;
	return 0;
}

/* "0100007F:2328" (v6 = 0) or 32 hex digits and a port (v6 = 1): the
 * address words go back into memory as the numbers printed (see the
 * header), the port is a plain number. */
static int parse_local(struct slice s, int v6, struct udp_sock_line *out)
{
	size_t words = v6 ? 4 : 1;
	struct slice addr, port_hex;
	char text[INET6_ADDRSTRLEN];
	uint64_t port, w;

	if (split_colon(s, &addr, &port_hex) < 0 || addr.len != 8 * words ||
	    hex_u64(port_hex, &port) < 0 || port > 65535)
		return -EINVAL;
	memset(out->addr, 0, sizeof(out->addr));
	for (size_t i = 0; i < words; i++) {
		struct slice word = { addr.p + 8 * i, 8 };

		if (hex_u64(word, &w) < 0)
			return -EINVAL;
		out->addr[i] = (uint32_t)w;
	}
	/* Cannot fail: the family is known and text holds any address. */
	inet_ntop(v6 ? AF_INET6 : AF_INET, out->addr, text, sizeof(text));
	snprintf(out->local, sizeof(out->local), v6 ? "[%s]:%u" : "%s:%u", text,
		 (unsigned)port);
	out->port = (unsigned)port;
	return 0;
}

#define UDP_LINE_FIELDS 13	/* sl to drops; see the header */

int udp_parse_line(const char *line, size_t len, int v6,
		   struct udp_sock_line *out)
{
	struct slice f[UDP_LINE_FIELDS], tx, rx;
	struct udp_sock_line x;
	size_t at = 0;

	for (int i = 0; i < UDP_LINE_FIELDS; i++)
		if (!next_field(line, len, &at, &f[i]))
			return -EINVAL;
	/* "sl" is the slot number and a colon; the header's "sl" has none. */
	if (f[0].p[f[0].len - 1] != ':')
		return -EINVAL;
	memset(&x, 0, sizeof(x));
	if (parse_local(f[1], v6, &x) < 0 || split_colon(f[4], &tx, &rx) < 0 ||
	    hex_u64(rx, &x.rx_queue_bytes) < 0 || dec_u64(f[9], &x.inode) < 0 ||
	    dec_u64(f[12], &x.drops) < 0)
		return -EINVAL;
	x.v6 = v6;
	*out = x;
	return 0;
}

/* The value under name in a line of names and the line of values after
 * it, both with their "Udp:" taken off. */
static int value_by_name(struct slice names, struct slice values,
			 const char *name, uint64_t *out)
{
	size_t at_n = 0, at_v = 0;
	struct slice n, v;

	while (next_field(names.p, names.len, &at_n, &n)) {
		if (!next_field(values.p, values.len, &at_v, &v))
			return -EINVAL;	/* fewer values than names */
		if (slice_is(n, name))
			return dec_u64(v, out);
	}
	return -EINVAL;
}

/* Whether line starts with prefix; if so, *rest is what follows it. */
static int starts_with(struct slice line, const char *prefix, struct slice *rest)
{
	size_t n = strlen(prefix);

	if (line.len < n || memcmp(line.p, prefix, n))
		return 0;
	rest->p = line.p + n;
	rest->len = line.len - n;
	return 1;
}

int udp_parse_snmp(const char *text, size_t len, struct udp_host_counters *out)
{
	struct slice line, names, values;
	uint64_t in_errors, rcvbuf_errors;
	size_t at = 0;
	int found = 0;

	/* "Udp: " with its blank, so that "UdpLite:" is not taken for it. */
	while (!found && next_line(text, len, &at, &line))
		found = starts_with(line, "Udp: ", &names);
	if (!found || !next_line(text, len, &at, &line) ||
	    !starts_with(line, "Udp: ", &values) ||
	    value_by_name(names, values, "InErrors", &in_errors) < 0 ||
	    value_by_name(names, values, "RcvbufErrors", &rcvbuf_errors) < 0)
		return -EINVAL;
	out->in_errors[0] = in_errors;
	out->rcvbuf_errors[0] = rcvbuf_errors;
	return 0;
}

/* The value on the line whose first field is name. */
static int snmp6_value(const char *text, size_t len, const char *name,
		       uint64_t *out)
{
	struct slice line, key, value;
	size_t at = 0;

	while (next_line(text, len, &at, &line)) {
		size_t in = 0;

		if (next_field(line.p, line.len, &in, &key) && slice_is(key, name))
			return next_field(line.p, line.len, &in, &value) ?
			       dec_u64(value, out) : -EINVAL;
	}
	return -EINVAL;
}

int udp_parse_snmp6(const char *text, size_t len, struct udp_host_counters *out)
{
	uint64_t in_errors, rcvbuf_errors;

	if (snmp6_value(text, len, "Udp6InErrors", &in_errors) < 0 ||
	    snmp6_value(text, len, "Udp6RcvbufErrors", &rcvbuf_errors) < 0)
		return -EINVAL;
	out->in_errors[1] = in_errors;
	out->rcvbuf_errors[1] = rcvbuf_errors;
	out->have_v6 = 1;
	return 0;
}
