/*
 * cpulist: the kernel's CPU list syntax, "0-3,8,10-11", as in
 * /sys/devices/system/cpu/online and taskset -c.
 */
#ifndef FL_CPULIST_H
#define FL_CPULIST_H

#include <sched.h>

/* Parses s (a trailing newline is allowed) into *out.  0, or -EINVAL for
 * anything else: an empty list, a range that runs backwards, a CPU at or
 * above CPU_SETSIZE. */
int cpulist_parse(const char *s, cpu_set_t *out);

#endif
