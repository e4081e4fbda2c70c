#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "block_rq.h"

static int bind_one(struct block_fields *f, struct tep_event *ev, int step)
{
	memset(f, 0, sizeof(*f));
	if (!ev)
		return -ENOENT;
	f->id = ev->id;
	f->pid = tep_find_common_field(ev, "common_pid");
	f->dev = tep_find_field(ev, "dev");
	f->sector = tep_find_field(ev, "sector");
	f->nr_sector = tep_find_field(ev, "nr_sector");
	f->rwbs = tep_find_field(ev, "rwbs");
	if (step == BLK_COMPLETE) {
		f->error = tep_find_field(ev, "error");
	} else if (step != BLK_REQUEUE) {
		f->bytes = tep_find_field(ev, "bytes");
		f->comm = tep_find_field(ev, "comm");
	}
	return f->pid && f->dev && f->sector && f->nr_sector && f->rwbs &&
	       (step == BLK_REQUEUE || (f->bytes && f->comm) || f->error) ?
	       0 : -ENOENT;
}

int block_fields_bind(struct block_fields f[BLK_STEPS],
		      struct tep_event *const ev[BLK_STEPS])
{
	int err = 0;

	for (int i = 0; i < BLK_STEPS && err == 0; i++)
		err = bind_one(&f[i], ev[i], i);
	return err;
}

/* Does field f lie inside the size bytes of raw? */
static int inside(const struct tep_format_field *f, size_t size)
{
	return (uint64_t)f->offset + (uint64_t)f->size <= size;
}

/* A number field's value, if it lies inside the raw data. */
static int number(const struct tep_format_field *f, const void *raw,
		  size_t size, unsigned long long *v)
{
	return inside(f, size) &&
	       tep_read_number_field((struct tep_format_field *)f, raw, v) == 0;
}

/* A char array field, cut to n - 1 bytes and NUL-terminated. */
static void text(const struct tep_format_field *f, const void *raw,
		 char *out, size_t n)
{
	size_t len = (size_t)f->size < n - 1 ? (size_t)f->size : n - 1;

	memcpy(out, (const char *)raw + f->offset, len);
	out[len] = '\0';
}

int block_ev(const struct block_fields fields[BLK_STEPS], const void *raw,
	     size_t size, uint64_t mono_ts, uint32_t cpu, struct ev *out)
{
	const struct block_fields *f = NULL;
	unsigned long long pid, dev, sector, nr, extra;
	uint16_t type;
	int step;

	if (size < sizeof(type))
		return 0;
	memcpy(&type, raw, sizeof(type));	/* common_type, first */
	for (step = 0; step < BLK_STEPS && fields[step].id != type; step++)
		;
	if (step == BLK_STEPS)
		return 0;
	f = &fields[step];
	if ( !number(f->pid, raw, size, &pid) ||
	    !number(f->dev, raw, size, &dev) ||
	    !number(f->sector, raw, size, &sector) ||
	    !number(f->nr_sector, raw, size, &nr) ||
	    ((f->bytes || f->error) &&
	     !number(f->bytes ? f->bytes : f->error, raw, size, &extra)) ||
	    !inside(f->rwbs, size) || (f->comm && !inside(f->comm, size)))
		return 0;
	memset(out, 0, sizeof(*out));
	out->kind = EV_BLOCK;
	out->mono_ts = mono_ts;
	out->tid = (uint32_t)pid;	/* common_pid is the thread's id */
	out->cpu = cpu;
	out->cpu_wide = 1;
	out->u.blk.step = (uint8_t)step;
	out->u.blk.dev = (uint32_t)dev;
	out->u.blk.sector = sector;
	/* A completion or requeue says sectors (a partial completion only
	 * its part). */
	out->u.blk.bytes = f->bytes ? (uint32_t)extra : (uint32_t)(nr * 512);
	out->u.blk.error = f->error ? (int32_t)extra : 0;
	text(f->rwbs, raw, out->u.blk.op, sizeof(out->u.blk.op));
	if (f->comm)
		text(f->comm, raw, out->u.blk.comm, sizeof(out->u.blk.comm));
	return 1;
}

void block_pending_init(struct block_pending *p)
{
	memset(p, 0, sizeof(*p));
}

void block_pending_release(struct block_pending *p)
{
	free(p->v);
	block_pending_init(p);
}

/* The oldest pending request of e's device and sector that e's step
 * applies to: to an issue, one not issued (or given back); to a
 * completion or requeue, one issued; to an insert, one given back (its
 * insert again).  NULL: none. */
