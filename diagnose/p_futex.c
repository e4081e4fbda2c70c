/*
 * futex: lock contention.  A thread waited at least :min_dur in a futex
 * call that waits for a lock word to change (record --syscalls): FUTEX_WAIT
 * (a contended mutex or rwlock of glibc, a barrier, the locks of most
 * runtimes), FUTEX_LOCK_PI, FUTEX_LOCK_PI2, FUTEX_WAIT_REQUEUE_PI.  The
 * waits of FUTEX_WAIT_BITSET are glibc's condition variables and joins,
 * where a thread mostly waits for work, not for a lock: no finding.
 *
 * Grouped by the futex's address (the call's uaddr): one finding per
 * lock.  The holder is the thread that woke the waiter: the waker of the
 * last interval off the CPU that ended inside the call (thread_state,
 * from sched_waking), which for a lock is the thread that released it.
 * refine counts, for the finding's waits, which threads woke it.
 */
#include <errno.h>
#include <inttypes.h>

#include "../common/strbuf.h"
#include "pattern.h"

/* How many holders the detail names before summing the rest. */
#define HOLDERS_NAMED 3

/*
 * Each futex wait of :session at least :min_dur long: id (syscall's
 * rowid), tid, ts, dur, uaddr ('0x7f12a000'), stack_id (of its wake-up's
 * interval), holder ('nak-pub (4244)'; NULL when no thread's wake-up
 * was seen, or an interrupt woke it: a timeout, a signal).  args reads
 * 'uaddr=0x7f12a000, op=128, val=2, ...' (the syscalls:sys_enter_futex
 * format); op's low 7 bits are the command, 128 the PRIVATE flag.
 */
#define FUTEX_WAITS_SQL \
	"SELECT c.rowid AS id, c.tid, c.ts, c.dur,\n" \
	"       substr(c.args, 7, instr(c.args, ',') - 7) AS uaddr,\n" \
	"       x.stack_id,\n" \
	"       CASE WHEN x.waker_tid > 0 AND\n" \
	"                 coalesce(x.waker_context, 'thread') = 'thread'\n" \
	"            THEN coalesce(nullif(x.waker_comm, ''),\n" \
	"                          (SELECT nullif(t.comm, '') FROM thread t\n" \
	"                            WHERE t.session_id = x.session_id\n" \
	"                              AND t.tid = x.waker_tid\n" \
	"                            ORDER BY t.first_ts DESC LIMIT 1), '?')\n" \
	"                 || ' (' || x.waker_tid || ')' END AS holder\n" \
	"  FROM syscall c\n" \
	"  LEFT JOIN thread_state x ON x.rowid =\n" \
	"       (SELECT y.rowid FROM thread_state y\n" \
	"         WHERE y.session_id = c.session_id AND y.tid = c.tid\n" \
	"           AND y.ts >= c.ts AND y.ts + y.dur <= c.ts + c.dur\n" \
	"           AND y.waker_tid IS NOT NULL\n" \
	"         ORDER BY y.ts DESC LIMIT 1)\n" \
	" WHERE c.session_id = :session AND c.name = 'futex'\n" \
	"   AND c.dur >= :min_dur AND c.args LIKE 'uaddr=%,%'\n" \
	"   AND (CAST(substr(c.args, instr(c.args, 'op=') + 3) AS INTEGER)\n" \
	"        & 127) IN (0, 6, 11, 13)"

/* The finding's waits by holder, most first (NULL: not seen, last). */
static const char holders_sql[] =
	"SELECT w.holder, count(*) AS n FROM (" FUTEX_WAITS_SQL ") w\n"
	" WHERE w.tid = :tid AND 'futex ' || w.uaddr = :culprit\n"
	"   AND w.ts >= :first AND w.ts + w.dur <= :last\n"
	" GROUP BY w.holder ORDER BY w.holder IS NULL, n DESC, w.holder";

static void bind(sqlite3_stmt *st, const char *name, int64_t v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	if (i > 0)
		sqlite3_bind_int64(st, i, v);
}

/* Words the rows of holders_sql into sb: "nak-pub (4244) woke it in 310
 * of 312 waits, rx (4245) in 1, 1 not seen".  -ENOMEM or 0. */
static int word_holders(sqlite3_stmt *st, struct strbuf *sb)
{
	int64_t total = 0, unseen = 0, rest = 0;
	int rc, n = 0;
	struct strbuf named;

	strbuf_init(&named);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t k = sqlite3_column_int64(st, 1);
		const char *who = (const char *)sqlite3_column_text(st, 0);

		total += k;
		if (!who)
			unseen += k;
		else if (n++ < HOLDERS_NAMED)
			strbuf_addf(&named, "%s%s %s %" PRId64, n > 1 ? ", " : "",
				    who, n > 1 ? "in" : "woke it in", k);
		else
			rest += k;
	}
	if (n)
		strbuf_addf(sb, "%s of %" PRId64 " waits", named.buf, total);
	if (rest)
		strbuf_addf(sb, ", %d others in %" PRId64, n - HOLDERS_NAMED, rest);
	if (unseen)
		strbuf_addf(sb, "%s%" PRId64 " of %" PRId64 " waits with no thread"
			    " seen waking it", n ? ", " : "", unseen, total);
	strbuf_release(&named);
	return rc == SQLITE_NOMEM || strbuf_error(sb) ? -ENOMEM : 0;
}

/* The threads that woke the finding's waits: its lock's holders. */
static int name_holders(sqlite3 *db, const struct diag_ctx *c,
			const struct diag_stall *s, struct diag_finding *f,
			struct errmsg *e)
{
	sqlite3_stmt *st = NULL;
	struct strbuf sb;
	int rc, err;

	(void)s;
	(void)e;
	rc = sqlite3_prepare_v2(db, holders_sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc == SQLITE_NOMEM ? -ENOMEM : 0;	/* an older file */
	bind(st, ":session", c->session_id);
	bind(st, ":min_dur", (int64_t)c->min_dur_ns);
	bind(st, ":tid", f->tid);
	bind(st, ":first", f->first_ts);
	bind(st, ":last", f->last_end_ts);
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":culprit"),
			  f->culprit, -1, SQLITE_STATIC);
	strbuf_init(&sb);
	err = word_holders(st, &sb);
	sqlite3_finalize(st);
	if (err == 0 && sb.len)
		f->detail = strbuf_detach(&sb);
	strbuf_release(&sb);
	return err;
}

const struct diag_pattern diag_futex = {
	.name = "futex",
	.title = "lock contention: waited for a lock (a futex) another thread held",
	.needs = "record --syscalls (futex, in the default list) and thread "
		 "states (record's default) for the holder",
	.sql =
		"SELECT w.tid, w.ts, w.dur, 'futex ' || w.uaddr,\n"
		"       'syscall row ' || w.id || ': futex wait on ' || w.uaddr ||\n"
		"         ', ' || printf('%.3f ms', w.dur / 1e6) ||\n"
		"         coalesce(', woken by ' || w.holder, ''),\n"
		"       w.stack_id, NULL, NULL\n"
		"  FROM (" FUTEX_WAITS_SQL ") w",
	.remedies =
		"hold the lock for less time: move the slow work (I/O, allocation, "
		"logging, a system call) out of the section it guards\n"
		"split the lock by what it guards, or hand the data over without "
		"one (a single-producer queue, per-thread buffers, a swapped "
		"pointer)\n"
		"keep the holder on the CPU while it holds the lock: a CPU of its "
		"own or a higher priority (taskset, chrt), so it is not preempted "
		"inside",
	.refine = name_holders,
};
