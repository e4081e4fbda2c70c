#include <errno.h>
#include <string.h>

#include "sample_owner.h"

/* The fields a sample holds before its READ value, each one u64 (TID and
 * CPU are two u32s), in the order of the sample layout. */
#define BEFORE_READ (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
		     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

int sample_peek_read_id(const struct sample_fmt *f, const void *rec, size_t len,
			uint64_t *id)
{
	uint64_t rf = f->read_format;
	size_t off = sizeof(struct perf_event_header);

	if (!(f->sample_type & PERF_SAMPLE_READ) || !(rf & PERF_FORMAT_ID) ||
	    (rf & PERF_FORMAT_GROUP))
		return -ENOENT;
	off += 8 * (size_t)__builtin_popcountll(f->sample_type & BEFORE_READ);
	off += 8;	/* the value */
	off += 8 * (size_t)!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED);
	off += 8 * (size_t)!!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (len < off + 8)
		return -EBADMSG;
	memcpy(id, (const uint8_t *)rec + off, 8);
	return 0;
}

/* The roles whose events share the fault events' format, which is the
 * only one with a READ value. */
static int software_sampling(enum ev_role role)
{
	return role == ROLE_FAULT_ENTRY || role == ROLE_FAULT_MINOR ||
	       role == ROLE_FAULT_MAJOR || role == ROLE_SWITCH_SAMPLE;
}

void sample_owner_of(const struct idmap *m, const struct sample_fmt *f,
		     const void *rec, size_t len, struct sample_owner *out)
{
	uint64_t id;

	memset(out, 0, sizeof(*out));
	if (((const struct perf_event_header *)rec)->type != PERF_RECORD_SAMPLE ||
	    sample_peek_id(rec, len, &id) < 0)
		return;
	out->role = idmap_lookup(m, id, &out->arg);
	if (out->role != ROLE_NONE) {
		out->id = id;
		return;
	}
	if (sample_peek_read_id(f, rec, len, &id) < 0)
		return;
	out->role = idmap_lookup(m, id, &out->arg);
	if (!software_sampling(out->role)) {
		memset(out, 0, sizeof(*out));
		return;
	}
	out->id = id;
	out->by_read = 1;
}
