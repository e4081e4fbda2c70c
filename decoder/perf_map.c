#include <errno.h>

#include "perf_map.h"
#include "text_fields.h"

int perf_map_parse(struct addr_syms *t, const char *text, size_t len)
{
	char *line, *next;
	int err;

	err = addr_syms_take_text(t, text, len);
	for (line = t->text; err == 0 && line; line = next) {
		uint64_t start, size;
		char *p = line, *name;

		next = text_cut_line(line);
		if (!*line)
			continue;
		if (text_hex(&p, &start) < 0 || text_hex(&p, &size) < 0 ||
		    !(name = text_rest(&p)) || size == 0 || start + size < start) {
			t->lines_bad++;
			continue;
		}
		err = addr_syms_add(t, start, size, name, NULL);
	}
	if (err < 0)
		return err;
	addr_syms_sort(t);
	return 0;
}
