/*
 * lazy binding: the first call of a function through the PLT went into
 * the dynamic linker's resolver (_dl_runtime_resolve*, _dl_fixup) to look
 * the symbol up, and that lookup faulted or blocked: typically on the
 * symbol tables of a library whose pages had left the page cache.  The
 * frame just outside the resolver is the caller; its return address, in
 * its file, leads to the PLT slot and the relocation that names the
 * function being bound (decoder/plt_bind.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/outside_file.h"
#include "../decoder/plt_bind.h"
#include "pattern.h"
#include "stack_match.h"

/* f->detail: the function the call in s->file at s->file_offset binds. */
static int bound_function(sqlite3 *db, const struct diag_ctx *c,
			  const struct diag_stall *s, struct diag_finding *f,
			  struct errmsg *e)
{
	/* The caller's file at the path the kernel recorded, opened as an
	 * outside file: whoever owns its directory may have put a FIFO or
	 * a link there since.  Read whole, so bounded: 1 GiB is more than
	 * any shared library seen, and a sparse file planted to exhaust
	 * memory stops there. */
	static const struct outside_rule rule = { OUTSIDE_ANY_OWNER, 0,
						  (uint64_t)1 << 30 };
	char name[256];
	char *buf = NULL;
	size_t len = 0;
	const char *why;
	int err;

	(void)db;
	(void)c;
	(void)e;
	if (!s->file || s->file_offset < 0)
		return 0;
	/* The file may be gone, changed or untrusted since: then the
	 * finding stays without the name, as plt_bind cannot tell. */
	if (outside_file_read(s->file, &rule, &buf, &len, &why) < 0)
		return 0;
	err = plt_bind_name(buf, len, (uint64_t)s->file_offset, name, sizeof(name));
	free(buf);
	if (err == 0 && !(f->detail = strdup(name)))
		return -ENOMEM;
	return 0;
}

const struct diag_pattern diag_lazy_binding = {
	.name = "lazy-binding",
	.title = "lazy binding: the first call of a function through the PLT "
		 "stalled in the dynamic linker",
	.needs = "record --stacks (user frames), symbolized; the caller's file "
		 "readable when diagnosing, to name the function",
	.sql =
		"WITH r AS (" STACKS_WITH(
			"y.function LIKE '\\_dl\\_runtime\\_resolve%' ESCAPE '\\' OR"
			" y.function = '_dl_fixup'") "),\n"
		"c AS (\n"
		"  SELECT r.stack_id, fr.dso, fr.dso_offset,\n"
		"         (SELECT y.function FROM symbol y\n"
		"           WHERE y.session_id = fr.session_id AND y.frame_id = fr.frame_id\n"
		"           ORDER BY y.idx DESC LIMIT 1) AS function\n"
		"    FROM r JOIN stack_frame sf ON sf.session_id = :session\n"
		"     AND sf.stack_id = r.stack_id AND sf.depth = r.depth + 1\n"
		"    JOIN frame fr ON fr.session_id = sf.session_id\n"
		"     AND fr.frame_id = sf.frame_id\n"
		"),\n"
		"s AS (" STACK_STALLS("c") ")\n"
		"SELECT s.tid, s.ts, s.dur,\n"
		"       'a call in ' || coalesce(c.function, '?') ||\n"
		"         coalesce(' (' || c.dso || printf('+0x%x', c.dso_offset) || ')', ''),\n"
		"       s.what || ', in the dynamic linker''s resolver, called from ' ||\n"
		"         coalesce(c.function, printf('0x%x', c.dso_offset), '?'),\n"
		"       s.stack_id, c.dso, c.dso_offset\n"
		"  FROM s JOIN c ON c.stack_id = s.stack_id",
	.remedies =
		"bind every symbol at start-up: run with LD_BIND_NOW=1\n"
		"link with -Wl,-z,now (also what -Wl,-z,relro,-z,now hardening does)\n"
		"call %s once at start-up, before the latency-sensitive work",
	.refine = bound_function,
};
