#include <string.h>

#include "record_stacks.h"
#include "usage.h"

void record_stacks_symbolize(struct record_stacks *s, sqlite3 *db,
			     const char *path, int64_t session_id,
			     const struct record_pipeline *p, int symbolize)
{
	struct symbolize_opts o = { NULL, 0, 0 };

	memset(s, 0, sizeof(*s));
	errmsg_init(&s->failed);
	if (!symbolize || !p->stack_tab.nframes)
		return;
	s->symbolized = symbol_store_symbolize(db, path, session_id, &o, &s->c,
					       &s->failed) == 0;
}

void record_stacks_print(FILE *f, const struct record_stacks *s,
			 const struct record_pipeline *p, const char *path)
{
	if (p->stacks.mode == STACKS_NONE)
		return;
	fprintf(f, "  stacks: %llu sampled, %llu cut short, %zu distinct, "
		"%zu frames", (unsigned long long)p->n.stacks,
		(unsigned long long)p->n.stacks_truncated, p->stack_tab.nstacks,
		p->stack_tab.nframes);
	if (s->symbolized)
		fprintf(f, ", %llu named (%llu no file, %llu build id mismatch, "
			"%llu no symbol)\n", (unsigned long long)s->c.ok,
			(unsigned long long)s->c.no_file,
			(unsigned long long)s->c.build_id_mismatch,
			(unsigned long long)s->c.no_symbol);
	else
		fputs(", not symbolized\n", f);
	if (s->failed.text[0])
		warning("record", "the stacks were recorded but not symbolized: %s; "
			"run 'faultline symbolize %s'", s->failed.text, path);
}
