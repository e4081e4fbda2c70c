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

#include "../common/strbuf.h"
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
 * 38 MB.  The text is read once, a line at a time (the kernel takes about
 * 37 ms to write it out each time it is read):
 *
 *	kallsyms_pick_init(&p, want, nwant);
 *	each line: kallsyms_pick_line(&p, line);
 *	kallsyms_pick_text(&p, &kept);
 *	kallsyms_pick_release(&p);
 *
 * The lines kept parse (kallsyms_parse) to the same symbol and size for
 * every wanted address as the whole text: all code symbols at the highest
 * address at or below it, and the first code symbol above that one, where
 * its size ends.  The wanted addresses cut the address space into gaps;
 * a symbol's line can only matter as the highest of its gap (a floor) or
 * the lowest (where the size of the floor below ends), so each gap keeps
 * those as the text goes by.  Where every address reads 0 (hidden) one
 * code line is kept, so the parse says hidden; lines at address 0 among
 * others are left out (no kernel puts code there).
 */
struct kallsyms_gap {
	uint64_t lo, hi;		/* its lowest and highest code symbol */
	struct strbuf hi_lines;		/* owned: every code line at hi */
	struct strbuf lo_line;		/* owned: one code line at lo */
	int used;			/* lo, hi and the lines are set */
};

struct kallsyms_pick {
	uint64_t *want;		/* owned: the addresses, ascending, distinct */
	size_t n;
	/* owned: n + 1; gaps[i] holds (want[i - 1], want[i]], and the last
	 * what lies above want[n - 1] */
	struct kallsyms_gap *gaps;
	struct strbuf zero_line;	/* owned: the first code line at 0 */
	int any_addr;		/* a code symbol's address read nonzero */
};

/* The addresses to name, in any order (a return address's call is at
 * addr - 1: the caller gives that one).  0 or -ENOMEM. */
int kallsyms_pick_init(struct kallsyms_pick *p, const uint64_t *want,
		       size_t n);
void kallsyms_pick_release(struct kallsyms_pick *p);
/* A line of the text (its newline optional).  0 or -ENOMEM. */
int kallsyms_pick_line(struct kallsyms_pick *p, const char *line);
/* The lines kept, each with its newline, appended to out.  0 or -ENOMEM. */
int kallsyms_pick_text(const struct kallsyms_pick *p, struct strbuf *out);

#endif
