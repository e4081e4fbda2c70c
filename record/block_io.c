#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "block_io.h"

int record_block_io_init(struct record_block_io *b,
			 struct tep_event *const *events)
{
	memset(b, 0, sizeof(*b));
	block_trace_init(&b->trace);
	block_pending_init(&b->pending);
	errmsg_init(&b->note);
	b->until = UINT64_MAX;
	if (!events)
		return 0;
	b->on = 1;
	b->until = 0;
	return block_fields_bind(b->fields, events);
}

void record_block_io_release(struct record_block_io *b)
{
	block_trace_release(&b->trace);
	block_pending_release(&b->pending);
	free(b->disks);
	b->disks = NULL;
	b->ndisks = b->disks_cap = 0;
}

/* FAULTLINE_TEST_BLOCK_BUFFER_KB, for tests that need the instance's
 * buffer to overflow; else BLOCK_TRACE_BUFFER_KB. */
static unsigned buffer_kb(void)
{
	const char *v = getenv("FAULTLINE_TEST_BLOCK_BUFFER_KB");

	return v && atoi(v) > 0 ? (unsigned)atoi(v) : BLOCK_TRACE_BUFFER_KB;
}

int record_block_io_open(struct record_block_io *b, const int *cpus,
			 int ncpus, struct errmsg *e)
{
	b->buffer_kb = buffer_kb();
	return b->on ? block_trace_open(&b->trace, cpus, ncpus, b->buffer_kb,
					&b->note, e) : 0;
}

int record_block_io_start(struct record_block_io *b, struct errmsg *e)
{
	return b->on ? block_trace_start(&b->trace, e) : 0;
}

void record_block_io_stop(struct record_block_io *b)
{
	if (b->on)
		block_trace_stop(&b->trace);
}

void record_block_io_replayed(struct record_block_io *b)
{
	b->source = BLOCK_IO_REPLAYED;
	b->until = UINT64_MAX;
}

void record_block_io_elsewhere(struct record_block_io *b)
{
	b->source = BLOCK_IO_ELSEWHERE;
	b->until = UINT64_MAX;
}

int record_block_io_event(struct record_block_io *b, struct order_queue *order,
			  uint64_t mono_ns, uint32_t cpu, const void *raw,
			  size_t size)
{
	struct ev e;

	if (!block_ev(b->fields, raw, size, mono_ns, cpu, &e)) {
		b->malformed++;	/* bad input: counted, the rest goes on */
		return 0;
	}
	b->events++;
	return order_queue_push(order, &e);
}

/* A reading: an event into the order queue, or how far the reader got. */
static int on_reading(void *ctx, const struct block_reading *r)
{
	struct record_block_io *b = ctx;

	if (r->kind == BLOCK_READ_UNTIL) {
		b->until = r->mono_ns;
		return 0;
	}
	return record_block_io_event(b, b->order, r->mono_ns, r->cpu, r->raw,
				     r->size);
}

int record_block_io_take(struct record_block_io *b, struct order_queue *order,
			 struct errmsg *e)
{
	int err;

	if (!b->on || b->source != BLOCK_IO_READER)
		return 0;
	b->order = order;
	err = block_trace_take(&b->trace, on_reading, b);
	if (err == -ENOMEM)
		return errmsg_set(e, ENOMEM, "out of memory queueing events");
	if (err < 0)
		return errmsg_set(e, -err, "cannot read the block I/O events from "
				  "tracefs: %s", strerror(-err));
	return 0;
}

/* The disk's name, looked up in /sys once per device. */
static const char *disk_of(struct record_block_io *b, uint32_t dev)
{
	struct block_disk *d;

	for (size_t i = 0; i < b->ndisks; i++)
		if (b->disks[i].dev == dev)
			return b->disks[i].name[0] ? b->disks[i].name : NULL;
	if (ARRAY_RESERVE(b->disks, b->disks_cap, b->ndisks + 1) < 0)
		return NULL;	/* the row goes without the name */
	d = &b->disks[b->ndisks++];
	d->dev = dev;
	block_disk_name(dev, d->name, sizeof(d->name));
	return d->name[0] ? d->name : NULL;
}

static int store(struct record_block_io *b, struct loader *l,
		 const struct block_req *r, struct errmsg *e)
{
	return loader_block_request(l, r, disk_of(b, r->dev), e);
}

int record_block_io_step(struct record_block_io *b, struct loader *l,
			 const struct ev *ev, const struct thread *t,
			 struct errmsg *e)
{
	struct block_req done;
	int res = block_rq_step(&b->pending, ev, t ? t->pid : 0, &done);

	if (res < 0)
		return errmsg_set(e, ENOMEM, "out of memory matching block requests");
	return res ? store(b, l, &done, e) : 0;
}

struct losses {
	struct record_block_io *b;
	struct loader *l;
	uint64_t end_mono;
	struct errmsg *e;
};

static int store_loss(void *ctx, int cpu, uint64_t overrun, uint64_t dropped)
{
	struct losses *x = ctx;
	int err = 0;

	x->b->overrun += overrun;
	x->b->dropped += dropped;
	if (overrun)
		err = loader_lost(x->l, x->end_mono, cpu, "block_overrun", overrun,
				  x->e);
	if (err == 0 && dropped)
		err = loader_lost(x->l, x->end_mono, cpu, "block_dropped", dropped,
				  x->e);
	return err;
}

int record_block_io_finish(struct record_block_io *b, struct loader *l,
			   uint64_t end_mono, struct errmsg *e)
{
	struct losses x = { b, l, end_mono, e };
	struct block_req r;
	int err = 0;

	if (!b->on || b->source == BLOCK_IO_ELSEWHERE)
		return 0;
	while (err == 0 && block_rq_drain(&b->pending, &r))
		err = store(b, l, &r, e);
	if (err == 0)
		err = loader_block_count(l, &b->pending, b->malformed, e);
	if (err == 0)
		err = block_trace_losses(&b->trace, store_loss, &x);
	if (err < 0 && !e->text[0])
		err = errmsg_set(e, -err, "cannot read the tracefs instance's "
				 "stats: %s", strerror(-err));
	/* Readings the reading thread could not queue (the pipeline was
	 * that far behind): lost too, on no one CPU. */
	if (err == 0 && b->trace.dropped_readings) {
		b->dropped += b->trace.dropped_readings;
		err = loader_lost(l, end_mono, -1, "block_dropped",
				  b->trace.dropped_readings, e);
	}
	return err;
}
