/*
 * clock: the clocks faultline names.
 *
 * Inside a recording one clock rules: CLOCK_MONOTONIC.  Every ring is
 * opened in it (the kernel refuses CLOCK_REALTIME for tracepoints, and a
 * step of the realtime clock must never touch a duration, the order of
 * events, or a match between them), and every time the decoder handles
 * is a `mono_ts`.  A stored `ts` is CLOCK_REALTIME nanoseconds since the
 * Unix epoch, made once, when a row is written, from the session's clock
 * anchors (decoder/clock_map.h).
 */
#ifndef FL_CLOCK_H
#define FL_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static inline uint64_t realtime_ns(void) { return clock_ns(CLOCK_REALTIME); }
static inline uint64_t monotonic_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

/* A struct timeval (getrusage's CPU times) in ns. */
static inline uint64_t timeval_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

/*
 * A clock anchor: a CLOCK_REALTIME reading taken between two
 * CLOCK_MONOTONIC readings.  mono_ns is their midpoint; the realtime
 * reading happened within uncertainty_ns of it.
 */
struct clock_anchor {
	uint64_t mono_ns;		/* CLOCK_MONOTONIC */
	uint64_t realtime_ns;		/* CLOCK_REALTIME, ns since the epoch */
	uint64_t uncertainty_ns;	/* half the bracket's width */
};

/* Brackets tried for one anchor; the tightest is kept.  A bracket is two
 * vDSO clock reads apart (tens of ns); a preemption or a hypervisor exit
 * inside one widens it by microseconds, and five tries nearly always
 * include one without. */
#define CLOCK_ANCHOR_TRIES 5

/* Takes an anchor now: the tightest of CLOCK_ANCHOR_TRIES brackets. */
void clock_anchor_take(struct clock_anchor *a);

/*
 * UTC text, the one way faultline writes and reads a wall-clock time.
 *
 * utc_format: ts (CLOCK_REALTIME ns since the epoch) as UTC to the ns,
 * "2026-11-23T22:52:30.497176895Z", into buf (UTC_LEN bytes at least:
 * any int64 fits); returns buf.  A time before 1970 reads right.
 */
#define UTC_LEN 40
const char *utc_format(char *buf, size_t n, int64_t ts);

/* utc_parse's flags. */
#define UTC_ZONE_OPTIONAL 1	/* no zone after the time means UTC */

/*
 * utc_parse: an RFC 3339 date and time, s[0..len) (need not end in a
 * NUL), to CLOCK_REALTIME ns since the epoch:
 *
 *   YYYY-MM-DD ('T' | 't' | ' ') HH:MM:SS [.digits] ZONE
 *   ZONE: 'Z' | 'z' | +HH:MM | -HH:MM; nothing with UTC_ZONE_OPTIONAL
 *
 * Fraction digits past the ninth are read and dropped; a leap second
 * (:60) reads as the first second of the next minute.  0; -EINVAL when
 * s is not of that form (or names a day that is not, 31 February);
 * -ERANGE for a time before 1970 or past what int64 ns hold.
 */
int utc_parse(const char *s, size_t len, unsigned flags, int64_t *ns);

/* The fraction digits at s[0..len) (those after a '.') as ns: up to 9 are
 * kept, further ones read and dropped.  Returns how many digits were
 * read, 0 when there are none.  utc_parse's, and the metric importer's
 * for epoch numbers. */
size_t fraction_ns(const char *s, size_t len, int64_t *ns);

#endif
