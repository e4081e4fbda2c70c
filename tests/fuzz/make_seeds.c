/*
 * make_seeds: writes the seed corpus of the fuzz targets, valid inputs
 * built field by field, so that fuzzing starts from every record type
 * and every stream situation instead of finding them by chance.  The
 * perf records are the unit tests' encoders (tests/unit/records.h); what
 * is here is what each target reads before or instead of them.
 *
 *   cc -std=gnu11 -Wall -Wextra -D_GNU_SOURCE \
 *      $(pkg-config --cflags libtraceevent) \
 *      -o make_seeds tests/fuzz/make_seeds.c
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

static _Noreturn void die(const char *msg)
{
	fprintf(stderr, "make_seeds: %s\n", msg);
	abort();
}

#define REC_FAIL(msg) die(msg)

#include "../unit/records.h"

#define SEED_MAX 4096
#define PERF_TARGET "fuzz_perf_record"

struct seed {
	uint8_t b[SEED_MAX];
	size_t n;
};

static const char *out_dir;

static void seed_bytes(struct seed *s, const void *p, size_t n)
{
	if (n > SEED_MAX - s->n)
		die("a seed over SEED_MAX bytes");
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

/* Appends the record that enc, a records.h encoder, writes. */
#define ADD(s, enc, ...) \
	((s)->n += enc((s)->b + (s)->n, SEED_MAX - (s)->n, __VA_ARGS__))

