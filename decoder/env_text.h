/*
 * env_text: the text of the files that describe a session's environment
 * (sysfs selections, /proc/PID/limits, /proc/PID/environ) into key and
 * value pairs.  Pure functions of their input; collector/sys_env.c reads
 * the files, record/environment.c stores the pairs.
 *
 * The formats:
 *   /sys/kernel/mm/transparent_hugepage/enabled  "always [madvise] never\n":
 *       the choice is the word in brackets
 *   /proc/PID/limits  a header line, then one line a limit, columns at
 *       fixed offsets: "Max open files            1024                 "
 *       "1048576              files     \n" (name 25 wide, soft 21, hard
 *       21, units): fs/proc/base.c proc_pid_limits
 *   /proc/PID/environ  NAME=VALUE strings, each ended by a NUL
 */
#ifndef FL_ENV_TEXT_H
#define FL_ENV_TEXT_H

#include <stddef.h>

/* Called once a pair; key and value borrowed for the call.  A negative
 * return stops the walk and is returned. */
typedef int (*env_fn)(void *ctx, const char *key, const char *value);

/* The bracketed word of a sysfs selection into buf (n bytes): 0, or
 * -EINVAL when there is none or it does not fit. */
int env_bracket_choice(const char *text, size_t len, char *buf, size_t n);

/* [text, text + len) less surrounding white space into buf (n bytes);
 * "(null)", which sysfs prints for an empty CPU mask, is "".  0, or
 * -EINVAL when it does not fit. */
int env_trim(const char *text, size_t len, char *buf, size_t n);

/* Each limit of /proc/PID/limits: "limit.NAME" (nofile, memlock, stack,
 * ...: the names of setrlimit(2) without RLIMIT_) with the soft value,
 * "limit.NAME.hard" with the hard one ("unlimited" as printed).  A line
 * of an unknown limit is skipped. */
int env_limits_each(const char *text, size_t len, env_fn fn, void *ctx);

/* Does NAME matter to how a process runs its allocator and its dynamic
 * linker: LD_*, MALLOC_*, GLIBC_TUNABLES?  Only those are kept. */
int env_name_kept(const char *name, size_t len);

/* Each kept NAME=VALUE of an environ block (NUL-separated, the last NUL
 * optional) as "env.NAME", VALUE. */
int env_environ_each(const char *buf, size_t len, env_fn fn, void *ctx);

#endif
