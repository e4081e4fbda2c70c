#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/json.h"
#include "tracepoint.h"

void tp_spec_list_init(struct tp_spec_list *l)
{
	memset(l, 0, sizeof(*l));
}

void tp_spec_list_release(struct tp_spec_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].system);
		free(l->v[i].name);
		free(l->v[i].full);
		free(l->v[i].filter);
	}
	free(l->v);
	tp_spec_list_init(l);
}

static size_t ident_len(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
}

int tp_spec_add(struct tp_spec_list *l, const char *arg, const char *opt,
		struct errmsg *e)
{
	const char *colon = strchr(arg, ':'), *slash;
	size_t sys_len, name_len, arg_len = strlen(arg);
	struct tp_spec sp = { 0 };

	slash = colon ? strchr(colon, '/') : NULL;
	sys_len = colon ? (size_t)(colon - arg) : 0;
	name_len = !colon ? 0 : slash ? (size_t)(slash - colon - 1) : strlen(colon + 1);
	if (!sys_len || !name_len || ident_len(arg) != sys_len ||
	    ident_len(colon + 1) != name_len ||
	    (slash && (arg_len - (size_t)(slash - arg) < 3 || arg[arg_len - 1] != '/')))
		return errmsg_set(e, EINVAL, "invalid %s '%s': expected SUBSYS:NAME "
				  "or SUBSYS:NAME/FILTER/, e.g. skb:kfree_skb or "
				  "'sched:sched_switch/prev_pid == 42/'", opt, arg);
	sp.system = strndup(arg, sys_len);
	sp.name = strndup(colon + 1, name_len);
	sp.full = strndup(arg, sys_len + 1 + name_len);
	if (slash)
		sp.filter = strndup(slash + 1, arg_len - (size_t)(slash - arg) - 2);
	if (!sp.system || !sp.name || !sp.full || (slash && !sp.filter) ||
	    ARRAY_RESERVE(l->v, l->cap, l->n + 1) < 0) {
		free(sp.system);
		free(sp.name);
		free(sp.full);
		free(sp.filter);
		return -ENOMEM;
	}
	l->v[l->n++] = sp;
	return 0;
}

int sched_fields_bind(struct sched_fields *f, struct tep_event *sched_switch,
		      struct tep_event *sched_waking)
{
	memset(f, 0, sizeof(*f));
	if (sched_switch) {
		f->prev_pid = tep_find_field(sched_switch, "prev_pid");
		f->prev_state = tep_find_field(sched_switch, "prev_state");
		f->prev_comm = tep_find_field(sched_switch, "prev_comm");
		f->next_pid = tep_find_field(sched_switch, "next_pid");
		f->next_comm = tep_find_field(sched_switch, "next_comm");
	}
	if (sched_waking) {
		f->woken_pid = tep_find_field(sched_waking, "pid");
		f->waking_flags = tep_find_common_field(sched_waking, "common_flags");
	}
	return f->prev_pid && f->prev_state && f->next_pid && f->woken_pid ?
	       0 : -ENOENT;
}

/* A field's value, if it lies inside the raw data. */
static int read_field(struct tep_format_field *field, const struct sample *s,
		      unsigned long long *v)
{
	if (!field || (uint64_t)field->offset + (uint64_t)field->size > s->raw_size)
		return -1;
	return tep_read_number_field(field, s->raw, v) == 0 ? 0 : -1;
}

/* A char[] field into out (COMM_LEN bytes, NUL-terminated); "" when it
 * is absent or outside the raw data. */
static void read_comm(struct tep_format_field *field, const struct sample *s,
		      char *out)
{
	size_t n;

	out[0] = '\0';
	if (!field || (uint64_t)field->offset + (uint64_t)field->size > s->raw_size)
		return;
	n = (size_t)field->size < COMM_LEN - 1 ? (size_t)field->size : COMM_LEN - 1;
	memcpy(out, (const char *)s->raw + field->offset, n);
	out[n] = '\0';
}

/*
 * The kernel's trace flags (include/linux/trace_events.h, enum
 * trace_flag_type): what context the event ran in.  The innermost wins:
 * an NMI can interrupt a hard interrupt, which can interrupt a softirq.
 */
#define TRACE_FLAG_HARDIRQ	0x08
#define TRACE_FLAG_SOFTIRQ	0x10
#define TRACE_FLAG_NMI		0x40

enum wake_ctx wake_ctx_of_flags(uint32_t common_flags)
{
	if (common_flags & TRACE_FLAG_NMI)
		return WAKE_NMI;
	if (common_flags & TRACE_FLAG_HARDIRQ)
		return WAKE_HARDIRQ;
	if (common_flags & TRACE_FLAG_SOFTIRQ)
		return WAKE_SOFTIRQ;
	return WAKE_THREAD;
}

