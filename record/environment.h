/*
 * environment: the session_env rows of a recording.  What the machine
 * and the target were set to is read when the recording begins
 * (collector/sys_env.h), before the target runs on: the kernel, its
 * tunables, the CPU, and the first target process's limits, cgroup and
 * LD_* / MALLOC_* environment.  The build ids of the files the targets
 * mapped are stored at the end, from the mapping rows.
 *
 * Which process: the command (its environment is the one it is started
 * with: faultline's own, execvp passes it on), else the first -p
 * process, else the process of the first -t thread.  --comm and -a name
 * no process when recording begins: no limit.*, cgroup.* or env.* rows.
 */
#ifndef FL_RECORD_ENVIRONMENT_H
#define FL_RECORD_ENVIRONMENT_H

#include "../collector/targets.h"
#include "../schema/loader.h"

/* Writes the rows read at the start through l (begun).  0 or -errno
 * with e (a write that failed; a file that cannot be read is left out). */
int record_environment_begin(struct loader *l, const struct target_set *t,
			     struct errmsg *e);

/* The build_id.PATH rows, once the threads and mappings are stored. */
int record_environment_end(struct loader *l, struct errmsg *e);

#endif
