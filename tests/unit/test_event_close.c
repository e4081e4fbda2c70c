/*
 * event_close: every fd handed to it is closed once it has been waited
 * for, none twice, and event_close_start does not wait for a close that
 * takes long.  The long close is a TCP socket's with SO_LINGER and data
 * its peer has not read: close() returns once the peer has taken it all,
 * or resets the connection when the linger time runs out.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../collector/event_close.h"

static int is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0 || errno != EBADF;
}

static void pipe_into(struct event_close *c, int *fds)
{
	assert_int_equal(pipe(fds), 0);
	event_close_add(c, fds[0]);
	event_close_add(c, fds[1]);
}

static void every_fd_is_closed_once(void **state)
{
	struct event_close c;
	int a[2], b[2], d[2], keep[2];

	(void)state;
	event_close_init(&c);
	event_close_wait(&c);		/* nothing added: nothing to do */
	assert_int_equal(pipe(keep), 0);
	pipe_into(&c, a);
	event_close_start(&c);
	pipe_into(&c, b);
	event_close_start(&c);		/* after the first thread's end */
	pipe_into(&c, d);		/* never started: closed by the wait */
	event_close_wait(&c);
	for (int i = 0; i < 2; i++) {
		assert_false(is_open(a[i]));
		assert_false(is_open(b[i]));
		assert_false(is_open(d[i]));
		/* A second close of a number would have taken these. */
		assert_true(is_open(keep[i]));
		close(keep[i]);
	}
}

/* A connected pair on loopback: *writer's send queue full, the peer
 * (*reader) not reading; returns the bytes queued. */
static size_t stuck_connection(int *writer, int *reader)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct linger lg = { 1, 60 };
	char buf[65536];
	size_t queued = 0;
	int l = socket(AF_INET, SOCK_STREAM, 0);
	ssize_t n;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &len), 0);
	*writer = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(*writer >= 0);
	assert_true(connect(*writer, (struct sockaddr *)&sa, sizeof(sa)) == 0 ||
		    errno == EINPROGRESS);
	*reader = accept(l, NULL, NULL);
	assert_true(*reader >= 0);
	close(l);
	memset(buf, 'x', sizeof(buf));
	while ((n = send(*writer, buf, sizeof(buf), 0)) > 0)
		queued += (size_t)n;
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	assert_int_equal(fcntl(*writer, F_SETFL, 0), 0);
	assert_int_equal(setsockopt(*writer, SOL_SOCKET, SO_LINGER, &lg,
				    sizeof(lg)), 0);
	return queued;
}

/* Had event_close_start closed the writer itself, it would have
 * returned only when the linger time ran out, the connection reset: the
 * reader would see ECONNRESET, not every byte and then the end. */
static void start_does_not_wait_for_a_close(void **state)
{
	struct event_close c;
	char buf[65536];
	size_t queued, got = 0;
	int writer, reader;
	ssize_t n;

	(void)state;
	queued = stuck_connection(&writer, &reader);
	event_close_init(&c);
	event_close_add(&c, writer);
	event_close_start(&c);
	while ((n = recv(reader, buf, sizeof(buf), 0)) > 0)
		got += (size_t)n;
	assert_int_equal(n, 0);
	assert_int_equal(got, queued);
	event_close_wait(&c);
	assert_false(is_open(writer));
	close(reader);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_fd_is_closed_once),
		cmocka_unit_test(start_does_not_wait_for_a_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
