#include <string.h>

#include "../common/json.h"
#include "pt.h"

void record_pt_init(struct record_pt *p)
{
	memset(p, 0, sizeof(*p));
	pt_record_init(&p->rec);
	errmsg_init(&p->failed);
}

void record_pt_release(struct record_pt *p)
{
	if (p->store_begun)
		pt_store_release(&p->store);
	pt_record_release(&p->rec);
	record_pt_init(p);
}

int record_pt_probe(struct record_pt *p, const struct pt_settings *s,
		    struct errmsg *e)
{
	return pt_record_probe(&p->rec, s, "/", e);
}

int record_pt_begin(struct record_pt *p, sqlite3 *db, const char *path,
		    int64_t session_id, struct clock_map *map, struct errmsg *e)
{
	int err = pt_store_begin(&p->store, db, path, session_id, map, e);

	p->store_begun = err == 0;
	if (err == 0)
		err = pt_record_set_store(&p->rec, &p->store, e);
	if (err == 0)
		err = pt_store_commit(&p->store, e);
	return err;
}

void record_pt_end(struct record_pt *p, sqlite3 *db, const char *path,
		   int64_t session_id)
{
	int err = pt_store_link_faults(&p->store, &p->failed);

	if (err == 0)
		err = pt_replay_session(db, path, session_id, NULL, &p->st,
					&p->failed);
	p->decoded = err == 0;
}

void record_pt_json(struct strbuf *sb, const struct pt_settings *s)
{
	strbuf_addf(sb, ",\"pt\":{\"mode\":\"%s\",\"size\":%llu,\"trigger_ns\":%llu,"
		    "\"config\":", pt_mode_name(s->mode), (unsigned long long)s->size,
		    (unsigned long long)s->trigger_ns);
	json_cstring_or_null(sb, s->terms);
	strbuf_addc(sb, '}');
}
