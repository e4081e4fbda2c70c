#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../collector/syscall_table.h"
#include "../common/array.h"
#include "../collector/tracepoints.h"
#include "syscalls.h"

/* Calls that return a new descriptor.  A new descriptor takes a free
 * number, freed by a close the recording saw; these also cover a close
 * it could not see (an io_uring close). */
static const char *const returns_fd[] = {
	"open", "openat", "openat2", "creat", "socket", "accept", "accept4",
	"dup", "eventfd", "eventfd2", "epoll_create", "epoll_create1",
	"timerfd_create", "signalfd", "signalfd4", "memfd_create", "fcntl",
	"inotify_init", "inotify_init1", "userfaultfd", "pidfd_open",
	"pidfd_getfd", "open_by_handle_at", "io_uring_setup",
};
/* Calls that close a range of descriptors. */
static const char *const closes_fds[] = {
	"close_range",
};

static void mark(unsigned char *effect, const char *const *names, size_t n,
		 unsigned char what)
{
	for (size_t i = 0; i < n; i++) {
		long nr = syscall_nr(names[i]);

		if (nr >= 0 && nr < SYSCALL_NR_MAX)
			effect[nr] = what;
	}
}

/* sig from the call's syscalls:sys_enter_NAME format, where tracefs
 * has one; else left unknown. */
static void load_sig(struct syscall_sig *sig, struct tep_handle *tep,
		     const char *name)
{
	char event[64];
	struct errmsg why;
	struct tep_event *ev;
	struct tep_format_field *f;
	int i = 0;

	sig->fd_arg = -1;
	snprintf(event, sizeof(event), "sys_enter_%s", name);
	errmsg_init(&why);
	ev = tep ? tracepoint_load(tep, "syscalls", event, &why) : NULL;
	if (!ev)
		return;
	for (f = ev->format.fields; f && i < 6; f = f->next) {
		if (!strcmp(f->name, "__syscall_nr"))
			continue;
		snprintf(sig->names[i], sizeof(sig->names[i]), "%s", f->name);
		sig->pointer[i] = !!(f->flags & TEP_FIELD_IS_POINTER);
		sig->is_signed[i] = !!(f->flags & TEP_FIELD_IS_SIGNED);
		sig->size[i] = (unsigned char)(f->size > 0 && f->size <= 8 ?
					       f->size : 8);
		if (sig->fd_arg < 0 && (!strcmp(f->name, "fd") ||
					!strcmp(f->name, "epfd")))
			sig->fd_arg = i;
		i++;
	}
	sig->nargs = i;
}

int record_syscalls_init(struct record_syscalls *rs,
			 const struct syscall_set *set, struct tep_handle *tep)
{
	memset(rs, 0, sizeof(*rs));
	fd_names_init(&rs->names);
	syscall_files_init(&rs->files);
	strbuf_init(&rs->args);
	rs->set = set;
	if (!set)
		return 0;
	rs->sigs = calloc(SYSCALL_NR_MAX, sizeof(*rs->sigs));
	rs->fd_effect = calloc(SYSCALL_NR_MAX, 1);
	if (!rs->sigs || !rs->fd_effect)
		return -ENOMEM;
	mark(rs->fd_effect, returns_fd, sizeof(returns_fd) / sizeof(*returns_fd), 1);
	mark(rs->fd_effect, closes_fds, sizeof(closes_fds) / sizeof(*closes_fds), 2);
	for (long nr = 0; nr < SYSCALL_NR_MAX; nr++) {
		const char *name = syscall_name(nr);

		rs->sigs[nr].fd_arg = -1;
		if (name && syscall_set_has(set->traced, nr))
			load_sig(&rs->sigs[nr], tep, name);
	}
	return 0;
}

void record_syscalls_release(struct record_syscalls *rs)
{
	for (size_t i = 0; i < rs->nheld; i++) {
		free(rs->held[i].args);
		free(rs->held[i].name_of_fd);
	}
	free(rs->held);
	syscall_files_release(&rs->files);
	free(rs->sigs);
	free(rs->fd_effect);
	fd_names_release(&rs->names);
	strbuf_release(&rs->args);
}

int record_syscalls_wanted(const struct record_syscalls *rs, int32_t nr)
{
	return syscall_set_has(rs->set->wanted, nr);
}

