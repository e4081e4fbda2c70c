/*
 * perf_record: the perf ring record formats, byte by byte, next to their
 * parser.  Layouts are those of include/uapi/linux/perf_event.h; every
 * field is read through a bounds-checked cursor, so a record cut short or
 * lying about its size yields -EBADMSG, never a read past `len`.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "../common/array.h"
#include "perf_record.h"

/* Reads little-endian host-order fields from a byte range; once a read
 * would pass the end, `bad` sticks and every further read returns 0. */
struct cursor {
	const uint8_t *p;
	size_t left;
	int bad;
};

static void cursor_init(struct cursor *c, const void *buf, size_t len)
{
	c->p = buf;
	c->left = len;
	c->bad = 0;
}

static const void *take_bytes(struct cursor *c, uint64_t n)
{
	const void *at = c->p;

	if (c->bad || n > c->left) {
		c->bad = 1;
		c->left = 0;
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return at;
}

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;
	const void *at = take_bytes(c, 8);

	if (at)
		memcpy(&v, at, 8);
	return v;
}

static uint32_t take_u32(struct cursor *c)
{
	uint32_t v = 0;
	const void *at = take_bytes(c, 4);

	if (at)
		memcpy(&v, at, 4);
	return v;
}

/* A NUL-terminated string that must end inside the cursor's range; the
 * cursor then skips the rest of the range (the kernel pads to 8 bytes). */
static const char *take_string(struct cursor *c, size_t reserve_after)
{
	const char *s = (const char *)c->p;

	if (c->bad || c->left <= reserve_after ||
	    !memchr(s, '\0', c->left - reserve_after)) {
		c->bad = 1;
		return NULL;
	}
	take_bytes(c, c->left - reserve_after);
	return s;
}

static unsigned popcount64(uint64_t v)
{
	return (unsigned)__builtin_popcountll(v);
}

/*
 * The sample_id trailer, in this order, each present if its bit is set:
 *	{ u32 pid, tid; }	PERF_SAMPLE_TID
 *	{ u64 time; }		PERF_SAMPLE_TIME
 *	{ u64 id; }		PERF_SAMPLE_ID
 *	{ u64 stream_id; }	PERF_SAMPLE_STREAM_ID
 *	{ u32 cpu, res; }	PERF_SAMPLE_CPU
 *	{ u64 id; }		PERF_SAMPLE_IDENTIFIER
 */
