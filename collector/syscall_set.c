#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/edit_distance.h"
#include "../common/strbuf.h"
#include "syscall_set.h"
#include "syscall_table.h"

/* The calls a thread waits in.  Not all exist on every architecture
 * (select, poll, epoll_wait are x86-64's): those a build does not know
 * are left out of the default silently. */
const char syscall_default_list[] =
	"read,pread64,readv,preadv,preadv2,write,pwrite64,writev,pwritev,"
	"pwritev2,fsync,fdatasync,sync_file_range,sync,syncfs,msync,"
	"openat,close,flock,"
	"futex,futex_waitv,poll,ppoll,select,pselect6,epoll_wait,epoll_pwait,"
	"epoll_pwait2,accept,accept4,connect,recvfrom,recvmsg,recvmmsg,sendto,"
	"sendmsg,sendmmsg,nanosleep,clock_nanosleep,pause,rt_sigtimedwait,"
	"rt_sigsuspend,wait4,waitid,io_getevents,io_pgetevents,io_uring_enter,"
	"msgrcv,msgsnd,semop,semtimedop,mq_timedreceive,mq_timedsend";

/* What changes which file a descriptor number names: traced whatever the
 * list, so a name is never carried across one (record/fd_names.h). */
static const char *const fd_calls[] = {
	"close", "close_range", "dup", "dup2", "dup3", "open", "openat",
	"openat2", "creat", "socket", "socketpair", "accept", "accept4",
	"pipe", "pipe2", "eventfd", "eventfd2", "epoll_create", "epoll_create1",
	"timerfd_create", "signalfd", "signalfd4", "memfd_create", "fcntl",
	"inotify_init", "inotify_init1", "userfaultfd", "pidfd_open",
	"pidfd_getfd", "open_by_handle_at", "io_uring_setup",
};

static void set_bit(unsigned char *bits, long nr)
{
	bits[nr / 8] |= (unsigned char)(1u << (nr % 8));
}

/* The known name closest to a misspelt one, for the message. */
static const char *closest_name(const char *name)
{
	const char **names = malloc(syscall_table_n * sizeof(*names));
	const char *near = NULL;

	if (!names)
		return NULL;
	for (size_t i = 0; i < syscall_table_n; i++)
		names[i] = syscall_table[i].name;
	near = edit_closest(name, names, syscall_table_n);
	free(names);
	return near;
}

static int add_name(struct syscall_set *s, const char *name, int strict,
		    struct errmsg *e)
{
	long nr = syscall_nr(name);
	const char *near;

	if (nr < 0 || nr >= SYSCALL_NR_MAX) {
		if (!strict)
			return 0;
		near = closest_name(name);
		if (near)
			return errmsg_set(e, EINVAL, "invalid --syscalls: no system "
					  "call '%s' on this machine; did you mean "
					  "'%s'?", name, near);
		return errmsg_set(e, EINVAL, "invalid --syscalls: no system call "
				  "'%s' on this machine; name calls as in "
				  "<sys/syscall.h> without __NR_ (read, futex), or "
				  "'default'", name);
	}
	if (!syscall_set_has(s->wanted, nr))
		s->nwanted++;
	set_bit(s->wanted, nr);
	set_bit(s->traced, nr);
	return 0;
}

/* Each comma-separated name of list; strict: an unknown one is an error. */
static int add_list(struct syscall_set *s, const char *list, int strict,
		    struct errmsg *e)
{
	char *copy = strdup(list), *save = NULL;
	int err = copy ? 0 : -ENOMEM;

	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && err == 0;
	     t = strtok_r(NULL, ",", &save))
		err = strcmp(t, "default") ? add_name(s, t, strict, e) :
		      add_list(s, syscall_default_list, 0, e);
	free(copy);
	if (err == -ENOMEM)
		return errmsg_set(e, ENOMEM, "out of memory");
	return err;
}

int syscall_set_parse(struct syscall_set *s, const char *list,
		      struct errmsg *e)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = add_list(s, list, 1, e);
	if (err == 0 && !s->nwanted)
		return errmsg_set(e, EINVAL, "invalid --syscalls: no system call "
				  "named; give names (read,futex) or 'default'");
	for (size_t i = 0; i < sizeof(fd_calls) / sizeof(fd_calls[0]) && err == 0; i++) {
		long nr = syscall_nr(fd_calls[i]);

		if (nr >= 0 && nr < SYSCALL_NR_MAX)
			set_bit(s->traced, nr);
	}
	return err;
}

char *syscall_set_filter(const struct syscall_set *s)
{
	struct strbuf sb;

	strbuf_init(&sb);
	for (long nr = 0; nr < SYSCALL_NR_MAX; nr++)
		if (syscall_set_has(s->traced, nr))
			strbuf_addf(&sb, "%sid == %ld", sb.len ? " || " : "", nr);
	if (strbuf_error(&sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}
