/*
 * faultline merge: folds the sessions of several databases into one
 * (schema/merge.h), one transaction per input file, and says what it
 * took and what it skipped.
 */
#include <stdio.h>
#include <stdint.h>

#include "../common/clock.h"
#include "../schema/db.h"
#include "../schema/merge.h"
#include "commands.h"
#include "opt.h"
#include "usage.h"

static const char merge_usage[] = "faultline merge OUT.db IN.db...";

static const char merge_examples[] =
	"  faultline merge fleet.db host1.db host2.db host3.db\n"
	"  faultline merge fleet.db host4.db     # sessions already in fleet.db are skipped\n";

struct skip_ctx {
	const char *in_path, *out_path;	/* borrowed from argv */
};

static void say_skipped(void *ctx, int64_t in_session, const char *uuid)
{
	const struct skip_ctx *s = ctx;

	fprintf(stderr, "faultline merge: session %lld of '%s' (uuid %s) is "
		"already in '%s': skipped\n", (long long)in_session, s->in_path,
		uuid ? uuid : "none", s->out_path);
}

/* Every input checked before any is merged: a bad list merges nothing. */
static int check_inputs(const char *out_path, char **in, int n)
{
	struct errmsg e;

	for (int i = 0; i < n; i++) {
		errmsg_init(&e);
		if (merge_check_input(out_path, in[i], &e) < 0)
			return error("merge", "%s; nothing was merged", e.text);
	}
	return 0;
}

static int merge_all(const char *out_path, char **in, int n)
{
	struct merge_counts total = { 0 };
	struct errmsg e;
	sqlite3 *out = NULL;
	int err, i;

	errmsg_init(&e);
	err = db_open_write(out_path, &out, &e);
	if (err == 0)
		err = merge_begin(out, out_path, &e);
	for (i = 0; err == 0 && i < n; i++) {
		struct merge_counts c = { 0 };
		struct skip_ctx s = { in[i], out_path };
		uint64_t t0 = monotonic_ns(), dt;

		err = merge_file(out, out_path, in[i], say_skipped, &s, &c, &e);
		if (err < 0)
			break;
		dt = monotonic_ns() - t0;
		printf("'%s': %lld sessions merged, %lld skipped, %lld rows in %.3f s"
		       " (%.0f rows/s)\n", in[i], (long long)c.sessions,
		       (long long)c.skipped, (long long)c.rows, dt / 1e9,
		       dt ? c.rows / (dt / 1e9) : 0.0);
		total.sessions += c.sessions;
		total.skipped += c.skipped;
		total.rows += c.rows;
	}
	if (err < 0) {
		error("merge", "%s", e.text);
		if (i > 0)
			error("merge", "the %d file%s before '%s' %s merged whole; "
			      "'%s' and the files after it are not", i,
			      i == 1 ? "" : "s", in[i], i == 1 ? "is" : "are", in[i]);
	} else {
		printf("'%s': %lld sessions added from %d file%s, %lld skipped\n",
		       out_path, (long long)total.sessions, n, n == 1 ? "" : "s",
		       (long long)total.skipped);
	}
	/* A finished file stands alone, as record leaves it. */
	errmsg_init(&e);
	if (out && err == 0 && db_end_write(out, out_path, &e) < 0)
		warning("merge", "%s", e.text);
	db_close(out);
	/* On a full disk the rollback can leave its journal beside the file,
	 * which a reader cannot replay: a writer's open replays it now. */
	if (err < 0 && out && db_open_write(out_path, &out, &e) == 0) {
		db_end_write(out, out_path, &e);
		db_close(out);
	}
	return err < 0 ? 1 : 0;
}

int cmd_merge(int argc, char **argv)
{
	const struct opt opts[] = {
		{ 0 },
	};
	const struct cmd_usage u = {
		"merge", merge_usage,
		"Fold the sessions of several databases into one: ids remapped, "
		"a session already there skipped.",
		merge_examples, opts,
	};
	int first = opt_parse(&u, argc, argv);

	if (first == OPT_HELP)
		return 0;
	if (first < 0)
		return EXIT_USAGE;
	if (argc - first < 2) {
		error("merge", "%s; see 'faultline merge -h'", argc == first ?
		      "no output database given" : "no input database given");
		return EXIT_USAGE;
	}
	if (check_inputs(argv[first], argv + first + 1, argc - first - 1) < 0)
		return 1;
	return merge_all(argv[first], argv + first + 1, argc - first - 1);
}
