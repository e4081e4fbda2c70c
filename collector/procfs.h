/*
 * procfs: what /proc and /sys say about processes, threads and CPUs.
 * Every list returned is malloc'd and owned by the caller (free()).
 */
#ifndef FL_PROCFS_H
#define FL_PROCFS_H

#include <stddef.h>
#include <sys/types.h>

#include "../decoder/perf_record.h"

/* Online CPUs from /sys/devices/system/cpu/online.  0 or -errno. */
int proc_online_cpus(int **cpus, int *n);

/* Threads of process pid (/proc/PID/task).  0, or -ESRCH if it is gone. */
int proc_list_tids(pid_t pid, pid_t **tids, size_t *n);

/* Every process on the machine.  0 or -errno. */
int proc_list_pids(pid_t **pids, size_t *n);

/* The thread's name into comm (16 bytes, NUL-terminated).  0 or -errno. */
int proc_read_comm(pid_t pid, pid_t tid, char comm[16]);

/* The process a thread belongs to (Tgid), or -errno. */
pid_t proc_tgid(pid_t tid);

/* The pid the kernel handed out last (ns_last_pid), or -errno. */
pid_t proc_last_pid(void);

/* The value of "key\t: value" in /proc/cpuinfo text (its first CPU),
 * into buf; "" when absent.  "model" is not "model name". */
void cpuinfo_field(const char *text, const char *key, char *buf, size_t n);

/* The CPU's "model name" from /proc/cpuinfo into buf; "" when the kernel
 * names none (some architectures) or the file cannot be read. */
void proc_cpu_model(char *buf, size_t n);

/* 1 if tid is a kernel thread (PF_KTHREAD: it has no user memory), 0 if
 * not, or -errno. */
int proc_is_kthread(pid_t tid);

/* Calls fn for each mapping of pid that has a name (file, [vdso], ...),
 * as an MMAP2-like record; filename is borrowed for the call.  Returns 0,
 * -ESRCH if pid is gone, or fn's negative return. */
int proc_maps_each(pid_t pid, int (*fn)(void *ctx, const struct rec_mmap *m),
		   void *ctx);

#endif
