#include <errno.h>
#include <string.h>

#include "syscall_ev.h"

int syscall_fields_bind(struct syscall_fields *f, struct tep_event *enter,
			struct tep_event *exit)
{
	memset(f, 0, sizeof(*f));
	f->enter_id = tep_find_field(enter, "id");
	f->args = tep_find_field(enter, "args");
	f->exit_id = tep_find_field(exit, "id");
	f->ret = tep_find_field(exit, "ret");
	if (!f->enter_id || !f->args || !f->exit_id || !f->ret ||
	    f->args->size != 6 * (int)sizeof(uint64_t))
		return -ENOENT;
	return 0;
}

/* A field's bytes, if they lie inside the raw data. */
static const void *field_at(const struct tep_format_field *field,
			    const struct sample *s)
{
	if ((uint64_t)field->offset + (uint64_t)field->size > s->raw_size)
		return NULL;
	return (const char *)s->raw + field->offset;
}

int syscall_ev(const struct syscall_fields *f, int enter,
	       const struct sample *s, uint32_t cpu, struct ev *out)
{
	unsigned long long id, ret;
	const void *args;

	memset(out, 0, sizeof(*out));
	out->mono_ts = s->sid.time;
	out->pid = s->sid.pid;
	out->tid = s->sid.tid;
	out->cpu = cpu;
	if (enter) {
		args = field_at(f->args, s);
		if (!field_at(f->enter_id, s) || !args ||
		    tep_read_number_field(f->enter_id, s->raw, &id))
			return 0;
		out->kind = EV_SYS_ENTER;
		memcpy(out->u.sys.args, args, sizeof(out->u.sys.args));
	} else {
		if (!field_at(f->exit_id, s) || !field_at(f->ret, s) ||
		    tep_read_number_field(f->exit_id, s->raw, &id) ||
		    tep_read_number_field(f->ret, s->raw, &ret))
			return 0;
		out->kind = EV_SYS_EXIT;
		out->u.sys.ret = (int64_t)ret;
	}
	out->u.sys.nr = (int32_t)id;
	return 1;
}
