#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem_room.h"

/* The first unsigned number in file, or -1 ("max", absent, unreadable). */
static long long read_bytes(const char *file)
{
	FILE *f = fopen(file, "re");
	long long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The memory cgroup of this process, from /proc/self/cgroup: v1's
 * "N:...memory...:PATH" line when there is one, else v2's "0::PATH".
 * *v2 says which.  0, or -1 when there is none. */
static int own_memory_cgroup(char *path, size_t n, int *v2)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char ctrl[256];

		if (!c2 || (size_t)(c2 - c1 - 1) >= sizeof(ctrl))
			continue;
		memcpy(ctrl, c1 + 1, (size_t)(c2 - c1 - 1));
		ctrl[c2 - c1 - 1] = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (!ctrl[0] && found < 0) {		/* v2, unless v1 has memory */
			snprintf(path, n, "%s", c2 + 1);
			*v2 = 1;
			found = 0;
		}
		for (char *tok = strtok(ctrl, ","); tok; tok = strtok(NULL, ","))
			if (!strcmp(tok, "memory")) {
				snprintf(path, n, "%s", c2 + 1);
				*v2 = 0;
				fclose(f);
				return 0;
			}
	}
	fclose(f);
	return found;
}

struct limit {
	long long room;		/* bytes it leaves; -1: no limit */
	long long max;		/* the limit itself */
	char where[4200];	/* the cgroup's directory */
	const char *file;	/* the limit's file name */
};

/* The lowest limit on the cgroup's path, from it up to the root, less
 * what that cgroup uses. */
static void cgroup_room(struct limit *l)
{
	static const char *const v1_roots[] = { "/sys/fs/cgroup/memory" };
	static const char *const v2_roots[] = { "/sys/fs/cgroup",
						"/sys/fs/cgroup/unified" };
	char path[4096], dir[4200], file[4300];
	int v2 = 0;

	l->room = -1;
	if (own_memory_cgroup(path, sizeof(path), &v2) < 0)
		return;
	for (size_t r = 0; r < (v2 ? 2u : 1u); r++) {
		const char *root = v2 ? v2_roots[r] : v1_roots[r];
		const char *lim = v2 ? "memory.max" : "memory.limit_in_bytes";
		const char *use = v2 ? "memory.current" : "memory.usage_in_bytes";
		char *cut;

		for (;;) {
			long long max, used;

			snprintf(dir, sizeof(dir), "%s%s", root,
				 strcmp(path, "/") ? path : "");
			snprintf(file, sizeof(file), "%s/%s", dir, lim);
			max = read_bytes(file);
			snprintf(file, sizeof(file), "%s/%s", dir, use);
			used = read_bytes(file);
			/* v1 says "no limit" with a huge number. */
			if (max > 0 && max < (1ll << 60)) {
				long long room = max - (used > 0 ? used : 0);

				if (l->room < 0 || room < l->room) {
					l->room = room > 0 ? room : 0;
					l->max = max;
					snprintf(l->where, sizeof(l->where), "%s", dir);
					l->file = lim;
				}
			}
			cut = strrchr(path, '/');
			if (!cut || !strcmp(path, "/"))
				break;
			if (cut == path)
				cut[1] = '\0';
			else
				*cut = '\0';
		}
		if (l->room >= 0)
			return;
		own_memory_cgroup(path, sizeof(path), &v2);
	}
}

/* MemAvailable in bytes, or -1. */
static long long mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	long long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

/* The largest spool that fits in room, in whole MiB (at least 0). */
static long long fits_mib(long long room, uint64_t ring_bytes)
{
	long long left = room - (long long)ring_bytes - (long long)MEM_ROOM_SLACK_BYTES;

	return left > 0 ? left >> 20 : 0;
}

int mem_room_check(uint64_t spool_bytes, uint64_t ring_bytes, struct errmsg *e)
{
	uint64_t need = spool_bytes + ring_bytes + MEM_ROOM_SLACK_BYTES;
	long long avail = mem_available();
	struct limit l;

	memset(&l, 0, sizeof(l));
	cgroup_room(&l);
	if (l.room >= 0 && need > (uint64_t)l.room)
		return errmsg_set(e, ENOMEM, "cannot hold a %llu MiB spool: "
				  "faultline's memory cgroup '%s' allows %lld MiB "
				  "(%s), %lld MiB of it free, and the spool is made "
				  "resident at start beside %llu MiB of rings; give "
				  "--spool-size %lldM or less, or raise the limit",
				  (unsigned long long)(spool_bytes >> 20), l.where,
				  l.max >> 20, l.file, l.room >> 20,
				  (unsigned long long)(ring_bytes >> 20),
				  fits_mib(l.room, ring_bytes));
	if (avail >= 0 && need > (uint64_t)avail)
		return errmsg_set(e, ENOMEM, "cannot hold a %llu MiB spool: the "
				  "machine has %lld MiB available (MemAvailable in "
				  "/proc/meminfo), and the spool is made resident at "
				  "start beside %llu MiB of rings; give --spool-size "
				  "%lldM or less",
				  (unsigned long long)(spool_bytes >> 20), avail >> 20,
				  (unsigned long long)(ring_bytes >> 20),
				  fits_mib(avail, ring_bytes));
	return 0;
}
