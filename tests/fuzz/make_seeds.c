/*
 * make_seeds: writes the seed corpus of the fuzz targets, valid inputs
 * built field by field, so that fuzzing starts from every record type
 * and every stream situation instead of finding them by chance.
 *
 *   cc -std=gnu11 -Wall -Wextra -o make_seeds tests/fuzz/make_seeds.c
 *   ./make_seeds tests/fuzz/corpus
 *
 * The input layouts are described at the top of fuzz_perf_record.c and
 * fuzz_fault_stream.c; change them together.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#define BUF_MAX 4096

struct buf {
	uint8_t b[BUF_MAX];
	size_t n;
	size_t rec;	/* where the open record starts */
};

/* Values of the fields common to samples and sample_id trailers. */
struct sid {
	uint64_t id, time, addr;
	uint32_t pid, tid, cpu;
};

/* What fuzz_perf_record's first 8 bytes decode to. */
struct fmt {
	uint64_t sample_type;
	uint8_t read_format;
	uint8_t nregs_user, nregs_intr;
	int hw_index, sample_id_all, fault_fmt;
	uint8_t stream;		/* byte 7: flush period, slack, min_dur */
};

static const char *out_dir;

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > BUF_MAX) {
		fprintf(stderr, "make_seeds: seed over %d bytes\n", BUF_MAX);
		exit(1);
	}
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void u8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static void u16(struct buf *b, uint16_t v) { put(b, &v, 2); }
static void u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void u64(struct buf *b, uint64_t v) { put(b, &v, 8); }

static void pad8(struct buf *b)
{
	while ((b->n - b->rec) % 8)
		u8(b, 0);
}

static void save(const char *target, const char *name, const struct buf *b)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", out_dir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b->b, 1, b->n, f) != b->n || fclose(f) != 0) {
		fprintf(stderr, "make_seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* ---- fuzz_perf_record ------------------------------------------------ */

/* collector/fault_events.c's FAULT_SAMPLE_TYPE */
#define FAULT_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
		    PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR)

static const struct fmt fault_fmt = {
	FAULT_TYPE, 0, 0, 0, 0, 1, 1, 0x02,
};

