#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../common/array.h"
#include "../common/file.h"
#include "../common/strbuf.h"
#include "procfs.h"
#include "sys_env.h"

/* Reads path whole into *text: 0, or -errno (nothing said: an
 * unreadable file only leaves its key out). */
static int slurp(const char *path, char **text, size_t *len)
{
	struct errmsg ignored;

	errmsg_init(&ignored);
	return read_text_file(path, text, len, &ignored);
}

enum how { TRIMMED, BRACKET };

/* One file, one key: the file's text trimmed, or its bracketed choice. */
static int file_pair(const char *key, const char *path, enum how how,
		     env_fn fn, void *ctx)
{
	char *text = NULL, value[4096];
	size_t len;
	int ok, err = 0;

	if (slurp(path, &text, &len) < 0)
		return 0;
	ok = how == BRACKET ? env_bracket_choice(text, len, value, sizeof(value))
			    : env_trim(text, len, value, sizeof(value));
	if (ok == 0)
		err = fn(ctx, key, value);
	free(text);
	return err;
}

static const struct { const char *key, *path; enum how how; } host_files[] = {
	{ "kernel.cmdline", "/proc/cmdline", TRIMMED },
	{ "kernel.numa_balancing", "/proc/sys/kernel/numa_balancing", TRIMMED },
	{ "vm.swappiness", "/proc/sys/vm/swappiness", TRIMMED },
	{ "vm.overcommit_memory", "/proc/sys/vm/overcommit_memory", TRIMMED },
	{ "vm.zone_reclaim_mode", "/proc/sys/vm/zone_reclaim_mode", TRIMMED },
	{ "vm.dirty_ratio", "/proc/sys/vm/dirty_ratio", TRIMMED },
	{ "vm.dirty_background_ratio", "/proc/sys/vm/dirty_background_ratio", TRIMMED },
	{ "thp.enabled", "/sys/kernel/mm/transparent_hugepage/enabled", BRACKET },
	{ "thp.defrag", "/sys/kernel/mm/transparent_hugepage/defrag", BRACKET },
	{ "cpu.online", "/sys/devices/system/cpu/online", TRIMMED },
	{ "cpu.isolated", "/sys/devices/system/cpu/isolated", TRIMMED },
	{ "cpu.nohz_full", "/sys/devices/system/cpu/nohz_full", TRIMMED },
	{ "numa.nodes", "/sys/devices/system/node/online", TRIMMED },
	{ "clocksource", "/sys/devices/system/clocksource/clocksource0/"
	  "current_clocksource", TRIMMED },
};

/* cpu.model and cpu.microcode, from the first CPU of /proc/cpuinfo. */
static int cpuinfo_pairs(env_fn fn, void *ctx)
{
	char *text = NULL, value[256];
	size_t len;
	int err = 0;

	if (slurp("/proc/cpuinfo", &text, &len) < 0)
		return 0;
	cpuinfo_field(text, "model name", value, sizeof(value));
	if (value[0])
		err = fn(ctx, "cpu.model", value);
	cpuinfo_field(text, "microcode", value, sizeof(value));
	if (err == 0 && value[0])
		err = fn(ctx, "cpu.microcode", value);
	free(text);
	return err;
}

/* cpu.governor: each distinct scaling governor of the online CPUs, in
 * CPU order, joined by ','; none when no CPU has cpufreq. */
static int governor_pair(env_fn fn, void *ctx)
{
	struct strbuf sb;
	int *cpus = NULL, n = 0, err = 0;

	if (proc_online_cpus(&cpus, &n) < 0)
		return 0;
	strbuf_init(&sb);
	for (int i = 0; i < n; i++) {
		char path[96], *text = NULL, gov[64], *hit;
		size_t len;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/"
			 "cpufreq/scaling_governor", cpus[i]);
		if (slurp(path, &text, &len) < 0)
			continue;
		if (env_trim(text, len, gov, sizeof(gov)) == 0 && gov[0]) {
			hit = sb.len ? strstr(strbuf_str(&sb), gov) : NULL;
			/* a whole entry: "powersave" is not in "performance" */
			if (!hit || (hit != sb.buf && hit[-1] != ',') ||
			    (hit[strlen(gov)] && hit[strlen(gov)] != ','))
				strbuf_addf(&sb, "%s%s", sb.len ? "," : "", gov);
		}
		free(text);
	}
	if (sb.len && !strbuf_error(&sb))
		err = fn(ctx, "cpu.governor", strbuf_str(&sb));
	strbuf_release(&sb);
	free(cpus);
	return err;
}

int sys_env_host(env_fn fn, void *ctx)
{
	struct utsname un;
	int err = 0;

	if (uname(&un) == 0) {
		err = fn(ctx, "kernel.release", un.release);
		if (err == 0)
			err = fn(ctx, "kernel.version", un.version);
	}
	for (size_t i = 0; err == 0 && i < ARRAY_SIZE(host_files); i++)
		err = file_pair(host_files[i].key, host_files[i].path,
				host_files[i].how, fn, ctx);
	if (err == 0)
		err = cpuinfo_pairs(fn, ctx);
	if (err == 0)
		err = governor_pair(fn, ctx);
	return err;
}

/* The text of dir/name trimmed into buf: 0, or -1 when unreadable. */
static int read_in(const char *dir, const char *name, char *buf, size_t n)
{
	char path[PATH_MAX + 64], *text = NULL;
	size_t len;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (slurp(path, &text, &len) < 0)
		return -1;
	err = env_trim(text, len, buf, n);
	free(text);
	return err < 0 ? -1 : 0;
}