size_t sample_id_size(const struct sample_fmt *f)
{
	uint64_t t = f->sample_type;
	size_t n = 0;

	if (!f->sample_id_all)
		return 0;
	n += (t & PERF_SAMPLE_TID) ? 8 : 0;
	n += (t & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (t & PERF_SAMPLE_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

int sample_id_decode(const struct sample_fmt *f, const void *body, size_t len,
		     struct sample_id *out)
{
	uint64_t t = f->sample_type;
	size_t n = sample_id_size(f);
	struct cursor c;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return 0;
	if (n > len)
		return -EBADMSG;
	cursor_init(&c, (const uint8_t *)body + len - n, n);
	if (t & PERF_SAMPLE_TID) {
		out->pid = take_u32(&c);
		out->tid = take_u32(&c);
	}
	if (t & PERF_SAMPLE_TIME)
		out->time = take_u64(&c);
	if (t & PERF_SAMPLE_ID)
		out->id = take_u64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		out->stream_id = take_u64(&c);
	if (t & PERF_SAMPLE_CPU) {
		out->cpu = take_u32(&c);
		take_u32(&c);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		out->id = take_u64(&c);
	out->present = t & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_IDENTIFIER);
	return c.bad ? -EBADMSG : 0;
}

/*
 * PERF_SAMPLE_READ:
 *   without PERF_FORMAT_GROUP: u64 value; [u64 enabled]; [u64 running];
 *                              [u64 id]; [u64 lost]
 *   with PERF_FORMAT_GROUP:    u64 nr; [u64 enabled]; [u64 running];
 *                              nr x { u64 value; [u64 id]; [u64 lost] }
 */
static void skip_read(struct cursor *c, uint64_t rf)
{
	uint64_t per_value = 1 + !!(rf & PERF_FORMAT_ID) +
			     !!(rf & PERF_FORMAT_LOST);
	uint64_t head = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			!!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t nr = 1;

	if (rf & PERF_FORMAT_GROUP) {
		nr = take_u64(c);
		if (nr > c->left / 8) {	/* also stops nr * per_value overflow */
			c->bad = 1;
			return;
		}
	} else {
		head += 1;	/* the single value */
		per_value = !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	}
	take_bytes(c, head * 8);
	if (per_value && nr > (c->left / 8) / per_value) {
		c->bad = 1;
		return;
	}
	take_bytes(c, nr * per_value * 8);
}

/* u64 abi; u64 regs[weight(mask)] only when abi != PERF_SAMPLE_REGS_ABI_NONE */
static const void *take_regs(struct cursor *c, uint64_t mask, uint64_t *abi)
{
	*abi = take_u64(c);
	if (*abi == 0)
		return NULL;
	return take_bytes(c, (uint64_t)popcount64(mask) * 8);
}

/*
 * PERF_RECORD_SAMPLE body, fields in this order when their bit is set:
 *	u64 id			IDENTIFIER
 *	u64 ip			IP
 *	u32 pid, tid		TID
 *	u64 time		TIME
 *	u64 addr		ADDR
 *	u64 id			ID
 *	u64 stream_id		STREAM_ID
 *	u32 cpu, res		CPU
 *	u64 period		PERIOD
 *	read_format		READ
 *	u64 nr, ips[nr]		CALLCHAIN
 *	u32 size, data[size]	RAW (size includes padding to 8 with the u32)
 *	u64 bnr, [hw_idx], lbr[bnr] (24 bytes each)	BRANCH_STACK
 *	u64 abi, regs[]		REGS_USER
 *	u64 size, data[size], u64 dyn_size (if size)	STACK_USER
 *	u64 weight		WEIGHT or WEIGHT_STRUCT
 *	u64 data_src		DATA_SRC
 *	u64 transaction		TRANSACTION
 *	u64 abi, regs[]		REGS_INTR
 *	u64 phys_addr		PHYS_ADDR
 *	u64 size, data[size]	AUX
 *	u64 cgroup		CGROUP
 *	u64 data_page_size	DATA_PAGE_SIZE
 *	u64 code_page_size	CODE_PAGE_SIZE
 */
int sample_decode(const struct sample_fmt *f, const void *body, size_t len,
		  struct sample *out)
{
	uint64_t t = f->sample_type;
	uint64_t abi;
	struct cursor c;

	memset(out, 0, sizeof(*out));
	cursor_init(&c, body, len);
	if (t & PERF_SAMPLE_IDENTIFIER)
		out->sid.id = take_u64(&c);
	if (t & PERF_SAMPLE_IP)
		out->ip = take_u64(&c);
	if (t & PERF_SAMPLE_TID) {
		out->sid.pid = take_u32(&c);
		out->sid.tid = take_u32(&c);
	}
	if (t & PERF_SAMPLE_TIME)
		out->sid.time = take_u64(&c);
	if (t & PERF_SAMPLE_ADDR)
		out->addr = take_u64(&c);
	if (t & PERF_SAMPLE_ID)
		out->sid.id = take_u64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		out->sid.stream_id = take_u64(&c);
	if (t & PERF_SAMPLE_CPU) {
		out->sid.cpu = take_u32(&c);
		take_u32(&c);
	}
	if (t & PERF_SAMPLE_PERIOD)
		out->period = take_u64(&c);
	if (t & PERF_SAMPLE_READ)
		skip_read(&c, f->read_format);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		out->callchain_nr = take_u64(&c);
		if (out->callchain_nr > c.left / 8)
			return -EBADMSG;
		out->callchain = take_bytes(&c, out->callchain_nr * 8);
	}
	if (t & PERF_SAMPLE_RAW) {
		out->raw_size = take_u32(&c);
		out->raw = take_bytes(&c, out->raw_size);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t bnr = take_u64(&c);

		if (f->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			take_u64(&c);
		if (bnr > c.left / 24)
			return -EBADMSG;
		take_bytes(&c, bnr * 24);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		out->regs_user = take_regs(&c, f->regs_user_mask, &abi);
		out->regs_user_abi = abi;
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		out->stack_user_size = take_u64(&c);
		if (out->stack_user_size) {
			out->stack_user = take_bytes(&c, out->stack_user_size);
			out->stack_user_dyn_size = take_u64(&c);
			if (out->stack_user_dyn_size > out->stack_user_size)
				return -EBADMSG;
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		out->weight = take_u64(&c);
	if (t & PERF_SAMPLE_DATA_SRC)
		out->data_src = take_u64(&c);
	if (t & PERF_SAMPLE_TRANSACTION)
		out->transaction = take_u64(&c);
	if (t & PERF_SAMPLE_REGS_INTR)
		take_regs(&c, f->regs_intr_mask, &abi);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		out->phys_addr = take_u64(&c);
	if (t & PERF_SAMPLE_AUX) {
		out->aux_size = take_u64(&c);
		out->aux = take_bytes(&c, out->aux_size);
	}
	if (t & PERF_SAMPLE_CGROUP)
		out->cgroup = take_u64(&c);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		out->data_page_size = take_u64(&c);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		out->code_page_size = take_u64(&c);
	if (c.bad)
		return -EBADMSG;
	out->sid.present = t & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
				PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	return 0;
}

/*
 * MMAP:  u32 pid, tid; u64 addr, len, pgoff; char filename[]; sample_id
 * MMAP2: u32 pid, tid; u64 addr, len, pgoff;
 *        union { u32 maj, min; u64 ino, ino_generation; }
 *              or (misc & MMAP_BUILD_ID) { u8 size, res[3]; u8 build_id[20]; }
 *        u32 prot, flags; char filename[]; sample_id
 */
static int mmap_decode(struct cursor *c, int v2, uint16_t misc,
		       size_t trailer, struct rec_mmap *m)
{
	m->pid = take_u32(c);
	m->tid = take_u32(c);
	m->start = take_u64(c);
	m->len = take_u64(c);
	m->pgoff = take_u64(c);
	if (v2) {
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			const uint8_t *b = take_bytes(c, 24);

			if (b) {
				m->build_id_size = b[0] > 20 ? 20 : b[0];
				memcpy(m->build_id, b + 4, 20);
			}
		} else {
			m->maj = take_u32(c);
			m->min = take_u32(c);
			m->ino = take_u64(c);
			m->ino_generation = take_u64(c);
		}
		m->prot = take_u32(c);
		m->flags = take_u32(c);
	}
	m->filename = take_string(c, trailer);
	return c->bad ? -EBADMSG : 0;
}

/* Decodes the body of a non-sample record (after the 8-byte header). */
static int other_decode(const struct sample_fmt *f, struct perf_rec *r,
			const uint8_t *body, size_t len)
{
	size_t trailer = sample_id_size(f);
	struct cursor c;
	int err;

	cursor_init(&c, body, len);
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		err = mmap_decode(&c, r->type == PERF_RECORD_MMAP2, r->misc,
				  trailer, &r->u.mmap);
		if (err)
			return err;
		break;
	case PERF_RECORD_COMM:	/* u32 pid, tid; char comm[]; sample_id */
		r->u.comm.pid = take_u32(&c);
		r->u.comm.tid = take_u32(&c);
		r->u.comm.comm = take_string(&c, trailer);
		r->u.comm.exec = !!(r->misc & PERF_RECORD_MISC_COMM_EXEC);
		break;
	case PERF_RECORD_FORK:	/* u32 pid, ppid, tid, ptid; u64 time; sample_id */
	case PERF_RECORD_EXIT:
		r->u.task.pid = take_u32(&c);
		r->u.task.ppid = take_u32(&c);
		r->u.task.tid = take_u32(&c);
		r->u.task.ptid = take_u32(&c);
		r->u.task.time = take_u64(&c);
		break;
	case PERF_RECORD_LOST:	/* u64 id, lost; sample_id */
		r->u.lost.id = take_u64(&c);
		r->u.lost.lost = take_u64(&c);
		break;
	case PERF_RECORD_LOST_SAMPLES:	/* u64 lost; sample_id */
		r->u.lost.lost = take_u64(&c);
		break;
	case PERF_RECORD_THROTTLE:	/* u64 time, id, stream_id; sample_id */
	case PERF_RECORD_UNTHROTTLE:
		r->u.throttle.time = take_u64(&c);
		r->u.throttle.id = take_u64(&c);
		r->u.throttle.stream_id = take_u64(&c);
		break;
	case PERF_RECORD_SWITCH:	/* sample_id */
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:	/* u32 next_prev_pid, tid; sample_id */
		r->u.sw.next_prev_pid = take_u32(&c);
		r->u.sw.next_prev_tid = take_u32(&c);
		break;
	case PERF_RECORD_AUX:	/* u64 aux_offset, aux_size, flags; sample_id */
		r->u.aux.aux_offset = take_u64(&c);
		r->u.aux.aux_size = take_u64(&c);
		r->u.aux.flags = take_u64(&c);
		break;
	case PERF_RECORD_ITRACE_START:	/* u32 pid, tid; sample_id */
		r->u.itrace.pid = take_u32(&c);
		r->u.itrace.tid = take_u32(&c);
		break;
	default:
		return -ENOMSG;
	}
	if (r->type == PERF_RECORD_SWITCH || r->type == PERF_RECORD_SWITCH_CPU_WIDE) {
		r->u.sw.out = !!(r->misc & PERF_RECORD_MISC_SWITCH_OUT);
		r->u.sw.preempt = !!(r->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	}
	/* Fixed fields must leave room for the trailer. */
	if (c.bad || c.left < trailer)
		return -EBADMSG;
	return sample_id_decode(f, body, len, &r->sid);
}

int perf_rec_decode(const struct sample_fmt *f, const void *buf, size_t len,
		    struct perf_rec *out)
{
	const uint8_t *b = buf;
	size_t body_len;
	int err;

	memset(out, 0, offsetof(struct perf_rec, u));
	if (len < sizeof(struct perf_event_header))
		return -EBADMSG;
	memcpy(&out->type, b, 4);
	memcpy(&out->misc, b + 4, 2);
	memcpy(&out->size, b + 6, 2);
	if (out->size < sizeof(struct perf_event_header) || out->size > len)
		return -EBADMSG;
	body_len = out->size - sizeof(struct perf_event_header);
	/* sample_decode clears the sample itself: one clearing of the
	 * union, not two, for the records that are most of every ring. */
	if (out->type == PERF_RECORD_SAMPLE) {
		err = sample_decode(f, b + 8, body_len, &out->u.sample);
		out->sid = out->u.sample.sid;
		return err;
	}
	memset(&out->u, 0, sizeof(out->u));
	return other_decode(f, out, b + 8, body_len);
}

int sample_peek_id(const void *rec, size_t len, uint64_t *id)
{
	if (len < sizeof(struct perf_event_header) + 8)
		return -EBADMSG;
	memcpy(id, (const uint8_t *)rec + sizeof(struct perf_event_header), 8);
	return 0;
}

int sample_peek_time(const struct sample_fmt *f, const void *rec, size_t len,
		     uint64_t *time)
{
	uint64_t before = f->sample_type & (PERF_SAMPLE_IDENTIFIER |
					    PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	size_t off = sizeof(struct perf_event_header) +
		     8 * (size_t)__builtin_popcountll(before);

	if (!(f->sample_type & PERF_SAMPLE_TIME))
		return -ENOENT;
	if (len < off + 8)
		return -EBADMSG;
	memcpy(time, (const uint8_t *)rec + off, 8);
	return 0;
}

/* The fields of a fixed size, 8 bytes each (TID and CPU two u32s), in
 * sample_decode's order; READ is fixed without PERF_FORMAT_GROUP. */
#define FIXED_8 (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
		 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | \
		 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | \
		 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | \
		 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE)

/* A tracepoint's format: these fixed fields, then CALLCHAIN and RAW. */
#define TAIL_HEAD (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU)
#define TAIL (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

void sample_layout_of(const struct sample_fmt *f, struct sample_layout *out)
{
	uint64_t t = f->sample_type, rf = f->read_format;
	uint64_t weight = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
	size_t off = sizeof(struct perf_event_header) +
		     8 * !!(t & PERF_SAMPLE_IDENTIFIER);

	memset(out, 0, sizeof(*out));
	out->ip = (uint16_t)off;
	off += 8 * !!(t & PERF_SAMPLE_IP);
	out->tid = (uint16_t)off;
	off += 8 * !!(t & PERF_SAMPLE_TID);
	out->time = (uint16_t)off;
	off += 8 * !!(t & PERF_SAMPLE_TIME);
	out->addr = (uint16_t)off;
	off += 8 * !!(t & PERF_SAMPLE_ADDR);
	off += 8 * !!(t & PERF_SAMPLE_ID);
	off += 8 * !!(t & PERF_SAMPLE_STREAM_ID);
	out->cpu = (uint16_t)off;
	out->present = t & (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU);
	if ((t & PERF_SAMPLE_RAW) && !(t & ~(TAIL_HEAD | TAIL))) {
		out->tail = (uint16_t)(off + 8 * !!(t & PERF_SAMPLE_CPU));
		out->tail_type = t;
	}
	if (t & ~(FIXED_8 | PERF_SAMPLE_READ) ||
	    ((t & PERF_SAMPLE_READ) && (rf & PERF_FORMAT_GROUP)))
		return;	/* a field of variable size: no fixed size */
	/* WEIGHT and WEIGHT_STRUCT share one u64 */
	out->size = sizeof(struct perf_event_header) +
		    8 * (size_t)__builtin_popcountll(t & FIXED_8 & ~weight) +
		    8 * (size_t)!!(t & weight);
	if (t & PERF_SAMPLE_READ)
		out->size += 8 * (1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				  !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) +
				  !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
}

int sample_decode_tail(const struct sample_layout *l, const void *rec,
		       size_t len, struct sample *out)
{
	const uint8_t *b = (const uint8_t *)rec;
	uint64_t t = l->tail_type;
	size_t off = l->tail;
	uint32_t type;
	uint16_t size;

	if (!off || len < off + 4)
		return -1;
	memcpy(&type, b, 4);
	memcpy(&size, b + 6, 2);
	if (type != PERF_RECORD_SAMPLE || size != len)
		return -1;
	memset(out, 0, sizeof(*out));
	if (t & PERF_SAMPLE_CALLCHAIN) {
		if (len < off + 12)
			return -1;
		memcpy(&out->callchain_nr, b + off, 8);
		off += 8;
		if (out->callchain_nr > (len - off - 4) / 8)
			return -1;
		out->callchain = b + off;
		off += 8 * (size_t)out->callchain_nr;
	}
	memcpy(&out->raw_size, b + off, 4);
	off += 4;
	if (out->raw_size != len - off)
		return -1;
	out->raw = b + off;
	if (t & PERF_SAMPLE_IDENTIFIER)
		memcpy(&out->sid.id, b + sizeof(struct perf_event_header), 8);
	if (t & PERF_SAMPLE_IP)
		memcpy(&out->ip, b + l->ip, 8);
	if (t & PERF_SAMPLE_TID) {
		memcpy(&out->sid.pid, b + l->tid, 4);
		memcpy(&out->sid.tid, b + l->tid + 4, 4);
	}
	if (t & PERF_SAMPLE_TIME)
		memcpy(&out->sid.time, b + l->time, 8);
	if (t & PERF_SAMPLE_ADDR)
		memcpy(&out->addr, b + l->addr, 8);
	if (t & PERF_SAMPLE_CPU)
		memcpy(&out->sid.cpu, b + l->cpu, 4);
	out->sid.present = t & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	return 0;
}

const char *perf_rec_type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	};

	if (type < ARRAY_SIZE(names) && names[type])
		return names[type];
	return "UNKNOWN";
}

int perf_records_walk(const void *buf, size_t len,
		      int (*fn)(void *ctx, const void *rec, size_t len),
		      void *ctx, uint64_t *framing_errors)
{
	const uint8_t *p = buf;
	size_t off = 0;

	while (off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;
		int err;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || (h.size & 7) || h.size > len - off) {
			(*framing_errors)++;
			return 0;
		}
		err = fn(ctx, p + off, h.size);
		if (err < 0)
			return err;
		off += h.size;
	}
	if (off != len)
		(*framing_errors)++;	/* a piece too short for a header */
	return 0;
}
