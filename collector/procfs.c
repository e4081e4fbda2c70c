#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/array.h"
#include "../common/cpulist.h"
#include "../common/file.h"
#include "procfs.h"

int proc_online_cpus(int **cpus, int *n)
{
	char *text = NULL;
	size_t len;
	struct errmsg e;
	cpu_set_t set;
	int *v, cnt = 0, err;

	errmsg_init(&e);
	err = read_text_file("/sys/devices/system/cpu/online", &text, &len, &e);
	if (err < 0)
		return err;
	err = cpulist_parse(text, &set);
	free(text);
	if (err < 0 || !CPU_COUNT(&set))
		return -ENODEV;
	v = calloc((size_t)CPU_COUNT(&set), sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			v[cnt++] = c;
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
		if (ARRAY_RESERVE(v, cap, cnt + 1) < 0) {
			free(v);
			closedir(d);
			return -ENOMEM;
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

pid_t proc_last_pid(void)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "r");
	int pid = -ENOENT;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &pid) != 1)
		pid = -EINVAL;
	fclose(f);
	return pid;
}

/* PF_KTHREAD in include/linux/sched.h. */
#define PROC_FLAG_KTHREAD 0x00200000u

int proc_is_kthread(pid_t tid)
{
	char path[64], buf[1024], *p;
	unsigned long flags;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp session tty tpgid flags ...": the name
	 * may hold spaces and parentheses, so count from the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return -EINVAL;
	return (flags & PROC_FLAG_KTHREAD) != 0;
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

/* The value of "key\t: value" in cpuinfo text (its first CPU), into
 * buf; "" when absent.  Only blanks may stand between key and ':', so
 * "model" is not "model name". */
void cpuinfo_field(const char *text, const char *key, char *buf, size_t n)
{
	size_t klen = strlen(key);
	const char *line = text;

	buf[0] = '\0';
	while (line && *line) {
		const char *end = strchr(line, '\n'), *p = line + klen;

		if (!end)
			end = line + strlen(line);
		if (!strncmp(line, key, klen)) {
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (p < end && *p == ':') {
				p++;
				while (p < end && *p == ' ')
					p++;
				snprintf(buf, n, "%.*s", (int)(end - p), p);
				return;
			}
		}
		if (!*end)
			break;
		line = end + 1;
	}
}

void proc_cpu_model(char *buf, size_t n)
{
	struct errmsg ignored;
	char *text = NULL;
	size_t len;

	buf[0] = '\0';
	errmsg_init(&ignored);
	if (read_text_file("/proc/cpuinfo", &text, &len, &ignored) < 0)
		return;
	cpuinfo_field(text, "model name", buf, n);
	free(text);
}
