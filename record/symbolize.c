#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../collector/symbol_sources.h"
#include "../schema/symbol_store.h"
#include "symbolize.h"

/* Step 2 for in's frames: what they need of this machine. */
static int gather(struct symbol_sources *src, const char *kernel,
		  const struct sym_input *in, struct errmsg *e)
{
	struct symbol_sources_want w = { kernel, NULL, 0, NULL, 0 };
	uint64_t *addrs = NULL;
	int64_t *pids = NULL;
	int err;

	if (sym_input_kernel_addrs(in, &addrs, &w.nkernel_addrs) < 0 ||
	    sym_input_user_pids(in, &pids, &w.npids) < 0) {
		free(addrs);
		return errmsg_set(e, ENOMEM, "out of memory while symbolizing");
	}
	w.kernel_addrs = addrs;
	w.pids = pids;
	err = symbol_sources_gather(src, &w, e);
	free(pids);
	free(addrs);
	return err;
}

int symbolize_session(sqlite3 *db, const char *path, int64_t session_id,
		      const struct symbolize_opts *o,
		      struct symbolize_counts *c, struct errmsg *e)
{
	struct symbol_store store = { db, path, session_id, o && o->redo };
	struct symbol_sources src;
	struct sym_sources view;
	struct symbolize_job job;
	struct sym_input in;
	char *kernel = NULL;
	int err;

	memset(c, 0, sizeof(*c));
	symbol_sources_init(&src);
	sym_input_init(&in);
	symbolize_job_init(&job);
	/* 1 and the debug directories of 2: the session first, then the
	 * options, as a wrong session is the first thing to say. */
	err = symbol_store_session_kernel(&store, &kernel, e);
	if (err == 0)
		err = symbol_sources_debug_dirs(&src, o ? o->debug_dirs : NULL,
						o ? o->ndebug_dirs : 0, e);
	if (err == 0)
		err = symbol_store_read(&store, &in, e);
	/* 2, 3, 4, when there is anything to name. */
	if (err == 0 && in.nframes)
		err = gather(&src, kernel, &in, e);
	if (err == 0 && in.nframes) {
		symbol_sources_view(&src, &view);
		err = symbolize_job_run(&job, &in, &view, e);
	}
	if (err == 0 && in.nframes)
		err = symbol_store_write(&store, &in, &job, e);
	if (err == 0) {
		*c = job.counts;
		c->skipped = src.nskipped;
		if (src.nskipped)
			snprintf(c->skipped_first, sizeof(c->skipped_first),
				 "%s (%s)", src.skipped[0].path, src.skipped[0].why);
	}
	symbolize_job_release(&job);
	sym_input_release(&in);
	symbol_sources_release(&src);
	free(kernel);
	return err;
}

void record_symbolize_end(struct record_symbolized *out, sqlite3 *db,
			  const char *path, int64_t session_id,
			  size_t nframes, int symbolize)
{
	struct symbolize_opts o = { NULL, 0, 0 };

	memset(out, 0, sizeof(*out));
	errmsg_init(&out->failed);
	out->session_id = session_id;
	if (!symbolize || !nframes)
		return;
	out->symbolized = symbolize_session(db, path, session_id, &o, &out->c,
					    &out->failed) == 0;
}

void record_symbolized_add(struct record_symbolized *sum,
			   const struct record_symbolized *one)
{
	struct symbolize_counts *c = &sum->c;

	if (one->symbolized) {
		if (!c->skipped && one->c.skipped)
			memcpy(c->skipped_first, one->c.skipped_first,
			       sizeof(c->skipped_first));
		c->frames += one->c.frames;
		c->ok += one->c.ok;
		c->no_mapping += one->c.no_mapping;
		c->no_file += one->c.no_file;
		c->build_id_mismatch += one->c.build_id_mismatch;
		c->no_symbol += one->c.no_symbol;
		c->skipped += one->c.skipped;
		sum->symbolized = 1;
	}
	if (!sum->failed.text[0] && one->failed.text[0]) {
		sum->failed = one->failed;
		sum->session_id = one->session_id;
	}
}
