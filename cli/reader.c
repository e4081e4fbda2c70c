#include <unistd.h>

#include "../schema/db.h"
#include "../schema/killed.h"
#include "reader.h"
#include "usage.h"

int reader_open(const char *cmd, const char *path, sqlite3 **db,
		struct errmsg *e)
{
	struct killed_list k;
	struct errmsg ignored;
	char text[256];
	int err = db_open_read(path, db, e);

	if (err < 0)
		return err;
	killed_list_init(&k);
	errmsg_init(&ignored);
	if (killed_find(*db, path, 0, &k, &ignored) < 0 || !k.n) {
		killed_list_release(&k);
		return 0;
	}
	for (size_t i = 0; i < k.n; i++) {
		killed_text(&k.v[i], text, sizeof(text));
		warning(cmd, "session %lld was %s", (long long)k.v[i].id, text);
	}
	killed_list_release(&k);
	/* Marked by a write of its own, with the writer's lock (none when
	 * another faultline writes the file: it marks them itself), and
	 * read again after it. */
	if (access(path, W_OK) != 0)
		return 0;
	db_close(*db);
	*db = NULL;
	killed_mark_file(path, &ignored);
	return db_open_read(path, db, e);
}
