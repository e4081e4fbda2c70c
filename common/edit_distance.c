#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edit_distance.h"

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Three rows of the table suffice: a swap looks two rows back. */
size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d;
	size_t *rows = malloc(3 * (lb + 1) * sizeof(*rows));
	size_t *prev2, *prev, *cur;

	if (!rows)
		return SIZE_MAX;
	prev2 = rows;
	prev = rows + lb + 1;
	cur = rows + 2 * (lb + 1);
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		size_t *t = prev2;

		prev2 = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	free(rows);
	return d;
}

const char *edit_closest(const char *s, const char *const *names, size_t n)
{
	const char *best = NULL, *prefix = NULL;
	size_t best_d = SIZE_MAX, len = strlen(s);
	int tie = 0, prefixes = 0;

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(s, names[i]);

		if (len && !strncmp(names[i], s, len)) {
			prefix = names[i];
			prefixes++;
		}
		if (d > 2 || 2 * d >= strlen(names[i]))
			continue;
		if (d < best_d) {
			best = names[i];
			best_d = d;
			tie = 0;
		} else if (d == best_d && strcmp(best, names[i])) {
			tie = 1;
		}
	}
	if (best && !tie)
		return best;
	return prefixes == 1 ? prefix : NULL;
}
