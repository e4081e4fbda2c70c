/*
 * array: the one way faultline sizes arrays.  ARRAY_SIZE for fixed
 * arrays; array_reserve (through ARRAY_RESERVE) to grow a malloc'd one,
 * doubling, with the multiplication checked, so no caller writes
 * realloc(v, n * size) and trusts n * size not to wrap.
 *
 * Usage, for `struct thing *v; size_t n, cap;` (v NULL, cap 0 at first):
 *
 *	if (ARRAY_RESERVE(v, cap, n + 1) < 0)
 *		return -ENOMEM;
 *	v[n++] = thing;
 */
#ifndef FL_ARRAY_H
#define FL_ARRAY_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Makes room for at least `need` elements of elem_size bytes in the
 * array *arrayp points to (a pointer to the caller's pointer variable),
 * whose capacity is *cap elements.  Grows by doubling from 16.  Returns 0,
 * or -ENOMEM (out of memory, or need * elem_size would overflow); on
 * failure the array and *cap are untouched and still the caller's.
 */
int array_reserve(void *arrayp, size_t *cap, size_t need, size_t elem_size);

#define ARRAY_RESERVE(v, cap, need) \
	array_reserve(&(v), &(cap), (need), sizeof(*(v)))

/* n * size, or -ENOMEM when it overflows: for a malloc of a computed
 * count.  0 with *out set on success. */
int array_bytes(size_t n, size_t size, size_t *out);

#endif
