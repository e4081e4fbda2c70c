#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "debug_paths.h"

/* What the walk carries: the path being made, and fn's last word. */
struct walk {
	struct strbuf sb;
	int (*fn)(void *ctx, const char *path);
	void *ctx;
};

/* fn on the path in w->sb: fn's value, or -ENOMEM. */
static int emit(struct walk *w)
{
	if (strbuf_error(&w->sb))
		return -ENOMEM;
	return w->fn(w->ctx, strbuf_str(&w->sb));
}

static int by_build_id(struct walk *w, const char *dir,
		       const unsigned char *id, size_t len)
{
	strbuf_reset(&w->sb);
	strbuf_addf(&w->sb, "%s/.build-id/%02x/", dir, id[0]);
	for (size_t i = 1; i < len; i++)
		strbuf_addf(&w->sb, "%02x", id[i]);
	strbuf_adds(&w->sb, ".debug");
	return emit(w);
}

/* [dir/][sub/]name, as the search's try_open makes it. */
static int at(struct walk *w, const char *dir, size_t dirlen,
	      const char *sub, const char *name)
{
	strbuf_reset(&w->sb);
	if (dir) {
		strbuf_add(&w->sb, dir, dirlen);
		strbuf_addc(&w->sb, '/');
	}
	if (sub) {
		strbuf_adds(&w->sb, sub);
		strbuf_addc(&w->sb, '/');
	}
	strbuf_adds(&w->sb, name);
	return emit(w);
}

/* The by-name candidates of one path element e (its +/- gone). */
static int by_name(struct walk *w, const char *e, const char *file_dir,
		   size_t dirlen, const char *link, const char *base,
		   int made_up)
{
	const char *sub;
	int err = 0;

	if (!*e)
		return at(w, file_dir, dirlen, NULL, link);
	if (*e != '/') {
		/* rel: beside the file, in that directory */
		err = at(w, file_dir, dirlen, e, link);
		if (err == 0 && made_up)
			err = at(w, file_dir, dirlen, e, base);
		return err;
	}
	if (!file_dir || file_dir[0] != '/' || dirlen == 0)
		return 0;	/* the search skips it for a relative file */
	/* /D: under D by the file's directory, one leading directory less
	 * each time, then in D itself. */
	for (sub = file_dir; err == 0; sub = strchr(sub, '/')) {
		char *s;

		if (sub)
			sub++;
		if (sub && (size_t)(sub - file_dir) > dirlen)
			sub = NULL;
		s = sub ? strndup(sub, dirlen - (size_t)(sub - file_dir)) : NULL;
		if (sub && !s)
			return -ENOMEM;
		if (!s || *s) {
			err = at(w, e, strlen(e), s, link);
			if (err == 0 && made_up)
				err = at(w, e, strlen(e), s, base);
		}
		free(s);
		if (!sub)
			break;
	}
	return err;
}

int debug_paths_each(const char *debuginfo_path, const unsigned char *build_id,
		     size_t len, const char *file_name, const char *debuglink,
		     int (*fn)(void *ctx, const char *path), void *ctx)
{
	struct walk w = { .fn = fn, .ctx = ctx };
	const char *base = NULL, *slash;
	char *path, *made = NULL, *e, *next;
	size_t dirlen = 0;
	int err = 0;

	if (file_name) {
		base = (slash = strrchr(file_name, '/')) ? slash + 1 : file_name;
		dirlen = slash ? (size_t)(slash - file_name) : 0;
	}
	path = strdup(debuginfo_path ? debuginfo_path : "");
	if (base && !debuglink &&
	    (made = malloc(strlen(base) + sizeof(".debug"))))
		strcat(strcpy(made, base), ".debug");
	if (!path || (base && !debuglink && !made)) {
		free(path);
		return -ENOMEM;
	}
	strbuf_init(&w.sb);
	e = path + (*path == '+' || *path == '-');
	for (; err == 0 && e; e = next) {
		next = strchr(e, ':');
		if (next)
			*next++ = '\0';
		if (*e == '+' || *e == '-')
			e++;
		if (*e == '/' && build_id && len)
			err = by_build_id(&w, e, build_id, len);
		if (err == 0 && base)
			err = by_name(&w, e, base != file_name ? file_name : NULL,
				      dirlen, debuglink ? debuglink : made, base,
				      !debuglink);
	}
	free(made);
	free(path);
	strbuf_release(&w.sb);
	return err;
}
