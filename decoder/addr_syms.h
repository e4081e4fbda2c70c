/*
 * addr_syms: a sorted table of named address ranges, the shape shared by
 * /proc/kallsyms and the /tmp/perf-PID.map files of JITs.  The parsers
 * (kallsyms.h, perf_map.h) fill one from text; lookups are a binary
 * search.  No I/O: the caller reads the text.
 */
#ifndef FL_ADDR_SYMS_H
#define FL_ADDR_SYMS_H

#include <stddef.h>
#include <stdint.h>

struct addr_sym {
	uint64_t start;
	uint64_t size;		/* 0: unknown, the range holds no address */
	const char *name;	/* borrowed from the table's text */
	const char *module;	/* borrowed; kallsyms "[mod]" name, or NULL */
	int guessed;		/* size is the gap to the next range, not given */
	/* Its place among the ranges added: equal starts keep the order
	 * they came in (qsort is not stable, and may compare copies). */
	uint32_t order;
};

struct addr_syms {
	struct addr_sym *v;	/* owned; sorted by start once parsed */
	size_t n, cap;
	char *text;		/* owned copy of the parsed text; names point in
				 * (NULL when names are borrowed from elsewhere) */
	uint64_t max_size;	/* the longest range, set by addr_syms_sort */
	size_t lines_bad;	/* lines that did not parse, skipped */
};

void addr_syms_init(struct addr_syms *t);
void addr_syms_release(struct addr_syms *t);

/* Appends a range.  0 or -ENOMEM. */
int addr_syms_add(struct addr_syms *t, uint64_t start, uint64_t size,
		  const char *name, const char *module);

/* Sorts by start (stable for equal starts) and sets max_size; call it
 * after the last add, before a find.  The parsers do. */
void addr_syms_sort(struct addr_syms *t);

/* The range holding addr, or NULL.  When ranges overlap (a JIT that
 * reused an address), the one starting last wins. */
const struct addr_sym *addr_syms_find(const struct addr_syms *t,
				      uint64_t addr);

/* A NUL-terminated owned copy of text[0..len) in t->text, for the
 * parsers to cut into names.  0 or -ENOMEM. */
int addr_syms_take_text(struct addr_syms *t, const char *text, size_t len);

#endif