/* A change of pid's descriptor fd at mono_ts (-1: all of them): the
 * names of held rows read after it, of calls before it, are not theirs.
 * A row's fate is settled by the first change after it (a later one is
 * later than its reading too), so the rows are looked through only when
 * the name has been handed out since it was read: a close of a
 * descriptor nobody named costs no scan. */
static void changed(struct record_syscalls *rs, uint32_t pid, int64_t fd,
		    uint64_t mono_ts)
{
	int scan = fd < 0 || fd_names_handed(&rs->names, pid, fd);

	for (size_t i = 0; scan && i < rs->nheld; i++) {
		struct held_syscall *h = &rs->held[i];

		if (h->c.pid != pid || (fd >= 0 && h->fd != fd) || !h->name_of_fd ||
		    h->read_ns < mono_ts || h->c.mono_ts >= mono_ts)
			continue;
		free(h->name_of_fd);
		h->name_of_fd = NULL;
	}
	if (fd >= 0)
		fd_names_forget(&rs->names, pid, fd);
	else
		fd_names_forget_pid(&rs->names, pid);
}

void record_syscalls_exec(struct record_syscalls *rs, uint32_t pid,
			  uint64_t mono_ts)
{
	if (rs->set)
		changed(rs, pid, -1, mono_ts);
}

/* An argument's value as its type says: a pointer in hex, an integer
 * cut to its size, signed or not. */
static void add_value(struct strbuf *sb, const struct syscall_sig *sig, int i,
		      uint64_t v)
{
	unsigned bits = sig->size[i] * 8u;

	if (sig->pointer[i]) {
		strbuf_addf(sb, "0x%llx", (unsigned long long)v);
		return;
	}
	if (bits < 64)
		v &= (1ull << bits) - 1;
	if (sig->is_signed[i] && bits < 64 && (v >> (bits - 1)) & 1)
		v |= ~((1ull << bits) - 1);
	if (sig->is_signed[i])
		strbuf_addf(sb, "%lld", (long long)v);
	else
		strbuf_addf(sb, "%llu", (unsigned long long)v);
}

/* "fd=3, buf=0x7ffd5c9e1000, count=4096"; a0..a5 in hex without a format. */
static const char *args_text(struct record_syscalls *rs,
			     const struct syscall_sig *sig,
			     const struct syscall_call *c)
{
	struct strbuf *sb = &rs->args;

	strbuf_reset(sb);
	for (int i = 0; i < (sig->nargs ? sig->nargs : 6); i++) {
		strbuf_addf(sb, "%s%s=", i ? ", " : "", sig->nargs ?
			    sig->names[i] : (const char *[]){ "a0", "a1", "a2",
			    "a3", "a4", "a5" }[i]);
		if (sig->nargs)
			add_value(sb, sig, i, c->args[i]);
		else
			strbuf_addf(sb, "0x%llx", (unsigned long long)c->args[i]);
	}
	return strbuf_error(sb) ? NULL : strbuf_str(sb);
}

/* What the call did to the process's descriptor numbers, at its exit. */
static void track_fds(struct record_syscalls *rs, const struct syscall_call *c)
{
	const char *name = syscall_name(c->nr);
	unsigned char effect = c->nr >= 0 && c->nr < SYSCALL_NR_MAX ?
			       rs->fd_effect[c->nr] : 0;
	uint64_t at = c->mono_ts + c->dur_ns;

	if (c->dur_ns == SYSCALL_NO_DUR)
		return;		/* not returned: it changed nothing yet */
	if (name && !strcmp(name, "close"))
		changed(rs, c->pid, (int64_t)(int32_t)c->args[0], at);
	else if (name && (!strcmp(name, "dup2") || !strcmp(name, "dup3")))
		changed(rs, c->pid, (int64_t)(int32_t)c->args[1], at);
	else if (effect == 1 && c->ret >= 0)
		changed(rs, c->pid, c->ret, at);
	else if (effect == 2)
		changed(rs, c->pid, -1, at);
}

/* Holds c (with args, a row to store) until the stream passes the
 * reading of its descriptor's name. */
