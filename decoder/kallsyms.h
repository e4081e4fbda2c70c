/*
 * kallsyms: the kernel's symbol list (/proc/kallsyms text) as an
 * addr_syms table of its code symbols.  A line is
 *
 *     ffffffff81000000 T _stext
 *     ffffffffc0a01000 t xfs_iread	[xfs]
 *
 * hex address, one-letter type, name, and a module in brackets for a
 * loaded module's symbols.  Only code (types t, T, w, W) is kept.  A
 * symbol's size is the distance to the next code symbol, capped (see
 * KALLSYMS_MAX_SIZE): the file gives no sizes.
 */
#ifndef FL_KALLSYMS_H
#define FL_KALLSYMS_H

#include "addr_syms.h"

/* No kernel function is near this long; a longer gap to the next symbol
 * is the end of a text section, not a function. */
#define KALLSYMS_MAX_SIZE (1u << 20)

/*
 * Parses text[0..len) into t (initialised by the caller; it keeps a copy
 * of the text).  Lines that do not parse are counted in t->lines_bad.
 * *hidden is set to 1 when every address reads 0: the kernel hides them
 * from this user (kptr_restrict).  0 or -ENOMEM.
 */
int kallsyms_parse(struct addr_syms *t, const char *text, size_t len,
		   int *hidden);

/*
 * Picking from a kallsyms text only the lines that name given addresses,
 * without holding the whole text: on a 6.18 kernel it is 5 MB of 120,000
 * lines, and read and parsed whole it took a recording's end from 20 to
 * 38 MB.  The text is read twice, a line at a time:
 *
 *	kallsyms_pick_init(&p);
 *	each line of the first read: kallsyms_pick_see(&p, line);
 *	kallsyms_pick_settle(&p, want, nwant);
 *	each line of the second: if (kallsyms_pick_keeps(&p, line)) keep it
 *	kallsyms_pick_release(&p);
 *
 * The lines kept parse (kallsyms_parse) to the same symbol and size for
 * every wanted address as the whole text: all code symbols at the highest
 * address at or below it, and the first code symbol above that one, where
 * its size ends.  Where every address reads 0 (hidden) one code line is
 * kept, so the parse says hidden.  A module loaded or unloaded between the
 * reads changes what is named no more than reading once later would.
 */
struct kallsyms_pick {
	/* owned: the code symbols' addresses as seen; once settled, those
	 * whose lines stay, ascending and distinct */
	uint64_t *addr;
	size_t n, cap;
	int any_addr;		/* a code symbol's address read nonzero */
	int hidden_kept;	/* hidden: the one line is kept */
};

void kallsyms_pick_init(struct kallsyms_pick *p);
void kallsyms_pick_release(struct kallsyms_pick *p);
/* A line of the first read.  0 or -ENOMEM. */
int kallsyms_pick_see(struct kallsyms_pick *p, const char *line);
/* The addresses to name, in any order (a return address's call is at
 * addr - 1: the caller gives that one).  0 or -ENOMEM. */
int kallsyms_pick_settle(struct kallsyms_pick *p, const uint64_t *want,
			 size_t n);
/* Does this line of the second read stay? */
int kallsyms_pick_keeps(struct kallsyms_pick *p, const char *line);

#endif