int sched_ev(const struct sched_fields *f, enum ev_role role,
	     const struct sample *s, uint32_t cpu, struct ev *out)
{
	unsigned long long tid, state = 0, next = 0;

	memset(out, 0, sizeof(*out));
	out->mono_ts = s->sid.time;
	out->cpu = cpu;
	out->cpu_wide = 1;
	if (role == ROLE_TP_SCHED_SWITCH) {
		if (read_field(f->prev_pid, s, &tid) ||
		    read_field(f->prev_state, s, &state) ||
		    read_field(f->next_pid, s, &next))
			return 0;
		out->kind = EV_SCHED_SWITCH;
		out->tid = (uint32_t)tid;
		out->pid = tid == s->sid.tid ? s->sid.pid : 0;
		out->u.sched.prev_state = (uint32_t)state;
		out->u.sched.next_tid = (uint32_t)next;
		read_comm(f->prev_comm, s, out->u.sched.prev_comm);
		read_comm(f->next_comm, s, out->u.sched.next_comm);
		return 1;
	}
	if (read_field(f->woken_pid, s, &tid))
		return 0;
	out->kind = EV_WAKING;
	out->tid = (uint32_t)tid;
	out->u.sched.waker_tid = s->sid.tid;
	out->u.sched.waker_pid = s->sid.pid;
	if (read_field(f->waking_flags, s, &state) == 0)
		out->u.sched.waker_ctx = (uint8_t)wake_ctx_of_flags((uint32_t)state);
	return 1;
}

/* The __print_symbolic() table that prints this field, if any. */
static struct tep_print_flag_sym *symbols_of(struct tep_print_arg *a,
					     const char *field)
{
	for (; a; a = a->next) {
		struct tep_print_arg *f;
		struct tep_print_flag_sym *inner = NULL;

		if (a->type == TEP_PRINT_SYMBOL) {
			f = a->symbol.field;
			if (f && f->type == TEP_PRINT_FIELD && f->field.name &&
			    !strcmp(f->field.name, field))
				return a->symbol.symbols;
		} else if (a->type == TEP_PRINT_OP) {
			inner = symbols_of(a->op.left, field);
			if (!inner)
				inner = symbols_of(a->op.right, field);
		} else if (a->type == TEP_PRINT_TYPE) {
			inner = symbols_of(a->typecast.item, field);
		}
		if (inner)
			return inner;
	}
	return NULL;
}

static const char *symbol_name(struct tep_print_flag_sym *sym,
			       unsigned long long v)
{
	for (; sym; sym = sym->next)
		if (sym->value && strtoull(sym->value, NULL, 0) == v)
			return sym->str;
	return NULL;
}

static void number(struct strbuf *b, struct tep_format_field *f,
		   unsigned long long v)
{
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		long long sv = f->size == 1 ? (int8_t)v : f->size == 2 ? (int16_t)v :
			       f->size == 4 ? (int32_t)v : (long long)v;

		strbuf_addf(b, "%lld", sv);
	} else {
		strbuf_addf(b, "%llu", v);
	}
}

static int one_field(struct strbuf *b, struct tep_event *ev,
		     struct tep_format_field *f, const uint8_t *raw, size_t size)
{
	unsigned long long v;
	const char *sym;

	if ((uint64_t)f->offset + (uint64_t)f->size > size)
		return -EBADMSG;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		/* u32: offset in the low half, length in the high half. */
		uint32_t loc;
		size_t off, len;

		memcpy(&loc, raw + f->offset, 4);
		off = (loc & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ?
					(size_t)f->offset + (size_t)f->size : 0);
		len = loc >> 16;
		if (off + len > size)
			return -EBADMSG;
		if (f->flags & TEP_FIELD_IS_STRING)
			json_string(b, (const char *)raw + off, len);
		else
			strbuf_addf(b, "%zu", len);	/* a dynamic array: its length */
		return 0;
	}
	if (f->flags & TEP_FIELD_IS_STRING) {
		json_string(b, (const char *)raw + f->offset, (size_t)f->size);
		return 0;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		unsigned n = f->elementsize ? (unsigned)f->size / f->elementsize : 0;

		strbuf_addf(b, "[");
		for (unsigned i = 0; i < n; i++) {
			v = tep_read_number(ev->tep, raw + f->offset + i * f->elementsize,
					    (int)f->elementsize);
			strbuf_addf(b, "%s%llu", i ? "," : "", v);
		}
		strbuf_addf(b, "]");
		return 0;
	}
	if (tep_read_number_field(f, raw, &v) != 0)
		return -EBADMSG;
	sym = symbol_name(symbols_of(ev->print_fmt.args, f->name), v);
	if (sym)
		json_string(b, sym, strlen(sym));
	else
		number(b, f, v);
	return 0;
}

int tp_fields_json(struct tep_event *ev, const void *raw, size_t size,
		   struct strbuf *out)
{
	int first = 1, err;

	strbuf_reset(out);
	strbuf_addc(out, '{');
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		if (!first)
			strbuf_addc(out, ',');
		json_cstring(out, f->name);
		strbuf_addc(out, ':');
		err = one_field(out, ev, f, raw, size);
		if (err < 0)
			return err;
		first = 0;
	}
	strbuf_addc(out, '}');
	return strbuf_error(out);
}
