/*
 * stack_table: stacks and frames deduplicated in memory while recording.
 *
 * A frame is (address space, address, return_addr): pid for user frames,
 * -1 for kernel frames.  A stack is its pid, method, why it ends, and its
 * list of frame ids, innermost first.  Ids are dense from 1 (0 means "no
 * stack") in order of first sight, and are the stack_id / frame_id the
 * loader writes.  Each entry remembers whether it has been written, so a
 * stack reaches the database once, and only when a row refers to it.
 *
 * Pure: no I/O.  Memory grows with the distinct stacks and frames seen.
 */
#ifndef FL_STACK_TABLE_H
#define FL_STACK_TABLE_H

#include <stddef.h>
#include <stdint.h>

enum stack_method {
	STACK_FP,		/* PERF_SAMPLE_CALLCHAIN */
	STACK_DWARF,		/* user stack copy unwound with CFI */
	STACK_KERNEL,		/* kernel frames only: a wake-up's */
};

struct stack_frame_in {		/* one frame to intern */
	uint64_t addr;
	uint8_t kernel;
	uint8_t return_addr;	/* addr is a return address */
};

struct st_frame {
	int64_t pid;		/* -1 for kernel frames */
	uint64_t addr;
	uint8_t kernel, return_addr;
	uint8_t written;
};

struct st_stack {
	uint32_t pid;
	enum stack_method method;
	char *truncated;	/* owned; NULL when the unwind reached the end */
	uint32_t *frames;	/* owned: depth frame ids, innermost first */
	uint32_t depth;
	uint64_t hash;
	uint8_t written;
};

struct st_seen {
	uint64_t raw_hash;
	uint32_t stack_id;		/* 0: empty */
};

struct stack_table {
	struct st_frame *frames;	/* owned: frame_id - 1 */
	size_t nframes, capframes;
	uint32_t *frame_slots;		/* owned: open addressing, frame_id or 0 */
	size_t frame_nslots;		/* 0 or a power of two */
	struct st_stack *stacks;	/* owned: stack_id - 1 */
	size_t nstacks, capstacks;
	uint32_t *stack_slots;		/* owned: open addressing, stack_id or 0 */
	size_t stack_nslots;
	/* owned: STACK_SEEN_SLOTS stacks last seen, by the hash of their
	 * raw frames (stack_table.c), or NULL until the first intern */
	struct st_seen *seen;
};

void stack_table_init(struct stack_table *t);
void stack_table_release(struct stack_table *t);

/*
 * The id of the stack of pid made of frames[0..n) (innermost first), how
 * it was found and why it ends (truncated: borrowed, copied if new; NULL
 * when complete), interned on first sight.  Kernel frames get pid -1.
 * 0 with *stack_id set, or -ENOMEM.
 */
int stack_table_intern(struct stack_table *t, uint32_t pid,
		       enum stack_method method, const char *truncated,
		       const struct stack_frame_in *frames, size_t n,
		       uint32_t *stack_id);

/* Borrowed from the table, valid until the next intern; NULL for an id
 * that was never handed out. */
struct st_stack *stack_table_stack(const struct stack_table *t, uint32_t id);
struct st_frame *stack_table_frame(const struct stack_table *t, uint32_t id);

const char *stack_method_name(enum stack_method m);

#endif
