#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/array.h"
#include "procfs.h"
#include "targets.h"

void target_set_init(struct target_set *t)
{
	memset(t, 0, sizeof(*t));
	t->go_fd = -1;
	t->exec_err_fd = -1;
	t->self = getpid();
}

static void end_child(pid_t child)
{
	int i;

	kill(child, SIGTERM);
	for (i = 0; i < 100; i++) {
		if (waitpid(child, NULL, WNOHANG) == child)
			return;
		usleep(10000);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

void target_set_release(struct target_set *t)
{
	if (t->child > 0 && !t->child_reaped)
		end_child(t->child);
	free(t->pids);
	free(t->tids);
	free(t->comms);
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->exec_err_fd >= 0)
		close(t->exec_err_fd);
	target_set_init(t);
}

static int add_ids(pid_t **list, size_t *n, size_t *cap, const char *arg,
		   const char *opt, struct errmsg *e)
{
	const char *p = arg;

	while (*p) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > 0x3fffffff ||
		    (*end && *end != ','))
			return errmsg_set(e, EINVAL, "invalid %s '%s': expected "
					  "positive ids separated by commas", opt, arg);
		if (ARRAY_RESERVE(*list, *cap, *n + 1) < 0)
			return -ENOMEM;
		(*list)[(*n)++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int target_add_pids(struct target_set *t, const char *arg, const char *opt,
		    struct errmsg *e)
{
	return add_ids(&t->pids, &t->npids, &t->pids_cap, arg, opt, e);
}

int target_add_tids(struct target_set *t, const char *arg, const char *opt,
		    struct errmsg *e)
{
	return add_ids(&t->tids, &t->ntids, &t->tids_cap, arg, opt, e);
}

int target_add_comm(struct target_set *t, char *name, const char *opt,
		    struct errmsg *e)
{
	if (!*name || strlen(name) > 15)
		return errmsg_set(e, EINVAL, "invalid %s '%s': a thread name is 1 "
				  "to 15 characters (the kernel keeps no more)",
				  opt, name);
	if (ARRAY_RESERVE(t->comms, t->comms_cap, t->ncomms + 1) < 0)
		return -ENOMEM;
	t->comms[t->ncomms++] = name;
	return 0;
}

int target_system_wide(const struct target_set *t)
{
	return t->all || t->ncomms > 0;
}

/* Is there an executable file for the command, found as execvp will
 * (a name with a '/' as it is, else along PATH)?  Checked before the
 * session exists, so a typo costs no database row. */
static int command_found(const char *cmd)
{
	const char *path = getenv("PATH"), *p;
	char full[4096];

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0 ? 0 : -errno;
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p += strcspn(p, ":") + 1) {
		size_t len = strcspn(p, ":");

		snprintf(full, sizeof(full), "%.*s%s%s", (int)len, p, len ? "/" : "",
			 cmd);
		if (access(full, X_OK) == 0)
			return 0;
		if (!p[len])
			return -ENOENT;
	}
}

static int check_command(const struct target_set *t, struct errmsg *e)
{
	int err;

	if (!t->command)
		return 0;
	err = command_found(t->command[0]);
	if (err == -ENOENT && strchr(t->command[0], '/'))
		return errmsg_set(e, ENOENT, "cannot run '%s': command not found; "
				  "check its path", t->command[0]);
	if (err == -ENOENT)
		return errmsg_set(e, ENOENT, "cannot run '%s': command not found "
				  "in PATH; check its name, or give its path",
				  t->command[0]);
	if (err < 0)
		return errmsg_set(e, -err, "cannot run '%s': %s", t->command[0],
				  strerror(-err));
	return 0;
}

/* A kernel thread takes no user page faults: worth a word at once. */
static void warn_kthread(pid_t id, const char *opt, struct errmsg *warn)
{
	char comm[16] = "";

	if (warn->text[0] || proc_is_kthread(id) != 1)
		return;
	proc_read_comm(id, id, comm);
	errmsg_set(warn, EINVAL, "%s %d (%s) is a kernel thread: it takes no user "
		   "page faults, so only its thread states will be recorded",
		   opt, (int)id, comm);
}

int target_check(const struct target_set *t, struct errmsg *warn,
		 struct errmsg *e)
{
	char path[64];
	int err = check_command(t, e);

	if (err < 0)
		return err;
	for (size_t i = 0; i < t->npids; i++) {
		pid_t tgid = proc_tgid(t->pids[i]);

		if (tgid < 0)
			return errmsg_set(e, ESRCH, "no such process %d; check the "
					  "pid with 'ps -e'", (int)t->pids[i]);
		if (tgid != t->pids[i])
			return errmsg_set(e, EINVAL, "%d is a thread of process %d, "
					  "not a process; use -t %d for the thread or "
					  "-p %d for the process", (int)t->pids[i],
					  (int)tgid, (int)t->pids[i], (int)tgid);
		warn_kthread(t->pids[i], "-p", warn);
	}
	for (size_t i = 0; i < t->ntids; i++) {
		snprintf(path, sizeof(path), "/proc/%d", (int)t->tids[i]);
		if (access(path, F_OK) != 0)
			return errmsg_set(e, ESRCH, "no such thread %d; check the tid "
					  "with 'ps -eL'", (int)t->tids[i]);
		warn_kthread(t->tids[i], "-t", warn);
	}
	return 0;
}

static int in_list(const pid_t *v, size_t n, pid_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

int target_wanted(const struct target_set *t, pid_t pid, pid_t tid,
		  const char *comm)
{
	if (pid == t->self)
		return 0;
	if (t->all || in_list(t->pids, t->npids, pid) ||
	    in_list(t->tids, t->ntids, tid) || (t->child && pid == t->child))
		return 1;
	for (size_t i = 0; i < t->ncomms; i++)
		if (!strcmp(t->comms[i], comm))
			return 1;
	return 0;
}

/* In the child: wait for the go byte, then exec; on failure write errno
 * to the error pipe (closed on a successful exec, so the parent reads
 * EOF). */
static void child_run(struct target_set *t, int go_rd, int err_wr)
{
	sigset_t none;
	char c;
	int err;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (read(go_rd, &c, 1) != 1)
		_exit(127);
	close(go_rd);
	execvp(t->command[0], t->command);
	err = errno;
	if (write(err_wr, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

int target_spawn(struct target_set *t, struct errmsg *e)
{
	int go[2], ex[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return errmsg_set(e, errno, "cannot start '%s': %s", t->command[0],
				  strerror(errno));
	if (pipe2(ex, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return errmsg_set(e, errno, "cannot start '%s': %s", t->command[0],
				  strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		int err = errno;

		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return errmsg_set(e, err, "cannot start '%s': fork: %s",
				  t->command[0], strerror(err));
	}
	if (pid == 0) {
		close(go[1]);
		close(ex[0]);
		child_run(t, go[0], ex[1]);
	}
	close(go[0]);
	close(ex[1]);
	t->child = pid;
	t->go_fd = go[1];
	t->exec_err_fd = ex[0];
	return 0;
}

int target_start(struct target_set *t, struct errmsg *e)
{
	int child_errno = 0;
	ssize_t n;

	if (write(t->go_fd, "g", 1) != 1)
		return errmsg_set(e, EIO, "cannot start '%s': the child is gone",
				  t->command[0]);
	close(t->go_fd);
	t->go_fd = -1;
	n = read(t->exec_err_fd, &child_errno, sizeof(child_errno));
	close(t->exec_err_fd);
	t->exec_err_fd = -1;
	if (n == (ssize_t)sizeof(child_errno)) {
		waitpid(t->child, NULL, 0);
		t->child_reaped = 1;
		if (child_errno == ENOENT)
			return errmsg_set(e, ENOENT, "cannot run '%s': command not "
					  "found; check the name and PATH",
					  t->command[0]);
		return errmsg_set(e, child_errno, "cannot run '%s': %s",
				  t->command[0], strerror(child_errno));
	}
	return 0;
}
