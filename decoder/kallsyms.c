#include <errno.h>
#include <string.h>

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
