/*
 * edit_distance: how far a misspelt name is from the names it could have
 * meant, for "did you mean" (commands, options, tracepoints, queries).
 *
 * The distance is Damerau-Levenshtein's in its restricted form (optimal
 * string alignment, as git's help.c uses for commands): the fewest
 * insertions, deletions, substitutions and swaps of two adjacent
 * characters that turn one into the other, each counting 1.
 */
#ifndef FL_EDIT_DISTANCE_H
#define FL_EDIT_DISTANCE_H

#include <stddef.h>

/* The distance from a to b; SIZE_MAX when out of memory. */
size_t edit_distance(const char *a, const char *b);

/* The one of names[0..n) closest to s, when it is close enough to be
 * what was meant: at most 2 edits, and fewer than half of the name's
 * length (so "ls" suggests nothing for "pt"), or s a prefix of only
 * that name.  NULL when none is, or two are equally close.  Borrowed
 * from names. */
const char *edit_closest(const char *s, const char *const *names, size_t n);

#endif
