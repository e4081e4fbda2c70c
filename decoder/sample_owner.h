/*
 * sample_owner: which of faultline's events wrote a sample.
 *
 * PERF_SAMPLE_IDENTIFIER says so, except where another session (a second
 * faultline, perf) samples the same software event on the same thread.
 * The kernel (seen on 6.18) fills one perf_sample_data for every event
 * that fires on one occurrence, and fills its id once, from the first
 * event in its list: the others' samples carry that event's id, which is
 * not ours.  Nothing else in the sample is wrong (the time, thread, ip and
 * address are the same for both), and the id in the sample's
 * PERF_SAMPLE_READ value (read_format PERF_FORMAT_ID) is written from the
 * event itself.  Tracepoint samples were not affected.
 *
 * Pure: no syscalls, no allocation.
 */
#ifndef FL_SAMPLE_OWNER_H
#define FL_SAMPLE_OWNER_H

#include <stddef.h>
#include <stdint.h>

#include "idmap.h"
#include "perf_record.h"

/* The id in a sample's READ value, for samples of format f (rec points at
 * the header): 0, -ENOENT when f carries no such id (no PERF_SAMPLE_READ,
 * no PERF_FORMAT_ID, or PERF_FORMAT_GROUP), -EBADMSG when rec is short. */
int sample_peek_read_id(const struct sample_fmt *f, const void *rec, size_t len,
			uint64_t *id);

/* The event of m that wrote a record. */
struct sample_owner {
	uint64_t id;		/* 0: none of m's */
	enum ev_role role;	/* ROLE_NONE: none of m's */
	uint16_t arg;		/* its idmap arg, 0 if none */
	int by_read;		/* named by its READ id, not its identifier */
};

/* Who wrote record rec: the event of its identifier, or where that is not
 * in m, the event of the id in its READ value when rec is a sample of
 * format f and that id is one of m's software sampling events (faults,
 * context switches).  Records that are not samples, and samples of no
 * event of m, have no owner (ROLE_NONE). */
void sample_owner_of(const struct idmap *m, const struct sample_fmt *f,
		     const void *rec, size_t len, struct sample_owner *out);

#endif
