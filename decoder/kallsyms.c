#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"

#include "kallsyms.h"
#include "text_fields.h"

/* One line, cut in place: 0, or -EINVAL for a malformed one. */
static int parse_line(char *line, uint64_t *addr, char *type, char **name,
		      char **module)
{
	char *p = line, *tp, *end;

	if (text_hex(&p, addr) < 0)
		return -EINVAL;
	tp = text_word(&p);
	*name = text_word(&p);
	if (!tp || tp[1] != '\0' || !*name)
		return -EINVAL;
	*type = tp[0];
	*module = text_word(&p);
	if (*module) {
		end = *module + strlen(*module) - 1;
		if (**module != '[' || *end != ']' || end == *module + 1)
			return -EINVAL;
		*end = '\0';
		(*module)++;
	}
	return 0;
}

static int is_code(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

int kallsyms_parse(struct addr_syms *t, const char *text, size_t len,
		   int *hidden)
{
	char *line, *next;
	int any_addr = 0, err;

	err = addr_syms_take_text(t, text, len);
	for (line = t->text; err == 0 && line; line = next) {
		uint64_t addr;
		char type, *name, *module;

		next = text_cut_line(line);
		if (!*line)
			continue;
		if (parse_line(line, &addr, &type, &name, &module) < 0) {
			t->lines_bad++;
			continue;
		}
		any_addr |= addr != 0;
		if (is_code(type))
			err = addr_syms_add(t, addr, 0, name, module);
	}
	if (err < 0)
		return err;
	*hidden = t->n > 0 && !any_addr;
	addr_syms_sort(t);
	/* Sizes: up to the next symbol at a higher address. */
	for (size_t i = 0, j = 0; i < t->n; i++) {
		uint64_t gap;

		if (j <= i)
			j = i + 1;
		while (j < t->n && t->v[j].start == t->v[i].start)
			j++;
		gap = j < t->n ? t->v[j].start - t->v[i].start : 0;
		t->v[i].size = gap > KALLSYMS_MAX_SIZE || *hidden ? 0 : gap;
		t->v[i].guessed = 1;
	}
	addr_syms_sort(t);
	return 0;
}

void kallsyms_pick_init(struct kallsyms_pick *p)
{
	memset(p, 0, sizeof(*p));
}

void kallsyms_pick_release(struct kallsyms_pick *p)
{
	free(p->addr);
	kallsyms_pick_init(p);
}

/* A line's address when it is a code symbol's: 1, else 0 (a line that
 * does not parse is no symbol, as kallsyms_parse skips it). */
static int code_line(const char *line, uint64_t *addr)
{
	char copy[1024], type, *name, *module;
	size_t len = strcspn(line, "\n");

	if (len >= sizeof(copy))
		return 0;
	memcpy(copy, line, len);
	copy[len] = '\0';
	return parse_line(copy, addr, &type, &name, &module) == 0 &&
	       is_code(type);
}

int kallsyms_pick_see(struct kallsyms_pick *p, const char *line)
{
	uint64_t addr;

	if (!code_line(line, &addr))
		return 0;
	p->any_addr |= addr != 0;
	if (ARRAY_RESERVE(p->addr, p->cap, p->n + 1) < 0)
		return -ENOMEM;
	p->addr[p->n++] = addr;
	return 0;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sorts v[0..n) and drops repeats; the count left. */
static size_t sort_distinct(uint64_t *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(*v), by_u64);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* The index of the first of v[0..n) above x (n when none is). */
static size_t first_above(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int kallsyms_pick_settle(struct kallsyms_pick *p, const uint64_t *want,
			 size_t n)
{
	uint64_t *keep;
	size_t k = 0;

	p->n = sort_distinct(p->addr, p->n);
	if (!p->any_addr)
		return 0;	/* hidden: kallsyms_pick_keeps keeps one line */
	keep = malloc((2 * n + 1) * sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t above = first_above(p->addr, p->n, want[i]);

		if (above == 0)
			continue;	/* below every symbol: none names it */
		keep[k++] = p->addr[above - 1];
		if (above < p->n)
			keep[k++] = p->addr[above];
	}
	free(p->addr);
	p->addr = keep;
	p->cap = 2 * n + 1;
	p->n = sort_distinct(keep, k);
	return 0;
}

int kallsyms_pick_keeps(struct kallsyms_pick *p, const char *line)
{
	uint64_t addr;
	size_t i;

	if (!code_line(line, &addr))
		return 0;
	if (!p->any_addr) {
		if (p->hidden_kept || !p->n)
			return 0;
		p->hidden_kept = 1;
		return 1;
	}
	i = first_above(p->addr, p->n, addr);
	return i > 0 && p->addr[i - 1] == addr;
}
