/*
 * event_close: closing a recording's perf events on a thread of their
 * own, so the caller does not wait for the kernel to unregister each
 * tracepoint.
 *
 * The close of a tracepoint's last perf event unregisters the kernel's
 * probe and waits for RCU grace periods before it returns
 * (perf_trace_destroy: tracepoint_synchronize_unregister), 30 to 40 ms on
 * the VMs here, under the kernel's event_mutex, so two tracepoints' closes
 * wait one after the other even from two threads.  A recording of `true`
 * with sched_switch and sched_waking ended 65 ms after its database was
 * complete.  Closed on a thread started when the rings were read for the
 * last time, the waits pass while the caller finishes the database.
 *
 *	struct event_close c;
 *
 *	event_close_init(&c);
 *	event_close_add(&c, fd);	...
 *	event_close_start(&c);		a thread closes them, in turn
 *	...
 *	event_close_wait(&c);		closed
 */
#ifndef FL_COLLECTOR_EVENT_CLOSE_H
#define FL_COLLECTOR_EVENT_CLOSE_H

#include <pthread.h>
#include <stddef.h>

struct event_close {
	int *added;		/* owned: not yet started */
	size_t n, cap;
	int *closing;		/* owned: the thread's */
	size_t nclosing;
	pthread_t id;
	int running;		/* id is to be joined */
};

void event_close_init(struct event_close *c);

/* fd is to be closed by c.  Never fails: an fd that cannot be kept is
 * closed at once. */
void event_close_add(struct event_close *c, int fd);

/* Closes what was added, on a thread (once one started before has
 * finished), or in turn here where no thread can be made. */
void event_close_start(struct event_close *c);

/* Returns once every fd added is closed, those not started closed here;
 * frees what c holds.  A c only initialised waits for nothing. */
void event_close_wait(struct event_close *c);

#endif