static struct block_req *find(struct block_pending *p, const struct ev *e)
{
	for (size_t i = 0; i < p->n; i++) {
		struct block_req *r = &p->v[i];
		int issued = r->issue_ts != BLOCK_NO_TS && !r->given_back;

		if (r->dev != e->u.blk.dev || r->sector != e->u.blk.sector)
			continue;
		switch (e->u.blk.step) {
		case BLK_INSERT:
			if (r->given_back)
				return r;
			break;
		case BLK_ISSUE:
			if (!issued)
				return r;
			break;
		default:
			if (issued)
				return r;
		}
	}
	return NULL;
}

/* Makes r the request of the step e when that ran in a target thread
 * (pid != 0) or r has no thread yet: its tid, pid and comm. */
static void issued_in(struct block_req *r, const struct ev *e, uint32_t pid)
{
	if (r->tid)
		return;		/* the target's already */
	if (pid) {
		r->tid = e->tid;
		r->pid = pid;
	}
	if (pid || !r->comm[0])
		memcpy(r->comm, e->u.blk.comm, COMM_LEN);
}

/* A new pending request from e (an insert, or an issue without one). */
static int begin(struct block_pending *p, const struct ev *e, uint32_t pid)
{
	struct block_req *r;

	if (ARRAY_RESERVE(p->v, p->cap, p->n + 1) < 0)
		return -ENOMEM;
	r = &p->v[p->n++];
	memset(r, 0, sizeof(*r));
	r->dev = e->u.blk.dev;
	r->sector = e->u.blk.sector;
	r->bytes = e->u.blk.bytes;
	memcpy(r->op, e->u.blk.op, BLOCK_OP_LEN);
	r->insert_ts = e->u.blk.step == BLK_INSERT ? e->mono_ts : BLOCK_NO_TS;
	r->issue_ts = e->u.blk.step == BLK_ISSUE ? e->mono_ts : BLOCK_NO_TS;
	r->complete_ts = BLOCK_NO_TS;
	r->cpu = e->cpu;
	issued_in(r, e, pid);
	return 0;
}

/* Takes *r out of p into *out, keeping the rest oldest first. */
static void take(struct block_pending *p, struct block_req *r,
		 struct block_req *out)
{
	size_t i = (size_t)(r - p->v);

	*out = *r;
	memmove(r, r + 1, (p->n - i - 1) * sizeof(*r));
	p->n--;
}

int block_rq_step(struct block_pending *p, const struct ev *e, uint32_t pid,
		  struct block_req *done)
{
	struct block_req *r = find(p, e);

	switch (e->u.blk.step) {
	case BLK_INSERT:
		return r ? 0 : begin(p, e, pid);
	case BLK_ISSUE:
		if (!r)
			return begin(p, e, pid);
		if (r->given_back) {
			r->given_back = 0;
			r->requeues++;
			p->requeued++;
		}
		r->issue_ts = e->mono_ts;
		issued_in(r, e, pid);
		return 0;
	case BLK_REQUEUE:
		if (r)
			r->given_back = 1;
		return 0;
	default:
		if (!r || r->issue_ts > e->mono_ts) {
			p->unmatched++;
			return 0;
		}
		take(p, r, done);
		done->complete_ts = e->mono_ts;
		done->error = e->u.blk.error;
		p->completed++;
		return BR_DONE;
	}
}

int block_rq_drain(struct block_pending *p, struct block_req *out)
{
	if (!p->n)
		return 0;
	take(p, &p->v[0], out);
	p->unfinished++;
	return 1;
}

/* The number after "name" at the start of a line of text, if any. */
static int stat_line(const char *text, const char *name, uint64_t *out)
{
	size_t n = strlen(name);
	unsigned long long v;

	for (const char *l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, name, n) && sscanf(l + n, " %llu", &v) == 1) {
			*out = v;
			return 0;
		}
	return -EINVAL;
}

int block_stats_parse(const char *text, uint64_t *overrun, uint64_t *dropped)
{
	int err = stat_line(text, "overrun:", overrun);

	return err ? err : stat_line(text, "dropped events:", dropped);
}

const char *block_op(const char *rwbs)
{
	/* The kernel's blk_fill_rwbs: an optional F (preflush), then one of
	 * W R D E N, then the flags. */
	const char *op = rwbs + (rwbs[0] == 'F');

	switch (op[0]) {
	case 'R':
		return "R";
	case 'W':
		return "W";
	case 'D':
		return "D";
	case 'E':
		return "E";
	}
	return rwbs[0] == 'F' ? "FLUSH" : "N";
}
