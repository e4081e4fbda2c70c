#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../collector/syscall_table.h"
#include "../decoder/fault_pair.h"
#include "../decoder/timeline.h"
#include "../schema/flight_store.h"
#include "flight_minute.h"

void flight_minute_init(struct flight_minute *m, uint64_t start_mono_ns)
{
	memset(m, 0, sizeof(*m));
	m->start_mono_ns = start_mono_ns;
}

void flight_minute_release(struct flight_minute *m)
{
	free(m->cells);
	free(m->slots);
}

static size_t slot_of(uint32_t tid, uint32_t kind, size_t nslots)
{
	uint64_t k = ((uint64_t)tid << 32 | kind) * 0x9e3779b97f4a7c15ull;

	return (size_t)(k >> 32) & (nslots - 1);
}

/* Doubles the slots (and rehashes) once they are half full. */
static int grow(struct flight_minute *m)
{
	size_t nslots = m->nslots ? 2 * m->nslots : 64;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		size_t s = slot_of(m->cells[i].tid, m->cells[i].kind, nslots);

		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = (uint32_t)i + 1;
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = nslots;
	return 0;
}

int flight_minute_add(struct flight_minute *m, uint32_t tid, uint32_t kind,
		      uint64_t dur_ns)
{
	struct flight_minute_cell *c;
	size_t s;

	if (2 * (m->n + 1) > m->nslots && grow(m) < 0)
		return -ENOMEM;
	for (s = slot_of(tid, kind, m->nslots); m->slots[s];
	     s = (s + 1) & (m->nslots - 1)) {
		c = &m->cells[m->slots[s] - 1];
		if (c->tid == tid && c->kind == kind) {
			hist_add(&c->h, dur_ns);
			return 0;
		}
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 32;
		void *v = realloc(m->cells, cap * sizeof(*m->cells));

		if (!v)
			return -ENOMEM;
		m->cells = v;
		m->cap = cap;
	}
	c = &m->cells[m->n];
	memset(c, 0, sizeof(*c));
	c->tid = tid;
	c->kind = kind;
	hist_add(&c->h, dur_ns);
	m->slots[s] = (uint32_t)++m->n;
	return 0;
}

/* "fault:minor", "offcpu:sleeping", "syscall:read". */
static void kind_text(uint32_t kind, char *buf, size_t n)
{
	if (kind >= FM_SYSCALL)
		snprintf(buf, n, "syscall:%s", syscall_name((long)(kind - FM_SYSCALL)));
	else if (kind >= FM_OFFCPU)
		snprintf(buf, n, "offcpu:%s",
			 thread_state_name((enum thread_state_kind)(kind - FM_OFFCPU)));
	else
		snprintf(buf, n, "fault:%s", fault_kind_name((enum fault_kind)kind));
}

/* Rows for every non-empty bucket of the current minute, into *out
 * (caller frees); -ENOMEM. */
static long minute_rows(const struct flight_minute *m, int64_t ts,
			struct flight_minute_row **out)
{
	size_t n = 0, cap = 0;
	struct flight_minute_row *v = NULL;

	for (size_t i = 0; i < m->n; i++) {
		const struct flight_minute_cell *c = &m->cells[i];
		unsigned top = 0;

		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			if (c->h.count[b])
				top = b;
		for (unsigned b = 0; b < HIST_BUCKETS; b++) {
			if (!c->h.count[b])
				continue;
			if (n == cap) {
				void *g = realloc(v, (cap = cap ? 2 * cap : 64) *
						  sizeof(*v));

				if (!g) {
					free(v);
					return -ENOMEM;
				}
				v = g;
			}
			v[n].minute_ts = ts;
			v[n].tid = c->tid;
			kind_text(c->kind, v[n].kind, sizeof(v[n].kind));
			v[n].lo_ns = hist_bucket_lo(b);
			v[n].hi_ns = hist_bucket_hi(b);
			v[n].count = c->h.count[b];
			v[n].max_ns = b == top ? c->h.max_ns : 0;
			n++;
		}
	}
	*out = v;
	return (long)n;
}

int flight_minute_flush(struct flight_minute *m, struct loader *l,
			int64_t offset_ns, uint64_t next_mono_ns,
			struct errmsg *e)
{
	struct flight_minute_row *rows = NULL;
	long n = minute_rows(m, (int64_t)m->start_mono_ns + offset_ns, &rows);
	int err;

	if (n < 0)
		return errmsg_set(e, ENOMEM, "out of memory");
	err = loader_flight_minute(l, rows, (size_t)n, e);
	free(rows);
	m->rows += (uint64_t)n;
	m->n = 0;
	if (m->slots)
		memset(m->slots, 0, m->nslots * sizeof(*m->slots));
	m->start_mono_ns = next_mono_ns;
	return err;
}
