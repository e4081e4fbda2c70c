#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracepoint.h"

int sched_fields_bind(struct sched_fields *f, struct tep_event *sched_switch,
		      struct tep_event *sched_waking)
{
	memset(f, 0, sizeof(*f));
	if (sched_switch) {
		f->prev_pid = tep_find_field(sched_switch, "prev_pid");
		f->prev_state = tep_find_field(sched_switch, "prev_state");
	}
	if (sched_waking)
		f->woken_pid = tep_find_field(sched_waking, "pid");
	return f->prev_pid && f->prev_state && f->woken_pid ? 0 : -ENOENT;
}

/* A field's value, if it lies inside the raw data. */
static int read_field(struct tep_format_field *field, const struct sample *s,
		      unsigned long long *v)
{
	if (!field || (uint64_t)field->offset + (uint64_t)field->size > s->raw_size)
		return -1;
	return tep_read_number_field(field, s->raw, v) == 0 ? 0 : -1;
}

int sched_ev(const struct sched_fields *f, enum ev_role role,
	     const struct sample *s, uint32_t cpu, struct ev *out)
{
	unsigned long long tid, state = 0;

	memset(out, 0, sizeof(*out));
	out->ts = s->sid.time;
	out->cpu = cpu;
	out->cpu_wide = 1;
	if (role == ROLE_TP_SCHED_SWITCH) {
		if (read_field(f->prev_pid, s, &tid) || read_field(f->prev_state, s, &state))
			return 0;
		out->kind = EV_PREV_STATE;
		out->tid = (uint32_t)tid;
		out->pid = tid == s->sid.tid ? s->sid.pid : 0;
		out->u.sched.prev_state = (uint32_t)state;
		return 1;
	}
	if (read_field(f->woken_pid, s, &tid))
		return 0;
	out->kind = EV_WAKING;
	out->tid = (uint32_t)tid;
	out->u.sched.waker_tid = s->sid.tid;
	out->u.sched.waker_pid = s->sid.pid;
	return 1;
}

/* Appends to a bounded buffer; `over` sticks once it would overflow. */
struct jbuf {
	char *p;
	size_t len, cap;
	int over;
};

__attribute__((format(printf, 2, 3)))
static void jprintf(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->over)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len)
		b->over = 1;
	else
		b->len += (size_t)n;
}

static void jstring(struct jbuf *b, const char *s, size_t max)
{
	jprintf(b, "\"");
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			jprintf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			jprintf(b, "\\u%04x", c);
		else
			jprintf(b, "%c", c);
	}
	jprintf(b, "\"");
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

static void number(struct jbuf *b, struct tep_format_field *f,
		   unsigned long long v)
{
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		long long sv = f->size == 1 ? (int8_t)v : f->size == 2 ? (int16_t)v :
			       f->size == 4 ? (int32_t)v : (long long)v;

		jprintf(b, "%lld", sv);
	} else {
		jprintf(b, "%llu", v);
	}
}

static int one_field(struct jbuf *b, struct tep_event *ev,
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
			jstring(b, (const char *)raw + off, len);
		else
			jprintf(b, "%zu", len);	/* a dynamic array: its length */
		return 0;
	}
	if (f->flags & TEP_FIELD_IS_STRING) {
		jstring(b, (const char *)raw + f->offset, (size_t)f->size);
		return 0;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		unsigned n = f->elementsize ? (unsigned)f->size / f->elementsize : 0;

		jprintf(b, "[");
		for (unsigned i = 0; i < n; i++) {
			v = tep_read_number(ev->tep, raw + f->offset + i * f->elementsize,
					    (int)f->elementsize);
			jprintf(b, "%s%llu", i ? "," : "", v);
		}
		jprintf(b, "]");
		return 0;
	}
	if (tep_read_number_field(f, raw, &v) != 0)
		return -EBADMSG;
	sym = symbol_name(symbols_of(ev->print_fmt.args, f->name), v);
	if (sym)
		jstring(b, sym, strlen(sym));
	else
		number(b, f, v);
	return 0;
}

int tp_fields_json(struct tep_event *ev, const void *raw, size_t size,
		   char *buf, size_t cap)
{
	struct jbuf b = { buf, 0, cap, cap == 0 };
	int first = 1, err;

	jprintf(&b, "{");
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		jprintf(&b, "%s", first ? "" : ",");
		jstring(&b, f->name, strlen(f->name));
		jprintf(&b, ":");
		err = one_field(&b, ev, f, raw, size);
		if (err < 0)
			return err;
		first = 0;
	}
	jprintf(&b, "}");
	return b.over ? -ENOSPC : (int)b.len;
}