static void save(const char *target, const char *name, const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", out_dir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->n, f) != s->n || fclose(f) != 0) {
		fprintf(stderr, "make_seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* ---- fuzz_perf_record ------------------------------------------------ */

/* As collector/fault_events.c sets it (enc_fault_sample encodes with it);
 * that file brings libpfm4 and the collector, which this tool does not
 * link.  fuzz_perf_record has its own copy of the sample type. */
void fault_sample_fmt(struct sample_fmt *f)
{
	memset(f, 0, sizeof(*f));
	f->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
	f->sample_id_all = 1;
}

static struct sample_fmt fault_fmt;

/* The target makes a regs mask of a count of low bits. */
static uint8_t nregs(uint64_t mask)
{
	int n = __builtin_popcountll(mask);

	if (mask != (n == 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1))
		die("a regs mask that is not low bits");
	return (uint8_t)n;
}

/* The 8 bytes the target reads f from: with `faultline` (byte 6 bit 3)
 * it decodes with fault_sample_fmt() whatever bytes 0-5 say.  stream is
 * byte 7: flush period, slack and min_dur. */
static void start(struct seed *s, const struct sample_fmt *f, int faultline,
		  uint8_t stream)
{
	uint64_t t = f->sample_type;
	int hw_index = !!(f->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	int weight_struct = !!(t & PERF_SAMPLE_WEIGHT_STRUCT);
	uint8_t h[8] = {
		(uint8_t)t, (uint8_t)(t >> 8), (uint8_t)(t >> 16),
		(uint8_t)f->read_format,
		nregs(f->regs_user_mask), nregs(f->regs_intr_mask),
		(uint8_t)(hw_index | !!f->sample_id_all << 1 |
			  weight_struct << 2 | !!faultline << 3),
		stream,
	};

	if (t >> 24 & ~(uint64_t)(PERF_SAMPLE_WEIGHT_STRUCT >> 24) ||
	    f->read_format >> 8)
		die("a format the target's bytes cannot say");
	s->n = 0;
	seed_bytes(s, h, sizeof(h));
}

static void start_fault(struct seed *s)
{
	start(s, &fault_fmt, 1, 0x02);
}

#define FAULT_ADDR 0x7f0000001000ull
#define FAULT_IP 0x401000ull

static const struct sample_id main_thread = {
	.pid = 4242, .tid = 4242, .time = 1700000000000000000ull,
	.id = 1, .stream_id = 1, .cpu = 0,
};

/* A sample of the fault events.  The target's ids 1, 2 and 3 are its
 * entry, minor and major events. */
static void fault(struct seed *s, const struct sample_id *t, uint64_t id)
{
	ADD(s, enc_fault_sample, id, t->pid, t->tid, t->time, FAULT_ADDR,
	    FAULT_IP, t->cpu);
}

/* An entry and its completion dur ns later. */
static void fault_pair(struct seed *s, struct sample_id t, uint64_t dur,
		       int major)
{
	fault(s, &t, 1);
	t.time += dur;
	fault(s, &t, major ? 3 : 2);
}

/* A sample of any format, every variable-length field filled. */
static void sample(struct seed *s, const struct sample_fmt *f,
		   const struct sample_id *t, uint64_t id)
{
	static const uint64_t callchain[] = {
		(uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402000,
	};
	static const uint64_t regs[] = { 0x1000, 0x2000, 0x3000, 0x4000 };
	struct sample smp = {
		.sid = *t, .ip = FAULT_IP, .addr = FAULT_ADDR, .period = 1,
		.callchain_nr = 3, .callchain = callchain,
		.raw_size = 12, .raw = "raw-payload",	/* 16 with its u32 */
		.regs_user_abi = PERF_SAMPLE_REGS_ABI_64, .regs_user = regs,
		.stack_user_size = 16, .stack_user = "stack-bytes-16..",
		.stack_user_dyn_size = 8,
		.weight = 40, .data_src = 1, .phys_addr = 0x12345000,
		.cgroup = 1, .data_page_size = 4096, .code_page_size = 4096,
	};

	if (__builtin_popcountll(f->regs_user_mask) > 4)
		die("more user registers than sample() has");
	smp.sid.id = id;
	ADD(s, enc_sample, f, &smp, NULL);
}

static void comm(struct seed *s, const struct sample_fmt *f,
		 const struct sample_id *t, const char *name, int exec)
{
	struct rec_comm c = {
		.pid = t->pid, .tid = t->tid, .comm = name, .exec = exec,
	};

	ADD(s, enc_comm, f, &c, t);
}

/* FORK or EXIT of t, whose parent is ppid. */
static struct rec_task task_of(const struct sample_id *t, uint32_t ppid)
{
	return (struct rec_task){ t->pid, ppid, t->tid, ppid, t->time };
}

static const struct rec_mmap libc = {
	.pid = 4242, .tid = 4242,
	.start = 0x7f0000000000, .len = 0x21000, .pgoff = 0,
	.maj = 8, .min = 1, .ino = 1234567, .ino_generation = 0,
	.build_id = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01,
		      0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23,
		      0x45, 0x67 },
	.prot = 5,	/* PROT_READ | PROT_EXEC */
	.flags = 2,	/* MAP_PRIVATE */
	.filename = "/usr/lib/x86_64-linux-gnu/libc.so.6",
};

/* A record of a type the decoder does not know: a header and a u64. */
static void unknown_rec(struct seed *s, uint32_t type)
{
	struct rec_writer w;

	rw_init(&w, s->b + s->n, SEED_MAX - s->n);
	rw_header(&w, type, 0);
	rw_u64(&w, 0);
	s->n += rw_end(&w);
}

static void perf_fault_seeds(void)
{
	struct seed b;
	struct sample_id s = main_thread, t = main_thread;

	start_fault(&b);
	fault_pair(&b, s, 1500, 0);
	save(PERF_TARGET, "sample_fault_minor", &b);

	start_fault(&b);
	fault_pair(&b, s, 2000000, 1);
	s.time += 10;
	fault(&b, &s, 2);	/* a completion with no entry */
	save(PERF_TARGET, "sample_fault_major", &b);

	/* Two threads on two CPUs, drained ring by ring: out of time order. */
	start_fault(&b);
	t.tid = 4243;
	t.cpu = 1;
	t.time = s.time + 100;
	s.time += 200;
	fault_pair(&b, s, 300, 0);
	fault_pair(&b, t, 5000, 1);
	save(PERF_TARGET, "sample_out_of_order", &b);
}

static void perf_sideband_seeds(void)
{
	const struct sample_fmt *f = &fault_fmt;
	struct rec_mmap bid = libc;
	struct rec_mmap exe = {
		.pid = 4242, .tid = 4242, .start = 0x400000, .len = 0x1000,
		.filename = "/usr/bin/true",
	};
	struct rec_task k;
	struct seed b;
	struct sample_id s = main_thread;

	start_fault(&b);
	ADD(&b, enc_mmap2, f, &libc, &s);
	save(PERF_TARGET, "mmap2_ino", &b);

	start_fault(&b);
	bid.build_id_size = 20;
	ADD(&b, enc_mmap2, f, &bid, &s);
	ADD(&b, enc_mmap, f, &exe, &s);
	save(PERF_TARGET, "mmap2_build_id", &b);

	start_fault(&b);
	comm(&b, f, &s, "worker", 0);
	fault_pair(&b, s, 700, 0);
	s.time += 1000;
	comm(&b, f, &s, "fifteen-chars-x", 1);
	fault_pair(&b, s, 900, 0);
	save(PERF_TARGET, "comm_exec", &b);

	start_fault(&b);
	s.tid = 4300;
	k = task_of(&s, 4242);
	ADD(&b, enc_fork, f, &k, &s);
	s.time += 50;
	fault_pair(&b, s, 400, 0);
	s.time += 1000;
	fault(&b, &s, 1);	/* left pending by the exit */
	s.time += 50;
	k = task_of(&s, 4242);
	ADD(&b, enc_exit, f, &k, &s);
	save(PERF_TARGET, "fork_exit", &b);
}

static void perf_control_seeds(void)
{
	const struct sample_fmt *f = &fault_fmt;
	struct seed b;
	struct sample_id s = main_thread;
	struct rec_throttle th = { s.time, s.id, s.stream_id };
	struct rec_switch sw = {
		.out = 1,
		.next_prev_pid = s.pid + 1, .next_prev_tid = s.tid + 1,
	};
	struct rec_aux aux = { .aux_offset = 0x1000, .aux_size = 0x800 };
	struct rec_itrace_start it = { s.pid, s.tid };

	start_fault(&b);
	ADD(&b, enc_lost, f, s.id, 17, &s);
	ADD(&b, enc_lost_samples, f, 5, &s);
	save(PERF_TARGET, "lost", &b);

	start_fault(&b);
	ADD(&b, enc_throttle, f, PERF_RECORD_THROTTLE, &th, &s);
	th.time += 1000;
	ADD(&b, enc_throttle, f, PERF_RECORD_UNTHROTTLE, &th, &s);
	save(PERF_TARGET, "throttle", &b);

	start_fault(&b);
	ADD(&b, enc_switch, f, 1, 1, &s);
	ADD(&b, enc_switch, f, 0, 0, &s);
	ADD(&b, enc_switch_cpu_wide, f, &sw, &s);
	save(PERF_TARGET, "switch", &b);

	start_fault(&b);
	ADD(&b, enc_aux, f, &aux, &s);
	ADD(&b, enc_itrace_start, f, &it, &s);
	unknown_rec(&b, 99);
	fault_pair(&b, s, 100, 0);
	save(PERF_TARGET, "aux_itrace_unknown", &b);
}

/* Formats other than faultline's own, with the variable-length fields. */
static void perf_format_seeds(void)
{
	struct sample_fmt rich = fault_fmt;
	/* Every bit, WEIGHT_STRUCT standing in for WEIGHT (one or the other) */
	struct sample_fmt all = {
		.sample_type = (((uint64_t)PERF_SAMPLE_CODE_PAGE_SIZE * 2 - 1) &
				~(uint64_t)PERF_SAMPLE_WEIGHT) |
			       PERF_SAMPLE_WEIGHT_STRUCT,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
			       PERF_FORMAT_GROUP | PERF_FORMAT_LOST,
		.regs_user_mask = 0x3, .regs_intr_mask = 0xf,
		.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX,
		.sample_id_all = 1,
	};
	struct sample_fmt bare = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	};
	struct sample_fmt tracepoint = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
			       PERF_SAMPLE_RAW,
		.sample_id_all = 1,
	};
	struct seed b;
	struct sample_id s = main_thread, done = main_thread;
	struct rec_task k = task_of(&s, 1);
	uint16_t size = 40;

	rich.sample_type |= PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN |
			    PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER |
			    PERF_SAMPLE_STACK_USER;
	rich.regs_user_mask = 0x7;
	start(&b, &rich, 0, 0x01);
	sample(&b, &rich, &s, 1);
	done.time += 1200;
	sample(&b, &rich, &done, 2);
	comm(&b, &rich, &s, "rich", 0);
	save(PERF_TARGET, "sample_callchain_raw_regs_stack", &b);

	start(&b, &all, 0, 0x00);
	sample(&b, &all, &s, 1);
	ADD(&b, enc_mmap2, &all, &libc, &s);
	save(PERF_TARGET, "sample_every_field", &b);

	start(&b, &bare, 0, 0x00);
	sample(&b, &bare, &s, 1);
	comm(&b, &bare, &s, "no-sample-id", 0);
	ADD(&b, enc_fork, &bare, &k, &s);
	save(PERF_TARGET, "no_sample_id_all", &b);

	/* A tracepoint's format (sched_waking's: with its callchain),
	 * which the recorder reads in place (sample_decode_tail). */
	start(&b, &tracepoint, 0, 0x00);
	sample(&b, &tracepoint, &s, 1);
	done.tid = s.tid + 1;	/* another thread: a pid and tid apart */
	sample(&b, &tracepoint, &done, 2);
	done.tid = s.tid;
	save(PERF_TARGET, "sample_tracepoint", &b);

	/* A sample whose header.size cuts its last field short. */
	start_fault(&b);
	fault(&b, &s, 1);
	memcpy(b.b + 8 + 6, &size, 2);	/* after the 8 format bytes */
	b.n = 8 + size;
	save(PERF_TARGET, "sample_truncated", &b);
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
	struct seed b = { .n = 0 };
	uint8_t settings[2] = { s0, s1 };

	seed_bytes(&b, settings, sizeof(settings));
	for (size_t i = 0; i < n; i++) {
		uint8_t e[3] = {
			(uint8_t)(ev[i].kind | ev[i].tid << 3 | ev[i].cpu << 6),
			(uint8_t)ev[i].dt,
			(uint8_t)(ev[i].addr | ev[i].aux << 2 |
				  ev[i].exec << 5 | ev[i].flush << 6),
		};

		seed_bytes(&b, e, sizeof(e));
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
	fault_sample_fmt(&fault_fmt);
	perf_fault_seeds();
	perf_sideband_seeds();
	perf_control_seeds();
	perf_format_seeds();
	stream_pairing_seeds();
	stream_order_seeds();
	stream_thread_seeds();
	return 0;
}
