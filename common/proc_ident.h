/*
 * proc_ident: a process told apart from a later one that gets its pid.
 * The kernel reuses pids; what it does not reuse within a boot is a
 * pid's pairing with its start time (the starttime field of
 * /proc/PID/stat, clock ticks after boot), and a boot is named by
 * /proc/sys/kernel/random/boot_id.  A session stores its recorder's
 * identity so that a later faultline can tell a recorder that still
 * records from one that was killed.
 */
#ifndef FL_PROC_IDENT_H
#define FL_PROC_IDENT_H

#include <stdint.h>
#include <sys/types.h>

struct proc_ident {
	pid_t pid;
	uint64_t start_ticks;	/* /proc/PID/stat starttime; 0: unknown */
	char boot_id[40];	/* "" when unknown */
};

/* This process's identity.  0, or a negative errno (no /proc): the
 * fields then hold what could be read (pid always). */
int proc_ident_self(struct proc_ident *id);

/* The start time of pid, into *ticks.  0, -ESRCH when there is no such
 * process, another negative errno when /proc cannot say. */
int proc_start_ticks(pid_t pid, uint64_t *ticks);

/* This boot's id, NUL-terminated, into out[40].  0 or a negative errno. */
int proc_boot_id(char out[40]);

/*
 * Does the process id names run now?  1 when its pid runs with the same
 * start time in the same boot; 0 when it does not (its pid is gone, or
 * reused by a later process, or id is of another boot or machine); -1
 * when this cannot be told (id lacks its start time or boot: a live pid
 * is then taken as the same process).
 */
int proc_ident_alive(const struct proc_ident *id);

#endif
