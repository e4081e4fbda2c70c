/*
 * stack_frames: recorded stacks as the Trace Event Format's
 * "stackFrames" dictionary, a tree of frames:
 *
 *   "stackFrames":{"1":{"name":"start_thread"},
 *                  "2":{"name":"receiver","parent":"1"},
 *                  "3":{"name":"read_cold","parent":"2"}}
 *
 * The outermost frame of a stack is a root; each frame's parent is its
 * caller.  An event names its stack by the id of its innermost frame
 * ("sf":3), so a stack is written once however many events were taken in
 * it, and stacks that share their outer frames share those nodes.  Frames
 * are named as every reader names them (schema.sql's stack_frame_name,
 * demangled): the function, each inlined one too, else the file and
 * offset, else the address.
 *
 * Ids are the nodes' order of making, from 1; a stack id of the database
 * is looked up once and its leaf kept.
 */
#ifndef FL_STACK_FRAMES_H
#define FL_STACK_FRAMES_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/errmsg.h"

struct stack_frames_node {
	int64_t parent;		/* 0: a root */
	char *name;		/* owned (malloc) */
};

struct stack_frames_leaf {
	int64_t stack_id;	/* 0: an empty slot (stack ids start at 1) */
	int64_t sf;		/* its innermost node; 0: no frames */
};

struct stack_frames {
	sqlite3 *db;			/* borrowed */
	const char *path;		/* borrowed: names db in messages */
	int64_t session;
	sqlite3_stmt *st;		/* owned: the frame lookup */
	struct stack_frames_node *nodes;	/* owned: node id i + 1 is nodes[i] */
	size_t n, cap;
	uint32_t *by_key;		/* owned: open addressing on (parent,
					 * name), node index + 1; 0 empty */
	size_t key_cap;			/* a power of 2, over twice n */
	struct stack_frames_leaf *leaves;	/* owned: open addressing */
	size_t nleaves, leaf_cap;	/* leaf_cap a power of 2 */
};

/* Sets up f for session of db (path names it in messages): nothing
 * allocated yet. */
void stack_frames_init(struct stack_frames *f, sqlite3 *db, const char *path,
		       int64_t session);

/*
 * *sf: the node id of stack_id's innermost frame, its frames added to
 * the tree when first seen; 0 for a stack with no frames, or a stack_id
 * below 1.  0, or a negative errno with e set.
 */
int stack_frames_leaf(struct stack_frames *f, int64_t stack_id, int64_t *sf,
		      struct errmsg *e);

/* Node id's entry (1 <= id <= f->n): borrowed from f. */
static inline const struct stack_frames_node *
stack_frames_node(const struct stack_frames *f, int64_t id)
{
	return &f->nodes[id - 1];
}

void stack_frames_release(struct stack_frames *f);

#endif
