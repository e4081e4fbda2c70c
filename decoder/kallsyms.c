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

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The index of the first of v[0..n) at or above x (n when none is). */
static size_t first_at_or_above(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int kallsyms_pick_init(struct kallsyms_pick *p, const uint64_t *want,
		       size_t n)
{
	size_t k = 0;

	memset(p, 0, sizeof(*p));
	strbuf_init(&p->zero_line);
	p->want = malloc((n ? n : 1) * sizeof(*p->want));
	p->gaps = calloc(n + 1, sizeof(*p->gaps));
	if (!p->want || !p->gaps) {
		kallsyms_pick_release(p);
		return -ENOMEM;
	}
	if (n)
		memcpy(p->want, want, n * sizeof(*want));
	qsort(p->want, n, sizeof(*p->want), by_u64);
	for (size_t i = 0; i < n; i++)
		if (!k || p->want[k - 1] != p->want[i])
			p->want[k++] = p->want[i];
	p->n = k;
	for (size_t i = 0; i <= k; i++) {
		strbuf_init(&p->gaps[i].hi_lines);
		strbuf_init(&p->gaps[i].lo_line);
	}
	return 0;
}

void kallsyms_pick_release(struct kallsyms_pick *p)
{
	for (size_t i = 0; p->gaps && i <= p->n; i++) {
		strbuf_release(&p->gaps[i].hi_lines);
		strbuf_release(&p->gaps[i].lo_line);
	}
	free(p->gaps);
	free(p->want);
	strbuf_release(&p->zero_line);
	memset(p, 0, sizeof(*p));
}

/* line, cut at its newline, and one newline, into sb (emptied first
 * when reset). */
static void put_line(struct strbuf *sb, const char *line, int reset)
{
	if (reset)
		strbuf_reset(sb);
	strbuf_add(sb, line, strcspn(line, "\n"));
	strbuf_addc(sb, '\n');
}

int kallsyms_pick_line(struct kallsyms_pick *p, const char *line)
{
	struct kallsyms_gap *g;
	uint64_t addr;

	if (!code_line(line, &addr))
		return 0;
	if (!addr) {
		if (!p->zero_line.len)
			put_line(&p->zero_line, line, 0);
		return strbuf_error(&p->zero_line) ? -ENOMEM : 0;
	}
	p->any_addr = 1;
	g = &p->gaps[first_at_or_above(p->want, p->n, addr)];
	if (!g->used || addr > g->hi) {
		put_line(&g->hi_lines, line, 1);
		g->hi = addr;
	} else if (addr == g->hi) {
		put_line(&g->hi_lines, line, 0);
	}
	if (!g->used || addr < g->lo) {
		put_line(&g->lo_line, line, 1);
		g->lo = addr;
	}
	g->used = 1;
	return strbuf_error(&g->hi_lines) || strbuf_error(&g->lo_line) ?
	       -ENOMEM : 0;
}

int kallsyms_pick_text(const struct kallsyms_pick *p, struct strbuf *out)
{
	int floor_below = 0;

	if (!p->any_addr) {
		strbuf_add(out, p->zero_line.buf, p->zero_line.len);
		return strbuf_error(out) ? -ENOMEM : 0;
	}
	for (size_t i = 0; i <= p->n; i++) {
		const struct kallsyms_gap *g = &p->gaps[i];

		if (!g->used)
			continue;
		/* Its lowest ends the size of the floor below, if any. */
		if (floor_below && (i == p->n || g->lo != g->hi))
			strbuf_add(out, g->lo_line.buf, g->lo_line.len);
		/* Its highest is the floor of want[i]. */
		if (i < p->n)
			strbuf_add(out, g->hi_lines.buf, g->hi_lines.len);
		floor_below = 1;
	}
	return strbuf_error(out) ? -ENOMEM : 0;
}
