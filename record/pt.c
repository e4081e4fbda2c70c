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

/* The recording's rows (collector/pt_record.h), into p->store. */
static int rows_trace(void *ctx, const struct pt_trace *t, struct errmsg *e)
{
	int64_t id;

	return pt_store_trace(ctx, t, &id, e);
}

static int rows_gap(void *ctx, int64_t tid, int cpu, const struct pt_gap *g,
		    struct errmsg *e)
{
	return pt_store_gap(ctx, 0, tid, cpu, g, e);
}

static int rows_vdso(void *ctx, const void *image, size_t len,
		     struct errmsg *e)
{
	return pt_store_vdso(ctx, image, len, e);
}

static int rows_clock(void *ctx, const struct pt_session_info *info,
		      const struct pt_clock *c, struct errmsg *e)
{
	int err = pt_store_clock(ctx, info, c, e);

	return err ? err : pt_store_commit(ctx, e);
}

int record_pt_begin(struct record_pt *p, sqlite3 *db, const char *path,
		    int64_t session_id, struct clock_map *map, struct errmsg *e)
{
	int err = pt_store_begin(&p->store, db, path, session_id, map, e);

	p->store_begun = err == 0;
	p->rows = (struct pt_rows){ &p->store, rows_trace, rows_gap, rows_vdso,
				    rows_clock };
	if (err == 0)
		err = pt_record_set_rows(&p->rec, &p->rows, e);
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
