#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/array.h"
#include "event_close.h"

void event_close_init(struct event_close *c)
{
	memset(c, 0, sizeof(*c));
}

void event_close_add(struct event_close *c, int fd)
{
	if (ARRAY_RESERVE(c->added, c->cap, c->n + 1) < 0) {
		close(fd);
		return;
	}
	c->added[c->n++] = fd;
}

static void *close_all(void *arg)
{
	struct event_close *c = arg;

	for (size_t i = 0; i < c->nclosing; i++)
		close(c->closing[i]);
	return NULL;
}

/* The thread started before, if any, joined. */
static void join(struct event_close *c)
{
	if (c->running)
		pthread_join(c->id, NULL);
	c->running = 0;
	free(c->closing);
	c->closing = NULL;
	c->nclosing = 0;
}

void event_close_start(struct event_close *c)
{
	if (!c->n)
		return;
	join(c);
	/* The thread's own list: c->added may grow again meanwhile. */
	c->closing = c->added;
	c->nclosing = c->n;
	c->added = NULL;
	c->n = c->cap = 0;
	if (pthread_create(&c->id, NULL, close_all, c) == 0)
		c->running = 1;
	else
		close_all(c);
}

void event_close_wait(struct event_close *c)
{
	join(c);
	for (size_t i = 0; i < c->n; i++)
		close(c->added[i]);
	free(c->added);
	event_close_init(c);
}