/* v1 prints "no limit" as the largest page-aligned count
 * (PAGE_COUNTER_MAX pages); v2 as "max". */
static void v1_bytes(char *v)
{
	if (strtoull(v, NULL, 10) >= (1ull << 62))
		strcpy(v, "max");
}

/* The cgroup v2 directory of path: /sys/fs/cgroup on a v2-only machine,
 * /sys/fs/cgroup/unified beside v1. */
static int v2_pairs(const char *path, env_fn fn, void *ctx)
{
	char dir[PATH_MAX], v[128];
	int err;

	snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s%s",
		 access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 ? "" : "/unified",
		 path);
	if ((err = fn(ctx, "cgroup.path", path)) < 0)
		return err;
	if (read_in(dir, "cpu.max", v, sizeof(v)) == 0 &&
	    (err = fn(ctx, "cgroup.cpu.max", v)) < 0)
		return err;
	if (read_in(dir, "memory.max", v, sizeof(v)) == 0 &&
	    (err = fn(ctx, "cgroup.memory.max", v)) < 0)
		return err;
	if (read_in(dir, "memory.high", v, sizeof(v)) == 0)
		err = fn(ctx, "cgroup.memory.high", v);
	return err;
}

/* A v1 hierarchy whose controllers list has ctl: its directory for path
 * into dir (mounted under its controllers' names, or the first one's). */
static int v1_dir(const char *ctls, const char *path, const char *want,
		  char *dir, size_t n)
{
	snprintf(dir, n, "/sys/fs/cgroup/%s%s", ctls, path);
	if (access(dir, F_OK) == 0)
		return 0;
	snprintf(dir, n, "/sys/fs/cgroup/%s%s", want, path);
	return access(dir, F_OK) == 0 ? 0 : -1;
}

/* Is want one of the comma-separated controllers of ctls? */
static int has_ctl(const char *ctls, const char *want)
{
	size_t n = strlen(want);

	for (const char *p = ctls; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (!strncmp(p, want, n) && (p[n] == ',' || p[n] == '\0'))
			return 1;
	}
	return 0;
}

static int v1_line(const char *ctls, const char *path, env_fn fn, void *ctx)
{
	char dir[PATH_MAX], q[64], per[64], v[160];
	int err = 0;

	if (has_ctl(ctls, "cpu") && v1_dir(ctls, path, "cpu", dir, sizeof(dir)) == 0 &&
	    read_in(dir, "cpu.cfs_quota_us", q, sizeof(q)) == 0 &&
	    read_in(dir, "cpu.cfs_period_us", per, sizeof(per)) == 0) {
		snprintf(v, sizeof(v), "%s %s", strcmp(q, "-1") ? q : "max", per);
		if ((err = fn(ctx, "cgroup.path", path)) == 0)
			err = fn(ctx, "cgroup.cpu.max", v);
	}
	if (err == 0 && has_ctl(ctls, "memory") &&
	    v1_dir(ctls, path, "memory", dir, sizeof(dir)) == 0 &&
	    read_in(dir, "memory.limit_in_bytes", v, sizeof(v)) == 0) {
		v1_bytes(v);
		err = fn(ctx, "cgroup.memory.max", v);
	}
	return err;
}

/* /proc/PID/cgroup: "ID:CONTROLLERS:PATH" a line; v2 is "0::PATH", and
 * used when no v1 hierarchy holds the cpu controller. */
static int cgroup_pairs(pid_t pid, env_fn fn, void *ctx)
{
	char file[64], *text = NULL, *line, *save = NULL, *v2_path = NULL;
	size_t len;
	int err = 0, v1 = 0;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	if (slurp(file, &text, &len) < 0)
		return 0;
	for (line = strtok_r(text, "\n", &save); err == 0 && line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		if (c1[1] == '\0') {
			v2_path = c2 + 1;
		} else if (has_ctl(c1 + 1, "cpu") || has_ctl(c1 + 1, "memory")) {
			v1 = 1;
			err = v1_line(c1 + 1, c2 + 1, fn, ctx);
		}
	}
	if (err == 0 && (v1 || v2_path))
		err = fn(ctx, "cgroup.version", v1 ? "1" : "2");
	if (err == 0 && !v1 && v2_path)
		err = v2_pairs(v2_path, fn, ctx);
	free(text);
	return err;
}

int sys_env_process(pid_t pid, char *const *envp, env_fn fn, void *ctx)
{
	char file[64], *text = NULL;
	size_t len;
	int err = 0;

	snprintf(file, sizeof(file), "/proc/%d/limits", (int)pid);
	if (slurp(file, &text, &len) == 0)
		err = env_limits_each(text, len, fn, ctx);
	free(text);
	text = NULL;
	if (err == 0)
		err = cgroup_pairs(pid, fn, ctx);
	if (err < 0)
		return err;
	if (envp) {
		for (; err == 0 && *envp; envp++)
			err = env_environ_each(*envp, strlen(*envp), fn, ctx);
		return err;
	}
	snprintf(file, sizeof(file), "/proc/%d/environ", (int)pid);
	if (slurp(file, &text, &len) == 0)
		err = env_environ_each(text, len, fn, ctx);
	free(text);
	return err;
}
