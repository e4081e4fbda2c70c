#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../decoder/proc_net_sock.h"
#include "fd_names.h"

void fd_names_init(struct fd_names *c)
{
	memset(c, 0, sizeof(*c));
}

void fd_names_release(struct fd_names *c)
{
	for (size_t i = 0; i < c->nslots; i++)
		free(c->slots[i].name);
	free(c->slots);
	fd_names_init(c);
}

static uint64_t key_of(uint32_t pid, int64_t fd)
{
	return (((uint64_t)pid << 32) | (uint32_t)fd) + 1;
}

static size_t slot_of(const struct fd_names *c, uint64_t key)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull) & (c->nslots - 1);

	while (c->slots[i].key && c->slots[i].key != key)
		i = (i + 1) & (c->nslots - 1);
	return i;
}

/* Doubles the table when it is half full.  0 or -ENOMEM. */
static int make_room(struct fd_names *c)
{
	struct fd_names bigger;

	if (c->nslots && c->n < c->nslots / 2)
		return 0;
	bigger.nslots = c->nslots ? c->nslots * 2 : 64;
	bigger.n = c->n;
	bigger.slots = calloc(bigger.nslots, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < c->nslots; i++)
		if (c->slots[i].key)
			bigger.slots[slot_of(&bigger, c->slots[i].key)] = c->slots[i];
	free(c->slots);
	*c = bigger;
	return 0;
}

/* The socket of inode in pid's network namespace, from one /proc/net
 * file, into out as "PROTO ADDRS": 0, or -1 when the file has no line
 * of it. */
static int sock_in_file(uint32_t pid, const char *file, const char *proto,
			int kind, uint64_t inode, char *out, size_t size)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	struct sock_line s;
	int found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/net/%s", pid, file);
	if (!(f = fopen(path, "re")))
		return -1;
	while (found && (len = getline(&line, &cap, f)) > 0) {
		int err = kind == 2 ? sock_parse_unix_line(line, (size_t)len, &s) :
			  sock_parse_inet_line(line, (size_t)len, kind, &s);

		if (err == 0 && s.inode == inode) {
			snprintf(out, size, s.addrs[0] ? "%s %s" : "%s", proto, s.addrs);
			found = 0;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* "socket:[INODE]" as its protocol and addresses, where /proc says. */
static void name_socket(uint32_t pid, char *link, size_t size)
{
	static const struct { const char *file, *proto; int kind; } files[] = {
		{ "tcp", "tcp", 0 }, { "tcp6", "tcp", 1 }, { "udp", "udp", 0 },
		{ "udp6", "udp", 1 }, { "unix", "unix", 2 },
	};
	unsigned long long inode;

	if (sscanf(link, "socket:[%llu]", &inode) != 1)
		return;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (sock_in_file(pid, files[i].file, files[i].proto, files[i].kind,
				 inode, link, size) == 0)
			return;
}

/* What /proc/PID/fd/FD links to, named; NULL when it cannot be read. */
static char *read_name(uint32_t pid, int64_t fd)
{
	char path[64], link[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/fd/%lld", pid, (long long)fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	if (!strncmp(link, "socket:[", 8))
		name_socket(pid, link, sizeof(link));
	return strdup(link);
}

const char *fd_names_get(struct fd_names *c, uint32_t pid, int64_t fd,
			 uint64_t *read_ns)
{
	uint64_t key = key_of(pid, fd);
	struct fd_name_slot *s;

	if (fd < 0 || fd > INT32_MAX || make_room(c) < 0)
		return NULL;
	s = &c->slots[slot_of(c, key)];
	if (!s->key) {
		s->key = key;
		c->n++;
	}
	if (!s->name) {
		s->read_ns = monotonic_ns();
		s->name = read_name(pid, fd);
		s->handed = 0;
	}
	*read_ns = s->read_ns;
	s->handed += s->name != NULL;
	return s->name;
}

int fd_names_handed(const struct fd_names *c, uint32_t pid, int64_t fd)
{
	const struct fd_name_slot *s;

	if (!c->nslots || fd < 0 || fd > INT32_MAX)
		return 0;
	s = &c->slots[slot_of(c, key_of(pid, fd))];
	return s->key && s->name && s->handed;
}

void fd_names_forget(struct fd_names *c, uint32_t pid, int64_t fd)
{
	struct fd_name_slot *s;

	if (!c->nslots || fd < 0 || fd > INT32_MAX)
		return;
	s = &c->slots[slot_of(c, key_of(pid, fd))];
	if (s->key) {
		free(s->name);
		s->name = NULL;
	}
}

void fd_names_forget_pid(struct fd_names *c, uint32_t pid)
{
	for (size_t i = 0; i < c->nslots; i++)
		if (c->slots[i].key && (c->slots[i].key - 1) >> 32 == pid) {
			free(c->slots[i].name);
			c->slots[i].name = NULL;
		}
}
