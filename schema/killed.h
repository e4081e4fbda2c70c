/*
 * killed: sessions whose recorder died without ending them.  A recorder
 * killed outright (SIGKILL, the OOM killer, a crash, a power cut) leaves
 * its row 'recording', with every row it committed before: at most
 * LOADER_COMMIT_NS apart while it kept up, each commit noting alive_ts
 * and stored_until_ts in the row.  The next faultline that opens the file
 * finds such a session by its recorder: that pid gone, or given to a
 * later process (another start time), or of another boot.  A writer marks
 * it 'killed' (it holds the file's writer lock, so no recorder of this
 * file lives); a reader says so, and marks it when the file is writable
 * and no writer holds it (killed_mark_file).
 */
#ifndef FL_KILLED_H
#define FL_KILLED_H

#include <sqlite3.h>
#include <stdint.h>

#include "../common/errmsg.h"

struct killed_session {
	int64_t id;
	int pid;		/* the recorder's; 0 when not stored */
	int pid_runs;		/* its pid runs, but as a later process */
	/* At most this much of the session's end may be missing: from
	 * stored_until_ts to LOADER_COMMIT_NS past alive_ts; < 0 when the
	 * row does not say (a session of an older faultline). */
	double missing_s;
	int64_t alive_ts;	/* the last commit's; start_ts without one */
};

struct killed_list {
	struct killed_session *v;	/* owned: malloc'd */
	size_t n, cap;
};

void killed_list_init(struct killed_list *k);
void killed_list_release(struct killed_list *k);

/* The sessions of db (open to read or write) still 'recording' whose
 * recorder does not run, into k.  locked: the caller holds the file's
 * writer lock, which a live recorder of it would hold, so every such
 * session is one, even where its recorder cannot be told apart (a
 * session of an older faultline, whose pid alone is stored).  0, or a
 * negative errno with e set. */
int killed_find(sqlite3 *db, const char *path, int locked,
		struct killed_list *k, struct errmsg *e);

/* What to say of s, without the session's number: "killed while
 * recording (recorder pid 4242 gone); its last 0.3 s may be missing". */
void killed_text(const struct killed_session *s, char *buf, size_t n);

/* Marks k's sessions 'killed' in db (open for writing, its writer lock
 * held), each with killed_text as its error and the last commit as its
 * end, and makes the indexes they never got; one transaction.  0, or a
 * negative errno with e set (nothing then changed). */
int killed_mark(sqlite3 *db, const char *path, const struct killed_list *k,
		struct errmsg *e);

/* Opens path for writing, which marks its killed sessions (db_open_write
 * does), and ends the write.  -EBUSY when another faultline writes it;
 * 0 or a negative errno with e set. */
int killed_mark_file(const char *path, struct errmsg *e);

#endif
