/*
 * plot --finding N: the window and the thread of faultline diagnose's Nth
 * finding, counted as diagnose prints them (its defaults: the one
 * imported metric lines stalls up, every target thread).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "../diagnose/diagnose.h"
#include "diagnose_cli.h"
#include "plot_finding.h"

/* Room around the finding's stalls: a quarter of their span each side,
 * at least 20 ms, so what led up to the first is in the picture. */
#define FINDING_MARGIN_MIN_NS 20000000ll

int plot_finding_window(sqlite3 *db, const char *path, int64_t session,
			uint64_t n, struct plot_finding *out, struct errmsg *e)
{
	struct diag_request req;
	struct diag_result res;
	const char *event = NULL;
	int err;

	diag_request_init(&req);
	diag_result_init(&res);
	req.session_id = session;
	err = diag_default_event(db, NULL, &event, e);
	req.event = event;
	if (err == 0)
		err = diag_run(db, &req, &res, e);
	if (err == 0 && (n == 0 || n > res.nfindings))
		err = errmsg_set(e, ENOENT, "no finding %" PRIu64 " in session %"
				 PRId64 " of '%s': faultline diagnose finds %zu "
				 "there (faultline diagnose %s --session %" PRId64 ")",
				 n, session, path, res.nfindings, path, session);
	if (err == 0) {
		const struct diag_finding *f = &res.findings[n - 1];
		int64_t margin = (f->last_end_ts - f->first_ts) / 4;

		if (margin < FINDING_MARGIN_MIN_NS)
			margin = FINDING_MARGIN_MIN_NS;
		out->from_ts = f->first_ts - margin;
		out->to_ts = f->last_end_ts + margin;
		out->tid = f->tid;
	}
	if (err == -ENOMEM)
		errmsg_set(e, ENOMEM, "out of memory");
	diag_result_release(&res);
	free((char *)event);	/* diag_default_event's copy, or NULL */
	return err;
}
