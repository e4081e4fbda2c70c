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

#endif
