#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "procfs.h"

int proc_online_cpus(int **cpus, int *n)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int *v = NULL, cap = 0, cnt = 0, lo, hi;
	char sep;

	if (!f)
		return -errno;
	while (fscanf(f, "%d", &lo) == 1) {
		hi = lo;
		sep = (char)fgetc(f);
		if (sep == '-') {
			if (fscanf(f, "%d", &hi) != 1)
				break;
			sep = (char)fgetc(f);
		}
		for (int c = lo; c <= hi; c++) {
			if (cnt == cap) {
				int *nv = realloc(v, (size_t)(cap = cap ? cap * 2 : 16) *
						  sizeof(*v));
				if (!nv) {
					free(v);
					fclose(f);
					return -ENOMEM;
				}
				v = nv;
			}
			v[cnt++] = c;
		}
		if (sep != ',')
			break;
	}
	fclose(f);
	if (!cnt) {
		free(v);
		return -ENODEV;
	}
	*cpus = v;
	*n = cnt;
	return 0;
}

/* Numeric entries of a /proc directory. */
static int list_numeric(const char *dir, pid_t **out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	pid_t *v = NULL;
	size_t cnt = 0, cap = 0;

	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (cnt == cap) {
			pid_t *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[cnt++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	*out = v;
	*n = cnt;
	return 0;
}

int proc_list_tids(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	return list_numeric(path, tids, n);
}

int proc_list_pids(pid_t **pids, size_t *n)
{
	return list_numeric("/proc", pids, n);
}

int proc_read_comm(pid_t pid, pid_t tid, char comm[16])
{
	char path[64];
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	len = fread(comm, 1, 15, f);
	fclose(f);
	comm[len] = '\0';
	if (len && comm[len - 1] == '\n')
		comm[len - 1] = '\0';
	return 0;
}

pid_t proc_tgid(pid_t tid)
{
	char path[64], line[128];
	FILE *f;
	pid_t tgid = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* "start-end perms offset maj:min inode   path" */
static int parse_maps_line(char *line, struct rec_mmap *m)
{
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	char perms[8];
	int off = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms,
		   &pgoff, &maj, &min, &ino, &off) < 7 || !off)
		return -1;
	line[strcspn(line, "\n")] = '\0';
	if (!line[off])
		return -1;	/* anonymous: nothing to name */
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->len = end - start;
	m->pgoff = pgoff;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->filename = line + off;
	return 0;
}

int proc_maps_each(pid_t pid, int (*fn)(void *ctx, const struct rec_mmap *m),
		   void *ctx)
{
	char path[64], line[4096 + 256];
	struct rec_mmap m;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -ESRCH;
	while (!err && fgets(line, sizeof(line), f)) {
		if (parse_maps_line(line, &m) < 0)
			continue;
		m.pid = (uint32_t)pid;
		m.tid = (uint32_t)pid;
		err = fn(ctx, &m);
	}
	fclose(f);
	return err;
}