static void fmt_bytes(struct buf *b, const struct fmt *f)
{
	u8(b, (uint8_t)f->sample_type);
	u8(b, (uint8_t)(f->sample_type >> 8));
	u8(b, (uint8_t)(f->sample_type >> 16));
	u8(b, f->read_format);
	u8(b, f->nregs_user);
	u8(b, f->nregs_intr);
	u8(b, (uint8_t)((!!f->hw_index) | (!!f->sample_id_all) << 1 |
			(!!(f->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) << 2 |
			(!!f->fault_fmt) << 3));
	u8(b, f->stream);
}

static void rec_begin(struct buf *b, uint32_t type, uint16_t misc)
{
	b->rec = b->n;
	u32(b, type);
	u16(b, misc);
	u16(b, 0);	/* size, set by rec_end */
}

static void rec_end(struct buf *b)
{
	uint16_t size;

	pad8(b);
	size = (uint16_t)(b->n - b->rec);
	memcpy(b->b + b->rec + 6, &size, 2);
}

static void trailer(struct buf *b, const struct fmt *f, const struct sid *s)
{
	uint64_t t = f->sample_type;

	if (!f->sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID) {
		u32(b, s->pid);
		u32(b, s->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		u64(b, s->time);
	if (t & PERF_SAMPLE_ID)
		u64(b, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		u64(b, s->id);
	if (t & PERF_SAMPLE_CPU) {
		u32(b, s->cpu);
		u32(b, 0);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		u64(b, s->id);
}

static void read_values(struct buf *b, uint8_t rf)
{
	uint64_t nr = (rf & PERF_FORMAT_GROUP) ? 2 : 1;

	u64(b, (rf & PERF_FORMAT_GROUP) ? nr : 1000);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		u64(b, 5000);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		u64(b, 4000);
	for (uint64_t i = 0; i < nr; i++) {
		if (rf & PERF_FORMAT_GROUP)
			u64(b, 1000 + i);
		if (rf & PERF_FORMAT_ID)
			u64(b, 1 + i);
		if (rf & PERF_FORMAT_LOST)
			u64(b, 0);
	}
}

static void regs(struct buf *b, unsigned n)
{
	u64(b, PERF_SAMPLE_REGS_ABI_64);
	for (unsigned i = 0; i < n; i++)
		u64(b, 0x1000 * (i + 1));
}

/* The variable-length middle of a sample, CALLCHAIN to REGS_USER. */
static void sample_arrays(struct buf *b, const struct fmt *f)
{
	uint64_t t = f->sample_type;

	if (t & PERF_SAMPLE_READ)
		read_values(b, f->read_format);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		u64(b, 3);
		u64(b, (uint64_t)PERF_CONTEXT_USER);
		u64(b, 0x401000);
		u64(b, 0x402000);
	}
	if (t & PERF_SAMPLE_RAW) {
		u32(b, 12);	/* with the u32, a multiple of 8 */
		put(b, "raw-payload", 12);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		u64(b, 1);
		if (f->hw_index)
			u64(b, 0);
		u64(b, 0x401000);
		u64(b, 0x402000);
		u64(b, 0);
	}
	if (t & PERF_SAMPLE_REGS_USER)
		regs(b, f->nregs_user);
}

/* STACK_USER to the end of a sample. */
static void sample_tail(struct buf *b, const struct fmt *f)
{
	uint64_t t = f->sample_type;

	if (t & PERF_SAMPLE_STACK_USER) {
		u64(b, 16);
		put(b, "stack-bytes-16..", 16);
		u64(b, 8);
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		u64(b, 40);
	if (t & PERF_SAMPLE_DATA_SRC)
		u64(b, 0x1);
	if (t & PERF_SAMPLE_TRANSACTION)
		u64(b, 0);
	if (t & PERF_SAMPLE_REGS_INTR)
		regs(b, f->nregs_intr);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		u64(b, 0x12345000);
	if (t & PERF_SAMPLE_AUX) {
		u64(b, 8);
		put(b, "auxdata!", 8);
	}
	if (t & PERF_SAMPLE_CGROUP)
		u64(b, 1);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		u64(b, 4096);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		u64(b, 4096);
}

static void sample(struct buf *b, const struct fmt *f, const struct sid *s)
{
	uint64_t t = f->sample_type;

	rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (t & PERF_SAMPLE_IDENTIFIER)
		u64(b, s->id);
	if (t & PERF_SAMPLE_IP)
		u64(b, 0x401000 + (s->addr & 0xff));
	if (t & PERF_SAMPLE_TID) {
		u32(b, s->pid);
		u32(b, s->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		u64(b, s->time);
	if (t & PERF_SAMPLE_ADDR)
		u64(b, s->addr);
	if (t & PERF_SAMPLE_ID)
		u64(b, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		u64(b, s->id);
	if (t & PERF_SAMPLE_CPU) {
		u32(b, s->cpu);
		u32(b, 0);
	}
	if (t & PERF_SAMPLE_PERIOD)
		u64(b, 1);
	sample_arrays(b, f);
	sample_tail(b, f);
	rec_end(b);
}

static void string(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
	pad8(b);
}

static void mmap2(struct buf *b, const struct fmt *f, const struct sid *s,
		  int build_id)
{
	rec_begin(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
		  (build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	u32(b, s->pid);
	u32(b, s->tid);
	u64(b, 0x7f0000000000);
	u64(b, 0x21000);
	u64(b, 0);
	if (build_id) {
		u8(b, 20);
		put(b, "\0\0\0", 3);
		put(b, "\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23"
		       "\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67", 20);
	} else {
		u32(b, 8);
		u32(b, 1);
		u64(b, 1234567);
		u64(b, 0);
	}
	u32(b, 5);	/* PROT_READ | PROT_EXEC */
	u32(b, 2);	/* MAP_PRIVATE */
	string(b, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	trailer(b, f, s);
	rec_end(b);
}

static void mmap1(struct buf *b, const struct fmt *f, const struct sid *s)
{
	rec_begin(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	u32(b, s->pid);
	u32(b, s->tid);
	u64(b, 0x400000);
	u64(b, 0x1000);
	u64(b, 0);
	string(b, "/usr/bin/true");
	trailer(b, f, s);
	rec_end(b);
}

static void comm(struct buf *b, const struct fmt *f, const struct sid *s,
		 const char *name, int exec)
{
	rec_begin(b, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	u32(b, s->pid);
	u32(b, s->tid);
	string(b, name);
	trailer(b, f, s);
	rec_end(b);
}

static void task(struct buf *b, const struct fmt *f, const struct sid *s,
		 uint32_t type, uint32_t ppid, uint32_t ptid)
{
	rec_begin(b, type, 0);
	u32(b, s->pid);
	u32(b, ppid);
	u32(b, s->tid);
	u32(b, ptid);
	u64(b, s->time);
	trailer(b, f, s);
	rec_end(b);
}

/* LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE, AUX: fixed u64 fields. */
static void fixed(struct buf *b, const struct fmt *f, const struct sid *s,
		  uint32_t type, unsigned nfields, uint16_t misc)
{
	rec_begin(b, type, misc);
	for (unsigned i = 0; i < nfields; i++)
		u64(b, i == 0 ? s->time : s->id + i);
	trailer(b, f, s);
	rec_end(b);
}

static void switch_rec(struct buf *b, const struct fmt *f,
		       const struct sid *s, int cpu_wide, uint16_t misc)
{
	rec_begin(b, cpu_wide ? PERF_RECORD_SWITCH_CPU_WIDE :
		  PERF_RECORD_SWITCH, misc);
	if (cpu_wide) {
		u32(b, s->pid + 1);
		u32(b, s->tid + 1);
	}
	trailer(b, f, s);
	rec_end(b);
}

static void start(struct buf *b, const struct fmt *f)
{
	b->n = 0;
	b->rec = 0;
	fmt_bytes(b, f);
}

/* An entry and its completion; id 1 is the entry event, 2 minor, 3 major. */
static void fault_pair(struct buf *b, const struct fmt *f, struct sid s,
		       uint64_t dur, int major)
{
	s.id = 1;
	sample(b, f, &s);
	s.id = major ? 3 : 2;
	s.time += dur;
	sample(b, f, &s);
}

static const struct sid main_thread = {
	1, 1700000000000000000ull, 0x7f0000001000, 4242, 4242, 0,
};

static void perf_fault_seeds(void)
{
	struct buf b;
	struct sid s = main_thread, t = main_thread;

	start(&b, &fault_fmt);
	fault_pair(&b, &fault_fmt, s, 1500, 0);
	save("fuzz_perf_record", "sample_fault_minor", &b);

	start(&b, &fault_fmt);
	fault_pair(&b, &fault_fmt, s, 2000000, 1);
	s.time += 10;
	s.id = 2;	/* a completion with no entry */
	sample(&b, &fault_fmt, &s);
	save("fuzz_perf_record", "sample_fault_major", &b);

	/* Two threads on two CPUs, drained ring by ring: out of time order. */
	start(&b, &fault_fmt);
	t.tid = 4243;
	t.cpu = 1;
	t.time = s.time + 100;
	s.time += 200;
	fault_pair(&b, &fault_fmt, s, 300, 0);
	fault_pair(&b, &fault_fmt, t, 5000, 1);
	save("fuzz_perf_record", "sample_out_of_order", &b);
}

static void perf_sideband_seeds(void)
{
	const struct fmt *f = &fault_fmt;
	struct buf b;
	struct sid s = main_thread;

	start(&b, f);
	mmap2(&b, f, &s, 0);
	save("fuzz_perf_record", "mmap2_ino", &b);

	start(&b, f);
	mmap2(&b, f, &s, 1);
	mmap1(&b, f, &s);
	save("fuzz_perf_record", "mmap2_build_id", &b);

	start(&b, f);
	comm(&b, f, &s, "worker", 0);
	fault_pair(&b, f, s, 700, 0);
	s.time += 1000;
	comm(&b, f, &s, "fifteen-chars-x", 1);
	fault_pair(&b, f, s, 900, 0);
	save("fuzz_perf_record", "comm_exec", &b);

	start(&b, f);
	s.tid = 4300;
	task(&b, f, &s, PERF_RECORD_FORK, 4242, 4242);
	s.time += 50;
	fault_pair(&b, f, s, 400, 0);
	s.time += 1000;
	s.id = 1;
	sample(&b, f, &s);	/* left pending by the exit */
	s.time += 50;
	task(&b, f, &s, PERF_RECORD_EXIT, 4242, 4242);
	save("fuzz_perf_record", "fork_exit", &b);
}

static void perf_control_seeds(void)
{
	const struct fmt *f = &fault_fmt;
	struct buf b;
	struct sid s = main_thread;

	start(&b, f);
	fixed(&b, f, &s, PERF_RECORD_LOST, 2, 0);
	fixed(&b, f, &s, PERF_RECORD_LOST_SAMPLES, 1, 0);
	save("fuzz_perf_record", "lost", &b);

	start(&b, f);
	fixed(&b, f, &s, PERF_RECORD_THROTTLE, 3, 0);
	fixed(&b, f, &s, PERF_RECORD_UNTHROTTLE, 3, 0);
	save("fuzz_perf_record", "throttle", &b);

	start(&b, f);
	switch_rec(&b, f, &s, 0, PERF_RECORD_MISC_SWITCH_OUT |
		   PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	switch_rec(&b, f, &s, 0, 0);
	switch_rec(&b, f, &s, 1, PERF_RECORD_MISC_SWITCH_OUT);
	save("fuzz_perf_record", "switch", &b);

	start(&b, f);
	fixed(&b, f, &s, PERF_RECORD_AUX, 3, 0);
	rec_begin(&b, PERF_RECORD_ITRACE_START, 0);
	u32(&b, s.pid);
	u32(&b, s.tid);
	trailer(&b, f, &s);
	rec_end(&b);
	rec_begin(&b, 99, 0);	/* a type the decoder does not know */
	u64(&b, 0);
	rec_end(&b);
	fault_pair(&b, f, s, 100, 0);
	save("fuzz_perf_record", "aux_itrace_unknown", &b);
}

/* Formats other than faultline's own, with the variable-length fields. */
static void perf_format_seeds(void)
{
	struct fmt rich = {
		FAULT_TYPE | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN |
		PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER |
		PERF_SAMPLE_STACK_USER,
		0, 3, 0, 0, 1, 0, 0x01,
	};
	/* Every bit, WEIGHT_STRUCT standing in for WEIGHT (one or the other) */
	struct fmt all = {
		(((uint64_t)PERF_SAMPLE_CODE_PAGE_SIZE * 2 - 1) &
		 ~(uint64_t)PERF_SAMPLE_WEIGHT) | PERF_SAMPLE_WEIGHT_STRUCT,
		PERF_FORMAT_TOTAL_TIME_ENABLED |
		PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
		PERF_FORMAT_GROUP | PERF_FORMAT_LOST,
		2, 4, 1, 1, 0, 0x00,
	};
	struct fmt bare = {
		PERF_SAMPLE_IP | PERF_SAMPLE_TID, 0, 0, 0, 0, 0, 0, 0,
	};
	struct buf b;
	struct sid s = main_thread;

	start(&b, &rich);
	fault_pair(&b, &rich, s, 1200, 0);
	comm(&b, &rich, &s, "rich", 0);
	save("fuzz_perf_record", "sample_callchain_raw_regs_stack", &b);

	start(&b, &all);
	sample(&b, &all, &s);
	mmap2(&b, &all, &s, 0);
	save("fuzz_perf_record", "sample_every_field", &b);

	start(&b, &bare);
	sample(&b, &bare, &s);
	comm(&b, &bare, &s, "no-sample-id", 0);
	task(&b, &bare, &s, PERF_RECORD_FORK, 1, 1);
	save("fuzz_perf_record", "no_sample_id_all", &b);

	/* A sample whose header.size cuts its last field short. */
	start(&b, &fault_fmt);
	sample(&b, &fault_fmt, &s);
	b.b[8 + 6] = 40;	/* the size field, after the 8 format bytes */
	b.n = 8 + 40;
	save("fuzz_perf_record", "sample_truncated", &b);
}

/* ---- fuzz_fault_stream ----------------------------------------------- */

/* Event kinds as enum ev_kind numbers them; tid and parent are indexes
 * into the target's tids[] (0-5 only: 6 and 7, tids 0 and -1, are left
 * to the fuzzer). */
enum { ENTRY, MINOR, MAJOR, COMM, FORK, EXIT };

struct sev {
	uint8_t kind, tid, cpu;
	int8_t dt;		/* steps since the previous event */
	uint8_t addr, aux;	/* aux: parent or name index */
	uint8_t exec, flush;
};

static void stream_seed(const char *name, uint8_t s0, uint8_t s1,
			const struct sev *ev, size_t n)
{
	struct buf b = { .n = 0 };

	u8(&b, s0);
	u8(&b, s1);
	for (size_t i = 0; i < n; i++) {
		u8(&b, (uint8_t)(ev[i].kind | ev[i].tid << 3 | ev[i].cpu << 6));
		u8(&b, (uint8_t)ev[i].dt);
		u8(&b, (uint8_t)(ev[i].addr | ev[i].aux << 2 |
				 ev[i].exec << 5 | ev[i].flush << 6));
	}
	save("fuzz_fault_stream", name, &b);
}

#define SEED(name, s0, s1, ...) do {					\
	static const struct sev ev_[] = { __VA_ARGS__ };		\
	stream_seed(name, s0, s1, ev_, sizeof(ev_) / sizeof(ev_[0]));	\
} while (0)

/* Settings: byte 0 flush every (b & 7) + 1 events, slack b >> 3 steps;
 * byte 1 min_dur index (b & 3), step index (b >> 2 & 3). */
static void stream_pairing_seeds(void)
{
	SEED("minor_pair", 0x07, 0x00,
	     { ENTRY, 0, 0, 1, 0, 0, 0, 0 }, { MINOR, 0, 0, 5, 0, 0, 0, 0 });
	SEED("major_pair", 0x07, 0x08,
	     { ENTRY, 0, 1, 1, 1, 0, 0, 0 }, { MAJOR, 0, 2, 100, 1, 0, 0, 0 });
	SEED("entry_entry", 0x07, 0x00,
	     { ENTRY, 0, 0, 1, 0, 0, 0, 0 }, { ENTRY, 0, 0, 2, 1, 0, 0, 0 },
	     { MINOR, 0, 0, 3, 1, 0, 0, 0 });
	SEED("lone_completion", 0x07, 0x00, { MAJOR, 1, 3, 1, 2, 0, 0, 0 });
	SEED("addr_mismatch", 0x07, 0x00,
	     { ENTRY, 0, 0, 1, 0, 0, 0, 0 }, { MINOR, 0, 0, 3, 1, 0, 0, 0 });
	SEED("exit_pending", 0x07, 0x00,
	     { ENTRY, 2, 0, 1, 0, 0, 0, 0 }, { EXIT, 2, 0, 4, 0, 0, 0, 0 });
	SEED("threshold", 0x07, 0x0a,
	     { ENTRY, 0, 0, 1, 0, 0, 0, 0 }, { MINOR, 0, 0, 3, 0, 0, 0, 0 },
	     { ENTRY, 0, 0, 1, 1, 0, 0, 0 }, { MAJOR, 0, 1, 90, 1, 0, 0, 0 });
}

static void stream_order_seeds(void)
{
	/* Completion stamped before its entry: queued in the wrong order. */
	SEED("backwards", 0x07, 0x00,
	     { MINOR, 0, 1, 10, 0, 0, 0, 0 }, { ENTRY, 0, 0, -4, 0, 0, 0, 0 },
	     { MINOR, 0, 1, 8, 0, 0, 0, 0 });
	/* Flushed after every event with no slack, then one arrives late. */
	SEED("late_event", 0x00, 0x04,
	     { ENTRY, 0, 0, 2, 0, 0, 0, 0 }, { ENTRY, 1, 1, 3, 2, 0, 0, 0 },
	     { MINOR, 0, 0, -2, 0, 0, 0, 0 }, { MINOR, 1, 1, 6, 2, 0, 0, 0 });
	SEED("interleaved", 0x1a, 0x04,
	     { ENTRY, 0, 0, 1, 0, 0, 0, 0 }, { ENTRY, 3, 1, 1, 1, 0, 0, 0 },
	     { MINOR, 3, 2, 2, 1, 0, 0, 0 }, { ENTRY, 4, 3, -1, 2, 0, 0, 0 },
	     { MAJOR, 0, 1, 9, 0, 0, 0, 1 }, { MINOR, 4, 3, 1, 2, 0, 0, 0 },
	     { ENTRY, 3, 2, 1, 3, 0, 0, 0 }, { MINOR, 3, 0, 1, 3, 0, 0, 0 });
	SEED("time_zero", 0x00, 0x00,
	     { ENTRY, 0, 0, -64, 0, 0, 0, 0 }, { MINOR, 0, 0, 0, 0, 0, 0, 0 },
	     { COMM, 0, 0, 0, 0, 1, 0, 0 });
}

static void stream_thread_seeds(void)
{
	SEED("fork_child", 0x07, 0x04,
	     { COMM, 0, 0, 1, 0, 2, 0, 0 }, { FORK, 1, 0, 1, 0, 0, 0, 0 },
	     { ENTRY, 1, 1, 1, 0, 0, 0, 0 }, { MINOR, 1, 1, 2, 0, 0, 0, 0 },
	     { EXIT, 1, 1, 1, 0, 0, 0, 0 });
	SEED("comm_rename", 0x07, 0x04,
	     { ENTRY, 0, 0, 1, 0, 0, 0, 0 }, { MINOR, 0, 0, 2, 0, 0, 0, 0 },
	     { COMM, 0, 0, 1, 0, 2, 0, 0 }, { ENTRY, 0, 0, 1, 1, 0, 0, 0 },
	     { MINOR, 0, 0, 2, 1, 0, 0, 0 }, { COMM, 0, 0, 1, 0, 3, 1, 0 },
	     { COMM, 0, 0, 1, 0, 5, 0, 0 });
	/* A tid that exits and comes back through a FORK. */
	SEED("tid_reuse", 0x07, 0x04,
	     { ENTRY, 2, 0, 1, 0, 0, 0, 0 }, { MINOR, 2, 0, 2, 0, 0, 0, 0 },
	     { EXIT, 2, 0, 1, 0, 0, 0, 0 }, { FORK, 2, 1, 5, 0, 0, 0, 0 },
	     { ENTRY, 2, 1, 1, 0, 0, 0, 0 }, { MAJOR, 2, 1, 7, 0, 0, 0, 0 });
	SEED("flush_each", 0x00, 0x0c,
	     { ENTRY, 0, 0, 1, 0, 0, 0, 1 }, { ENTRY, 1, 1, 1, 1, 0, 0, 1 },
	     { MINOR, 1, 1, 1, 1, 0, 0, 1 }, { MINOR, 0, 0, 1, 0, 0, 0, 1 },
	     { FORK, 3, 2, 1, 0, 4, 0, 1 }, { ENTRY, 3, 2, 1, 2, 0, 0, 1 },
	     { MAJOR, 3, 2, 1, 2, 0, 0, 1 }, { EXIT, 3, 2, 1, 0, 4, 0, 1 });
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	out_dir = argv[1];
	perf_fault_seeds();
	perf_sideband_seeds();
	perf_control_seeds();
	perf_format_seeds();
	stream_pairing_seeds();
	stream_order_seeds();
	stream_thread_seeds();
	return 0;
}
