#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->exec_err_fd >= 0)
		close(t->exec_err_fd);
	target_set_init(t);
}

int target_add_ids(pid_t **list, size_t *n, const char *arg, const char *opt,
		   struct errmsg *e)
{
	const char *p = arg;

	while (*p) {
		char *end;
		long v;
		pid_t *nl;

		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > 0x3fffffff ||
		    (*end && *end != ','))
			return errmsg_set(e, EINVAL, "invalid %s '%s': expected "
					  "positive ids separated by commas", opt, arg);
		nl = realloc(*list, (*n + 1) * sizeof(**list));
		if (!nl)
			return -ENOMEM;
		*list = nl;
		(*list)[(*n)++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int target_system_wide(const struct target_set *t)
{
	return t->all || t->ncomms > 0;
}

int target_check(const struct target_set *t, struct errmsg *e)
{
	char path[64];

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
	}
	for (size_t i = 0; i < t->ntids; i++) {
		snprintf(path, sizeof(path), "/proc/%d", (int)t->tids[i]);
		if (access(path, F_OK) != 0)
			return errmsg_set(e, ESRCH, "no such thread %d; check the tid "
					  "with 'ps -eL'", (int)t->tids[i]);
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
