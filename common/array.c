#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

#define ARRAY_MIN_CAP 16

int array_bytes(size_t n, size_t size, size_t *out)
{
	if (size && n > SIZE_MAX / size)
		return -ENOMEM;
	*out = n * size;
	return 0;
}

int array_reserve(void *arrayp, size_t *cap, size_t need, size_t elem_size)
{
	size_t c = *cap ? *cap : ARRAY_MIN_CAP, bytes;
	void *old, *grown;

	if (need <= *cap)
		return 0;
	while (c < need)
		c = c > SIZE_MAX / 2 ? need : c * 2;
	if (array_bytes(c, elem_size, &bytes) < 0)
		return -ENOMEM;
	/* The caller's pointer is read and written as bytes: arrayp points
	 * to a `T *`, which need not be a `void *` in the C model. */
	memcpy(&old, arrayp, sizeof(old));
	grown = realloc(old, bytes ? bytes : 1);
	if (!grown)
		return -ENOMEM;
	memcpy(arrayp, &grown, sizeof(grown));
	*cap = c;
	return 0;
}
