#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common/array.h"
#include "pt_image.h"

/* libipt's read callback: memory no file section holds.  Only the vDSO
 * is served here; -pte_nomap for anything else. */
static int read_vdso(uint8_t *buffer, size_t size, const struct pt_asid *asid,
		     uint64_t ip, void *context)
{
	const struct pt_space *s = context;
	uint64_t off;

	(void)asid;
	if (!s->vdso || !s->vdso_start || ip < s->vdso_start)
		return -pte_nomap;
	off = ip - s->vdso_start;
	if (off >= s->vdso_len)
		return -pte_nomap;
	if (size > s->vdso_len - off)
		size = (size_t)(s->vdso_len - off);
	memcpy(buffer, s->vdso + off, size);
	return (int)size;
}

int pt_space_init(struct pt_space *s, struct pt_image_section_cache *iscache,
		  const uint8_t *vdso, size_t vdso_len)
{
	memset(s, 0, sizeof(*s));
	s->image = pt_image_alloc(NULL);
	if (!s->image)
		return -ENOMEM;
	s->iscache = iscache;
	s->vdso = vdso;
	s->vdso_len = vdso_len;
	pt_image_set_callback(s->image, read_vdso, s);
	return 0;
}

void pt_space_release(struct pt_space *s)
{
	if (s->image)
		pt_image_free(s->image);
	for (size_t i = 0; i < s->nmissing; i++)
		free(s->missing[i].path);
	free(s->missing);
	memset(s, 0, sizeof(*s));
}

static int remember_missing(struct pt_space *s, const struct pt_map *m, int err)
{
	struct pt_missing *x;

	if (ARRAY_RESERVE(s->missing, s->capmissing, s->nmissing + 1) < 0)
		return -ENOMEM;
	x = &s->missing[s->nmissing];
	x->path = strdup(m->path);
	if (!x->path)
		return -ENOMEM;
	x->start = m->start;
	x->end = m->start + m->len;
	x->err = err;
	s->nmissing++;
	return 0;
}

int pt_space_add(struct pt_space *s, const struct pt_map *m)
{
	int isid, err;

	if (!m->path || !m->exec || !m->len)
		return 0;
	if (!strcmp(m->path, "[vdso]")) {
		s->vdso_start = m->start;
		return 0;
	}
	/* Only files: "//anon", "[heap]", "[stack]", memfd names, "". */
	if (m->path[0] != '/')
		return 0;
	/* A file that cannot be noted is added all the same (its pages stay
	 * cached); libipt reports one it cannot read. */
	if (s->cache && page_cache_note_path(s->cache, m->path) == -ENOMEM)
		return -ENOMEM;
	isid = pt_iscache_add_file(s->iscache, m->path, m->pgoff, m->len, m->start);
	if (isid < 0)
		return remember_missing(s, m, -isid);
	err = pt_image_add_cached(s->image, s->iscache, isid, NULL);
	if (err < 0)
		return remember_missing(s, m, -err);
	s->sections++;
	return 0;
}

const struct pt_missing *pt_space_missing(const struct pt_space *s,
					  uint64_t ip)
{
	/* Latest first: a later mapping of the range is the one that held it. */
	for (size_t i = s->nmissing; i-- > 0;)
		if (ip >= s->missing[i].start && ip < s->missing[i].end)
			return &s->missing[i];
	return NULL;
}
