#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "../common/csv.h"
#include "../common/demangle.h"
#include "../common/json.h"
#include "../common/term_text.h"
#include "../common/fmt_dur.h"
#include "stacks_out.h"

void stacks_out_init(struct stacks_out *o, enum stacks_format f, FILE *out)
{
	memset(o, 0, sizeof(*o));
	o->format = f;
	o->out = out;
}

static void drop_names(struct stacks_out *o)
{
	for (size_t i = 0; i < o->nnames; i++)
		free(o->names[i]);
	o->nnames = 0;
}

void stacks_out_release(struct stacks_out *o)
{
	drop_names(o);
	free(o->names);
	stacks_out_init(o, o->format, o->out);
}

static const char csv_header[] =
	"rank,stack_id,events,total_ns,longest_ns,longest_tid,what,method,"
	"truncated,depth,inlined,addr,kernel,name,symbol,offset,dso,"
	"status,file,line\n";

void stacks_out_begin(struct stacks_out *o, const char *json_head)
{
	if (o->format == STACKS_JSON)
		fprintf(o->out, "{%s,\"stacks\":[", json_head);
	else if (o->format == STACKS_CSV)
		fputs(csv_header, o->out);
}

void stacks_out_end(struct stacks_out *o)
{
	if (o->format == STACKS_JSON)
		fprintf(o->out, "%s]}\n", o->nstacks ? "\n" : "");
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* ---- text ---------------------------------------------------------- */

static void text_stack(FILE *out, const struct stack_row *s)
{
	char total[32], longest[32];

	fprintf(out, "\n#%d  stack %" PRId64 ": %" PRId64 " events, total %s "
		"(%.1f%% of all), longest %s (tid %" PRId64 ", %s), %s\n",
		s->rank, s->stack_id, s->events,
		fmt_dur(total, sizeof(total), (uint64_t)s->total_ns),
		s->all_ns > 0 ? 100.0 * (double)s->total_ns / (double)s->all_ns : 0.0,
		fmt_dur(longest, sizeof(longest), (uint64_t)s->longest_ns),
		s->longest_tid, s->what ? s->what : "?",
		s->method ? s->method : "unknown method");
	if (s->truncated) {
		fputs("    (the user part ends early: ", out);
		term_text_fputs(s->truncated, out);	/* a path may be in it */
		fputs(")\n", out);
	}
}

/* "function+off/size (inlined)", demangled; "?? (why)" without one. */
static void text_name(const struct frame_row *f, struct strbuf *sb)
{
	char *owned = NULL;

	if (!f->function) {
		strbuf_addf(sb, "?? (%s)", f->status ? f->status :
			    "not symbolized: run faultline symbolize");
		return;
	}
	strbuf_adds(sb, demangle_shown(f->function, &owned));
	free(owned);
	if (f->has_offset)
		strbuf_addf(sb, "+0x%" PRIx64, (uint64_t)f->offset);
	if (f->has_size)
		strbuf_addf(sb, "/0x%" PRIx64, (uint64_t)f->size);
	if (f->inlined)
		strbuf_adds(sb, " (inlined)");
}

/* One line per function at a frame (inlined ones first):
 *     addr  function+off/size  [dso]  file:line */
static int text_frame(FILE *out, const struct frame_row *f)
{
	struct strbuf name, rest;
	int err;

	strbuf_init(&name);
	strbuf_init(&rest);
	text_name(f, &name);
	if (f->dso)
		strbuf_addf(&rest, f->dso[0] == '[' ? "%s" : "[%s]",
			    f->dso[0] == '[' ? f->dso : base_name(f->dso));
	if (f->file)
		strbuf_addf(&rest, "  %s:%" PRId64, base_name(f->file), f->line);
	err = strbuf_error(&name) < 0 || strbuf_error(&rest) < 0 ? -ENOMEM : 0;
	if (err == 0) {
		/* Function names and paths are whatever the target's user
		 * chose (a perf map's names too): escaped for the terminal. */
		char *shown = term_text_dup(strbuf_str(&name));

		fprintf(out, "    %16" PRIx64 "  %-40s  ", (uint64_t)f->addr,
			shown ? shown : "");
		free(shown);
		term_text_fputs(strbuf_str(&rest), out);
		fputc('\n', out);
	}
	strbuf_release(&name);
	strbuf_release(&rest);
	return err;
}

/* ---- folded -------------------------------------------------------- */

/* A frame's name in a folded line: demangled; ';' (the separator) made
 * ':', and control bytes (a line is one stack) made '?'; kernel frames
 * end in "_[k]", as stackcollapse-perf.pl marks them, so flamegraph.pl
 * --color=java and speedscope tell them apart. */
static char *folded_name(const struct frame_row *f)
{
	char *owned = NULL;
	const char *name = demangle_shown(f->name ? f->name : "?", &owned);
	size_t len = strlen(name);
	char *s = malloc(len + 5);

	if (s) {
		for (size_t i = 0; i <= len; i++)
			s[i] = name[i] == ';' ? ':' :
			       (name[i] && ((unsigned char)name[i] < 0x20 ||
					    name[i] == 0x7f)) ? '?' : name[i];
		if (f->kernel)
			strcat(s, "_[k]");
	}
	free(owned);
	return s;
}

static int folded_frame(struct stacks_out *o, const struct frame_row *f)
{
	char *name;

	if (ARRAY_RESERVE(o->names, o->capnames, o->nnames + 1) < 0 ||
	    !(name = folded_name(f)))
		return -ENOMEM;
	o->names[o->nnames++] = name;
	return 0;
}

/* outermost;...;innermost VALUE: a stack cut short has "[cut short]" as
 * its outermost frame, so a flame graph shows how much time such stacks
 * hold. */
static void folded_line(struct stacks_out *o, const struct stack_row *s)
{
	if (s->truncated)
		fputs(o->nnames ? "[cut short];" : "[cut short]", o->out);
	for (size_t i = o->nnames; i-- > 0;)
		fprintf(o->out, "%s%s", o->names[i], i ? ";" : "");
	if (!o->nnames && !s->truncated)
		fputs("[no frames]", o->out);
	fprintf(o->out, " %" PRId64 "\n", s->folded_value);
	drop_names(o);
}

/* ---- JSON ---------------------------------------------------------- */

static void json_opt_int(struct strbuf *sb, const char *key, int has, int64_t v)
{
	json_key(sb, key, 0);
	if (has)
		json_int(sb, v);
	else
		strbuf_adds(sb, "null");
}

static void json_stack(struct stacks_out *o, const struct stack_row *s,
		       struct strbuf *sb)
{
	strbuf_adds(sb, o->nstacks++ ? ",\n{" : "\n{");
	json_key(sb, "rank", 1);
	json_int(sb, s->rank);
	json_key(sb, "stack_id", 0);
	json_int(sb, s->stack_id);
	json_key(sb, "events", 0);
	json_int(sb, s->events);
	json_key(sb, "total_ns", 0);
	json_int(sb, s->total_ns);
	json_key(sb, "share", 0);
	json_real(sb, s->all_ns > 0 ? (double)s->total_ns / (double)s->all_ns : 0);
	json_key(sb, "longest_ns", 0);
	json_int(sb, s->longest_ns);
	json_key(sb, "longest_tid", 0);
	json_int(sb, s->longest_tid);
	json_key(sb, "what", 0);
	json_cstring_or_null(sb, s->what);
	json_key(sb, "method", 0);
	json_cstring_or_null(sb, s->method);
	json_key(sb, "cut_short", 0);
	strbuf_adds(sb, s->truncated ? "true" : "false");
	json_key(sb, "truncated", 0);
	json_cstring_or_null(sb, s->truncated);
	json_key(sb, "frames", 0);
	strbuf_addc(sb, '[');
}

/* function: demangled; symbol: as stored (the mangled name). */
static void json_frame(const struct stack_row *s, const struct frame_row *f,
		       struct strbuf *sb, int first)
{
	char *owned = NULL;

	(void)s;
	strbuf_adds(sb, first ? "{" : ",{");
	json_key(sb, "depth", 1);
	json_int(sb, f->depth);
	/* Hex text: a kernel address is past what a JSON reader's double
	 * holds exactly. */
	json_key(sb, "addr", 0);
	strbuf_addf(sb, "\"0x%" PRIx64 "\"", (uint64_t)f->addr);
	json_key(sb, "kernel", 0);
	strbuf_adds(sb, f->kernel ? "true" : "false");
	json_key(sb, "function", 0);
	json_cstring_or_null(sb, f->function ?
			     demangle_shown(f->function, &owned) : NULL);
	free(owned);
	json_key(sb, "symbol", 0);
	json_cstring_or_null(sb, f->function);
	json_key(sb, "name", 0);
	owned = NULL;
	json_cstring_or_null(sb, f->name ? demangle_shown(f->name, &owned) : NULL);
	free(owned);
	json_opt_int(sb, "offset", f->has_offset, f->offset);
	json_opt_int(sb, "size", f->has_size, f->size);
	json_key(sb, "inlined", 0);
	strbuf_adds(sb, f->inlined ? "true" : "false");
	json_key(sb, "dso", 0);
	json_cstring_or_null(sb, f->dso);
	json_key(sb, "status", 0);
	json_cstring_or_null(sb, f->status);
	json_key(sb, "file", 0);
	json_cstring_or_null(sb, f->file);
	json_opt_int(sb, "line", f->has_line, f->line);
	strbuf_addc(sb, '}');
}

/* ---- CSV ----------------------------------------------------------- */

static void csv_int(struct strbuf *sb, int has, int64_t v)
{
	if (has)
		strbuf_addf(sb, "%" PRId64, v);
	strbuf_addc(sb, ',');
}

static void csv_text(struct strbuf *sb, const char *s, int last)
{
	if (s)
		csv_add_text(sb, s, strlen(s));
	if (!last)
		strbuf_addc(sb, ',');
}

/* One line per function at a frame, the stack's columns repeated. */
static void csv_frame(const struct stack_row *s, const struct frame_row *f,
		      struct strbuf *sb)
{
	char *owned = NULL;

	csv_int(sb, 1, s->rank);
	csv_int(sb, 1, s->stack_id);
	csv_int(sb, 1, s->events);
	csv_int(sb, 1, s->total_ns);
	csv_int(sb, 1, s->longest_ns);
	csv_int(sb, 1, s->longest_tid);
	csv_text(sb, s->what, 0);
	csv_text(sb, s->method, 0);
	csv_text(sb, s->truncated, 0);
	csv_int(sb, 1, f->depth);
	csv_int(sb, 1, f->inlined);
	strbuf_addf(sb, "0x%" PRIx64 ",", (uint64_t)f->addr);
	csv_int(sb, 1, f->kernel);
	csv_text(sb, f->name ? demangle_shown(f->name, &owned) : NULL, 0);
	free(owned);
	csv_text(sb, f->function, 0);
	csv_int(sb, f->has_offset, f->offset);
	csv_text(sb, f->dso, 0);
	csv_text(sb, f->status, 0);
	csv_text(sb, f->file, 0);
	csv_int(sb, f->has_line, f->line);
	if (sb->len)
		sb->len--;	/* the last comma */
	strbuf_addc(sb, '\n');
}

/* ---- dispatch ------------------------------------------------------ */

static int flush(struct stacks_out *o, struct strbuf *sb)
{
	int err = strbuf_error(sb) < 0 ? -ENOMEM : 0;

	if (err == 0 && sb->len)
		fputs(strbuf_str(sb), o->out);
	strbuf_release(sb);
	return err;
}

int stacks_out_stack(struct stacks_out *o, const struct stack_row *s)
{
	struct strbuf sb;

	strbuf_init(&sb);
	if (o->format == STACKS_TEXT)
		text_stack(o->out, s);
	else if (o->format == STACKS_JSON)
		json_stack(o, s, &sb);
	o->nframes = 0;
	return flush(o, &sb);
}

int stacks_out_frame(struct stacks_out *o, const struct stack_row *s,
		     const struct frame_row *f)
{
	struct strbuf sb;
	int err = 0;

	strbuf_init(&sb);
	switch (o->format) {
	case STACKS_TEXT:
		err = text_frame(o->out, f);
		break;
	case STACKS_FOLDED:
		err = folded_frame(o, f);
		break;
	case STACKS_JSON:
		json_frame(s, f, &sb, o->nframes++ == 0);
		break;
	case STACKS_CSV:
		csv_frame(s, f, &sb);
		break;
	}
	return err < 0 ? err : flush(o, &sb);
}

int stacks_out_stack_end(struct stacks_out *o, const struct stack_row *s)
{
	if (o->format == STACKS_FOLDED)
		folded_line(o, s);
	else if (o->format == STACKS_JSON)
		fputs("]}", o->out);
	return 0;
}