static int hold(struct record_syscalls *rs, const struct syscall_call *c,
		int64_t fd, const char *args)
{
	struct held_syscall *h;
	const char *name = NULL;
	uint64_t read_ns = 0;

	if (ARRAY_RESERVE(rs->held, rs->capheld, rs->nheld + 1) < 0)
		return -ENOMEM;
	if (fd >= 0)
		name = fd_names_get(&rs->names, c->pid, fd, &read_ns);
	h = &rs->held[rs->nheld];
	memset(h, 0, sizeof(*h));
	h->c = *c;
	h->fd = fd;
	h->read_ns = read_ns;
	h->args = args ? strdup(args) : NULL;
	h->name_of_fd = name ? strdup(name) : NULL;
	if ((args && !h->args) || (name && !h->name_of_fd)) {
		free(h->args);
		free(h->name_of_fd);
		return -ENOMEM;
	}
	rs->nheld++;
	return 0;
}

static int store_held(struct record_syscalls *rs, struct loader *l,
		      const struct held_syscall *h, struct errmsg *e)
{
	struct loader_syscall row = { &h->c, syscall_name(h->c.nr), h->fd,
				      h->name_of_fd, h->args };
	char other[32];

	(void)rs;
	if (!row.name) {
		snprintf(other, sizeof(other), "syscall_%d", h->c.nr);
		row.name = other;
	}
	return loader_syscall(l, &row, e);
}

int record_syscalls_store_files(struct record_syscalls *rs, struct loader *l,
				struct errmsg *e)
{
	int err = 0;

	for (size_t i = 0; i < rs->files.nslots && err == 0; i++) {
		const struct syscall_file_sum *s = &rs->files.slots[i];
		struct loader_syscall_file row = { s->tid, s->pid,
			syscall_name(s->nr), s->fd_name, s->calls, s->total_ns,
			s->max_ns, s->blocked_ns };
		char other[32];

		if (!s->calls)
			continue;
		if (!row.name) {
			snprintf(other, sizeof(other), "syscall_%d", s->nr);
			row.name = other;
		}
		err = loader_syscall_file(l, &row, e);
	}
	return err;
}

int record_syscalls_flush(struct record_syscalls *rs, struct loader *l,
			  uint64_t watermark, struct errmsg *e)
{
	size_t kept = 0;
	int err = 0;

	for (size_t i = 0; i < rs->nheld; i++) {
		struct held_syscall *h = &rs->held[i];

		if (err == 0 && h->read_ns <= watermark) {
			if (h->fd >= 0 && h->name_of_fd)
				rs->named++;
			else if (h->fd >= 0)
				rs->unnamed++;
			if (h->fd >= 0 && h->c.dur_ns != SYSCALL_NO_DUR &&
			    syscall_files_add(&rs->files, h->c.tid, h->c.pid, h->c.nr,
					      h->name_of_fd, h->c.dur_ns,
					      h->c.blocked_ns) < 0)
				err = errmsg_set(e, ENOMEM, "out of memory");
			if (err == 0 && h->args)
				err = store_held(rs, l, h, e);
			free(h->args);
			free(h->name_of_fd);
		} else {
			rs->held[kept++] = *h;
		}
	}
	rs->nheld = kept;
	return err;
}

int record_syscalls_done(struct record_syscalls *rs, struct loader *l,
			 const struct syscall_call *c, int store,
			 struct errmsg *e)
{
	static const struct syscall_sig unknown = { .fd_arg = -1 };
	const struct syscall_sig *sig = c->nr >= 0 && c->nr < SYSCALL_NR_MAX ?
					&rs->sigs[c->nr] : &unknown;
	int64_t fd = sig->fd_arg >= 0 ? (int64_t)(int32_t)c->args[sig->fd_arg] : -1;
	const char *args = NULL;
	int err = 0;

	(void)l;
	/* Held before the call's own effect: a close names what it closed.
	 * A timed call on a descriptor is held to be summed per file even
	 * when it is too short for a row. */
	if (store && !(args = args_text(rs, sig, c)))
		err = -ENOMEM;
	else if (store || (fd >= 0 && c->dur_ns != SYSCALL_NO_DUR &&
			   record_syscalls_wanted(rs, c->nr)))
		err = hold(rs, c, fd, args);
	if (err < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	track_fds(rs, c);
	return 0;
}
