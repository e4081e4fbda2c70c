/*
 * targets: which threads a recording is about, and starting the command
 * of `record -- COMMAND` so that it is traced from its first instruction.
 */
#ifndef FL_TARGETS_H
#define FL_TARGETS_H

#include <stddef.h>
#include <sys/types.h>

#include "../common/errmsg.h"

struct target_set {
	pid_t *pids;		/* owned: -p processes (all their threads) */
	size_t npids, pids_cap;
	pid_t *tids;		/* owned: -t threads */
	size_t ntids, tids_cap;
	char **comms;		/* owned array of borrowed (argv) --comm names */
	size_t ncomms, comms_cap;
	int all;		/* -a: every thread on the machine */
	char **command;		/* borrowed (argv): -- COMMAND ARGS, or NULL */
	pid_t child;		/* the started command; 0 before target_spawn */
	int child_reaped;	/* it exited and was waited for */
	int go_fd;		/* owned: write end the child waits on */
	int exec_err_fd;	/* owned: read end, the child's exec errno */
	pid_t self;		/* faultline's own pid: never a target, or -a
				 * would record its own recording */
};

void target_set_init(struct target_set *t);
/* Frees the lists; a command still running (recording stopped by a
 * signal, --duration or an error) is sent SIGTERM, then SIGKILL after a
 * second, and reaped: faultline started it, so faultline ends it. */
void target_set_release(struct target_set *t);

/* Appends to t->pids (or t->tids) from a list like "12,34".  0, -EINVAL
 * with e naming opt and the bad item, or -ENOMEM. */
int target_add_pids(struct target_set *t, const char *arg, const char *opt,
		    struct errmsg *e);
int target_add_tids(struct target_set *t, const char *arg, const char *opt,
		    struct errmsg *e);
/* Appends a thread name (borrowed: it must outlive t).  0, -EINVAL with
 * e for a name the kernel cannot hold, or -ENOMEM. */
int target_add_comm(struct target_set *t, char *name, const char *opt,
		    struct errmsg *e);

/* Events are opened per CPU for every thread (pid -1) and rows kept
 * only for target threads: -a, and --comm (a name can appear anywhere,
 * at any time). */
int target_system_wide(const struct target_set *t);

/* Checks that every -p process and -t thread exists now, and that the
 * command can be run.  0 or -errno with e; a target worth a word (a
 * kernel thread) sets *warn, if not set already. */
int target_check(const struct target_set *t, struct errmsg *warn,
		 struct errmsg *e);

/* Is the thread (pid, tid, comm) a target?  For system-wide recording. */
int target_wanted(const struct target_set *t, pid_t pid, pid_t tid,
		  const char *comm);

/* Forks the command; the child waits until target_start releases it.
 * 0 or -errno with e set. */
int target_spawn(struct target_set *t, struct errmsg *e);

/* Lets the child exec, and reports (with e) if exec failed: -ENOENT etc. */
int target_start(struct target_set *t, struct errmsg *e);

#endif
