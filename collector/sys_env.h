/*
 * sys_env: what the machine and a target process were set to when a
 * recording began, read from /proc and /sys, as key and value pairs for
 * the session_env table (record/environment.c).  decoder/env_text.h
 * parses the text.
 *
 * A file that cannot be read gives no pair: a value is what the kernel
 * said, never a stand-in.  A VM without cpufreq has no cpu.governor; a
 * kernel without transparent hugepages no thp.*.
 */
#ifndef FL_SYS_ENV_H
#define FL_SYS_ENV_H

#include <sys/types.h>

#include "../decoder/env_text.h"

/* The machine: kernel.release, kernel.version, kernel.cmdline, vm.*,
 * thp.enabled, thp.defrag, cpu.model, cpu.microcode, cpu.governor,
 * cpu.online, cpu.isolated, cpu.nohz_full, numa.nodes, clocksource.
 * 0, or fn's negative return. */
int sys_env_host(env_fn fn, void *ctx);

/*
 * Process pid: its limits (limit.*), its cgroup (cgroup.version,
 * cgroup.path, cgroup.cpu.max as "QUOTA PERIOD" or "max PERIOD",
 * cgroup.memory.max in bytes or "max", cgroup.memory.high on v2), and
 * the kept names of its environment (env.*, env_text.h) from envp when
 * given (a command about to be started with it), else from
 * /proc/PID/environ.  0, or fn's negative return; a process gone gives
 * nothing.
 */
int sys_env_process(pid_t pid, char *const *envp, env_fn fn, void *ctx);

#endif
